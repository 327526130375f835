//! `GET /tenant`: the tenant's surveys with their response counts and public links.

use std::sync::Arc;

use actix_web::HttpRequest;
use askama::Template;

use super::notice;
use super::session::AtLeast;
use crate::domain::member::Role;
use crate::web::roles::Viewer;
use time::OffsetDateTime;

use crate::domain::{Survey, SurveyState, Tenant};
use crate::service::{results, surveys};
use crate::telemetry::error_chain;
use crate::web::{AppState, Reply, State};

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

/// What waits to move home in each other region hosting one of the tenant's surveys.
async fn waiting(state: &AppState, tenant: &Tenant, rows: &[Row]) -> Vec<Waiting> {
    let surveys: Vec<&Survey> = rows.iter().map(|row| &*row.survey).collect();
    let backlogs = crate::service::hosting::backlogs(&state.app, tenant, &surveys).await;
    backlogs
        .into_iter()
        .map(|backlog| Waiting {
            region: backlog.region,
            backlog: backlog
                .waiting
                .map(|(count, oldest)| (count, oldest.map(waited))),
        })
        .collect()
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
pub async fn show(state: State, signed_in: AtLeast<Viewer>, request: HttpRequest) -> Reply {
    let tenant = &signed_in.tenant.slug;
    let zone = signed_in.tenant.zone();
    let now = OffsetDateTime::now_utc();
    let mut rows = Vec::new();
    let (_, surveys) = surveys::page(&state.app, tenant, 0, usize::MAX).await?;
    for survey in surveys {
        let slug = &survey.slug;
        let responses = match results::counted(&state.app, &survey).await {
            Ok(counted) => Some(counted),
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
