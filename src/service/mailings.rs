//! Mailings to a survey's participants: starting one (the rules the pages and the API share),
//! following them, and the templates they send.

use super::App;
use crate::domain::Survey;
use crate::domain::audit::AuditAction;
use crate::domain::language::LanguageTag;
use crate::domain::mailing::{Mailing, MailingKind, Template, TemplateError, Templates};
use crate::stores::StoreError;
use crate::stores::mailings::StartError;

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
    app: &App,
    actor: Actor<'_>,
    survey: &Survey,
    kind: MailingKind,
    mail: bool,
) -> Result<Result<Mailing, Refusal>, StoreError> {
    let stores = app.stores();
    if !mail {
        return Ok(Err(Refusal::NoMail));
    }
    // Also what fixes whether answers are anonymous before anyone is invited.
    if !survey.published {
        return Ok(Err(Refusal::Unpublished));
    }
    let at = survey.survey_ref();
    if stores.panel.participants.count(&at).await? == 0 {
        return Ok(Err(Refusal::NoParticipants));
    }
    let mailing = match stores.panel.mailings.start(&at, kind, actor.name).await {
        Ok(mailing) => mailing,
        Err(StartError::Store(error)) => return Err(error),
        Err(refused) => return Ok(Err(Refusal::Start(refused.to_string()))),
    };
    actor
        .record(
            app,
            AuditAction::MailingStarted,
            format!("{} of {}", kind.as_str(), survey.slug),
        )
        .await?;
    Ok(Ok(mailing))
}

/// Saves the template of `kind` in `language` (one of the survey's), checked.
pub async fn save_template(
    app: &App,
    survey: &Survey,
    kind: MailingKind,
    language: &LanguageTag,
    (subject, body): (&str, &str),
) -> Result<Result<Template, TemplateError>, StoreError> {
    let stores = app.stores();
    let template = match Template::check(subject, body) {
        Ok(template) => template,
        Err(problem) => return Ok(Err(problem)),
    };
    let saved = template.clone();
    stores
        .panel
        .mailings
        .change_templates(&survey.survey_ref(), |templates| {
            templates.set(kind, language, saved.clone())
        })
        .await?;
    Ok(Ok(template))
}

/// A participant asks for no more email: the tenant's list first (what mailings obey, for
/// every survey of the tenant), then this survey's marker and their record.
pub async fn opt_out(
    app: &App,
    tenant: &crate::domain::Tenant,
    survey: &crate::domain::Survey,
    participant: &crate::domain::participant::Participant,
) -> Result<(), StoreError> {
    let stores = app.stores();
    let filed = survey.survey_ref();
    stores
        .panel
        .mailings
        .opt_out(&tenant.slug, &participant.person.email)
        .await?;
    stores
        .panel
        .participants
        .set_mark(
            &filed,
            crate::stores::participants::Mark::OptedOut,
            &participant.id,
        )
        .await?;
    let now = time::OffsetDateTime::now_utc();
    stores
        .panel
        .participants
        .change_if(&filed, &participant.id, |p| {
            p.mail.opted_out.is_none() && {
                p.mail.opted_out = Some(now);
                true
            }
        })
        .await?;
    Ok(())
}

/// `survey`'s mailings, newest first.
pub async fn list(app: &App, survey: &Survey) -> Result<Vec<Mailing>, StoreError> {
    app.stores().panel.mailings.list(&survey.survey_ref()).await
}

/// One of `survey`'s mailings, as far as it got.
pub async fn get(app: &App, survey: &Survey, id: &str) -> Result<Option<Mailing>, StoreError> {
    let found = app
        .stores()
        .panel
        .mailings
        .get(&survey.survey_ref(), id)
        .await?;
    Ok(found.map(|(mailing, _)| mailing))
}

/// The templates `survey`'s mailings send (the built-in ones where none was saved).
pub async fn templates(app: &App, survey: &Survey) -> Result<Templates, StoreError> {
    let (templates, _) = app
        .stores()
        .panel
        .mailings
        .templates(&survey.survey_ref())
        .await?;
    Ok(templates)
}
