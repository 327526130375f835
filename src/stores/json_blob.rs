//! Read-modify-write of a small JSON blob under If-Match: how the stores change a record
//! several requests or workers may change at once (deletion records, webhook endpoints and
//! their logs).

use std::time::Duration;

use serde::Serialize;
use serde::de::DeserializeOwned;

use super::error::{decode, encode};
use super::{Context, StoreError};
use crate::storage::{BlobStore, Error, PutMode};

/// Reads the blob at `key` (or `T::default()` where there is none), lets `change` edit it,
/// and writes it back only if nobody wrote it meanwhile, else again from a fresh read.
/// `change` returns what to answer, or `None` to write nothing.
pub(super) async fn update<T, R>(
    blobs: &dyn BlobStore,
    key: &str,
    mut change: impl FnMut(&mut T) -> Option<R>,
) -> Result<Option<R>, StoreError>
where
    T: Serialize + DeserializeOwned + Default,
{
    loop {
        let (mut value, mode) = match blobs.get(key).await {
            Ok(blob) => (
                decode::<T>(key, &blob.body)?,
                PutMode::Update(blob.meta.etag),
            ),
            Err(Error::NotFound { .. }) => (T::default(), PutMode::Create),
            Err(error) => return Err(error).context(|| format!("reading {key}")),
        };
        let Some(answer) = change(&mut value) else {
            return Ok(None);
        };
        match blobs.put(key, encode(key, &value)?.into(), mode).await {
            Ok(_) => return Ok(Some(answer)),
            Err(Error::Precondition { .. } | Error::AlreadyExists { .. }) => {
                tokio::time::sleep(Duration::from_millis(1)).await;
            }
            Err(error) => return Err(error).context(|| format!("writing {key}")),
        }
    }
}
