//! Stored answers: one JSON blob per answer, written create-only so a repeated write of the
//! same answer (a redelivered message, a resubmitted form) keeps the first copy.

use std::sync::Arc;

use super::error::{decode, encode};
use super::{Context, StoreError, keys};
use crate::domain::{Answer, Reference, SurveyRef};
use crate::storage::{BlobPut, BlobStore, Error, PutMode};

/// Reads and writes stored answers and the incoming copies of oversized ones.
#[derive(Clone, Debug)]
pub struct AnswerStore {
    blobs: Arc<dyn BlobStore>,
}

impl AnswerStore {
    pub(super) fn new(blobs: Arc<dyn BlobStore>) -> Self {
        Self { blobs }
    }

    /// Stores an answer unless one with its reference is already stored, in which case the
    /// stored copy is returned: the first copy stands.
    pub async fn store(&self, answer: &Answer) -> Result<Option<Answer>, StoreError> {
        Ok(self.store_many(&[answer]).await?.pop().flatten())
    }

    /// Stores answers as `store` does, with one call for all of them: for each answer, in
    /// order, `None` if it was stored now or the copy stored before.
    pub async fn store_many(&self, answers: &[&Answer]) -> Result<Vec<Option<Answer>>, StoreError> {
        let puts = create_puts(answers)?;
        let keys: Vec<String> = puts.iter().map(|put| put.key.clone()).collect();
        let written = self
            .blobs
            .put_many(puts)
            .await
            .context(|| format!("storing {} answers", keys.len()))?;
        // The keys already taken, whose stored copies stand, are read back with one call.
        let mut taken = Vec::new();
        for (index, (key, written)) in keys.iter().zip(written).enumerate() {
            match written {
                Ok(_) => {}
                Err(Error::AlreadyExists { .. }) => taken.push(index),
                Err(error) => return Err(error).context(|| format!("storing answer {key}")),
            }
        }
        let taken_keys: Vec<String> = taken.iter().map(|&index| keys[index].clone()).collect();
        let mut stored = vec![None; keys.len()];
        for (index, copy) in taken.into_iter().zip(self.read_many(&taken_keys).await?) {
            stored[index] = copy;
        }
        Ok(stored)
    }

    /// Stores answers create-only, leaving a copy already stored as it is without reading it
    /// back: for answers moved here from another region, where a copy already here is the
    /// same answer moved by an earlier attempt.
    pub async fn create_many(&self, answers: &[&Answer]) -> Result<(), StoreError> {
        let puts = create_puts(answers)?;
        let written = self
            .blobs
            .put_many(puts)
            .await
            .context(|| format!("storing {} moved answers", answers.len()))?;
        for (answer, written) in answers.iter().zip(written) {
            match written {
                Ok(_) | Err(Error::AlreadyExists { .. }) => {}
                Err(error) => {
                    return Err(error)
                        .context(|| format!("storing moved answer {}", answer.reference));
                }
            }
        }
        Ok(())
    }

    /// A stored answer, if there is one.
    pub async fn get(
        &self,
        survey: &SurveyRef,
        reference: Reference,
    ) -> Result<Option<Answer>, StoreError> {
        self.read(&keys::answer(survey, reference)).await
    }

    /// Several stored answers of one survey, in the order of `references`; `None` where there
    /// is none.
    pub async fn get_many(
        &self,
        survey: &SurveyRef,
        references: &[Reference],
    ) -> Result<Vec<Option<Answer>>, StoreError> {
        let keys: Vec<String> = references
            .iter()
            .map(|reference| keys::answer(survey, *reference))
            .collect();
        self.read_many(&keys).await
    }

    /// The incoming copy of an oversized answer, if it is still there.
    pub async fn incoming(
        &self,
        survey: &SurveyRef,
        reference: Reference,
    ) -> Result<Option<Answer>, StoreError> {
        self.read(&keys::incoming_answer(survey, reference)).await
    }

    /// Removes the incoming copy once the answer is stored; already gone is fine.
    pub async fn remove_incoming(
        &self,
        survey: &SurveyRef,
        reference: Reference,
    ) -> Result<(), StoreError> {
        let key = keys::incoming_answer(survey, reference);
        match self.blobs.delete(&key, None).await {
            Ok(()) | Err(Error::NotFound { .. }) => Ok(()),
            Err(error) => Err(error).context(|| format!("removing {key}")),
        }
    }

    /// Reads answer blobs by key, with one call: each one's own outcome, so one damaged answer
    /// does not hide the others.
    pub async fn read_each(
        &self,
        keys: &[String],
    ) -> Result<Vec<Result<Option<Answer>, StoreError>>, StoreError> {
        if keys.is_empty() {
            return Ok(Vec::new());
        }
        let blobs = self
            .blobs
            .get_many(keys)
            .await
            .context(|| format!("reading {} answers", keys.len()))?;
        Ok(keys
            .iter()
            .zip(blobs)
            .map(|(key, blob)| match blob {
                Ok(blob) => Ok(Some(decode(key, &blob.body)?)),
                Err(Error::NotFound { .. }) => Ok(None),
                Err(error) => Err(error).context(|| format!("reading answer {key}")),
            })
            .collect())
    }

    /// Reads answer blobs by key, with one call; `None` where there is none.
    async fn read_many(&self, keys: &[String]) -> Result<Vec<Option<Answer>>, StoreError> {
        self.read_each(keys).await?.into_iter().collect()
    }

    /// Reads an answer blob by key.
    pub async fn read(&self, key: &str) -> Result<Option<Answer>, StoreError> {
        match self.blobs.get(key).await {
            Ok(blob) => Ok(Some(decode(key, &blob.body)?)),
            Err(Error::NotFound { .. }) => Ok(None),
            Err(error) => Err(error).context(|| format!("reading answer {key}")),
        }
    }
}

/// Create-only writes of `answers` at their keys.
fn create_puts(answers: &[&Answer]) -> Result<Vec<BlobPut>, StoreError> {
    answers
        .iter()
        .map(|answer| {
            let key = keys::answer(&answer.survey_ref(), answer.reference);
            let body = encode(&key, answer)?.into();
            Ok(BlobPut {
                key,
                body,
                mode: PutMode::Create,
            })
        })
        .collect()
}
