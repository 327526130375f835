//! `MessageQueue` over Azure Storage queues, through the official SDK.
//!
//! Bodies travel base64-encoded (the service wants XML-safe text), which is why the port's size
//! limit is measured on the encoding. Messages never expire: the service's default seven-day
//! time-to-live would silently drop answers from a long backlog.

use std::fmt;
use std::time::{Duration, SystemTime};

use async_trait::async_trait;
use azure_core::http::RequestContent;
use azure_storage_queue::models::{
    QueueClientGetPropertiesResultHeaders, QueueClientPeekMessagesOptions,
    QueueClientReceiveMessagesOptions, QueueClientSendMessageOptions,
    QueueClientUpdateMessageOptions, QueueMessage,
};
use azure_storage_queue::{QueueClient, QueueServiceClient};
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use bytes::Bytes;

use super::{Failure, backend, failure};
use crate::storage::{
    Error, Message, MessageQueue, MessageUpdate, Operation, PopReceipt, QueueName, Result,
    TransactionCounter, check_batch_size, check_message_size,
};

/// `messagettl=-1`: the message stays until it is deleted.
const NEVER_EXPIRES: i32 = -1;

/// Queues of one Azure Storage account.
pub struct AzureMessageQueue {
    service: QueueServiceClient,
    counter: TransactionCounter,
}

impl fmt::Debug for AzureMessageQueue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AzureMessageQueue")
            .field("service", &self.service.url().as_str())
            .finish_non_exhaustive()
    }
}

impl AzureMessageQueue {
    pub(super) fn new(service: QueueServiceClient) -> Self {
        Self {
            service,
            counter: TransactionCounter::default(),
        }
    }

    fn queue(&self, queue: &QueueName) -> Result<QueueClient> {
        self.service.queue_client(queue.as_str()).map_err(backend)
    }
}

/// Whole seconds, rounded up: the service counts visibility in seconds.
fn seconds(duration: Duration) -> i32 {
    let whole = duration.as_secs() + u64::from(duration.subsec_nanos() > 0);
    i32::try_from(whole).unwrap_or(i32::MAX)
}

fn content(body: &[u8]) -> Result<RequestContent<QueueMessage, azure_core::http::XmlFormat>> {
    QueueMessage {
        message_text: Some(STANDARD.encode(body)),
    }
    .try_into()
    .map_err(backend)
}

/// Maps a failure on a named queue; `message` names the message when there is one.
fn queue_error(error: azure_core::Error, queue: &QueueName, message: Option<&str>) -> Error {
    match (failure(&error), message) {
        (Failure::QueueNotFound, _) | (Failure::NotFound, None) => {
            Error::queue_not_found(queue.as_str())
        }
        (Failure::NotFound, Some(id)) => Error::message_not_found(id),
        (Failure::PopReceiptMismatch, Some(id)) => Error::PopReceiptMismatch { id: id.into() },
        _ => backend(error),
    }
}

#[async_trait]
impl MessageQueue for AzureMessageQueue {
    async fn create_queue(&self, queue: &QueueName) -> Result<()> {
        self.queue(queue)?
            .create(None)
            .await
            .map(drop)
            .or_else(|error| match failure(&error) {
                // It exists already (with other metadata): that is all we asked for.
                Failure::Conflict => Ok(()),
                _ => Err(backend(error)),
            })
    }

    async fn add(
        &self,
        queue: &QueueName,
        body: Bytes,
        initial_invisibility: Option<Duration>,
    ) -> Result<String> {
        check_message_size(&body)?;
        self.counter.record(Operation::Add);
        let options = QueueClientSendMessageOptions {
            message_time_to_live: Some(NEVER_EXPIRES),
            visibility_timeout: initial_invisibility.map(seconds),
            ..Default::default()
        };
        let sent = self
            .queue(queue)?
            .send_message(content(&body)?, Some(options))
            .await
            .map_err(|error| queue_error(error, queue, None))?
            .into_model()
            .and_then(|list| list.into_message())
            .map_err(backend)?;
        sent.message_id
            .ok_or_else(|| Error::backend("the service returned no message id"))
    }

