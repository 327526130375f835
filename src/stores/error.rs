//! The typed stores' error: what was being done, and what failed.

use crate::storage;

/// A failed store operation.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// Storage failed while doing something.
    #[error("storage failed while {doing}")]
    Storage {
        /// What the store was doing, e.g. `reading survey acme/team`.
        doing: String,
        /// The storage error.
        #[source]
        source: storage::Error,
    },
    /// A stored document could not be read back.
    #[error("{key} does not hold a valid document")]
    Corrupt {
        /// The blob's key.
        key: String,
        /// Why it did not parse.
        #[source]
        source: serde_json::Error,
    },
    /// A document breaks a rule every stored document keeps, so it was not written.
    #[error("refusing to write {key}: {reason}")]
    Refused {
        /// The blob's key.
        key: String,
        /// The rule it breaks.
        reason: &'static str,
    },
    /// A failure shared by several callers that waited for one read (the caches coalesce
    /// concurrent reads of one key).
    #[error(transparent)]
    Shared(std::sync::Arc<StoreError>),
    /// A document could not be encoded.
    #[error("cannot encode a document for {key}")]
    Encode {
        /// The blob's key.
        key: String,
        /// Why.
        #[source]
        source: serde_json::Error,
    },
}

impl StoreError {
    /// Whether storage had no room for a write (so nothing was saved, and trying again later
    /// may work).
    pub fn is_full(&self) -> bool {
        match self {
            StoreError::Storage {
                source: storage::Error::StorageFull(_),
                ..
            } => true,
            StoreError::Shared(shared) => shared.is_full(),
            _ => false,
        }
    }

    /// Whether a stored document could not be read back.
    pub fn is_corrupt(&self) -> bool {
        match self {
            StoreError::Corrupt { .. } => true,
            StoreError::Shared(shared) => shared.is_corrupt(),
            _ => false,
        }
    }
}

/// Adds what was being done to a storage error.
pub trait Context<T> {
    /// Wraps the error with a description of the step, built only on failure.
    fn context(self, doing: impl FnOnce() -> String) -> Result<T, StoreError>;
}

impl<T> Context<T> for Result<T, storage::Error> {
    fn context(self, doing: impl FnOnce() -> String) -> Result<T, StoreError> {
        self.map_err(|source| StoreError::Storage {
            doing: doing(),
            source,
        })
    }
}

/// Parses a stored JSON document.
pub(super) fn decode<T: serde::de::DeserializeOwned>(
    key: &str,
    body: &[u8],
) -> Result<T, StoreError> {
    serde_json::from_slice(body).map_err(|source| StoreError::Corrupt {
        key: key.to_owned(),
        source,
    })
}

/// Encodes a document as JSON.
pub(super) fn encode<T: serde::Serialize>(key: &str, value: &T) -> Result<Vec<u8>, StoreError> {
    serde_json::to_vec(value).map_err(|source| StoreError::Encode {
        key: key.to_owned(),
        source,
    })
}
