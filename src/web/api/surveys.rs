//! `/api/v1/surveys`: list, create, get, update, publish, unpublish, delete, summary and
//! response pages, all within the caller's tenant.

use crate::service::responses;
use crate::service::surveys as service;
use std::sync::Arc;

use actix_web::{HttpResponse, web};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use super::body::WorkbookBody;
use super::document::SurveyDocument;
use super::error::ErrorBody;
use super::templates::{self, FromTemplate};
use super::{ApiCaller, ApiError, JsonBody};
use crate::domain::definition::SurveyInput;
use crate::domain::definition::localized::LocalizedInput;
use crate::domain::lifecycle::SurveyState;
use crate::domain::summary::SummaryReport;
use crate::domain::survey::MAX_SURVEYS_PER_TENANT;
use crate::domain::{Answer, Reference, SegmentId, Survey, SurveySlug, Tenant};
use crate::export::SheetFormat;
use crate::service::responses::{ExportJob, ExportStatus};
use crate::service::results::{self, DateRange, Filter, PER_PAGE};
use crate::web::download::{DownloadQuery, download};
use crate::web::roles::{Editor, Viewer};
use crate::web::{AppState, State};

pub(super) async fn find(
    state: &AppState,
    tenant: &Tenant,
    slug: &str,
) -> Result<Arc<Survey>, ApiError> {
    let slug = SurveySlug::parse(slug).map_err(|_| ApiError::NotFound)?;
    service::own(&state.app, &tenant.slug, &slug)
        .await?
        .ok_or(ApiError::NotFound)
}

/// The survey as the API shows it, in its state now.
async fn document(state: &AppState, survey: &Survey) -> Result<HttpResponse, ApiError> {
    let now = results::state_now(&state.app, survey).await?;
    Ok(HttpResponse::Ok().json(SurveyDocument::new(survey, now)))
}

fn invalid(fields: std::collections::BTreeMap<String, String>) -> ApiError {
    ApiError::Invalid {
        reason: "the survey definition is not valid".into(),
        fields,
    }
}

/// What `POST /api/v1/surveys` takes: a definition, or a template to make one from.
#[derive(Deserialize, ToSchema)]
#[serde(untagged)]
#[allow(dead_code)] // Only its schema is used: a body is told apart by its `template` key.
pub enum NewSurvey {
    /// A survey's definition.
    Definition(Box<SurveyInput>),
    /// A template, in one of its languages, with an optional title.
    Template(FromTemplate),
}

/// Surveys per page of `GET /api/v1/surveys`: at most a few megabytes whatever the tenant has.
pub const SURVEYS_PER_PAGE: u64 = 20;

/// A page of the tenant's surveys.
#[derive(Serialize, ToSchema)]
pub struct SurveyList<'a> {
    /// This page's surveys, in slug order.
    surveys: Vec<SurveyDocument<'a>>,
    /// Surveys in all.
    total: u64,
    /// This page's number, from 1.
    page: u64,
    /// How many pages there are (at least 1).
    pages: u64,
    /// Surveys per page.
    per_page: u64,
}

/// `GET /api/v1/surveys?page=N`: `{"surveys", "total", "page", "pages", "per_page"}`, in slug
/// order.
#[utoipa::path(get, path = "/api/v1/surveys", operation_id = "list_surveys",
    summary = "List the surveys, a page at a time", tag = "surveys", params(PageQuery),
    responses((status = 200, description = "A page of the tenant's surveys", body = SurveyList)))]
pub async fn list(
    state: State,
    caller: ApiCaller<Viewer>,
    query: web::Query<PageQuery>,
) -> Result<HttpResponse, ApiError> {
    let page = page_asked(query.page)?;
    let first = (page - 1).saturating_mul(SURVEYS_PER_PAGE);
    let first = usize::try_from(first).unwrap_or(usize::MAX);
    let tenant = &caller.tenant.slug;
    let (total, found) =
        service::page(&state.app, tenant, first, SURVEYS_PER_PAGE as usize).await?;
    let total = total as u64;
    let mut surveys = Vec::new();
    for survey in found {
        let now = results::state_now(&state.app, &survey).await?;
        surveys.push((survey, now));
    }
    Ok(HttpResponse::Ok().json(SurveyList {
        surveys: surveys
            .iter()
            .map(|(survey, now)| SurveyDocument::new(survey, *now))
            .collect(),
        total,
        page,
        pages: total.div_ceil(SURVEYS_PER_PAGE).max(1),
        per_page: SURVEYS_PER_PAGE,
    }))
}

