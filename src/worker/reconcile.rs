//! The reconcile pass: repairs what a lost notification, a dead worker or damage left behind.
//!
//! - Summaries whose `recent` map still holds answers (a worker died after committing them)
//!   get those answers' list entries and counted-index bits written.
//! - A summary that cannot be read is rebuilt from the survey's stored answers (`rebuild`).
//! - Stored answers and incoming oversized answers that no summary counts (their message was
//!   lost, or never queued because the web process died) are merged with the same exactly-once
//!   protocol as queued answers, so a repair never counts an answer twice, even if the answer's
//!   message turns up later.
//! - Data filed under a survey that no longer exists (written by a worker that had not yet
//!   seen the survey deleted) is removed, and so are sign-in throttle records past their window
//!   and respondents' saved progress past its time and drop-off counts of surveys gone
//!   (`sweeps`).
//!
//! Only answers and summaries older than a grace period are considered, to leave in-flight ones
//! to the workers. One survey's failure is reported and the pass goes on with the others. One
//! instance at a time runs it, under a lease on a lock blob.

use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, SystemTime};

use crate::domain::{Answer, Reference, SurveyRef};
use crate::stores::{Operations, StoreError, Stores, keys, lease, throttle};
use crate::telemetry::error_chain;

use super::rebuild::rebuild;
use super::sweeps;
use super::{SurveyBatch, complete, merge, tidy};

/// How old an answer must be before reconcile treats it as forgotten.
pub const GRACE: Duration = Duration::from_secs(300);

/// How long one pass may hold the lock before another instance may take it.
const LEASE: Duration = Duration::from_secs(900);

/// What a pass found and repaired.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReconcileReport {
    /// Summaries whose unfinished commits were completed.
    pub completed_summaries: u64,
    /// Summaries that could not be read, rebuilt from the stored answers.
    pub rebuilt_summaries: u64,
    /// Stored and incoming answers looked at.
    pub scanned: u64,
    /// Answers that no summary counted, now counted.
    pub repaired: u64,
    /// Blobs removed because the survey they were filed under no longer exists.
    pub removed: u64,
    /// Surveys the pass could not reconcile, with why; the rest were done.
    pub failed: Vec<(String, String)>,
}

/// Runs a pass unless another instance holds the lock; `None` if it did.
pub async fn run_if_free(stores: &Stores) -> Result<Option<ReconcileReport>, StoreError> {
    run_locked(stores, GRACE, &|_| {}).await
}

/// Runs a pass under the lock, reporting progress after each page of keys.
pub async fn run_locked(
    stores: &Stores,
    grace: Duration,
    progress: &(dyn Fn(&ReconcileReport) + Sync),
) -> Result<Option<ReconcileReport>, StoreError> {
    let owner = format!("{}-{}", std::process::id(), uuid::Uuid::new_v4().simple());
    let blobs = stores.operations.storage.blobs.clone();
    let Some(held) = lease::acquire(blobs, keys::RECONCILE_LOCK, &owner, LEASE).await? else {
        tracing::info!("another instance is reconciling; skipping this pass");
        return Ok(None);
    };
    let outcome = Pass::new(stores, grace).run(progress).await;
    held.release().await?;
    let report = outcome?;
    tracing::info!(?report, "reconcile pass finished");
    Ok(Some(report))
}

/// One pass: its report, its cut-off time, and which surveys it found alive.
struct Pass<'a> {
    stores: &'a Stores,
    cutoff: SystemTime,
    report: ReconcileReport,
    alive: BTreeMap<SurveyRef, bool>,
}

impl<'a> Pass<'a> {
    fn new(stores: &'a Stores, grace: Duration) -> Self {
        Self {
            stores,
            cutoff: SystemTime::now() - grace,
            report: ReconcileReport::default(),
            alive: BTreeMap::new(),
        }
    }

    async fn run(
        mut self,
        progress: &(dyn Fn(&ReconcileReport) + Sync),
    ) -> Result<ReconcileReport, StoreError> {
        self.summaries(progress).await?;
        for prefix in [keys::INCOMING, keys::ANSWERS] {
            self.answers(prefix, progress).await?;
        }
        self.expired_throttles().await?;
        let now = time::OffsetDateTime::now_utc();
        self.report.removed += sweeps::sweep_progress(self.stores, now).await?;
        self.report.removed += sweeps::sweep_funnels(self.stores, self.cutoff).await?;
        self.report.removed += sweeps::sweep_uploads(self.stores, now).await?;
        Ok(self.report)
    }

    /// Removes sign-in records whose window has passed (they would count nothing any more).
    async fn expired_throttles(&mut self) -> Result<(), StoreError> {
        let mut continuation = None;
        loop {
            let page = self
                .stores
                .operations
                .scan(throttle::PREFIX, continuation)
                .await?;
            for (key, modified) in page.keys {
                if throttle::expired(modified) {
                    self.stores.operations.delete_blob(&key).await?;
                    self.report.removed += 1;
                }
            }
            match page.continuation {
                Some(token) => continuation = Some(token),
                None => return Ok(()),
            }
        }
    }

    /// Whether the survey is the one counted here under its slug now (its tenant's own, or
    /// one hosted here whose answers stay here).
    async fn alive(&mut self, survey: &SurveyRef) -> Result<bool, StoreError> {
        if let Some(alive) = self.alive.get(survey) {
            return Ok(*alive);
        }
        let current = self
            .stores
            .counted_here(&survey.tenant, &survey.slug)
            .await?;
        let alive = current.is_some_and(|current| current.id == survey.id);
        self.alive.insert(survey.clone(), alive);
        Ok(alive)
    }

