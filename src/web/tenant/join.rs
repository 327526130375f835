//! Accepting an invitation: the link's page names the tenant, the address and the role, and
//! asks for a password; posting it makes the account and the membership and signs in.

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, web};
use askama::Template;

use super::auth::{SSO_REQUIRED, page_with_token, start_session};
use super::session::{PublicForm, new_form_token};
use crate::domain::member::Invitation;
use crate::service::accounts::{self, Joined};
use crate::web::forms::field;
use crate::web::{Reply, State, WebError};

#[derive(Template)]
#[template(path = "tenant/join.html")]
struct JoinPage {
    csrf: String,
    token: String,
    tenant_name: String,
    invitation: Invitation,
    error: Option<String>,
    /// Whether the tenant signs in through its own provider, and whether this invitation may
    /// only be accepted that way.
    sso: bool,
    password_allowed: bool,
}

pub(super) fn gone() -> WebError {
    WebError::Gone(
        "This invitation was used, withdrawn or has expired. Ask whoever invited you for a new \
         one."
            .into(),
    )
}

/// `GET /tenant/join/{token}`
pub async fn show(request: HttpRequest, state: State, token: web::Path<String>) -> Reply {
    let (tenant, invitation) = accounts::invitation(&state.app, &token)
        .await?
        .ok_or_else(gone)?;
    let sso = accounts::provider(&state.app, &tenant.slug).await?;
    let password_allowed = !sso.as_ref().is_some_and(|sso| sso.binds(invitation.role));
    let csrf = new_form_token();
    let page = JoinPage {
        csrf: csrf.clone(),
        token: token.into_inner(),
        tenant_name: tenant.name.clone(),
        invitation,
        error: None,
        sso: sso.is_some(),
        password_allowed,
    };
    page_with_token(&request, StatusCode::OK, &csrf, &page)
}

/// `POST /tenant/join/{token}`: sets the new member's password and signs them in.
pub async fn accept(
    request: HttpRequest,
    state: State,
    token: web::Path<String>,
    PublicForm(form): PublicForm,
) -> Reply {
    let (tenant, invitation) = accounts::invitation(&state.app, &token)
        .await?
        .ok_or_else(gone)?;
    let password = field(&form, "password").unwrap_or("").to_owned();
    if accounts::provider_required(&state.app, &tenant.slug, invitation.role).await? {
        return Err(WebError::Forbidden(SSO_REQUIRED.into()));
    }
    let refuse = |error: String| {
        let csrf = new_form_token();
        let page = JoinPage {
            csrf: csrf.clone(),
            token: token.to_string(),
            tenant_name: tenant.name.clone(),
            invitation: invitation.clone(),
            error: Some(error),
            sso: false,
            password_allowed: true,
        };
        page_with_token(&request, StatusCode::UNPROCESSABLE_ENTITY, &csrf, &page)
    };
    let joined = accounts::join(&state.app, &tenant, &invitation, password).await?;
    match joined {
        Joined::Member(member, account) => {
            let welcome = format!(
                "Welcome to {}: you are {} here.",
                tenant.name,
                member.role.with_article()
            );
            start_session(&request, &state, account, Some(&welcome)).await
        }
        Joined::AddressTaken => refuse(
            "This address already has a Canvass account, and an address belongs to one \
             organisation. Ask to be invited with another address."
                .into(),
        ),
        Joined::Refused => Err(gone()),
        Joined::Weak(problem) => refuse(problem),
    }
}
