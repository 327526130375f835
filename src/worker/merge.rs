//! Merging a batch of one survey's answers into its summary, exactly once.
//!
//! A message may be delivered twice (a worker died before deleting it, or a form was posted
//! twice), and several workers may merge into one survey at once. Every answer is counted
//! once all the same, by this protocol:
//!
//! 0. **Store** each answer create-only. If one with the same reference is already stored,
//!    that stored copy is what gets counted, so the summary always agrees with the answers.
//! 1. **Read** the survey's summary document and its ETag.
//! 2. **Decide** which answers are new: those neither in the summary's `recent` map nor marked
//!    in the counted index. (The summary is read first and the index second: an answer moves
//!    from "not counted" to "in recent" to "in recent and marked" to "marked" only, so this
//!    order never mistakes a counted answer for a new one; an answer counted after step 1 is
//!    caught in step 3.)
//! 3. **Commit**: write the summary with the new answers merged in, each given the next list
//!    position and recorded in `recent` (and the same in each segment it is in: see
//!    `stores::segments`), under If-Match. If anyone else wrote the summary
//!    since step 1, go back to step 1. This write is the moment an answer is counted. The same
//!    write drops from `recent` the answers of earlier batches that step 4 settled.
//! 4. **Settle**: write the list entries (the survey's and its segments') and the
//!    counted-index bits of this batch's answers that are in `recent` (new ones and any left by a worker that died after step 3). They
//!    leave `recent` with the survey's next commit, or, when no commit follows soon (the worker
//!    has no backlog, is idle, paused or stopping), by a write of their own (`tidy`).
//!
//! Only after step 4 are the incoming blobs of oversized answers removed and the messages
//! deleted, and only answers whose messages were deleted are left to the next commit to drop
//! from `recent`.
//!
//! A worker killed at any point leaves its messages to be redelivered; redoing any step is
//! harmless: stores are create-only, a committed answer is found in `recent` or the index and
//! not counted again, and list entries and bits are written idempotently. An answer a killed
//! worker settled but had not dropped from `recent` stays there, correctly counted, until the
//! reconcile pass settles it again and drops it.
//!
//! Durability: on a backend that commits without fsync (the local one, for workers), blobs in
//! different files reach the disk independently. The commit is flushed to disk before step 4
//! (a bit must never outlive the commit that counts its answer), and deletes flush every blob
//! write before them (a message must never be gone while what was made of it is not on disk),
//! so a power cut at any moment leaves a state that redelivery repairs.
//!
//! Dropping settled answers with the next commit saves a summary write per batch, and with it
//! half the ETag races between workers merging into one survey.

use std::collections::{BTreeMap, BTreeSet};

use time::OffsetDateTime;

use crate::domain::segment::SegmentKey;
use crate::domain::{Answer, Reference, SurveyRef};
use crate::stores::segments::Unsettled;
use crate::stores::{Answering, StoreError, Stores};

use crate::crash;

/// The answers of one survey, at most one per reference.
#[derive(Debug)]
pub struct SurveyBatch {
    /// The survey.
    pub survey: SurveyRef,
    /// The answers, by reference.
    pub answers: BTreeMap<Reference, Answer>,
    /// Answers of earlier batches whose list entries and bits are written: the commit drops
    /// them from `recent`.
    pub settled: BTreeSet<Reference>,
    /// What the survey's segments divide it by: the commit starts segments for any key that
    /// has none.
    pub segments: Vec<SegmentKey>,
    /// Answers read from their stored copy (moved here from another region): not stored
    /// again.
    pub stored: BTreeSet<Reference>,
}

/// What a merge did.
#[derive(Debug, Default)]
pub struct Merged {
    /// Answers counted by this merge, with when they were submitted.
    pub counted: Vec<(Reference, OffsetDateTime)>,
    /// Answers that were already counted.
    pub duplicates: usize,
    /// Summary commits made (0 when every answer was counted already).
    pub commits: usize,
    /// Times the summary commit lost a race and was retried.
    pub conflicts: usize,
    /// Settled answers still in `recent`: hand them to the survey's next batch, or `tidy` them.
    pub settled: BTreeSet<Reference>,
    /// This batch's answers whose list entries this merge wrote: newly counted ones, and any
    /// a dead worker counted but had not finished (so their webhooks are queued again).
    pub listed: BTreeSet<Reference>,
    /// Whether this merge started segments that need a build (answers were counted before).
    pub segments_to_build: bool,
}

