//! Server secrets (the token-signing key, the session-cookie key): each made once per storage
//! and shared by every process that uses it, so a form served by one process can be posted to
//! another and a session started on one is read by all.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;

use super::{Context, StoreError, keys};
use crate::domain::SigningKey;
use crate::storage::{BlobStore, Error, PutMode};

/// Reads the token-signing key, creating it first if the storage has none yet.
pub(super) async fn signing_key(blobs: &dyn BlobStore) -> Result<SigningKey, StoreError> {
    Ok(SigningKey::new(
        secret::<32>(blobs, keys::SIGNING_KEY).await?,
    ))
}

/// Reads the session-cookie key, creating it first if the storage has none yet.
pub(super) async fn session_key(blobs: &dyn BlobStore) -> Result<[u8; 64], StoreError> {
    secret::<64>(blobs, keys::SESSION_KEY).await
}

/// A random secret of N bytes kept at `key`: made once, then shared by every process.
async fn secret<const N: usize>(blobs: &dyn BlobStore, key: &str) -> Result<[u8; N], StoreError> {
    let mut fresh = [0u8; N];
    getrandom::fill(&mut fresh).map_err(|error| StoreError::Storage {
        doing: format!("making {key}"),
        source: Error::backend(error.to_string()),
    })?;
    match blobs
        .put(key, STANDARD.encode(fresh).into(), PutMode::Create)
        .await
    {
        Ok(_) => return Ok(fresh),
        // Another process made it first: use theirs.
        Err(Error::AlreadyExists { .. }) => {}
        Err(error) => return Err(error).context(|| format!("storing {key}")),
    }
    let stored = blobs.get(key).await.context(|| format!("reading {key}"))?;
    let corrupt = || StoreError::Storage {
        doing: format!("reading {key}"),
        source: Error::backend(format!("{key} is not {N} base64-encoded bytes")),
    };
    let bytes = STANDARD.decode(&stored.body).map_err(|_| corrupt())?;
    bytes.try_into().map_err(|_| corrupt())
}
