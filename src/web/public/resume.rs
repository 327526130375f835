//! Save and continue later, as a respondent meets it: "Save and continue later" on a page
//! stores the answers so far under a private link and shows it (with an offer to email it);
//! the link brings back the answers and the page; a link whose answers were sent or whose
//! time is up is a clear 410 page. Saving is limited per client, and a saved progress in size.

use std::sync::Arc;

use actix_web::http::StatusCode;
use actix_web::http::header::LOCATION;
use actix_web::{HttpRequest, HttpResponse, web};
use askama::Template;
use time::OffsetDateTime;

use super::form::PostedForm;
use super::language::{language_query, words_for};
use super::notice::{minutes, notice};
use super::reach::{Reached, reach};
use super::survey_page::{FormContext, SurveyPage};
use crate::domain::account::Email;
use crate::domain::progress::{ResumeId, SavedProgress};
use crate::domain::{FieldErrors, RawAnswers, Survey, Tenant};
use crate::i18n::Words;
use crate::mail::Mail;
use crate::service::answering;
use crate::service::answering::SaveError;
use crate::web::{AppState, Reply, State, WebError, render_with_status};

/// The page a save leads to: the link, until when it works, and the offer to email it.
#[derive(Template)]
#[template(path = "public/saved.html")]
struct SavedPage {
    tenant: Arc<Tenant>,
    words: Words,
    title: String,
    /// The resume link.
    link: String,
    /// When it stops working, as the page's language writes a date.
    until: String,
    /// Whether the site can email it.
    mail: bool,
    email_action: String,
    /// The address as typed, after a refusal.
    email: String,
    email_error: bool,
    /// Whether the link was just sent.
    sent: bool,
}

/// A survey's address, `/s/{tenant}/{survey}`.
fn survey_path(tenant: &Tenant, survey: &Survey) -> String {
    format!("/s/{}/{}", tenant.slug, survey.slug)
}

/// A date as the page's language writes one.
fn date_in(words: &Words, at: OffsetDateTime) -> String {
    super::words::date(words, at.date())
}

/// What a saved form's link leads to: its survey, the words the request asks for and the
/// saved progress; or the page shown instead (the survey closed, or the link gone).
enum Saved {
    Found(Box<Opened>),
    Instead(HttpResponse),
}

/// A saved form, opened: its tenant, survey, the words asked for, its id and progress.
type Opened = (Arc<Tenant>, Arc<Survey>, Words, ResumeId, SavedProgress);

/// Opens the saved form that `/s/{tenant}/{survey}/.../{id}` names.
async fn open_saved(
    state: &AppState,
    request: &HttpRequest,
    path: &(String, String, String),
) -> Result<Saved, WebError> {
    let (tenant, survey) = match reach(state, request, &path.0, &path.1).await? {
        Reached::Open(tenant, survey) => (tenant, survey),
        Reached::Closed(page) => return Ok(Saved::Instead(page)),
    };
    let words = words_for(request, &survey);
    match answering::saved_progress(&state.app, &survey, &path.2).await? {
        Some((id, progress)) => Ok(Saved::Found(Box::new((
            tenant, survey, words, id, progress,
        )))),
        None => gone(tenant, &survey, &words).map(Saved::Instead),
    }
}

/// The 410 page of a link that no longer works, with a way to start again.
fn gone(tenant: Arc<Tenant>, survey: &Survey, words: &Words) -> Reply {
    let start = (
        format!(
            "{}{}",
            survey_path(&tenant, survey),
            language_query(survey, words, '?')
        ),
        words.t("resume-start-again"),
    );
    let said = (words.t("resume-gone-title"), words.t("resume-gone-message"));
    notice(StatusCode::GONE, tenant, survey, words, said, Some(start))
}

/// Takes one save from the client's allowance; `Some` with the wait when it is used up.
fn over_allowance(state: &AppState, request: &HttpRequest) -> Option<Option<std::time::Duration>> {
    let client = crate::web::client::of_request(request, state);
    state.client_limits.saves.take(&client, 1).err()
}

/// Whether another resume link may be emailed to `to` for this client and survey: the wait
/// when not.
fn mails_over_allowance(
    state: &AppState,
    request: &HttpRequest,
    to: &Email,
    survey: &Survey,
) -> Option<Option<std::time::Duration>> {
    let limits = &state.client_limits;
    let client = crate::web::client::of_request(request, state);
    let address = to.as_str().to_lowercase();
    let survey = survey.survey_ref().to_string();
    limits
        .resume_mails
        .take(&client, 1)
        .err()
        .or_else(|| limits.resume_mails_per_address.take(&address, 1).err())
        .or_else(|| limits.resume_mails_per_survey.take(&survey, 1).err())
}

