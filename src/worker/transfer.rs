//! Moving answers home. In a hosting region, an answer given to a survey of another region's
//! tenant waits on the transfer queue; this job stores it in the home region create-only,
//! keyed by its reference (so a retry after a crash or a lost acknowledgement never makes a
//! second copy), queues it there to be counted as a local answer, and only then deletes it
//! here. A home region that cannot be reached leaves the answers waiting, however long: they
//! are never given up on as poison for that. Each tenant has a transfer queue of its own, so
//! what waits can be told per tenant (`backlog`) without reading other tenants' answers.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use futures_util::future::join_all;

use crate::domain::region::RegionName;
use crate::domain::{Answer, Subscription, TenantSlug};
use crate::stores::{
    AnswerMessage, Answering, Received, Residency, StoreError, Stores, transfer_queue,
};
use crate::telemetry::error_chain;

/// Answers read from the transfer queue per step.
const BATCH: usize = 32;

/// How long a step waits for a home region before leaving its answers for later.
const REACH: Duration = Duration::from_secs(10);

/// What one step did.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Moved {
    /// Answers moved home (stored there, queued there, deleted here).
    pub moved: usize,
    /// Answers left here for later: their home could not be reached.
    pub waiting: usize,
    /// Unreadable messages, moved to the poison queue.
    pub poisoned: usize,
}

/// An answer to move, with the message that carries it.
struct Moving {
    received: Received,
    answer: Answer,
    /// Read from an incoming blob here (removed once moved).
    incoming: bool,
}

/// How often the list of tenants hosted here is read again (a tenant newly hosted waits at
/// most this long for its first answers to move).
const RELIST: Duration = Duration::from_secs(10);

/// How long an empty transfer queue is left alone before it is looked at again: what keeps
/// an idle region from polling every hosted tenant's queue on every step.
const IDLE: Duration = Duration::from_secs(2);

/// A worker's part in moving answers home: the hosted tenants whose queues it reads in turn.
#[derive(Debug, Default)]
pub(super) struct Mover {
    tenants: Vec<TenantSlug>,
    listed: Option<Instant>,
    next: usize,
    idle_until: BTreeMap<TenantSlug, Instant>,
}

impl Mover {
    /// Moves one batch from the next tenant's transfer queue that has answers; `None` when the
    /// installation has no regions or no queue had any.
    pub(super) async fn step(
        &mut self,
        stores: &Stores,
        visibility: Duration,
        max_dequeue: u32,
    ) -> Result<Option<Moved>, StoreError> {
        if !stores.residency.regions.named() {
            return Ok(None);
        }
        if self.listed.is_none_or(|at| at.elapsed() >= RELIST) {
            self.tenants = stores.residency.hosted.tenants().await?;
            self.listed = Some(Instant::now());
            for tenant in &self.tenants {
                if let Err(error) = read_home_counts(stores, tenant).await {
                    tracing::warn!(%tenant, error = %error_chain(&error), "cannot read hosted surveys' totals at home yet");
                }
            }
        }
        for _ in 0..self.tenants.len() {
            let tenant = self.tenants[self.next % self.tenants.len()].clone();
            self.next = self.next.wrapping_add(1);
            if self
                .idle_until
                .get(&tenant)
                .is_some_and(|until| Instant::now() < *until)
            {
                continue;
            }
            let queue = transfer_queue(&tenant);
            let received = match stores
                .answering
                .queues
                .receive(&queue, BATCH, visibility)
                .await
            {
                Ok(received) => received,
                // Its first survey's push made the queue; none yet is an empty queue.
                Err(StoreError::Storage {
                    source: crate::storage::Error::NotFound { .. },
                    ..
                }) => Vec::new(),
                Err(error) => return Err(error),
            };
            if received.is_empty() {
                self.idle_until.insert(tenant, Instant::now() + IDLE);
                continue;
            }
            self.idle_until.remove(&tenant);
            return Ok(Some(move_batch(stores, received, max_dequeue).await?));
        }
        Ok(None)
    }
}

/// Reads from home the counted totals of the tenant's hosted surveys with a response limit,
/// so this region closes them near their limit without asking home on a respondent's
/// request.
async fn read_home_counts(stores: &Stores, tenant: &TenantSlug) -> Result<(), StoreError> {
    let Some(hosted) = stores.residency.hosted.tenant(tenant).await? else {
        return Ok(());
    };
    let mut limited = Vec::new();
    for slug in stores.residency.hosted.surveys_of(tenant).await? {
        if let Some(survey) = stores.residency.hosted.survey(tenant, &slug).await?
            && survey.published
            && survey.response_limit.is_some()
            // Answers that stay here are counted here, not at home.
            && survey.residency == crate::domain::region::Residency::Home
        {
            limited.push(survey);
        }
    }
    if limited.is_empty() {
        return Ok(());
    }
    let read = async {
        let home = stores.in_region(&hosted.home).await?;
        for survey in &limited {
            let counted = home
                .answering
                .summaries
                .counted(&survey.survey_ref())
                .await?;
            stores
                .residency
                .hosted
                .set_home_count(tenant, &survey.slug, counted)
                .await?;
        }
        Ok(())
    };
    tokio::time::timeout(REACH, read).await.unwrap_or_else(|_| {
        Err(StoreError::Storage {
            doing: format!("reading totals in region {}", hosted.home),
            source: crate::storage::Error::backend("no answer in time"),
        })
    })
}