/// The page a query asks for (from 1; 1 when absent).
fn page_asked(page: Option<u64>) -> Result<u64, ApiError> {
    match page.unwrap_or(1) {
        0 => Err(ApiError::BadRequest("pages are numbered from 1".into())),
        page => Ok(page),
    }
}

/// `POST /api/v1/surveys`: 201 with the new survey (a draft) and its slug. The body is a
/// definition, or `{"template": ID, "title"?, "language"?}` for a draft made from a template.
#[utoipa::path(post, path = "/api/v1/surveys", operation_id = "create_survey",
    summary = "Create a survey (a draft), from a definition or a template", tag = "surveys",
    request_body = NewSurvey,
    responses(
        (status = 201, description = "Created, as a draft", body = SurveyDocument,
            headers(("location" = String, description = "The new survey's address"))),
        (status = 422, description = "The definition is not valid (by field), the template or its language is unknown, or the tenant has its most surveys", body = ErrorBody),
    ))]
pub async fn create(
    state: State,
    caller: ApiCaller<Editor>,
    JsonBody(body): JsonBody<serde_json::Value>,
) -> Result<HttpResponse, ApiError> {
    let input = if templates::asks_for_template(&body) {
        templates::definition_asked(body)?
    } else {
        serde_json::from_value::<LocalizedInput>(body)
            .map_err(|error| ApiError::BadRequest(format!("invalid JSON body: {error}")))?
            .0
    };
    let (survey, now) = new_draft(&state, &caller, &input).await?;
    Ok(created(&survey).json(SurveyDocument::new(&survey, now)))
}

/// `input` checked and made a new draft of the caller's tenant, with its state now.
async fn new_draft(
    state: &State,
    caller: &ApiCaller<Editor>,
    input: &SurveyInput,
) -> Result<(Survey, SurveyState), ApiError> {
    let definition = service::check(&state.app, input, None, &[])
        .await?
        .map_err(invalid)?;
    let survey = service::create(&state.app, caller.actor(), definition)
        .await?
        .ok_or_else(|| ApiError::Invalid {
            reason: format!(
                "a tenant has at most {MAX_SURVEYS_PER_TENANT} surveys: delete one first"
            ),
            fields: Default::default(),
        })?;
    let now = results::state_now(&state.app, &survey).await?;
    Ok((survey, now))
}

/// A 201 naming the new survey's address.
fn created(survey: &Survey) -> actix_web::HttpResponseBuilder {
    let mut response = HttpResponse::Created();
    response.insert_header(("location", format!("/api/v1/surveys/{}", survey.slug)));
    response
}

/// The format of a survey file to import.
#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ImportQuery {
    /// `xlsform` (an XLSForm workbook) or `lss` (a LimeSurvey survey structure).
    format: String,
}

/// What an import made: the draft, and what the file held that it could not carry.
#[derive(Serialize, ToSchema)]
pub struct ImportedSurvey<'a> {
    /// The new survey, a draft.
    survey: SurveyDocument<'a>,
    /// What was left out, each with the reason: by the row of the XLSForm's `survey` sheet,
    /// or by a LimeSurvey question's position (its code starting the reason); empty when
    /// everything was carried.
    skipped: Vec<crate::export::xlsform::Skipped>,
}

/// `POST /api/v1/surveys/import?format=xlsform|lss`: the workbook (or LimeSurvey file) as the
/// body; 201 with the draft it makes and what it left out, by row (or question).
#[utoipa::path(post, path = "/api/v1/surveys/import", operation_id = "import_survey",
    summary = "Create a survey (a draft) from an XLSForm workbook or a LimeSurvey structure", tag = "surveys",
    params(ImportQuery),
    request_body(content = Vec<u8>, description = "The XLSForm workbook (XLSX) or LimeSurvey survey structure (.lss, XML), at most 5 MiB, as the whole body (any content type)",
        content_type = "application/octet-stream"),
    responses(
        (status = 201, description = "Created, as a draft, with what was left out", body = ImportedSurvey,
            headers(("location" = String, description = "The new survey's address"))),
        (status = 413, description = "The file is over 5 MiB", body = ErrorBody),
        (status = 422, description = "The file cannot be read (or is past its bounds), the survey it makes is not valid (by field), or the tenant has its most surveys", body = ErrorBody),
    ))]
