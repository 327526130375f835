//! `/api/v1/surveys`: list, create, get, update, publish, unpublish, delete, summary and
//! response pages, all within the caller's tenant.

use std::sync::Arc;

use actix_web::{HttpResponse, web};
use serde::Deserialize;
use serde_json::json;

use super::document::survey_document;
use super::{ApiCaller, ApiError, JsonBody};
use crate::domain::audit::AuditAction;
use crate::domain::definition::SurveyInput;
use crate::domain::survey::MAX_SURVEYS_PER_TENANT;
use crate::domain::{Reference, SegmentId, Survey, SurveySlug, Tenant};
use crate::export::SheetFormat;
use crate::stores::responses::{DateRange, Filter, PER_PAGE, Standing};
use crate::web::AppState;
use crate::web::download::{DownloadQuery, download};
use crate::web::roles::{Editor, Viewer};

async fn find(state: &AppState, tenant: &Tenant, slug: &str) -> Result<Arc<Survey>, ApiError> {
    let slug = SurveySlug::parse(slug).map_err(|_| ApiError::NotFound)?;
    state
        .stores
        .surveys
        .get(&tenant.slug, &slug)
        .await?
        .ok_or(ApiError::NotFound)
}

/// The survey's JSON with its state now.
async fn document(state: &AppState, survey: &Survey) -> Result<serde_json::Value, ApiError> {
    Ok(survey_document(
        survey,
        state.stores.survey_state(survey).await?,
    ))
}

fn invalid(fields: std::collections::BTreeMap<String, String>) -> ApiError {
    ApiError::Invalid {
        reason: "the survey definition is not valid".into(),
        fields,
    }
}

/// Surveys per page of `GET /api/v1/surveys`: at most a few megabytes whatever the tenant has.
pub const SURVEYS_PER_PAGE: u64 = 20;

/// `GET /api/v1/surveys?page=N`: `{"surveys", "total", "page", "pages", "per_page"}`, in slug
/// order.
pub async fn list(
    state: web::Data<AppState>,
    caller: ApiCaller<Viewer>,
    query: web::Query<PageQuery>,
) -> Result<HttpResponse, ApiError> {
    let page = page_asked(query.page)?;
    let slugs = state.stores.surveys.slugs(&caller.tenant.slug).await?;
    let total = slugs.len() as u64;
    let mut surveys = Vec::new();
    let first = (page - 1).saturating_mul(SURVEYS_PER_PAGE);
    for slug in slugs
        .iter()
        .skip(usize::try_from(first).unwrap_or(usize::MAX))
        .take(SURVEYS_PER_PAGE as usize)
    {
        if let Some(survey) = state.stores.surveys.get(&caller.tenant.slug, slug).await? {
            surveys.push(document(&state, &survey).await?);
        }
    }
    Ok(HttpResponse::Ok().json(json!({
        "surveys": surveys,
        "total": total,
        "page": page,
        "pages": total.div_ceil(SURVEYS_PER_PAGE).max(1),
        "per_page": SURVEYS_PER_PAGE,
    })))
}

/// The page a query asks for (from 1; 1 when absent).
fn page_asked(page: Option<u64>) -> Result<u64, ApiError> {
    match page.unwrap_or(1) {
        0 => Err(ApiError::BadRequest("pages are numbered from 1".into())),
        page => Ok(page),
    }
}

/// `POST /api/v1/surveys`: 201 with the new survey (a draft) and its slug.
pub async fn create(
    state: web::Data<AppState>,
    caller: ApiCaller<Editor>,
    JsonBody(input): JsonBody<SurveyInput>,
) -> Result<HttpResponse, ApiError> {
    let definition = input.check(&[]).map_err(invalid)?;
    let survey = state
        .stores
        .surveys
        .create(&caller.tenant.slug, definition)
        .await?
        .ok_or_else(|| ApiError::Invalid {
            reason: format!(
                "a tenant has at most {MAX_SURVEYS_PER_TENANT} surveys: delete one first"
            ),
            fields: Default::default(),
        })?;
    caller
        .record(
            &state,
            AuditAction::SurveyCreated,
            format!("\"{}\" ({})", survey.title, survey.slug),
        )
        .await?;
    Ok(HttpResponse::Created()
        .insert_header(("location", format!("/api/v1/surveys/{}", survey.slug)))
        .json(document(&state, &survey).await?))
}

/// `GET /api/v1/surveys/{slug}`
pub async fn get(
    state: web::Data<AppState>,
    caller: ApiCaller<Viewer>,
    slug: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let survey = find(&state, &caller.tenant, &slug).await?;
    Ok(HttpResponse::Ok().json(document(&state, &survey).await?))
}

