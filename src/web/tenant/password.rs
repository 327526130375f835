//! "Forgot your password?": a form that makes a one-hour, single-use reset link and emails it
//! (answering the same whether the address has an account or not), and the link's page, which
//! sets the new password and ends every other session of the member.

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, web};
use askama::Template;

use super::auth::{page_with_token, start_session};
use super::session::{PublicForm, new_form_token};
use crate::domain::account::Email;
use crate::service::accounts::{self, Reset};
use crate::web::forms::field;
use crate::web::{Reply, State, WebError};

#[derive(Template)]
#[template(path = "tenant/forgot-password.html")]
struct ForgotPage {
    csrf: String,
    email: String,
    /// Whether the form was sent (the answer is the same for every address).
    sent: bool,
    /// Whether this server can send email.
    mail: bool,
}

/// `GET /tenant/forgot-password`
pub async fn forgot_form(request: HttpRequest, state: State) -> Reply {
    let csrf = new_form_token();
    let page = ForgotPage {
        csrf: csrf.clone(),
        email: String::new(),
        sent: false,
        mail: state.mail_enabled(),
    };
    page_with_token(&request, StatusCode::OK, &csrf, &page)
}

/// `POST /tenant/forgot-password`: emails a reset link if the address is a member's; the
/// answer never says whether it is.
pub async fn forgot(request: HttpRequest, state: State, PublicForm(form): PublicForm) -> Reply {
    let email_text = field(&form, "email").unwrap_or("").trim().to_owned();
    if let Some(site) = state.mail_links() {
        accounts::send_reset_link(&state.app, &email_text, site).await?;
    }
    let csrf = new_form_token();
    let page = ForgotPage {
        csrf: csrf.clone(),
        email: email_text,
        sent: true,
        mail: state.mail_enabled(),
    };
    page_with_token(&request, StatusCode::OK, &csrf, &page)
}

#[derive(Template)]
#[template(path = "tenant/reset-password.html")]
struct ResetPage {
    csrf: String,
    token: String,
    email: Email,
    error: Option<String>,
}

fn expired() -> WebError {
    WebError::Gone(
        "This link to set a new password was used or has expired (they work for an hour). Ask \
         for a new one from the sign-in page."
            .into(),
    )
}

/// `GET /tenant/reset-password/{token}`
pub async fn reset_form(request: HttpRequest, state: State, token: web::Path<String>) -> Reply {
    let email = accounts::reset_email(&state.app, &token)
        .await?
        .ok_or_else(expired)?;
    let csrf = new_form_token();
    let page = ResetPage {
        csrf: csrf.clone(),
        token: token.into_inner(),
        email,
        error: None,
    };
    page_with_token(&request, StatusCode::OK, &csrf, &page)
}

/// `POST /tenant/reset-password/{token}`: sets the password, uses the link up, signs out
/// every other session of the member and signs this one in.
pub async fn reset(
    request: HttpRequest,
    state: State,
    token: web::Path<String>,
    PublicForm(form): PublicForm,
) -> Reply {
    let password = field(&form, "password").unwrap_or("").to_owned();
    let account = match accounts::reset_password(&state.app, &token, password).await? {
        Reset::Done(account) => account,
        Reset::Expired => return Err(expired()),
        Reset::Weak(email, problem) => {
            let csrf = new_form_token();
            let page = ResetPage {
                csrf: csrf.clone(),
                token: token.into_inner(),
                email,
                error: Some(problem),
            };
            return page_with_token(&request, StatusCode::UNPROCESSABLE_ENTITY, &csrf, &page);
        }
    };
    start_session(
        &request,
        &state,
        account,
        Some("Your new password is set, and every other session of yours is signed out."),
    )
    .await
}
