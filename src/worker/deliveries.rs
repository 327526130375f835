//! Delivering webhooks: takes deliveries from their own queue, a few at a time and side by
//! side, apart from the answer queues (a slow or failing endpoint never slows counting), and
//! POSTs each, signed, to its endpoint.
//!
//! Each delivery resolves the endpoint's host once and connects to that address only (so a
//! name cannot be made to point elsewhere between the check and the connection); an internal
//! address is refused unless the operator allows the host. At least once: a message is
//! deleted only after a 2xx answer or when given up; a failure reschedules it (the same
//! `webhook-id`, a longer wait each time) until 24 hours after its first attempt, and an
//! endpoint that has failed every delivery for 24 hours is disabled with the reason.

use std::time::Duration;

use futures_util::future::join_all;
use time::OffsetDateTime;

use crate::domain::webhook::{GIVE_UP_AFTER, Secret, retry_delay};
use crate::outbound::AllowedHosts;
use crate::storage::Message;
use crate::stores::webhooks::{DeliveryMessage, DeliveryRecord};
use crate::stores::{Operations, StoreError, Stores};
use crate::telemetry::error_chain;

/// How deliveries are made.
#[derive(Clone, Debug)]
pub struct DeliverySettings {
    /// Hosts reachable over plain http and on any address (`CANVASS_WEBHOOK_ALLOWED_HOSTS`).
    pub allowed: AllowedHosts,
    /// The longest wait for an endpoint's answer.
    pub timeout: Duration,
    /// Deliveries made side by side.
    pub concurrency: usize,
    /// How much of each retry wait to wait (1 in service; tests shorten it).
    pub retry_scale: f64,
}

impl Default for DeliverySettings {
    fn default() -> Self {
        Self {
            allowed: AllowedHosts::default(),
            timeout: Duration::from_secs(10),
            concurrency: 8,
            retry_scale: 1.0,
        }
    }
}

/// Makes the deliveries that are due now (up to `concurrency`); returns how many it tried.
pub async fn step(stores: &Operations, settings: &DeliverySettings) -> Result<usize, StoreError> {
    // Hidden long enough for the timeout and the bookkeeping after it.
    let visibility = settings.timeout * 3;
    let due = stores
        .webhooks
        .queue()
        .receive_many::<DeliveryMessage>(settings.concurrency.max(1), visibility)
        .await?;
    let tried = due.len();
    for outcome in join_all(
        due.into_iter()
            .map(|(message, content)| handle(stores, settings, message, content)),
    )
    .await
    {
        outcome?;
    }
    Ok(tried)
}

/// Delivers until the worker stops, waiting a little when nothing is due.
pub async fn run(stores: Stores, settings: DeliverySettings, mut looping: super::idle::Looping) {
    while looping.going() {
        let delivered = step(&stores.operations, &settings);
        let found = looping
            .unless_paused(async { delivered.await.map(|tried| tried > 0) })
            .await;
        looping
            .rest_after(found, "a webhook delivery step", Duration::from_secs(1))
            .await;
    }
}

async fn handle(
    stores: &Operations,
    settings: &DeliverySettings,
    message: Message,
    content: Result<DeliveryMessage, String>,
) -> Result<(), StoreError> {
    let queue = stores.webhooks.queue();
    let Some(delivery) = queue.readable(&message, content).await? else {
        return Ok(());
    };
    let endpoint = stores
        .webhooks
        .list(&delivery.tenant)
        .await?
        .into_iter()
        .find(|endpoint| endpoint.id == delivery.endpoint);
    let Some(endpoint) = endpoint.filter(|endpoint| endpoint.disabled.is_none()) else {
        // Removed or disabled since: nothing to deliver to.
        stores.webhooks.forget_body(&delivery).await?;
        return queue.finish(&message).await;
    };
    let Some(body) = stores.webhooks.body(&delivery).await? else {
        // Its body is gone: another worker finished this delivery after a redelivery.
        return queue.finish(&message).await;
    };
    let attempt = delivery.attempts + 1;
    let answered = post(&endpoint.url, &endpoint.secret, &delivery, &body, settings).await;
    let now = OffsetDateTime::now_utc();
    let delivered = matches!(answered, Ok(status) if (200..300).contains(&status));
    let expired = (now - delivery.first).unsigned_abs() >= GIVE_UP_AFTER;
    let (status, error) = match &answered {
        Ok(status) => (Some(*status), None),
        Err(error) => (None, Some(error.clone())),
    };
    let outcome = match (delivered, expired) {
        (true, _) => "delivered",
        (false, true) => "given up",
        (false, false) => "will retry",
    };
    let reason = match &answered {
        Ok(status) => format!("HTTP {status}"),
        Err(error) => error.clone(),
    };
    stores
        .webhooks
        .record(
            &delivery.tenant,
            &endpoint.id,
            DeliveryRecord {
                webhook_id: delivery.webhook_id.clone(),
                event: delivery.event.clone(),
                at: now,
                attempt,
                outcome: outcome.into(),
                status,
                error,
            },
        )
        .await?;
    if let Some(changed) = stores
        .webhooks
        .outcome(&delivery.tenant, &endpoint.id, delivered, &reason)
        .await?
        && let Some(why) = &changed.disabled
    {
        tracing::warn!(tenant = %delivery.tenant, endpoint = %endpoint.id, %why, "disabled a webhook endpoint");
    }
    if delivered || expired {
        // The body first: a message redelivered after a crash between the two finds its body
        // gone and is finished then, so no blob is left behind.
        stores.webhooks.forget_body(&delivery).await?;
        return queue.finish(&message).await;
    }
    let wait = retry_delay(attempt).mul_f64(settings.retry_scale);
    let again = DeliveryMessage {
        attempts: attempt,
        ..delivery
    };
    queue.replace(&message, &again, wait).await
}

/// One attempt: the endpoint's HTTP status, or why there was none.
async fn post(
    url: &str,
    secret: &str,
    delivery: &DeliveryMessage,
    body: &str,
    settings: &DeliverySettings,
) -> Result<u16, String> {
    let target = crate::outbound::pinned(url, &settings.allowed, settings.timeout).await?;
    let secret = Secret::parse(secret).ok_or("the endpoint's secret cannot be read")?;
    let timestamp = OffsetDateTime::now_utc().unix_timestamp();
    let signature = secret.sign(&delivery.webhook_id, timestamp, body.as_bytes());
    let response = target
        .client
        .post(target.url)
        .header("content-type", "application/json")
        .header("webhook-id", &delivery.webhook_id)
        .header("webhook-timestamp", timestamp.to_string())
        .header("webhook-signature", signature)
        .body(body.to_owned())
        .send()
        .await
        .map_err(|error| match error.is_timeout() {
            true => format!("no answer within {} s", settings.timeout.as_secs()),
            false => format!("could not connect: {}", error_chain(&error)),
        })?;
    Ok(response.status().as_u16())
}
