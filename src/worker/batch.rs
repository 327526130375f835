//! A batch of answer messages: received from one queue, resolved to answers (or the poison
//! queue), merged survey by survey with the exactly-once protocol (`merge`), its side work
//! queued, its messages deleted and its settled answers handed to the next commit.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Instant;

use futures_util::future::join_all;
use time::OffsetDateTime;

use super::{StepOutcome, SurveyBatch, Worker, merge};
use crate::crash;
use crate::domain::segment::segment_keys;
use crate::domain::{Answer, Reference, SurveyRef};
use crate::storage::{MAX_MESSAGES_PER_GET, QueueName};
use crate::stores::{AnswerMessage, Received, StoreError};
use crate::telemetry::error_chain;

/// Received messages sorted by what becomes of them.
struct Resolved {
    /// Answers to merge.
    work: Vec<Work>,
    /// Messages for the poison queue, with why.
    poison: Vec<(Received, String)>,
    /// Pointers to answers deleted with their survey.
    gone: Vec<Received>,
}

/// A received message with the answer it carries.
pub(super) struct Work {
    pub(super) received: Received,
    pub(super) answer: Answer,
    pub(super) incoming: bool,
    /// Read from its stored copy (moved here from another region): not stored again.
    pub(super) stored: bool,
}

/// Where a message's answer was read from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Source {
    /// The message itself.
    Message,
    /// An incoming blob (an oversized answer).
    Incoming,
    /// Its stored copy (an answer moved here from another region).
    Stored,
}

/// Each survey's segment questions, as its current definition names them.
type SegmentsBySurvey = BTreeMap<SurveyRef, Vec<crate::domain::segment::SegmentKey>>;

/// What merging a batch's surveys made.
#[derive(Default)]
struct Merges {
    /// The surveys merged.
    surveys: BTreeSet<SurveyRef>,
    /// Answers counted for the first time, with when each was submitted.
    counted: Vec<(Reference, OffsetDateTime)>,
    duplicates: usize,
    commits: usize,
    conflicts: usize,
    /// Answers left for redelivery.
    failed: usize,
    /// Work whose messages may be deleted.
    finished: Vec<Work>,
    /// Per survey, the answers whose entries this batch wrote.
    settled: Vec<(SurveyRef, BTreeSet<Reference>)>,
    /// Answers listed now: their side work is queued.
    listed: Vec<Answer>,
    /// Surveys whose new segments need a build.
    to_build: Vec<SurveyRef>,
    /// Time spent merging.
    took: std::time::Duration,
}

impl Merges {
    /// Holds back the answers whose side work failed: not finished and not settled, so they
    /// stay in `recent` and are listed and queued again when their messages come back.
    fn hold_back(&mut self, held: &BTreeSet<(SurveyRef, Reference)>) {
        if held.is_empty() {
            return;
        }
        self.finished
            .retain(|w| !held.contains(&(w.answer.survey_ref(), w.answer.reference)));
        for (survey, references) in &mut self.settled {
            references.retain(|reference| !held.contains(&(survey.clone(), *reference)));
        }
        self.failed += held.len();
    }
}

/// Since when an answer has waited to be counted, for the freshness histogram: since it was
/// given, or since its message was queued if that is later. The demo's sample answers are
/// dated over past weeks but queued at the first start; measured from their dates they would
/// all fall past the histogram's last bucket.
fn waiting_since(
    submitted: OffsetDateTime,
    queued: Option<std::time::SystemTime>,
) -> OffsetDateTime {
    queued.map_or(submitted, |queued| {
        submitted.max(OffsetDateTime::from(queued))
    })
}

/// Redeliveries are normal after a crash or a slow step; many of them are worth a look.
fn log_redeliveries(queue: &QueueName, received: &[Received]) {
    let redelivered = received
        .iter()
        .filter(|r| r.message.dequeue_count > 1)
        .count();
    if redelivered > 0 {
        tracing::info!(%queue, redelivered, "received messages that were delivered before");
    }
}