/// `PUT /api/v1/surveys/{slug}`: replaces the definition; questions sent with their `id`
/// keep it. Editing a published survey starts a new version.
pub async fn update(
    state: web::Data<AppState>,
    caller: ApiCaller<Editor>,
    slug: web::Path<String>,
    JsonBody(input): JsonBody<SurveyInput>,
) -> Result<HttpResponse, ApiError> {
    let current = find(&state, &caller.tenant, &slug).await?;
    let known = state.stores.surveys.known_questions(&current).await?;
    let definition = input.check(&known).map_err(invalid)?;
    let survey = state.stores.revise_survey(&current, definition).await?;
    Ok(HttpResponse::Ok().json(document(&state, &survey).await?))
}

/// `DELETE /api/v1/surveys/{slug}`: the survey and all its answers.
pub async fn delete(
    state: web::Data<AppState>,
    caller: ApiCaller<Editor>,
    slug: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let survey = find(&state, &caller.tenant, &slug).await?;
    state.stores.surveys.delete(&survey).await?;
    caller
        .record(
            &state,
            AuditAction::SurveyDeleted,
            format!("\"{}\" ({})", survey.title, survey.slug),
        )
        .await?;
    Ok(HttpResponse::NoContent().finish())
}

/// `POST /api/v1/surveys/{slug}/publish`
pub async fn publish(
    state: web::Data<AppState>,
    caller: ApiCaller<Editor>,
    slug: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let survey = find(&state, &caller.tenant, &slug).await?;
    if let Some(problem) = survey.publish_problem() {
        return Err(ApiError::Invalid {
            reason: problem.into(),
            fields: [("questions".to_string(), "add a question first".to_string())].into(),
        });
    }
    let survey = state.stores.surveys.set_published(&survey, true).await?;
    caller
        .record(
            &state,
            AuditAction::SurveyPublished,
            format!("\"{}\" ({})", survey.title, survey.slug),
        )
        .await?;
    Ok(HttpResponse::Ok().json(document(&state, &survey).await?))
}

/// `POST /api/v1/surveys/{slug}/unpublish`
pub async fn unpublish(
    state: web::Data<AppState>,
    caller: ApiCaller<Editor>,
    slug: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let survey = find(&state, &caller.tenant, &slug).await?;
    let survey = state.stores.surveys.set_published(&survey, false).await?;
    caller
        .record(
            &state,
            AuditAction::SurveyUnpublished,
            format!("\"{}\" ({})", survey.title, survey.slug),
        )
        .await?;
    Ok(HttpResponse::Ok().json(document(&state, &survey).await?))
}

/// `GET /api/v1/surveys/{slug}/summary?segment=QUESTION_ID:OPTION`: the same object as
/// `canvass summary`, of every response or of one segment's.
pub async fn summary(
    state: web::Data<AppState>,
    caller: ApiCaller<Viewer>,
    slug: web::Path<String>,
    query: web::Query<SegmentQuery>,
) -> Result<HttpResponse, ApiError> {
    let survey = find(&state, &caller.tenant, &slug).await?;
    let segment = segment_asked(&survey, query.segment.as_deref())?;
    Ok(HttpResponse::Ok().json(
        state
            .stores
            .summary_report(&survey, segment.as_ref())
            .await?,
    ))
}

/// The page asked for.
#[derive(Deserialize)]
pub struct PageQuery {
    /// From 1; defaults to 1.
    page: Option<u64>,
}

/// A segment asked for (`QUESTION_ID:OPTION`).
#[derive(Deserialize)]
pub struct SegmentQuery {
    segment: Option<String>,
}

/// The segment a query names (`QUESTION_ID:OPTION`), checked against the survey.
fn segment_asked(survey: &Survey, segment: Option<&str>) -> Result<Option<SegmentId>, ApiError> {
    SegmentId::asked(segment, &survey.questions).map_err(ApiError::BadRequest)
}

/// The page and filters of a list of responses.
#[derive(Deserialize)]
pub struct ResponsesQuery {
    /// Only responses in this segment (`QUESTION_ID:OPTION`).
    segment: Option<String>,
    /// From 1; defaults to 1.
    page: Option<u64>,
    /// Responses submitted on or after this day (`YYYY-MM-DD`, UTC).
    from: Option<String>,
    /// Responses submitted on or before this day.
    to: Option<String>,
}

