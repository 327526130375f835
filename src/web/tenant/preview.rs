//! An owner's preview of a survey, draft or published: the respondent's form, page by page
//! and checked the same way, at a tenant-site address only the signed-in owner can open. It
//! stores nothing: the last page ends on a page saying the answers would now be sent.

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use askama::Template;

use super::own_survey;
use super::session::{AtLeast, SignedIn};
use crate::domain::Survey;
use crate::domain::member::Role;
use crate::web::public::{
    FormContext, Step, SurveyPage, language_query, parse_form, read_body, step, words_for,
};
use crate::web::roles::Editor;
use crate::web::{AppState, WebError, render, render_with_status};

#[derive(Template)]
#[template(path = "tenant/preview-done.html")]
struct PreviewDone {
    csrf: String,
    role: Role,
    survey: std::sync::Arc<Survey>,
    answered: usize,
}

fn context(request: &HttpRequest, signed_in: &SignedIn, survey: &Survey) -> FormContext {
    // The owner sees it as respondents do: in the language picked, else the browser's, else
    // the default.
    let words = words_for(request, survey);
    FormContext {
        token: "preview".into(),
        action: format!(
            "/tenant/surveys/{}/preview{}",
            survey.slug,
            language_query(survey, &words, '?')
        ),
        preview_csrf: Some(signed_in.session.csrf.clone()),
        words,
        resume: None,
    }
}

/// `GET /tenant/surveys/{slug}/preview`: the first page, as respondents would see it.
pub async fn show(
    request: HttpRequest,
    state: web::Data<AppState>,
    signed_in: AtLeast<Editor>,
    slug: web::Path<String>,
) -> Result<HttpResponse, WebError> {
    let survey = own_survey(&state, &signed_in, &slug).await?;
    let form = context(&request, &signed_in, &survey);
    render(&SurveyPage::first(signed_in.tenant.clone(), survey, &form))
}

/// `POST /tenant/surveys/{slug}/preview`: the next page, the errors, or the end; nothing stored.
pub async fn answer(
    request: HttpRequest,
    state: web::Data<AppState>,
    signed_in: AtLeast<Editor>,
    slug: web::Path<String>,
    payload: web::Payload,
) -> Result<HttpResponse, WebError> {
    let body = read_body(payload, &state).await?;
    let posted = parse_form(&body)?;
    signed_in.check_csrf(Some(&posted.csrf))?;
    let survey = own_survey(&state, &signed_in, &slug).await?;
    let form = context(&request, &signed_in, &survey);
    match step(&signed_in.tenant, &survey, &form, &posted) {
        Step::Page(status, page) => render_with_status(status, page.as_ref()),
        Step::Done(walk) => render_with_status(
            StatusCode::OK,
            &PreviewDone {
                csrf: signed_in.session.csrf.clone(),
                role: signed_in.role,
                answered: walk.values.len(),
                survey,
            },
        ),
    }
}
