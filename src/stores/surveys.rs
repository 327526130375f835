//! Survey definitions as JSON blobs, behind caches keyed by tenant.

use std::sync::Arc;

use moka::future::Cache;

use super::error::{decode, encode};
use super::{Context, StoreError, StoreSettings, keys};
use crate::domain::{Survey, SurveySlug, TenantSlug};
use crate::storage::{BlobStore, Error, ListRequest, PutMode};

/// Reads and writes survey definitions; reads are served from the cache while fresh.
#[derive(Clone, Debug)]
pub struct SurveyStore {
    blobs: Arc<dyn BlobStore>,
    // Keys always carry the tenant, so one tenant's entry can never answer for another's.
    surveys: Cache<(TenantSlug, SurveySlug), Option<Arc<Survey>>>,
    slugs: Cache<TenantSlug, Arc<Vec<SurveySlug>>>,
}

impl SurveyStore {
    pub(super) fn new(blobs: Arc<dyn BlobStore>, settings: &StoreSettings) -> Self {
        Self {
            blobs,
            surveys: settings.cache(),
            slugs: settings.cache(),
        }
    }

    /// The survey, if the tenant has one with this slug.
    pub async fn get(
        &self,
        tenant: &TenantSlug,
        slug: &SurveySlug,
    ) -> Result<Option<Arc<Survey>>, StoreError> {
        let cache_key = (tenant.clone(), slug.clone());
        if let Some(cached) = self.surveys.get(&cache_key).await {
            return Ok(cached);
        }
        let key = keys::survey(tenant, slug);
        let survey = match self.blobs.get(&key).await {
            Ok(blob) => Some(Arc::new(decode::<Survey>(&key, &blob.body)?)),
            Err(Error::NotFound { .. }) => None,
            Err(error) => return Err(error).context(|| format!("reading survey {tenant}/{slug}")),
        };
        self.surveys.insert(cache_key, survey.clone()).await;
        Ok(survey)
    }

    /// The slugs of all the tenant's surveys, in slug order.
    pub async fn slugs(&self, tenant: &TenantSlug) -> Result<Arc<Vec<SurveySlug>>, StoreError> {
        if let Some(cached) = self.slugs.get(tenant).await {
            return Ok(cached);
        }
        let prefix = keys::surveys_of(tenant);
        let mut request = ListRequest::new(prefix.clone(), 0);
        let mut slugs = Vec::new();
        loop {
            let page = self
                .blobs
                .list(&request)
                .await
                .context(|| format!("listing the surveys of {tenant}"))?;
            slugs.extend(page.items.iter().filter_map(|meta| {
                let name = meta.key.strip_prefix(&prefix)?.strip_suffix(".json")?;
                SurveySlug::parse(name).ok()
            }));
            match page.continuation {
                Some(token) => request.continuation = Some(token),
                None => break,
            }
        }
        let slugs = Arc::new(slugs);
        self.slugs.insert(tenant.clone(), slugs.clone()).await;
        Ok(slugs)
    }

    /// The tenant's published surveys, in slug order.
    pub async fn published(&self, tenant: &TenantSlug) -> Result<Vec<Arc<Survey>>, StoreError> {
        let mut published = Vec::new();
        for slug in self.slugs(tenant).await?.iter() {
            if let Some(survey) = self.get(tenant, slug).await?
                && survey.published
            {
                published.push(survey);
            }
        }
        Ok(published)
    }

    /// Stores a survey (new or changed) and forgets cached copies in this process.
    pub async fn save(&self, survey: &Survey) -> Result<(), StoreError> {
        let key = keys::survey(&survey.tenant, &survey.slug);
        let body = encode(&key, survey)?;
        self.blobs
            .put(&key, body.into(), PutMode::Overwrite)
            .await
            .context(|| format!("saving survey {}/{}", survey.tenant, survey.slug))?;
        self.surveys
            .invalidate(&(survey.tenant.clone(), survey.slug.clone()))
            .await;
        self.slugs.invalidate(&survey.tenant).await;
        Ok(())
    }
}
