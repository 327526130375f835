//! Mailings to a survey's participants: starting one (the rules the pages and the API share)
//! and changing the templates they send.

use crate::domain::Survey;
use crate::domain::audit::AuditAction;
use crate::domain::language::LanguageTag;
use crate::domain::mailing::{Mailing, MailingKind, Template, TemplateError};
use crate::stores::mailings::StartError;
use crate::stores::{StoreError, Stores};

use super::Actor;

/// Why a mailing was not started.
#[derive(Debug, thiserror::Error)]
pub enum Refusal {
    #[error(
        "email is not set up: the operator sets CANVASS_SMTP_URL and CANVASS_PUBLIC_URL for mailings"
    )]
    NoMail,
    #[error("publish the survey first: personal links open it only while it is published")]
    Unpublished,
    #[error("the survey has no participants yet")]
    NoParticipants,
    #[error("{0}")]
    Start(String),
}

/// Starts a mailing of `kind` to `survey`'s participants (`mail` says whether email is set
/// up); the mailing, or why not.
pub async fn start(
    stores: &Stores,
    actor: Actor<'_>,
    survey: &Survey,
    kind: MailingKind,
    mail: bool,
) -> Result<Result<Mailing, Refusal>, StoreError> {
    if !mail {
        return Ok(Err(Refusal::NoMail));
    }
    // Also what fixes whether answers are anonymous before anyone is invited.
    if !survey.published {
        return Ok(Err(Refusal::Unpublished));
    }
    let at = survey.survey_ref();
    if stores.participants.count(&at).await? == 0 {
        return Ok(Err(Refusal::NoParticipants));
    }
    let mailing = match stores.mailings.start(&at, kind, actor.name).await {
        Ok(mailing) => mailing,
        Err(StartError::Store(error)) => return Err(error),
        Err(refused) => return Ok(Err(Refusal::Start(refused.to_string()))),
    };
    actor
        .record(
            stores,
            AuditAction::MailingStarted,
            format!("{} of {}", kind.as_str(), survey.slug),
        )
        .await?;
    Ok(Ok(mailing))
}

/// Saves the template of `kind` in `language` (one of the survey's), checked.
pub async fn save_template(
    stores: &Stores,
    survey: &Survey,
    kind: MailingKind,
    language: &LanguageTag,
    (subject, body): (&str, &str),
) -> Result<Result<Template, TemplateError>, StoreError> {
    let template = match Template::check(subject, body) {
        Ok(template) => template,
        Err(problem) => return Ok(Err(problem)),
    };
    let saved = template.clone();
    stores
        .mailings
        .change_templates(&survey.survey_ref(), |templates| {
            templates.set(kind, language, saved.clone())
        })
        .await?;
    Ok(Ok(template))
}
