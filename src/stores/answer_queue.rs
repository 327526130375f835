//! The delayed write: a submitted answer is handed to the tenant's queue and the respondent is
//! thanked at once; workers store and count it later.
//!
//! Protocol, ordered so that no answer a respondent was thanked for can be lost:
//!
//! 1. An answer whose encoded message fits the queue limit goes whole into one message on the
//!    tenant's queue (premium tenants → premium queue, the others → standard). That add is the
//!    request's only storage write, and it returns only once the message is durable; only then
//!    does the handler answer with the thank-you redirect.
//! 2. A larger answer is first written create-only to an `incoming/` blob, then a small
//!    pointer message naming that blob is queued, then the respondent is thanked.
//!
//! A process dying anywhere before the last step leaves the respondent without a thank-you
//! page, so the browser (or the respondent) posts the same form again. The form's token carries
//! the answer's reference, so the retry is the same answer: its incoming blob already exists
//! (create-only keeps the first copy) and the pointer is queued; a message queued twice names
//! the same reference, which the worker stores and counts once. An incoming blob whose pointer
//! never got queued (no retry came) is still a stored answer; the reconcile pass finds it.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::error::encode;
use super::{Context, StoreError, keys};
use crate::domain::{Answer, Reference, Subscription, SurveyId, SurveyRef, SurveySlug, TenantSlug};
use crate::storage::{
    BlobStore, Error, MAX_MESSAGES_PER_GET, Message, MessageQueue, MessageUpdate, PopReceipt,
    PutMode, QueueName, Storage,
};

/// The queue of standard tenants' answers.
pub const STANDARD_QUEUE: &str = "answers-standard";
/// The queue of premium tenants' answers, served first.
pub const PREMIUM_QUEUE: &str = "answers-premium";
/// Where messages go that failed too often to process.
pub const POISON_QUEUE: &str = "answers-poison";
/// The start of the name of a tenant's transfer queue: in a hosting region, its answers
/// waiting to move to its home region.
pub const TRANSFER_QUEUE: &str = "transfer-";

/// What a message on an answer queue carries.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum AnswerMessage {
    /// The whole answer.
    Answer {
        /// The answer (boxed: the other kinds are a few names).
        answer: Box<Answer>,
    },
    /// An answer too large for a message, stored at `keys::incoming_answer`.
    Pointer {
        /// The survey's owner.
        tenant: TenantSlug,
        /// The survey.
        survey: SurveySlug,
        /// The survey's identity (empty in pointers queued before identities existed).
        #[serde(default)]
        survey_id: SurveyId,
        /// The answer's reference.
        reference: Reference,
    },
    /// An answer given in another region and moved here: already stored (create-only, at
    /// `keys::answer`), to be counted.
    Stored {
        /// The survey's owner.
        tenant: TenantSlug,
        /// The survey.
        survey: SurveySlug,
        /// The survey's identity.
        survey_id: SurveyId,
        /// The answer's reference.
        reference: Reference,
    },
}

impl AnswerMessage {
    /// The survey the answer is for, and its reference.
    pub fn addressee(&self) -> (SurveyRef, Reference) {
        match self {
            AnswerMessage::Answer { answer } => (answer.survey_ref(), answer.reference),
            AnswerMessage::Pointer {
                tenant,
                survey,
                survey_id,
                reference,
            }
            | AnswerMessage::Stored {
                tenant,
                survey,
                survey_id,
                reference,
            } => (
                SurveyRef {
                    tenant: tenant.clone(),
                    slug: survey.clone(),
                    id: survey_id.clone(),
                },
                *reference,
            ),
        }
    }
}

/// How a submitted answer travelled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Delivery {
    /// Whole, in one message.
    Inline,
    /// In an incoming blob, with a pointer message.
    ViaBlob,
}

/// The standard, premium and poison answer queues; standard and premium may each be split
/// over several shards.
#[derive(Clone, Debug)]
pub struct AnswerQueues {
    queues: Arc<dyn MessageQueue>,
    blobs: Arc<dyn BlobStore>,
    standard: Vec<QueueName>,
    premium: Vec<QueueName>,
    poison: QueueName,
    /// Whether the installation has regions (and so transfer queues).
    regions: bool,
    /// Signalled by every answer queued through these handles: a worker in the same process
    /// waiting with nothing to do wakes at once instead of at its next poll.
    queued: Arc<tokio::sync::Notify>,
}

/// The most shards a class of answers may be split over.
pub const MAX_SHARDS: usize = 16;

/// A received answer message, decoded if it could be.
#[derive(Debug)]
pub struct Received {
    /// The queue it came from.
    pub queue: QueueName,
    /// The raw message, for deleting and updating it.
    pub message: Message,
    /// What it says, or why it could not be read.
    pub content: Result<AnswerMessage, String>,
}

