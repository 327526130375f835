//! What members do with a survey's responses: export them to PostgreSQL, download them, ask
//! for some to be deleted, each with the audit entry it leaves.

use super::App;
use crate::domain::audit::AuditAction;
use crate::domain::{Reference, Survey};
use crate::stores::StoreError;
pub use crate::stores::exports::{ExportJob, ExportStatus};

use super::Actor;

/// Queues an export of the survey's responses to PostgreSQL; the job a worker will run.
pub async fn request_export(
    app: &App,
    actor: Actor<'_>,
    survey: &Survey,
) -> Result<ExportJob, StoreError> {
    let stores = app.stores();
    let job = stores
        .operations
        .exports
        .request(&survey.survey_ref())
        .await?;
    actor
        .record(
            app,
            AuditAction::ResponsesExported,
            format!("{} to PostgreSQL (job {})", survey.slug, job.id),
        )
        .await?;
    Ok(job)
}

/// Records a download of every response as `extension` (the file itself is streamed by the
/// caller).
pub async fn downloaded(
    app: &App,
    actor: Actor<'_>,
    survey: &Survey,
    extension: &str,
) -> Result<(), StoreError> {
    actor
        .record(
            app,
            AuditAction::ResponsesExported,
            format!("{} downloaded as {extension}", survey.slug),
        )
        .await
}

/// Asks for counted responses to be deleted (a worker applies it, exactly once, where the
/// answers are kept).
pub async fn request_deletion(
    app: &App,
    actor: Actor<'_>,
    survey: &Survey,
    references: &[Reference],
) -> Result<(), StoreError> {
    let stores = app.stores();
    let at = &survey.survey_ref();
    let results = stores.results_of(survey).await?;
    results
        .operations
        .deletions
        .request(at, references, actor.name)
        .await?;
    let listed: Vec<String> = references.iter().map(ToString::to_string).collect();
    actor
        .record(
            app,
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

/// The file of the answer `reference` to `question` with id `id`, in `tenant`'s survey
/// `survey`: its record and bytes, if the survey, the answer and the file are all still there.
pub async fn file(
    app: &App,
    (tenant, survey): (&crate::domain::TenantSlug, &crate::domain::SurveySlug),
    (reference, question, id): (crate::domain::Reference, &str, &str),
) -> Result<Option<(crate::domain::upload::FileAnswer, bytes::Bytes)>, StoreError> {
    let stores = app.stores();
    let Some(survey) = stores.catalog.surveys.get(tenant, survey).await? else {
        return Ok(None);
    };
    let results = stores.results_of(&survey).await?;
    let filed = survey.survey_ref();
    let Some(answer) = results.answering.answers.get(&filed, reference).await? else {
        return Ok(None);
    };
    let Some(file) = answer.file(question).filter(|file| file.id == id).cloned() else {
        return Ok(None);
    };
    let body = results
        .answering
        .uploads
        .get(&filed, reference, question, &file.id)
        .await?;
    Ok(body.map(|body| (file, body)))
}

/// A survey's responses as a download in `format`, streamed as they are read (the sheet's
/// columns worked out first).
pub async fn download(
    app: &App,
    survey: std::sync::Arc<crate::domain::Survey>,
    format: crate::export::SheetFormat,
    options: crate::export::SheetOptions,
) -> Result<futures_util::stream::BoxStream<'static, Result<bytes::Bytes, StoreError>>, StoreError>
{
    let stores = app.stores();
    let layout = crate::export::sheet_layout(&stores.panel, &survey).await?;
    Ok(format.stream(stores.clone(), survey, layout, options))
}

/// A survey's responses as a labelled file for an analysts' tool (see `export::ToolFile`),
/// streamed.
pub async fn download_for_tool(
    app: &App,
    survey: std::sync::Arc<crate::domain::Survey>,
    tool: crate::export::ToolFile,
) -> Result<futures_util::stream::BoxStream<'static, Result<bytes::Bytes, StoreError>>, StoreError>
{
    let stores = app.stores();
    let layout = crate::export::sheet_layout(&stores.panel, &survey).await?;
    Ok(tool.stream(stores.clone(), survey, layout))
}

/// One of `tenant`'s export jobs, if there is one with this id.
pub async fn export_job(
    app: &App,
    tenant: &crate::domain::TenantSlug,
    id: &str,
) -> Result<Option<ExportJob>, StoreError> {
    app.stores().operations.exports.get(tenant, id).await
}

/// The counted responses of `survey` among `references` (those not counted are left out).
pub async fn answers(
    app: &App,
    survey: &Survey,
    references: &[Reference],
) -> Result<Vec<crate::domain::Answer>, StoreError> {
    let results = app.stores().results_of(survey).await?;
    let found = results
        .answering
        .answers
        .get_many(&survey.survey_ref(), references)
        .await?;
    Ok(found.into_iter().flatten().collect())
}

/// What a deletion of several responses did.
pub struct Deleted {
    /// Counted responses, asked to be deleted.
    pub counted: Vec<Reference>,
    /// Responses not counted yet: asked again in a moment, they are.
    pub waiting: Vec<Reference>,
}

/// Deletes those of `references` that are counted (see `request_deletion`); says which were
/// not counted yet (the rest are no responses of the survey).
pub async fn delete(
    app: &App,
    actor: Actor<'_>,
    survey: &Survey,
    references: &[Reference],
) -> Result<Deleted, StoreError> {
    use crate::stores::responses::Standing;
    let at = survey.survey_ref();
    let results = app.stores().results_of(survey).await?;
    let standings = results.standing(&at, references).await?;
    let pick = |wanted: Standing| -> Vec<Reference> {
        references
            .iter()
            .zip(&standings)
            .filter(|(_, standing)| **standing == wanted)
            .map(|(reference, _)| *reference)
            .collect()
    };
    let deleted = Deleted {
        counted: pick(Standing::Counted),
        waiting: pick(Standing::Waiting),
    };
    if !deleted.counted.is_empty() {
        request_deletion(app, actor, survey, &deleted.counted).await?;
    }
    Ok(deleted)
}

/// The most responses one request may delete.
pub use crate::stores::deletions::MAX_DELETIONS_PER_REQUEST;
