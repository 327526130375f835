//! A lease on a lock blob: at most one holder at a time, for a limited time, taken and
//! released with ETags (seed 002: only one instance runs a scheduled job).

use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

use super::error::{decode, encode};
use super::{Context, StoreError};
use crate::storage::{BlobStore, ETag, Error, PutMode};

#[derive(Serialize, Deserialize)]
struct Holder {
    owner: String,
    #[serde(with = "time::serde::rfc3339")]
    expires: OffsetDateTime,
}

/// A held lease; release it when done (an unreleased one expires).
#[derive(Debug)]
pub struct Lease {
    blobs: Arc<dyn BlobStore>,
    key: String,
    etag: ETag,
}

/// Takes the lease at `key` for `ttl` unless someone else holds an unexpired one.
pub async fn acquire(
    blobs: Arc<dyn BlobStore>,
    key: &str,
    owner: &str,
    ttl: Duration,
) -> Result<Option<Lease>, StoreError> {
    let now = OffsetDateTime::now_utc();
    let mode = match blobs.get(key).await {
        Ok(blob) => {
            let holder: Holder = decode(key, &blob.body)?;
            if holder.expires > now && holder.owner != owner {
                return Ok(None);
            }
            PutMode::Update(blob.meta.etag)
        }
        Err(Error::NotFound { .. }) => PutMode::Create,
        Err(error) => return Err(error).context(|| format!("reading the lease {key}")),
    };
    let holder = Holder {
        owner: owner.to_owned(),
        expires: now + ttl,
    };
    match blobs.put(key, encode(key, &holder)?.into(), mode).await {
        Ok(meta) => Ok(Some(Lease {
            blobs,
            key: key.to_owned(),
            etag: meta.etag,
        })),
        Err(Error::Precondition { .. } | Error::AlreadyExists { .. }) => Ok(None),
        Err(error) => Err(error).context(|| format!("taking the lease {key}")),
    }
}

impl Lease {
    /// Gives the lease up, unless it expired and someone else took it meanwhile.
    pub async fn release(self) -> Result<(), StoreError> {
        match self.blobs.delete(&self.key, Some(&self.etag)).await {
            Ok(()) | Err(Error::NotFound { .. } | Error::Precondition { .. }) => Ok(()),
            Err(error) => Err(error).context(|| format!("releasing the lease {}", self.key)),
        }
    }
}