pub async fn import(
    state: State,
    caller: ApiCaller<Editor>,
    query: web::Query<ImportQuery>,
    WorkbookBody(body): WorkbookBody,
) -> Result<HttpResponse, ApiError> {
    let format = query.format.clone();
    // Reading is bounded in size and time, and off the request threads.
    let read =
        web::block(move || match format.as_str() {
            "xlsform" => Some(
                crate::export::xlsform::read(&body)
                    .map_err(|p| format!("the workbook cannot be read as an XLSForm: {p}")),
            ),
            "lss" => Some(crate::export::limesurvey::read(&body).map_err(|p| {
                format!("the file cannot be read as a LimeSurvey survey structure: {p}")
            })),
            _ => None,
        })
        .await
        .map_err(|error| ApiError::Internal(format!("reading an import: {error}")))?;
    let Some(read) = read else {
        return Err(ApiError::BadRequest(format!(
            "format {:?} is not one this server imports: xlsform or lss",
            query.format
        )));
    };
    let imported = read.map_err(|reason| ApiError::Invalid {
        reason,
        fields: Default::default(),
    })?;
    let input = serde_json::from_value::<LocalizedInput>(imported.definition)
        .map_err(|error| ApiError::Internal(format!("an imported definition: {error}")))?
        .0;
    let (survey, now) = new_draft(&state, &caller, &input).await?;
    Ok(created(&survey).json(ImportedSurvey {
        survey: SurveyDocument::new(&survey, now),
        skipped: imported.skipped,
    }))
}

/// `GET /api/v1/surveys/{slug}`
#[utoipa::path(get, path = "/api/v1/surveys/{slug}", operation_id = "get_survey",
    summary = "Read a survey", tag = "surveys", params(SlugPath),
    responses((status = 200, description = "The survey", body = SurveyDocument)))]
pub async fn get(
    state: State,
    caller: ApiCaller<Viewer>,
    slug: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let survey = find(&state, &caller.tenant, &slug).await?;
    document(&state, &survey).await
}

/// `PUT /api/v1/surveys/{slug}`: replaces the definition; questions sent with their `id`
/// keep it. Editing a published survey starts a new version.
#[utoipa::path(put, path = "/api/v1/surveys/{slug}", operation_id = "update_survey",
    summary = "Replace a survey's definition", tag = "surveys", params(SlugPath),
    request_body = SurveyInput,
    responses(
        (status = 200, description = "The survey as changed", body = SurveyDocument),
        (status = 422, description = "The definition is not valid (by field)", body = ErrorBody),
    ))]
pub async fn update(
    state: State,
    caller: ApiCaller<Editor>,
    slug: web::Path<String>,
    JsonBody(LocalizedInput(input)): JsonBody<LocalizedInput>,
) -> Result<HttpResponse, ApiError> {
    let current = find(&state, &caller.tenant, &slug).await?;
    let known = service::known_questions(&state.app, &current).await?;
    let definition = service::check(&state.app, &input, Some(&current), &known)
        .await?
        .map_err(invalid)?;
    let survey = service::revise(&state.app, &current, definition).await?;
    document(&state, &survey).await
}

/// `DELETE /api/v1/surveys/{slug}`: the survey and all its answers.
#[utoipa::path(delete, path = "/api/v1/surveys/{slug}", operation_id = "delete_survey",
    summary = "Delete a survey and all its answers", tag = "surveys", params(SlugPath),
    responses((status = 204, description = "Deleted, with all its answers")))]
pub async fn delete(
    state: State,
    caller: ApiCaller<Editor>,
    slug: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let survey = find(&state, &caller.tenant, &slug).await?;
    service::delete(&state.app, caller.actor(), &survey).await?;
    Ok(HttpResponse::NoContent().finish())
}

/// `POST /api/v1/surveys/{slug}/publish`
#[utoipa::path(post, path = "/api/v1/surveys/{slug}/publish", operation_id = "publish_survey",
    summary = "Publish a survey", tag = "surveys", params(SlugPath),
    responses(
        (status = 200, description = "Published: open to respondents", body = SurveyDocument),
        (status = 422, description = "It has no question yet", body = ErrorBody),
    ))]
