//! A tenant's webhook endpoints: adding one (its address checked against the operator's
//! rule), removing one, and sending a test event, each as the JSON API and the webhooks page
//! both do it.

use super::App;
use crate::domain::TenantSlug;
use crate::domain::audit::AuditAction;
use crate::domain::webhook::Secret;
use crate::outbound::{AllowedHosts, check_url};
use crate::stores::StoreError;
use crate::stores::webhooks::DeliveryMessage;
pub use crate::stores::webhooks::{DeliveryRecord, Endpoint, MAX_ENDPOINTS};

use super::Actor;

/// Why an endpoint was not added.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum Refusal {
    /// The address is malformed or points where the operator's rule forbids.
    #[error("{0}")]
    Address(String),
    /// The tenant already has its most endpoints.
    #[error("a tenant has at most {MAX_ENDPOINTS} webhooks")]
    TooMany,
}

/// Adds an endpoint at `url` to the actor's tenant: the endpoint and its signing secret
/// (shown this once), or why it was refused.
pub async fn add(
    app: &App,
    actor: Actor<'_>,
    hosts: &AllowedHosts,
    url: &str,
) -> Result<Result<(Endpoint, Secret), Refusal>, StoreError> {
    let stores = app.stores();
    let url = match check_url(url, |host| hosts.allows(host)) {
        Ok(target) => target.url.to_string(),
        Err(problem) => return Ok(Err(Refusal::Address(problem.to_string()))),
    };
    let Some((endpoint, secret)) = stores.operations.webhooks.add(actor.tenant, &url).await? else {
        return Ok(Err(Refusal::TooMany));
    };
    actor
        .record(app, AuditAction::WebhookAdded, endpoint.url.clone())
        .await?;
    Ok(Ok((endpoint, secret)))
}

/// Removes the endpoint `id`; false when the tenant has no such endpoint.
pub async fn remove(app: &App, actor: Actor<'_>, id: &str) -> Result<bool, StoreError> {
    let stores = app.stores();
    if !stores.operations.webhooks.remove(actor.tenant, id).await? {
        return Ok(false);
    }
    actor
        .record(app, AuditAction::WebhookRemoved, format!("endpoint {id}"))
        .await?;
    Ok(true)
}

/// Queues a test event for the endpoint `id`: its `webhook-id`, or `None` when the tenant has
/// no such endpoint.
pub async fn send_test(
    app: &App,
    actor: Actor<'_>,
    id: &str,
) -> Result<Option<String>, StoreError> {
    let stores = app.stores();
    let webhooks = &stores.operations.webhooks;
    if !webhooks
        .list(actor.tenant)
        .await?
        .iter()
        .any(|e| e.id == id)
    {
        return Ok(None);
    }
    let webhook_id = format!("msg_test_{}", uuid::Uuid::new_v4().simple());
    let data =
        serde_json::json!({"message": "A test event from Canvass: this endpoint is set up."});
    let delivery = DeliveryMessage::event(actor.tenant, id, webhook_id.clone(), "test", &data);
    webhooks.enqueue(&delivery).await?;
    Ok(Some(webhook_id))
}

/// `tenant`'s webhook endpoints.
pub async fn list(app: &App, tenant: &TenantSlug) -> Result<Vec<Endpoint>, StoreError> {
    app.stores().operations.webhooks.list(tenant).await
}

/// `tenant`'s webhook endpoints, each with its latest deliveries.
pub async fn with_deliveries(
    app: &App,
    tenant: &TenantSlug,
) -> Result<Vec<(Endpoint, Vec<DeliveryRecord>)>, StoreError> {
    let stores = app.stores();
    let mut endpoints = Vec::new();
    for endpoint in stores.operations.webhooks.list(tenant).await? {
        let deliveries = stores.operations.webhooks.log(tenant, &endpoint.id).await?;
        endpoints.push((endpoint, deliveries));
    }
    Ok(endpoints)
}