/// The queue of a tenant's answers waiting here to move to its home region:
/// `transfer-{tenant}`, or `transfer-` and a digest of a slug too long for a queue name.
pub fn transfer_queue(tenant: &TenantSlug) -> QueueName {
    let name = format!("{TRANSFER_QUEUE}{tenant}");
    QueueName::parse(&name).unwrap_or_else(|_| {
        use sha2::Digest;
        let digest = sha2::Sha256::digest(tenant.as_str().as_bytes());
        let hex: String = digest[..12].iter().map(|b| format!("{b:02x}")).collect();
        queue_name(&format!("{TRANSFER_QUEUE}{hex}"))
    })
}

fn queue_name(name: &str) -> QueueName {
    QueueName::parse(name).expect("the answer queue names are valid")
}

/// The shards of one queue: the first keeps the unsharded name, so raising the shard count
/// keeps every message already queued in a shard that is read.
fn shard_names(base: &str, shards: usize) -> Vec<QueueName> {
    (0..shards.clamp(1, MAX_SHARDS))
        .map(|shard| match shard {
            0 => queue_name(base),
            n => queue_name(&format!("{base}-{n}")),
        })
        .collect()
}

/// Which of `shards` shards a survey's answers go to: the first eight bytes of a SHA-256 of
/// `tenant/survey`, the same in every process and every version (a std hasher is not).
pub fn shard_of(tenant: &TenantSlug, survey: &SurveySlug, shards: usize) -> usize {
    use sha2::Digest;
    let digest = sha2::Sha256::new()
        .chain_update(tenant.as_str())
        .chain_update(b"/")
        .chain_update(survey.as_str())
        .finalize();
    let mut first = [0u8; 8];
    first.copy_from_slice(&digest[..8]);
    // At most 16 shards: the remainder fits a usize.
    (u64::from_be_bytes(first) % shards.max(1) as u64) as usize
}

impl AnswerQueues {
    /// Creates the queues if missing (each class over `shards` queues, and the transfer queue
    /// when the installation has regions); called once at start-up.
    pub async fn create(
        storage: &Storage,
        shards: usize,
        regions: bool,
    ) -> Result<Self, StoreError> {
        let queues = Self {
            queues: storage.queues.clone(),
            blobs: storage.blobs.clone(),
            standard: shard_names(STANDARD_QUEUE, shards),
            premium: shard_names(PREMIUM_QUEUE, shards),
            poison: queue_name(POISON_QUEUE),
            regions,
            queued: Arc::new(tokio::sync::Notify::new()),
        };
        for (_, queue) in queues.all() {
            queues
                .queues
                .create_queue(queue)
                .await
                .context(|| format!("creating queue {queue}"))?;
        }
        Ok(queues)
    }

    /// The shards of the queue a tenant's answers go to.
    pub fn queues_for(&self, subscription: Subscription) -> &[QueueName] {
        match subscription {
            Subscription::Standard => &self.standard,
            Subscription::Premium => &self.premium,
        }
    }

    /// The shard a survey's answers go to: a stable hash of its tenant and slug, so all of a
    /// survey's answers wait in one shard, which one worker takes at a time (affinity, seed
    /// 004: see `worker::affinity`), and a resubmitted form lands where its first copy did.
    pub fn queue_for(
        &self,
        tenant: &TenantSlug,
        survey: &SurveySlug,
        subscription: Subscription,
    ) -> &QueueName {
        match self.queues_for(subscription) {
            // One queue, the default: nothing to hash on the answer path.
            [only] => only,
            shards => &shards[shard_of(tenant, survey, shards.len())],
        }
    }

    /// Hands an answer to the tenant's queue; returns once it is durably queued.
    pub async fn submit(
        &self,
        answer: &Answer,
        subscription: Subscription,
    ) -> Result<Delivery, StoreError> {
        let queue = self.queue_for(&answer.tenant, &answer.survey, subscription);
        let delivery = self.submit_to(queue, answer).await?;
        self.queued.notify_one();
        Ok(delivery)
    }

    /// Shares `other`'s wake-up: an answer queued through either set of handles (another
    /// handle on the same storage in this process) wakes a worker waiting on either.
    pub fn wake_with(&mut self, other: &AnswerQueues) {
        self.queued = other.queued.clone();
    }

    /// Resolves once an answer is queued through these handles (or was since the last call):
    /// what an idle worker of this process waits on besides its poll.
    pub async fn queued_here(&self) {
        self.queued.notified().await;
    }

