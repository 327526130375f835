//! Tenants, and their addresses across regions: a tenant's address (its slug) is one across
//! the installation, so a new tenant may not take one that a tenant of another region has.

use std::sync::Arc;

use super::App;
use crate::domain::{Tenant, TenantSlug};
use crate::stores::StoreError;

/// The tenant living in this region at this address, if there is one.
pub async fn get(app: &App, slug: &TenantSlug) -> Result<Option<Arc<Tenant>>, StoreError> {
    app.stores().catalog.tenants.get(slug).await
}

/// How long another region has to say whether it has an address: a sign-up waits on it.
const REACH: std::time::Duration = std::time::Duration::from_secs(5);

/// Whether a tenant of another region has this slug. Every region is asked, all at once and
/// each for at most 5 s; a region that cannot answer makes this fail, rather than risk two
/// tenants with one address.
pub async fn taken_elsewhere(app: &App, slug: &TenantSlug) -> Result<bool, StoreError> {
    let stores = app.stores();
    let others = stores
        .residency
        .regions
        .all()
        .filter(|region| !stores.residency.regions.is_here(&region.name));
    let asked = others.map(|region| async move {
        let ask = async {
            let there = stores.in_region(&region.name).await?;
            Ok::<_, StoreError>(there.catalog.tenants.get(slug).await?.is_some())
        };
        tokio::time::timeout(REACH, ask).await.unwrap_or_else(|_| {
            Err(StoreError::Storage {
                doing: format!(
                    "asking region {} whether address {slug} is taken",
                    region.name
                ),
                source: crate::storage::Error::backend("no answer within 5 s"),
            })
        })
    });
    let answers = futures_util::future::join_all(asked).await;
    // One region that has it settles it, whoever else could not answer.
    if answers.iter().any(|answer| matches!(answer, Ok(true))) {
        return Ok(true);
    }
    answers.into_iter().try_fold(false, |_, answer| answer)
}