impl Worker {
    pub(super) async fn receive(&mut self, queue: &QueueName) -> Result<Vec<Received>, StoreError> {
        let queues = &self.stores.answering.queues;
        let visibility = self.settings.visibility;
        let batches = self.settings.batches_per_step.max(1);
        // A queue that filled the last step's batches most likely fills them again: ask for
        // them all at once. Otherwise one batch first, and the rest only if it comes back full.
        let first = if self.backlogged.contains(queue) {
            batches
        } else {
            1
        };
        let mut all = Vec::new();
        for batch in
            join_all((0..first).map(|_| queues.receive(queue, MAX_MESSAGES_PER_GET, visibility)))
                .await
        {
            all.extend(batch?);
        }
        if first == 1 && all.len() == MAX_MESSAGES_PER_GET {
            let more =
                (1..batches).map(|_| queues.receive(queue, MAX_MESSAGES_PER_GET, visibility));
            for batch in join_all(more).await {
                all.extend(batch?);
            }
        }
        if all.len() == batches * MAX_MESSAGES_PER_GET {
            self.backlogged.insert(queue.clone());
        } else {
            self.backlogged.remove(queue);
        }
        Ok(all)
    }

    /// One batch, as a list of steps: resolve the messages, group them by survey, merge each
    /// survey exactly once, queue the side work, delete the messages, hand on what is settled,
    /// and record the figures.
    pub(super) async fn process(
        &mut self,
        queue: QueueName,
        received: Vec<Received>,
    ) -> Result<StepOutcome, StoreError> {
        let started = Instant::now();
        let count = received.len();
        log_redeliveries(&queue, &received);
        let Resolved { work, poison, gone } = self.resolve(received).await;
        let poisoned = poison.len();
        for (message, reason) in poison {
            tracing::warn!(%queue, id = %message.message.id, dequeued = message.message.dequeue_count, %reason, "moving a message to the poison queue");
            self.stores.answering.queues.to_poison(&message).await?;
        }
        let (mut groups, segments, unreadable) = self.group(work, gone).await?;
        if started.elapsed() > self.settings.visibility / 2 {
            for items in groups.values_mut() {
                self.extend(items).await?;
            }
        }
        let mut merges = self.merge_all(groups, segments).await;
        merges.failed += unreadable;
        // Before the messages go: a worker that dies first leaves them to be redelivered, and
        // their answers, still in `recent`, are listed again and queued again (same ids).
        let held = self
            .side_work(&merges.finished, &merges.listed, &merges.to_build)
            .await;
        merges.hold_back(&held);
        self.finish(&merges.finished).await?;
        // Deleting the messages made everything before it durable: these answers may now
        // leave `recent` (had the deletes failed, they would stay there, and be settled again
        // when their messages came back).
        self.settled.extend(std::mem::take(&mut merges.settled));
        // Under a backlog the surveys just merged are likely merged again next step, and that
        // commit drops what this one settled; everything else is tidied now.
        let keep = match self.backlogged.contains(&queue) {
            true => std::mem::take(&mut merges.surveys),
            false => BTreeSet::new(),
        };
        self.tidy_except(&keep).await?;
        let queued: BTreeMap<Reference, std::time::SystemTime> = merges
            .finished
            .iter()
            .map(|w| (w.answer.reference, w.received.message.inserted_at))
            .collect();
        let submitted: Vec<OffsetDateTime> = merges
            .counted
            .iter()
            .map(|(reference, at)| waiting_since(*at, queued.get(reference).copied()))
            .collect();
        crate::telemetry::metrics::batch(&crate::telemetry::metrics::BatchFigures {
            plan: self.plan_of(&queue),
            counted: &submitted,
            duplicates: merges.duplicates,
            poisoned,
            conflicts: merges.conflicts,
            merge: merges.took,
        });
        tracing::debug!(%queue, received = count, counted = merges.counted.len(), "batch done");
        Ok(StepOutcome::BatchDone {
            queue,
            received: count,
            counted: merges.counted,
            duplicates: merges.duplicates,
            poisoned,
            failed: merges.failed,
            commits: merges.commits,
            conflicts: merges.conflicts,
        })
    }

