//! A tenant's settings: for now the PostgreSQL database its exports go to. The URL holds a
//! password, so it is only ever shown back masked, and never logged.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::error::{decode, encode};
use super::{Context, StoreError};
use crate::domain::TenantSlug;
use crate::storage::{BlobStore, Error, PutMode};

/// What a tenant has set.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct TenantSettings {
    /// The tenant's own export database, instead of the server's.
    #[serde(default)]
    pub export_database_url: Option<String>,
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

    /// Replaces the tenant's settings.
    pub async fn set(
        &self,
        tenant: &TenantSlug,
        settings: &TenantSettings,
    ) -> Result<(), StoreError> {
        let key = key(tenant);
        self.blobs
            .put(&key, encode(&key, settings)?.into(), PutMode::Overwrite)
            .await
            .context(|| format!("saving the settings of {tenant}"))?;
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
