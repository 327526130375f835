//! A tenant's settings: the look of its public pages (accent colour, logo), its time zone,
//! its export database and its single sign-on, each change with its audit entry, and pushed
//! to the regions hosting its surveys.

use super::App;
use crate::domain::TenantSlug;
use crate::stores::StoreError;

/// A tenant's logo as its public pages show it: kept at home, or copied to this region when
/// it hosts the tenant's surveys (`hosted`).
pub async fn logo(
    app: &App,
    tenant: &TenantSlug,
    hosted: bool,
) -> Result<Option<bytes::Bytes>, StoreError> {
    let stores = app.stores();
    match hosted {
        true => stores.hosted.logo(tenant).await,
        false => stores.tenant_settings.logo(tenant).await,
    }
}
