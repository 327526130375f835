//! What the API and the tenant site share about webhooks: checking an endpoint URL against
//! the operator's rule, and queueing a test event.

use crate::domain::TenantSlug;
use crate::outbound::check_url;
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
    let webhook_id = format!("msg_test_{}", uuid::Uuid::new_v4().simple());
    let data =
        serde_json::json!({"message": "A test event from Canvass: this endpoint is set up."});
    let delivery = DeliveryMessage::event(tenant, id, webhook_id.clone(), "test", &data);
    webhooks.enqueue(&delivery).await?;
    Ok(Some(webhook_id))
}
