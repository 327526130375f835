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

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::error::encode;
use super::{Context, StoreError, keys};
use crate::domain::{Answer, Reference, Subscription, SurveySlug, TenantSlug};
use crate::storage::{BlobStore, Error, MessageQueue, PutMode, QueueName, Storage};

/// The queue of standard tenants' answers.
pub const STANDARD_QUEUE: &str = "answers-standard";
/// The queue of premium tenants' answers, served first.
pub const PREMIUM_QUEUE: &str = "answers-premium";

/// What a message on an answer queue carries.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum AnswerMessage {
    /// The whole answer.
    Answer {
        /// The answer.
        answer: Answer,
    },
    /// An answer too large for a message, stored at `keys::incoming_answer`.
    Pointer {
        /// The survey's owner.
        tenant: TenantSlug,
        /// The survey.
        survey: SurveySlug,
        /// The answer's reference.
        reference: Reference,
    },
}

/// How a submitted answer travelled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Delivery {
    /// Whole, in one message.
    Inline,
    /// In an incoming blob, with a pointer message.
    ViaBlob,
}

/// The standard and premium answer queues.
#[derive(Clone, Debug)]
pub struct AnswerQueues {
    queues: Arc<dyn MessageQueue>,
    blobs: Arc<dyn BlobStore>,
    standard: QueueName,
    premium: QueueName,
}

fn queue_name(name: &str) -> QueueName {
    QueueName::parse(name).expect("the answer queue names are valid")
}

impl AnswerQueues {
    /// Creates both queues if missing; called once at start-up.
    pub async fn create(storage: &Storage) -> Result<Self, StoreError> {
        let queues = Self {
            queues: storage.queues.clone(),
            blobs: storage.blobs.clone(),
            standard: queue_name(STANDARD_QUEUE),
            premium: queue_name(PREMIUM_QUEUE),
        };
        for queue in [&queues.standard, &queues.premium] {
            queues
                .queues
                .create_queue(queue)
                .await
                .context(|| format!("creating queue {queue}"))?;
        }
        Ok(queues)
    }

    /// The queue a tenant's answers go to.
    pub fn queue_for(&self, subscription: Subscription) -> &QueueName {
        match subscription {
            Subscription::Standard => &self.standard,
            Subscription::Premium => &self.premium,
        }
    }

    /// Hands an answer to the tenant's queue; returns once it is durably queued.
    pub async fn submit(
        &self,
        answer: &Answer,
        subscription: Subscription,
    ) -> Result<Delivery, StoreError> {
        let queue = self.queue_for(subscription);
        let whole = AnswerMessage::Answer {
            answer: answer.clone(),
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
        let key = keys::incoming_answer(&answer.tenant, &answer.survey, answer.reference);
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
            reference: answer.reference,
        };
        self.queues
            .add(queue, encode(queue.as_str(), &pointer)?.into(), None)
            .await
            .context(doing)?;
        Ok(Delivery::ViaBlob)
    }
}