/// Runs the protocol for one survey's batch.
pub async fn merge(stores: &Stores, mut batch: SurveyBatch) -> Result<Merged, StoreError> {
    store_answers(&stores.answering, &mut batch).await?;
    let survey = &batch.survey;
    let mut merged = Merged::default();
    let mut erased: Vec<Reference>;
    let committed = loop {
        let mut read = stores.answering.summaries.read(survey).await?;
        // A repeated message of a response deleted since stored its answer again above.
        erased = batch
            .answers
            .keys()
            .filter(|reference| read.doc.deleted.contains(reference))
            .copied()
            .collect();
        let new = stores
            .answering
            .counted
            .uncounted(survey, &read.doc.recent, batch.answers.keys().copied())
            .await?;
        if new.is_empty() {
            merged.duplicates = batch.answers.len();
            // Nothing to commit: the settled answers wait for the next commit.
            merged.settled.clone_from(&batch.settled);
            break read.doc;
        }
        let unbuilt = read.doc.add_segments(&batch.segments);
        for reference in &new {
            let position = read.doc.list_len;
            read.doc.count(&batch.answers[reference], position);
            read.doc.recent.insert(*reference, position);
            read.doc.list_len += 1;
        }
        read.doc.drop_settled(&batch.settled);
        read.doc.updated = Some(OffsetDateTime::now_utc());
        if stores
            .answering
            .summaries
            .write(survey, &read.doc, read.etag.as_ref())
            .await?
        {
            merged.counted = new
                .iter()
                .map(|reference| (*reference, batch.answers[reference].submitted_at))
                .collect();
            merged.duplicates = batch.answers.len() - new.len();
            merged.commits = 1;
            merged.segments_to_build = !unbuilt.is_empty();
            crash::reached(crash::Point::AfterCommit);
            break read.doc;
        }
        merged.conflicts += 1;
        tracing::debug!(%survey, "the summary changed since it was read; merging again");
    };
    let ours = committed.unsettled(survey, |reference| batch.answers.contains_key(reference));
    settle(stores, survey, &ours).await?;
    merged.listed = ours.answers.keys().copied().collect();
    merged.settled.extend(ours.answers.into_keys());
    for reference in erased {
        stores
            .operations
            .delete_blob(&crate::stores::keys::answer(survey, reference))
            .await?;
    }
    Ok(merged)
}

/// Step 0: stores each answer create-only; a reference already stored is replaced in the
/// batch by the stored copy, which is the one that counts.
async fn store_answers(stores: &Answering, batch: &mut SurveyBatch) -> Result<(), StoreError> {
    let answers: Vec<&Answer> = batch
        .answers
        .values()
        .filter(|answer| !batch.stored.contains(&answer.reference))
        .collect();
    if answers.is_empty() {
        return Ok(());
    }
    let kept: Vec<Answer> = stores
        .answers
        .store_many(&answers)
        .await?
        .into_iter()
        .flatten()
        .collect();
    for answer in kept {
        batch.answers.insert(answer.reference, answer);
    }
    Ok(())
}

/// Step 4: writes list entries and index bits for `entries`, once the commit that counts them
/// is durable.
async fn settle(
    stores: &Stores,
    survey: &SurveyRef,
    entries: &Unsettled,
) -> Result<(), StoreError> {
    if entries.is_empty() {
        return Ok(());
    }
    // A bit on disk without the commit that counts its answer would make the answer look
    // counted forever; so the commit (ours, or a dead worker's) reaches the disk first.
    stores.operations.flush().await?;
    crash::reached(crash::Point::AfterFlush);
    let by_position = entries.answers.iter().map(|(&r, &p)| (p, r)).collect();
    let list = crate::stores::keys::answer_list(survey);
    let segments = entries
        .segments
        .iter()
        .map(|(list, entries)| stores.answering.lists.set(list, entries));
    // Different blobs, no order between them: written side by side.
    let (listed, marked, segments) = tokio::join!(
        stores.answering.lists.set(&list, &by_position),
        stores
            .answering
            .counted
            .mark(survey, entries.answers.keys().copied()),
        futures_util::future::try_join_all(segments),
    );
    listed.and(marked).and(segments.map(drop))?;
    crash::reached(crash::Point::AfterSettle);
    Ok(())
}

/// Drops settled answers from the survey's `recent` map with a write of its own.
pub async fn tidy(
    stores: &Answering,
    survey: &SurveyRef,
    settled: &BTreeSet<Reference>,
) -> Result<(), StoreError> {
    if settled.is_empty() {
        return Ok(());
    }
    loop {
        let mut read = stores.summaries.read(survey).await?;
        if read
            .doc
            .unsettled(survey, |r| settled.contains(r))
            .is_empty()
        {
            return Ok(());
        }
        read.doc.drop_settled(settled);
        if stores
            .summaries
            .write(survey, &read.doc, read.etag.as_ref())
            .await?
        {
            return Ok(());
        }
    }
}

/// Settles `entries` and drops them from `recent` at once: the reconcile pass does this for
/// whatever a dead worker left in `recent`.
pub async fn complete(
    stores: &Stores,
    survey: &SurveyRef,
    entries: &Unsettled,
) -> Result<(), StoreError> {
    settle(stores, survey, entries).await?;
    // Dropped from `recent` only once their entries and bits are surely on disk.
    stores.operations.flush().await?;
    let settled = entries
        .answers
        .keys()
        .copied()
        .chain(
            entries
                .segments
                .iter()
                .flat_map(|(_, e)| e.values().copied()),
        )
        .collect();
    tidy(&stores.answering, survey, &settled).await
}
