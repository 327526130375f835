//! `/api/v1/webhooks`: register an endpoint (its secret shown once), list, remove, and send a
//! test event, within the caller's tenant.

use actix_web::{HttpResponse, web};
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;
use utoipa::ToSchema;

use super::error::ErrorBody;
use super::{ApiCaller, ApiError, JsonBody};
use crate::service::webhooks::Endpoint;
use crate::service::webhooks::{self as service, Refusal};
use crate::web::State;
use crate::web::roles::Editor;

/// What `POST /api/v1/webhooks` takes.
#[derive(Deserialize, ToSchema)]
pub struct NewWebhook {
    /// Where deliveries go: an `https` address on the public internet.
    #[schema(example = "https://example.com/canvass-events")]
    url: String,
}

/// A webhook endpoint, without its secret.
#[derive(Serialize, ToSchema)]
pub struct Webhook<'a> {
    /// Its id.
    id: &'a str,
    /// Where deliveries go.
    url: &'a str,
    /// When it was added.
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    created: OffsetDateTime,
    /// Why it was disabled (after failing for too long), or null while it receives events.
    disabled: Option<&'a str>,
}

impl<'a> From<&'a Endpoint> for Webhook<'a> {
    fn from(endpoint: &'a Endpoint) -> Self {
        Self {
            id: &endpoint.id,
            url: &endpoint.url,
            created: endpoint.created,
            disabled: endpoint.disabled.as_deref(),
        }
    }
}

/// A webhook endpoint just added, with its signing secret (shown this once).
#[derive(Serialize, ToSchema)]
pub struct NewEndpoint<'a> {
    /// The endpoint.
    #[serde(flatten)]
    webhook: Webhook<'a>,
    /// The secret that signs its deliveries (`whsec_...`).
    secret: &'a str,
}

/// The tenant's webhook endpoints.
#[derive(Serialize, ToSchema)]
pub struct WebhookList<'a> {
    /// Every endpoint, without secrets.
    webhooks: Vec<Webhook<'a>>,
}

/// A test event just queued.
#[derive(Serialize, ToSchema)]
pub struct TestQueued {
    /// The event's id, as its delivery carries it.
    webhook_id: String,
}

/// `POST /api/v1/webhooks` with `{"url"}`: 201 with `id` and `secret` (shown this once).
#[utoipa::path(post, path = "/api/v1/webhooks", operation_id = "create_webhook",
    summary = "Add a webhook endpoint", tag = "webhooks", request_body = NewWebhook,
    responses(
        (status = 201, description = "Added", body = NewEndpoint),
        (status = 422, description = "The address is not allowed, or the tenant has its most webhooks", body = ErrorBody),
    ))]
pub async fn create(
    state: State,
    caller: ApiCaller<Editor>,
    body: JsonBody<NewWebhook>,
) -> Result<HttpResponse, ApiError> {
    let (endpoint, secret) = service::add(
        &state.app,
        caller.actor(),
        &state.settings.webhook_hosts,
        &body.0.url,
    )
    .await?
    .map_err(|refusal| ApiError::Invalid {
        reason: refusal.to_string(),
        fields: match refusal {
            Refusal::Address(problem) => [("url".to_owned(), problem)].into(),
            Refusal::TooMany => Default::default(),
        },
    })?;
    Ok(HttpResponse::Created().json(NewEndpoint {
        webhook: Webhook::from(&endpoint),
        secret: secret.as_str(),
    }))
}

/// `GET /api/v1/webhooks`: `{"webhooks": [...]}` (without secrets).
#[utoipa::path(get, path = "/api/v1/webhooks", operation_id = "list_webhooks",
    summary = "List the webhook endpoints", tag = "webhooks",
    responses((status = 200, description = "The tenant's endpoints", body = WebhookList)))]
pub async fn list(state: State, caller: ApiCaller<Editor>) -> Result<HttpResponse, ApiError> {
    let endpoints = service::list(&state.app, &caller.tenant.slug).await?;
    Ok(HttpResponse::Ok().json(WebhookList {
        webhooks: endpoints.iter().map(Webhook::from).collect(),
    }))
}

/// `DELETE /api/v1/webhooks/{id}`: 204, or 404.
#[utoipa::path(delete, path = "/api/v1/webhooks/{id}", operation_id = "delete_webhook",
    summary = "Remove a webhook endpoint", tag = "webhooks",
    params(("id" = String, Path, description = "The endpoint's id")),
    responses((status = 204, description = "Removed")))]
pub async fn delete(
    state: State,
    caller: ApiCaller<Editor>,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    match service::remove(&state.app, caller.actor(), &id).await? {
        true => Ok(HttpResponse::NoContent().finish()),
        false => Err(ApiError::NotFound),
    }
}

/// `POST /api/v1/webhooks/{id}/test`: 202 once a test event is queued for the endpoint.
#[utoipa::path(post, path = "/api/v1/webhooks/{id}/test", operation_id = "test_webhook",
    summary = "Send a test event to an endpoint", tag = "webhooks",
    params(("id" = String, Path, description = "The endpoint's id")),
    responses((status = 202, description = "A test event is queued", body = TestQueued)))]
pub async fn test(
    state: State,
    caller: ApiCaller<Editor>,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    match service::send_test(&state.app, caller.actor(), &id).await? {
        Some(webhook_id) => Ok(HttpResponse::Accepted().json(TestQueued { webhook_id })),
        None => Err(ApiError::NotFound),
    }
}
