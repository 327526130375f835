//! Export jobs: a record per request (pending → running → done | failed, with counts, times and
//! the error if any) and a queue any worker takes them from.

use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

use super::error::{decode, encode};
use super::work_queue::WorkQueue;
use super::{Context, StoreError};
use crate::domain::{SurveyId, SurveyRef, SurveySlug, TenantSlug};
use crate::storage::{BlobStore, Error, Message, PutMode, Storage};

/// The queue of export requests.
pub const EXPORT_QUEUE: &str = "exports";

/// Where an export job stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ExportStatus {
    /// Waiting for a worker.
    Pending,
    /// A worker is writing it.
    Running,
    /// Every answer is written.
    Done,
    /// It stopped; `error` says why.
    Failed,
}

/// One export request of one survey.
#[derive(Clone, Debug, Serialize, Deserialize, utoipa::ToSchema)]
pub struct ExportJob {
    /// Its id.
    pub id: String,
    /// The survey's owner.
    pub tenant: TenantSlug,
    /// The survey.
    pub survey: SurveySlug,
    /// The survey's identity (empty for jobs older than identities).
    #[serde(default)]
    pub survey_id: SurveyId,
    /// Where it stands.
    pub status: ExportStatus,
    /// Responses written so far.
    pub exported: u64,
    /// Responses to write in all.
    pub total: u64,
    /// When it was requested.
    #[schema(value_type = String, format = DateTime)]
    #[serde(with = "time::serde::rfc3339")]
    pub created: OffsetDateTime,
    /// When a worker started it.
    #[schema(value_type = Option<String>, format = DateTime)]
    #[serde(default, with = "time::serde::rfc3339::option")]
    pub started: Option<OffsetDateTime>,
    /// When it finished (done or failed).
    #[schema(value_type = Option<String>, format = DateTime)]
    #[serde(default, with = "time::serde::rfc3339::option")]
    pub finished: Option<OffsetDateTime>,
    /// Why it failed.
    #[serde(default)]
    pub error: Option<String>,
}

impl ExportJob {
    /// The survey it exports.
    pub fn survey_ref(&self) -> SurveyRef {
        SurveyRef {
            tenant: self.tenant.clone(),
            slug: self.survey.clone(),
            id: self.survey_id.clone(),
        }
    }
}

/// What an export message names.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ExportRequest {
    /// The tenant.
    pub tenant: TenantSlug,
    /// The job's id.
    pub id: String,
}

fn key(tenant: &TenantSlug, id: &str) -> String {
    format!("exports/{tenant}/{id}.json")
}

/// An export request a worker holds, kept hidden from other workers while the export runs.
#[derive(Debug)]
pub struct HeldRequest {
    /// The queue message.
    pub message: Message,
    visibility: Duration,
    since: std::time::Instant,
}

/// Export job records and their queue.
#[derive(Clone, Debug)]
pub struct ExportStore {
    blobs: Arc<dyn BlobStore>,
    queue: WorkQueue,
}

impl ExportStore {
    /// Creates the export queue if missing; called once at start-up.
    pub(super) async fn create(storage: &Storage) -> Result<Self, StoreError> {
        Ok(Self {
            blobs: storage.blobs.clone(),
            queue: WorkQueue::create(storage, EXPORT_QUEUE).await?,
        })
    }

    /// The export queue.
    pub fn queue(&self) -> &WorkQueue {
        &self.queue
    }

    /// Records a pending job and queues it.
    pub async fn request(&self, survey: &SurveyRef) -> Result<ExportJob, StoreError> {
        let tenant = &survey.tenant;
        let job = ExportJob {
            id: uuid::Uuid::new_v4().simple().to_string()[..16].to_owned(),
            tenant: tenant.clone(),
            survey: survey.slug.clone(),
            survey_id: survey.id.clone(),
            status: ExportStatus::Pending,
            exported: 0,
            total: 0,
            created: OffsetDateTime::now_utc(),
            started: None,
            finished: None,
            error: None,
        };
        let record = key(tenant, &job.id);
        self.blobs
            .put(&record, encode(&record, &job)?.into(), PutMode::Create)
            .await
            .context(|| format!("recording {record}"))?;
        let request = ExportRequest {
            tenant: tenant.clone(),
            id: job.id.clone(),
        };
        self.queue.send(&request).await?;
        crate::telemetry::metrics::export(crate::telemetry::metrics::ExportState::Requested);
        Ok(job)
    }

    /// A job of the tenant, if it has one with this id.
    pub async fn get(
        &self,
        tenant: &TenantSlug,
        id: &str,
    ) -> Result<Option<ExportJob>, StoreError> {
        // Ids are 16 hex digits; anything else names no job (and no blob key is built of it).
        if id.is_empty() || id.len() > 32 || !id.bytes().all(|b| b.is_ascii_alphanumeric()) {
            return Ok(None);
        }
        let record = key(tenant, id);
        match self.blobs.get(&record).await {
            Ok(blob) => Ok(Some(decode(&record, &blob.body)?)),
            Err(Error::NotFound { .. }) => Ok(None),
            Err(error) => Err(error).context(|| format!("reading {record}")),
        }
    }

    /// Saves a job's new state (only the worker running it writes it).
    pub async fn save(&self, job: &ExportJob) -> Result<(), StoreError> {
        let record = key(&job.tenant, &job.id);
        self.blobs
            .put(&record, encode(&record, job)?.into(), PutMode::Overwrite)
            .await
            .context(|| format!("saving {record}"))?;
        Ok(())
    }

    /// Takes the next export request, hidden for `visibility`.
    pub async fn receive(
        &self,
        visibility: Duration,
    ) -> Result<Option<(HeldRequest, Result<ExportRequest, String>)>, StoreError> {
        Ok(self
            .queue
            .receive(visibility)
            .await?
            .map(|(message, request)| {
                let held = HeldRequest {
                    message,
                    visibility,
                    since: std::time::Instant::now(),
                };
                (held, request)
            }))
    }

    /// Hides a held request for another visibility period once half of the last one passed,
    /// so a long export is not handed to a second worker while the first still runs.
    pub async fn keep(&self, held: &mut HeldRequest) -> Result<(), StoreError> {
        if held.since.elapsed() > held.visibility / 2 {
            self.queue
                .extend(&mut held.message, held.visibility)
                .await?;
            held.since = std::time::Instant::now();
        }
        Ok(())
    }

    /// Deletes a finished request.
    pub async fn finish(&self, message: &Message) -> Result<(), StoreError> {
        self.queue.finish(message).await
    }
}
