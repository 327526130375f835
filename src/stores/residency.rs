//! Where a survey's answers are kept: at its tenant's home, or, for a survey whose answers
//! stay in their region, in its one hosting region, which counts them and from whose storage
//! the home site reads its results.

use std::borrow::Cow;
use std::sync::Arc;

use super::{StoreError, Stores};
use crate::domain::region::Residency;
use crate::domain::{Survey, SurveySlug, TenantSlug};

impl Stores {
    /// The stores holding `survey`'s answers, summary, lists, segments and deletions: these,
    /// or those of the region its answers stay in.
    pub async fn results_of(&self, survey: &Survey) -> Result<Cow<'_, Stores>, StoreError> {
        match survey.residency {
            Residency::Region => match survey.regions.first() {
                Some(region) if !self.regions.is_here(region) => {
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
            true => self.surveys.fresh(tenant, slug).await?,
            false => self.surveys.get(tenant, slug).await?,
        };
        // One installation, one region: nothing is hosted, and nothing more is read.
        if own.is_some() || !self.regions.named() {
            return Ok(own);
        }
        let hosted = match fresh {
            true => self.hosted.fresh_survey(tenant, slug).await?,
            false => self.hosted.survey(tenant, slug).await?,
        };
        Ok(hosted.filter(|survey| survey.residency == Residency::Region))
    }
}
