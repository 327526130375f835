//! A queue of background work (export requests, deletions) as the stores use it: JSON
//! messages, received one at a time, deleted once the work is done, extended while it runs.

use std::sync::Arc;
use std::time::Duration;

use serde::Serialize;
use serde::de::DeserializeOwned;

use super::error::encode;
use super::{Context, StoreError};
use crate::storage::{Error, Message, MessageQueue, MessageUpdate, QueueName, Storage};

/// One work queue.
#[derive(Clone, Debug)]
pub struct WorkQueue {
    queues: Arc<dyn MessageQueue>,
    name: QueueName,
}

impl WorkQueue {
    /// Creates the queue if missing; called once at start-up.
    pub(super) async fn create(storage: &Storage, name: &'static str) -> Result<Self, StoreError> {
        let name = QueueName::parse(name).expect("work queue names are valid");
        storage
            .queues
            .create_queue(&name)
            .await
            .context(|| format!("creating queue {name}"))?;
        Ok(Self {
            queues: storage.queues.clone(),
            name,
        })
    }

    /// The queue's name.
    pub fn name(&self) -> &QueueName {
        &self.name
    }

    /// Adds a message.
    pub async fn send(&self, message: &impl Serialize) -> Result<(), StoreError> {
        self.send_encoded(encode(self.name.as_str(), message)?)
            .await
    }

    /// Adds a message already encoded as JSON (by a caller that looked at its size first).
    pub async fn send_encoded(&self, body: Vec<u8>) -> Result<(), StoreError> {
        self.queues
            .add(&self.name, body.into(), None)
            .await
            .context(|| format!("queueing on {}", self.name))?;
        Ok(())
    }

    /// Takes the next message, hidden for `visibility`, with its content (or why it cannot be
    /// read).
    pub async fn receive<T: DeserializeOwned>(
        &self,
        visibility: Duration,
    ) -> Result<Option<(Message, Result<T, String>)>, StoreError> {
        let mut messages = self
            .queues
            .get(&self.name, 1, visibility)
            .await
            .context(|| format!("receiving from {}", self.name))?;
        Ok(messages.pop().map(|message| {
            let content = serde_json::from_slice(&message.body).map_err(|e| e.to_string());
            (message, content)
        }))
    }

    /// A received message's content; `None` when it cannot be read, after the message is
    /// logged and removed (it would never read, and would come back again and again).
    pub async fn readable<T>(
        &self,
        message: &Message,
        content: Result<T, String>,
    ) -> Result<Option<T>, StoreError> {
        match content {
            Ok(content) => Ok(Some(content)),
            Err(reason) => {
                tracing::error!(queue = %self.name, id = %message.id, %reason, "dropping an unreadable message");
                self.finish(message).await?;
                Ok(None)
            }
        }
    }

    /// Takes up to `count` messages at once, as `receive` does.
    pub async fn receive_many<T: DeserializeOwned>(
        &self,
        count: usize,
        visibility: Duration,
    ) -> Result<Vec<(Message, Result<T, String>)>, StoreError> {
        let messages = self
            .queues
            .get(&self.name, count, visibility)
            .await
            .context(|| format!("receiving from {}", self.name))?;
        Ok(messages
            .into_iter()
            .map(|message| {
                let content = serde_json::from_slice(&message.body).map_err(|e| e.to_string());
                (message, content)
            })
            .collect())
    }

    /// Replaces a held message's content and hides it for `visibility` (a retry later).
    pub async fn replace(
        &self,
        message: &Message,
        content: &impl Serialize,
        visibility: Duration,
    ) -> Result<(), StoreError> {
        let update = MessageUpdate {
            body: Some(encode(self.name.as_str(), content)?.into()),
            visibility,
        };
        self.queues
            .update(&self.name, &message.id, &message.pop_receipt, update)
            .await
            .context(|| format!("rescheduling a message of {}", self.name))?;
        Ok(())
    }

    /// Keeps a held message hidden for another `visibility`.
    pub async fn extend(
        &self,
        message: &mut Message,
        visibility: Duration,
    ) -> Result<(), StoreError> {
        let update = MessageUpdate {
            body: None,
            visibility,
        };
        message.pop_receipt = self
            .queues
            .update(&self.name, &message.id, &message.pop_receipt, update)
            .await
            .context(|| format!("extending a message of {}", self.name))?;
        Ok(())
    }

    /// Deletes a message whose work is done; already gone is fine.
    pub async fn finish(&self, message: &Message) -> Result<(), StoreError> {
        match self
            .queues
            .delete(&self.name, &message.id, &message.pop_receipt)
            .await
        {
            Ok(()) | Err(Error::NotFound { .. }) => Ok(()),
            Err(error) => Err(error).context(|| format!("deleting a message of {}", self.name)),
        }
    }

    /// How many messages wait, roughly.
    pub async fn waiting(&self) -> Result<u64, StoreError> {
        self.queues
            .approximate_length(&self.name)
            .await
            .context(|| format!("reading the length of {}", self.name))
    }
}
