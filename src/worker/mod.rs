//! The worker: turns queued answers into stored answers, answer-list entries and summaries.
//!
//! It is a loop around one public step function. Each step reads up to `batches_per_step`
//! batches of up to 32 messages from one queue (premium before standard, except every fourth
//! step, so standard answers keep moving under a premium backlog), groups the answers by
//! survey, merges each group exactly once (see `merge`), and deletes only the messages whose
//! answers were merged. A message that keeps failing moves to the poison queue once it has
//! been received more than `max_dequeue` times. Visibility is extended when a step runs long.
//! A queue that filled a step's batches is asked for all of them at once the next step.

pub mod crash;
mod deletions;
pub mod deliveries;
pub mod digests;
pub mod mail;
pub mod mailer;
mod merge;
mod rebuild;
pub mod reconcile;
pub mod segments;

pub use deletions::{Deleted, Recounted, delete, recount};
pub use merge::{Merged, SurveyBatch, complete, merge, tidy};
pub use rebuild::{Rebuilt, rebuild};

use std::collections::{BTreeMap, BTreeSet};
use std::future::Future;
use std::time::{Duration, Instant};

use futures_util::FutureExt;
use futures_util::future::join_all;
use time::OffsetDateTime;

use crate::domain::segment::segment_questions;
use crate::domain::{Answer, Reference, SurveyRef};
use crate::export::Target;
use crate::storage::{MAX_MESSAGES_PER_GET, QueueName};
use crate::stores::deletions::DeletionMessage;
use crate::stores::exports::ExportStatus;
use crate::stores::{AnswerMessage, Received, StoreError, Stores};
use crate::telemetry::error_chain;
use crate::telemetry::metrics::ExportState;

/// How a worker runs.
#[derive(Clone, Debug)]
pub struct WorkerSettings {
    /// How long received messages stay hidden from other workers.
    pub visibility: Duration,
    /// Receives after which a failing message goes to the poison queue.
    pub max_dequeue: u32,
    /// Batches of 32 read per step (more answers per summary commit).
    pub batches_per_step: usize,
    /// How long an idle or paused worker waits before looking again.
    pub idle_wait: Duration,
    /// How often the worker tries to run the reconcile pass (one instance at a time).
    pub reconcile_every: Duration,
    /// The PostgreSQL database exports are written to.
    pub export_database_url: Option<String>,
    /// Hosts a tenant's own export database may be on.
    pub export_hosts: crate::outbound::AllowedHosts,
    /// How webhooks are delivered (by a task of their own beside the worker loop).
    pub deliveries: deliveries::DeliverySettings,
    /// How email is sent.
    pub mailer: mailer::MailerSettings,
}

/// Seconds a received message stays hidden from other workers, by default.
pub const DEFAULT_VISIBILITY_SECS: u64 = 60;
/// Receives after which a failing message moves to the poison queue, by default.
pub const DEFAULT_MAX_DEQUEUE: u32 = 5;
/// Batches of messages read per step, by default.
pub const DEFAULT_BATCHES_PER_STEP: usize = 8;
/// Seconds between attempts to run the reconcile pass, by default.
pub const DEFAULT_RECONCILE_EVERY_SECS: u64 = 600;

impl Default for WorkerSettings {
    fn default() -> Self {
        Self {
            visibility: Duration::from_secs(DEFAULT_VISIBILITY_SECS),
            max_dequeue: DEFAULT_MAX_DEQUEUE,
            batches_per_step: DEFAULT_BATCHES_PER_STEP,
            idle_wait: Duration::from_millis(250),
            reconcile_every: Duration::from_secs(DEFAULT_RECONCILE_EVERY_SECS),
            export_database_url: None,
            export_hosts: crate::outbound::AllowedHosts::default(),
            deliveries: deliveries::DeliverySettings::default(),
            mailer: mailer::MailerSettings::default(),
        }
    }
}

/// How long a deletion waiting for a segment build stays hidden before it is tried again.
const SEGMENT_BUILD_WAIT: Duration = Duration::from_secs(2);

