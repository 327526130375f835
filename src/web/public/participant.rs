//! Personal links: a participant's link opens their survey for them (in their language when
//! the survey has it), carries through its pages in the form, and answers once. A survey by
//! invitation opens only so; its public address says it is by invitation.

use std::sync::Arc;

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};

use super::notice::notice;
use super::reach::{Reached, reach};
use crate::domain::participant::Participant;
use crate::domain::{Reference, Survey, Tenant};
use crate::i18n::Words;
use crate::service::answering;
use crate::web::{AppState, Reply, State, WebError};

/// Who a form is answered by, as a page sees it.
pub(super) enum Admission {
    /// Anyone (an open survey, without a personal link).
    Anyone,
    /// A participant, through their link; with the reference their link is pinned to, when
    /// its answer is being sent or its send was cut off.
    Participant(Participant, Option<Reference>),
    /// Not admitted: the page that says why.
    Refused(HttpResponse),
}

/// The page of a survey by invitation reached without a personal link (403).
pub(super) fn by_invitation(tenant: Arc<Tenant>, survey: &Survey, words: &Words) -> Reply {
    let said = (
        words.t("invitation-only-title"),
        words.t("invitation-only-message"),
    );
    notice(StatusCode::FORBIDDEN, tenant, survey, words, said, None)
}

/// The page of a personal link that answered already (410).
fn answered(tenant: Arc<Tenant>, survey: &Survey, words: &Words) -> Reply {
    let said = (
        words.t("link-answered-title"),
        words.t("link-answered-message"),
    );
    notice(StatusCode::GONE, tenant, survey, words, said, None)
}

/// The page of a link that is no participant's of this survey (404).
pub(super) fn unknown(tenant: Arc<Tenant>, survey: &Survey, words: &Words) -> Reply {
    let said = (
        words.t("link-unknown-title"),
        words.t("link-unknown-message"),
    );
    notice(StatusCode::NOT_FOUND, tenant, survey, words, said, None)
}

/// Who may answer the form that carries the personal link `link` (empty for none), for the
/// answer `reference` (`None` when the form is only being opened), with the page that turns
/// anyone else away (`service::answering::admit` decides).
pub(super) async fn admit(
    state: &AppState,
    (tenant, survey): (&Arc<Tenant>, &Survey),
    words: &Words,
    link: &str,
    reference: Option<Reference>,
) -> Result<Admission, WebError> {
    let admitted = answering::admit(&state.app, survey, link, reference).await?;
    Ok(match admitted {
        answering::Admission::Anyone => Admission::Anyone,
        answering::Admission::Participant(participant) => Admission::Participant(participant, None),
        answering::Admission::Pinned(participant, pinned) => {
            Admission::Participant(participant, Some(pinned))
        }
        answering::Admission::Answered(participant) => {
            Admission::Refused(link_answered(tenant.clone(), survey, words, &participant)?)
        }
        answering::Admission::InvitationOnly => {
            Admission::Refused(by_invitation(tenant.clone(), survey, words)?)
        }
        answering::Admission::UnknownLink => {
            Admission::Refused(unknown(tenant.clone(), survey, words)?)
        }
    })
}

/// The page of a personal link that answered already (or answers under another form), in
/// the participant's language, which the link knows.
pub(super) fn link_answered(
    tenant: Arc<Tenant>,
    survey: &Survey,
    words: &Words,
    participant: &Participant,
) -> Reply {
    let theirs = participant.person.language.as_ref();
    let words = theirs.map_or_else(|| words.clone(), |tag| Words::for_tag(tag.as_str()));
    answered(tenant, survey, &words)
}

/// `GET /s/{tenant}/{survey}/p/{link}`: the form, for the participant whose link it is.
pub async fn form(
    state: State,
    request: HttpRequest,
    path: web::Path<(String, String, String)>,
) -> Reply {
    let (tenant, survey, link) = path.into_inner();
    let (tenant, survey) = match reach(&state, &request, &tenant, &survey).await? {
        Reached::Open(tenant, survey) => (tenant, survey),
        Reached::Closed(page) => return Ok(page),
    };
    let asked = super::language::words_for(&request, &survey);
    let (participant, pinned) = match admit(&state, (&tenant, &survey), &asked, &link, None).await?
    {
        Admission::Participant(participant, pinned) => (participant, pinned),
        // An empty link names no participant.
        Admission::Anyone => return Err(WebError::NotFound),
        Admission::Refused(page) => return Ok(page),
    };
    // Their language, unless they chose another on the form.
    let words = match (
        &participant.person.language,
        request.query_string().contains("lang="),
    ) {
        (Some(tag), false) => Words::for_tag(tag.as_str()),
        _ => asked,
    };
    // The first opening of their link marks them started (one write, once).
    answering::opened_by(&state.app, &survey, &participant).await;
    let theirs = (Some(participant), pinned);
    let seed = super::form::seeded(&survey, request.query_string(), &words)?;
    super::survey_page::fresh_form(&state, (tenant, survey), words, theirs, &seed).await
}
