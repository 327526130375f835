//! Signing in through a tenant's own identity provider: the page that asks which
//! organisation, the redirect to its provider (state, nonce and PKCE verifier kept in an
//! encrypted, short-lived cookie), the provider's answer, and accepting an invitation the
//! same way. The owners' form for the provider is with the other settings (`settings`).

use actix_web::cookie::{Cookie, SameSite, time::Duration as CookieDuration};
use actix_web::http::StatusCode;
use actix_web::http::header::LOCATION;
use actix_web::{HttpRequest, HttpResponse, web};
use askama::Template;
use serde::Deserialize;

use super::auth::start_session;
use super::session::{PublicForm, seal, unseal};
use crate::domain::TenantSlug;
use crate::service::accounts::{self, Joined};
use crate::sso::{Flow, Provider, SsoError, SsoSettings};
use crate::web::{AppState, Reply, State, WebError, render_with_status};

/// The cookie that carries a sign-in in progress.
const FLOW_COOKIE: &str = "canvass_sso";
/// How long a person may take at their provider.
const FLOW_LIFETIME: CookieDuration = CookieDuration::minutes(10);

/// The address the provider sends people back to: registered with it by the owner.
pub fn callback_url(state: &AppState, request: &HttpRequest) -> String {
    format!("{}/tenant/sso/callback", state.site_url(request))
}

#[derive(Template)]
#[template(path = "tenant/sso.html")]
struct SsoPage {
    organisation: String,
    error: Option<String>,
}

/// Which organisation to sign in to.
#[derive(Deserialize)]
pub struct SsoQuery {
    organisation: Option<String>,
}

/// The tenant's provider settings, if it set one up.
pub(super) async fn settings_of(
    state: &AppState,
    tenant: &TenantSlug,
) -> Result<Option<SsoSettings>, WebError> {
    Ok(accounts::provider(&state.app, tenant).await?)
}

fn refused(organisation: &str, error: String) -> Reply {
    render_with_status(
        StatusCode::UNPROCESSABLE_ENTITY,
        &SsoPage {
            organisation: organisation.to_owned(),
            error: Some(error),
        },
    )
}

/// `GET /tenant/sso?organisation=SLUG`: without an organisation, the page that asks for it;
/// with one that has a provider, off to the provider.
pub async fn start(request: HttpRequest, state: State, query: web::Query<SsoQuery>) -> Reply {
    let Some(organisation) = query.into_inner().organisation.map(|o| o.trim().to_owned()) else {
        return crate::web::render(&SsoPage {
            organisation: String::new(),
            error: None,
        });
    };
    let settings = match TenantSlug::parse(&organisation) {
        Ok(slug) => settings_of(&state, &slug)
            .await?
            .map(|settings| (slug, settings)),
        Err(_) => None,
    };
    let Some((slug, settings)) = settings else {
        return refused(
            &organisation,
            "No organisation with this address signs in through single sign-on here.".into(),
        );
    };
    redirect_to_provider(&request, &state, &slug, &settings, None).await
}

/// Discovers the provider and sends the person there, remembering the flow in a cookie.
async fn redirect_to_provider(
    request: &HttpRequest,
    state: &AppState,
    tenant: &TenantSlug,
    settings: &SsoSettings,
    invitation: Option<String>,
) -> Reply {
    let provider = match Provider::discover(settings, &state.settings.sso_hosts).await {
        Ok(provider) => provider,
        Err(error) => return refused(tenant.as_str(), error.to_string()),
    };
    let (url, flow) = provider
        .start(&callback_url(state, request), tenant.as_str(), invitation)
        .map_err(|error| WebError::BadRequest(error.to_string()))?;
    let value = serde_json::to_string(&flow).map_err(|e| WebError::Internal(e.to_string()))?;
    let cookie = Cookie::build(FLOW_COOKIE, value)
        .path("/tenant/sso")
        .http_only(true)
        // Lax: the provider's redirect back is a top-level GET, which carries it.
        .same_site(SameSite::Lax)
        .secure(super::session::secure(request))
        .max_age(FLOW_LIFETIME)
        .finish();
    Ok(HttpResponse::SeeOther()
        .insert_header((LOCATION, url))
        .cookie(seal(state, cookie))
        .finish())
}

/// The provider's answer.
#[derive(Deserialize)]
pub struct CallbackQuery {
    code: Option<String>,
    state: Option<String>,
    error: Option<String>,
    error_description: Option<String>,
}