/// What one step did.
#[derive(Debug)]
pub enum StepOutcome {
    /// A batch was processed.
    BatchDone {
        /// The queue it came from.
        queue: QueueName,
        /// Messages received.
        received: usize,
        /// Answers counted for the first time, with when each was submitted.
        counted: Vec<(Reference, OffsetDateTime)>,
        /// Answers that had been counted already (redeliveries, repeated posts).
        duplicates: usize,
        /// Messages moved to the poison queue.
        poisoned: usize,
        /// Messages left for redelivery because their survey's merge failed.
        failed: usize,
        /// Summary commits made.
        commits: usize,
        /// Summary commits that lost an ETag race to another worker and were made again.
        conflicts: usize,
    },
    /// A deletion or recount message was handled.
    DeletionDone {
        /// The survey it was about.
        survey: SurveyRef,
    },
    /// An export job was run (to its end, or to a failure recorded on the job).
    ExportDone {
        /// The job's id.
        id: String,
    },
    /// Every queue was empty.
    QueuesEmpty,
    /// The pause flag is set; nothing was received.
    Paused,
}

/// One worker instance.
pub struct Worker {
    stores: Stores,
    settings: WorkerSettings,
    steps: u64,
    /// Per survey, answers this worker settled that are still in the summary's `recent` map:
    /// the survey's next commit drops them (see `merge`).
    settled: BTreeMap<SurveyRef, BTreeSet<Reference>>,
    /// Queues whose last receive filled every batch of a step.
    backlogged: BTreeSet<QueueName>,
    /// Whether the last step found the pause flag set.
    paused: bool,
}

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
struct Work {
    received: Received,
    answer: Answer,
    incoming: bool,
}

impl Worker {
    /// A worker over the stores.
    pub fn new(stores: Stores, settings: WorkerSettings) -> Self {
        Self {
            stores,
            settings,
            steps: 0,
            settled: BTreeMap::new(),
            backlogged: BTreeSet::new(),
            paused: false,
        }
    }

    /// Processes one batch from the first non-empty queue, if any.
    pub async fn step(&mut self) -> Result<StepOutcome, StoreError> {
        let paused = self.stores.control.paused().await?;
        if paused != self.paused {
            self.paused = paused;
            match paused {
                true => tracing::info!("workers are paused: this one takes no messages"),
                false => tracing::info!("workers are resumed"),
            }
        }
        if paused {
            self.tidy().await?;
            return Ok(StepOutcome::Paused);
        }
        self.steps += 1;
        let (premium, standard) = self.stores.answer_queues.work_queues();
        let (first, second) = if self.steps.is_multiple_of(4) {
            (standard, premium)
        } else {
            (premium, standard)
        };
        // Each step starts at the next shard, so every shard of a class is read in turn.
        let order: Vec<QueueName> = rotated(first, self.steps)
            .chain(rotated(second, self.steps))
            .cloned()
            .collect();
        for queue in order {
            let received = self.receive(&queue).await?;
            if !received.is_empty() {
                return self.process(queue, received).await;
            }
        }
        self.tidy().await?;
        if let Some(done) = self.deletion().await? {
            return Ok(done);
        }
        self.export().await
    }

    /// Queues the side work of newly listed answers: a webhook delivery to each enabled
    /// endpoint of their tenant (endpoint lists are cached for a few seconds: most tenants
    /// have none), email notices, and segment builds. Returns the answers whose side work
    /// failed: only their messages are held back for redelivery (where they are listed and
    /// queued again, with the same ids), so one answer's failure never holds up another's.
    async fn side_work(
        &self,
        finished: &[Work],
        listed: &[Answer],
        to_build: &[SurveyRef],
    ) -> BTreeSet<(SurveyRef, Reference)> {
        let mut held = BTreeSet::new();
        for answer in listed {
            if let Err(error) = self.queue_deliveries(answer).await {
                let (survey, reference) = (answer.survey_ref(), answer.reference);
                tracing::error!(%survey, %reference, error = %error_chain(&error), "queueing webhook deliveries failed; the answer will be redelivered");
                held.insert((survey, reference));
            }
        }
        let mut surveys: BTreeSet<SurveyRef> = listed.iter().map(Answer::survey_ref).collect();
        surveys.extend(to_build.iter().cloned());
        for survey in surveys {
            let answers: Vec<Answer> = listed
                .iter()
                .filter(|answer| answer.survey_ref() == survey)
                .cloned()
                .collect();
            let outcome = async {
                mail::queue_notices(&self.stores, &self.settings.mailer, &answers).await?;
                if to_build.contains(&survey) {
                    self.stores.segments.request(&survey).await?;
                }
                Ok::<_, StoreError>(())
            };
            if let Err(error) = outcome.await {
                tracing::error!(%survey, error = %error_chain(&error), "queueing notices or a segment build failed; the survey's answers will be redelivered");
                held.extend(
                    finished
                        .iter()
                        .filter(|w| w.answer.survey_ref() == survey)
                        .map(|w| (survey.clone(), w.answer.reference)),
                );
            }
        }
        held
    }