pub async fn publish(
    state: State,
    caller: ApiCaller<Editor>,
    slug: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let survey = find(&state, &caller.tenant, &slug).await?;
    let survey = match service::publish(&state.app, caller.actor(), &survey).await {
        Ok(published) => published,
        Err(service::PublishError::Incomplete(problem)) => {
            return Err(ApiError::Invalid {
                reason: problem.into(),
                fields: [("questions".to_string(), "add a question first".to_string())].into(),
            });
        }
        Err(service::PublishError::Store(error)) => return Err(error.into()),
    };
    document(&state, &survey).await
}

/// `POST /api/v1/surveys/{slug}/unpublish`
#[utoipa::path(post, path = "/api/v1/surveys/{slug}/unpublish", operation_id = "unpublish_survey",
    summary = "Close a survey", tag = "surveys", params(SlugPath),
    responses((status = 200, description = "Unpublished: closed to respondents", body = SurveyDocument)))]
pub async fn unpublish(
    state: State,
    caller: ApiCaller<Editor>,
    slug: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let survey = find(&state, &caller.tenant, &slug).await?;
    let survey = service::unpublish(&state.app, caller.actor(), &survey).await?;
    document(&state, &survey).await
}

/// `GET /api/v1/surveys/{slug}/summary?segment=QUESTION_ID:OPTION&item=KEY`: the same object
/// as `canvass summary`, of every response or of one segment's; a loop's questions pooled, or
/// for one item.
#[utoipa::path(get, path = "/api/v1/surveys/{slug}/summary", operation_id = "get_summary",
    summary = "Read the summary of every response, or of a segment", tag = "responses",
    params(SlugPath, SegmentQuery),
    responses((status = 200, description = "The summary", body = SummaryReport)))]
pub async fn summary(
    state: State,
    caller: ApiCaller<Viewer>,
    slug: web::Path<String>,
    query: web::Query<SegmentQuery>,
) -> Result<HttpResponse, ApiError> {
    let survey = find(&state, &caller.tenant, &slug).await?;
    let segment = segment_asked(&survey, query.segment.as_deref())?;
    let item = survey
        .item_asked(query.item.as_deref())
        .map_err(ApiError::BadRequest)?;
    let partial = query.partial.unwrap_or(false);
    let report =
        results::summary_with_partial(&state.app, &survey, segment.as_ref(), item, partial);
    Ok(HttpResponse::Ok().json(report.await?))
}

/// `GET /api/v1/surveys/{slug}/xlsform`: the survey as an XLSForm workbook (survey, choices
/// and settings sheets). What XLSForm cannot say (CEL expressions) is named in the
/// `X-Canvass-Skipped` header, `; `-separated.
#[utoipa::path(get, path = "/api/v1/surveys/{slug}/xlsform", operation_id = "get_xlsform",
    summary = "Download the survey as an XLSForm", tag = "surveys", params(SlugPath),
    responses((status = 200, description = "The XLSForm workbook",
        content(("application/vnd.openxmlformats-officedocument.spreadsheetml.sheet")))))]
pub async fn xlsform(
    state: State,
    caller: ApiCaller<Viewer>,
    slug: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let survey = find(&state, &caller.tenant, &slug).await?;
    crate::web::download::xlsform(&survey)
        .map_err(|error| ApiError::Internal(format!("writing an XLSForm: {error}")))
}

/// The page asked for.
#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct PageQuery {
    /// From 1; defaults to 1.
    page: Option<u64>,
}

/// The survey named in the path.
#[derive(IntoParams)]
#[into_params(parameter_in = Path)]
#[allow(dead_code)] // read by the schema only: handlers take the path as a string
pub struct SlugPath {
    /// The survey's slug.
    slug: String,
}

/// A segment asked for (`QUESTION_ID:OPTION`).
#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct SegmentQuery {
    /// Only this segment's responses: `QUESTION_ID:OPTION` of a segment question,
    /// `@language:TAG` of a survey in several languages, or `@participant.NAME:VALUE` of a
    /// participant attribute that divides its answers.
    segment: Option<String>,
    /// A survey with loops: its loops' questions for this item only (its key, as in
    /// `ID[item]`), instead of pooled over every item.
    item: Option<String>,
    /// A survey that keeps partial responses: `true` counts them in too (every response's
    /// summary only, not a segment's); `false` when absent.
    partial: Option<bool>,
}