    /// Groups answers by survey with the survey's segment questions. Answers to a survey
    /// deleted since they were given have nowhere to go (a survey made since with the same
    /// slug has another identity): their messages are finished, counted nowhere, as are
    /// pointers to answers deleted with their survey. Returns how many answers were left for
    /// redelivery because their survey could not be read.
    async fn group(
        &self,
        work: Vec<Work>,
        gone: Vec<Received>,
    ) -> Result<(BTreeMap<SurveyRef, Vec<Work>>, SegmentsBySurvey, usize), StoreError> {
        let mut groups: BTreeMap<SurveyRef, Vec<Work>> = BTreeMap::new();
        for item in work {
            groups
                .entry(item.answer.survey_ref())
                .or_default()
                .push(item);
        }
        let mut orphans = Vec::new();
        let mut failed = 0;
        let mut segments = SegmentsBySurvey::new();
        for survey in groups.keys().cloned().collect::<Vec<_>>() {
            match self.stores.counted_here(&survey.tenant, &survey.slug).await {
                Ok(Some(current)) if current.id == survey.id => {
                    segments.insert(survey, segment_keys(&current));
                }
                Ok(_) => {
                    tracing::warn!(%survey, "dropping answers to a survey that no longer exists");
                    orphans.extend(groups.remove(&survey).unwrap_or_default());
                }
                // Left for redelivery (and, if it keeps failing, the poison queue).
                Err(error) => {
                    let items = groups.remove(&survey);
                    failed += items.map_or(0, |items| items.len());
                    tracing::error!(%survey, error = %error_chain(&error), "reading the survey of queued answers failed");
                }
            }
        }
        if !orphans.is_empty() {
            self.finish(&orphans).await?;
        }
        if !gone.is_empty() {
            let gone: Vec<&Received> = gone.iter().collect();
            self.stores.answering.queues.delete_many(&gone).await?;
        }
        Ok((groups, segments, failed))
    }

    /// Merges each survey's answers with the exactly-once protocol, side by side so their
    /// storage calls share rounds.
    async fn merge_all(
        &self,
        groups: BTreeMap<SurveyRef, Vec<Work>>,
        mut segments: SegmentsBySurvey,
    ) -> Merges {
        let stores = &self.stores;
        let mut merges = Merges {
            surveys: groups.keys().cloned().collect(),
            ..Merges::default()
        };
        let settled_before = &self.settled;
        let runs = groups.into_iter().map(|(survey, items)| {
            let settled = settled_before.get(&survey).cloned().unwrap_or_default();
            let segments = segments.remove(&survey).unwrap_or_default();
            async move {
                let batch = SurveyBatch {
                    survey: survey.clone(),
                    answers: items
                        .iter()
                        .map(|w| (w.answer.reference, w.answer.clone()))
                        .collect(),
                    settled,
                    segments,
                    stored: items
                        .iter()
                        .filter(|w| w.stored)
                        .map(|w| w.answer.reference)
                        .collect(),
                };
                // Two messages with one reference in this batch are one answer.
                let repeated = items.len() - batch.answers.len();
                let merged = merge(stores, batch).await;
                (survey, items, repeated, merged)
            }
        });
        let merging = Instant::now();
        let runs = join_all(runs).await;
        merges.took = merging.elapsed();
        for (survey, items, repeated, merged) in runs {
            match merged {
                Ok(merged) => {
                    merges.listed.extend(
                        items
                            .iter()
                            .filter(|w| merged.listed.contains(&w.answer.reference))
                            .map(|w| w.answer.clone()),
                    );
                    if merged.segments_to_build {
                        merges.to_build.push(survey.clone());
                    }
                    merges.counted.extend(merged.counted);
                    merges.duplicates += merged.duplicates + repeated;
                    merges.commits += merged.commits;
                    merges.conflicts += merged.conflicts;
                    merges.finished.extend(items);
                    merges.settled.push((survey, merged.settled));
                }
                Err(error) => {
                    merges.failed += items.len();
                    tracing::error!(%survey, error = %error_chain(&error), "merging answers failed; they will be redelivered");
                }
            }
        }
        merges
    }

    /// The plan whose answers a queue carries.
    fn plan_of(&self, queue: &QueueName) -> crate::telemetry::metrics::Plan {
        let (premium, _) = self.stores.answering.queues.work_queues();
        match premium.contains(queue) {
            true => crate::telemetry::metrics::Plan::premium,
            false => crate::telemetry::metrics::Plan::standard,
        }
    }

    /// Decodes each message into its answer (reading the incoming blob of a pointer); a
    /// message that cannot be read and was received too often is poison, and the pointer of
    /// an oversized answer to a deleted survey is gone with it.
    async fn resolve(&self, received: Vec<Received>) -> Resolved {
        let answers = join_all(received.iter().map(|r| self.answer_of(r))).await;
        let resolved = received.into_iter().zip(answers);
        let (mut work, mut poison, mut gone) = (Vec::new(), Vec::new(), Vec::new());
        for (received, answer) in resolved {
            let too_often = received.message.dequeue_count > self.settings.max_dequeue;
            match answer {
                Ok(None) => gone.push(received),
                Ok(Some((answer, source))) if !too_often => work.push(Work {
                    received,
                    answer,
                    incoming: source == Source::Incoming,
                    stored: source == Source::Stored,
                }),
                Ok(_) => poison.push((received, "received too many times".to_owned())),
                Err(reason) if too_often => poison.push((received, reason)),
                // Leave it: it comes back after its visibility timeout and is tried again.
                Err(reason) => {
                    tracing::warn!(id = %received.message.id, %reason, "cannot read a queued answer yet")
                }
            }
        }
        Resolved { work, poison, gone }
    }

