//! The application's use cases: what a member does to a tenant's data, with the audit entry it
//! leaves, in one place that the JSON API and the pages both call. Handlers read requests and
//! answer them; the rules of a use case live here, so one added to it cannot be missed by
//! either side.

pub mod answering;
pub mod hosting;
pub mod mailings;
pub mod members;
pub mod participants;
pub mod responses;
pub mod surveys;
pub mod tenants;
pub mod webhooks;

use crate::domain::TenantSlug;
use crate::domain::audit::{AuditAction, AuditEntry};
use crate::stores::{StoreError, Stores};

/// Who acts: a member signed in on the site, or an API key, in their tenant.
#[derive(Clone, Copy, Debug)]
pub struct Actor<'a> {
    /// The tenant acted in.
    pub tenant: &'a TenantSlug,
    /// Who, as the audit log names them (an address, or an API key and its member).
    pub name: &'a str,
}

impl Actor<'_> {
    /// Adds what this actor did to the tenant's audit log.
    pub async fn record(
        &self,
        stores: &Stores,
        action: AuditAction,
        detail: impl Into<String>,
    ) -> Result<(), StoreError> {
        let entry = AuditEntry {
            at: time::OffsetDateTime::now_utc(),
            actor: self.name.to_owned(),
            action,
            detail: detail.into(),
        };
        stores.audit.record(self.tenant, &entry).await
    }
}
