//! Partial responses: the answers so far of respondents who have not sent them, for a survey
//! that keeps them (`keep_partial`). One small document per respondent's form, under its
//! survey, by the form's reference, replaced each time they leave a page and deleted when the
//! response is sent (and with the survey). Never queued, counted or summarised; lists,
//! downloads and an asked-for summary read them.

use std::sync::Arc;

use super::error::{decode, encode};
use super::{Context, StoreError, keys};
use crate::domain::{Answer, Reference, SurveyRef};
use crate::storage::{BlobStore, Error, ListRequest, PutMode};

/// Most partial responses read for one list, download or summary (the newest are not
/// favoured: storage lists them by reference).
pub const MAX_PARTIALS_READ: usize = 10_000;

/// Partial responses, by survey and form reference.
#[derive(Clone, Debug)]
pub struct PartialStore {
    blobs: Arc<dyn BlobStore>,
}

impl PartialStore {
    pub(super) fn new(blobs: Arc<dyn BlobStore>) -> Self {
        Self { blobs }
    }

    /// Keeps `answer` (marked partial) as its form's answers so far, replacing the last.
    pub async fn keep(&self, survey: &SurveyRef, answer: &Answer) -> Result<(), StoreError> {
        let key = keys::partial(survey, answer.reference);
        let body = encode(&key, answer)?;
        self.blobs
            .put(&key, body.into(), PutMode::Overwrite)
            .await
            .context(|| format!("keeping a partial response of {survey}"))?;
        Ok(())
    }

    /// Forgets the partial response of the form `reference` (gone already is fine).
    pub async fn forget(&self, survey: &SurveyRef, reference: Reference) -> Result<(), StoreError> {
        let key = keys::partial(survey, reference);
        match self.blobs.delete(&key, None).await {
            Ok(()) | Err(Error::NotFound { .. }) => Ok(()),
            Err(error) => {
                Err(error).context(|| format!("forgetting a partial response of {survey}"))
            }
        }
    }

    /// The survey's partial responses, at most `MAX_PARTIALS_READ`, by reference.
    pub async fn list(&self, survey: &SurveyRef) -> Result<Vec<Answer>, StoreError> {
        let prefix = keys::partials_of(survey);
        let mut found = Vec::new();
        let mut request = ListRequest::new(prefix, 0);
        loop {
            let page = self
                .blobs
                .list(&request)
                .await
                .context(|| format!("listing the partial responses of {survey}"))?;
            for item in &page.items {
                if found.len() >= MAX_PARTIALS_READ {
                    return Ok(found);
                }
                match self.blobs.get(&item.key).await {
                    Ok(blob) => found.push(decode::<Answer>(&item.key, &blob.body)?),
                    // Sent (and forgotten) while listed.
                    Err(Error::NotFound { .. }) => {}
                    Err(error) => {
                        return Err(error)
                            .context(|| format!("reading a partial response of {survey}"));
                    }
                }
            }
            match page.continuation {
                Some(next) => request.continuation = Some(next),
                None => return Ok(found),
            }
        }
    }
}