    /// Hands an answer given here to a survey of another region's tenant to that tenant's
    /// transfer queue, which moves it home; returns once it is durably queued.
    pub async fn submit_for_transfer(&self, answer: &Answer) -> Result<Delivery, StoreError> {
        if !self.regions {
            return Err(StoreError::Storage {
                doing: "queueing an answer to move home".into(),
                source: Error::InvalidArgument("this installation has no regions".into()),
            });
        }
        let queue = transfer_queue(&answer.tenant);
        match self.submit_to(&queue, answer).await {
            // Made when the tenant's first survey was pushed here; made now if it was lost.
            Err(StoreError::Storage {
                source: Error::NotFound { .. },
                ..
            }) => {
                self.create_transfer(&answer.tenant).await?;
                self.submit_to(&queue, answer).await
            }
            queued => queued,
        }
    }

    /// How many of a tenant's answers wait here to move home, and how long the oldest has.
    pub async fn transfer_backlog(
        &self,
        tenant: &TenantSlug,
    ) -> Result<(u64, Option<Duration>), StoreError> {
        let queue = transfer_queue(tenant);
        let waiting = match self.queues.approximate_length(&queue).await {
            Ok(waiting) => waiting,
            Err(Error::NotFound { .. }) => return Ok((0, None)),
            Err(error) => return Err(error).context(|| format!("reading the length of {queue}")),
        };
        if waiting == 0 {
            return Ok((0, None));
        }
        let added = self
            .queues
            .head_inserted_at(&queue)
            .await
            .context(|| format!("peeking at {queue}"))?;
        Ok((waiting, added.map(|at| at.elapsed().unwrap_or_default())))
    }

    /// Creates a tenant's transfer queue if missing (when its first survey is hosted here).
    pub async fn create_transfer(&self, tenant: &TenantSlug) -> Result<(), StoreError> {
        let queue = transfer_queue(tenant);
        self.queues
            .create_queue(&queue)
            .await
            .context(|| format!("creating queue {queue}"))
    }

    /// Queues, on the tenant's queue here, an answer moved here from another region and
    /// already stored: the worker counts it.
    pub async fn queue_stored(
        &self,
        answer: &Answer,
        subscription: Subscription,
    ) -> Result<(), StoreError> {
        let queue = self.queue_for(&answer.tenant, &answer.survey, subscription);
        let stored = AnswerMessage::Stored {
            tenant: answer.tenant.clone(),
            survey: answer.survey.clone(),
            survey_id: answer.survey_id.clone(),
            reference: answer.reference,
        };
        self.queues
            .add(queue, encode(queue.as_str(), &stored)?.into(), None)
            .await
            .context(|| format!("queueing moved answer {}", answer.reference))?;
        Ok(())
    }

    /// Queues an answer on `queue`, whole or through an incoming blob when it is too large.
    async fn submit_to(&self, queue: &QueueName, answer: &Answer) -> Result<Delivery, StoreError> {
        let whole = AnswerMessage::Answer {
            answer: Box::new(answer.clone()),
        };
        let doing = || {
            format!(
                "queueing answer {} to {}/{}",
                answer.reference, answer.tenant, answer.survey
            )
        };
        match self
            .queues
            .add(queue, encode(queue.as_str(), &whole)?.into(), None)
            .await
        {
            Ok(_) => return Ok(Delivery::Inline),
            Err(Error::MessageTooLarge { .. }) => {}
            Err(error) => return Err(error).context(doing),
        }
        let key = keys::incoming_answer(&answer.survey_ref(), answer.reference);
        match self
            .blobs
            .put(&key, encode(&key, answer)?.into(), PutMode::Create)
            .await
        {
            // A retry of the same form finds its first copy: that one stands.
            Ok(_) | Err(Error::AlreadyExists { .. }) => {}
            Err(error) => return Err(error).context(|| format!("storing {key}")),
        }
        let pointer = AnswerMessage::Pointer {
            tenant: answer.tenant.clone(),
            survey: answer.survey.clone(),
            survey_id: answer.survey_id.clone(),
            reference: answer.reference,
        };
        self.queues
            .add(queue, encode(queue.as_str(), &pointer)?.into(), None)
            .await
            .context(doing)?;
        Ok(Delivery::ViaBlob)
    }
}

impl AnswerQueues {
    /// The premium shards and the standard shards: workers prefer the former.
    pub fn work_queues(&self) -> (&[QueueName], &[QueueName]) {
        (&self.premium, &self.standard)
    }

    /// Every queue with what it is for, for operators.
    pub fn all(&self) -> Vec<(&'static str, &QueueName)> {
        let premium = self.premium.iter().map(|queue| ("premium", queue));
        let standard = self.standard.iter().map(|queue| ("standard", queue));
        premium
            .chain(standard)
            .chain([("poison", &self.poison)])
            .collect()
    }

