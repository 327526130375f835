//! Finding the survey a respondent's address names, as this region holds it: a tenant living
//! here or hosted here, a survey published at some time (a draft never published is not
//! there), answered here or a 307 to the region that answers it, open or closed (the closing
//! page, 410).

use std::sync::Arc;

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse};
use askama::Template;

use super::language::words_for;
use crate::domain::hidden::HiddenValues;
use crate::domain::markdown;
use crate::domain::{Survey, SurveyState, Tenant};
use crate::i18n::Words;
use crate::service::finding::{self, SurveyFound, TenantFound};
use crate::web::{AppState, WebError, render_with_status};

/// The tenant at this address (living here, or hosted here), or 404.
pub(crate) async fn tenant_named(state: &AppState, tenant: &str) -> Result<Arc<Tenant>, WebError> {
    match finding::tenant(&state.app, tenant).await? {
        TenantFound::Own(tenant) | TenantFound::Hosted(tenant, _) => Ok(tenant),
        TenantFound::Missing => Err(WebError::NotFound),
    }
}

/// Where the tenant at this address lives when that is another region: its address there.
pub(crate) async fn home_elsewhere(
    state: &AppState,
    tenant: &str,
) -> Result<Option<String>, WebError> {
    match finding::tenant(&state.app, tenant).await? {
        TenantFound::Own(_) => Ok(None),
        TenantFound::Hosted(_, home) => Ok(Some(finding::region_url(&state.app, &home)?)),
        TenantFound::Missing => Err(WebError::NotFound),
    }
}

/// The survey at this address as this region answers it, with its state now; 404 unless it
/// exists and was published at some time (a draft never published is not there for
/// respondents). A survey answered in another region is a 307 to the same address there
/// (`request` gives the address).
async fn found(
    state: &AppState,
    request: &HttpRequest,
    tenant: &str,
    survey: &str,
) -> Result<(Arc<Tenant>, Arc<Survey>, SurveyState), WebError> {
    match finding::survey(&state.app, tenant, survey).await? {
        SurveyFound::Here(tenant, survey, now) => Ok((tenant, survey, now)),
        SurveyFound::Elsewhere(region) => {
            Err(WebError::Elsewhere(format!("{region}{}", request.uri())))
        }
        SurveyFound::Missing => Err(WebError::NotFound),
    }
}

/// The tenant and one of its surveys, as `found` finds them, whether open or not.
pub(super) async fn survey_named(
    state: &AppState,
    request: &HttpRequest,
    tenant: &str,
    survey: &str,
) -> Result<(Arc<Tenant>, Arc<Survey>), WebError> {
    let (tenant, survey, _) = found(state, request, tenant, survey).await?;
    Ok((tenant, survey))
}

/// A survey of a tenant living here, published at some time, wherever it is answered (`None`
/// for any other).
pub(super) async fn own_survey(
    state: &AppState,
    tenant: &str,
    survey: &str,
) -> Result<Option<(Arc<Tenant>, Arc<Survey>)>, WebError> {
    Ok(finding::own_survey(&state.app, tenant, survey).await?)
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
    let (tenant, survey, now) = found(state, request, tenant, survey).await?;
    if now == SurveyState::Open {
        return Ok(Reached::Open(tenant, survey));
    }
    // A panel's respondents go back to the panel, with what their link carried.
    if let Some(address) = &survey.redirects.closed {
        let query = url::form_urlencoded::parse(request.query_string().as_bytes());
        let pairs: Vec<(String, String)> = query.into_owned().collect();
        let given = pairs.iter().map(|(n, v)| (n.as_str(), v.as_str()));
        let hidden = HiddenValues::read(&survey.hidden_fields, given).unwrap_or_default();
        let values = std::collections::BTreeMap::new();
        return Ok(Reached::Closed(super::redirect::to(
            address, &hidden, &values, None,
        )));
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
