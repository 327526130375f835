//! Survey definitions as JSON blobs, behind caches keyed by tenant.

use std::sync::Arc;

use moka::future::Cache;

use super::error::{decode, encode};
use super::{Context, StoreError, StoreSettings, keys};
use time::OffsetDateTime;

use crate::domain::definition::checked::CheckedDefinition;
use crate::domain::survey::MAX_SURVEYS_PER_TENANT;
use crate::domain::{Question, Survey, SurveyRef, SurveySlug, TenantSlug};
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
        let surveys = Cache::builder()
            .max_capacity(settings.survey_cache_bytes)
            .weigher(|_, survey: &Option<Arc<Survey>>| {
                survey.as_ref().map_or(64, |survey| survey.weight())
            })
            .time_to_live(settings.cache_ttl)
            .build();
        Self {
            blobs,
            surveys,
            slugs: settings.cache(),
        }
    }

    /// As `get`, read from storage even when cached: for a decision that must not follow a
    /// definition older than the one that asked for it.
    pub async fn fresh(
        &self,
        tenant: &TenantSlug,
        slug: &SurveySlug,
    ) -> Result<Option<Arc<Survey>>, StoreError> {
        self.surveys
            .invalidate(&(tenant.clone(), slug.clone()))
            .await;
        self.get(tenant, slug).await
    }

    /// The survey, if the tenant has one with this slug. Concurrent reads of one survey that
    /// is not cached wait for one storage read between them.
    pub async fn get(
        &self,
        tenant: &TenantSlug,
        slug: &SurveySlug,
    ) -> Result<Option<Arc<Survey>>, StoreError> {
        let cache_key = (tenant.clone(), slug.clone());
        // The common case, a cached survey, without the machinery that coalesces misses.
        if let Some(cached) = self.surveys.get(&cache_key).await {
            crate::telemetry::metrics::cache_lookup("surveys", true);
            return Ok(cached);
        }
        let load = async {
            let key = keys::survey(tenant, slug);
            match self.blobs.get(&key).await {
                Ok(blob) => Ok(Some(Arc::new(decode::<Survey>(&key, &blob.body)?))),
                Err(Error::NotFound { .. }) => Ok(None),
                Err(error) => Err(error).context(|| format!("reading survey {tenant}/{slug}")),
            }
        };
        super::cached(&self.surveys, "surveys", cache_key, load).await
    }

    /// The slugs of all the tenant's surveys, in slug order.
    pub async fn slugs(&self, tenant: &TenantSlug) -> Result<Arc<Vec<SurveySlug>>, StoreError> {
        if let Some(cached) = self.slugs.get(tenant).await {
            crate::telemetry::metrics::cache_lookup("survey_lists", true);
            return Ok(cached);
        }
        crate::telemetry::metrics::cache_lookup("survey_lists", false);
        let prefix = keys::surveys_of(tenant);
        let slugs = super::json_names(self.blobs.as_ref(), &prefix, |name| {
            SurveySlug::parse(name).ok()
        })
        .await?;
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

    /// Creates a survey from a checked definition, as a draft, with a slug made from its title
    /// and unique within the tenant; `None` if the tenant already has `MAX_SURVEYS_PER_TENANT`.
    /// (Two creates racing in different processes may each pass the count: the limit bounds
    /// storage, and a few over it do no harm.)
    pub async fn create(
        &self,
        tenant: &TenantSlug,
        definition: CheckedDefinition,
    ) -> Result<Option<Survey>, StoreError> {
        loop {
            let taken = self.slugs(tenant).await?;
            if taken.len() >= MAX_SURVEYS_PER_TENANT {
                return Ok(None);
            }
            let slug =
                SurveySlug::for_title(&definition.title, |s| taken.iter().any(|t| t.as_str() == s));
            let now = OffsetDateTime::now_utc();
            let survey = Survey::draft(tenant.clone(), slug, definition.clone(), now);
            let key = keys::survey(tenant, &survey.slug);
            let created = self
                .blobs
                .put(&key, encode(&key, &survey)?.into(), PutMode::Create)
                .await;
            self.slugs.invalidate(tenant).await;
            match created {
                Ok(_) => {
                    // A miss cached before (a visit to the address) must not hide it here.
                    self.surveys
                        .invalidate(&(tenant.clone(), survey.slug.clone()))
                        .await;
                    return Ok(Some(survey));
                }
                // Someone took the slug meanwhile (or the list was stale): pick again.
                Err(Error::AlreadyExists { .. }) => continue,
                Err(error) => return Err(error).context(|| format!("creating survey {key}")),
            }
        }
    }

    /// Replaces a survey's definition; editing a published survey (more than its translations)
    /// keeps the old version and starts a new one.
    pub async fn revise(
        &self,
        current: &Survey,
        definition: CheckedDefinition,
    ) -> Result<Survey, StoreError> {
        let mut survey = current.clone();
        if survey.revise(definition, OffsetDateTime::now_utc()) {
            let key = keys::survey_version(&current.survey_ref(), current.version);
            match self
                .blobs
                .put(&key, encode(&key, current)?.into(), PutMode::Create)
                .await
            {
                Ok(_) | Err(Error::AlreadyExists { .. }) => {}
                Err(error) => return Err(error).context(|| format!("keeping {key}")),
            }
        }
        self.save(&survey).await?;
        Ok(survey)
    }

    /// Every question the survey has or had in a kept version (the current one first): one id
    /// is one question of one type for ever, since answers and statistics are kept by id.
    pub async fn known_questions(&self, current: &Survey) -> Result<Vec<Question>, StoreError> {
        let mut known = current.questions.clone();
        for version in self
            .versions(&current.survey_ref())
            .await?
            .into_iter()
            .rev()
        {
            for question in version.questions {
                if !known.iter().any(|q| q.id == question.id) {
                    known.push(question);
                }
            }
        }
        Ok(known)
    }

    /// The versions kept when the published survey was edited, oldest first.
    pub async fn versions(&self, survey: &SurveyRef) -> Result<Vec<Survey>, StoreError> {
        let prefix = keys::survey_versions(survey);
        let page = self
            .blobs
            .list(&ListRequest::new(prefix.clone(), 0))
            .await
            .context(|| format!("listing {prefix}"))?;
        let mut versions = Vec::with_capacity(page.items.len());
        for item in page.items {
            match self.blobs.get(&item.key).await {
                Ok(blob) => versions.push(decode::<Survey>(&item.key, &blob.body)?),
                Err(Error::NotFound { .. }) => {}
                Err(error) => return Err(error).context(|| format!("reading {}", item.key)),
            }
        }
        Ok(versions)
    }

    /// Publishes or unpublishes a survey.
    pub async fn set_published(
        &self,
        current: &Survey,
        published: bool,
    ) -> Result<Survey, StoreError> {
        let mut survey = current.clone();
        survey.published = published;
        survey.was_published |= published;
        survey.updated = OffsetDateTime::now_utc();
        self.save(&survey).await?;
        Ok(survey)
    }

    /// Deletes a survey with everything derived from it: versions, answers, summary, answer
    /// list and counted index. Its data is filed under its identity, so answers still on their
    /// way to it can never reach a survey made later with the same slug.
    pub async fn delete(&self, survey: &Survey) -> Result<(), StoreError> {
        let (tenant, slug) = (&survey.tenant, &survey.slug);
        let key = keys::survey(tenant, slug);
        match self.blobs.delete(&key, None).await {
            Ok(()) | Err(Error::NotFound { .. }) => {}
            Err(error) => return Err(error).context(|| format!("deleting {key}")),
        }
        self.surveys
            .invalidate(&(tenant.clone(), slug.clone()))
            .await;
        self.slugs.invalidate(tenant).await;
        self.delete_data(&survey.survey_ref()).await.map(drop)
    }

    /// Deletes the data filed under a survey that no longer exists (what a worker with an
    /// out-of-date view may have written after the survey was deleted); returns how many blobs.
    pub async fn delete_data(&self, survey: &SurveyRef) -> Result<u64, StoreError> {
        let mut deleted = 0;
        for prefix in keys::survey_data_prefixes(survey) {
            deleted += super::delete_prefix(self.blobs.as_ref(), &prefix).await?;
        }
        Ok(deleted)
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