    /// The poison queue.
    pub fn poison(&self) -> &QueueName {
        &self.poison
    }

    /// Receives up to `max` messages (at most 32), hidden for `visibility`.
    pub async fn receive(
        &self,
        queue: &QueueName,
        max: usize,
        visibility: Duration,
    ) -> Result<Vec<Received>, StoreError> {
        let messages = self
            .queues
            .get(queue, max.clamp(1, MAX_MESSAGES_PER_GET), visibility)
            .await
            .context(|| format!("receiving from {queue}"))?;
        Ok(messages
            .into_iter()
            .map(|message| Received {
                queue: queue.clone(),
                content: serde_json::from_slice(&message.body).map_err(|e| e.to_string()),
                message,
            })
            .collect())
    }

    /// Deletes a finished message; one already gone (deleted by a redelivery) is fine.
    pub async fn delete(&self, received: &Received) -> Result<(), StoreError> {
        self.delete_many(&[received]).await
    }

    /// Deletes several received messages as `delete` does, with one call per queue.
    pub async fn delete_many(&self, received: &[&Received]) -> Result<(), StoreError> {
        let mut by_queue: BTreeMap<&QueueName, Vec<(String, PopReceipt)>> = BTreeMap::new();
        for item in received {
            let message = &item.message;
            by_queue
                .entry(&item.queue)
                .or_default()
                .push((message.id.clone(), message.pop_receipt.clone()));
        }
        for (queue, held) in by_queue {
            let deleted = self
                .queues
                .delete_many(queue, &held)
                .await
                .context(|| format!("deleting {} messages from {queue}", held.len()))?;
            for ((id, _), outcome) in held.iter().zip(deleted) {
                match outcome {
                    Ok(()) | Err(Error::NotFound { .. }) => {}
                    Err(error) => {
                        return Err(error).context(|| format!("deleting message {id}"));
                    }
                }
            }
        }
        Ok(())
    }

    /// Hides a held message for another `visibility`; returns false if it is no longer held.
    pub async fn extend(
        &self,
        received: &mut Received,
        visibility: Duration,
    ) -> Result<bool, StoreError> {
        let message = &received.message;
        let update = MessageUpdate {
            body: None,
            visibility,
        };
        match self
            .queues
            .update(&received.queue, &message.id, &message.pop_receipt, update)
            .await
        {
            Ok(receipt) => {
                received.message.pop_receipt = receipt;
                Ok(true)
            }
            Err(Error::NotFound { .. } | Error::PopReceiptMismatch { .. }) => Ok(false),
            Err(error) => Err(error).context(|| format!("extending message {}", message.id)),
        }
    }

    /// Moves a message to the poison queue: added there first, then deleted here, so it is
    /// never lost (at worst it is in both for a moment).
    pub async fn to_poison(&self, received: &Received) -> Result<(), StoreError> {
        self.queues
            .add(&self.poison, received.message.body.clone(), None)
            .await
            .context(|| format!("moving message {} to the poison queue", received.message.id))?;
        self.delete(received).await
    }

    /// Puts a message back on a work queue (from the poison queue).
    pub async fn requeue(&self, received: &Received, to: &QueueName) -> Result<(), StoreError> {
        self.queues
            .add(to, received.message.body.clone(), None)
            .await
            .context(|| format!("requeueing message {}", received.message.id))?;
        self.delete(received).await
    }

    /// Makes held messages visible again at once (after an operator only looked at them).
    pub async fn release(&self, received: &Received) -> Result<(), StoreError> {
        let update = MessageUpdate {
            body: None,
            visibility: Duration::ZERO,
        };
        let message = &received.message;
        match self
            .queues
            .update(&received.queue, &message.id, &message.pop_receipt, update)
            .await
        {
            Ok(_) | Err(Error::NotFound { .. } | Error::PopReceiptMismatch { .. }) => Ok(()),
            Err(error) => Err(error).context(|| format!("releasing message {}", message.id)),
        }
    }

    /// A queue's approximate length.
    pub async fn length(&self, queue: &QueueName) -> Result<u64, StoreError> {
        self.queues
            .approximate_length(queue)
            .await
            .context(|| format!("reading the length of {queue}"))
    }

    /// How many answers of a class wait, over all its shards.
    pub async fn waiting(&self, subscription: Subscription) -> Result<u64, StoreError> {
        let mut total = 0;
        for queue in self.queues_for(subscription) {
            total += self.length(queue).await?;
        }
        Ok(total)
    }
}
