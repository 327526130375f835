//! Owner accounts, one blob per email address, created create-only so an address is never
//! taken twice.

use std::sync::Arc;

use super::error::{decode, encode};
use super::{Context, StoreError, keys};
use crate::domain::account::{Account, Email};
use crate::storage::{BlobStore, Error, PutMode};

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

    /// Stores a new account; `Ok(false)` if the address is taken.
    pub async fn create(&self, account: &Account) -> Result<bool, StoreError> {
        let key = keys::account(account.email.as_str());
        match self
            .blobs
            .put(&key, encode(&key, account)?.into(), PutMode::Create)
            .await
        {
            Ok(_) => Ok(true),
            Err(Error::AlreadyExists { .. }) => Ok(false),
            Err(error) => Err(error).context(|| "creating an account".into()),
        }
    }
}
