//! The queue of email waiting to be sent: requests and the worker's counting add to it; the
//! worker's mailer sends from it.

use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

use super::StoreError;
use super::work_queue::WorkQueue;
use crate::mail::Mail;
use crate::storage::Storage;

/// A queued email and how often sending it failed.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct MailMessage {
    /// The email.
    pub mail: Mail,
    /// Attempts made so far.
    #[serde(default)]
    pub attempts: u32,
    /// When it was queued (it is given up a day after).
    #[serde(with = "time::serde::rfc3339")]
    pub queued: OffsetDateTime,
}

/// The mail queue.
#[derive(Clone, Debug)]
pub struct MailQueue {
    queue: WorkQueue,
}

impl MailQueue {
    pub(super) async fn create(storage: &Storage) -> Result<Self, StoreError> {
        Ok(Self {
            queue: WorkQueue::create(storage, "mail").await?,
        })
    }

    /// Queues an email for a worker to send.
    pub async fn send(&self, mail: &Mail) -> Result<(), StoreError> {
        self.queue
            .send(&MailMessage {
                mail: mail.clone(),
                attempts: 0,
                queued: OffsetDateTime::now_utc(),
            })
            .await
    }

    /// The queue itself, for the mailer.
    pub fn queue(&self) -> &WorkQueue {
        &self.queue
    }
}
