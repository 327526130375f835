//! Webhook endpoints per tenant, the log of each one's latest deliveries, and the queue
//! deliveries wait on (apart from the answer queues: a slow endpoint never slows counting).

use std::sync::Arc;
use std::time::Duration;

use moka::future::Cache;
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

use super::error::decode;
use super::json_blob;
use super::work_queue::WorkQueue;
use super::{Context, StoreError};
use crate::domain::TenantSlug;
use crate::domain::webhook::Secret;
use crate::storage::{BlobStore, Error, Storage};

/// The queue of deliveries.
pub const WEBHOOK_QUEUE: &str = "webhooks";

/// Most endpoints per tenant.
pub const MAX_ENDPOINTS: usize = 10;

/// Deliveries kept in an endpoint's log.
pub const LOG_LENGTH: usize = 50;

/// How long the worker uses a tenant's endpoint list before reading it again.
const ENDPOINTS_TTL: Duration = Duration::from_secs(5);

/// One endpoint.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Endpoint {
    /// Its id.
    pub id: String,
    /// Where deliveries go.
    pub url: String,
    /// The signing secret (`whsec_...`).
    pub secret: String,
    /// When it was added.
    #[serde(with = "time::serde::rfc3339")]
    pub created: OffsetDateTime,
    /// Why it was disabled, if it was.
    #[serde(default)]
    pub disabled: Option<String>,
    /// Since when every delivery to it has failed (cleared by a success).
    #[serde(default, with = "time::serde::rfc3339::option")]
    pub failing_since: Option<OffsetDateTime>,
}

/// One attempt to deliver, as the endpoint's log shows it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeliveryRecord {
    /// The `webhook-id` sent.
    pub webhook_id: String,
    /// The event's type.
    pub event: String,
    /// When the attempt was made.
    #[serde(with = "time::serde::rfc3339")]
    pub at: OffsetDateTime,
    /// Which attempt it was, from 1.
    pub attempt: u32,
    /// `delivered`, `will retry` or `given up`.
    pub outcome: String,
    /// The HTTP status the endpoint answered, if it answered.
    pub status: Option<u16>,
    /// What went wrong, if it did.
    pub error: Option<String>,
}

/// A delivery waiting on the queue.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DeliveryMessage {
    /// The tenant.
    pub tenant: TenantSlug,
    /// The endpoint's id.
    pub endpoint: String,
    /// The `webhook-id`: the same on every attempt.
    pub webhook_id: String,
    /// The event's type (`response.counted`, `test`).
    pub event: String,
    /// The JSON body (empty when it is kept in `body_blob`).
    pub body: String,
    /// The blob holding the body, when the message would not fit the queue with it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body_blob: Option<String>,
    /// When the first attempt was made or due.
    #[serde(with = "time::serde::rfc3339")]
    pub first: OffsetDateTime,
    /// Attempts made so far.
    pub attempts: u32,
}

impl DeliveryMessage {
    /// A first delivery of the event `event` with `data` to the endpoint: the body is
    /// `{"type", "timestamp", "data"}`, as Standard Webhooks suggests.
    pub fn event(
        tenant: &TenantSlug,
        endpoint: &str,
        webhook_id: String,
        event: &str,
        data: &impl Serialize,
    ) -> Self {
        let now = OffsetDateTime::now_utc();
        let body = serde_json::json!({
            "type": event,
            "timestamp": now
                .format(&time::format_description::well_known::Rfc3339)
                .unwrap_or_default(),
            "data": data,
        });
        Self {
            tenant: tenant.clone(),
            endpoint: endpoint.to_owned(),
            webhook_id,
            event: event.to_owned(),
            body: body.to_string(),
            body_blob: None,
            first: now,
            attempts: 0,
        }
    }
}

fn body_key(tenant: &TenantSlug, webhook_id: &str) -> String {
    format!("webhook-bodies/{tenant}/{webhook_id}.json")
}

fn endpoints_key(tenant: &TenantSlug) -> String {
    format!("webhooks/{tenant}.json")
}

fn log_key(tenant: &TenantSlug, endpoint: &str) -> String {
    format!("webhook-log/{tenant}/{endpoint}.json")
}

