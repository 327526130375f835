//! Where each kind of document lives in blob storage: the one place that knows the layout.
//! Every key of a tenant's data starts with the tenant's slug, so tenants never share a key.

use crate::domain::{Reference, SurveySlug, TenantSlug};

/// The tenant document.
pub fn tenant(tenant: &TenantSlug) -> String {
    format!("tenants/{tenant}.json")
}

/// The prefix under which a tenant's survey definitions live.
pub fn surveys_of(tenant: &TenantSlug) -> String {
    format!("surveys/{tenant}/")
}

/// A survey definition.
pub fn survey(tenant: &TenantSlug, survey: &SurveySlug) -> String {
    format!("{}{survey}.json", surveys_of(tenant))
}

/// An oversized answer waiting for a worker (its queue message only points here).
pub fn incoming_answer(tenant: &TenantSlug, survey: &SurveySlug, reference: Reference) -> String {
    format!("incoming/{tenant}/{survey}/{:020}.json", reference.0)
}

/// The shared counter of reference numbers.
pub const REFERENCE_COUNTER: &str = "counters/answer-reference";

/// The key that signs submission tokens.
pub const SIGNING_KEY: &str = "secrets/signing-key";
