//! The application's use cases: what a member does to a tenant's data, with the audit entry it
//! leaves, in one place that the JSON API and the pages both call. Handlers read requests and
//! answer them; the rules of a use case live here, so one added to it cannot be missed by
//! either side.

pub mod accounts;
pub mod answering;
pub mod api_keys;
pub mod audit;
pub mod dropoff;
pub mod finding;
pub mod hosting;
pub mod mailings;
pub mod members;
pub mod operations;
pub mod participants;
pub mod quotas;
pub mod responses;
pub mod results;
pub mod settings;
pub mod surveys;
pub mod tenants;
pub mod translations;
pub mod webhooks;

use crate::domain::TenantSlug;
use crate::domain::audit::{AuditAction, AuditEntry};
/// How a use case fails when storage does: what the sites map to their error pages.
pub use crate::stores::StoreError;
use crate::stores::Stores;

/// The application as the sites and the JSON API reach it: its use cases, over stores they
/// never name (a handler calls a function of this layer with it). Cheap to clone.
#[derive(Clone, Debug)]
pub struct App {
    stores: Stores,
}

impl App {
    /// The application over these stores.
    pub fn new(stores: Stores) -> Self {
        Self { stores }
    }

    /// The key this installation signs respondents' forms, thank-you links and file links
    /// with.
    pub fn signing_key(&self) -> &crate::domain::SigningKey {
        &self.stores.answering.signing_key
    }

    /// The key that encrypts session cookies.
    pub fn session_key(&self) -> &[u8; 64] {
        &self.stores.membership.session_key
    }

    /// The installation's regions, as the operator's regions file names them.
    pub fn regions(&self) -> &crate::regions::Regions {
        &self.stores.residency.regions
    }

    /// The stores, for the use cases of this layer only.
    pub(crate) fn stores(&self) -> &Stores {
        &self.stores
    }
}

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
        app: &App,
        action: AuditAction,
        detail: impl Into<String>,
    ) -> Result<(), StoreError> {
        let stores = app.stores();
        let entry = AuditEntry {
            at: time::OffsetDateTime::now_utc(),
            actor: self.name.to_owned(),
            action,
            detail: detail.into(),
        };
        stores.membership.audit.record(self.tenant, &entry).await
    }
}
