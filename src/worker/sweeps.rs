//! What the public site keeps beside answers, swept by the reconcile pass: respondents' saved
//! progress once its survey's period has run from its last save (or its survey is gone, or no
//! longer offers to continue later), the drop-off counts of surveys gone, and uploaded files no
//! answer holds once their grace is over. Expiry is read from the listing (when each was last
//! written); only an old file's answer is read, to see whether it holds the file.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::SystemTime;

use time::OffsetDateTime;

use crate::domain::progress::SavedProgress;
use crate::domain::{Survey, SurveyRef};
use crate::stores::{Answering, StoreError, Stores, keys};

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

/// How long a file may wait for an answer to hold it (a respondent still answering, or one who
/// saved to continue later keeps their files for their survey's period besides).
pub const UPLOAD_GRACE: time::Duration = time::Duration::days(7);

/// Deletes every uploaded file, written more than its grace before `now`, that no answer
/// holds: its form was never sent, its respondent chose another file, or its survey is gone.
/// A file is held by a stored answer, or may be by one still queued: no file is swept whose
/// grace ends after the oldest message still waiting in an answer queue was added (a form is
/// sent within its files' grace, so an answer queued since cannot hold an older file).
/// Returns how many.
pub async fn sweep_uploads(stores: &Stores, now: OffsetDateTime) -> Result<u64, StoreError> {
    let now = match oldest_queued(stores).await? {
        Some(queued) => now.min(queued),
        None => now,
    };
    let mut served = Served::default();
    let mut held: BTreeMap<(SurveyRef, crate::domain::Reference), Vec<String>> = BTreeMap::new();
    let mut files = stores.operations.sweep(keys::UPLOADS);
    while let Some((key, written)) = files.next().await? {
        let go = match keys::parse_upload_key(&key) {
            None => true,
            Some((survey, reference, _, id)) => match served.get(stores, &survey).await? {
                None => true,
                Some(found) => {
                    let days = found.resume_days.map_or(0, |days| i64::from(days) + 1);
                    let grace = UPLOAD_GRACE.max(time::Duration::days(days));
                    let old = OffsetDateTime::from(written) + grace <= now;
                    old && !holds(&stores.answering, &mut held, &survey, reference, &id).await?
                }
            },
        };
        if go {
            files.delete(&key).await?;
        }
    }
    Ok(files.deleted())
}

/// When the oldest message still waiting in an answer queue (poison included) was added.
async fn oldest_queued(stores: &Stores) -> Result<Option<OffsetDateTime>, StoreError> {
    let mut oldest: Option<OffsetDateTime> = None;
    for (_, queue) in stores.answering.queues.all() {
        if let Some(waited) = stores.operations.queue_head_age(queue).await? {
            let added = OffsetDateTime::now_utc() - waited;
            oldest = Some(oldest.map_or(added, |oldest| oldest.min(added)));
        }
    }
    Ok(oldest)
}

/// Whether the stored answer `reference` holds the file `id` (its answers' files read once).
async fn holds(
    stores: &Answering,
    held: &mut BTreeMap<(SurveyRef, crate::domain::Reference), Vec<String>>,
    survey: &SurveyRef,
    reference: crate::domain::Reference,
    id: &str,
) -> Result<bool, StoreError> {
    let key = (survey.clone(), reference);
    if !held.contains_key(&key) {
        let files = stores
            .answers
            .get(survey, reference)
            .await?
            .map(|answer| {
                answer
                    .values
                    .values()
                    .filter_map(|value| match value {
                        crate::domain::AnswerValue::File(file) => Some(file.id.clone()),
                        _ => None,
                    })
                    .collect()
            })
            .unwrap_or_default();
        held.insert(key.clone(), files);
    }
    Ok(held
        .get(&key)
        .is_some_and(|files| files.iter().any(|held| held == id)))
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
    let mut blobs = stores.operations.sweep(prefix);
    while let Some((key, written)) = blobs.next().await? {
        let go = match parse(&key) {
            None => true,
            Some(survey) => gone(written, served.get(stores, &survey).await?.as_deref()),
        };
        if go {
            blobs.delete(&key).await?;
        }
    }
    Ok(blobs.deleted())
}
