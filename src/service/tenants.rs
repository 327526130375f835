//! Tenants across regions: a tenant's address (its slug) is one across the installation, so
//! a new tenant may not take one that a tenant of another region has.

use crate::domain::TenantSlug;
use crate::stores::{StoreError, Stores};

/// Whether a tenant of another region has this slug. Every region is asked; a region that
/// cannot be reached makes this fail, rather than risk two tenants with one address.
pub async fn taken_elsewhere(stores: &Stores, slug: &TenantSlug) -> Result<bool, StoreError> {
    for region in stores.regions.all() {
        if stores.regions.is_here(&region.name) {
            continue;
        }
        if stores
            .in_region(&region.name)
            .await?
            .tenants
            .get(slug)
            .await?
            .is_some()
        {
            return Ok(true);
        }
    }
    Ok(false)
}
