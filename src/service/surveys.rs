//! Publishing, closing and deleting a survey, each with its audit entry.

use crate::domain::Survey;
use crate::domain::audit::AuditAction;
use crate::stores::{StoreError, Stores};

use super::Actor;

/// Why a survey was not published.
#[derive(Debug, thiserror::Error)]
pub enum PublishError {
    /// The survey cannot be answered yet (it has no question).
    #[error("{0}")]
    Incomplete(&'static str),
    /// Storage failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// A survey as the audit log names it: `"Title" (slug)`.
pub fn named(survey: &Survey) -> String {
    format!("\"{}\" ({})", survey.title, survey.slug)
}

/// Opens a survey to respondents.
pub async fn publish(
    stores: &Stores,
    actor: Actor<'_>,
    survey: &Survey,
) -> Result<Survey, PublishError> {
    if let Some(problem) = survey.publish_problem() {
        return Err(PublishError::Incomplete(problem));
    }
    let published = stores.surveys.set_published(survey, true).await?;
    actor
        .record(stores, AuditAction::SurveyPublished, named(survey))
        .await?;
    Ok(published)
}

/// Closes a survey to respondents; its answers stay.
pub async fn unpublish(
    stores: &Stores,
    actor: Actor<'_>,
    survey: &Survey,
) -> Result<Survey, StoreError> {
    let unpublished = stores.surveys.set_published(survey, false).await?;
    actor
        .record(stores, AuditAction::SurveyUnpublished, named(survey))
        .await?;
    Ok(unpublished)
}

/// Deletes a survey and every answer to it.
pub async fn delete(stores: &Stores, actor: Actor<'_>, survey: &Survey) -> Result<(), StoreError> {
    stores.surveys.delete(survey).await?;
    actor
        .record(stores, AuditAction::SurveyDeleted, named(survey))
        .await
}
