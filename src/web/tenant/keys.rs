//! The tenant's API keys: create (shown once), list and revoke.

use std::sync::Arc;

use actix_web::{HttpRequest, HttpResponse, web};
use askama::Template;

use super::notice;
use super::session::SignedIn;
use crate::domain::Tenant;
use crate::stores::ApiKeyRecord;
use crate::web::forms::field;
use crate::web::{AppState, WebError, render};

#[derive(Template)]
#[template(path = "tenant/api-keys.html")]
struct KeysPage {
    csrf: String,
    tenant: Arc<Tenant>,
    keys: Vec<ApiKeyRecord>,
    new_key: Option<String>,
    notice: Option<String>,
}

async fn page(
    state: &AppState,
    signed_in: &SignedIn,
    new_key: Option<String>,
) -> Result<KeysPage, WebError> {
    Ok(KeysPage {
        csrf: signed_in.session.csrf.clone(),
        tenant: signed_in.tenant.clone(),
        keys: state.stores.api_keys.list(&signed_in.tenant.slug).await?,
        new_key,
        notice: None,
    })
}

/// `GET /tenant/api-keys`
pub async fn show(
    state: web::Data<AppState>,
    signed_in: SignedIn,
    request: HttpRequest,
) -> Result<HttpResponse, WebError> {
    let mut keys = page(&state, &signed_in, None).await?;
    keys.notice = notice::take(&request, &state);
    notice::render_once(&keys, keys.notice.is_some())
}

/// `POST /tenant/api-keys`: makes a key and shows it once.
pub async fn create(
    state: web::Data<AppState>,
    signed_in: SignedIn,
    payload: web::Payload,
) -> Result<HttpResponse, WebError> {
    let form = signed_in.checked_form(payload, &state).await?;
    let label = field(&form, "label").unwrap_or("").trim();
    let label = if label.is_empty() {
        "unnamed key"
    } else {
        label
    };
    let (key, _) = state
        .stores
        .api_keys
        .create(&signed_in.tenant.slug, label)
        .await?;
    render(&page(&state, &signed_in, Some(key)).await?)
}

#[derive(Template)]
#[template(path = "tenant/revoke.html")]
struct RevokePage {
    csrf: String,
    key: ApiKeyRecord,
}

/// The tenant's key with this id, or 404.
async fn own_key(
    state: &AppState,
    signed_in: &SignedIn,
    id: &str,
) -> Result<ApiKeyRecord, WebError> {
    state
        .stores
        .api_keys
        .list(&signed_in.tenant.slug)
        .await?
        .into_iter()
        .find(|key| key.id == id)
        .ok_or(WebError::NotFound)
}

/// `GET /tenant/api-keys/{id}/revoke`: asks first.
pub async fn confirm_revoke(
    state: web::Data<AppState>,
    signed_in: SignedIn,
    id: web::Path<String>,
) -> Result<HttpResponse, WebError> {
    let key = own_key(&state, &signed_in, &id).await?;
    render(&RevokePage {
        csrf: signed_in.session.csrf.clone(),
        key,
    })
}

/// `POST /tenant/api-keys/{id}/revoke`
pub async fn revoke(
    state: web::Data<AppState>,
    signed_in: SignedIn,
    id: web::Path<String>,
    payload: web::Payload,
) -> Result<HttpResponse, WebError> {
    signed_in.checked_form(payload, &state).await?;
    let key = own_key(&state, &signed_in, &id).await?;
    if !state
        .stores
        .api_keys
        .revoke(&signed_in.tenant.slug, &id)
        .await?
    {
        return Err(WebError::NotFound);
    }
    Ok(notice::redirect(
        &state,
        "/tenant/api-keys",
        &format!(
            "Key \"{}\" revoked: programs using it can no longer reach the API.",
            key.label
        ),
    ))
}
