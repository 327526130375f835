//! Exports from the tenant site: request one to PostgreSQL and follow its progress, or
//! download the responses as CSV or XLSX.

use crate::service::responses;
use crate::web::tenant::survey_form::OwnSurvey;
use crate::web::tenant::survey_form::SurveyForm;
use actix_web::http::header::LOCATION;
use actix_web::{HttpResponse, web};
use askama::Template;

use super::session::AtLeast;
use crate::domain::member::Role;
use crate::export::SheetFormat;
use crate::service::responses::{ExportJob, ExportStatus};
use crate::web::download::{DownloadQuery, download};
use crate::web::roles::{Editor, Viewer};
use crate::web::{Reply, State, WebError, render};

#[derive(Template)]
#[template(path = "tenant/export.html")]
struct ExportPage {
    csrf: String,
    role: Role,
    status: &'static str,
    job: ExportJob,
    percent: u64,
    finished: bool,
}

/// `POST /tenant/surveys/{slug}/exports`
pub async fn request(state: State, posted: SurveyForm<Editor>) -> Reply {
    let (signed_in, survey, _) = posted.parts();
    let job = responses::request_export(&state.app, signed_in.actor(), &survey).await?;
    Ok(HttpResponse::SeeOther()
        .insert_header((LOCATION, format!("/tenant/exports/{}", job.id)))
        .finish())
}

/// `GET /tenant/exports/{id}`: the job's progress; refreshes itself until it ends.
pub async fn status(state: State, signed_in: AtLeast<Editor>, id: web::Path<String>) -> Reply {
    let job = crate::service::responses::export_job(&state.app, &signed_in.tenant.slug, &id)
        .await?
        .ok_or(WebError::NotFound)?;
    let percent = (job.exported * 100).checked_div(job.total).unwrap_or(0);
    render(&ExportPage {
        csrf: signed_in.session.csrf.clone(),
        role: signed_in.role,
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

/// `GET /tenant/surveys/{slug}/responses.{csv|xlsx}`: every response, streamed.
pub async fn download_responses(
    state: State,
    OwnSurvey { signed_in, survey }: OwnSurvey<Viewer>,
    path: web::Path<(String, String)>,
    query: web::Query<DownloadQuery>,
) -> Reply {
    let (_, extension) = path.into_inner();
    let format = SheetFormat::from_extension(&extension);
    if format.is_none() && crate::export::ToolFile::from_extension(&extension).is_none() {
        return Err(WebError::NotFound);
    }
    responses::downloaded(&state.app, signed_in.actor(), &survey, &extension).await?;
    let tool = crate::web::download::download_for_tool(&state.app, survey.clone(), &extension);
    match (format, tool.await?) {
        (_, Some(response)) => Ok(response),
        (Some(format), None) => Ok(download(&state.app, survey, format, &query).await?),
        (None, None) => Err(WebError::NotFound),
    }
}

/// `GET /tenant/surveys/{slug}/xlsform`: the survey as an XLSForm workbook, to build on in
/// ODK, KoboToolbox, SurveyCTO or Survey123.
pub async fn xlsform(_state: State, OwnSurvey { survey, .. }: OwnSurvey<Viewer>) -> Reply {
    crate::web::download::xlsform(&survey)
        .map_err(|error| WebError::Internal(format!("writing an XLSForm: {error}")))
}
