//! Deleting counted responses, and recounting what deletion cannot subtract.
//!
//! **Delete.** A deletion is applied by the same kind of commit that counts answers: read the
//! summary and its ETag, subtract the stored answers of the references not yet in `deleted`,
//! add them to `deleted`, and write under If-Match (again from the read on a lost race). The
//! commit is the moment a response is deleted; a redelivered message finds its references in
//! `deleted` and subtracts nothing. Only after the commit is durable are the answers' blobs
//! removed, so a crash in between leaves them for the redelivery to remove.
//!
//! **Recount.** Min and max and the frequent-words sketches cannot be un-merged, so a deletion
//! leaves them counting the deleted answers (`unrecounted` says so) until a recount replaces
//! the statistics with those of the remaining answers: it sums every listed, undeleted answer
//! up to the list's length as read, then reads the summary again; answers counted meanwhile
//! are added (only those), and the result is committed under the ETag of that last read. New
//! deletions meanwhile start it over. Counts stay exact throughout: subtraction keeps them so,
//! and the recount agrees with them. Built segments are recounted alike (segments still being
//! built have no deletions to recount: deletions wait for builds).

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use super::StepOutcome;
use crate::domain::segment::SegmentKey;
use crate::domain::{Reference, SurveyRef, SurveySummary};
use crate::stores::deletions::DeletionMessage;
use crate::stores::{Answering, LIST_CHUNK, StoreError, Stores, SummaryDoc};

/// How long a deletion waiting for a segment build stays hidden before it is tried again.
const SEGMENT_BUILD_WAIT: Duration = Duration::from_secs(2);

/// Answers read per storage call.
const READ: usize = 64;

/// What applying a deletion did.
#[derive(Debug, PartialEq, Eq)]
pub enum Deleted {
    /// These responses were taken out by this commit (none if all were already).
    Applied(usize),
    /// Some of the responses are not counted yet: the deletion waits for them.
    NotCounted(Vec<Reference>),
    /// A segment is being built from earlier answers: the deletion waits for it (it must not
    /// subtract from a segment an answer the build may or may not count).
    SegmentsBuilding,
}

/// Applies the deletion of `references` to the survey, exactly once.
pub async fn delete(
    stores: &Stores,
    survey: &SurveyRef,
    references: &[Reference],
) -> Result<Deleted, StoreError> {
    let asked: BTreeSet<Reference> = references.iter().copied().collect();
    let applied = loop {
        let mut read = stores.answering.summaries.read(survey).await?;
        let todo: Vec<Reference> = asked
            .iter()
            .filter(|r| !read.doc.deleted.contains(r))
            .copied()
            .collect();
        if todo.is_empty() {
            break 0;
        }
        if read.doc.segments_building() {
            return Ok(Deleted::SegmentsBuilding);
        }
        let waiting = stores
            .answering
            .counted
            .uncounted(survey, &read.doc.recent, todo.iter().copied())
            .await?;
        if !waiting.is_empty() {
            return Ok(Deleted::NotCounted(waiting));
        }
        let answers = stores.answering.answers.get_many(survey, &todo).await?;
        for (reference, answer) in todo.iter().zip(&answers) {
            match answer {
                Some(answer) => read.doc.uncount(answer),
                // Counted, yet its blob is gone (a damaged store): only a recount can take it
                // out of the statistics.
                None => {
                    tracing::warn!(%survey, %reference, "a deleted response's answer is missing; the recount will settle its statistics")
                }
            }
            read.doc.deleted.insert(*reference);
        }
        read.doc.unrecounted += todo.len() as u64;
        if stores
            .answering
            .summaries
            .write(survey, &read.doc, read.etag.as_ref())
            .await?
        {
            break todo.len();
        }
    };
    // The answers go only once the commit that deleted them is on disk.
    stores.operations.flush().await?;
    for reference in &asked {
        // Its files first: a crash between leaves an answer whose files are gone, which a
        // redelivered deletion deletes again, never files no answer can name.
        stores
            .answering
            .uploads
            .delete_answer(survey, *reference)
            .await?;
        stores
            .operations
            .delete_blob(&crate::stores::keys::answer(survey, *reference))
            .await?;
    }
    Ok(Deleted::Applied(applied))
}

/// The built segment questions of a summary, with the lists of their segments: a recount
/// that sees them change starts over.
fn built_segments(doc: &SummaryDoc) -> Vec<(SegmentKey, String)> {
    doc.segments
        .iter()
        .filter(|(_, segments)| segments.built)
        .map(|(question, segments)| (question.clone(), segments.lists.clone()))
        .collect()
}

/// What a recount did.
#[derive(Debug, PartialEq, Eq)]
pub struct Recounted {
    /// Answers the recounted statistics hold (0 when nothing needed recounting).
    pub answers: u64,
}