/// The segment a query names (`QUESTION_ID:OPTION`), checked against the survey.
fn segment_asked(survey: &Survey, segment: Option<&str>) -> Result<Option<SegmentId>, ApiError> {
    SegmentId::asked(segment, survey).map_err(ApiError::BadRequest)
}

/// The page and filters of a list of responses.
#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ResponsesQuery {
    /// Only responses in this segment (`QUESTION_ID:OPTION`, `@language:TAG` or
    /// `@participant.NAME:VALUE`).
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
#[utoipa::path(get, path = "/api/v1/surveys/{slug}/responses", operation_id = "list_responses",
    summary = "List responses, newest first, a page at a time", tag = "responses",
    params(SlugPath, ResponsesQuery),
    responses((status = 200, description = "A page of responses, newest first", body = ResponseList)))]
pub async fn responses(
    state: State,
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
    let found = results::page(&state.app, &survey, page, &filter).await?;
    let responses = if page > found.pages {
        Vec::new()
    } else {
        found.responses
    };
    Ok(HttpResponse::Ok().json(ResponseList {
        total: found.total,
        total_exact: found.exact,
        page,
        pages: found.pages,
        per_page: PER_PAGE,
        responses,
    }))
}

/// `GET /api/v1/surveys/{slug}/partials`: the partial responses of a survey that keeps them
/// (`keep_partial`): the answers so far of respondents who have not sent them, by reference,
/// each with `"partial": true` (at most 10,000; none for a survey that does not keep them).
#[utoipa::path(get, path = "/api/v1/surveys/{slug}/partials", operation_id = "list_partial_responses",
    summary = "List the partial responses (answers not sent yet)", tag = "responses",
    params(SlugPath),
    responses((status = 200, description = "The partial responses", body = PartialList)))]
pub async fn partials(
    state: State,
    caller: ApiCaller<Viewer>,
    slug: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let survey = find(&state, &caller.tenant, &slug).await?;
    let responses = results::partials(&state.app, &survey).await?;
    Ok(HttpResponse::Ok().json(PartialList {
        total: responses.len() as u64,
        responses,
    }))
}

/// A survey's partial responses.
#[derive(Serialize, ToSchema)]
pub struct PartialList {
    /// How many there are (at most 10,000 are read).
    total: u64,
    /// The answers so far of each respondent who has not sent them, by reference.
    responses: Vec<Answer>,
}

/// A page of a survey's responses.
#[derive(Serialize, ToSchema)]
pub struct ResponseList {
    /// Responses counted in all (within the dates and segment asked for).
    total: u64,
    /// Whether `total` is exact (a date filter over a long span counts whole days near its
    /// ends).
    total_exact: bool,
    /// This page's number, from 1.
    page: u64,
    /// How many pages there are (at least 1).
    pages: u64,
    /// Responses per full page.
    per_page: u64,
    /// The responses, newest first (none past the last page).
    responses: Vec<Answer>,
}

/// An export job just requested.
#[derive(Serialize, ToSchema)]
pub struct ExportAccepted {
    /// The job's id, for `GET /api/v1/exports/{id}`.
    id: String,
    /// Where it stands.
    status: ExportStatus,
}

/// A deletion just queued.
#[derive(Serialize, ToSchema)]
pub struct DeletionAccepted {
    /// The response's reference.
    reference: Reference,
    /// Always `deleting`: a worker applies it within seconds.
    status: Deleting,
}

/// What a queued deletion is doing.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Deleting {
    /// Queued for a worker.
    Deleting,
}

/// `POST /api/v1/surveys/{slug}/exports`: 202 with the new export job's id.
#[utoipa::path(post, path = "/api/v1/surveys/{slug}/exports", operation_id = "request_export",
    summary = "Copy the responses into PostgreSQL", tag = "exports", params(SlugPath),
    responses((status = 202, description = "Queued for a worker to write to PostgreSQL",
        body = ExportAccepted,
        headers(("location" = String, description = "The job's address")))))]
pub async fn request_export(
    state: State,
    caller: ApiCaller<Editor>,
    slug: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let survey = find(&state, &caller.tenant, &slug).await?;
    let job = responses::request_export(&state.app, caller.actor(), &survey).await?;
    Ok(HttpResponse::Accepted()
        .insert_header(("location", format!("/api/v1/exports/{}", job.id)))
        .json(ExportAccepted {
            id: job.id,
            status: job.status,
        }))
}

