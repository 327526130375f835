//! The respondent's pages: a tenant's surveys, a survey form, its submission, the thank-you.

use std::sync::Arc;

use actix_web::http::StatusCode;
use actix_web::http::header::LOCATION;
use actix_web::{HttpResponse, web};
use askama::Template;
use time::OffsetDateTime;

use super::form::{self, QuestionView};
use crate::domain::{
    Answer, FieldErrors, RawAnswers, Reference, SubmissionToken, Survey, SurveySlug, Tenant,
    TenantSlug, thanks_signature, thanks_signed,
};
use crate::web::{AppState, WebError, render, render_with_status};

#[derive(Template)]
#[template(path = "public/tenant.html")]
struct TenantPage {
    tenant: Arc<Tenant>,
    surveys: Vec<Arc<Survey>>,
    page: usize,
    pages: usize,
}

/// Surveys listed per page of a tenant's public list.
const SURVEYS_PER_PAGE: usize = 20;

/// The page of a list asked for.
#[derive(serde::Deserialize)]
pub struct PageQuery {
    page: Option<usize>,
}

#[derive(Template)]
#[template(path = "public/survey.html")]
struct SurveyPage {
    tenant: Arc<Tenant>,
    survey: Arc<Survey>,
    token: String,
    questions: Vec<QuestionView>,
    error_count: usize,
}

impl SurveyPage {
    fn new(
        tenant: Arc<Tenant>,
        survey: Arc<Survey>,
        token: String,
        posted: &RawAnswers,
        errors: &FieldErrors,
    ) -> Self {
        let questions = survey
            .questions
            .iter()
            .enumerate()
            .map(|(index, question)| QuestionView::new(index + 1, question, posted, errors))
            .collect();
        Self {
            tenant,
            survey,
            token,
            questions,
            error_count: errors.len(),
        }
    }
}

#[derive(Template)]
#[template(path = "public/thanks.html")]
struct ThanksPage {
    tenant: Arc<Tenant>,
    survey: Arc<Survey>,
    reference: Reference,
}

async fn tenant_named(state: &AppState, tenant: &str) -> Result<Arc<Tenant>, WebError> {
    let slug = TenantSlug::parse(tenant).map_err(|_| WebError::NotFound)?;
    state
        .stores
        .tenants
        .get(&slug)
        .await?
        .ok_or(WebError::NotFound)
}

/// The tenant and one of its surveys; 404 unless both exist (and, if asked, it is published).
async fn survey_named(
    state: &AppState,
    tenant: &str,
    survey: &str,
    published_only: bool,
) -> Result<(Arc<Tenant>, Arc<Survey>), WebError> {
    let tenant = tenant_named(state, tenant).await?;
    let slug = SurveySlug::parse(survey).map_err(|_| WebError::NotFound)?;
    let survey = state
        .stores
        .surveys
        .get(&tenant.slug, &slug)
        .await?
        .filter(|survey| survey.published || !published_only)
        .ok_or(WebError::NotFound)?;
    Ok((tenant, survey))
}

/// `GET /s/{tenant}?page=N`: the tenant's published surveys, 20 to a page.
pub async fn tenant(
    state: web::Data<AppState>,
    path: web::Path<String>,
    query: web::Query<PageQuery>,
) -> Result<HttpResponse, WebError> {
    let tenant = tenant_named(&state, &path).await?;
    let published = state.stores.surveys.published(&tenant.slug).await?;
    let pages = published.len().div_ceil(SURVEYS_PER_PAGE).max(1);
    let page = query.page.unwrap_or(1).clamp(1, pages);
    let surveys = published
        .into_iter()
        .skip((page - 1) * SURVEYS_PER_PAGE)
        .take(SURVEYS_PER_PAGE)
        .collect();
    render(&TenantPage {
        tenant,
        surveys,
        page,
        pages,
    })
}

/// `GET /s/{tenant}/{survey}`: the form, carrying a fresh signed submission token.
pub async fn form(
    state: web::Data<AppState>,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, WebError> {
    let (tenant, survey) = survey_named(&state, &path.0, &path.1, true).await?;
    let token = SubmissionToken {
        reference: state.stores.references.next().await?,
        survey: survey.survey_ref(),
    }
    .sign(&state.stores.signing_key);
    render(&SurveyPage::new(
        tenant,
        survey,
        token,
        &RawAnswers::default(),
        &FieldErrors::new(),
    ))
}

/// `POST /s/{tenant}/{survey}`: validates the answers, queues them, redirects to the thanks.
pub async fn submit(
    state: web::Data<AppState>,
    path: web::Path<(String, String)>,
    payload: web::Payload,
) -> Result<HttpResponse, WebError> {
    let body = form::read_body(payload, &state).await?;
    let posted = form::parse(&body)?;
    let (tenant, survey) = survey_named(&state, &path.0, &path.1, true).await?;
    let token = SubmissionToken::verify(
        &state.stores.signing_key,
        &posted.token,
        &survey.survey_ref(),
    )
    .map_err(|error| {
        WebError::BadRequest(format!(
            "This form cannot be accepted: {error}. Please open the survey again and answer it."
        ))
    })?;
    let values = match survey.validate(&posted.answers) {
        Ok(values) => values,
        Err(errors) => {
            let page = SurveyPage::new(tenant, survey, posted.token, &posted.answers, &errors);
            return render_with_status(StatusCode::UNPROCESSABLE_ENTITY, &page);
        }
    };
    let answer = Answer {
        tenant: tenant.slug.clone(),
        survey: survey.slug.clone(),
        survey_id: survey.id.clone(),
        survey_version: survey.version,
        reference: token.reference,
        submitted_at: OffsetDateTime::now_utc(),
        values,
    };
    state
        .stores
        .answer_queues
        .submit(&answer, tenant.subscription)
        .await?;
    let signature = thanks_signature(
        &state.stores.signing_key,
        &survey.survey_ref(),
        answer.reference,
    );
    let thanks = format!(
        "/s/{}/{}/thanks/{}?sig={signature}",
        tenant.slug, survey.slug, answer.reference
    );
    Ok(HttpResponse::SeeOther()
        .insert_header((LOCATION, thanks))
        .finish())
}

/// The signature of a thank-you link.
#[derive(serde::Deserialize)]
pub struct ThanksQuery {
    sig: Option<String>,
}

/// `GET /s/{tenant}/{survey}/thanks/{reference}?sig=..`: the thank-you page with the reference,
/// only at the link the submission redirected to (a made-up reference is not confirmed) and
/// only for a published survey.
pub async fn thanks(
    state: web::Data<AppState>,
    path: web::Path<(String, String, String)>,
    query: web::Query<ThanksQuery>,
) -> Result<HttpResponse, WebError> {
    let (tenant, survey) = survey_named(&state, &path.0, &path.1, true).await?;
    let reference = path
        .2
        .parse()
        .map(Reference)
        .map_err(|_| WebError::NotFound)?;
    let signature = query.sig.as_deref().unwrap_or("");
    if !thanks_signed(
        &state.stores.signing_key,
        &survey.survey_ref(),
        reference,
        signature,
    ) {
        return Err(WebError::NotFound);
    }
    render(&ThanksPage {
        tenant,
        survey,
        reference,
    })
}