/// The sign-in in progress this request's cookie carries (a tampered one carries none).
fn flow_of(request: &HttpRequest, state: &AppState) -> Option<Flow> {
    serde_json::from_str(&unseal(request, state, FLOW_COOKIE)?).ok()
}

/// `GET /tenant/sso/callback?code=..&state=..`: verifies the answer and signs the member in
/// (or, for an invitation, makes them a member first).
pub async fn callback(
    request: HttpRequest,
    state: State,
    query: web::Query<CallbackQuery>,
) -> Reply {
    let query = query.into_inner();
    let flow = flow_of(&request, &state).ok_or_else(|| {
        WebError::BadRequest(
            "This sign-in was not started here, or took longer than 10 minutes. Start again."
                .into(),
        )
    })?;
    if let Some(error) = query.error {
        let why = query.error_description.unwrap_or(error);
        return refused(&flow.tenant, format!("The identity provider said: {why}"));
    }
    let (Some(code), Some(answer_state)) = (query.code, query.state) else {
        return Err(WebError::BadRequest(
            "The provider's answer has no code.".into(),
        ));
    };
    let slug = TenantSlug::parse(&flow.tenant).map_err(|_| WebError::NotFound)?;
    let tenant = crate::service::tenants::get(&state.app, &slug)
        .await?
        .ok_or(WebError::NotFound)?;
    let settings = settings_of(&state, &slug).await?.ok_or_else(|| {
        WebError::BadRequest("This organisation no longer uses single sign-on.".into())
    })?;
    let provider = Provider::discover(&settings, &state.settings.sso_hosts)
        .await
        .map_err(|error| WebError::BadRequest(error.to_string()))?;
    let email = match provider
        .finish(&callback_url(&state, &request), &flow, &code, &answer_state)
        .await
    {
        Ok(email) => email,
        Err(error @ (SsoError::Refused(_) | SsoError::Settings(_))) => {
            return Err(WebError::Forbidden(error.to_string()));
        }
        Err(error) => return refused(&flow.tenant, error.to_string()),
    };
    let account = match &flow.invitation {
        Some(token) => {
            let invitation = match accounts::invitation(&state.app, token).await? {
                Some((invited_to, invitation)) if invited_to.slug == slug => invitation,
                _ => return Err(super::join::gone()),
            };
            if invitation.email != email {
                return Err(WebError::Forbidden(format!(
                    "The invitation is for {}, and the identity provider signed you in as {}.",
                    invitation.email.as_str(),
                    email.as_str()
                )));
            }
            match accounts::join_through_provider(&state.app, &tenant, &invitation).await? {
                Joined::Member(_, account) => account,
                Joined::AddressTaken => {
                    return Err(WebError::Forbidden(
                        "This address already has a Canvass account, and an address belongs to \
                         one organisation."
                            .into(),
                    ));
                }
                Joined::Refused | Joined::Weak(_) => return Err(super::join::gone()),
            }
        }
        None => {
            let account = accounts::signed_in_by_provider(&state.app, &slug, &email).await?;
            account.ok_or_else(|| {
                WebError::Forbidden(format!(
                    "{} is not a member of {}: ask one of its owners for an invitation.",
                    email.as_str(),
                    tenant.name
                ))
            })?
        }
    };
    let mut response = start_session(&request, &state, account, None).await?;
    let mut gone = Cookie::build(FLOW_COOKIE, "").path("/tenant/sso").finish();
    gone.make_removal();
    response
        .add_cookie(&gone)
        .map_err(|e| WebError::Internal(e.to_string()))?;
    Ok(response)
}

/// `POST /tenant/join/{token}/sso`: accepts an invitation by signing in at the tenant's
/// provider (the address it answers must be the invited one).
pub async fn join(
    request: HttpRequest,
    state: State,
    token: web::Path<String>,
    _: PublicForm,
) -> Reply {
    let token = token.into_inner();
    let (tenant, _) = accounts::invitation(&state.app, &token)
        .await?
        .ok_or_else(super::join::gone)?;
    let slug = tenant.slug.clone();
    let settings = settings_of(&state, &slug).await?.ok_or_else(|| {
        WebError::BadRequest("This organisation does not use single sign-on.".into())
    })?;
    redirect_to_provider(&request, &state, &slug, &settings, Some(token)).await
}
