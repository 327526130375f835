//! The signing key: made once per storage and shared by every process that uses it, so a form
//! served by one process can be posted to another.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;

use super::{Context, StoreError, keys};
use crate::domain::SigningKey;
use crate::storage::{BlobStore, Error, PutMode};

/// Reads the key, creating it first if the storage has none yet.
pub(super) async fn signing_key(blobs: &dyn BlobStore) -> Result<SigningKey, StoreError> {
    let mut fresh = [0u8; 32];
    getrandom::fill(&mut fresh).map_err(|error| StoreError::Storage {
        doing: "making a signing key".into(),
        source: Error::backend(error.to_string()),
    })?;
    let encoded = STANDARD.encode(fresh);
    match blobs
        .put(keys::SIGNING_KEY, encoded.into(), PutMode::Create)
        .await
    {
        Ok(_) => return Ok(SigningKey::new(fresh)),
        // Another process made it first: use theirs.
        Err(Error::AlreadyExists { .. }) => {}
        Err(error) => return Err(error).context(|| "storing the signing key".into()),
    }
    let stored = blobs
        .get(keys::SIGNING_KEY)
        .await
        .context(|| "reading the signing key".into())?;
    let corrupt = || StoreError::Storage {
        doing: "reading the signing key".into(),
        source: Error::backend("the stored signing key is not 32 base64-encoded bytes"),
    };
    let bytes = STANDARD.decode(&stored.body).map_err(|_| corrupt())?;
    let key: [u8; 32] = bytes.try_into().map_err(|_| corrupt())?;
    Ok(SigningKey::new(key))
}