/// Endpoints, logs and the delivery queue.
#[derive(Clone, Debug)]
pub struct WebhookStore {
    blobs: Arc<dyn BlobStore>,
    queue: WorkQueue,
    cached: Cache<TenantSlug, Arc<Vec<Endpoint>>>,
}

impl WebhookStore {
    /// Creates the delivery queue if missing; called once at start-up.
    pub(super) async fn create(storage: &Storage) -> Result<Self, StoreError> {
        Ok(Self {
            blobs: storage.blobs.clone(),
            queue: WorkQueue::create(storage, WEBHOOK_QUEUE).await?,
            cached: Cache::builder()
                .max_capacity(100_000)
                .time_to_live(ENDPOINTS_TTL)
                .build(),
        })
    }

    /// The delivery queue.
    pub fn queue(&self) -> &WorkQueue {
        &self.queue
    }

    /// Queues a delivery. One whose message would pass the queue's size limit (a long text
    /// answer, say) keeps its body in a blob the message names, as big answers do; the blob
    /// is keyed by the `webhook-id`, so queueing the same delivery again rewrites one blob.
    pub async fn enqueue(&self, delivery: &DeliveryMessage) -> Result<(), StoreError> {
        let encoded = super::error::encode(self.queue.name().as_str(), delivery)?;
        if crate::storage::check_message_size(&encoded).is_ok() {
            return self.queue.send_encoded(encoded).await;
        }
        let key = body_key(&delivery.tenant, &delivery.webhook_id);
        self.blobs
            .put(
                &key,
                delivery.body.clone().into_bytes().into(),
                crate::storage::PutMode::Overwrite,
            )
            .await
            .context(|| format!("writing {key}"))?;
        let pointer = DeliveryMessage {
            body: String::new(),
            body_blob: Some(key),
            ..delivery.clone()
        };
        self.queue.send(&pointer).await
    }

    /// The body a delivery sends: its own, or the one in its blob (`None` when that blob is
    /// gone: the delivery was finished by another worker).
    pub async fn body(&self, delivery: &DeliveryMessage) -> Result<Option<String>, StoreError> {
        let Some(key) = &delivery.body_blob else {
            return Ok(Some(delivery.body.clone()));
        };
        match self.blobs.get(key).await {
            Ok(blob) => Ok(Some(String::from_utf8_lossy(&blob.body).into_owned())),
            Err(Error::NotFound { .. }) => Ok(None),
            Err(error) => Err(error).context(|| format!("reading {key}")),
        }
    }

    /// Removes the body blob of a delivery that is done with (delivered or given up).
    pub async fn forget_body(&self, delivery: &DeliveryMessage) -> Result<(), StoreError> {
        let Some(key) = &delivery.body_blob else {
            return Ok(());
        };
        match self.blobs.delete(key, None).await {
            Ok(()) | Err(Error::NotFound { .. }) => Ok(()),
            Err(error) => Err(error).context(|| format!("removing {key}")),
        }
    }

    /// The tenant's endpoints.
    pub async fn list(&self, tenant: &TenantSlug) -> Result<Vec<Endpoint>, StoreError> {
        let key = endpoints_key(tenant);
        match self.blobs.get(&key).await {
            Ok(blob) => decode(&key, &blob.body),
            Err(Error::NotFound { .. }) => Ok(Vec::new()),
            Err(error) => Err(error).context(|| format!("reading {key}")),
        }
    }

    /// The tenant's endpoints, read at most every few seconds (the worker asks for every
    /// batch it counts).
    pub async fn cached(&self, tenant: &TenantSlug) -> Result<Arc<Vec<Endpoint>>, StoreError> {
        let load = async { Ok::<_, StoreError>(Arc::new(self.list(tenant).await?)) };
        super::cached(&self.cached, "webhooks", tenant.clone(), load).await
    }

    /// Changes the tenant's endpoint list under If-Match; `change` returns what to answer,
    /// or `None` to write nothing.
    async fn change<T>(
        &self,
        tenant: &TenantSlug,
        mut change: impl FnMut(&mut Vec<Endpoint>) -> Option<T>,
    ) -> Result<Option<T>, StoreError> {
        let changed =
            json_blob::update(self.blobs.as_ref(), &endpoints_key(tenant), &mut change).await?;
        if changed.is_some() {
            self.cached.invalidate(tenant).await;
        }
        Ok(changed)
    }

