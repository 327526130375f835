//! Respondents' saved progress ("continue later"): one small document per resume link, under
//! its survey, by a digest of the link's id. Never read by counting, lists or exports; deleted
//! when the answers are sent, with its survey, and by the reconcile pass once expired.

use std::sync::Arc;

use super::error::{decode, encode};
use super::{Context, StoreError, keys};
use crate::domain::SurveyRef;
use crate::domain::progress::{MAX_PROGRESS_BYTES, ResumeId, SavedProgress};
use crate::storage::{BlobStore, Error, PutMode};

/// Why progress was not saved.
#[derive(Debug, thiserror::Error)]
pub enum SaveError {
    /// The answers so far are larger than a saved progress may be.
    #[error("the answers so far are larger than {MAX_PROGRESS_BYTES} bytes")]
    TooLarge,
    /// Storage failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Saved progress, by survey and resume link.
#[derive(Clone, Debug)]
pub struct ProgressStore {
    blobs: Arc<dyn BlobStore>,
}

impl ProgressStore {
    pub(super) fn new(blobs: Arc<dyn BlobStore>) -> Self {
        Self { blobs }
    }

    /// Saves `progress` under `id` (replacing what the link held before).
    pub async fn save(
        &self,
        survey: &SurveyRef,
        id: &ResumeId,
        progress: &SavedProgress,
    ) -> Result<(), SaveError> {
        let key = keys::progress(survey, &id.stored_name());
        let body = encode(&key, progress)?;
        if body.len() > MAX_PROGRESS_BYTES {
            return Err(SaveError::TooLarge);
        }
        self.blobs
            .put(&key, body.into(), PutMode::Overwrite)
            .await
            .context(|| format!("saving progress of {survey}"))?;
        Ok(())
    }

    /// The progress saved under `id` for `survey`, if any.
    pub async fn load(
        &self,
        survey: &SurveyRef,
        id: &ResumeId,
    ) -> Result<Option<SavedProgress>, StoreError> {
        let key = keys::progress(survey, &id.stored_name());
        match self.blobs.get(&key).await {
            Ok(blob) => Ok(Some(decode(&key, &blob.body)?)),
            Err(Error::NotFound { .. }) => Ok(None),
            Err(error) => Err(error).context(|| format!("reading progress of {survey}")),
        }
    }

    /// Deletes the progress saved under `id` (gone already is fine).
    pub async fn delete(&self, survey: &SurveyRef, id: &ResumeId) -> Result<(), StoreError> {
        let key = keys::progress(survey, &id.stored_name());
        match self.blobs.delete(&key, None).await {
            Ok(()) | Err(Error::NotFound { .. }) => Ok(()),
            Err(error) => Err(error).context(|| format!("deleting progress of {survey}")),
        }
    }
}