/// Moves the received answers home, grouped by home region.
async fn move_batch(
    stores: &Stores,
    received: Vec<Received>,
    max_dequeue: u32,
) -> Result<Moved, StoreError> {
    let mut done = Moved::default();
    // By home region, with the tenant's plan there.
    let mut homes: BTreeMap<RegionName, Vec<(Moving, Subscription)>> = BTreeMap::new();
    for received in received {
        let too_often = received.message.dequeue_count > max_dequeue;
        match resolve(stores, &received).await {
            Ok(Some((moving, home, plan))) => {
                let moving = Moving {
                    received,
                    answer: moving.0,
                    incoming: moving.1,
                };
                homes.entry(home).or_default().push((moving, plan));
            }
            // The survey's copy or the answer is gone (the survey was withdrawn or deleted
            // with its incoming blob): nothing is left to move.
            Ok(None) => stores.answering.queues.delete(&received).await?,
            Err(reason) if too_often => {
                tracing::error!(id = %received.message.id, %reason, "an answer to move home cannot be read: moved to the poison queue");
                stores.answering.queues.to_poison(&received).await?;
                done.poisoned += 1;
            }
            Err(reason) => {
                tracing::warn!(id = %received.message.id, %reason, "cannot read an answer to move home yet");
            }
        }
    }
    for (home, answers) in homes {
        let count = answers.len();
        match tokio::time::timeout(REACH, move_home(stores, &home, &answers)).await {
            Ok(Ok(())) => {
                count_moved(&stores.residency, &answers).await?;
                finish(&stores.answering, &answers).await?;
                done.moved += count;
            }
            Ok(Err(error)) => {
                tracing::warn!(%home, waiting = count, error = %error_chain(&error), "cannot move answers home yet");
                done.waiting += count;
            }
            Err(_) => {
                tracing::warn!(%home, waiting = count, "cannot move answers home yet: no answer within {}s", REACH.as_secs());
                done.waiting += count;
            }
        }
    }
    Ok(done)
}

/// The answer a message carries (and whether it came through an incoming blob), its tenant's
/// home and plan; `None` when there is nothing left to move.
async fn resolve(
    stores: &Stores,
    received: &Received,
) -> Result<Option<((Answer, bool), RegionName, Subscription)>, String> {
    let message = received
        .content
        .as_ref()
        .map_err(|e| format!("not an answer message: {e}"))?;
    let (survey, reference) = message.addressee();
    let answer = match message {
        AnswerMessage::Answer { answer } => ((**answer).clone(), false),
        AnswerMessage::Pointer { .. } => {
            match stores.answering.answers.incoming(&survey, reference).await {
                Ok(Some(answer)) => (answer, true),
                Ok(None) => return Ok(None),
                Err(error) => return Err(error.to_string()),
            }
        }
        AnswerMessage::Stored { .. } => {
            return Err("a stored answer has nothing to move".into());
        }
    };
    let hosted = stores
        .residency
        .hosted
        .tenant(&survey.tenant)
        .await
        .map_err(|e| e.to_string())?
        .ok_or_else(|| {
            format!(
                "no copy of tenant {} here to say where its home is",
                survey.tenant
            )
        })?;
    Ok(Some((
        answer,
        hosted.home.clone(),
        hosted.tenant.subscription,
    )))
}

/// Stores the answers at home create-only, then queues each there to be counted.
async fn move_home(
    stores: &Stores,
    home: &RegionName,
    answers: &[(Moving, Subscription)],
) -> Result<(), StoreError> {
    let there = stores.in_region(home).await?;
    let all: Vec<&Answer> = answers.iter().map(|(moving, _)| &moving.answer).collect();
    there.answering.answers.create_many(&all).await?;
    crate::crash::reached(crate::crash::Point::AfterMoveStore);
    let queued = answers
        .iter()
        .map(|(moving, plan)| there.answering.queues.queue_stored(&moving.answer, *plan));
    join_all(queued)
        .await
        .into_iter()
        .collect::<Result<(), _>>()?;
    crate::crash::reached(crate::crash::Point::AfterMoveQueue);
    Ok(())
}

/// Adds the answers just moved to their surveys' counts here, for surveys with a response
/// limit (before their messages are deleted, so the limit never sees them in neither place;
/// a crash in between counts them twice, which only closes the survey early by as many).
async fn count_moved(
    stores: &Residency,
    answers: &[(Moving, Subscription)],
) -> Result<(), StoreError> {
    let mut by_survey: BTreeMap<(TenantSlug, crate::domain::SurveySlug), u64> = BTreeMap::new();
    for (moving, _) in answers {
        let answer = &moving.answer;
        *by_survey
            .entry((answer.tenant.clone(), answer.survey.clone()))
            .or_default() += 1;
    }
    for ((tenant, slug), moved) in by_survey {
        let limited = stores
            .hosted
            .survey(&tenant, &slug)
            .await?
            .is_some_and(|survey| survey.response_limit.is_some());
        if limited {
            stores.hosted.add_moved(&tenant, &slug, moved).await?;
        }
    }
    Ok(())
}

/// Deletes the moved answers here: their incoming blobs, then their messages.
async fn finish(stores: &Answering, answers: &[(Moving, Subscription)]) -> Result<(), StoreError> {
    let incoming =
        answers
            .iter()
            .filter(|(moving, _)| moving.incoming)
            .map(|(moving, _)| async move {
                let survey = moving.answer.survey_ref();
                stores
                    .answers
                    .remove_incoming(&survey, moving.answer.reference)
                    .await
            });
    join_all(incoming)
        .await
        .into_iter()
        .collect::<Result<(), _>>()?;
    let received: Vec<&Received> = answers.iter().map(|(moving, _)| &moving.received).collect();
    stores.queues.delete_many(&received).await
}
