//! Drop-off counting on the web tier: each page a respondent is shown is counted in this
//! process's memory, and the counts are merged into the survey's stored ones every
//! `FLUSH_EVERY` (and when the process stops), so no page view costs a storage write. A
//! respondent's form (its reference) counts once per page in a process; a reload of the first
//! page counts as another opening. A process killed outright loses at most what it counted
//! since its last merge.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

use crate::domain::funnel::Funnel;
use crate::domain::region::RegionName;
use crate::domain::{Reference, Survey, SurveyRef};
use crate::service::{App, StoreError, dropoff};

/// How often counts are merged into storage.
pub const FLUSH_EVERY: Duration = Duration::from_secs(10);
/// Forms remembered for counting each page once (a day's forms on a busy site).
const REMEMBERED: u64 = 200_000;

/// What this process counted and has not merged yet, and the forms it has seen on each page.
#[derive(Debug)]
pub struct FunnelCounter {
    pending: Mutex<HashMap<SurveyRef, Funnel>>,
    /// (reference, page) already counted; page 0 stands for leaving the first page.
    seen: moka::future::Cache<(u64, usize), ()>,
    /// Held while merging, so a read never sees a batch both pending and stored.
    merging: tokio::sync::Mutex<()>,
}

impl Default for FunnelCounter {
    fn default() -> Self {
        Self {
            pending: Mutex::default(),
            seen: moka::future::Cache::builder()
                .max_capacity(REMEMBERED)
                .time_to_live(Duration::from_secs(24 * 60 * 60))
                .build(),
            merging: tokio::sync::Mutex::default(),
        }
    }
}

impl FunnelCounter {
    fn count(&self, survey: &SurveyRef, add: impl FnOnce(&mut Funnel)) {
        // A poisoned lock only means another request panicked mid-count: keep counting.
        let mut pending = self.pending.lock().unwrap_or_else(|e| e.into_inner());
        add(pending.entry(survey.clone()).or_default());
    }

    /// Whether `reference` is counted on `page` for the first time here.
    async fn first_time(&self, reference: Reference, page: usize) -> bool {
        self.seen
            .entry((reference.0, page))
            .or_insert(())
            .await
            .is_fresh()
    }

    /// The survey's first page was shown.
    pub fn opened(&self, survey: &SurveyRef) {
        self.count(survey, |funnel| funnel.opened += 1);
    }

    /// The form `reference` left page `from` with Next and was shown page `to`.
    pub async fn moved_on(&self, survey: &SurveyRef, reference: Reference, from: usize, to: usize) {
        if from == 0 && self.first_time(reference, 0).await {
            self.count(survey, |funnel| funnel.started += 1);
        }
        if to > 0 && self.first_time(reference, to).await {
            self.count(survey, |funnel| *funnel.reached.entry(to).or_default() += 1);
        }
    }

    /// Merges what was counted into storage; what cannot be merged now is kept for the next
    /// time. Counts of a survey no longer served here are dropped. Returns how many surveys'
    /// counts were merged.
    pub async fn flush(&self, app: &App) -> Result<usize, StoreError> {
        let _merging = self.merging.lock().await;
        let batch = std::mem::take(&mut *self.pending.lock().unwrap_or_else(|e| e.into_inner()));
        let mut merged = 0;
        let mut failed = None;
        for (survey, counts) in batch {
            let outcome = dropoff::merge(app, &survey, &counts).await.map(usize::from);
            match outcome {
                Ok(n) => merged += n,
                Err(error) => {
                    self.count(&survey, |funnel| funnel.merge(&counts));
                    failed = Some(error);
                }
            }
        }
        match failed {
            Some(error) => Err(error),
            None => Ok(merged),
        }
    }

    /// The survey's counts: stored in each region serving it, with what this process has not
    /// merged yet; the regions that could not be read are named.
    pub async fn read(
        &self,
        app: &App,
        survey: &Survey,
    ) -> Result<(Funnel, Vec<RegionName>), StoreError> {
        let _merging = self.merging.lock().await;
        let (mut counts, unread) = dropoff::stored(app, survey).await?;
        let pending = self.pending.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(here) = pending.get(&survey.survey_ref()) {
            counts.merge(here);
        }
        Ok((counts, unread))
    }

    /// Merges every `FLUSH_EVERY` until `stop` turns true, then once more.
    pub async fn run(&self, app: App, mut stop: tokio::sync::watch::Receiver<bool>) {
        loop {
            let stopping = tokio::select! {
                _ = tokio::time::sleep(FLUSH_EVERY) => false,
                _ = stop.wait_for(|stopped| *stopped) => true,
            };
            if let Err(error) = self.flush(&app).await {
                tracing::warn!(error = %crate::telemetry::error_chain(&error), "merging drop-off counts failed; they are kept for the next try");
            }
            if stopping {
                return;
            }
        }
    }
}
