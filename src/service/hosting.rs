//! Hosting a survey in other regions: each change respondents must see (publishing, a new
//! version, closing, the tenant's look) is pushed to every hosting region besides home, and a
//! region that no longer hosts it loses its copy; a region out of reach is brought up to date
//! later by a worker (`sync`, from the `hosting-syncs` queue). Drafts stay home.

use std::time::Duration;

use super::App;
use crate::domain::region::RegionName;
use crate::domain::{Survey, SurveySlug, Tenant, TenantSlug};
use crate::stores::StoreError;
use crate::stores::hosted::{HostedTenant, HostingSync};

/// How long a push waits for a region before leaving it to a worker's retry (an owner's
/// publish waits at most this long per unreachable region).
const REACH: Duration = Duration::from_secs(5);

/// Pushes `survey` as it is now to each region hosting it besides home, and removes the
/// copies of regions that hosted `before` but no longer host it. A region that cannot be
/// reached keeps serving the version it has; a worker at home tries it again (see `sync`).
pub async fn push(app: &App, survey: &Survey, before: Option<&Survey>) -> Result<(), StoreError> {
    let stores = app.stores();
    let Some(home) = stores.residency.regions.here().cloned() else {
        return Ok(());
    };
    // Drafts never published stay home: nothing of them was ever pushed.
    let shown = |survey: &Survey| survey.published || survey.was_published;
    if !shown(survey) && before.is_none_or(|before| !shown(before)) {
        return Ok(());
    }
    let mut regions: Vec<RegionName> = survey.hosting_regions(&home).to_vec();
    if let Some(before) = before {
        regions.extend(before.hosting_regions(&home).iter().cloned());
    }
    regions.retain(|region| *region != home);
    if regions.is_empty() {
        return Ok(());
    }
    regions.sort();
    regions.dedup();
    let failed = sync(app, &survey.tenant, &survey.slug, &regions).await?;
    queue_retry(app, survey, failed).await
}

/// Pushes the tenant's public face (name, colour, logo, time zone) anew to every region
/// hosting one of its surveys, after the owner changed it.
pub async fn refresh_tenant(app: &App, tenant: &TenantSlug) -> Result<(), StoreError> {
    let stores = app.stores();
    if !stores.residency.regions.named() {
        return Ok(());
    }
    for slug in stores.catalog.surveys.slugs(tenant).await?.iter() {
        if let Some(survey) = stores.catalog.surveys.get(tenant, slug).await? {
            push(app, &survey, None).await?;
        }
    }
    Ok(())
}

/// Removes a deleted survey's copies from every region hosting it.
pub async fn withdraw(app: &App, survey: &Survey) -> Result<(), StoreError> {
    push(app, survey, None).await
}

/// Brings each of `regions` up to date with the survey as it is at home now: its copy where
/// it is hosted and was published, no copy elsewhere. The regions that could not be reached.
pub async fn sync(
    app: &App,
    tenant: &TenantSlug,
    slug: &SurveySlug,
    regions: &[RegionName],
) -> Result<Vec<RegionName>, StoreError> {
    let stores = app.stores();
    let Some(home) = stores.residency.regions.here().cloned() else {
        return Ok(Vec::new());
    };
    let survey = stores.catalog.surveys.fresh(tenant, slug).await?;
    let owner = stores.catalog.tenants.fresh(tenant).await?;
    let mut failed = Vec::new();
    for region in regions {
        let copy = match (&survey, &owner) {
            (Some(survey), Some(owner))
                if (survey.published || survey.was_published)
                    && survey.hosting_regions(&home).contains(region) =>
            {
                Some((
                    HostedTenant {
                        // A hosting region shows the tenant's public face only.
                        tenant: std::sync::Arc::new(Tenant {
                            owner: None,
                            ..(**owner).clone()
                        }),
                        home: home.clone(),
                    },
                    survey.clone(),
                ))
            }
            _ => None,
        };
        let synced = async {
            let there = stores.in_region(region).await?;
            match &copy {
                Some((hosted, survey)) => {
                    there.answering.queues.create_transfer(tenant).await?;
                    if hosted.tenant.branding.logo.is_some()
                        && let Some(logo) = stores.catalog.settings.logo(tenant).await?
                    {
                        there.residency.hosted.put_logo(tenant, logo).await?;
                    }
                    there.residency.hosted.put(hosted, survey).await
                }
                None => there.residency.hosted.remove(tenant, slug).await,
            }
        };
        match tokio::time::timeout(REACH, synced).await {
            Ok(Ok(())) => {}
            Ok(Err(error)) => {
                tracing::warn!(%region, error = %crate::telemetry::error_chain(&error), "could not bring a hosting region up to date; a worker tries again");
                failed.push(region.clone());
            }
            Err(_) => {
                tracing::warn!(%region, "could not bring a hosting region up to date within {}s; a worker tries again", REACH.as_secs());
                failed.push(region.clone());
            }
        }
    }
    Ok(failed)
}

/// Leaves the regions a push did not reach for a worker at home to try again.
async fn queue_retry(
    app: &App,
    survey: &Survey,
    regions: Vec<RegionName>,
) -> Result<(), StoreError> {
    let stores = app.stores();
    match (&stores.residency.hosting_syncs, regions.is_empty()) {
        (Some(queue), false) => {
            queue
                .send(&HostingSync {
                    tenant: survey.tenant.clone(),
                    survey: survey.slug.clone(),
                    regions,
                })
                .await
        }
        _ => Ok(()),
    }
}

/// What waits in a region hosting some of a tenant's surveys, to move home.
#[derive(Debug)]
pub struct Backlog {
    /// The region, as people know it.
    pub region: String,
    /// How many answers wait, and how long the oldest has; `None` when the region could not
    /// be asked in time.
    pub waiting: Option<(u64, Option<Duration>)>,
}

/// How long a region is given to say what waits there.
const ASK_BACKLOG: Duration = Duration::from_secs(2);

/// What waits to move home in each other region hosting one of `surveys` (those whose
/// answers move home), the regions asked one after another, each for at most 2 s.
pub async fn backlogs(app: &App, tenant: &Tenant, surveys: &[&Survey]) -> Vec<Backlog> {
    let stores = app.stores();
    let regions = &stores.residency.regions;
    let Some(here) = regions.here() else {
        return Vec::new();
    };
    let mut hosting: Vec<&RegionName> = surveys
        .iter()
        .filter(|survey| survey.residency == crate::domain::region::Residency::Home)
        .flat_map(|survey| survey.hosting_regions(here))
        .filter(|region| *region != here)
        .collect();
    hosting.sort();
    hosting.dedup();
    let mut shown = Vec::new();
    for name in hosting {
        let asked = async {
            let there = stores.in_region(name).await?;
            there.answering.queues.transfer_backlog(&tenant.slug).await
        };
        let waiting = match tokio::time::timeout(ASK_BACKLOG, asked).await {
            Ok(Ok(backlog)) => Some(backlog),
            Ok(Err(error)) => {
                tracing::warn!(region = %name, error = %crate::telemetry::error_chain(&error), "cannot read what waits in a hosting region");
                None
            }
            Err(_) => None,
        };
        let region = regions
            .get(name)
            .map_or_else(|| name.to_string(), |region| region.label.clone());
        shown.push(Backlog { region, waiting });
    }
    shown
}