/// The 429 page: too many saves in a short while, and how many minutes to wait.
fn too_many(
    tenant: Arc<Tenant>,
    survey: &Survey,
    words: &Words,
    heading: String,
    wait: Option<std::time::Duration>,
) -> Reply {
    let said = (heading, words.n("save-too-many", "minutes", minutes(wait)));
    notice(
        StatusCode::TOO_MANY_REQUESTS,
        tenant,
        survey,
        words,
        said,
        None,
    )
}

/// `nav=save` on a page: stores what was posted under the form's resume link (a new one the
/// first time) and sends the respondent to the page that shows it.
pub(super) async fn save(
    state: &AppState,
    request: &HttpRequest,
    (tenant, survey): (Arc<Tenant>, Arc<Survey>),
    words: &Words,
    posted: &PostedForm,
) -> Reply {
    if !survey.offers_resume() {
        return Err(WebError::BadRequest(words.t("save-not-offered")));
    }
    if let Some(wait) = over_allowance(state, request) {
        let heading = words.t("form-save");
        return too_many(tenant, &survey, words, heading, wait);
    }
    let id = match ResumeId::parse(&posted.resume) {
        Some(id) => id,
        None => ResumeId::generate()
            .map_err(|error| WebError::Internal(format!("drawing a resume link: {error}")))?,
    };
    let progress = SavedProgress {
        token: posted.token.clone(),
        page: posted.page,
        language: words.lang().to_owned(),
        answers: posted
            .answers
            .iter()
            .map(|(name, values)| (name.to_owned(), values.to_vec()))
            .collect(),
        saved_at: OffsetDateTime::now_utc(),
        participant: posted.participant.clone(),
        hidden: posted.answers.hidden().clone(),
    };
    match answering::save_progress(&state.app, &survey, &id, &progress).await {
        Ok(()) => {}
        Err(SaveError::TooLarge) => {
            let said = (words.t("form-save"), words.t("save-too-large"));
            return notice(
                StatusCode::PAYLOAD_TOO_LARGE,
                tenant,
                &survey,
                words,
                said,
                None,
            );
        }
        Err(SaveError::Store(error)) => return Err(error.into()),
    }
    let saved = format!(
        "{}/saved/{}{}",
        survey_path(&tenant, &survey),
        id.as_str(),
        language_query(&survey, words, '?')
    );
    Ok(HttpResponse::SeeOther()
        .insert_header((LOCATION, saved))
        .finish())
}

/// Whether the email was just sent (`?sent=1`).
#[derive(serde::Deserialize)]
pub struct SavedQuery {
    sent: Option<String>,
}

/// `GET /s/{tenant}/{survey}/saved/{id}`: the saved page.
pub async fn saved(
    state: State,
    request: HttpRequest,
    path: web::Path<(String, String, String)>,
    query: web::Query<SavedQuery>,
) -> Reply {
    let (tenant, survey, words, id, progress) = match open_saved(&state, &request, &path).await? {
        Saved::Found(found) => *found,
        Saved::Instead(page) => return Ok(page),
    };
    let page = saved_page(
        &state,
        &request,
        (tenant, &survey),
        &words,
        (&id, &progress),
    );
    let page = SavedPage {
        sent: query.sent.is_some(),
        ..page
    };
    render_with_status(StatusCode::OK, &page)
}

fn saved_page(
    state: &AppState,
    request: &HttpRequest,
    (tenant, survey): (Arc<Tenant>, &Survey),
    words: &Words,
    (id, progress): (&ResumeId, &SavedProgress),
) -> SavedPage {
    let link = format!(
        "{}/resume/{}",
        state.survey_url(request, &tenant.slug, &survey.slug),
        id.as_str()
    );
    let days = survey.resume_days.unwrap_or_default();
    SavedPage {
        title: survey
            .text_in(words.lang(), "title", &survey.title)
            .to_owned(),
        email_action: format!(
            "{}/saved/{}/email{}",
            survey_path(&tenant, survey),
            id.as_str(),
            language_query(survey, words, '?')
        ),
        tenant,
        words: words.clone(),
        link,
        until: date_in(words, SavedProgress::expires_at(progress.saved_at, days)),
        mail: state.mail_enabled(),
        email: String::new(),
        email_error: false,
        sent: false,
    }
}

