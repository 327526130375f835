//! The worker: turns queued answers into stored answers, answer-list entries and summaries.
//!
//! It is a loop around one public step function. Each step reads up to `batches_per_step`
//! batches of up to 32 messages from one queue (premium before standard, except every fourth
//! step, so standard answers keep moving under a premium backlog), groups the answers by
//! survey, merges each group exactly once (see `merge`), and deletes only the messages whose
//! answers were merged. A message that keeps failing moves to the poison queue once it has
//! been received more than `max_dequeue` times. Visibility is extended when a step runs long.
//! A queue that filled a step's batches is asked for all of them at once the next step.

pub mod affinity;
mod batch;
mod deletions;
pub mod deliveries;
pub mod digests;
mod export_job;
mod hosting_sync;
pub mod idle;
pub mod mail;
pub mod mailer;
pub mod mailings;
mod merge;
mod rebuild;
pub mod reconcile;
pub mod segments;
mod side_work;
pub mod sweeps;
mod transfer;

pub use deletions::{Deleted, Recounted, delete, recount};
pub use merge::{Merged, SurveyBatch, complete, merge, tidy};
pub use rebuild::{Rebuilt, rebuild};
pub use transfer::Moved;

use std::collections::{BTreeMap, BTreeSet};
use std::future::Future;
use std::time::{Duration, Instant};

use futures_util::FutureExt;
use time::OffsetDateTime;

use crate::domain::{Reference, SurveyRef};
use crate::storage::QueueName;
use crate::stores::{StoreError, Stores};
use crate::telemetry::error_chain;

/// How a worker runs.
#[derive(Clone, Debug)]
pub struct WorkerSettings {
    /// How long received messages stay hidden from other workers.
    pub visibility: Duration,
    /// Receives after which a failing message goes to the poison queue.
    pub max_dequeue: u32,
    /// Batches of 32 read per step (more answers per summary commit).
    pub batches_per_step: usize,
    /// How long an idle or paused worker's loops wait before looking again: from 250 ms,
    /// doubling up to `CANVASS_IDLE_POLL_MAX_MS` (see `idle`).
    pub idle: idle::Backoff,
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
    /// The classes of answer queues it takes (premium, standard or both).
    pub plans: Plans,
    /// How long its claims on answer shards last without a heartbeat (see `affinity`), or
    /// `None` to take every shard without claims: a lone worker in a test or a benchmark.
    pub shard_lease: Option<Duration>,
}

/// The classes of answer queues a worker takes: both by default, or one, so premium tenants
/// can have workers of their own (`canvass worker --plans premium`) scaled apart from the
/// standard ones.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Plans {
    /// Premium first, then standard.
    #[default]
    Both,
    /// Premium queues only.
    Premium,
    /// Standard queues only.
    Standard,
}

impl Plans {
    /// Whether it takes the premium queues.
    pub fn premium(self) -> bool {
        self != Plans::Standard
    }

    /// Whether it takes the standard queues.
    pub fn standard(self) -> bool {
        self != Plans::Premium
    }
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
            idle: idle::Backoff::default(),
            reconcile_every: Duration::from_secs(DEFAULT_RECONCILE_EVERY_SECS),
            export_database_url: None,
            export_hosts: crate::outbound::AllowedHosts::default(),
            deliveries: deliveries::DeliverySettings::default(),
            mailer: mailer::MailerSettings::default(),
            plans: Plans::Both,
            shard_lease: None,
        }
    }
}

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
    /// A batch of answers given here was moved to (or left waiting for) their home region.
    TransferDone(transfer::Moved),
    /// Hosting regions a push had not reached were brought up to date.
    HostingSynced {
        /// How many.
        regions: usize,
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
    /// Moving answers given here home, with regions.
    mover: transfer::Mover,
    /// The answer shards it holds, when shards are dealt among workers.
    affinity: Option<affinity::Affinity>,
}

impl Worker {
    /// A worker over the stores.
    pub fn new(stores: Stores, settings: WorkerSettings) -> Self {
        let affinity = settings
            .shard_lease
            .map(|lease| affinity::Affinity::new(settings.plans, lease));
        Self {
            affinity,
            stores,
            settings,
            steps: 0,
            settled: BTreeMap::new(),
            backlogged: BTreeSet::new(),
            paused: false,
            mover: transfer::Mover::default(),
        }
    }

    /// The answer shards this worker holds when shards are dealt among workers (none when it
    /// takes every shard without claims).
    pub fn shards_held(&self) -> impl Iterator<Item = &QueueName> {
        self.affinity.iter().flat_map(affinity::Affinity::held)
    }

