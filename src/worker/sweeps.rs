//! What the public site keeps beside answers, swept by the reconcile pass: respondents' saved
//! progress once its survey's period has run from its last save (or its survey is gone, or no
//! longer offers to continue later), and the drop-off counts of surveys gone. Both are read
//! from the listing (when each was last written), so a sweep reads no documents.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::SystemTime;

use time::OffsetDateTime;

use crate::domain::progress::SavedProgress;
use crate::domain::{Survey, SurveyRef};
use crate::stores::{StoreError, Stores, keys};

/// The surveys a sweep looked up, as this region's site serves them.
#[derive(Default)]
struct Served(BTreeMap<SurveyRef, Option<Arc<Survey>>>);

impl Served {
    async fn get(
        &mut self,
        stores: &Stores,
        survey: &SurveyRef,
    ) -> Result<Option<Arc<Survey>>, StoreError> {
        if let Some(found) = self.0.get(survey) {
            return Ok(found.clone());
        }
        let found = stores.served_here(survey).await?;
        self.0.insert(survey.clone(), found.clone());
        Ok(found)
    }
}

/// Deletes every saved progress that no longer works at `now`; returns how many.
pub async fn sweep_progress(stores: &Stores, now: OffsetDateTime) -> Result<u64, StoreError> {
    sweep(
        stores,
        keys::PROGRESS,
        keys::parse_progress_key,
        |saved, survey| {
            let days = survey
                .filter(|survey| survey.offers_resume())
                .and_then(|survey| survey.resume_days);
            days.is_none_or(|days| {
                SavedProgress::expires_at(OffsetDateTime::from(saved), days) <= now
            })
        },
    )
    .await
}

/// Deletes the drop-off counts of surveys no longer served here, written before `cutoff` (a
/// web process may still be merging into a survey deleted a moment ago); returns how many.
pub async fn sweep_funnels(stores: &Stores, cutoff: SystemTime) -> Result<u64, StoreError> {
    sweep(
        stores,
        keys::FUNNELS,
        keys::parse_funnel_key,
        |written, survey| written <= cutoff && survey.is_none(),
    )
    .await
}

/// Deletes each blob under `prefix` that `gone` says should go, given when it was written
/// and the survey its key names (`parse`) as served here; a key naming no survey goes.
/// Returns how many.
async fn sweep(
    stores: &Stores,
    prefix: &str,
    parse: fn(&str) -> Option<SurveyRef>,
    gone: impl Fn(SystemTime, Option<&Survey>) -> bool,
) -> Result<u64, StoreError> {
    let mut served = Served::default();
    let mut removed = 0;
    let mut continuation = None;
    loop {
        let page = stores.scan(prefix, continuation).await?;
        for (key, written) in page.keys {
            let go = match parse(&key) {
                None => true,
                Some(survey) => gone(written, served.get(stores, &survey).await?.as_deref()),
            };
            if go {
                stores.delete_blob(&key).await?;
                removed += 1;
            }
        }
        match page.continuation {
            Some(token) => continuation = Some(token),
            None => return Ok(removed),
        }
    }
}