/// `POST /s/{tenant}/{survey}/saved/{id}/email`: emails the resume link to the address given
/// (used for nothing else), in the respondent's language.
pub async fn email(
    state: State,
    request: HttpRequest,
    path: web::Path<(String, String, String)>,
    payload: web::Payload,
) -> Reply {
    let body = super::read_body(payload, &state).await?;
    let typed = crate::web::forms::parse_pairs(&body)?
        .into_iter()
        .find(|(name, _)| name == "email")
        .map(|(_, value)| value)
        .unwrap_or_default();
    let (tenant, survey, words, id, progress) = match open_saved(&state, &request, &path).await? {
        Saved::Found(found) => *found,
        Saved::Instead(page) => return Ok(page),
    };
    if let Some(wait) = over_allowance(&state, &request) {
        let heading = words.t("saved-email-label");
        return too_many(tenant, &survey, &words, heading, wait);
    }
    let (Some(base), Some(to)) = (state.mail_links(), Email::parse(typed.trim())) else {
        let page = SavedPage {
            email: typed.chars().take(254).collect(),
            email_error: true,
            ..saved_page(
                &state,
                &request,
                (tenant, &survey),
                &words,
                (&id, &progress),
            )
        };
        return render_with_status(StatusCode::UNPROCESSABLE_ENTITY, &page);
    };
    if let Some(wait) = mails_over_allowance(&state, &request, &to, &survey) {
        let heading = words.t("saved-email-label");
        return too_many(tenant, &survey, &words, heading, wait);
    }
    let title = survey.text_in(words.lang(), "title", &survey.title);
    let link = format!(
        "{base}{}/resume/{}",
        survey_path(&tenant, &survey),
        id.as_str()
    );
    let days = survey.resume_days.unwrap_or_default();
    let until = date_in(&words, SavedProgress::expires_at(progress.saved_at, days));
    let text = |value: &str| fluent_templates::fluent_bundle::FluentValue::from(value.to_owned());
    let mail = Mail {
        to,
        subject: words.s("resume-mail-subject", "title", title),
        body: words.with(
            "resume-mail-body",
            &[
                ("title", text(title)),
                ("link", text(&link)),
                ("date", text(&until)),
            ],
        ),
    };
    answering::email_resume_link(&state.app, &mail).await?;
    let sent = format!(
        "{}/saved/{}?sent=1{}",
        survey_path(&tenant, &survey),
        id.as_str(),
        language_query(&survey, &words, '&')
    );
    Ok(HttpResponse::SeeOther()
        .insert_header((LOCATION, sent))
        .finish())
}

/// `GET /s/{tenant}/{survey}/resume/{id}`: the form as it was saved, on the page it was saved
/// on (or the last page before it that the answers still lead to), in its language unless
/// the link asks for another.
pub async fn resume(
    state: State,
    request: HttpRequest,
    path: web::Path<(String, String, String)>,
) -> Reply {
    let (tenant, survey, words, id, progress) = match open_saved(&state, &request, &path).await? {
        Saved::Found(found) => *found,
        Saved::Instead(page) => return Ok(page),
    };
    let token_fits = answering::check_token(&state.app, &survey, &progress.token).is_ok();
    if !token_fits {
        return gone(tenant, &survey, &words);
    }
    // The saved language, unless the link names one the survey offers.
    let offered = survey.offered_languages();
    let linked = request.query_string().contains("lang=");
    let words = match offered.iter().find(|tag| tag.as_str() == progress.language) {
        Some(tag) if !linked => Words::for_tag(tag.as_str()),
        _ => words,
    };
    let mut answers = RawAnswers::default();
    for (name, values) in &progress.answers {
        for value in values {
            answers.push(name, value.clone());
        }
    }
    answers.set_hidden(progress.hidden.clone());
    let survey = super::survey_page::for_respondent(survey, &progress.token, &answers);
    let walk = survey.walk(&answers, Some(progress.page));
    let page = walk
        .route
        .iter()
        .copied()
        .rfind(|&page| page <= progress.page)
        .unwrap_or(0);
    // Saved through a personal link: theirs again (their texts may recall their attributes).
    let participant = match progress.participant.as_str() {
        "" => None,
        link => match answering::participant_of(&state.app, &survey, link).await? {
            Some(theirs) => Some(theirs),
            None => return super::participant::unknown(tenant, &survey, &words),
        },
    };
    let form = FormContext {
        token: progress.token.clone(),
        action: format!(
            "{}{}",
            survey_path(&tenant, &survey),
            language_query(&survey, &words, '?')
        ),
        preview_csrf: None,
        resume: Some(id.as_str().to_owned()),
        participant,
        upload_max: state.uploads.max_bytes,
        words,
    };
    let shown = SurveyPage::new(tenant, survey, &form, page, &answers, &FieldErrors::new());
    super::survey_page::respond(StatusCode::OK, &shown)
}
