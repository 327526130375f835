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
use crate::stores::participants::{LinkState, Mark};
use crate::web::{AppState, WebError};

/// Who a form is answered by.
pub(super) enum Admission {
    /// Anyone (an open survey, without a personal link).
    Anyone,
    /// A participant, through their link, not answered yet.
    Participant(Participant),
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
/// answer `reference` (`None` when the form is only being opened): a link that answered
/// admits only that same answer, sent again.
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
        // The same answer sent again (an anonymous survey's claim names no answer).
        LinkState::Answered(participant, Some(sent)) if Some(sent) == reference => {
            Admission::Participant(participant)
        }
        LinkState::Answered(participant, _) => {
            // Said in their language, which the link knows.
            let theirs = participant.person.language.as_ref();
            let words = theirs.map_or_else(|| words.clone(), |tag| Words::for_tag(tag.as_str()));
            Admission::Refused(answered(tenant.clone(), survey, &words)?)
        }
        LinkState::Unknown => Admission::Refused(unknown(tenant.clone(), survey, words)?),
    })
}

/// Claims a participant's one answer for `reference` before it is queued: `None` when it is
/// theirs, else the page saying their link answered already.
pub(super) async fn claim(
    state: &AppState,
    (tenant, survey): (&Arc<Tenant>, &Survey),
    words: &Words,
    participant: &Participant,
    reference: Reference,
) -> Result<Option<HttpResponse>, WebError> {
    let filed = survey.survey_ref();
    let store = &state.stores.participants;
    // An anonymous survey's claim does not say which answer is theirs.
    let claimed = (!survey.anonymous).then_some(reference);
    match store.claim_answer(&filed, &participant.id, claimed).await? {
        true => Ok(None),
        false => Ok(Some(answered(tenant.clone(), survey, words)?)),
    }
}

/// Records that a participant's answer was sent (queued). Only the list's status depends on
/// it, so a failure is logged: the claim already holds their link to one answer.
pub(super) async fn finished(state: &AppState, survey: &Survey, participant: &Participant) {
    let now = Moment::now(survey.anonymous);
    let store = &state.stores.participants;
    if let Err(error) = store
        .finished(&survey.survey_ref(), &participant.id, now)
        .await
    {
        tracing::warn!(%error, survey = %survey.slug, "a participant's finish was not recorded");
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
    let participant = match admit(&state, (&tenant, &survey), &asked, &link, None).await? {
        Admission::Participant(participant) => participant,
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
    super::survey_page::fresh_form(&state, (tenant, survey), words, Some(participant)).await
}