    fn failed(&mut self, survey: &SurveyRef, error: &StoreError) {
        tracing::error!(%survey, error = %error_chain(error), "reconciling a survey failed");
        self.report
            .failed
            .push((survey.to_string(), error_chain(error)));
    }

    /// Completes, rebuilds or removes every summary.
    async fn summaries(
        &mut self,
        progress: &(dyn Fn(&ReconcileReport) + Sync),
    ) -> Result<(), StoreError> {
        let mut continuation = None;
        loop {
            let page = self
                .stores
                .operations
                .scan(keys::SUMMARIES, continuation)
                .await?;
            for (key, modified) in page.keys {
                let Some(survey) = keys::parse_summary_key(&key) else {
                    continue;
                };
                if let Err(error) = self.summary(&survey, modified).await {
                    self.failed(&survey, &error);
                }
            }
            progress(&self.report);
            match page.continuation {
                Some(token) => continuation = Some(token),
                None => return Ok(()),
            }
        }
    }

    async fn summary(
        &mut self,
        survey: &SurveyRef,
        modified: SystemTime,
    ) -> Result<(), StoreError> {
        if !self.alive(survey).await? {
            if modified <= self.cutoff {
                self.report.removed += self.stores.catalog.surveys.delete_data(survey).await?;
            }
            return Ok(());
        }
        match self.stores.answering.summaries.read(survey).await {
            Ok(read) => {
                let unsettled = read.doc.unsettled(survey, |_| true);
                if !unsettled.is_empty() {
                    complete(self.stores, survey, &unsettled).await?;
                    self.report.completed_summaries += 1;
                }
                // A summary written before submission days were kept gets them by a recount.
                if read.doc.days_from != 0 {
                    self.stores.operations.deletions.recount(survey).await?;
                }
                // A build whose request was lost (a worker died between the commit that
                // started the segments and asking for it).
                if read.doc.segments_building() {
                    self.stores.operations.segments.request(survey).await?;
                }
            }
            Err(StoreError::Corrupt { .. }) => {
                if rebuild(self.stores, survey).await?.is_some() {
                    self.report.rebuilt_summaries += 1;
                }
            }
            Err(error) => return Err(error),
        }
        Ok(())
    }

    /// Repairs or removes the answers under `prefix` older than the grace period.
    async fn answers(
        &mut self,
        prefix: &str,
        progress: &(dyn Fn(&ReconcileReport) + Sync),
    ) -> Result<(), StoreError> {
        let mut continuation = None;
        loop {
            let page = self.stores.operations.scan(prefix, continuation).await?;
            let mut by_survey: BTreeMap<SurveyRef, Vec<(String, Reference)>> = BTreeMap::new();
            for (key, modified) in page.keys {
                self.report.scanned += 1;
                if modified > self.cutoff {
                    continue;
                }
                if let Some((survey, reference)) = keys::parse_answer_key(prefix, &key) {
                    by_survey.entry(survey).or_default().push((key, reference));
                }
            }
            for (survey, found) in by_survey {
                let outcome = match self.alive(&survey).await {
                    Ok(true) => repair(self.stores, &survey, &found).await,
                    Ok(false) => remove(&self.stores.operations, &found)
                        .await
                        .map(|removed| {
                            self.report.removed += removed;
                            0
                        }),
                    Err(error) => Err(error),
                };
                match outcome {
                    Ok(repaired) => self.report.repaired += repaired,
                    Err(error) => self.failed(&survey, &error),
                }
            }
            progress(&self.report);
            match page.continuation {
                Some(token) => continuation = Some(token),
                None => return Ok(()),
            }
        }
    }
}

/// Removes the blobs of answers to a survey that no longer exists; returns how many.
async fn remove(stores: &Operations, found: &[(String, Reference)]) -> Result<u64, StoreError> {
    for (key, _) in found {
        stores.delete_blob(key).await?;
    }
    Ok(found.len() as u64)
}

/// Merges the answers of `found` that the survey's summary does not count; returns how many.
async fn repair(
    stores: &Stores,
    survey: &SurveyRef,
    found: &[(String, Reference)],
) -> Result<u64, StoreError> {
    let summary = stores.answering.summaries.read(survey).await?;
    let counted = stores
        .answering
        .counted
        .counted(survey, found.iter().map(|(_, r)| *r))
        .await?;
    let mut answers: BTreeMap<Reference, Answer> = BTreeMap::new();
    for (key, reference) in found {
        // The answer of a deleted response, stored again by a late repeat of its message.
        if summary.doc.deleted.contains(reference) && !key.starts_with(keys::INCOMING) {
            stores.operations.delete_blob(key).await?;
            continue;
        }
        if counted.contains(reference) || summary.doc.recent.contains_key(reference) {
            continue;
        }
        if let Some(answer) = stores.answering.answers.read(key).await? {
            answers.insert(*reference, answer);
        }
    }
    let repaired = if answers.is_empty() {
        0
    } else {
        let batch = SurveyBatch {
            survey: survey.clone(),
            answers,
            settled: BTreeSet::new(),
            segments: Vec::new(),
            stored: BTreeSet::new(),
        };
        let merged = merge(stores, batch).await?;
        tidy(&stores.answering, survey, &merged.settled).await?;
        tracing::warn!(%survey, repaired = merged.counted.len(), "reconcile counted answers that no summary had");
        merged.counted.len() as u64
    };
    // Every incoming copy found is now stored and counted: merge stores before it commits.
    for (key, reference) in found {
        if key.starts_with(keys::INCOMING) {
            stores
                .answering
                .answers
                .remove_incoming(survey, *reference)
                .await?;
        }
    }
    Ok(repaired)
}
