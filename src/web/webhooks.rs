//! What the API and the tenant site share about webhooks: checking an endpoint URL against
//! the operator's rule, and queueing a test event.

use time::OffsetDateTime;

use crate::domain::TenantSlug;
use crate::domain::webhook::check_url;
use crate::stores::StoreError;
use crate::stores::webhooks::DeliveryMessage;
use crate::web::AppState;

/// The URL to store, or why it is refused (in words for the owner).
pub fn check(state: &AppState, url: &str) -> Result<String, String> {
    let target =
        check_url(url, |host| state.webhook_hosts.allows(host)).map_err(|e| e.to_string())?;
    Ok(target.url.to_string())
}

/// Queues a test event for the tenant's endpoint `id`; its `webhook-id`, or `None` if the
/// tenant has no such endpoint.
pub async fn send_test(
    state: &AppState,
    tenant: &TenantSlug,
    id: &str,
) -> Result<Option<String>, StoreError> {
    let webhooks = &state.stores.webhooks;
    if !webhooks.list(tenant).await?.iter().any(|e| e.id == id) {
        return Ok(None);
    }
    let now = OffsetDateTime::now_utc();
    let webhook_id = format!("msg_test_{}", uuid::Uuid::new_v4().simple());
    let body = serde_json::json!({
        "type": "test",
        "timestamp": now.format(&time::format_description::well_known::Rfc3339).unwrap_or_default(),
        "data": {"message": "A test event from Canvass: this endpoint is set up."},
    });
    webhooks
        .queue()
        .send(&DeliveryMessage {
            tenant: tenant.clone(),
            endpoint: id.to_owned(),
            webhook_id: webhook_id.clone(),
            event: "test".into(),
            body: body.to_string(),
            first: now,
            attempts: 0,
        })
        .await?;
    Ok(Some(webhook_id))
}
