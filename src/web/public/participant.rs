//! Personal links: a participant's link opens their survey for them (in their language when
//! the survey has it), carries through its pages in the form, and answers once. A survey by
//! invitation opens only so; its public address says it is by invitation.

use std::sync::Arc;

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};

use super::notice::notice;
use super::reach::{Reached, reach};
use crate::domain::participant::{Access, Moment, Participant};
use crate::domain::{Reference, Survey, Tenant};
use crate::i18n::Words;
use crate::stores::participants::{AnswerClaim, LinkState, Mark};
use crate::web::{AppState, WebError};

/// Who a form is answered by.
pub(super) enum Admission {
    /// Anyone (an open survey, without a personal link).
    Anyone,
    /// A participant, through their link, not answered yet.
    Participant(Participant),
    /// A participant whose answer is being sent, or was cut off, under this reference: their
    /// form is that answer.
    Pinned(Participant, Reference),
    /// Not admitted: the page that says why.
    Refused(HttpResponse),
}

/// The page of a survey by invitation reached without a personal link (403).
pub(super) fn by_invitation(
    tenant: Arc<Tenant>,
    survey: &Survey,
    words: &Words,
) -> Result<HttpResponse, WebError> {
    let said = (
        words.t("invitation-only-title"),
        words.t("invitation-only-message"),
    );
    notice(StatusCode::FORBIDDEN, tenant, survey, words, said, None)
}

/// The page of a personal link that answered already (410).
fn answered(tenant: Arc<Tenant>, survey: &Survey, words: &Words) -> Result<HttpResponse, WebError> {
    let said = (
        words.t("link-answered-title"),
        words.t("link-answered-message"),
    );
    notice(StatusCode::GONE, tenant, survey, words, said, None)
}

/// The page of a link that is no participant's of this survey (404).
pub(super) fn unknown(
    tenant: Arc<Tenant>,
    survey: &Survey,
    words: &Words,
) -> Result<HttpResponse, WebError> {
    let said = (
        words.t("link-unknown-title"),
        words.t("link-unknown-message"),
    );
    notice(StatusCode::NOT_FOUND, tenant, survey, words, said, None)
}

/// Who may answer the form that carries the personal link `link` (empty for none), for the
/// answer `reference` (`None` when the form is only being opened): a link that answered, or
/// whose answer is being sent, admits only that same answer, sent again (and opens a form
/// for it).
pub(super) async fn admit(
    state: &AppState,
    (tenant, survey): (&Arc<Tenant>, &Survey),
    words: &Words,
    link: &str,
    reference: Option<Reference>,
) -> Result<Admission, WebError> {
    let invitation = survey.access == Access::Invitation;
    if link.is_empty() {
        return Ok(match invitation {
            true => Admission::Refused(by_invitation(tenant.clone(), survey, words)?),
            false => Admission::Anyone,
        });
    }
    let found = state
        .stores
        .participants
        .by_link(&survey.survey_ref(), link)
        .await?;
    Ok(match found {
        LinkState::Open(participant) => Admission::Participant(participant),
        // Its answer is being sent, or its send failed or was cut off: opening the link
        // gives a form for that same answer, and that form may be sent (again).
        LinkState::Sending(participant, sending)
            if reference.is_none() || reference == Some(sending) =>
        {
            Admission::Pinned(participant, sending)
        }
        // The same answer sent again (an anonymous survey's claim names no answer).
        LinkState::Answered(participant, Some(sent)) if Some(sent) == reference => {
            Admission::Participant(participant)
        }
        LinkState::Answered(participant, _) | LinkState::Sending(participant, _) => {
            // Said in their language, which the link knows.
            let theirs = participant.person.language.as_ref();
            let words = theirs.map_or_else(|| words.clone(), |tag| Words::for_tag(tag.as_str()));
            Admission::Refused(answered(tenant.clone(), survey, &words)?)
        }
        LinkState::Unknown => Admission::Refused(unknown(tenant.clone(), survey, words)?),
    })
}

/// Claims a participant's one answer for `reference` before it is queued: `None` when it is
/// theirs (claimed now, or the same form sent again), else the page saying their link
/// answered already (or is answering under another reference: another form of it).
pub(super) async fn claim(
    state: &AppState,
    (tenant, survey): (&Arc<Tenant>, &Survey),
    words: &Words,
    participant: &Participant,
    reference: Reference,
) -> Result<Option<HttpResponse>, WebError> {
    let filed = survey.survey_ref();
    let store = &state.stores.participants;
    match store
        .claim_answer(&filed, &participant.id, reference)
        .await?
    {
        AnswerClaim::Sending(claimed) | AnswerClaim::Sent(Some(claimed))
            if claimed == reference =>
        {
            Ok(None)
        }
        _ => Ok(Some(answered(tenant.clone(), survey, words)?)),
    }
}

/// Records that a participant's answer was queued: the claim settled (named, or for an
/// anonymous survey no longer holding its reference) and the time (or not) on their record.
/// The claim already holds their link to this one answer, so a failure is logged: the link
/// stays pinned to it, and its form is sent again as the same answer.
pub(super) async fn sent(
    state: &AppState,
    survey: &Survey,
    participant: &Participant,
    reference: Reference,
) {
    let filed = survey.survey_ref();
    let store = &state.stores.participants;
    let settled = match survey.anonymous {
        true => AnswerClaim::Sent(None),
        false => AnswerClaim::Sent(Some(reference)),
    };
    let now = Moment::now(survey.anonymous);
    let recorded = async {
        store
            .settle_answer(&filed, &participant.id, settled)
            .await?;
        store.finished(&filed, &participant.id, now).await
    };
    if let Err(error) = recorded.await {
        tracing::warn!(%error, survey = %survey.slug, "a participant's answer was not recorded as sent");
    }
}

/// `GET /s/{tenant}/{survey}/p/{link}`: the form, for the participant whose link it is.
pub async fn form(
    state: web::Data<AppState>,
    request: HttpRequest,
    path: web::Path<(String, String, String)>,
) -> Result<HttpResponse, WebError> {
    let (tenant, survey, link) = path.into_inner();
    let (tenant, survey) = match reach(&state, &request, &tenant, &survey).await? {
        Reached::Open(tenant, survey) => (tenant, survey),
        Reached::Closed(page) => return Ok(page),
    };
    let asked = super::language::words_for(&request, &survey);
    let (participant, pinned) = match admit(&state, (&tenant, &survey), &asked, &link, None).await?
    {
        Admission::Participant(participant) => (participant, None),
        Admission::Pinned(participant, reference) => (participant, Some(reference)),
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
    if participant.started.is_none() {
        let now = Moment::now(survey.anonymous);
        let filed = survey.survey_ref();
        let store = &state.stores.participants;
        let first = |p: &mut Participant| {
            p.started.get_or_insert(now);
        };
        let marked = store.set_mark(&filed, Mark::Started, &participant.id);
        let recorded = async {
            marked.await?;
            store.change(&filed, &participant.id, first).await
        };
        if let Err(error) = recorded.await {
            tracing::warn!(%error, survey = %survey.slug, "a participant's start was not recorded");
        }
    }
    let theirs = (Some(participant), pinned);
    super::survey_page::fresh_form(&state, (tenant, survey), words, theirs).await
}
