//! API keys: listed, made (shown once) and revoked by members, each with its audit entry.

use super::{Actor, App};
use crate::domain::audit::AuditAction;
use crate::domain::member::Role;
use crate::domain::{Email, TenantSlug};
pub use crate::stores::ApiKeyRecord;
use crate::stores::StoreError;

/// `tenant`'s API keys.
pub async fn list(app: &App, tenant: &TenantSlug) -> Result<Vec<ApiKeyRecord>, StoreError> {
    app.stores().membership.api_keys.list(tenant).await
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
        .membership
        .api_keys
        .create(actor.tenant, label, Some(member))
        .await?;
    let detail = format!("\"{}\" ({}, role {role})", record.label, record.id);
    actor.record(app, AuditAction::KeyCreated, detail).await?;
    Ok((key, record))
}

/// Revokes `key`: whether it was there to revoke.
pub async fn revoke(app: &App, actor: Actor<'_>, key: &ApiKeyRecord) -> Result<bool, StoreError> {
    if !app
        .stores()
        .membership
        .api_keys
        .revoke(actor.tenant, &key.id)
        .await?
    {
        return Ok(false);
    }
    let detail = format!("\"{}\" ({})", key.label, key.id);
    actor.record(app, AuditAction::KeyRevoked, detail).await?;
    Ok(true)
}

/// Who calls with an API key.
#[derive(Debug)]
pub struct KeyHolder {
    /// The key's tenant.
    pub tenant: std::sync::Arc<crate::domain::Tenant>,
    /// The role the key acts with: its maker's now.
    pub role: Role,
    /// Who acts, as the audit log names them: the key's label and maker.
    pub actor: String,
}

/// Who holds `key`, if it is a live key: a key has the role of the member who made it, read
/// on each call, and dies with their membership (a key made by the operator, or before
/// members existed, is the owner's).
pub async fn holder(app: &App, key: &str) -> Result<Option<KeyHolder>, StoreError> {
    let stores = app.stores();
    let Some(record) = stores.membership.api_keys.find(key).await? else {
        return Ok(None);
    };
    let Some(tenant) = stores.catalog.tenants.get(&record.tenant).await? else {
        return Ok(None);
    };
    let (role, actor) = match &record.member {
        None => (Role::Owner, format!("API key \"{}\"", record.label)),
        Some(email) => {
            let members = stores.membership.members.read(&tenant).await?;
            let Some(role) = members.role_of(email) else {
                return Ok(None);
            };
            let actor = format!("API key \"{}\" of {}", record.label, email.as_str());
            (role, actor)
        }
    };
    Ok(Some(KeyHolder {
        tenant,
        role,
        actor,
    }))
}
