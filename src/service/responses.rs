//! What members do with a survey's responses: export them to PostgreSQL, download them, ask
//! for some to be deleted, each with the audit entry it leaves.

use crate::domain::audit::AuditAction;
use crate::domain::{Reference, Survey};
use crate::stores::exports::ExportJob;
use crate::stores::{StoreError, Stores};

use super::Actor;

/// Queues an export of the survey's responses to PostgreSQL; the job a worker will run.
pub async fn request_export(
    stores: &Stores,
    actor: Actor<'_>,
    survey: &Survey,
) -> Result<ExportJob, StoreError> {
    let job = stores.exports.request(&survey.survey_ref()).await?;
    actor
        .record(
            stores,
            AuditAction::ResponsesExported,
            format!("{} to PostgreSQL (job {})", survey.slug, job.id),
        )
        .await?;
    Ok(job)
}

/// Records a download of every response as `extension` (the file itself is streamed by the
/// caller).
pub async fn downloaded(
    stores: &Stores,
    actor: Actor<'_>,
    survey: &Survey,
    extension: &str,
) -> Result<(), StoreError> {
    actor
        .record(
            stores,
            AuditAction::ResponsesExported,
            format!("{} downloaded as {extension}", survey.slug),
        )
        .await
}

/// Asks for counted responses to be deleted (a worker applies it, exactly once, where the
/// answers are kept).
pub async fn request_deletion(
    stores: &Stores,
    actor: Actor<'_>,
    survey: &Survey,
    references: &[Reference],
) -> Result<(), StoreError> {
    let at = &survey.survey_ref();
    let results = stores.results_of(survey).await?;
    results
        .deletions
        .request(at, references, actor.name)
        .await?;
    let listed: Vec<String> = references.iter().map(ToString::to_string).collect();
    actor
        .record(
            stores,
            AuditAction::ResponsesDeleted,
            format!(
                "{} of \"{}\": {}",
                references.len(),
                at.slug,
                listed.join(", ")
            ),
        )
        .await
}
