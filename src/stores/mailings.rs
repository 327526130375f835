//! Mailings to a survey's participants, their templates, and the tenant's opt-outs. The
//! layout:
//!
//! - `participants/{survey}/templates`: the survey's invitation and reminder templates.
//! - `participants/{survey}/mailings/{id}`: a mailing and its progress, written by the one
//!   worker that holds its queue message (and by whoever starts it, create-only).
//! - `optouts/{tenant}/{hex of email}`: an address that asked for no more mail from the
//!   tenant, for every survey of theirs.
//!
//! Starting a mailing records it and queues a message naming it on the `mailing` queue; a
//! worker sends it, page by page, and records where it got after each page.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::error::{decode, encode};
use super::tokens::hex;
use super::work_queue::WorkQueue;
use super::{Context, StoreError};
use crate::domain::mailing::{MAX_MAILINGS, Mailing, MailingKind, MailingState, Templates};
use crate::domain::{Email, SurveyRef, SurveySlug, TenantSlug};
use crate::storage::{BlobStore, ETag, Error, ListRequest, PutMode, Storage};

/// The queue mailings wait on.
pub const MAILING_QUEUE: &str = "mailing";

fn templates_key(survey: &SurveyRef) -> String {
    format!("{}templates", super::participants::participants_of(survey))
}

fn mailings_of(survey: &SurveyRef) -> String {
    format!("{}mailings/", super::participants::participants_of(survey))
}

fn mailing_key(survey: &SurveyRef, id: &str) -> String {
    format!("{}{id}", mailings_of(survey))
}

fn optout_key(tenant: &TenantSlug, email: &Email) -> String {
    format!("optouts/{tenant}/{}", hex(email.as_str().as_bytes()))
}

/// The queued message that names a mailing.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct MailingMessage {
    pub tenant: TenantSlug,
    pub survey: SurveySlug,
    pub id: String,
}

/// Why a mailing was not started.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    /// One is being sent: one at a time, so none reaches a participant twice at once.
    #[error("a mailing of this survey is being sent; wait for it to finish")]
    Busy,
    /// The survey has as many as it may keep.
    #[error("a survey keeps at most {MAX_MAILINGS} mailings")]
    TooMany,
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Mailings, templates and opt-outs.
#[derive(Clone, Debug)]
pub struct MailingStore {
    blobs: Arc<dyn BlobStore>,
    queue: WorkQueue,
}

impl MailingStore {
    pub(super) async fn create(storage: &Storage) -> Result<Self, StoreError> {
        Ok(Self {
            blobs: storage.blobs.clone(),
            queue: WorkQueue::create(storage, MAILING_QUEUE).await?,
        })
    }

    /// The queue workers take mailings from.
    pub fn queue(&self) -> &WorkQueue {
        &self.queue
    }

    /// The survey's templates (none written: all built in), and their version.
    pub async fn templates(
        &self,
        survey: &SurveyRef,
    ) -> Result<(Templates, Option<ETag>), StoreError> {
        let key = templates_key(survey);
        match self.blobs.get(&key).await {
            Ok(blob) => Ok((decode(&key, &blob.body)?, Some(blob.meta.etag))),
            Err(Error::NotFound { .. }) => Ok((Templates::default(), None)),
            Err(error) => Err(error).context(|| format!("reading {key}")),
        }
    }

    /// Changes the survey's templates as `change` says (again if changed meanwhile).
    pub async fn change_templates(
        &self,
        survey: &SurveyRef,
        change: impl Fn(&mut Templates),
    ) -> Result<(), StoreError> {
        let key = templates_key(survey);
        loop {
            let (mut templates, etag) = self.templates(survey).await?;
            change(&mut templates);
            let mode = match etag {
                Some(etag) => PutMode::Update(etag),
                None => PutMode::Create,
            };
            match self
                .blobs
                .put(&key, encode(&key, &templates)?.into(), mode)
                .await
            {
                Ok(_) => return Ok(()),
                Err(Error::Precondition { .. } | Error::AlreadyExists { .. }) => continue,
                Err(error) => return Err(error).context(|| format!("writing {key}")),
            }
        }
    }

