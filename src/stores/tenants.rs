//! Tenants as JSON blobs, behind a cache.

use std::sync::Arc;

use moka::future::Cache;

use super::error::{decode, encode};
use super::{Context, StoreError, StoreSettings, keys};
use crate::domain::{Tenant, TenantSlug};
use crate::storage::{BlobStore, Error, PutMode};

/// Reads and writes tenants; a read is served from the cache while it is fresh.
#[derive(Clone, Debug)]
pub struct TenantStore {
    blobs: Arc<dyn BlobStore>,
    // `None` is cached too, so probing unknown tenants does not reach storage each time.
    cache: Cache<TenantSlug, Option<Arc<Tenant>>>,
}

impl TenantStore {
    pub(super) fn new(blobs: Arc<dyn BlobStore>, settings: &StoreSettings) -> Self {
        Self {
            blobs,
            cache: settings.cache(),
        }
    }

    /// The tenant with this slug, if there is one.
    pub async fn get(&self, slug: &TenantSlug) -> Result<Option<Arc<Tenant>>, StoreError> {
        if let Some(cached) = self.cache.get(slug).await {
            return Ok(cached);
        }
        let key = keys::tenant(slug);
        let tenant = match self.blobs.get(&key).await {
            Ok(blob) => Some(Arc::new(decode::<Tenant>(&key, &blob.body)?)),
            Err(Error::NotFound { .. }) => None,
            Err(error) => return Err(error).context(|| format!("reading tenant {slug}")),
        };
        self.cache.insert(slug.clone(), tenant.clone()).await;
        Ok(tenant)
    }

    /// Stores a new tenant; `Ok(false)` if the slug is taken.
    pub async fn create(&self, tenant: &Tenant) -> Result<bool, StoreError> {
        let key = keys::tenant(&tenant.slug);
        let body = encode(&key, tenant)?;
        let created = match self.blobs.put(&key, body.into(), PutMode::Create).await {
            Ok(_) => true,
            Err(Error::AlreadyExists { .. }) => false,
            Err(error) => {
                return Err(error).context(|| format!("creating tenant {}", tenant.slug));
            }
        };
        self.cache.invalidate(&tenant.slug).await;
        Ok(created)
    }

    /// Replaces an existing tenant's record (its settings changed). Other processes see it
    /// once their cached copy expires.
    pub async fn update(&self, tenant: &Tenant) -> Result<(), StoreError> {
        let key = keys::tenant(&tenant.slug);
        let body = encode(&key, tenant)?;
        self.blobs
            .put(&key, body.into(), PutMode::Overwrite)
            .await
            .context(|| format!("saving tenant {}", tenant.slug))?;
        self.cache
            .insert(tenant.slug.clone(), Some(Arc::new(tenant.clone())))
            .await;
        Ok(())
    }
}
