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
            crate::telemetry::metrics::cache_lookup("tenants", true);
            return Ok(cached);
        }
        crate::telemetry::metrics::cache_lookup("tenants", false);
        let key = keys::tenant(slug);
        let tenant = match self.blobs.get(&key).await {
            Ok(blob) => Some(Arc::new(decode::<Tenant>(&key, &blob.body)?)),
            Err(Error::NotFound { .. }) => None,
            Err(error) => return Err(error).context(|| format!("reading tenant {slug}")),
        };
        self.cache.insert(slug.clone(), tenant.clone()).await;
        Ok(tenant)
    }

    /// As `get`, read from storage even when cached.
    pub async fn fresh(&self, slug: &TenantSlug) -> Result<Option<Arc<Tenant>>, StoreError> {
        self.cache.invalidate(slug).await;
        self.get(slug).await
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

    /// Changes an existing tenant's record with `change`, read fresh from storage and written
    /// back only if no other process wrote it meanwhile (else read again and retried), so two
    /// settings saved at once never undo each other. `None` if the tenant does not exist.
    pub async fn change(
        &self,
        slug: &TenantSlug,
        change: impl Fn(&mut Tenant),
    ) -> Result<Option<Tenant>, StoreError> {
        let key = keys::tenant(slug);
        loop {
            let blob = match self.blobs.get(&key).await {
                Ok(blob) => blob,
                Err(Error::NotFound { .. }) => return Ok(None),
                Err(error) => return Err(error).context(|| format!("reading tenant {slug}")),
            };
            let mut tenant: Tenant = decode(&key, &blob.body)?;
            change(&mut tenant);
            let body = encode(&key, &tenant)?;
            match self
                .blobs
                .put(&key, body.into(), PutMode::Update(blob.meta.etag))
                .await
            {
                Ok(_) => {
                    self.cache
                        .insert(slug.clone(), Some(Arc::new(tenant.clone())))
                        .await;
                    return Ok(Some(tenant));
                }
                Err(Error::Precondition { .. }) => continue,
                Err(error) => return Err(error).context(|| format!("saving tenant {slug}")),
            }
        }
    }
}
