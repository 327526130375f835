//! `/api/v1/webhooks`: register an endpoint (its secret shown once), list, remove, and send a
//! test event, within the caller's tenant.

use actix_web::{HttpResponse, web};
use serde::Deserialize;
use serde_json::json;

use super::{ApiCaller, ApiError, JsonBody};
use crate::domain::audit::AuditAction;
use crate::stores::webhooks::{Endpoint, MAX_ENDPOINTS};
use crate::web::AppState;
use crate::web::roles::Editor;
use crate::web::webhooks::{check, send_test};

/// What `POST /api/v1/webhooks` takes.
#[derive(Deserialize)]
pub struct NewWebhook {
    url: String,
}

fn shown(endpoint: &Endpoint) -> serde_json::Value {
    json!({
        "id": endpoint.id,
        "url": endpoint.url,
        "created": endpoint.created.format(&time::format_description::well_known::Rfc3339).unwrap_or_default(),
        "disabled": endpoint.disabled,
    })
}

/// `POST /api/v1/webhooks` with `{"url"}`: 201 with `id` and `secret` (shown this once).
pub async fn create(
    state: web::Data<AppState>,
    caller: ApiCaller<Editor>,
    body: JsonBody<NewWebhook>,
) -> Result<HttpResponse, ApiError> {
    let url = check(&state, &body.0.url).map_err(|problem| ApiError::Invalid {
        reason: problem.clone(),
        fields: [("url".to_owned(), problem)].into(),
    })?;
    let (endpoint, secret) = state
        .stores
        .webhooks
        .add(&caller.tenant.slug, &url)
        .await?
        .ok_or_else(|| ApiError::Invalid {
            reason: format!("a tenant has at most {MAX_ENDPOINTS} webhooks"),
            fields: Default::default(),
        })?;
    caller
        .record(&state, AuditAction::WebhookAdded, endpoint.url.clone())
        .await?;
    let mut shown = shown(&endpoint);
    shown["secret"] = json!(secret.as_str());
    Ok(HttpResponse::Created().json(shown))
}

/// `GET /api/v1/webhooks`: `{"webhooks": [...]}` (without secrets).
pub async fn list(
    state: web::Data<AppState>,
    caller: ApiCaller<Editor>,
) -> Result<HttpResponse, ApiError> {
    let endpoints = state.stores.webhooks.list(&caller.tenant.slug).await?;
    Ok(HttpResponse::Ok().json(json!({
        "webhooks": endpoints.iter().map(shown).collect::<Vec<_>>(),
    })))
}

/// `DELETE /api/v1/webhooks/{id}`: 204, or 404.
pub async fn delete(
    state: web::Data<AppState>,
    caller: ApiCaller<Editor>,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    match state
        .stores
        .webhooks
        .remove(&caller.tenant.slug, &id)
        .await?
    {
        true => {
            caller
                .record(
                    &state,
                    AuditAction::WebhookRemoved,
                    format!("endpoint {id}"),
                )
                .await?;
            Ok(HttpResponse::NoContent().finish())
        }
        false => Err(ApiError::NotFound),
    }
}

/// `POST /api/v1/webhooks/{id}/test`: 202 once a test event is queued for the endpoint.
pub async fn test(
    state: web::Data<AppState>,
    caller: ApiCaller<Editor>,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    match send_test(&state, &caller.tenant.slug, &id).await? {
        Some(webhook_id) => Ok(HttpResponse::Accepted().json(json!({"webhook_id": webhook_id}))),
        None => Err(ApiError::NotFound),
    }
}
