//! Daily digests: once a period (a day), each member who chose the daily digest gets, per
//! survey with new responses, one message saying how many came. Run by the mailer every so
//! often; the tenant's digest state is claimed first, so of several workers one sends it.

use std::collections::BTreeMap;

use time::OffsetDateTime;

use super::mailer::MailerSettings;
use crate::domain::TenantSlug;
use crate::domain::member::Notify;
use crate::mail::digest_message;
use crate::stores::{StoreError, Stores};

/// Makes the digests that are due; returns how many messages it queued.
pub async fn send_due(stores: &Stores, settings: &MailerSettings) -> Result<usize, StoreError> {
    let Some(site) = settings.links() else {
        return Ok(0);
    };
    let mut queued = 0;
    let mut continuation = None;
    loop {
        // Tenants that chose anyone's notices have a members document.
        let page = stores.operations.scan("members/", continuation).await?;
        for (key, _) in &page.keys {
            let slug = key
                .strip_prefix("members/")
                .and_then(|rest| rest.strip_suffix(".json"))
                .and_then(|slug| TenantSlug::parse(slug).ok());
            if let Some(slug) = slug {
                queued += tenant_digest(stores, settings, site, &slug).await?;
            }
        }
        match page.continuation {
            Some(next) => continuation = Some(next),
            None => return Ok(queued),
        }
    }
}

async fn tenant_digest(
    stores: &Stores,
    settings: &MailerSettings,
    site: &str,
    slug: &TenantSlug,
) -> Result<usize, StoreError> {
    let Some(tenant) = stores.catalog.tenants.get(slug).await? else {
        return Ok(0);
    };
    let daily: Vec<_> = stores
        .membership
        .members
        .read(&tenant)
        .await?
        .members
        .into_iter()
        .filter(|member| member.notify == Notify::Daily)
        .map(|member| member.email)
        .collect();
    if daily.is_empty() {
        return Ok(0);
    }
    let mut totals = BTreeMap::new();
    let mut titles = BTreeMap::new();
    for survey_slug in stores.catalog.surveys.slugs(slug).await?.iter() {
        let Some(survey) = stores.catalog.surveys.get(slug, survey_slug).await? else {
            continue;
        };
        let at = survey.survey_ref();
        let results = stores.results_of(&survey).await?;
        let total = results.answering.summaries.total(&at).await?;
        totals.insert(at.to_string(), total);
        titles.insert(at.to_string(), (survey.slug.clone(), survey.title.clone()));
    }
    let now = OffsetDateTime::now_utc();
    let Some(gained) = stores
        .panel
        .digests
        .claim(slug, now, settings.digest_period, &totals)
        .await?
    else {
        return Ok(0);
    };
    let mut queued = 0;
    for (survey, count) in gained {
        let Some((survey_slug, title)) = titles.get(&survey) else {
            continue;
        };
        let link = crate::links::responses(site, survey_slug);
        for email in &daily {
            stores
                .panel
                .mail
                .send(&digest_message(email, title, count, &link))
                .await?;
            queued += 1;
        }
    }
    Ok(queued)
}
