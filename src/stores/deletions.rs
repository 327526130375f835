//! Deleted responses: the record of each deletion (who, when, which reference), kept per
//! survey, and the queue that carries deletions and recounts to the workers.
//!
//! A deletion is recorded and queued on the request path; a worker applies it to the summary
//! under the same If-Match commit that counts answers (see `worker::deletions`), so it is
//! applied exactly once however often its message is delivered. The record outlives the
//! summary: a summary rebuilt from stored answers leaves the recorded references out.

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

use super::error::decode;
use super::json_blob;
use super::work_queue::WorkQueue;
use super::{Context, StoreError, keys};
use crate::domain::{Reference, SurveyId, SurveyRef, SurveySlug, TenantSlug};
use crate::storage::{BlobStore, Error, Storage};

/// The queue of deletions and recounts.
pub const DELETION_QUEUE: &str = "deletions";

/// Most responses one request may delete (a page of responses is 25).
pub const MAX_DELETIONS_PER_REQUEST: usize = 100;

/// One deleted response.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeletionRecord {
    /// The response's reference.
    pub reference: Reference,
    /// Who deleted it: a member's email, or `API key "label"`.
    pub by: String,
    /// When it was asked for.
    #[serde(with = "time::serde::rfc3339")]
    pub at: OffsetDateTime,
}

/// What a message on the deletion queue asks a worker to do.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum DeletionMessage {
    /// Take these counted responses out of the survey's summary, lists and exports.
    Delete {
        /// The survey's owner.
        tenant: TenantSlug,
        /// The survey.
        survey: SurveySlug,
        /// The survey's identity.
        survey_id: SurveyId,
        /// The responses.
        references: Vec<Reference>,
    },
    /// Recount what subtraction cannot take back (min and max, frequent words, latest
    /// answers) from the survey's remaining answers.
    Recount {
        /// The survey's owner.
        tenant: TenantSlug,
        /// The survey.
        survey: SurveySlug,
        /// The survey's identity.
        survey_id: SurveyId,
    },
}

impl DeletionMessage {
    /// The survey it is about.
    pub fn survey(&self) -> SurveyRef {
        let (DeletionMessage::Delete {
            tenant,
            survey,
            survey_id,
            ..
        }
        | DeletionMessage::Recount {
            tenant,
            survey,
            survey_id,
        }) = self;
        SurveyRef {
            tenant: tenant.clone(),
            slug: survey.clone(),
            id: survey_id.clone(),
        }
    }
}

/// Deletion records and their queue.
#[derive(Clone, Debug)]
pub struct DeletionStore {
    blobs: Arc<dyn BlobStore>,
    queue: WorkQueue,
}

impl DeletionStore {
    /// Creates the deletion queue if missing; called once at start-up.
    pub(super) async fn create(storage: &Storage) -> Result<Self, StoreError> {
        Ok(Self {
            blobs: storage.blobs.clone(),
            queue: WorkQueue::create(storage, DELETION_QUEUE).await?,
        })
    }

    /// The deletion queue.
    pub fn queue(&self) -> &WorkQueue {
        &self.queue
    }

    /// The survey's deletion records, oldest first.
    pub async fn records(&self, survey: &SurveyRef) -> Result<Vec<DeletionRecord>, StoreError> {
        let key = keys::deletions(survey);
        match self.blobs.get(&key).await {
            Ok(blob) => decode(&key, &blob.body),
            Err(Error::NotFound { .. }) => Ok(Vec::new()),
            Err(error) => Err(error).context(|| format!("reading {key}")),
        }
    }

    /// Records the deletion of `references` by `by` and queues it for the workers. The record
    /// is written first: a deletion queued is always recorded.
    pub async fn request(
        &self,
        survey: &SurveyRef,
        references: &[Reference],
        by: &str,
    ) -> Result<(), StoreError> {
        let key = keys::deletions(survey);
        let at = OffsetDateTime::now_utc();
        json_blob::update(
            self.blobs.as_ref(),
            &key,
            |records: &mut Vec<DeletionRecord>| {
                records.extend(references.iter().map(|&reference| DeletionRecord {
                    reference,
                    by: by.to_owned(),
                    at,
                }));
                Some(())
            },
        )
        .await?;
        self.queue
            .send(&DeletionMessage::Delete {
                tenant: survey.tenant.clone(),
                survey: survey.slug.clone(),
                survey_id: survey.id.clone(),
                references: references.to_vec(),
            })
            .await
    }

    /// Queues a recount of the survey.
    pub async fn recount(&self, survey: &SurveyRef) -> Result<(), StoreError> {
        self.queue
            .send(&DeletionMessage::Recount {
                tenant: survey.tenant.clone(),
                survey: survey.slug.clone(),
                survey_id: survey.id.clone(),
            })
            .await
    }
}
