//! Owner accounts, one blob per email address, created create-only so an address is never
//! taken twice.

use std::sync::Arc;

use super::error::{decode, encode};
use super::{Context, StoreError, keys};
use crate::domain::account::{Account, Email};
use crate::storage::{BlobStore, ETag, Error, PutMode};

/// Reads and creates accounts.
#[derive(Clone, Debug)]
pub struct AccountStore {
    blobs: Arc<dyn BlobStore>,
}

impl AccountStore {
    pub(super) fn new(blobs: Arc<dyn BlobStore>) -> Self {
        Self { blobs }
    }

    /// The account of this address, if any.
    pub async fn get(&self, email: &Email) -> Result<Option<Account>, StoreError> {
        let key = keys::account(email.as_str());
        match self.blobs.get(&key).await {
            Ok(blob) => Ok(Some(decode(&key, &blob.body)?)),
            Err(Error::NotFound { .. }) => Ok(None),
            Err(error) => Err(error).context(|| "reading an account".into()),
        }
    }

    /// The account of this address with its ETag, if any.
    pub async fn get_versioned(
        &self,
        email: &Email,
    ) -> Result<Option<(Account, ETag)>, StoreError> {
        let key = keys::account(email.as_str());
        match self.blobs.get(&key).await {
            Ok(blob) => Ok(Some((decode(&key, &blob.body)?, blob.meta.etag))),
            Err(Error::NotFound { .. }) => Ok(None),
            Err(error) => Err(error).context(|| "reading an account".into()),
        }
    }

    /// Stores a new account, or replaces the version `replacing` (an abandoned one); returns
    /// its ETag, or `None` if the address is taken (or was changed meanwhile).
    pub async fn create(
        &self,
        account: &Account,
        replacing: Option<&ETag>,
    ) -> Result<Option<ETag>, StoreError> {
        let key = keys::account(account.email.as_str());
        let mode = replacing.map_or(PutMode::Create, |etag| PutMode::Update(etag.clone()));
        match self
            .blobs
            .put(&key, encode(&key, account)?.into(), mode)
            .await
        {
            Ok(meta) => Ok(Some(meta.etag)),
            Err(Error::AlreadyExists { .. } | Error::Precondition { .. }) => Ok(None),
            Err(error) => Err(error).context(|| "creating an account".into()),
        }
    }

    /// Removes an account if it is still the version `etag` (undoing a sign-up that could not
    /// finish).
    pub async fn remove(&self, email: &Email, etag: &ETag) -> Result<(), StoreError> {
        let key = keys::account(email.as_str());
        match self.blobs.delete(&key, Some(etag)).await {
            Ok(()) | Err(Error::NotFound { .. } | Error::Precondition { .. }) => Ok(()),
            Err(error) => Err(error).context(|| "removing an account".into()),
        }
    }
}