    /// Queues a webhook delivery of one answer to each enabled endpoint of its tenant.
    async fn queue_deliveries(&self, answer: &Answer) -> Result<(), StoreError> {
        let webhooks = &self.stores.webhooks;
        let endpoints = webhooks.cached(&answer.tenant).await?;
        for endpoint in endpoints.iter().filter(|e| e.disabled.is_none()) {
            let delivery = crate::stores::webhooks::DeliveryMessage::event(
                &answer.tenant,
                &endpoint.id,
                format!("msg_{}_{}", answer.reference, endpoint.id),
                "response.counted",
                answer,
            );
            webhooks.enqueue(&delivery).await?;
        }
        Ok(())
    }

    /// Handles the next deletion or recount, if any: after answers, before exports (an
    /// export should not carry responses already asked to be deleted).
    async fn deletion(&self) -> Result<Option<StepOutcome>, StoreError> {
        let deletions = &self.stores.deletions;
        let queue = deletions.queue();
        let Some((mut message, content)) = queue.receive(self.settings.visibility).await? else {
            return Ok(None);
        };
        let request: DeletionMessage = match content {
            Ok(request) => request,
            Err(reason) => {
                tracing::error!(id = %message.id, %reason, "dropping an unreadable deletion message");
                queue.finish(&message).await?;
                return Ok(Some(StepOutcome::QueuesEmpty));
            }
        };
        let survey = request.survey();
        match self
            .stores
            .surveys
            .get(&survey.tenant, &survey.slug)
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
                let recounted = recount(&self.stores, &survey).await?;
                tracing::info!(%survey, answers = recounted.answers, "recounted a summary after deletions");
            }
        }
        queue.finish(&message).await?;
        Ok(Some(StepOutcome::DeletionDone { survey }))
    }

    /// Drops every answer this worker settled from its summary's `recent` map, for surveys
    /// whose next commit is not coming soon.
    async fn tidy(&mut self) -> Result<(), StoreError> {
        self.tidy_except(&BTreeSet::new()).await
    }

    /// As `tidy`, except for the surveys in `keep`.
    async fn tidy_except(&mut self, keep: &BTreeSet<SurveyRef>) -> Result<(), StoreError> {
        let surveys: Vec<SurveyRef> = self
            .settled
            .keys()
            .filter(|survey| !keep.contains(*survey))
            .cloned()
            .collect();
        for survey in surveys {
            if let Some(settled) = self.settled.remove(&survey)
                && let Err(error) = tidy(&self.stores, &survey, &settled).await
            {
                // One survey's trouble is that survey's alone: its settled answers stay in
                // `recent`, counted, until its next commit or the reconcile pass drops them.
                tracing::error!(%survey, error = %error_chain(&error), "tidying a summary failed");
            }
        }
        Ok(())
    }

    /// Runs the next export request, if any: answers come first, exports when they are done.
    async fn export(&self) -> Result<StepOutcome, StoreError> {
        let visibility = self.settings.visibility;
        let Some((mut held, request)) = self.stores.exports.receive(visibility).await? else {
            return Ok(StepOutcome::QueuesEmpty);
        };
        let job = match request {
            Ok(request) => {
                self.stores
                    .exports
                    .get(&request.tenant, &request.id)
                    .await?
            }
            Err(_) => None,
        };
        let Some(mut job) = job else {
            tracing::warn!(id = %held.message.id, "dropping an export request without a job");
            self.stores.exports.finish(&held.message).await?;
            return Ok(StepOutcome::QueuesEmpty);
        };
        let id = job.id.clone();
        if matches!(job.status, ExportStatus::Done | ExportStatus::Failed) {
            self.stores.exports.finish(&held.message).await?;
            return Ok(StepOutcome::ExportDone { id });
        }
        tracing::info!(tenant = %job.tenant, survey = %job.survey, %id, "exporting");
        // The tenant's own database when it set one, else the server's.
        let own = self
            .stores
            .tenant_settings
            .get(&job.tenant)
            .await?
            .export_database_url;
        let target = match (&own, &self.settings.export_database_url) {
            (Some(url), _) => Target::Tenant(url, &self.settings.export_hosts),
            (None, Some(url)) => Target::Server(url),
            (None, None) => Target::Nowhere,
        };
        match crate::export::run(&self.stores, &mut job, target, &mut held).await {
            Ok(()) => crate::telemetry::metrics::export(match job.status {
                ExportStatus::Failed => ExportState::Failed,
                _ => ExportState::Done,
            }),
            // Our own storage hiccuped: leave the request to come back and resume.
            Err(error) if error.is_transient() => {
                crate::telemetry::metrics::export(ExportState::Interrupted);
                tracing::error!(%id, error = %error_chain(&error), "export interrupted; it will resume");
                return Ok(StepOutcome::ExportDone { id });
            }
            Err(error) => {
                crate::telemetry::metrics::export(ExportState::Failed);
                tracing::error!(%id, error = %error_chain(&error), "export failed");
                job.status = ExportStatus::Failed;
                job.error = Some(error.to_string());
                job.finished = Some(time::OffsetDateTime::now_utc());
                self.stores.exports.save(&job).await?;
            }
        }
        self.stores.exports.finish(&held.message).await?;
        Ok(StepOutcome::ExportDone { id })
    }

    async fn receive(&mut self, queue: &QueueName) -> Result<Vec<Received>, StoreError> {
        let queues = &self.stores.answer_queues;
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

    async fn process(
        &mut self,
        queue: QueueName,
        received: Vec<Received>,
    ) -> Result<StepOutcome, StoreError> {
        let started = Instant::now();
        let count = received.len();
        // Redeliveries are normal after a crash or a slow step; many of them are worth a look.
        let redelivered = received
            .iter()
            .filter(|r| r.message.dequeue_count > 1)
            .count();
        if redelivered > 0 {
            tracing::info!(%queue, redelivered, "received messages that were delivered before");
        }
        let Resolved { work, poison, gone } = self.resolve(received).await;
        let poisoned = poison.len();
        for (message, reason) in poison {
            tracing::warn!(%queue, id = %message.message.id, dequeued = message.message.dequeue_count, %reason, "moving a message to the poison queue");
            self.stores.answer_queues.to_poison(&message).await?;
        }
        let mut groups: BTreeMap<SurveyRef, Vec<Work>> = BTreeMap::new();
        for item in work {
            groups
                .entry(item.answer.survey_ref())
                .or_default()
                .push(item);
        }
        // Answers to a survey deleted since they were given have nowhere to go (a survey made
        // since with the same slug has another identity): they are dropped, counted nowhere.
        let mut orphans = Vec::new();
        let mut failed = 0;
        let mut segments: BTreeMap<SurveyRef, Vec<crate::domain::QuestionId>> = BTreeMap::new();
        for survey in groups.keys().cloned().collect::<Vec<_>>() {
            match self.stores.surveys.get(&survey.tenant, &survey.slug).await {
                Ok(Some(current)) if current.id == survey.id => {
                    segments.insert(survey, segment_questions(&current.questions));
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
            self.stores.answer_queues.delete_many(&gone).await?;
        }
        if started.elapsed() > self.settings.visibility / 2 {
            for items in groups.values_mut() {
                self.extend(items).await?;
            }
        }
        // Surveys are merged side by side, so their storage calls share rounds.
        let stores = &self.stores;
        let merged_surveys: BTreeSet<SurveyRef> = groups.keys().cloned().collect();
        let settled_before = &self.settled;
        let merges = groups.into_iter().map(|(survey, items)| {
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
                };
                // Two messages with one reference in this batch are one answer.
                let repeated = items.len() - batch.answers.len();
                let merged = merge(stores, batch).await;
                (survey, items, repeated, merged)
            }
        });
        let (mut counted, mut duplicates, mut commits, mut conflicts) = (Vec::new(), 0, 0, 0);
        let mut finished = Vec::new();
        let mut settled = Vec::new();
        let mut listed: Vec<Answer> = Vec::new();
        let mut to_build = Vec::new();
        let merging = Instant::now();
        let merges = join_all(merges).await;
        let merge_time = merging.elapsed();
        for (survey, items, repeated, merged) in merges {
            match merged {
                Ok(merged) => {
                    listed.extend(
                        items
                            .iter()
                            .filter(|w| merged.listed.contains(&w.answer.reference))
                            .map(|w| w.answer.clone()),
                    );
                    if merged.segments_to_build {
                        to_build.push(survey.clone());
                    }
                    counted.extend(merged.counted);
                    duplicates += merged.duplicates + repeated;
                    commits += merged.commits;
                    conflicts += merged.conflicts;
                    finished.extend(items);
                    settled.push((survey, merged.settled));
                }
                Err(error) => {
                    failed += items.len();
                    tracing::error!(%survey, error = %error_chain(&error), "merging answers failed; they will be redelivered");
                }
            }
        }
        // Before the messages go: a worker that dies first leaves them to be redelivered, and
        // their answers, still in `recent`, are listed again and queued again (same ids).
        // Answers whose side work failed are held back the same way: not finished, and not
        // settled, so they stay in `recent` to be listed again.
        let held = self.side_work(&finished, &listed, &to_build).await;
        if !held.is_empty() {
            finished.retain(|w| !held.contains(&(w.answer.survey_ref(), w.answer.reference)));
            for (survey, references) in &mut settled {
                references.retain(|reference| !held.contains(&(survey.clone(), *reference)));
            }
            failed += held.len();
        }
        self.finish(&finished).await?;
        // Deleting the messages made everything before it durable: these answers may now
        // leave `recent` (had the deletes failed, they would stay there, and be settled again
        // when their messages came back).
        self.settled.extend(settled);
        // Under a backlog the surveys just merged are likely merged again next step, and that
        // commit drops what this one settled; everything else is tidied now.
        let keep = if self.backlogged.contains(&queue) {
            merged_surveys
        } else {
            BTreeSet::new()
        };
        self.tidy_except(&keep).await?;
        let submitted: Vec<OffsetDateTime> = counted.iter().map(|(_, at)| *at).collect();
        crate::telemetry::metrics::batch(&crate::telemetry::metrics::BatchFigures {
            plan: self.plan_of(&queue),
            counted: &submitted,
            duplicates,
            poisoned,
            conflicts,
            merge: merge_time,
        });
        tracing::debug!(%queue, received = count, counted = counted.len(), "batch done");
        Ok(StepOutcome::BatchDone {
            queue,
            received: count,
            counted,
            duplicates,
            poisoned,
            failed,
            commits,
            conflicts,
        })
    }

    /// The plan whose answers a queue carries.
    fn plan_of(&self, queue: &QueueName) -> crate::telemetry::metrics::Plan {
        let (premium, _) = self.stores.answer_queues.work_queues();
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
                Ok(Some((answer, incoming))) if !too_often => work.push(Work {
                    received,
                    answer,
                    incoming,
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

    /// A message's answer and whether it came through an incoming blob; `None` for the pointer
    /// of an answer whose survey was deleted (with the blob).
    async fn answer_of(&self, received: &Received) -> Result<Option<(Answer, bool)>, String> {
        match &received.content {
            Err(reason) => Err(format!("not an answer message: {reason}")),
            Ok(AnswerMessage::Answer { answer }) => Ok(Some((answer.clone(), false))),
            Ok(pointer @ AnswerMessage::Pointer { .. }) => {
                let (survey, reference) = pointer.addressee();
                let answers = &self.stores.answers;
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
                if let Some(answer) = found {
                    return Ok(Some((answer, true)));
                }
                match self.stores.surveys.get(&survey.tenant, &survey.slug).await {
                    Ok(Some(current)) if current.id == survey.id => Err(format!(
                        "the oversized answer {reference} of {survey} is missing"
                    )),
                    Ok(_) => Ok(None),
                    Err(error) => Err(error.to_string()),
                }
            }
        }
    }

    async fn extend(&self, items: &mut [Work]) -> Result<(), StoreError> {
        for item in items.iter_mut() {
            self.stores
                .answer_queues
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
        self.stores.answer_queues.delete_many(&received).await
    }

    /// Steps until `shutdown` resolves, waiting a little when there is nothing to do. A step in
    /// progress is always finished, so no batch is abandoned half-way by a stop request.
    pub async fn run(mut self, shutdown: impl Future<Output = ()>) {
        tokio::pin!(shutdown);
        let (stop_deliveries, stop) = tokio::sync::watch::channel(false);
        let deliverer = tokio::spawn(deliveries::run(
            self.stores.clone(),
            self.settings.deliveries.clone(),
            stop.clone(),
        ));
        let mailer = tokio::spawn(mail::run(
            self.stores.clone(),
            self.settings.mailer.clone(),
            stop.clone(),
        ));
        let builder = tokio::spawn(segments::run(
            self.stores.clone(),
            self.settings.visibility,
            stop,
        ));
        let mut last_reconcile = Instant::now();
        let mut totals = Totals::default();
        loop {
            let wait = match self.step().await {
                Ok(StepOutcome::BatchDone {
                    counted,
                    duplicates,
                    commits,
                    conflicts,
                    ..
                }) => {
                    totals.counted += counted.len() as u64;
                    totals.duplicates += duplicates as u64;
                    totals.commits += commits as u64;
                    totals.conflicts += conflicts as u64;
                    Duration::ZERO
                }
                Ok(StepOutcome::ExportDone { .. } | StepOutcome::DeletionDone { .. }) => {
                    Duration::ZERO
                }
                Ok(StepOutcome::QueuesEmpty | StepOutcome::Paused) => self.settings.idle_wait,
                Err(error) => {
                    tracing::error!(error = %error_chain(&error), "a worker step failed");
                    Duration::from_secs(1)
                }
            };
            if last_reconcile.elapsed() >= self.settings.reconcile_every {
                last_reconcile = Instant::now();
                if let Err(error) = reconcile::run_if_free(&self.stores).await {
                    tracing::error!(error = %error_chain(&error), "the reconcile pass failed");
                }
            }
            if wait.is_zero() {
                // Straight on, unless a stop was asked for: even a zero sleep would wait for the
                // timer's next millisecond tick, a third of a step's time.
                if (&mut shutdown).now_or_never().is_some() {
                    break;
                }
                continue;
            }
            tokio::select! {
                biased;
                () = &mut shutdown => break,
                () = tokio::time::sleep(wait) => {}
            }
        }
        if let Err(error) = self.tidy().await {
            tracing::error!(error = %error_chain(&error), "tidying summaries on the way out failed");
        }
        // Deliveries in flight finish (at most their timeout); the rest stay queued. A segment
        // build stops after its current chunk and resumes from its message later.
        let _ = stop_deliveries.send(true);
        let _ = deliverer.await;
        let _ = mailer.await;
        let _ = builder.await;
        // What the worker did, for operators and for `canvass bench drain` (which reads it).
        tracing::info!(
            counted = totals.counted,
            duplicates = totals.duplicates,
            commits = totals.commits,
            conflicts = totals.conflicts,
            "worker stopped"
        );
    }
}

/// What a worker did over its life.
#[derive(Debug, Default)]
struct Totals {
    counted: u64,
    duplicates: u64,
    commits: u64,
    conflicts: u64,
}

/// The shards starting at `step mod len`, wrapping around.
fn rotated(shards: &[QueueName], step: u64) -> impl Iterator<Item = &QueueName> {
    // At most 16 shards: the remainder fits a usize.
    let start = (step % shards.len().max(1) as u64) as usize;
    shards[start..].iter().chain(&shards[..start])
}
