//! The two storage ports every piece of state goes through, and their adapters.
//!
//! `BlobStore` holds documents (tenants, surveys, answers, summaries) with ETags for optimistic
//! concurrency; `MessageQueue` carries work between the web tier and the workers. Adapters know
//! nothing about surveys: they move bytes under keys and queue names.

pub mod azure;
mod backend;
mod blob;
mod counter;
mod error;
pub mod local;
pub mod memory;
mod queue;

pub use backend::Backend;
pub use blob::{
    Blob, BlobMeta, BlobPut, BlobStore, ETag, ListPage, ListRequest, MAX_KEY_LEN, MAX_LIST_PAGE,
    PutMode, check_key,
};
pub use counter::{Operation, TransactionCounter, TransactionCounts};
pub use error::{Error, Result};
pub use queue::{
    MAX_ENCODED_MESSAGE_BYTES, MAX_MESSAGES_PER_GET, Message, MessageQueue, MessageUpdate,
    PopReceipt, QueueName, check_batch_size, check_message_size, encoded_message_len,
};

use std::sync::Arc;

/// Both ports, as one adapter provides them.
#[derive(Clone, Debug)]
pub struct Storage {
    /// Where documents live.
    pub blobs: Arc<dyn BlobStore>,
    /// Where work waits for a worker.
    pub queues: Arc<dyn MessageQueue>,
}

impl Storage {
    /// Storage transactions made through both ports by this process so far.
    pub fn transactions(&self) -> TransactionCounts {
        self.blobs.transactions().snapshot() + self.queues.transactions().snapshot()
    }
}
