//! Where a survey's data is kept: its answers at its tenant's home, or, for a survey whose
//! answers stay in their region, in its one hosting region, which counts them and from whose
//! storage the home site reads its results; and what its public pages leave (drop-off counts)
//! in each region that serves them.

use std::borrow::Cow;
use std::sync::Arc;

use super::quotas::QuotaStore;
use super::{StoreError, Stores};
use crate::domain::funnel::Funnel;
use crate::domain::region::RegionName;
use crate::domain::region::Residency;
use crate::domain::{Survey, SurveyRef, SurveySlug, TenantSlug};

impl Stores {
    /// The stores holding `survey`'s answers, summary, lists, segments and deletions: these,
    /// or those of the region its answers stay in.
    pub async fn results_of(&self, survey: &Survey) -> Result<Cow<'_, Stores>, StoreError> {
        match survey.residency {
            Residency::Region => match survey.regions.first() {
                Some(region) if !self.residency.regions.is_here(region) => {
                    Ok(Cow::Owned(self.in_region(region).await?))
                }
                _ => Ok(Cow::Borrowed(self)),
            },
            Residency::Home => Ok(Cow::Borrowed(self)),
        }
    }

    /// The survey whose answers this region counts under this address: the tenant's own, when
    /// it lives here, or the copy of one hosted here whose answers stay here.
    pub async fn counted_here(
        &self,
        tenant: &TenantSlug,
        slug: &SurveySlug,
    ) -> Result<Option<Arc<Survey>>, StoreError> {
        self.counted_here_as(tenant, slug, false).await
    }

    /// As `counted_here`, read from storage even when cached.
    pub async fn fresh_counted_here(
        &self,
        tenant: &TenantSlug,
        slug: &SurveySlug,
    ) -> Result<Option<Arc<Survey>>, StoreError> {
        self.counted_here_as(tenant, slug, true).await
    }

    async fn counted_here_as(
        &self,
        tenant: &TenantSlug,
        slug: &SurveySlug,
        fresh: bool,
    ) -> Result<Option<Arc<Survey>>, StoreError> {
        let own = match fresh {
            true => self.catalog.surveys.fresh(tenant, slug).await?,
            false => self.catalog.surveys.get(tenant, slug).await?,
        };
        // One installation, one region: nothing is hosted, and nothing more is read.
        if own.is_some() || !self.residency.regions.named() {
            return Ok(own);
        }
        let hosted = &self.residency.hosted;
        if fresh {
            hosted.forget_survey(tenant, slug).await;
        }
        let hosted = hosted.survey(tenant, slug).await?;
        Ok(hosted.filter(|survey| survey.residency == Residency::Region))
    }

    /// The survey whose public pages this region serves under `survey`'s address, if it is
    /// still that survey: the tenant's own, or a copy hosted here.
    pub async fn served_here(&self, survey: &SurveyRef) -> Result<Option<Arc<Survey>>, StoreError> {
        let own = self
            .catalog
            .surveys
            .get(&survey.tenant, &survey.slug)
            .await?;
        let found = match own {
            Some(own) => Some(own),
            None if self.residency.regions.named() => {
                self.residency
                    .hosted
                    .survey(&survey.tenant, &survey.slug)
                    .await?
            }
            None => None,
        };
        Ok(found.filter(|found| found.id == survey.id))
    }

    /// Where `survey`'s quota places are kept, seen from this region: with its answers, at
    /// its tenant's home (`home`, when that is another region; `None` when it is here) or in
    /// the one region its answers stay in. One place for every region it is answered in, so
    /// a quota counts them all, and moving the survey between regions keeps its places.
    pub async fn quota_places(
        &self,
        survey: &Survey,
        home: Option<&RegionName>,
    ) -> Result<QuotaStore, StoreError> {
        let keeper = match survey.residency {
            Residency::Region => survey.regions.first(),
            Residency::Home => home,
        };
        match keeper {
            Some(region)
                if self.residency.regions.named() && !self.residency.regions.is_here(region) =>
            {
                Ok(self.in_region(region).await?.answering.quotas)
            }
            _ => Ok(self.answering.quotas.clone()),
        }
    }

    /// A survey's drop-off counts, added up over the regions whose sites show its pages
    /// (each keeps its own); the regions that could not be read within 5 s are named.
    pub async fn funnel_of(
        &self,
        survey: &Survey,
    ) -> Result<(Funnel, Vec<RegionName>), StoreError> {
        let filed = survey.survey_ref();
        let Some(here) = self.residency.regions.here().cloned() else {
            return Ok((self.answering.funnels.read(&filed).await?, Vec::new()));
        };
        let (mut total, mut unread) = (Funnel::default(), Vec::new());
        for region in survey.hosting_regions(&here) {
            let read = async {
                let stores = self.in_region(region).await?;
                stores.answering.funnels.read(&filed).await
            };
            match tokio::time::timeout(REGION_WAIT, read).await {
                Ok(Ok(counts)) => total.merge(&counts),
                Ok(Err(error)) if self.residency.regions.is_here(region) => return Err(error),
                Ok(Err(_)) | Err(_) => unread.push(region.clone()),
            }
        }
        Ok((total, unread))
    }
}

/// How long a read of another region's counts may take before the page goes on without it.
const REGION_WAIT: std::time::Duration = std::time::Duration::from_secs(5);
