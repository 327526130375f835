//! The workers' roster and their claims on answer shards (seed 004's affinity): each running
//! worker writes a heartbeat under `workers/live/`, and takes a shard by writing its name into
//! that shard's claim. A claim holds while its owner's heartbeat is fresh, so a worker that
//! dies loses its shards once its heartbeat is older than the lease time.
//!
//! Freshness is judged on the storage's clock (the last-modified time of the heartbeat a
//! worker has just written), never on the machines' own, so their clocks may disagree.

use std::sync::Arc;
use std::time::{Duration, SystemTime};

use serde::{Deserialize, Serialize};

use super::error::{decode, encode};
use super::{Context, StoreError, keys};
use crate::storage::{BlobStore, ETag, Error, ListRequest, PutMode, QueueName};

/// A running worker, as its heartbeat names it.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Member {
    /// Its own name (unique per process).
    pub owner: String,
    /// The classes of answer queues it takes: `both`, `premium` or `standard`.
    pub plans: String,
}

#[derive(Serialize, Deserialize)]
struct Claim {
    owner: String,
}

/// A claim on a shard as stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Claimed {
    /// The worker that wrote it.
    pub owner: String,
    /// Its version.
    pub etag: ETag,
    /// When it was written (the storage's clock).
    pub written: SystemTime,
}

/// Reads and writes the roster and the shard claims.
#[derive(Clone, Debug)]
pub struct Roster {
    blobs: Arc<dyn BlobStore>,
}

/// Heartbeats this many lease times old belong to workers long dead: they are deleted.
const FORGOTTEN_AFTER_LEASES: u32 = 10;

impl Roster {
    pub(super) fn new(blobs: Arc<dyn BlobStore>) -> Self {
        Self { blobs }
    }

    /// Writes `member`'s heartbeat; returns the storage's clock at that write.
    pub async fn beat(&self, member: &Member) -> Result<SystemTime, StoreError> {
        let key = keys::worker_heartbeat(&member.plans, &member.owner);
        let meta = self
            .blobs
            .put(&key, bytes::Bytes::new(), PutMode::Overwrite)
            .await
            .context(|| format!("writing the heartbeat {key}"))?;
        Ok(meta.last_modified)
    }

    /// The members whose heartbeat was written less than `lease` before `now` (the storage's
    /// clock, from `beat`), in name order. Heartbeats of workers long dead are deleted.
    pub async fn members(
        &self,
        now: SystemTime,
        lease: Duration,
    ) -> Result<Vec<Member>, StoreError> {
        let mut request = ListRequest::new(keys::WORKER_HEARTBEATS, 0);
        let mut live = Vec::new();
        loop {
            let page = self
                .blobs
                .list(&request)
                .await
                .context(|| "listing the workers' heartbeats".into())?;
            for item in page.items {
                let age = now.duration_since(item.last_modified).unwrap_or_default();
                let Some((plans, owner)) = item
                    .key
                    .strip_prefix(keys::WORKER_HEARTBEATS)
                    .and_then(|rest| rest.split_once('/'))
                else {
                    continue;
                };
                if age < lease {
                    live.push(Member {
                        owner: owner.to_owned(),
                        plans: plans.to_owned(),
                    });
                } else if age > lease * FORGOTTEN_AFTER_LEASES {
                    match self.blobs.delete(&item.key, Some(&item.etag)).await {
                        Ok(()) | Err(Error::NotFound { .. } | Error::Precondition { .. }) => {}
                        Err(error) => {
                            return Err(error).context(|| format!("deleting {}", item.key));
                        }
                    }
                }
            }
            match page.continuation {
                Some(next) => request.continuation = Some(next),
                None => break,
            }
        }
        live.sort();
        Ok(live)
    }

    /// The claim on `queue`, if anyone wrote one.
    pub async fn holder(&self, queue: &QueueName) -> Result<Option<Claimed>, StoreError> {
        let key = keys::shard_claim(queue.as_str());
        match self.blobs.get(&key).await {
            Ok(blob) => {
                let claim: Claim = decode(&key, &blob.body)?;
                Ok(Some(Claimed {
                    owner: claim.owner,
                    etag: blob.meta.etag,
                    written: blob.meta.last_modified,
                }))
            }
            Err(Error::NotFound { .. }) => Ok(None),
            Err(error) => Err(error).context(|| format!("reading the claim {key}")),
        }
    }

    /// Takes the claim on `queue` for `owner`, unless its holder may still be running: one
    /// for which `live` holds, or one whose claim is younger than `lease` at `now` (the
    /// storage's clock), for a worker that started after the roster was listed is missing
    /// from it yet holds what it just claimed. Returns the claim's version when `owner` holds
    /// it.
    pub async fn claim(
        &self,
        queue: &QueueName,
        owner: &str,
        live: impl Fn(&str) -> bool,
        now: SystemTime,
        lease: Duration,
    ) -> Result<Option<ETag>, StoreError> {
        let key = keys::shard_claim(queue.as_str());
        let mode = match self.holder(queue).await? {
            Some(claimed) if claimed.owner == owner => return Ok(Some(claimed.etag)),
            Some(claimed)
                if live(&claimed.owner)
                    || now.duration_since(claimed.written).unwrap_or_default() < lease =>
            {
                return Ok(None);
            }
            // Its holder's heartbeat stopped a lease ago or more: the shard is free.
            Some(claimed) => PutMode::Update(claimed.etag),
            None => PutMode::Create,
        };
        let claim = Claim {
            owner: owner.to_owned(),
        };
        match self
            .blobs
            .put(&key, encode(&key, &claim)?.into(), mode)
            .await
        {
            Ok(meta) => Ok(Some(meta.etag)),
            // Another worker took it first.
            Err(Error::Precondition { .. } | Error::AlreadyExists { .. }) => Ok(None),
            Err(error) => Err(error).context(|| format!("taking the claim {key}")),
        }
    }

    /// Gives up the claim on `queue` at version `etag` (unless another worker took it since).
    pub async fn release(&self, queue: &QueueName, etag: &ETag) -> Result<(), StoreError> {
        let key = keys::shard_claim(queue.as_str());
        match self.blobs.delete(&key, Some(etag)).await {
            Ok(()) | Err(Error::NotFound { .. } | Error::Precondition { .. }) => Ok(()),
            Err(error) => Err(error).context(|| format!("releasing the claim {key}")),
        }
    }

    /// Deletes `member`'s heartbeat: it leaves, and the others rebalance without waiting for
    /// its lease to run out.
    pub async fn leave(&self, member: &Member) -> Result<(), StoreError> {
        let key = keys::worker_heartbeat(&member.plans, &member.owner);
        match self.blobs.delete(&key, None).await {
            Ok(()) | Err(Error::NotFound { .. }) => Ok(()),
            Err(error) => Err(error).context(|| format!("deleting the heartbeat {key}")),
        }
    }
}
