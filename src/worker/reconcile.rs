//! The reconcile pass: repairs what a lost notification or a dead worker left behind.
//!
//! - Summaries whose `recent` map still holds answers (a worker died after committing them)
//!   get those answers' list entries and counted-index bits written.
//! - Stored answers and incoming oversized answers that no summary counts (their message was
//!   lost, or never queued because the web process died) are merged with the same exactly-once
//!   protocol as queued answers, so a repair never counts an answer twice, even if the answer's
//!   message turns up later.
//!
//! Only answers older than a grace period are considered, to leave in-flight ones to the
//! workers. One instance at a time runs it, under a lease on a lock blob.

use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, SystemTime};

use crate::domain::{Answer, Reference, SurveySlug, TenantSlug};
use crate::stores::{StoreError, Stores, keys, lease};

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
    /// Stored and incoming answers looked at.
    pub scanned: u64,
    /// Answers that no summary counted, now counted.
    pub repaired: u64,
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
    let blobs = stores.storage.blobs.clone();
    let Some(held) = lease::acquire(blobs, keys::RECONCILE_LOCK, &owner, LEASE).await? else {
        tracing::info!("another instance is reconciling; skipping this pass");
        return Ok(None);
    };
    let outcome = run(stores, grace, progress).await;
    held.release().await?;
    let report = outcome?;
    tracing::info!(?report, "reconcile pass finished");
    Ok(Some(report))
}

async fn run(
    stores: &Stores,
    grace: Duration,
    progress: &(dyn Fn(&ReconcileReport) + Sync),
) -> Result<ReconcileReport, StoreError> {
    let mut report = ReconcileReport::default();
    complete_summaries(stores, &mut report, progress).await?;
    let cutoff = SystemTime::now() - grace;
    for prefix in [keys::INCOMING, keys::ANSWERS] {
        let mut continuation = None;
        loop {
            let page = stores.scan(prefix, continuation).await?;
            let mut by_survey: BTreeMap<(TenantSlug, SurveySlug), Vec<(String, Reference)>> =
                BTreeMap::new();
            for (key, modified) in page.keys {
                report.scanned += 1;
                if modified > cutoff {
                    continue;
                }
                if let Some((tenant, survey, reference)) = keys::parse_answer_key(prefix, &key) {
                    by_survey
                        .entry((tenant, survey))
                        .or_default()
                        .push((key, reference));
                }
            }
            for ((tenant, survey), found) in by_survey {
                report.repaired += repair(stores, &tenant, &survey, &found).await?;
            }
            progress(&report);
            match page.continuation {
                Some(token) => continuation = Some(token),
                None => break,
            }
        }
    }
    Ok(report)
}

/// Completes every summary's unfinished commits.
async fn complete_summaries(
    stores: &Stores,
    report: &mut ReconcileReport,
    progress: &(dyn Fn(&ReconcileReport) + Sync),
) -> Result<(), StoreError> {
    let mut continuation = None;
    loop {
        let page = stores.scan(keys::SUMMARIES, continuation).await?;
        for (key, _) in page.keys {
            let Some((tenant, survey)) = keys::parse_summary_key(&key) else {
                continue;
            };
            let read = stores.summaries.read(&tenant, &survey).await?;
            if !read.doc.recent.is_empty() {
                complete(stores, &tenant, &survey, &read.doc.recent).await?;
                report.completed_summaries += 1;
            }
        }
        progress(report);
        match page.continuation {
            Some(token) => continuation = Some(token),
            None => return Ok(()),
        }
    }
}

/// Merges the answers of `found` that the survey's summary does not count; returns how many.
async fn repair(
    stores: &Stores,
    tenant: &TenantSlug,
    survey: &SurveySlug,
    found: &[(String, Reference)],
) -> Result<u64, StoreError> {
    let summary = stores.summaries.read(tenant, survey).await?;
    let counted = stores
        .counted
        .counted(tenant, survey, found.iter().map(|(_, r)| *r))
        .await?;
    let mut answers: BTreeMap<Reference, Answer> = BTreeMap::new();
    for (key, reference) in found {
        if counted.contains(reference) || summary.doc.recent.contains_key(reference) {
            continue;
        }
        if let Some(answer) = stores.answers.read(key).await? {
            answers.insert(*reference, answer);
        }
    }
    let repaired = if answers.is_empty() {
        0
    } else {
        let batch = SurveyBatch {
            tenant: tenant.clone(),
            survey: survey.clone(),
            answers,
            settled: BTreeSet::new(),
        };
        let merged = merge(stores, batch).await?;
        tidy(stores, tenant, survey, &merged.settled).await?;
        tracing::warn!(%tenant, %survey, repaired = merged.counted.len(), "reconcile counted answers that no summary had");
        merged.counted.len() as u64
    };
    // Every incoming copy found is now stored and counted: merge stores before it commits.
    for (key, reference) in found {
        if key.starts_with(keys::INCOMING) {
            stores
                .answers
                .remove_incoming(tenant, survey, *reference)
                .await?;
        }
    }
    Ok(repaired)
}