    async fn get(
        &self,
        queue: &QueueName,
        max: usize,
        visibility: Duration,
    ) -> Result<Vec<Message>> {
        check_batch_size(max)?;
        self.counter.record(Operation::GetMessages);
        let options = QueueClientReceiveMessagesOptions {
            number_of_messages: i32::try_from(max).ok(),
            visibility_timeout: Some(seconds(visibility).max(1)),
            ..Default::default()
        };
        let received = self
            .queue(queue)?
            .receive_messages(Some(options))
            .await
            .map_err(|error| queue_error(error, queue, None))?
            .into_model()
            .map_err(backend)?;
        received
            .items
            .unwrap_or_default()
            .into_iter()
            .map(|item| {
                let (Some(id), Some(receipt)) = (item.message_id, item.pop_receipt) else {
                    return Err(Error::backend("a received message lacks its id or receipt"));
                };
                let body = STANDARD
                    .decode(item.message_text.unwrap_or_default())
                    .map_err(backend)?;
                Ok(Message {
                    id,
                    pop_receipt: PopReceipt::new(receipt),
                    dequeue_count: item
                        .dequeue_count
                        .and_then(|count| u32::try_from(count).ok())
                        .unwrap_or(1),
                    inserted_at: item
                        .insertion_time
                        .map_or_else(SystemTime::now, SystemTime::from),
                    body: Bytes::from(body),
                })
            })
            .collect()
    }

    async fn update(
        &self,
        queue: &QueueName,
        id: &str,
        receipt: &PopReceipt,
        update: MessageUpdate,
    ) -> Result<PopReceipt> {
        if let Some(body) = &update.body {
            check_message_size(body)?;
        }
        self.counter.record(Operation::Update);
        let options = QueueClientUpdateMessageOptions {
            queue_message: update.body.as_deref().map(content).transpose()?,
            ..Default::default()
        };
        let response = self
            .queue(queue)?
            .update_message(
                id,
                receipt.as_str(),
                seconds(update.visibility),
                Some(options),
            )
            .await
            .map_err(|error| queue_error(error, queue, Some(id)))?;
        // The new receipt comes back only in a response header.
        response
            .headers()
            .get_optional_string(&azure_core::http::headers::HeaderName::from_static(
                "x-ms-popreceipt",
            ))
            .map(PopReceipt::new)
            .ok_or_else(|| Error::backend("the service returned no new pop receipt"))
    }

    async fn delete(&self, queue: &QueueName, id: &str, receipt: &PopReceipt) -> Result<()> {
        self.counter.record(Operation::DeleteMessage);
        self.queue(queue)?
            .delete_message(id, receipt.as_str(), None)
            .await
            .map(drop)
            .map_err(|error| queue_error(error, queue, Some(id)))
    }

    async fn head_inserted_at(&self, queue: &QueueName) -> Result<Option<SystemTime>> {
        self.counter.record(Operation::Peek);
        let options = QueueClientPeekMessagesOptions {
            number_of_messages: Some(1),
            ..Default::default()
        };
        let peeked = self
            .queue(queue)?
            .peek_messages(Some(options))
            .await
            .map_err(|error| queue_error(error, queue, None))?
            .into_model()
            .map_err(backend)?;
        Ok(peeked
            .items
            .unwrap_or_default()
            .into_iter()
            .next()
            .map(|item| {
                item.insertion_time
                    .map_or_else(SystemTime::now, SystemTime::from)
            }))
    }

    async fn approximate_length(&self, queue: &QueueName) -> Result<u64> {
        self.counter.record(Operation::Length);
        let properties = self
            .queue(queue)?
            .get_properties(None)
            .await
            .map_err(|error| queue_error(error, queue, None))?;
        let count = properties
            .approximate_messages_count()
            .map_err(backend)?
            .unwrap_or(0);
        Ok(u64::try_from(count).unwrap_or(0))
    }

    fn transactions(&self) -> &TransactionCounter {
        &self.counter
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn visibility_rounds_up_to_whole_seconds() {
        assert_eq!(seconds(Duration::ZERO), 0);
        assert_eq!(seconds(Duration::from_millis(1)), 1);
        assert_eq!(seconds(Duration::from_secs(30)), 30);
        assert_eq!(seconds(Duration::from_millis(30_001)), 31);
    }
}
