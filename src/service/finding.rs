//! Finding what a respondent's address names, as this region holds it: a tenant living here or
//! hosted here for another region, and a survey published at some time (a draft never
//! published is not there), answered here or in another region, open or closed.

use std::sync::Arc;

use super::App;
use crate::domain::participant::Access;
use crate::domain::region::RegionName;
use crate::domain::{Survey, SurveySlug, SurveyState, Tenant, TenantSlug};
use crate::stores::StoreError;

/// How this region holds a tenant whose public address was asked for.
pub enum TenantFound {
    /// It lives here.
    Own(Arc<Tenant>),
    /// It lives in another region, its home, and this region hosts some of its surveys.
    Hosted(Arc<Tenant>, RegionName),
    /// No such tenant here.
    Missing,
}

/// The tenant at `tenant` as this region holds it.
pub async fn tenant(app: &App, tenant: &str) -> Result<TenantFound, StoreError> {
    let stores = app.stores();
    let Ok(slug) = TenantSlug::parse(tenant) else {
        return Ok(TenantFound::Missing);
    };
    if let Some(own) = stores.catalog.tenants.get(&slug).await? {
        return Ok(TenantFound::Own(own));
    }
    if stores.residency.regions.named()
        && let Some(hosted) = stores.residency.hosted.tenant(&slug).await?
    {
        return Ok(TenantFound::Hosted(
            hosted.tenant.clone(),
            hosted.home.clone(),
        ));
    }
    Ok(TenantFound::Missing)
}

/// A region's public address.
pub fn region_url(app: &App, region: &RegionName) -> Result<String, StoreError> {
    let regions = &app.stores().residency.regions;
    regions
        .get(region)
        .map(|region| region.public_url.clone())
        .ok_or_else(|| StoreError::Storage {
            doing: format!("finding region {region}"),
            source: crate::storage::Error::InvalidArgument(format!(
                "{region} is not a region of this installation"
            )),
        })
}

/// Where a survey's address leads from this region.
pub enum SurveyFound {
    /// Answered here, in this state now.
    Here(Arc<Tenant>, Arc<Survey>, SurveyState),
    /// Answered in another region, at this public address.
    Elsewhere(String),
    /// No such survey (or never published).
    Missing,
}

/// The survey at `tenant`/`survey` as this region holds it, and its state now: a survey
/// answered in another region leads there; a tenant's survey not answered here leads to the
/// first region hosting it, a hosted copy no longer answered here to the tenant's home.
pub async fn survey(app: &App, tenant: &str, survey: &str) -> Result<SurveyFound, StoreError> {
    let stores = app.stores();
    let Ok(slug) = SurveySlug::parse(survey) else {
        return Ok(SurveyFound::Missing);
    };
    let answered = |survey: &Survey| survey.published || survey.was_published;
    let (tenant, survey, hosted) = match self::tenant(app, tenant).await? {
        TenantFound::Missing => return Ok(SurveyFound::Missing),
        TenantFound::Own(tenant) => {
            let found = stores.catalog.surveys.get(&tenant.slug, &slug).await?;
            let Some(survey) = found.filter(|survey| answered(survey)) else {
                return Ok(SurveyFound::Missing);
            };
            if let Some(here) = stores.residency.regions.here() {
                let hosts = survey.hosting_regions(here);
                if !hosts.contains(here) {
                    return Ok(SurveyFound::Elsewhere(region_url(app, &hosts[0])?));
                }
            }
            (tenant, survey, false)
        }
        TenantFound::Hosted(tenant, home) => {
            let here = stores.residency.regions.here();
            let copy = stores
                .residency
                .hosted
                .survey(&tenant.slug, &slug)
                .await?
                .filter(|survey| answered(survey));
            let hosts_here = |survey: &Survey| {
                here.is_some_and(|here| survey.hosting_regions(&home).contains(here))
            };
            match copy {
                Some(survey) if hosts_here(&survey) => (tenant, survey, true),
                // Not answered here (or no longer): its home says where it is.
                _ => return Ok(SurveyFound::Elsewhere(region_url(app, &home)?)),
            }
        }
    };
    let now = match hosted {
        true => stores.hosted_survey_state(&survey).await?,
        false => stores.survey_state(&survey).await?,
    };
    Ok(SurveyFound::Here(tenant, survey, now))
}

/// A survey of a tenant living here, published at some time, wherever it is answered (for
/// the share panel's QR code at home).
pub async fn own_survey(
    app: &App,
    tenant: &str,
    survey: &str,
) -> Result<Option<(Arc<Tenant>, Arc<Survey>)>, StoreError> {
    let stores = app.stores();
    let (Ok(tenant), Ok(slug)) = (TenantSlug::parse(tenant), SurveySlug::parse(survey)) else {
        return Ok(None);
    };
    let Some(tenant) = stores.catalog.tenants.get(&tenant).await? else {
        return Ok(None);
    };
    let survey = stores.catalog.surveys.get(&tenant.slug, &slug).await?;
    Ok(survey
        .filter(|survey| survey.published || survey.was_published)
        .map(|survey| (tenant, survey)))
}

/// A tenant's surveys anyone may answer now (not those by invitation), in its list's order.
pub async fn open_surveys(app: &App, tenant: &Tenant) -> Result<Vec<Arc<Survey>>, StoreError> {
    let stores = app.stores();
    let mut open = Vec::new();
    for survey in stores.catalog.surveys.published(&tenant.slug).await? {
        // A survey by invitation is answered through personal links only: listing it would
        // only show strangers a page that turns them away.
        if survey.access == Access::Invitation {
            continue;
        }
        if stores.survey_state(&survey).await? == SurveyState::Open {
            open.push(survey);
        }
    }
    Ok(open)
}

/// The public address of the first region answering a tenant's own `survey`, when that is not
/// this one (where owners share it from).
pub fn answered_elsewhere(app: &App, survey: &Survey) -> Option<String> {
    let regions = &app.stores().residency.regions;
    let here = regions.here()?;
    let hosts = survey.hosting_regions(here);
    if hosts.contains(here) {
        return None;
    }
    let first = regions.get(hosts.first()?)?;
    Some(first.public_url.clone())
}
