//! Allocates reference numbers in ranges from a shared counter blob (seed 000's unique id
//! generator): one ETag-guarded write reserves a whole range, retried on conflict.

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::Mutex;

use super::{Context, StoreError, keys};
use crate::domain::{IdRange, Reference};
use crate::storage::{BlobStore, Error, PutMode};

/// Hands out reference numbers no other process sharing the storage will hand out.
#[derive(Debug)]
pub struct ReferenceAllocator {
    blobs: Arc<dyn BlobStore>,
    range_size: u64,
    /// Added to every number: the region's block (0 without regions), so two regions sharing
    /// nothing still never hand out the same reference.
    base: u64,
    range: Mutex<IdRange>,
}

impl ReferenceAllocator {
    /// An allocator reserving `range_size` numbers at a time, each number offset by `base`.
    pub fn new(blobs: Arc<dyn BlobStore>, range_size: u64, base: u64) -> Self {
        Self {
            blobs,
            range_size: range_size.max(1),
            base,
            range: Mutex::new(IdRange::default()),
        }
    }

    /// The next number; touches storage only when the reserved range is used up.
    pub async fn next(&self) -> Result<Reference, StoreError> {
        let mut range = self.range.lock().await;
        loop {
            if let Some(reference) = range.take() {
                return Ok(Reference(self.base + reference.0));
            }
            *range = self.reserve().await?;
        }
    }

    /// Moves the shared counter past a new range, retrying when another process moved it first.
    async fn reserve(&self) -> Result<IdRange, StoreError> {
        let mut attempt: u32 = 0;
        loop {
            let (counter, mode) = match self.blobs.get(keys::REFERENCE_COUNTER).await {
                Ok(blob) => {
                    let counter = std::str::from_utf8(&blob.body)
                        .ok()
                        .and_then(|text| text.trim().parse::<u64>().ok())
                        .ok_or_else(|| StoreError::Storage {
                            doing: "reading the reference counter".into(),
                            source: Error::backend("the reference counter is not a number"),
                        })?;
                    (counter, PutMode::Update(blob.meta.etag))
                }
                Err(Error::NotFound { .. }) => (0, PutMode::Create),
                Err(error) => {
                    return Err(error).context(|| "reading the reference counter".into());
                }
            };
            let (range, next) = IdRange::reserve(counter, self.range_size);
            match self
                .blobs
                .put(keys::REFERENCE_COUNTER, next.to_string().into(), mode)
                .await
            {
                Ok(_) => return Ok(range),
                Err(Error::Precondition { .. } | Error::AlreadyExists { .. }) => {
                    attempt += 1;
                    // Spread the retries of contending processes apart.
                    let jitter = u64::from(uuid::Uuid::new_v4().as_u64_pair().0 as u8 % 8);
                    tokio::time::sleep(Duration::from_millis(u64::from(attempt.min(10)) + jitter))
                        .await;
                }
                Err(error) => {
                    return Err(error).context(|| "reserving reference numbers".into());
                }
            }
        }
    }
}
