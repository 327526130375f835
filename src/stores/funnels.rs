//! Each survey's drop-off counts (`domain::funnel`), one document per survey in the storage of
//! the region whose site showed the pages. Web processes merge what they counted in memory
//! into it now and then, under If-Match, so concurrent merges from several processes all land.

use std::sync::Arc;

use super::error::decode;
use super::{Context, StoreError, json_blob, keys};
use crate::domain::SurveyRef;
use crate::domain::funnel::Funnel;
use crate::storage::{BlobStore, Error};

/// Drop-off counts, by survey.
#[derive(Clone, Debug)]
pub struct FunnelStore {
    blobs: Arc<dyn BlobStore>,
}

impl FunnelStore {
    pub(super) fn new(blobs: Arc<dyn BlobStore>) -> Self {
        Self { blobs }
    }

    /// Adds counts to the survey's.
    pub async fn add(&self, survey: &SurveyRef, counted: &Funnel) -> Result<(), StoreError> {
        if counted.is_empty() {
            return Ok(());
        }
        let key = keys::funnel(survey);
        json_blob::update(self.blobs.as_ref(), &key, |funnel: &mut Funnel| {
            funnel.merge(counted);
            Some(())
        })
        .await?;
        Ok(())
    }

    /// The survey's counts so far (none yet: all zero).
    pub async fn read(&self, survey: &SurveyRef) -> Result<Funnel, StoreError> {
        let key = keys::funnel(survey);
        match self.blobs.get(&key).await {
            Ok(blob) => decode(&key, &blob.body),
            Err(Error::NotFound { .. }) => Ok(Funnel::default()),
            Err(error) => Err(error).context(|| format!("reading the drop-off counts of {survey}")),
        }
    }
}
