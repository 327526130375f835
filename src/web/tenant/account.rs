//! A member's own account page: their role, when they are emailed about new responses, and
//! changing their password (which signs out their other sessions).

use std::sync::Arc;

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use askama::Template;

use super::auth::{hashed, verified};
use super::notice;
use super::session::{AtLeast, SignedIn};
use crate::domain::Tenant;
use crate::domain::account::password_problem;
use crate::domain::member::{Notify, Role};
use crate::web::forms::field;
use crate::web::roles::Viewer;
use crate::web::{AppState, WebError, render_with_status};

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
    let members = state.stores.members.read(&signed_in.tenant).await?;
    let email = &signed_in.session.email;
    Ok(AccountPage {
        csrf: signed_in.session.csrf.clone(),
        role: signed_in.role,
        tenant: signed_in.tenant.clone(),
        email: email.as_str().to_owned(),
        notify: members.get(email).map(|m| m.notify).unwrap_or_default(),
        choices: Notify::ALL,
        mail: state.mail_enabled(),
        password_error: None,
        notice: None,
    })
}

/// `GET /tenant/account`
pub async fn show(
    state: web::Data<AppState>,
    signed_in: AtLeast<Viewer>,
    request: HttpRequest,
) -> Result<HttpResponse, WebError> {
    let mut account = page(&state, &signed_in).await?;
    account.notice = notice::take(&request, &state);
    notice::render_once(&account, account.notice.is_some())
}

/// `POST /tenant/account/notify`: when this member is emailed about new responses.
pub async fn save_notify(
    state: web::Data<AppState>,
    signed_in: AtLeast<Viewer>,
    payload: web::Payload,
) -> Result<HttpResponse, WebError> {
    let form = signed_in.checked_form(payload, &state).await?;
    let notify = field(&form, "notify")
        .and_then(Notify::parse)
        .ok_or_else(|| WebError::BadRequest("Choose off, each response or daily.".into()))?;
    let email = signed_in.session.email.clone();
    state
        .stores
        .members
        .change(&signed_in.tenant, |members| {
            members.set_notify(&email, notify)
        })
        .await?
        .map_err(|_| WebError::SignInRequired)?;
    let text = match notify {
        Notify::Off => "You will not be emailed about new responses.",
        Notify::Each => "You will be emailed about new responses as they are counted.",
        Notify::Daily => "You will get a daily digest of new responses, per survey.",
    };
    Ok(notice::redirect(&state, "/tenant/account", text))
}

/// `POST /tenant/account/password`: changes the password (the current one is asked for) and
/// signs out every other session.
pub async fn change_password(
    state: web::Data<AppState>,
    signed_in: AtLeast<Viewer>,
    payload: web::Payload,
) -> Result<HttpResponse, WebError> {
    let form = signed_in.checked_form(payload, &state).await?;
    let current = field(&form, "current").unwrap_or("").to_owned();
    let new = field(&form, "password").unwrap_or("").to_owned();
    let email = signed_in.session.email.clone();
    let accounts = &state.stores.accounts;
    let account = accounts
        .get(&email)
        .await?
        .ok_or(WebError::SignInRequired)?;
    let hash = account.password_hash.clone();
    let matches = verified(current, hash).await?;
    let problem = match matches {
        false => Some("Your current password is not right.".to_owned()),
        true => password_problem(&new, email.as_str()),
    };
    if let Some(problem) = problem {
        let mut shown = page(&state, &signed_in).await?;
        shown.password_error = Some(problem);
        return render_with_status(StatusCode::UNPROCESSABLE_ENTITY, &shown);
    }
    let new_hash = hashed(new).await?;
    accounts.set_password(&email, &new_hash).await?;
    state
        .stores
        .sessions
        .end_all_of(&email, Some(&signed_in.session.id))
        .await?;
    signed_in
        .record(
            &state,
            crate::domain::audit::AuditAction::PasswordChanged,
            "every other session was signed out",
        )
        .await?;
    Ok(notice::redirect(
        &state,
        "/tenant/account",
        "Your new password is set, and every other session of yours is signed out.",
    ))
}
