//! The tenant's API keys: create (shown once), list and revoke.

use std::sync::Arc;

use actix_web::http::header::LOCATION;
use actix_web::{HttpResponse, web};
use askama::Template;

use super::session::SignedIn;
use crate::domain::Tenant;
use crate::stores::ApiKeyRecord;
use crate::web::forms::{field, read_form};
use crate::web::{AppState, WebError, render};

#[derive(Template)]
#[template(path = "tenant/api-keys.html")]
struct KeysPage {
    csrf: String,
    tenant: Arc<Tenant>,
    keys: Vec<ApiKeyRecord>,
    new_key: Option<String>,
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
    })
}

/// `GET /tenant/api-keys`
pub async fn show(
    state: web::Data<AppState>,
    signed_in: SignedIn,
) -> Result<HttpResponse, WebError> {
    render(&page(&state, &signed_in, None).await?)
}

/// `POST /tenant/api-keys`: makes a key and shows it once.
pub async fn create(
    state: web::Data<AppState>,
    signed_in: SignedIn,
    payload: web::Payload,
) -> Result<HttpResponse, WebError> {
    let form = read_form(payload, &state).await?;
    signed_in.check_csrf(field(&form, "csrf"))?;
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

/// `POST /tenant/api-keys/{id}/revoke`
pub async fn revoke(
    state: web::Data<AppState>,
    signed_in: SignedIn,
    id: web::Path<String>,
    payload: web::Payload,
) -> Result<HttpResponse, WebError> {
    let form = read_form(payload, &state).await?;
    signed_in.check_csrf(field(&form, "csrf"))?;
    if !state
        .stores
        .api_keys
        .revoke(&signed_in.tenant.slug, &id)
        .await?
    {
        return Err(WebError::NotFound);
    }
    Ok(HttpResponse::SeeOther()
        .insert_header((LOCATION, "/tenant/api-keys"))
        .finish())
}