    /// A message's answer and where it was read from; `None` for the pointer of an answer
    /// whose survey was deleted (with the blob).
    async fn answer_of(&self, received: &Received) -> Result<Option<(Answer, Source)>, String> {
        match &received.content {
            Err(reason) => Err(format!("not an answer message: {reason}")),
            Ok(AnswerMessage::Answer { answer }) => Ok(Some(((**answer).clone(), Source::Message))),
            Ok(stored @ AnswerMessage::Stored { .. }) => {
                let (survey, reference) = stored.addressee();
                let found = self
                    .stores
                    .answering
                    .answers
                    .get(&survey, reference)
                    .await
                    .map_err(|e| e.to_string())?;
                match found {
                    Some(answer) => Ok(Some((answer, Source::Stored))),
                    None => self.missing(&survey, reference).await,
                }
            }
            Ok(pointer @ AnswerMessage::Pointer { .. }) => {
                let (survey, reference) = pointer.addressee();
                let answers = &self.stores.answering.answers;
                let found = match answers.incoming(&survey, reference).await {
                    Ok(Some(answer)) => Some(answer),
                    // Already processed: the incoming copy was removed after the answer was
                    // stored, so the stored copy stands in for it.
                    Ok(None) => answers
                        .get(&survey, reference)
                        .await
                        .map_err(|e| e.to_string())?,
                    Err(error) => return Err(error.to_string()),
                };
                match found {
                    Some(answer) => Ok(Some((answer, Source::Incoming))),
                    None => self.missing(&survey, reference).await,
                }
            }
        }
    }

    /// A pointed-to answer that is not there: gone with its deleted survey (`None`), or
    /// missing while the survey stands (an error, retried until it is poison).
    async fn missing(
        &self,
        survey: &SurveyRef,
        reference: Reference,
    ) -> Result<Option<(Answer, Source)>, String> {
        match self.stores.counted_here(&survey.tenant, &survey.slug).await {
            Ok(Some(current)) if current.id == survey.id => Err(format!(
                "the pointed-to answer {reference} of {survey} is missing"
            )),
            Ok(_) => Ok(None),
            Err(error) => Err(error.to_string()),
        }
    }

    async fn extend(&self, items: &mut [Work]) -> Result<(), StoreError> {
        for item in items.iter_mut() {
            self.stores
                .answering
                .queues
                .extend(&mut item.received, self.settings.visibility)
                .await?;
        }
        Ok(())
    }

    /// Removes incoming copies and deletes the messages of merged answers.
    async fn finish(&self, items: &[Work]) -> Result<(), StoreError> {
        if items.is_empty() {
            return Ok(());
        }
        // At most a step's worth, and oversized answers are rare: all at once.
        let incoming = items.iter().filter(|item| item.incoming).map(|item| {
            let (survey, reference) = (item.answer.survey_ref(), item.answer.reference);
            async move {
                self.stores
                    .answering
                    .answers
                    .remove_incoming(&survey, reference)
                    .await
            }
        });
        join_all(incoming)
            .await
            .into_iter()
            .collect::<Result<(), _>>()?;
        crash::reached(crash::Point::BeforeDelete);
        let received: Vec<&Received> = items.iter().map(|item| &item.received).collect();
        self.stores.answering.queues.delete_many(&received).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_answer_waits_from_its_submission_or_from_its_queueing_if_later() {
        let now = OffsetDateTime::now_utc();
        let weeks_ago = now - time::Duration::weeks(3);
        let queued = std::time::SystemTime::from(now - time::Duration::seconds(2));
        // A demo sample: dated weeks ago, queued two seconds ago.
        assert_eq!(
            waiting_since(weeks_ago, Some(queued)),
            OffsetDateTime::from(queued)
        );
        // A respondent's answer: queued a moment after it was given.
        let given = now - time::Duration::seconds(3);
        assert_eq!(
            waiting_since(
                given,
                Some(std::time::SystemTime::from(
                    given + time::Duration::milliseconds(2)
                ))
            ),
            given + time::Duration::milliseconds(2)
        );
        assert_eq!(waiting_since(given, None), given);
    }
}