/// `GET /api/v1/surveys/{slug}/responses?segment=Q:OPTION&page=N&from=YYYY-MM-DD&to=YYYY-MM-DD`:
/// newest first,
/// 25 per page (shorter where deleted responses or, filtered by date, neighbouring days' answers
/// were), each filter optional.
pub async fn responses(
    state: web::Data<AppState>,
    caller: ApiCaller<Viewer>,
    slug: web::Path<String>,
    query: web::Query<ResponsesQuery>,
) -> Result<HttpResponse, ApiError> {
    let survey = find(&state, &caller.tenant, &slug).await?;
    let page = page_asked(query.page)?;
    let filter = Filter {
        range: DateRange::parse(query.from.as_deref(), query.to.as_deref())
            .map_err(ApiError::BadRequest)?,
        segment: segment_asked(&survey, query.segment.as_deref())?,
    };
    let found = state
        .stores
        .response_page(&survey.survey_ref(), page, &filter)
        .await?;
    let responses = if page > found.pages {
        Vec::new()
    } else {
        found.responses
    };
    Ok(HttpResponse::Ok().json(json!({
        "total": found.total,
        "total_exact": found.exact,
        "page": page,
        "pages": found.pages,
        "per_page": PER_PAGE,
        "responses": responses,
    })))
}

/// `POST /api/v1/surveys/{slug}/exports`: 202 with the new export job's id.
pub async fn request_export(
    state: web::Data<AppState>,
    caller: ApiCaller<Editor>,
    slug: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let survey = find(&state, &caller.tenant, &slug).await?;
    let job = state.stores.exports.request(&survey.survey_ref()).await?;
    caller
        .record(
            &state,
            AuditAction::ResponsesExported,
            format!("{} to PostgreSQL (job {})", survey.slug, job.id),
        )
        .await?;
    Ok(HttpResponse::Accepted()
        .insert_header(("location", format!("/api/v1/exports/{}", job.id)))
        .json(json!({ "id": job.id, "status": job.status })))
}

/// `GET /api/v1/exports/{id}`: the job's status, counts, times and error.
pub async fn export_status(
    state: web::Data<AppState>,
    caller: ApiCaller<Editor>,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let job = state
        .stores
        .exports
        .get(&caller.tenant.slug, &id)
        .await?
        .ok_or(ApiError::NotFound)?;
    Ok(HttpResponse::Ok().json(job))
}

/// `GET /api/v1/surveys/{slug}/responses.{csv|xlsx}`: as the site's downloads
/// (`?bom=false` for a CSV without the byte order mark, `?ids=true`).
pub async fn download_responses(
    state: web::Data<AppState>,
    caller: ApiCaller<Viewer>,
    path: web::Path<(String, String)>,
    query: web::Query<DownloadQuery>,
) -> Result<HttpResponse, ApiError> {
    let (slug, extension) = path.into_inner();
    let format = SheetFormat::from_extension(&extension).ok_or(ApiError::NotFound)?;
    let survey = find(&state, &caller.tenant, &slug).await?;
    caller
        .record(
            &state,
            AuditAction::ResponsesExported,
            format!("{} downloaded as {extension}", survey.slug),
        )
        .await?;
    Ok(download(state.stores.clone(), survey, format, &query))
}

/// `DELETE /api/v1/surveys/{slug}/responses/{reference}`: 202 once the deletion is recorded
/// and queued (the summary's `total` drops when a worker applies it); 404 for one deleted
/// already, unknown, or still queued (not counted yet: retry); 409 in the moment between a
/// worker storing it and counting it.
pub async fn delete_response(
    state: web::Data<AppState>,
    caller: ApiCaller<Editor>,
    path: web::Path<(String, u64)>,
) -> Result<HttpResponse, ApiError> {
    let (slug, reference) = path.into_inner();
    let survey = find(&state, &caller.tenant, &slug).await?;
    let reference = Reference(reference);
    let at = survey.survey_ref();
    match state.stores.standing(&at, &[reference]).await?[..] {
        [Standing::Counted] => {}
        [Standing::Waiting] => {
            return Err(ApiError::Conflict(
                "that response is not counted yet; try again in a moment".into(),
            ));
        }
        _ => {
            return Err(ApiError::Missing(
                "no counted response of this survey has that reference (a response just \
                 submitted is counted within seconds: try again then)"
                    .into(),
            ));
        }
    }
    state
        .stores
        .deletions
        .request(&at, &[reference], &caller.actor)
        .await?;
    caller
        .record(
            &state,
            AuditAction::ResponsesDeleted,
            format!("1 of \"{}\": {reference}", survey.slug),
        )
        .await?;
    Ok(HttpResponse::Accepted().json(json!({"reference": reference, "status": "deleting"})))
}
