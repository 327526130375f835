//! A tenant's audit log as its owners read it, a page at a time.

use super::App;
use crate::domain::TenantSlug;
use crate::stores::StoreError;
pub use crate::stores::audit::AuditPage;

/// A page of `tenant`'s audit log, newest first, from where `token` left off.
pub async fn page(
    app: &App,
    tenant: &TenantSlug,
    token: Option<String>,
) -> Result<AuditPage, StoreError> {
    app.stores().membership.audit.page(tenant, token).await
}
