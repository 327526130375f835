//! Accounts, one blob per email address, created create-only so an address is never taken
//! twice; and password-reset links, kept by the hash of their token, each used once.

use std::sync::Arc;

use super::error::{decode, encode};
use super::{Context, StoreError, keys, tokens};
use crate::domain::account::{Account, Email};
use crate::storage::{BlobStore, ETag, Error, PutMode};

/// How long a password-reset link works.
pub const RESET_LIFETIME: time::Duration = time::Duration::hours(1);

/// What a password-reset link is for.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
struct ResetLink {
    email: Email,
    #[serde(with = "time::serde::rfc3339")]
    expires: time::OffsetDateTime,
}

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

    /// Sets the password hash of an existing account, voiding its outstanding reset links;
    /// `false` if there is none.
    pub async fn set_password(
        &self,
        email: &Email,
        password_hash: &str,
    ) -> Result<bool, StoreError> {
        loop {
            let Some((mut account, etag)) = self.get_versioned(email).await? else {
                return Ok(false);
            };
            account.password_hash = password_hash.to_owned();
            // Every reset link made before now stops working.
            account.password_set = Some(time::OffsetDateTime::now_utc());
            if self.create(&account, Some(&etag)).await?.is_some() {
                return Ok(true);
            }
        }
    }

    /// Removes an account, whatever its version (when its member leaves the tenant).
    pub async fn remove_any(&self, email: &Email) -> Result<(), StoreError> {
        let key = keys::account(email.as_str());
        match self.blobs.delete(&key, None).await {
            Ok(()) | Err(Error::NotFound { .. }) => Ok(()),
            Err(error) => Err(error).context(|| "removing an account".into()),
        }
    }

    /// Makes a password-reset link for the address; returns its token (the link's secret).
    pub async fn reset_link(&self, email: &Email) -> Result<String, StoreError> {
        let (token, hash) = tokens::new_token("making a password-reset link")?;
        let key = keys::password_reset(&hash);
        let link = ResetLink {
            email: email.clone(),
            expires: time::OffsetDateTime::now_utc() + RESET_LIFETIME,
        };
        self.blobs
            .put(&key, encode(&key, &link)?.into(), PutMode::Create)
            .await
            .context(|| "storing a password-reset link".into())?;
        Ok(token)
    }

    /// The address a live reset link is for, without using it up.
    pub async fn reset_email(&self, token: &str) -> Result<Option<Email>, StoreError> {
        Ok(self.reset(token).await?.map(|(link, _)| link.email))
    }

    /// Uses a reset link up: the address it is for, if it was live and this call is the one
    /// that used it (a link works once, even when two requests race).
    pub async fn use_reset(&self, token: &str) -> Result<Option<Email>, StoreError> {
        let Some((link, etag)) = self.reset(token).await? else {
            return Ok(None);
        };
        let key = keys::password_reset(&tokens::hash(token));
        match self.blobs.delete(&key, Some(&etag)).await {
            Ok(()) => Ok(Some(link.email)),
            Err(Error::NotFound { .. } | Error::Precondition { .. }) => Ok(None),
            Err(error) => Err(error).context(|| "using a password-reset link".into()),
        }
    }

    /// A live reset link: not expired, and made after its account's password was last set
    /// (setting a password, by a link or otherwise, voids the others).
    async fn reset(&self, token: &str) -> Result<Option<(ResetLink, ETag)>, StoreError> {
        if !tokens::well_formed(token) {
            return Ok(None);
        }
        let key = keys::password_reset(&tokens::hash(token));
        match self.blobs.get(&key).await {
            Ok(blob) => {
                let link: ResetLink = decode(&key, &blob.body)?;
                let made = link.expires - RESET_LIFETIME;
                let live = link.expires > time::OffsetDateTime::now_utc()
                    && self
                        .get(&link.email)
                        .await?
                        .is_some_and(|account| account.password_set.is_none_or(|set| set < made));
                Ok(live.then_some((link, blob.meta.etag)))
            }
            Err(Error::NotFound { .. }) => Ok(None),
            Err(error) => Err(error).context(|| "reading a password-reset link".into()),
        }
    }
}
