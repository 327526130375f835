//! `GET /tenant`: the tenant's surveys with their response counts and public links.

use std::sync::Arc;

use actix_web::{HttpRequest, HttpResponse, web};
use askama::Template;

use super::notice;
use super::session::AtLeast;
use crate::domain::member::Role;
use crate::web::roles::Viewer;
use time::OffsetDateTime;

use crate::domain::{Survey, SurveyState, Tenant};
use crate::telemetry::error_chain;
use crate::web::{AppState, WebError};

struct Row {
    survey: Arc<Survey>,
    /// `None` when the survey's summary cannot be read: the row says so, the rest of the
    /// dashboard works.
    responses: Option<u64>,
    state: SurveyState,
    /// Why it is closed, in words.
    closed_because: Option<&'static str>,
    /// When it closes (or closed), in the tenant's time zone.
    closes: Option<String>,
    /// Progress towards its response limit, in percent (at most 100).
    percent: Option<u64>,
    /// Its public address.
    url: String,
}

#[derive(Template)]
#[template(path = "tenant/dashboard.html")]
struct Dashboard {
    tenant: Arc<Tenant>,
    /// The site's address as respondents reach it.
    site: String,
    csrf: String,
    role: Role,
    rows: Vec<Row>,
    notice: Option<String>,
}

/// The dashboard.
pub async fn show(
    state: web::Data<AppState>,
    signed_in: AtLeast<Viewer>,
    request: HttpRequest,
) -> Result<HttpResponse, WebError> {
    let tenant = &signed_in.tenant.slug;
    let zone = signed_in.tenant.zone();
    let now = OffsetDateTime::now_utc();
    let mut rows = Vec::new();
    for slug in state.stores.surveys.slugs(tenant).await?.iter() {
        if let Some(survey) = state.stores.surveys.get(tenant, slug).await? {
            let responses = match state.stores.summaries.read(&survey.survey_ref()).await {
                Ok(read) => Some(read.doc.summary.total),
                Err(error) => {
                    tracing::error!(%tenant, survey = %slug, error = %error_chain(&error), "a summary on the dashboard cannot be read");
                    None
                }
            };
            let counted = responses.unwrap_or(0);
            rows.push(Row {
                url: state.survey_url(&request, tenant, &survey.slug),
                state: survey.state(now, counted),
                closed_because: survey.closure(now, counted).map(|c| c.describe()),
                closes: survey.closes_at.map(|at| zone.describe(at)),
                percent: survey
                    .response_limit
                    .map(|limit| (counted.saturating_mul(100) / limit.max(1)).min(100)),
                survey,
                responses,
            });
        }
    }
    let notice = notice::take(&request, &state);
    let shown = notice.is_some();
    notice::render_once(
        &Dashboard {
            notice,
            site: state.site_url(&request),
            tenant: signed_in.tenant.clone(),
            csrf: signed_in.session.csrf.clone(),
            role: signed_in.role,
            rows,
        },
        shown,
    )
}