    /// Processes one batch from the first non-empty queue, if any.
    pub async fn step(&mut self) -> Result<StepOutcome, StoreError> {
        // The heartbeat goes on while paused: it is the roster, not a job.
        if let Some(affinity) = &mut self.affinity {
            affinity
                .keep(
                    &self.stores.operations.roster,
                    &self.stores.answering.queues,
                )
                .await?;
        }
        let paused = self.stores.operations.control.paused().await?;
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
        let (premium, standard) = self.stores.answering.queues.work_queues();
        // A worker of one class takes only that class's queues.
        let plans = self.settings.plans;
        let premium = if plans.premium() { premium } else { &[][..] };
        let standard = if plans.standard() { standard } else { &[][..] };
        let (first, second) = if self.steps.is_multiple_of(4) {
            (standard, premium)
        } else {
            (premium, standard)
        };
        // Each step starts at the next shard, so every shard of a class is read in turn.
        let affinity = self.affinity.as_ref();
        let order: Vec<QueueName> = rotated(first, self.steps)
            .chain(rotated(second, self.steps))
            .filter(|queue| affinity.is_none_or(|held| held.takes(queue)))
            .cloned()
            .collect();
        for queue in order {
            let received = self.receive(&queue).await?;
            if !received.is_empty() {
                return self.process(queue, received).await;
            }
        }
        self.tidy().await?;
        let (visibility, max_dequeue) = (self.settings.visibility, self.settings.max_dequeue);
        match self.mover.step(&self.stores, visibility, max_dequeue).await {
            Ok(Some(moved)) if moved.moved + moved.poisoned > 0 => {
                return Ok(StepOutcome::TransferDone(moved));
            }
            Ok(_) => {}
            // Moving answers home is this region's side job: its trouble never stops the rest.
            Err(error) => {
                tracing::error!(error = %error_chain(&error), "moving answers home failed");
            }
        }
        if let Some(done) = self.deletion().await? {
            return Ok(done);
        }
        if let Some(StepOutcome::HostingSynced { regions }) = self.hosting_sync().await? {
            return Ok(StepOutcome::HostingSynced { regions });
        }
        self.export().await
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
                && let Err(error) = tidy(&self.stores.answering, &survey, &settled).await
            {
                // One survey's trouble is that survey's alone: its settled answers stay in
                // `recent`, counted, until its next commit or the reconcile pass drops them.
                tracing::error!(%survey, error = %error_chain(&error), "tidying a summary failed");
            }
        }
        Ok(())
    }

    /// Steps until `shutdown` resolves, waiting a little when there is nothing to do. A step in
    /// progress is always finished, so no batch is abandoned half-way by a stop request.
    pub async fn run(mut self, shutdown: impl Future<Output = ()>) {
        tokio::pin!(shutdown);
        let (stop_deliveries, stop) = tokio::sync::watch::channel(false);
        let backoff = self.settings.idle;
        // The pause the main loop reads each step, passed on to the other loops (read once
        // first, so none of them runs a job of a pause already set).
        if let Ok(paused) = self.stores.operations.control.paused().await {
            self.paused = paused;
        }
        let (pause, paused) = tokio::sync::watch::channel(self.paused);
        let looping = idle::Looping {
            backoff,
            paused,
            stop,
        };
        let deliverer = tokio::spawn(deliveries::run(
            self.stores.clone(),
            self.settings.deliveries.clone(),
            looping.clone(),
        ));
        let mailer = tokio::spawn(mail::run(
            self.stores.clone(),
            self.settings.mailer.clone(),
            looping.clone(),
        ));
        let mailings = tokio::spawn(mailings::run(
            self.stores.clone(),
            self.settings.mailer.clone(),
            looping.clone(),
        ));
        let builder = tokio::spawn(segments::run(
            self.stores.clone(),
            self.settings.visibility,
            looping,
        ));
        let mut backoff = backoff;
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
                    backoff.busy();
                    Duration::ZERO
                }
                Ok(
                    StepOutcome::ExportDone { .. }
                    | StepOutcome::DeletionDone { .. }
                    | StepOutcome::TransferDone(_)
                    | StepOutcome::HostingSynced { .. },
                ) => {
                    backoff.busy();
                    Duration::ZERO
                }
                Ok(StepOutcome::QueuesEmpty | StepOutcome::Paused) => backoff.idle(),
                Err(error) => {
                    tracing::error!(error = %error_chain(&error), "a worker step failed");
                    Duration::from_secs(1)
                }
            };
            pause.send_if_modified(|held| std::mem::replace(held, self.paused) != self.paused);
            // Paused: the reconcile pass waits too, and runs once released.
            if !self.paused && last_reconcile.elapsed() >= self.settings.reconcile_every {
                last_reconcile = Instant::now();
                if let Err(error) = reconcile::run_if_free(&self.stores).await {
                    tracing::error!(error = %error_chain(&error), "the reconcile pass failed");
                }
            }
            // An idle worker still wakes for its heartbeat, so its shards stay its own.
            let wait = match &self.affinity {
                Some(affinity) if !wait.is_zero() => wait.min(affinity.wake_within()),
                _ => wait,
            };
            if wait.is_zero() {
                // Straight on, unless a stop was asked for: even a zero sleep would wait for the
                // timer's next millisecond tick, a third of a step's time.
                if (&mut shutdown).now_or_never().is_some() {
                    break;
                }
                continue;
            }
            // An answer queued by this process wakes it at once.
            tokio::select! {
                biased;
                () = &mut shutdown => break,
                () = self.stores.answering.queues.queued_here() => backoff.busy(),
                () = tokio::time::sleep(wait) => {}
            }
        }
        if let Err(error) = self.tidy().await {
            tracing::error!(error = %error_chain(&error), "tidying summaries on the way out failed");
        }
        if let Some(affinity) = &mut self.affinity
            && let Err(error) = affinity.leave(&self.stores.operations.roster).await
        {
            // Its shards are taken over once its lease runs out instead.
            tracing::error!(error = %error_chain(&error), "leaving the roster failed");
        }
        // Deliveries in flight finish (at most their timeout); the rest stay queued. A segment
        // build stops after its current chunk and resumes from its message later.
        let _ = stop_deliveries.send(true);
        let _ = deliverer.await;
        let _ = mailer.await;
        let _ = mailings.await;
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
