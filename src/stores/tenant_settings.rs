//! A tenant's settings: the PostgreSQL database its exports go to, its identity provider for
//! single sign-on, and its logo. The URL and the client secret are secrets: shown back masked
//! (or not at all), never logged.

use std::sync::Arc;

use bytes::Bytes;

use serde::{Deserialize, Serialize};

use super::error::decode;
use super::{Context, StoreError};
use crate::domain::TenantSlug;
use crate::storage::{BlobStore, Error, PutMode};

/// What a tenant has set.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct TenantSettings {
    /// The tenant's own export database, instead of the server's.
    #[serde(default)]
    pub export_database_url: Option<String>,
    /// Its OpenID Connect provider, for single sign-on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sso: Option<crate::sso::SsoSettings>,
}

/// A database URL with its password replaced by `****`, for showing back.
pub fn masked(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return "****".into();
    };
    match rest.rsplit_once('@') {
        Some((credentials, host)) => match credentials.split_once(':') {
            Some((user, _)) => format!("{scheme}://{user}:****@{host}"),
            None => url.to_owned(),
        },
        None => url.to_owned(),
    }
}

fn key(tenant: &TenantSlug) -> String {
    format!("tenant-settings/{tenant}.json")
}

fn logo_key(tenant: &TenantSlug) -> String {
    format!("tenant-settings/{tenant}.logo")
}

/// A strong entity tag of a logo's bytes (its SHA-256, shortened).
pub fn logo_etag(bytes: &[u8]) -> String {
    use sha2::Digest;
    let digest = sha2::Sha256::digest(bytes);
    digest[..12].iter().map(|b| format!("{b:02x}")).collect()
}

/// Reads and writes tenant settings.
#[derive(Clone, Debug)]
pub struct TenantSettingsStore {
    blobs: Arc<dyn BlobStore>,
}

impl TenantSettingsStore {
    pub(super) fn new(blobs: Arc<dyn BlobStore>) -> Self {
        Self { blobs }
    }

    /// The tenant's settings (defaults if it set nothing).
    pub async fn get(&self, tenant: &TenantSlug) -> Result<TenantSettings, StoreError> {
        let key = key(tenant);
        match self.blobs.get(&key).await {
            Ok(blob) => decode(&key, &blob.body),
            Err(Error::NotFound { .. }) => Ok(TenantSettings::default()),
            Err(error) => Err(error).context(|| format!("reading the settings of {tenant}")),
        }
    }

    /// The tenant's logo, if it uploaded one.
    pub async fn logo(&self, tenant: &TenantSlug) -> Result<Option<Bytes>, StoreError> {
        let key = logo_key(tenant);
        match self.blobs.get(&key).await {
            Ok(blob) => Ok(Some(blob.body)),
            Err(Error::NotFound { .. }) => Ok(None),
            Err(error) => Err(error).context(|| format!("reading the logo of {tenant}")),
        }
    }

    /// Stores the tenant's logo (already checked); returns its entity tag.
    pub async fn set_logo(&self, tenant: &TenantSlug, logo: Bytes) -> Result<String, StoreError> {
        let etag = logo_etag(&logo);
        self.blobs
            .put(&logo_key(tenant), logo, PutMode::Overwrite)
            .await
            .context(|| format!("saving the logo of {tenant}"))?;
        Ok(etag)
    }

    /// Removes the tenant's logo.
    pub async fn remove_logo(&self, tenant: &TenantSlug) -> Result<(), StoreError> {
        match self.blobs.delete(&logo_key(tenant), None).await {
            Ok(()) | Err(Error::NotFound { .. }) => Ok(()),
            Err(error) => Err(error).context(|| format!("removing the logo of {tenant}")),
        }
    }

    /// Changes the tenant's settings, leaving what `change` does not touch as it is.
    pub async fn change(
        &self,
        tenant: &TenantSlug,
        mut change: impl FnMut(&mut TenantSettings),
    ) -> Result<(), StoreError> {
        super::json_blob::update(self.blobs.as_ref(), &key(tenant), |settings| {
            change(settings);
            Some(())
        })
        .await?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_are_masked_and_the_rest_kept() {
        assert_eq!(
            masked("postgres://ada:s3cret@db.example:5432/x"),
            "postgres://ada:****@db.example:5432/x"
        );
        assert_eq!(masked("postgres://ada@db/x"), "postgres://ada@db/x");
        assert_eq!(
            masked("postgres://ada:p@ss@db/x"),
            "postgres://ada:****@db/x"
        );
        assert_eq!(masked("garbage"), "****");
    }
}
