//! A member's own account page: their role, when they are emailed about new responses, and
//! changing their password (which signs out their other sessions).

use std::sync::Arc;

use actix_web::HttpRequest;
use actix_web::http::StatusCode;
use askama::Template;

use super::notice;
use super::session::{AtLeast, SignedIn};
use crate::domain::Tenant;
use crate::domain::member::{Notify, Role};
use crate::service::accounts::{self, PasswordChange};
use crate::web::forms::field;
use crate::web::roles::Viewer;
use crate::web::tenant::survey_form::MemberForm;
use crate::web::{AppState, Reply, State, WebError, render_with_status};

#[derive(Template)]
#[template(path = "tenant/account.html")]
struct AccountPage {
    csrf: String,
    role: Role,
    tenant: Arc<Tenant>,
    email: String,
    notify: Notify,
    choices: [Notify; 3],
    mail: bool,
    password_error: Option<String>,
    notice: Option<String>,
}

async fn page(state: &AppState, signed_in: &SignedIn) -> Result<AccountPage, WebError> {
    let email = &signed_in.session.email;
    let notify = accounts::notify_of(&state.app, &signed_in.tenant, email).await?;
    Ok(AccountPage {
        csrf: signed_in.session.csrf.clone(),
        role: signed_in.role,
        tenant: signed_in.tenant.clone(),
        email: email.as_str().to_owned(),
        notify,
        choices: Notify::ALL,
        mail: state.mail_enabled(),
        password_error: None,
        notice: None,
    })
}

/// `GET /tenant/account`
pub async fn show(state: State, signed_in: AtLeast<Viewer>, request: HttpRequest) -> Reply {
    let mut account = page(&state, &signed_in).await?;
    account.notice = notice::take(&request, &state);
    notice::render_once(&account, account.notice.is_some())
}

/// `POST /tenant/account/notify`: when this member is emailed about new responses.
pub async fn save_notify(state: State, posted: MemberForm<Viewer>) -> Reply {
    let MemberForm { signed_in, form } = posted;
    let notify = field(&form, "notify")
        .and_then(Notify::parse)
        .ok_or_else(|| WebError::BadRequest("Choose off, each response or daily.".into()))?;
    let email = &signed_in.session.email;
    if !accounts::set_notify(&state.app, &signed_in.tenant, email, notify).await? {
        return Err(WebError::SignInRequired);
    }
    let text = match notify {
        Notify::Off => "You will not be emailed about new responses.",
        Notify::Each => "You will be emailed about new responses as they are counted.",
        Notify::Daily => "You will get a daily digest of new responses, per survey.",
    };
    Ok(notice::redirect(&state, "/tenant/account", text))
}

/// `POST /tenant/account/password`: changes the password (the current one is asked for) and
/// signs out every other session.
pub async fn change_password(state: State, posted: MemberForm<Viewer>) -> Reply {
    let MemberForm { signed_in, form } = posted;
    let current = field(&form, "current").unwrap_or("").to_owned();
    let new = field(&form, "password").unwrap_or("").to_owned();
    let changed = accounts::change_password(
        &state.app,
        signed_in.actor(),
        &signed_in.session,
        current,
        new,
    )
    .await?;
    match changed {
        PasswordChange::Done => {}
        PasswordChange::NoAccount => return Err(WebError::SignInRequired),
        PasswordChange::Refused(problem) => {
            let mut shown = page(&state, &signed_in).await?;
            shown.password_error = Some(problem);
            return render_with_status(StatusCode::UNPROCESSABLE_ENTITY, &shown);
        }
    }
    Ok(notice::redirect(
        &state,
        "/tenant/account",
        "Your new password is set, and every other session of yours is signed out.",
    ))
}
