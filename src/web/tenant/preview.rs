//! An owner's preview of a survey, draft or published: the respondent's form, page by page
//! and checked the same way, at a tenant-site address only the signed-in owner can open. It
//! stores nothing: the last page ends on a page saying the answers would now be sent.

use crate::web::tenant::survey_form::OwnSurvey;
use actix_web::http::StatusCode;
use actix_web::{HttpRequest, web};
use askama::Template;

use super::session::SignedIn;
use crate::domain::Survey;
use crate::domain::member::Role;
use crate::web::public::{
    FormContext, Keep, Step, SurveyPage, Taken, language_query, read_answers, step, take_files,
    words_for,
};
use crate::web::roles::Editor;
use crate::web::{AppState, Reply, State, WebError, render, render_with_status};

#[derive(Template)]
#[template(path = "tenant/preview-done.html")]
struct PreviewDone {
    csrf: String,
    role: Role,
    survey: std::sync::Arc<Survey>,
    answered: usize,
}

fn context(
    request: &HttpRequest,
    state: &AppState,
    signed_in: &SignedIn,
    survey: &Survey,
) -> FormContext {
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
        participant: None,
        upload_max: state.uploads.max_bytes,
    }
}

/// `GET /tenant/surveys/{slug}/preview`: the first page, as respondents would see it.
pub async fn show(
    request: HttpRequest,
    state: State,
    OwnSurvey { signed_in, survey }: OwnSurvey<Editor>,
) -> Reply {
    let form = context(&request, &state, &signed_in, &survey);
    render(&SurveyPage::first(signed_in.tenant.clone(), survey, &form))
}

/// `POST /tenant/surveys/{slug}/preview`: the next page, the errors, or the end; nothing stored.
pub async fn answer(
    request: HttpRequest,
    state: State,
    OwnSurvey { signed_in, survey }: OwnSurvey<Editor>,
    payload: web::Payload,
) -> Reply {
    let (mut posted, files) = read_answers(&request, payload, &state, &survey).await?;
    signed_in.check_csrf(Some(&posted.csrf))?;
    let form = context(&request, &state, &signed_in, &survey);
    let survey = crate::web::public::as_answered(survey, &posted.answers);
    // Files are checked as respondents' are, and never stored.
    match take_files(&state, &request, &survey, Keep::Preview, &mut posted, files).await? {
        Taken::Checked(errors) if errors.is_empty() => {}
        Taken::Checked(errors) => {
            let page = posted.page;
            let tenant = signed_in.tenant.clone();
            let shown = SurveyPage::new(tenant, survey, &form, page, &posted.answers, &errors);
            return render_with_status(StatusCode::UNPROCESSABLE_ENTITY, &shown);
        }
        Taken::Limited(_) => {
            return Err(WebError::TooManyRequests(
                "Many files were uploaded from here in a short while: wait a few minutes.".into(),
            ));
        }
    }
    match step(&signed_in.tenant, &survey, &form, &posted) {
        Step::Page(status, page) => render_with_status(status, page.as_ref()),
        Step::Next(page, _) => render_with_status(StatusCode::OK, page.as_ref()),
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
