//! Exports from the tenant site: request one to PostgreSQL and follow its progress, or
//! download the responses as CSV.

use actix_web::http::header::{CONTENT_DISPOSITION, LOCATION};
use actix_web::{HttpResponse, web};
use askama::Template;
use futures_util::TryStreamExt;

use super::own_survey;
use super::session::SignedIn;
use crate::stores::exports::{ExportJob, ExportStatus};
use crate::telemetry::error_chain;
use crate::web::{AppState, WebError, render};

#[derive(Template)]
#[template(path = "tenant/export.html")]
struct ExportPage {
    csrf: String,
    status: &'static str,
    job: ExportJob,
    percent: u64,
    finished: bool,
}

/// `POST /tenant/surveys/{slug}/exports`
pub async fn request(
    state: web::Data<AppState>,
    signed_in: SignedIn,
    slug: web::Path<String>,
    payload: web::Payload,
) -> Result<HttpResponse, WebError> {
    signed_in.checked_form(payload, &state).await?;
    let survey = own_survey(&state, &signed_in, &slug).await?;
    let job = state.stores.exports.request(&survey.survey_ref()).await?;
    Ok(HttpResponse::SeeOther()
        .insert_header((LOCATION, format!("/tenant/exports/{}", job.id)))
        .finish())
}

/// `GET /tenant/exports/{id}`: the job's progress; refreshes itself until it ends.
pub async fn status(
    state: web::Data<AppState>,
    signed_in: SignedIn,
    id: web::Path<String>,
) -> Result<HttpResponse, WebError> {
    let job = state
        .stores
        .exports
        .get(&signed_in.tenant.slug, &id)
        .await?
        .ok_or(WebError::NotFound)?;
    let percent = (job.exported * 100).checked_div(job.total).unwrap_or(0);
    render(&ExportPage {
        csrf: signed_in.session.csrf.clone(),
        status: match job.status {
            ExportStatus::Pending => "pending",
            ExportStatus::Running => "running",
            ExportStatus::Done => "done",
            ExportStatus::Failed => "failed",
        },
        finished: matches!(job.status, ExportStatus::Done | ExportStatus::Failed),
        percent,
        job,
    })
}

/// `GET /tenant/surveys/{slug}/responses.csv`: every response, streamed.
pub async fn csv(
    state: web::Data<AppState>,
    signed_in: SignedIn,
    slug: web::Path<String>,
) -> Result<HttpResponse, WebError> {
    let survey = own_survey(&state, &signed_in, &slug).await?;
    let filename = format!("{}-{}.csv", survey.tenant, survey.slug);
    let stream = crate::export::csv_stream(state.stores.clone(), survey).map_err(|error| {
        tracing::error!(error = %error_chain(&error), "streaming a CSV export failed");
        actix_web::error::ErrorInternalServerError("the export stopped")
    });
    Ok(HttpResponse::Ok()
        .content_type("text/csv; charset=utf-8")
        .insert_header((
            CONTENT_DISPOSITION,
            format!("attachment; filename=\"{filename}\""),
        ))
        .streaming(stream))
}
