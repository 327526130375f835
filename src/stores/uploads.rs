//! Files respondents uploaded to file questions: each a blob of its own, filed under its
//! survey, the answer's reference and the question, by the upload's id, written create-only.
//! The answer holds the reference (`FileAnswer`), never the bytes. Files go with their
//! response, with their survey, and, when no answer came to hold them, in the reconcile pass.

use std::sync::Arc;

use bytes::Bytes;

use super::{Context, StoreError, keys};
use crate::domain::{Reference, SurveyRef};
use crate::storage::{BlobStore, Error, PutMode};

/// Uploaded files, by survey, answer and question.
#[derive(Clone, Debug)]
pub struct UploadStore {
    blobs: Arc<dyn BlobStore>,
}

impl UploadStore {
    pub(super) fn new(blobs: Arc<dyn BlobStore>) -> Self {
        Self { blobs }
    }

    /// Stores a file uploaded for `question` of the answer `reference`, as `id`.
    pub async fn put(
        &self,
        survey: &SurveyRef,
        reference: Reference,
        question: &str,
        id: &str,
        body: Bytes,
    ) -> Result<(), StoreError> {
        let key = keys::upload(survey, reference, question, id);
        match self.blobs.put(&key, body, PutMode::Create).await {
            // An id is drawn at random: there already, it is this very file.
            Ok(_) | Err(Error::AlreadyExists { .. }) => Ok(()),
            Err(error) => Err(error).context(|| format!("storing a file uploaded to {survey}")),
        }
    }

    /// The bytes of a file, if it is there.
    pub async fn get(
        &self,
        survey: &SurveyRef,
        reference: Reference,
        question: &str,
        id: &str,
    ) -> Result<Option<Bytes>, StoreError> {
        let key = keys::upload(survey, reference, question, id);
        match self.blobs.get(&key).await {
            Ok(blob) => Ok(Some(blob.body)),
            Err(Error::NotFound { .. }) => Ok(None),
            Err(error) => Err(error).context(|| format!("reading a file uploaded to {survey}")),
        }
    }

    /// Deletes every file uploaded for the answer `reference` (its response was deleted);
    /// returns how many.
    pub async fn delete_answer(
        &self,
        survey: &SurveyRef,
        reference: Reference,
    ) -> Result<u64, StoreError> {
        let prefix = keys::uploads_of_answer(survey, reference);
        super::delete_prefix(self.blobs.as_ref(), &prefix).await
    }
}
