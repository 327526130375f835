//! In-memory adapters, for unit tests: fast, isolated per instance, gone when dropped.

mod blob;
mod queue;

pub use blob::MemoryBlobStore;
pub use queue::MemoryQueue;

use std::sync::Arc;

use super::Storage;

/// A fresh, empty in-memory storage.
pub fn storage() -> Storage {
    Storage {
        blobs: Arc::new(MemoryBlobStore::default()),
        queues: Arc::new(MemoryQueue::default()),
    }
}
