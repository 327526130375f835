//! The global pause flag every worker polls (seed 000's "release the hounds"): an operator
//! holds all processing during maintenance and releases every worker at once.

use std::sync::Arc;

use super::{Context, StoreError, keys};
use crate::storage::{BlobStore, Error, PutMode};

/// Reads and sets the workers' pause flag.
#[derive(Clone, Debug)]
pub struct WorkerControl {
    blobs: Arc<dyn BlobStore>,
}

impl WorkerControl {
    pub(super) fn new(blobs: Arc<dyn BlobStore>) -> Self {
        Self { blobs }
    }

    /// Whether workers are told to hold.
    pub async fn paused(&self) -> Result<bool, StoreError> {
        match self.blobs.get(keys::WORKERS_PAUSED).await {
            Ok(_) => Ok(true),
            Err(Error::NotFound { .. }) => Ok(false),
            Err(error) => Err(error).context(|| "reading the pause flag".into()),
        }
    }

    /// Tells every worker to hold.
    pub async fn pause(&self) -> Result<(), StoreError> {
        self.blobs
            .put(keys::WORKERS_PAUSED, "paused".into(), PutMode::Overwrite)
            .await
            .context(|| "setting the pause flag".into())?;
        Ok(())
    }

    /// Releases every worker.
    pub async fn resume(&self) -> Result<(), StoreError> {
        match self.blobs.delete(keys::WORKERS_PAUSED, None).await {
            Ok(()) | Err(Error::NotFound { .. }) => Ok(()),
            Err(error) => Err(error).context(|| "clearing the pause flag".into()),
        }
    }
}
