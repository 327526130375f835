//! API keys: listed, made (shown once) and revoked by members, each with its audit entry.

use super::{Actor, App};
use crate::domain::audit::AuditAction;
use crate::domain::member::Role;
use crate::domain::{Email, TenantSlug};
pub use crate::stores::ApiKeyRecord;
use crate::stores::StoreError;

/// `tenant`'s API keys.
pub async fn list(app: &App, tenant: &TenantSlug) -> Result<Vec<ApiKeyRecord>, StoreError> {
    app.stores().api_keys.list(tenant).await
}

/// Makes a key labelled `label` for `member` (who has `role`); returns it (shown this once)
/// and its record.
pub async fn create(
    app: &App,
    actor: Actor<'_>,
    (member, role): (&Email, Role),
    label: &str,
) -> Result<(String, ApiKeyRecord), StoreError> {
    let (key, record) = app
        .stores()
        .api_keys
        .create(actor.tenant, label, Some(member))
        .await?;
    let detail = format!("\"{}\" ({}, role {role})", record.label, record.id);
    actor.record(app, AuditAction::KeyCreated, detail).await?;
    Ok((key, record))
}

/// Revokes `key`: whether it was there to revoke.
pub async fn revoke(app: &App, actor: Actor<'_>, key: &ApiKeyRecord) -> Result<bool, StoreError> {
    if !app.stores().api_keys.revoke(actor.tenant, &key.id).await? {
        return Ok(false);
    }
    let detail = format!("\"{}\" ({})", key.label, key.id);
    actor.record(app, AuditAction::KeyRevoked, detail).await?;
    Ok(true)
}