/// `GET /api/v1/exports/{id}`: the job's status, counts, times and error.
#[utoipa::path(get, path = "/api/v1/exports/{id}", operation_id = "get_export",
    summary = "Read an export job", tag = "exports",
    params(("id" = String, Path, description = "The job's id")),
    responses((status = 200, description = "The job", body = ExportJob)))]
pub async fn export_status(
    state: State,
    caller: ApiCaller<Editor>,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let job = responses::export_job(&state.app, &caller.tenant.slug, &id)
        .await?
        .ok_or(ApiError::NotFound)?;
    Ok(HttpResponse::Ok().json(job))
}

/// `GET /api/v1/surveys/{slug}/responses.{csv|xlsx|zip|dta|sav}`: as the site's downloads
/// (`?bom=false` for a CSV without the byte order mark, `?ids=true`); `.zip` is the download
/// for R (the CSV and a script that reads it typed and labelled), `.dta` the one for Stata,
/// `.sav` the one for SPSS.
#[utoipa::path(get, path = "/api/v1/surveys/{slug}/responses.{format}", operation_id = "download_responses",
    summary = "Download every response as CSV or XLSX", tag = "responses",
    params(SlugPath, ("format" = SheetFormat, Path, description = "The file's format"), DownloadQuery),
    responses((status = 200, description = "Every response, one row each, streamed", content(
        ("text/csv"),
        ("application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"),
        ("application/zip"),
        ("application/x-stata-dta"),
        ("application/x-spss-sav"),
    ))))]
pub async fn download_responses(
    state: State,
    caller: ApiCaller<Viewer>,
    path: web::Path<(String, String)>,
    query: web::Query<DownloadQuery>,
) -> Result<HttpResponse, ApiError> {
    let (slug, extension) = path.into_inner();
    let format = SheetFormat::from_extension(&extension);
    if format.is_none() && crate::export::ToolFile::from_extension(&extension).is_none() {
        return Err(ApiError::NotFound);
    }
    let survey = find(&state, &caller.tenant, &slug).await?;
    responses::downloaded(&state.app, caller.actor(), &survey, &extension).await?;
    let tool = crate::web::download::download_for_tool(&state.app, survey.clone(), &extension);
    match (format, tool.await?) {
        (_, Some(response)) => Ok(response),
        (Some(format), None) => Ok(download(&state.app, survey, format, &query).await?),
        (None, None) => Err(ApiError::NotFound),
    }
}

/// `DELETE /api/v1/surveys/{slug}/responses/{reference}`: 202 once the deletion is recorded
/// and queued (the summary's `total` drops when a worker applies it); 404 for one deleted
/// already, unknown, or still queued (not counted yet: retry); 409 in the moment between a
/// worker storing it and counting it.
#[utoipa::path(delete, path = "/api/v1/surveys/{slug}/responses/{reference}", operation_id = "delete_response",
    summary = "Delete a response", tag = "responses",
    params(SlugPath, ("reference" = u64, Path, description = "The response's reference number")),
    responses(
        (status = 202, description = "The deletion is recorded and queued", body = DeletionAccepted),
        (status = 409, description = "Stored but not counted yet: try again in a moment", body = ErrorBody),
    ))]
pub async fn delete_response(
    state: State,
    caller: ApiCaller<Editor>,
    path: web::Path<(String, u64)>,
) -> Result<HttpResponse, ApiError> {
    let (slug, reference) = path.into_inner();
    let survey = find(&state, &caller.tenant, &slug).await?;
    let reference = Reference(reference);
    let deleted = responses::delete(&state.app, caller.actor(), &survey, &[reference]).await?;
    if !deleted.waiting.is_empty() {
        return Err(ApiError::Conflict(
            "that response is not counted yet; try again in a moment".into(),
        ));
    }
    if deleted.counted.is_empty() {
        return Err(ApiError::Missing(
            "no counted response of this survey has that reference (a response just \
             submitted is counted within seconds: try again then)"
                .into(),
        ));
    }
    Ok(HttpResponse::Accepted().json(DeletionAccepted {
        reference,
        status: Deleting::Deleting,
    }))
}
