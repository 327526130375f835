//! The `MessageQueue` port: named queues of small messages with visibility timeouts, pop
//! receipts and dequeue counts, as Azure Storage queues have them.

use std::fmt;
use std::time::{Duration, SystemTime};

use async_trait::async_trait;
use bytes::Bytes;

use super::{Error, Result, TransactionCounter};

/// The most messages one receive call may ask for (Azure's limit).
pub const MAX_MESSAGES_PER_GET: usize = 32;

/// Deletes in flight at once in the default `delete_many`.
const DELETE_MANY_CONCURRENCY: usize = 64;

/// The largest message, measured base64-encoded as Azure stores it (64 KiB). Every backend
/// enforces it, so a message that fits on a laptop fits in the cloud too.
pub const MAX_ENCODED_MESSAGE_BYTES: usize = 64 * 1024;

/// The size of a message body once base64-encoded.
pub fn encoded_message_len(body: &[u8]) -> usize {
    body.len().div_ceil(3) * 4
}

/// `Error::MessageTooLarge` unless the body fits every backend.
pub fn check_message_size(body: &[u8]) -> Result<()> {
    let encoded_len = encoded_message_len(body);
    if encoded_len > MAX_ENCODED_MESSAGE_BYTES {
        return Err(Error::MessageTooLarge {
            encoded_len,
            limit: MAX_ENCODED_MESSAGE_BYTES,
        });
    }
    Ok(())
}

/// A queue's name: 3 to 63 lowercase letters, digits and single dashes, starting and ending
/// with a letter or digit (the rule Azure applies, so every backend accepts the same names).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct QueueName(String);

impl QueueName {
    /// Checks a queue name.
    pub fn parse(name: &str) -> Result<Self> {
        let bytes = name.as_bytes();
        let well_formed = (3..=63).contains(&bytes.len())
            && bytes
                .iter()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || *b == b'-')
            && bytes.first() != Some(&b'-')
            && bytes.last() != Some(&b'-')
            && !name.contains("--");
        if well_formed {
            Ok(Self(name.to_owned()))
        } else {
            Err(Error::InvalidArgument(format!(
                "{name:?} is not a queue name: use 3-63 lowercase letters, digits and single dashes"
            )))
        }
    }

    /// The name.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for QueueName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Proof that a caller holds a received message; changes every time the message is received
/// or updated.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct PopReceipt(String);

impl PopReceipt {
    /// Wraps a backend's receipt.
    pub fn new(receipt: impl Into<String>) -> Self {
        Self(receipt.into())
    }

    /// The receipt as the backend spelled it.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// A received message, invisible to others until its visibility timeout passes.
#[derive(Clone, Debug)]
pub struct Message {
    /// The message's id within its queue.
    pub id: String,
    /// What to quote to update or delete it.
    pub pop_receipt: PopReceipt,
    /// How many times it has been received, this time included.
    pub dequeue_count: u32,
    /// When it was added.
    pub inserted_at: SystemTime,
    /// Its content.
    pub body: Bytes,
}

/// A change to a held message.
#[derive(Clone, Debug)]
pub struct MessageUpdate {
    /// New content, or `None` to keep it.
    pub body: Option<Bytes>,
    /// Hide the message for this long from now (zero makes it visible at once).
    pub visibility: Duration,
}

/// Named queues of small messages. Every call is one storage transaction.
#[async_trait]
pub trait MessageQueue: Send + Sync + fmt::Debug {
    /// Creates a queue if it is missing. Called once at start-up for each queue, never per call.
    async fn create_queue(&self, queue: &QueueName) -> Result<()>;

    /// Adds a message, hidden for `initial_invisibility` when given; returns its id.
    async fn add(
        &self,
        queue: &QueueName,
        body: Bytes,
        initial_invisibility: Option<Duration>,
    ) -> Result<String>;

    /// Receives up to `max` (1 to 32) visible messages and hides them for `visibility`.
    async fn get(
        &self,
        queue: &QueueName,
        max: usize,
        visibility: Duration,
    ) -> Result<Vec<Message>>;

    /// Changes a held message's content and/or visibility; returns its new pop receipt.
    async fn update(
        &self,
        queue: &QueueName,
        id: &str,
        receipt: &PopReceipt,
        update: MessageUpdate,
    ) -> Result<PopReceipt>;

    /// Deletes a held message; `Error::PopReceiptMismatch` if the receipt is stale.
    async fn delete(&self, queue: &QueueName, id: &str, receipt: &PopReceipt) -> Result<()>;

    /// Deletes several held messages of one queue: each delete's own result, in order; the
    /// outer error is a failure of the whole call. One transaction per message, as `delete`;
    /// backends that can delete many in one round trip do.
    async fn delete_many(
        &self,
        queue: &QueueName,
        messages: &[(String, PopReceipt)],
    ) -> Result<Vec<Result<()>>> {
        let mut deleted = Vec::with_capacity(messages.len());
        for chunk in messages.chunks(DELETE_MANY_CONCURRENCY) {
            let deletes = chunk
                .iter()
                .map(|(id, receipt)| self.delete(queue, id, receipt));
            deleted.extend(futures_util::future::join_all(deletes).await);
        }
        Ok(deleted)
    }

    /// Roughly how many messages the queue holds, visible or not.
    async fn approximate_length(&self, queue: &QueueName) -> Result<u64>;

    /// When the message a receive would return next was added (`None` when no message is
    /// visible): how long the head of the queue has waited. One transaction (a peek).
    async fn head_inserted_at(&self, queue: &QueueName) -> Result<Option<SystemTime>>;

    /// This adapter's transaction counter.
    fn transactions(&self) -> &TransactionCounter;
}

/// `Error::InvalidArgument` unless 1 to 32 messages are asked for.
pub fn check_batch_size(max: usize) -> Result<()> {
    if (1..=MAX_MESSAGES_PER_GET).contains(&max) {
        Ok(())
    } else {
        Err(Error::InvalidArgument(format!(
            "a receive asks for 1 to {MAX_MESSAGES_PER_GET} messages, not {max}"
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queue_names_follow_the_azure_rule() {
        for (name, ok) in [
            ("answers-standard", true),
            ("abc", true),
            ("ab", false),
            ("Answers", false),
            ("-answers", false),
            ("answers-", false),
            ("answers--premium", false),
            ("answers_premium", false),
            (&"a".repeat(64), false),
        ] {
            assert_eq!(QueueName::parse(name).is_ok(), ok, "case {name:?}");
        }
    }

    #[test]
    fn the_size_limit_is_measured_on_the_base64_encoding() {
        assert_eq!(encoded_message_len(b""), 0);
        assert_eq!(encoded_message_len(b"a"), 4);
        assert_eq!(encoded_message_len(b"abc"), 4);
        assert_eq!(encoded_message_len(b"abcd"), 8);
        assert!(check_message_size(&vec![0; 49_152]).is_ok());
        assert!(matches!(
            check_message_size(&vec![0; 49_153]),
            Err(Error::MessageTooLarge {
                encoded_len: 65_540,
                ..
            })
        ));
    }
}