/// Replaces the survey's statistics and days with those of its remaining answers, if
/// deletions left traces in them or the days do not cover every answer (a summary written
/// before days were kept).
pub async fn recount(stores: &Answering, survey: &SurveyRef) -> Result<Recounted, StoreError> {
    // What a recount makes: the statistics and the days, counted afresh.
    let mut counted = SummaryDoc::default();
    let mut segments: BTreeMap<(SegmentKey, String), SurveySummary> = BTreeMap::new();
    let mut through = 0;
    let mut deleted = None;
    let mut recounted_segments = Vec::new();
    loop {
        let mut read = stores.summaries.read(survey).await?;
        if read.doc.unrecounted == 0 && read.doc.days_from == 0 {
            return Ok(Recounted { answers: 0 });
        }
        let built = built_segments(&read.doc);
        if deleted.as_ref() != Some(&read.doc.deleted) || built != recounted_segments {
            // First pass, or new deletions or segments since: start over.
            counted = SummaryDoc::default();
            segments.clear();
            through = 0;
            deleted = Some(read.doc.deleted.clone());
            recounted_segments = built;
        }
        if through < read.doc.list_len {
            while through < read.doc.list_len {
                let end = (through + LIST_CHUNK).min(read.doc.list_len);
                let references = stores
                    .lists
                    .references(&read.doc.list_view(survey), through..end)
                    .await?;
                // Positions as listed (a reference read with its position).
                let placed: Vec<(u64, Reference)> = (through..)
                    .zip(references)
                    .filter(|(_, r)| !read.doc.deleted.contains(r))
                    .collect();
                for part in placed.chunks(READ) {
                    let wanted: Vec<Reference> = part.iter().map(|(_, r)| *r).collect();
                    let answers = stores.answers.get_many(survey, &wanted).await?;
                    for ((position, _), answer) in part.iter().zip(answers) {
                        if let Some(answer) = answer {
                            for (question, _) in &recounted_segments {
                                for option in question.options_in(&answer) {
                                    segments
                                        .entry((question.clone(), option))
                                        .or_default()
                                        .add(&answer);
                                }
                            }
                            counted.count(&answer, *position);
                        }
                    }
                }
                through = end;
                if through % (LIST_CHUNK * 20) == 0 {
                    tracing::info!(%survey, through, of = read.doc.list_len, "recounting a summary after deletions");
                }
            }
            // Read again: answers counted meanwhile are added before committing.
            continue;
        }
        // Subtraction kept the counts exact: a recount that disagrees means a deletion was
        // applied twice or not at all, which must never happen (the recount's figures win).
        let answered = |s: &SurveySummary| -> Vec<(String, u64)> {
            s.questions
                .iter()
                .map(|(id, q)| (id.to_string(), q.answered()))
                .collect()
        };
        let summary = &counted.summary;
        if summary.total != read.doc.summary.total
            || answered(summary) != answered(&read.doc.summary)
        {
            tracing::error!(%survey, recounted = summary.total, subtracted = read.doc.summary.total, "a recount disagrees with the subtracted counts");
        }
        let empty = SurveySummary::default();
        for (question, lists) in &recounted_segments {
            let Some(kept) = read.doc.segments.get_mut(question) else {
                continue;
            };
            for (option, tally) in kept.options.iter_mut().filter(|_| &kept.lists == lists) {
                let recounted = segments
                    .get(&(question.clone(), option.clone()))
                    .unwrap_or(&empty);
                if answered(recounted) != answered(&tally.summary)
                    || recounted.total != tally.summary.total
                {
                    tracing::error!(%survey, %question, %option, recounted = recounted.total, subtracted = tally.summary.total, "a recount disagrees with the subtracted counts");
                }
                tally.summary = recounted.clone();
            }
        }
        read.doc.summary = summary.clone();
        read.doc.days = counted.days.clone();
        read.doc.days_from = 0;
        read.doc.unrecounted = 0;
        if stores
            .summaries
            .write(survey, &read.doc, read.etag.as_ref())
            .await?
        {
            return Ok(Recounted {
                answers: counted.summary.total,
            });
        }
    }
}

impl super::Worker {
    /// Handles the next deletion or recount, if any: after answers, before exports (an
    /// export should not carry responses already asked to be deleted).
    pub(super) async fn deletion(&self) -> Result<Option<StepOutcome>, StoreError> {
        let deletions = &self.stores.operations.deletions;
        let queue = deletions.queue();
        let Some((mut message, content)) = queue.receive(self.settings.visibility).await? else {
            return Ok(None);
        };
        let Some(request) = queue.readable::<DeletionMessage>(&message, content).await? else {
            return Ok(Some(StepOutcome::QueuesEmpty));
        };
        let survey = request.survey();
        match self
            .stores
            .counted_here(&survey.tenant, &survey.slug)
            .await?
        {
            Some(current) if current.id == survey.id => {}
            // Deleted with its survey: nothing left to delete.
            _ => {
                queue.finish(&message).await?;
                return Ok(Some(StepOutcome::DeletionDone { survey }));
            }
        }
        match request {
            DeletionMessage::Delete { references, .. } => {
                match delete(&self.stores, &survey, &references).await? {
                    Deleted::Applied(applied) => {
                        tracing::info!(%survey, applied, "deleted responses");
                        // Also when this delivery applied nothing: the one that did may have
                        // died before asking. A recount with nothing to do costs one read.
                        deletions.recount(&survey).await?;
                    }
                    // Counting is monotonic: the message comes back after its visibility
                    // timeout, by when they are counted.
                    Deleted::NotCounted(waiting) => {
                        tracing::info!(%survey, ?waiting, "a deletion waits for its responses to be counted");
                        return Ok(Some(StepOutcome::DeletionDone { survey }));
                    }
                    // Builds take seconds to minutes: looked at again soon.
                    Deleted::SegmentsBuilding => {
                        tracing::info!(%survey, "a deletion waits for a segment build");
                        queue.extend(&mut message, SEGMENT_BUILD_WAIT).await?;
                        return Ok(Some(StepOutcome::DeletionDone { survey }));
                    }
                }
            }
            DeletionMessage::Recount { .. } => {
                let recounted = recount(&self.stores.answering, &survey).await?;
                tracing::info!(%survey, answers = recounted.answers, "recounted a summary after deletions");
            }
        }
        queue.finish(&message).await?;
        Ok(Some(StepOutcome::DeletionDone { survey }))
    }
}
