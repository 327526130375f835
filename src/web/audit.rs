//! Recording what members and keys do, for the tenant's audit log (shared by the site and the
//! API).

use crate::domain::TenantSlug;
use crate::domain::audit::AuditAction;
use crate::service::Actor;
use crate::service::StoreError;
use crate::web::AppState;

/// Adds an entry to the tenant's audit log, stamped now.
pub async fn record<E: From<StoreError>>(
    state: &AppState,
    tenant: &TenantSlug,
    actor: &str,
    action: AuditAction,
    detail: impl Into<String>,
) -> Result<(), E> {
    let actor = Actor {
        tenant,
        name: actor,
    };
    actor.record(&state.app, action, detail).await?;
    Ok(())
}