    /// Adds an endpoint (its URL checked by the caller) with a new secret; `None` when the
    /// tenant has `MAX_ENDPOINTS` already.
    pub async fn add(
        &self,
        tenant: &TenantSlug,
        url: &str,
    ) -> Result<Option<(Endpoint, Secret)>, StoreError> {
        let mut random = [0u8; 24];
        getrandom::fill(&mut random).map_err(|error| StoreError::Storage {
            doing: "making a webhook secret".into(),
            source: crate::storage::Error::backend(error.to_string()),
        })?;
        let secret = Secret::from_bytes(random);
        let endpoint = Endpoint {
            id: uuid::Uuid::new_v4().simple().to_string()[..12].to_owned(),
            url: url.to_owned(),
            secret: secret.as_str().to_owned(),
            created: OffsetDateTime::now_utc(),
            disabled: None,
            failing_since: None,
        };
        let added = self
            .change(tenant, |endpoints| {
                (endpoints.len() < MAX_ENDPOINTS).then(|| endpoints.push(endpoint.clone()))
            })
            .await?;
        Ok(added.map(|()| (endpoint, secret)))
    }

    /// Removes an endpoint and its log; whether it was there.
    pub async fn remove(&self, tenant: &TenantSlug, id: &str) -> Result<bool, StoreError> {
        let removed = self
            .change(tenant, |endpoints| {
                let before = endpoints.len();
                endpoints.retain(|endpoint| endpoint.id != id);
                (endpoints.len() < before).then_some(())
            })
            .await?
            .is_some();
        if removed {
            match self.blobs.delete(&log_key(tenant, id), None).await {
                Ok(()) | Err(Error::NotFound { .. }) => {}
                Err(error) => return Err(error).context(|| format!("removing the log of {id}")),
            }
        }
        Ok(removed)
    }

    /// Records a delivery's outcome on its endpoint: a success clears `failing_since`, a
    /// failure sets it if unset, and a failure `GIVE_UP_AFTER` after it disables the endpoint
    /// with `reason`. Returns the endpoint as it is now.
    pub async fn outcome(
        &self,
        tenant: &TenantSlug,
        id: &str,
        delivered: bool,
        reason: &str,
    ) -> Result<Option<Endpoint>, StoreError> {
        let now = OffsetDateTime::now_utc();
        let give_up = crate::domain::webhook::GIVE_UP_AFTER;
        self.change(tenant, |endpoints| {
            let endpoint = endpoints.iter_mut().find(|e| e.id == id)?;
            let before = endpoint.clone();
            match delivered {
                true => endpoint.failing_since = None,
                false => {
                    let since = *endpoint.failing_since.get_or_insert(now);
                    if (now - since).unsigned_abs() >= give_up && endpoint.disabled.is_none() {
                        endpoint.disabled = Some(format!(
                            "every delivery failed for 24 hours (last: {reason})"
                        ));
                    }
                }
            }
            // Nothing to write when nothing changed (the usual success).
            (*endpoint != before).then(|| endpoint.clone())
        })
        .await
    }

    /// The endpoint's latest deliveries, newest first.
    pub async fn log(
        &self,
        tenant: &TenantSlug,
        id: &str,
    ) -> Result<Vec<DeliveryRecord>, StoreError> {
        let key = log_key(tenant, id);
        match self.blobs.get(&key).await {
            Ok(blob) => decode(&key, &blob.body),
            Err(Error::NotFound { .. }) => Ok(Vec::new()),
            Err(error) => Err(error).context(|| format!("reading {key}")),
        }
    }

    /// Adds a delivery to the endpoint's log, keeping the latest `LOG_LENGTH`.
    pub async fn record(
        &self,
        tenant: &TenantSlug,
        id: &str,
        record: DeliveryRecord,
    ) -> Result<(), StoreError> {
        json_blob::update(
            self.blobs.as_ref(),
            &log_key(tenant, id),
            |log: &mut Vec<_>| {
                log.insert(0, record.clone());
                log.truncate(LOG_LENGTH);
                Some(())
            },
        )
        .await?;
        Ok(())
    }
}