    /// The survey's mailings, the latest first.
    pub async fn list(&self, survey: &SurveyRef) -> Result<Vec<Mailing>, StoreError> {
        let prefix = mailings_of(survey);
        let page = self
            .blobs
            .list(&ListRequest::new(prefix.clone(), MAX_MAILINGS + 10))
            .await
            .context(|| format!("listing {prefix}"))?;
        let keys: Vec<String> = page.items.into_iter().map(|meta| meta.key).collect();
        let found = self
            .blobs
            .get_many(&keys)
            .await
            .context(|| format!("reading {prefix}"))?;
        let mut mailings = Vec::with_capacity(keys.len());
        for (key, blob) in keys.iter().zip(found) {
            match blob {
                Ok(blob) => mailings.push(decode::<Mailing>(key, &blob.body)?),
                Err(Error::NotFound { .. }) => {}
                Err(error) => return Err(error).context(|| format!("reading {key}")),
            }
        }
        mailings.sort_by(|a, b| b.started.cmp(&a.started).then(b.id.cmp(&a.id)));
        Ok(mailings)
    }

    /// One mailing and its version.
    pub async fn get(
        &self,
        survey: &SurveyRef,
        id: &str,
    ) -> Result<Option<(Mailing, ETag)>, StoreError> {
        if id.is_empty() || id.len() > 64 || !id.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Ok(None);
        }
        let key = mailing_key(survey, id);
        match self.blobs.get(&key).await {
            Ok(blob) => Ok(Some((decode(&key, &blob.body)?, blob.meta.etag))),
            Err(Error::NotFound { .. }) => Ok(None),
            Err(error) => Err(error).context(|| format!("reading {key}")),
        }
    }

    /// Writes a mailing's progress over the version `etag`; the new version, or `None` when
    /// someone else wrote it meanwhile.
    pub async fn save(
        &self,
        survey: &SurveyRef,
        mailing: &Mailing,
        etag: ETag,
    ) -> Result<Option<ETag>, StoreError> {
        let key = mailing_key(survey, &mailing.id);
        match self
            .blobs
            .put(&key, encode(&key, mailing)?.into(), PutMode::Update(etag))
            .await
        {
            Ok(meta) => Ok(Some(meta.etag)),
            Err(Error::Precondition { .. }) => Ok(None),
            Err(error) => Err(error).context(|| format!("writing {key}")),
        }
    }

    /// Records a new mailing of `kind` and queues it, unless one is being sent.
    pub async fn start(
        &self,
        survey: &SurveyRef,
        kind: MailingKind,
        started_by: &str,
    ) -> Result<Mailing, StartError> {
        let mailings = self.list(survey).await?;
        if mailings
            .iter()
            .any(|mailing| mailing.state == MailingState::Sending)
        {
            return Err(StartError::Busy);
        }
        if mailings.len() >= MAX_MAILINGS {
            return Err(StartError::TooMany);
        }
        let mailing = Mailing {
            id: uuid::Uuid::new_v4().simple().to_string(),
            kind,
            state: MailingState::Sending,
            sent: 0,
            bounced: 0,
            deferred: 0,
            pass: 1,
            started_by: started_by.to_owned(),
            started: time::OffsetDateTime::now_utc(),
            finished: None,
            cursor: None,
        };
        let key = mailing_key(survey, &mailing.id);
        self.blobs
            .put(&key, encode(&key, &mailing)?.into(), PutMode::Create)
            .await
            .context(|| format!("recording {key}"))?;
        self.queue
            .send(&MailingMessage {
                tenant: survey.tenant.clone(),
                survey: survey.slug.clone(),
                id: mailing.id.clone(),
            })
            .await?;
        Ok(mailing)
    }

    /// Records that `email` wants no more mail from `tenant`.
    pub async fn opt_out(&self, tenant: &TenantSlug, email: &Email) -> Result<(), StoreError> {
        let key = optout_key(tenant, email);
        let at = time::OffsetDateTime::now_utc()
            .format(&time::format_description::well_known::Rfc3339)
            .unwrap_or_default();
        match self.blobs.put(&key, at.into(), PutMode::Create).await {
            Ok(_) | Err(Error::AlreadyExists { .. }) => Ok(()),
            Err(error) => Err(error).context(|| format!("writing {key}")),
        }
    }

    /// Which of `emails` opted out of the tenant's mail, in their order.
    pub async fn opted_out(
        &self,
        tenant: &TenantSlug,
        emails: &[&Email],
    ) -> Result<Vec<bool>, StoreError> {
        let keys: Vec<String> = emails
            .iter()
            .map(|email| optout_key(tenant, email))
            .collect();
        let found = self
            .blobs
            .get_many(&keys)
            .await
            .context(|| format!("reading opt-outs of {tenant}"))?;
        found
            .into_iter()
            .zip(&keys)
            .map(|(blob, key)| match blob {
                Ok(_) => Ok(true),
                Err(Error::NotFound { .. }) => Ok(false),
                Err(error) => Err(error).context(|| format!("reading {key}")),
            })
            .collect()
    }
}
