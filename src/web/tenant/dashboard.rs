//! `GET /tenant`: the tenant's surveys with their response counts and public links.

use std::sync::Arc;

use actix_web::{HttpResponse, web};
use askama::Template;

use super::session::SignedIn;
use crate::domain::{Survey, Tenant};
use crate::telemetry::error_chain;
use crate::web::{AppState, WebError, render};

struct Row {
    survey: Arc<Survey>,
    /// `None` when the survey's summary cannot be read: the row says so, the rest of the
    /// dashboard works.
    responses: Option<u64>,
}

#[derive(Template)]
#[template(path = "tenant/dashboard.html")]
struct Dashboard {
    tenant: Arc<Tenant>,
    csrf: String,
    rows: Vec<Row>,
}

/// The dashboard.
pub async fn show(
    state: web::Data<AppState>,
    signed_in: SignedIn,
) -> Result<HttpResponse, WebError> {
    let tenant = &signed_in.tenant.slug;
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
            rows.push(Row { survey, responses });
        }
    }
    render(&Dashboard {
        tenant: signed_in.tenant.clone(),
        csrf: signed_in.session.csrf.clone(),
        rows,
    })
}
