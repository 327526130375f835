//! Hosting a survey in other regions: each change respondents must see (publishing, a new
//! version, closing) is pushed to every hosting region besides home, and a region that no
//! longer hosts it loses its copy. Drafts stay home.

use std::time::Duration;

use crate::domain::region::RegionName;
use crate::domain::{Survey, Tenant};
use crate::stores::hosted::HostedTenant;
use crate::stores::{StoreError, Stores};

/// How long a push waits for a region before giving up on it for now.
const REACH: Duration = Duration::from_secs(10);

/// Pushes `survey` as it is now to each region hosting it besides home, and removes the
/// copies of regions that hosted `before` but no longer host it. A region that cannot be
/// reached is logged and skipped: its copy follows with the next push, and meanwhile it keeps
/// serving the version it has.
pub async fn push(
    stores: &Stores,
    survey: &Survey,
    before: Option<&Survey>,
) -> Result<(), StoreError> {
    let Some(home) = stores.regions.here().cloned() else {
        return Ok(());
    };
    if !(survey.published || survey.was_published) {
        return Ok(());
    }
    let Some(tenant) = stores.tenants.get(&survey.tenant).await? else {
        return Ok(());
    };
    let hosted = HostedTenant {
        // A hosting region shows the tenant's public face only.
        tenant: std::sync::Arc::new(Tenant {
            owner: None,
            ..(*tenant).clone()
        }),
        home: home.clone(),
    };
    let hosts: Vec<&RegionName> = survey
        .hosting_regions(&home)
        .iter()
        .filter(|region| **region != home)
        .collect();
    for region in &hosts {
        let copied = async {
            let there = stores.in_region(region).await?;
            there.answer_queues.create_transfer(&survey.tenant).await?;
            there.hosted.put(&hosted, survey).await
        };
        reached(
            region,
            tokio::time::timeout(REACH, copied).await,
            "push the survey",
        );
    }
    if let Some(before) = before {
        for region in before.hosting_regions(&home) {
            if *region != home && !hosts.contains(&region) {
                remove_from(stores, region, survey).await;
            }
        }
    }
    Ok(())
}

/// Removes a deleted survey's copies from every region hosting it.
pub async fn withdraw(stores: &Stores, survey: &Survey) {
    let Some(home) = stores.regions.here().cloned() else {
        return;
    };
    for region in survey.hosting_regions(&home) {
        if *region != home {
            remove_from(stores, region, survey).await;
        }
    }
}

async fn remove_from(stores: &Stores, region: &RegionName, survey: &Survey) {
    let removed = async {
        let there = stores.in_region(region).await?;
        there.hosted.remove(&survey.tenant, &survey.slug).await
    };
    reached(
        region,
        tokio::time::timeout(REACH, removed).await,
        "remove the survey's copy",
    );
}

/// Logs a region that could not be reached in time, or failed.
fn reached(
    region: &RegionName,
    outcome: Result<Result<(), StoreError>, tokio::time::error::Elapsed>,
    doing: &str,
) {
    match outcome {
        Ok(Ok(())) => {}
        Ok(Err(error)) => tracing::warn!(
            %region,
            error = %crate::telemetry::error_chain(&error),
            "could not {doing} in a hosting region"
        ),
        Err(_) => {
            tracing::warn!(%region, "could not {doing} in a hosting region within {}s", REACH.as_secs())
        }
    }
}
