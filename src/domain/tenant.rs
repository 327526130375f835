//! Tenants: the organisations that own surveys, and their subscription.

use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

use super::TenantSlug;
use super::account::Email;
use super::branding::Branding;

/// What a tenant pays for; premium answers are processed first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Subscription {
    /// The standard queue.
    Standard,
    /// The premium queue, served before the standard one.
    Premium,
}

impl Subscription {
    /// The subscription's name, as in configuration and the API.
    pub fn as_str(self) -> &'static str {
        match self {
            Subscription::Standard => "standard",
            Subscription::Premium => "premium",
        }
    }
}

/// A survey owner.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Tenant {
    /// Its slug, as in `/s/{tenant}`.
    pub slug: TenantSlug,
    /// Its display name.
    pub name: String,
    /// Standard or premium.
    pub subscription: Subscription,
    /// When it signed up.
    #[serde(with = "time::serde::rfc3339")]
    pub created: OffsetDateTime,
    /// The account that signed it up (`None` for tenants made by an operator, or before this
    /// was recorded): its first owner, until its members are first changed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub owner: Option<Email>,
    /// The IANA time zone its times are entered and shown in (UTC when unset).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_zone: Option<String>,
    /// Its logo and accent colour on its public pages.
    #[serde(default)]
    pub branding: Branding,
}

impl Tenant {
    /// The zone its times are entered and shown in.
    pub fn zone(&self) -> super::Zone {
        super::Zone::or_utc(self.time_zone.as_deref())
    }
}
