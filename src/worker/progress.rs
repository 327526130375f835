//! Saved progress past its time: the reconcile pass deletes each respondent's saved answers
//! once their survey's period has run from their last save, and those of a survey deleted, or
//! no longer offering to continue later. Expiry is read from the listing (when each was last
//! saved), so the sweep reads no saved answers.

use std::collections::BTreeMap;

use time::OffsetDateTime;

use crate::domain::SurveyRef;
use crate::domain::progress::SavedProgress;
use crate::stores::{StoreError, Stores, keys};

/// Deletes every saved progress that no longer works at `now`; returns how many.
pub async fn sweep(stores: &Stores, now: OffsetDateTime) -> Result<u64, StoreError> {
    // Per survey: how many days its saved answers are kept (`None`: none are).
    let mut kept: BTreeMap<SurveyRef, Option<u16>> = BTreeMap::new();
    let mut removed = 0;
    let mut continuation = None;
    loop {
        let page = stores.scan(keys::PROGRESS, continuation).await?;
        for (key, modified) in page.keys {
            let days = match keys::parse_progress_key(&key) {
                None => None,
                Some(survey) => match kept.get(&survey) {
                    Some(days) => *days,
                    None => {
                        let days = resume_days(stores, &survey).await?;
                        kept.insert(survey, days);
                        days
                    }
                },
            };
            let expired = days.is_none_or(|days| {
                SavedProgress::expires_at(OffsetDateTime::from(modified), days) <= now
            });
            if expired {
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

/// How long the survey keeps saved answers, as the public site here serves it (its tenant's
/// own, or a copy hosted here); `None` when it is gone or keeps none.
async fn resume_days(stores: &Stores, survey: &SurveyRef) -> Result<Option<u16>, StoreError> {
    let own = stores.surveys.get(&survey.tenant, &survey.slug).await?;
    let found = match own {
        Some(own) => Some(own),
        None => stores.hosted.survey(&survey.tenant, &survey.slug).await?,
    };
    Ok(found
        .filter(|found| found.id == survey.id && found.offers_resume())
        .and_then(|found| found.resume_days))
}
