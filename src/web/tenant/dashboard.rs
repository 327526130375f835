//! `GET /tenant`: the tenant's surveys with their response counts and public links.

use std::sync::Arc;

use actix_web::{HttpRequest, HttpResponse, web};
use askama::Template;

use super::notice;
use super::session::AtLeast;
use crate::domain::member::Role;
use crate::web::roles::Viewer;
use time::OffsetDateTime;

use crate::domain::region::{RegionName, Residency};
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

/// A region hosting some of the tenant's surveys, and what waits there to move home.
struct Waiting {
    /// The region, as people know it.
    region: String,
    /// How many answers wait and how long the oldest has, in words; `None` when the region
    /// could not be asked.
    backlog: Option<(u64, Option<String>)>,
}

/// How long a region is given to say what waits there before the dashboard says it could
/// not ask.
const ASK_REGION: std::time::Duration = std::time::Duration::from_secs(2);

/// What waits to move home in each other region hosting one of `surveys`.
async fn waiting(state: &AppState, tenant: &Tenant, surveys: &[Row]) -> Vec<Waiting> {
    let regions = &state.stores.regions;
    let Some(here) = regions.here() else {
        return Vec::new();
    };
    let mut hosting: Vec<&RegionName> = surveys
        .iter()
        .filter(|row| row.survey.residency == Residency::Home)
        .flat_map(|row| row.survey.hosting_regions(here))
        .filter(|region| *region != here)
        .collect();
    hosting.sort();
    hosting.dedup();
    let mut shown = Vec::new();
    for name in hosting {
        let asked = async {
            let there = state.stores.in_region(name).await?;
            there.answer_queues.transfer_backlog(&tenant.slug).await
        };
        let backlog = match tokio::time::timeout(ASK_REGION, asked).await {
            Ok(Ok((count, oldest))) => Some((count, oldest.map(waited))),
            Ok(Err(error)) => {
                tracing::warn!(region = %name, error = %error_chain(&error), "cannot read what waits in a hosting region");
                None
            }
            Err(_) => None,
        };
        let region = regions
            .get(name)
            .map_or_else(|| name.to_string(), |region| region.label.clone());
        shown.push(Waiting { region, backlog });
    }
    shown
}

/// How long an answer has waited, in words.
fn waited(age: std::time::Duration) -> String {
    match age.as_secs() {
        0..60 => "less than a minute".to_owned(),
        60..120 => "1 minute".to_owned(),
        secs @ 120..7200 => format!("{} minutes", secs / 60),
        secs => format!("{} hours", secs / 3600),
    }
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
    /// Regions hosting the tenant's surveys, with what waits there to move home.
    waiting: Vec<Waiting>,
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
            let read = async {
                let results = state.stores.results_of(&survey).await?;
                results.summaries.read(&survey.survey_ref()).await
            };
            let responses = match read.await {
                Ok(read) => Some(read.doc.summary.total),
                Err(error) => {
                    tracing::error!(%tenant, survey = %slug, error = %error_chain(&error), "a summary on the dashboard cannot be read");
                    None
                }
            };
            let counted = responses.unwrap_or(0);
            rows.push(Row {
                url: state.survey_address(&request, &survey),
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
    let waiting = waiting(&state, &signed_in.tenant, &rows).await;
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
            waiting,
        },
        shown,
    )
}
