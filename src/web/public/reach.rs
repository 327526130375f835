//! Finding the survey a respondent's address names, as this region holds it: a tenant living
//! here or hosted here, a survey published at some time (a draft never published is not
//! there), answered here or a 307 to the region that answers it, open or closed (the closing
//! page, 410).

use std::sync::Arc;

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse};
use askama::Template;

use super::language::words_for;
use crate::domain::markdown;
use crate::domain::region::RegionName;
use crate::domain::{Survey, SurveySlug, SurveyState, Tenant, TenantSlug};
use crate::i18n::Words;
use crate::stores::hosted::HostedTenant;
use crate::web::{AppState, WebError, render_with_status};

/// How this region holds a tenant whose public address was asked for.
enum Standing {
    /// It lives here.
    Own(Arc<Tenant>),
    /// It lives elsewhere; this region hosts some of its surveys.
    Hosted(Arc<HostedTenant>),
}

/// The tenant at this address as this region holds it, or 404.
async fn standing(state: &AppState, tenant: &str) -> Result<Standing, WebError> {
    let slug = TenantSlug::parse(tenant).map_err(|_| WebError::NotFound)?;
    if let Some(own) = state.stores.tenants.get(&slug).await? {
        return Ok(Standing::Own(own));
    }
    if state.stores.regions.named()
        && let Some(hosted) = state.stores.hosted.tenant(&slug).await?
    {
        return Ok(Standing::Hosted(hosted));
    }
    Err(WebError::NotFound)
}

/// The tenant at this address (living here, or hosted here), or 404.
pub(crate) async fn tenant_named(state: &AppState, tenant: &str) -> Result<Arc<Tenant>, WebError> {
    Ok(match standing(state, tenant).await? {
        Standing::Own(tenant) => tenant,
        Standing::Hosted(hosted) => hosted.tenant.clone(),
    })
}

/// Where the tenant at this address lives when that is another region: its address there.
pub(crate) async fn home_elsewhere(
    state: &AppState,
    tenant: &str,
) -> Result<Option<String>, WebError> {
    Ok(match standing(state, tenant).await? {
        Standing::Own(_) => None,
        Standing::Hosted(hosted) => Some(region_url(state, &hosted.home)?),
    })
}

/// A region's public address.
fn region_url(state: &AppState, region: &RegionName) -> Result<String, WebError> {
    state
        .stores
        .regions
        .get(region)
        .map(|region| region.public_url.clone())
        .ok_or_else(|| WebError::Internal(format!("{region} is not a region of this installation")))
}

/// The tenant and one of its surveys; 404 unless both exist and the survey was published
/// at some time (a draft never published is not there for respondents). A survey answered in
/// another region is a 307 to the same address there (`request` gives the address).
pub(super) async fn survey_named(
    state: &AppState,
    request: &HttpRequest,
    tenant: &str,
    survey: &str,
) -> Result<(Arc<Tenant>, Arc<Survey>), WebError> {
    let slug = SurveySlug::parse(survey).map_err(|_| WebError::NotFound)?;
    let answered = |survey: &Survey| survey.published || survey.was_published;
    let elsewhere = |region: &RegionName| -> Result<WebError, WebError> {
        Ok(WebError::Elsewhere(format!(
            "{}{}",
            region_url(state, region)?,
            request.uri()
        )))
    };
    match standing(state, tenant).await? {
        Standing::Own(tenant) => {
            let survey = state
                .stores
                .surveys
                .get(&tenant.slug, &slug)
                .await?
                .filter(|survey| answered(survey))
                .ok_or(WebError::NotFound)?;
            if let Some(here) = state.stores.regions.here() {
                let hosts = survey.hosting_regions(here);
                if !hosts.contains(here) {
                    return Err(elsewhere(&hosts[0])?);
                }
            }
            Ok((tenant, survey))
        }
        Standing::Hosted(hosted) => {
            let here = state.stores.regions.here();
            let copy = state
                .stores
                .hosted
                .survey(&hosted.tenant.slug, &slug)
                .await?
                .filter(|survey| answered(survey))
                .filter(|survey| {
                    here.is_some_and(|here| survey.hosting_regions(&hosted.home).contains(here))
                });
            match copy {
                Some(survey) => Ok((hosted.tenant.clone(), survey)),
                // Not answered here (or no longer): its home says where it is.
                None => Err(elsewhere(&hosted.home)?),
            }
        }
    }
}

/// A survey of a tenant living here, published at some time, wherever it is answered (`None`
/// for any other).
pub(super) async fn own_survey(
    state: &AppState,
    tenant: &str,
    survey: &str,
) -> Result<Option<(Arc<Tenant>, Arc<Survey>)>, WebError> {
    let (Ok(tenant), Ok(slug)) = (TenantSlug::parse(tenant), SurveySlug::parse(survey)) else {
        return Ok(None);
    };
    let Some(tenant) = state.stores.tenants.get(&tenant).await? else {
        return Ok(None);
    };
    let survey = state.stores.surveys.get(&tenant.slug, &slug).await?;
    Ok(survey
        .filter(|survey| survey.published || survey.was_published)
        .map(|survey| (tenant, survey)))
}

/// Whether `tenant` lives in another region and its surveys are hosted here.
async fn hosted_here(state: &AppState, tenant: &Tenant) -> Result<bool, WebError> {
    if !state.stores.regions.named() {
        return Ok(false);
    }
    Ok(state.stores.tenants.get(&tenant.slug).await?.is_none())
}

/// A survey respondents can answer now, or the page saying it is closed (410).
pub(super) enum Reached {
    Open(Arc<Tenant>, Arc<Survey>),
    Closed(HttpResponse),
}

/// The survey at this address as respondents reach it: 404 for a draft never published, the
/// closing page for one closed (by its owner, its date or its response limit).
pub(super) async fn reach(
    state: &AppState,
    request: &HttpRequest,
    tenant: &str,
    survey: &str,
) -> Result<Reached, WebError> {
    let (tenant, survey) = survey_named(state, request, tenant, survey).await?;
    let now = match hosted_here(state, &tenant).await? {
        true => state.stores.hosted_survey_state(&survey).await?,
        false => state.stores.survey_state(&survey).await?,
    };
    if now == SurveyState::Open {
        return Ok(Reached::Open(tenant, survey));
    }
    let words = words_for(request, &survey);
    let language = words.lang();
    let message = survey.closed_message.as_deref().map_or_else(
        || {
            let said = askama::filters::escape(words.t("closed-message"), askama::filters::Html)
                .map(|escaped| escaped.to_string())
                .unwrap_or_default();
            format!("<p>{said}</p>")
        },
        |text| markdown::to_html(survey.text_in(language, "closed_message", text)),
    );
    let page = ClosedPage {
        title: survey.text_in(language, "title", &survey.title).to_owned(),
        tenant,
        message,
        words: words.clone(),
    };
    render_with_status(StatusCode::GONE, &page).map(Reached::Closed)
}

#[derive(Template)]
#[template(path = "public/closed.html")]
struct ClosedPage {
    tenant: Arc<Tenant>,
    /// The owner's closing message, as safe HTML.
    message: String,
    words: Words,
    /// The survey's title in the page's language.
    title: String,
}
