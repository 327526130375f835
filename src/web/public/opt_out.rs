//! Opting out: the link at the foot of every mailing (and its `List-Unsubscribe` header)
//! stops further mail from the survey's tenant to that address, for all their surveys. A
//! visit shows a button, since mail scanners follow links; a POST (the button, or a mail
//! client's one-click request, RFC 8058) does it, and doing it again is harmless.

use std::sync::Arc;

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use askama::Template;

use super::reach::survey_named;
use crate::domain::participant::Participant;
use crate::domain::{Survey, Tenant};
use crate::i18n::Words;
use crate::web::{AppState, Reply, State, WebError, render_with_status};

#[derive(Template)]
#[template(path = "public/opt-out.html")]
struct OptOutPage {
    tenant: Arc<Tenant>,
    words: Words,
    title: String,
    heading: String,
    message: String,
    /// Whether they opted out (else the page asks).
    done: bool,
    action: String,
}

/// The survey, and the participant whose link `link` is, or the page saying it is no one's.
async fn participant_of(
    state: &AppState,
    request: &HttpRequest,
    (tenant, survey, link): (String, String, String),
) -> Result<Result<(Arc<Tenant>, Arc<Survey>, Participant, Words), HttpResponse>, WebError> {
    let (tenant, survey) = survey_named(state, request, &tenant, &survey).await?;
    let asked = super::language::words_for(request, &survey);
    let found = crate::service::answering::participant_of(&state.app, &survey, &link).await?;
    let Some(participant) = found else {
        return Ok(Err(super::participant::unknown(tenant, &survey, &asked)?));
    };
    let words = match &participant.person.language {
        Some(tag) if !request.query_string().contains("lang=") => Words::for_tag(tag.as_str()),
        _ => asked,
    };
    Ok(Ok((tenant, survey, participant, words)))
}

fn page(
    request: &HttpRequest,
    (tenant, survey, words): (Arc<Tenant>, &Survey, Words),
    done: bool,
) -> Reply {
    let name = tenant.name.clone();
    let (heading, message) = match done {
        true => ("opted-out-title", "opted-out-message"),
        false => ("opt-out-title", "opt-out-message"),
    };
    let page = OptOutPage {
        title: survey
            .text_in(words.lang(), "title", &survey.title)
            .to_owned(),
        heading: words.s(heading, "tenant", &name),
        message: words.s(message, "tenant", &name),
        done,
        action: request.path().to_owned(),
        tenant,
        words,
    };
    render_with_status(StatusCode::OK, &page)
}

/// `GET /s/{tenant}/{survey}/p/{link}/opt-out`: asks (or says it is done).
pub async fn ask(
    state: State,
    request: HttpRequest,
    path: web::Path<(String, String, String)>,
) -> Reply {
    answer(&state, &request, path.into_inner(), false).await
}

/// `POST /s/{tenant}/{survey}/p/{link}/opt-out`: no more mail from the tenant to them.
pub async fn confirm(
    state: State,
    request: HttpRequest,
    path: web::Path<(String, String, String)>,
) -> Reply {
    answer(&state, &request, path.into_inner(), true).await
}

/// The page for the link in `path`, once the participant opted out if `opting_out`.
async fn answer(
    state: &AppState,
    request: &HttpRequest,
    path: (String, String, String),
    opting_out: bool,
) -> Reply {
    let (tenant, survey, participant, words) = match participant_of(state, request, path).await? {
        Ok(found) => found,
        Err(page) => return Ok(page),
    };
    if opting_out {
        crate::service::mailings::opt_out(&state.app, &tenant, &survey, &participant).await?;
    }
    let done = opting_out || participant.mail.opted_out.is_some();
    page(request, (tenant, &survey, words), done)
}
