//! The one error type both ports return; adapters convert their own errors into it.

use std::time::Duration;

/// A failed storage call. Callers match on the variants that carry meaning for them
/// (`NotFound`, `AlreadyExists`, `Precondition`, ...); everything else is `Backend`.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The blob, queue or message does not exist.
    #[error("{what} was not found")]
    NotFound {
        /// What was looked for, e.g. `blob "tenants/acme.json"`.
        what: String,
    },
    /// A create-only put found the blob already there.
    #[error("blob {key:?} already exists")]
    AlreadyExists {
        /// The blob's key.
        key: String,
    },
    /// An If-Match condition failed: somebody else changed (or removed) the blob first.
    #[error("blob {key:?} was changed by someone else (ETag mismatch)")]
    Precondition {
        /// The blob's key.
        key: String,
    },
    /// A message's pop receipt is stale: it was received again, updated or deleted since.
    #[error("message {id} is no longer held with that pop receipt")]
    PopReceiptMismatch {
        /// The message id.
        id: String,
    },
    /// A message is larger than every queue backend accepts.
    #[error("message is {encoded_len} bytes once encoded; the limit is {limit} bytes")]
    MessageTooLarge {
        /// Size of the message after base64 encoding.
        encoded_len: usize,
        /// The limit, the same for every backend.
        limit: usize,
    },
    /// The caller asked for something no backend can do (an empty key, 33 messages, ...).
    #[error("invalid storage request: {0}")]
    InvalidArgument(String),
    /// The backend stayed busy (locked) past the retry budget.
    #[error("storage stayed busy for {0:?}; giving up")]
    Busy(Duration),
    /// The disk (or the account) has no room for the write; nothing of it was kept.
    #[error("storage is full: {0}")]
    StorageFull(String),
    /// Anything else the backend reported: I/O, network, corrupt data.
    #[error("storage backend failed: {0}")]
    Backend(#[source] Box<dyn std::error::Error + Send + Sync + 'static>),
}

/// Result of a storage call.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// Wraps a backend-specific error.
    pub fn backend(source: impl Into<Box<dyn std::error::Error + Send + Sync + 'static>>) -> Self {
        Self::Backend(source.into())
    }

    /// A `NotFound` for a blob key.
    pub fn blob_not_found(key: &str) -> Self {
        Self::NotFound {
            what: format!("blob {key:?}"),
        }
    }

    /// A `NotFound` for a queue.
    pub fn queue_not_found(queue: &str) -> Self {
        Self::NotFound {
            what: format!("queue {queue:?}"),
        }
    }

    /// A `NotFound` for a message.
    pub fn message_not_found(id: &str) -> Self {
        Self::NotFound {
            what: format!("message {id}"),
        }
    }
}
