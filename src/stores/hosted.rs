//! Hosted copies: what a hosting region keeps of another region's tenant so its public site
//! serves that tenant's surveys from its own storage (the seed's step 2, a definition pushed
//! once per version), never waiting on the tenant's home region.
//!
//! A copy lives under `hosted/`, apart from the region's own tenants and surveys, so nothing
//! that walks those (digests, reconcile passes, the tenant site) ever takes a copy for an
//! own tenant.

use std::sync::Arc;

use moka::future::Cache;
use serde::{Deserialize, Serialize};

use super::error::{decode, encode};
use super::{Context, StoreError, StoreSettings};
use crate::domain::region::RegionName;
use crate::domain::{Survey, SurveySlug, Tenant, TenantSlug};
use crate::storage::{BlobStore, Error, PutMode};

/// What a hosting region knows of a tenant at home elsewhere: its public face and its home.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HostedTenant {
    /// The tenant as its public pages show it (no owner address).
    pub tenant: Arc<Tenant>,
    /// Where it lives, and where its answers go.
    pub home: RegionName,
}

/// A push to hosting regions that did not reach them, waiting at home for a worker to try
/// again: the survey's current state goes to each region named (its copy, or its removal).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct HostingSync {
    /// The survey's tenant.
    pub tenant: TenantSlug,
    /// The survey.
    pub survey: SurveySlug,
    /// The regions still to bring up to date.
    pub regions: Vec<RegionName>,
}

/// The queue of hosting syncs, at home.
pub const SYNC_QUEUE: &str = "hosting-syncs";

fn tenant_key(tenant: &TenantSlug) -> String {
    format!("hosted/tenants/{tenant}.json")
}

fn survey_key(tenant: &TenantSlug, survey: &SurveySlug) -> String {
    format!("hosted/surveys/{tenant}/{survey}.json")
}

fn logo_key(tenant: &TenantSlug) -> String {
    format!("hosted/logos/{tenant}")
}

fn count_key(tenant: &TenantSlug, survey: &SurveySlug) -> String {
    format!("hosted/counts/{tenant}/{survey}.json")
}

/// What a hosting region knows of a hosted survey's total, for its response limit.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct HomeCount {
    /// Answers counted at home, as last read from there.
    pub counted: u64,
    /// Answers this region has moved home, ever: they count even before home counts them.
    #[serde(default)]
    pub moved: u64,
}

impl HomeCount {
    /// The survey's total as far as this region can tell (answers waiting here to move come
    /// on top): it errs high rather than low (a repeated post moved twice counts twice), so a
    /// limited survey closes early rather than late for answers given here.
    pub fn at_least(&self) -> u64 {
        self.counted.max(self.moved)
    }
}

/// Reads and writes hosted copies; reads are cached for the stores' TTL, so a pushed change
/// is served within it.
#[derive(Clone, Debug)]
pub struct HostedStore {
    blobs: Arc<dyn BlobStore>,
    tenants: Cache<TenantSlug, Option<Arc<HostedTenant>>>,
    surveys: Cache<(TenantSlug, SurveySlug), Option<Arc<Survey>>>,
    counts: Cache<(TenantSlug, SurveySlug), HomeCount>,
}

impl HostedStore {
    pub(super) fn new(blobs: Arc<dyn BlobStore>, settings: &StoreSettings) -> Self {
        Self {
            blobs,
            tenants: settings.cache(),
            surveys: settings.cache(),
            counts: moka::future::Cache::builder()
                .max_capacity(settings.cache_capacity)
                .time_to_live(std::time::Duration::from_secs(1))
                .build(),
        }
    }

    /// The hosted copy of a tenant, if this region hosts any of its surveys.
    pub async fn tenant(&self, slug: &TenantSlug) -> Result<Option<Arc<HostedTenant>>, StoreError> {
        let load = async {
            let key = tenant_key(slug);
            match self.blobs.get(&key).await {
                Ok(blob) => Ok(Some(Arc::new(decode::<HostedTenant>(&key, &blob.body)?))),
                Err(Error::NotFound { .. }) => Ok(None),
                Err(error) => Err(error).context(|| format!("reading the copy of tenant {slug}")),
            }
        };
        super::cached(&self.tenants, "hosted_tenants", slug.clone(), load).await
    }

    /// The hosted copy of a survey, if this region hosts it.
    pub async fn survey(
        &self,
        tenant: &TenantSlug,
        slug: &SurveySlug,
    ) -> Result<Option<Arc<Survey>>, StoreError> {
        let load = async {
            let key = survey_key(tenant, slug);
            match self.blobs.get(&key).await {
                Ok(blob) => Ok(Some(Arc::new(decode::<Survey>(&key, &blob.body)?))),
                Err(Error::NotFound { .. }) => Ok(None),
                Err(error) => {
                    Err(error).context(|| format!("reading the copy of survey {tenant}/{slug}"))
                }
            }
        };
        let key = (tenant.clone(), slug.clone());
        super::cached(&self.surveys, "hosted_surveys", key, load).await
    }

