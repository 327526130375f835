//! When each tenant's daily digest was last made, and the response counts it reported, so the
//! next one reports what came since. One small document per tenant, claimed under If-Match,
//! so of several workers one makes each digest.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

use super::{StoreError, json_blob};
use crate::domain::TenantSlug;
use crate::storage::BlobStore;

/// The digest state of one tenant.
#[derive(Debug, Default, Serialize, Deserialize)]
struct DigestState {
    /// When the last digest was made (`None`: never; the first pass only takes the counts).
    #[serde(default, with = "time::serde::rfc3339::option")]
    last: Option<OffsetDateTime>,
    /// Responses each survey (by `SurveyRef`) had then.
    #[serde(default)]
    totals: BTreeMap<String, u64>,
}

/// Reads and claims digests.
#[derive(Clone, Debug)]
pub struct DigestStore {
    blobs: Arc<dyn BlobStore>,
}

impl DigestStore {
    pub(super) fn new(blobs: Arc<dyn BlobStore>) -> Self {
        Self { blobs }
    }

    /// If the tenant's digest is due (`period` since the last), claims it: records `now` and
    /// the `totals` now, and returns how many responses each survey gained since the last
    /// digest (a survey new since then, all of its). `None` when not due, or on the first
    /// pass for the tenant (which only takes the counts).
    pub async fn claim(
        &self,
        tenant: &TenantSlug,
        now: OffsetDateTime,
        period: time::Duration,
        totals: &BTreeMap<String, u64>,
    ) -> Result<Option<BTreeMap<String, u64>>, StoreError> {
        let key = format!("digests/{tenant}.json");
        let claimed = json_blob::update(self.blobs.as_ref(), &key, |state: &mut DigestState| {
            let first = state.last.is_none();
            if state.last.is_some_and(|last| now - last < period) {
                return None;
            }
            let gained = totals
                .iter()
                .map(|(survey, total)| {
                    let before = state.totals.get(survey).copied().unwrap_or(0);
                    (survey.clone(), total.saturating_sub(before))
                })
                .filter(|(_, gained)| *gained > 0)
                .collect::<BTreeMap<_, _>>();
            state.last = Some(now);
            state.totals = totals.clone();
            Some((!first).then_some(gained))
        })
        .await?;
        Ok(claimed.flatten())
    }
}
