//! `GET /tenant`: the tenant's surveys with their response counts and public links.

use std::sync::Arc;

use actix_web::{HttpResponse, web};
use askama::Template;

use super::session::SignedIn;
use crate::domain::{Survey, Tenant};
use crate::web::{AppState, WebError, render};

struct Row {
    survey: Arc<Survey>,
    responses: u64,
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
            let responses = state
                .stores
                .summaries
                .read(tenant, slug)
                .await?
                .doc
                .summary
                .total;
            rows.push(Row { survey, responses });
        }
    }
    render(&Dashboard {
        tenant: signed_in.tenant.clone(),
        csrf: signed_in.session.csrf.clone(),
        rows,
    })
}