    /// Forgets this process's copy of a hosted survey, so the next `survey` reads storage: the
    /// copy a home site wrote a moment ago (a new version asking for a segment build) is not
    /// yet in this process's cache.
    pub async fn forget_survey(&self, tenant: &TenantSlug, slug: &SurveySlug) {
        let key = (tenant.clone(), slug.clone());
        self.surveys.invalidate(&key).await;
    }

    /// Writes the copies of `survey` and its tenant over any older ones.
    pub async fn put(&self, hosted: &HostedTenant, survey: &Survey) -> Result<(), StoreError> {
        let key = tenant_key(&hosted.tenant.slug);
        let body = encode(&key, hosted)?;
        self.blobs
            .put(&key, body.into(), PutMode::Overwrite)
            .await
            .context(|| format!("copying tenant {}", hosted.tenant.slug))?;
        let key = survey_key(&survey.tenant, &survey.slug);
        let body = encode(&key, survey)?;
        self.blobs
            .put(&key, body.into(), PutMode::Overwrite)
            .await
            .context(|| format!("copying survey {}/{}", survey.tenant, survey.slug))?;
        self.tenants.invalidate(&hosted.tenant.slug).await;
        self.surveys
            .invalidate(&(survey.tenant.clone(), survey.slug.clone()))
            .await;
        Ok(())
    }

    /// The slugs of a tenant's surveys hosted here.
    pub async fn surveys_of(&self, tenant: &TenantSlug) -> Result<Vec<SurveySlug>, StoreError> {
        let prefix = format!("hosted/surveys/{tenant}/");
        super::json_names(self.blobs.as_ref(), &prefix, |name| {
            SurveySlug::parse(name).ok()
        })
        .await
    }

    /// A hosted survey's total counted at home, as last read from there (read here at most
    /// once a second); 0 before the first reading.
    pub async fn home_count(
        &self,
        tenant: &TenantSlug,
        survey: &SurveySlug,
    ) -> Result<HomeCount, StoreError> {
        let load = async {
            let key = count_key(tenant, survey);
            match self.blobs.get(&key).await {
                Ok(blob) => Ok(decode::<HomeCount>(&key, &blob.body)?),
                Err(Error::NotFound { .. }) => Ok(HomeCount::default()),
                Err(error) => Err(error).context(|| format!("reading {key}")),
            }
        };
        let key = (tenant.clone(), survey.clone());
        super::cached(&self.counts, "hosted_counts", key, load).await
    }

    /// Records a hosted survey's total counted at home, as just read from there.
    pub async fn set_home_count(
        &self,
        tenant: &TenantSlug,
        survey: &SurveySlug,
        counted: u64,
    ) -> Result<(), StoreError> {
        let key = count_key(tenant, survey);
        super::json_blob::update(self.blobs.as_ref(), &key, |count: &mut HomeCount| {
            (count.counted != counted).then(|| count.counted = counted)
        })
        .await?;
        self.counts
            .invalidate(&(tenant.clone(), survey.clone()))
            .await;
        Ok(())
    }

    /// Adds `moved` answers this region just moved home to a hosted survey's count.
    pub async fn add_moved(
        &self,
        tenant: &TenantSlug,
        survey: &SurveySlug,
        moved: u64,
    ) -> Result<(), StoreError> {
        let key = count_key(tenant, survey);
        super::json_blob::update(self.blobs.as_ref(), &key, |count: &mut HomeCount| {
            count.moved += moved;
            Some(())
        })
        .await?;
        self.counts
            .invalidate(&(tenant.clone(), survey.clone()))
            .await;
        Ok(())
    }

    /// The tenants of other regions with a survey hosted here, in slug order.
    pub async fn tenants(&self) -> Result<Vec<TenantSlug>, StoreError> {
        super::json_names(self.blobs.as_ref(), "hosted/tenants/", |name| {
            TenantSlug::parse(name).ok()
        })
        .await
    }

    /// The copy of a hosted tenant's logo, if it has one.
    pub async fn logo(&self, tenant: &TenantSlug) -> Result<Option<bytes::Bytes>, StoreError> {
        let key = logo_key(tenant);
        match self.blobs.get(&key).await {
            Ok(blob) => Ok(Some(blob.body)),
            Err(Error::NotFound { .. }) => Ok(None),
            Err(error) => Err(error).context(|| format!("reading {key}")),
        }
    }

    /// Copies a hosted tenant's logo here (its public pages here show it from here: a page's
    /// images come from its own origin).
    pub async fn put_logo(
        &self,
        tenant: &TenantSlug,
        logo: bytes::Bytes,
    ) -> Result<(), StoreError> {
        let key = logo_key(tenant);
        self.blobs
            .put(&key, logo, PutMode::Overwrite)
            .await
            .context(|| format!("writing {key}"))?;
        Ok(())
    }

    /// Removes a survey's copy (it is no longer hosted here, or was deleted).
    pub async fn remove(&self, tenant: &TenantSlug, slug: &SurveySlug) -> Result<(), StoreError> {
        let key = survey_key(tenant, slug);
        match self.blobs.delete(&key, None).await {
            Ok(()) | Err(Error::NotFound { .. }) => {}
            Err(error) => return Err(error).context(|| format!("removing {key}")),
        }
        self.surveys
            .invalidate(&(tenant.clone(), slug.clone()))
            .await;
        Ok(())
    }
}
