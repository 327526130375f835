//! A survey's life: creating it, revising its definition, publishing, closing and deleting
//! it, each with the audit entry it leaves.

use super::App;
use crate::domain::Question;
use crate::domain::Survey;
use crate::domain::audit::AuditAction;
use crate::domain::definition::checked::{CheckedDefinition, Facts, Pending};
use crate::domain::definition::quota::{QuotaInput, check_quotas};
use crate::domain::definition::{Definition, DefinitionErrors, SurveyInput};
use crate::domain::segment::segment_keys;
use crate::stores::StoreError;

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

/// A survey's definition as sent, checked: its own rules first (every problem at once),
/// then against the installation's regions and the survey it replaces (`current`), reading
/// from storage only the facts the check asks for (`checked::Pending`).
pub async fn check(
    app: &App,
    input: &SurveyInput,
    current: Option<&Survey>,
    existing: &[Question],
) -> Result<Result<CheckedDefinition, DefinitionErrors>, StoreError> {
    match input.check(existing) {
        Ok(definition) => check_definition(app, definition, current).await,
        Err(errors) => Ok(Err(errors)),
    }
}

/// A definition made from a survey's own (a copy, a changed setting, its translations),
/// checked as a sent one is once its own rules are met; the only way to a
/// `CheckedDefinition`, which is all storage takes.
pub async fn check_definition(
    app: &App,
    definition: Definition,
    current: Option<&Survey>,
) -> Result<Result<CheckedDefinition, DefinitionErrors>, StoreError> {
    let installation = app.stores().residency.regions.installation();
    let pending = match Pending::new(definition, &installation, current.map(Survey::replaced)) {
        Ok(pending) => pending,
        Err(errors) => return Ok(Err(errors)),
    };
    let needs = pending.needs();
    let mut facts = Facts::default();
    if let Some(current) = current {
        let participants = &app.stores().panel.participants;
        let filed = current.survey_ref();
        // In the order the check reports them: a fact read is one the answer may depend on.
        facts.answers_given = needs.answers_given && answers_given(app, current).await?;
        facts.participants = needs.participants && participants.any(&filed).await?;
        if needs.attributes {
            facts.attributes = participants.attributes(&filed).await?;
        }
    }
    Ok(pending.finish(&facts))
}

/// Replaces `current`'s definition with one made from it (checked first): a changed setting,
/// its quotas, its segments, its translations.
pub async fn amend(
    app: &App,
    current: &Survey,
    definition: Definition,
) -> Result<Result<Survey, DefinitionErrors>, StoreError> {
    match check_definition(app, definition, Some(current)).await? {
        Ok(checked) => revise(app, current, checked).await.map(Ok),
        Err(errors) => Ok(Err(errors)),
    }
}

pub use crate::domain::definition::checked::{ANONYMITY_FIXED, PARTICIPANTS_AT_HOME};

/// Whether any answer to `survey` was given: counted, or claimed through a personal link.
pub async fn answers_given(app: &App, survey: &Survey) -> Result<bool, StoreError> {
    let stores = app.stores();
    let filed = survey.survey_ref();
    if stores.panel.participants.any_answer(&filed).await? {
        return Ok(true);
    }
    let results = stores.results_of(survey).await?;
    Ok(results.answering.summaries.total(&filed).await? > 0)
}

/// Sets who may answer `current` and, while no answer was given, whether its answers are
/// anonymous (`None`: as they are), under the rules every definition meets.
pub async fn set_access(
    app: &App,
    current: &Survey,
    access: crate::domain::participant::Access,
    anonymous: Option<bool>,
) -> Result<Result<Survey, DefinitionErrors>, StoreError> {
    let mut definition = current.definition();
    definition.access = Some(access);
    if let Some(anonymous) = anonymous {
        definition.anonymous = Some(anonymous);
    }
    amend(app, current, definition).await
}

/// Whether publishing `survey` should first ask whether its answers are anonymous: it is for
/// known people (by invitation, or with participants) and no answer fixed the choice yet.
pub async fn asks_anonymity(app: &App, survey: &Survey) -> Result<bool, StoreError> {
    let stores = app.stores();
    let for_people = survey.access == crate::domain::participant::Access::Invitation
        || stores.panel.participants.any(&survey.survey_ref()).await?;
    Ok(for_people && !answers_given(app, survey).await?)
}

/// Why participants are not added to a survey answered away from home.
pub const PARTICIPANTS_AT_HOME_ADDING: &str = "participants and their personal links are kept \
     in your home region, and this survey is answered in another: answer it at home to invite \
     participants";

/// Whether a survey naming `regions` is answered away from this (its home) region.
pub fn answered_away(app: &App, regions: &[crate::domain::region::RegionName]) -> bool {
    let here = &app.stores().residency.regions;
    regions.iter().any(|name| !here.is_here(name))
}

/// A tenant's survey, as it is now.
pub async fn own(
    app: &App,
    tenant: &crate::domain::TenantSlug,
    slug: &crate::domain::SurveySlug,
) -> Result<Option<std::sync::Arc<Survey>>, StoreError> {
    app.stores().catalog.surveys.get(tenant, slug).await
}

/// A page of a tenant's surveys, in address order: `count` from the `first` (from 0), and
/// how many it has in all.
pub async fn page(
    app: &App,
    tenant: &crate::domain::TenantSlug,
    first: usize,
    count: usize,
) -> Result<(usize, Vec<std::sync::Arc<Survey>>), StoreError> {
    let stores = app.stores();
    let slugs = stores.catalog.surveys.slugs(tenant).await?;
    let mut surveys = Vec::new();
    for slug in slugs.iter().skip(first).take(count) {
        if let Some(survey) = stores.catalog.surveys.get(tenant, slug).await? {
            surveys.push(survey);
        }
    }
    Ok((slugs.len(), surveys))
}

/// A tenant's survey as storage has it this moment (not as cached): what an edit is
/// compared with.
pub async fn fresh(
    app: &App,
    tenant: &crate::domain::TenantSlug,
    slug: &crate::domain::SurveySlug,
) -> Result<Option<std::sync::Arc<Survey>>, StoreError> {
    app.stores().catalog.surveys.fresh(tenant, slug).await
}

/// Every question `survey` has asked, in any of its versions: how an answer to a question
/// since removed is still named, and how a retyped question gets a new id.
pub async fn known_questions(app: &App, survey: &Survey) -> Result<Vec<Question>, StoreError> {
    app.stores().catalog.surveys.known_questions(survey).await
}

/// A survey as the audit log names it: `"Title" (slug)`.
pub fn named(survey: &Survey) -> String {
    format!("\"{}\" ({})", survey.title, survey.slug)
}

/// Creates a survey (a draft) in the actor's tenant; `None` when the tenant already has its
/// most surveys.
pub async fn create(
    app: &App,
    actor: Actor<'_>,
    definition: CheckedDefinition,
) -> Result<Option<Survey>, StoreError> {
    let stores = app.stores();
    let Some(created) = stores
        .catalog
        .surveys
        .create(actor.tenant, definition)
        .await?
    else {
        return Ok(None);
    };
    actor
        .record(app, AuditAction::SurveyCreated, named(&created))
        .await?;
    Ok(Some(created))
}

/// A new draft with `survey`'s questions, pages, logic and texts, titled "Copy of ...";
/// `None` when the tenant already has its most surveys, and the problems if the copy would
/// not pass today's checks (the installation's regions changed since, say).
pub async fn duplicate(
    app: &App,
    actor: Actor<'_>,
    survey: &Survey,
) -> Result<Result<Option<Survey>, DefinitionErrors>, StoreError> {
    let stores = app.stores();
    let copy = survey.copy(time::OffsetDateTime::now_utc());
    let copy = match check_definition(app, copy, None).await? {
        Ok(copy) => copy,
        Err(errors) => return Ok(Err(errors)),
    };
    let Some(copy) = stores.catalog.surveys.create(&survey.tenant, copy).await? else {
        return Ok(Ok(None));
    };
    actor
        .record(
            app,
            AuditAction::SurveyCreated,
            format!("{}, a copy of {}", named(&copy), survey.slug),
        )
        .await?;
    Ok(Ok(Some(copy)))
}

/// Replaces a survey's definition (a published survey starts a new version) and has its
/// segments follow when its segment questions (or its languages) change.
pub async fn revise(
    app: &App,
    current: &Survey,
    definition: CheckedDefinition,
) -> Result<Survey, StoreError> {
    let stores = app.stores();
    let survey = stores.catalog.surveys.revise(current, definition).await?;
    super::hosting::push(app, &survey, Some(current)).await?;
    // Its participants' openings were timed: now they are not (their answers' are never).
    if survey.anonymous && !current.anonymous {
        stores
            .panel
            .participants
            .untime_openings(&survey.survey_ref())
            .await?;
    }
    // A quota removed takes its places with it (one added later starts empty).
    let removed: Vec<_> = current
        .quotas
        .iter()
        .filter(|was| !survey.quotas.iter().any(|kept| kept.id == was.id))
        .collect();
    if !removed.is_empty() {
        let kept = stores.quota_places(current, None).await?;
        for quota in removed {
            kept.forget(&survey.survey_ref(), &quota.id).await?;
        }
    }
    // Answers may exist only once it was published: then its segments must follow.
    if survey.was_published && segment_keys(&survey) != segment_keys(current) {
        let results = stores.results_of(&survey).await?;
        results
            .operations
            .segments
            .request(&survey.survey_ref())
            .await?;
    }
    Ok(survey)
}

/// Replaces a survey's quotas with those sent (checked as the API checks them), keeping the
/// rest of its definition.
pub async fn set_quotas(
    app: &App,
    current: &Survey,
    sent: Vec<QuotaInput>,
) -> Result<Result<Survey, DefinitionErrors>, StoreError> {
    let quotas = match check_quotas(&sent, &current.questions) {
        Ok(quotas) => quotas,
        Err(errors) => return Ok(Err(errors)),
    };
    let mut definition = current.definition();
    definition.quotas = Some(quotas);
    amend(app, current, definition).await
}

/// Opens a survey to respondents.
pub async fn publish(app: &App, actor: Actor<'_>, survey: &Survey) -> Result<Survey, PublishError> {
    let stores = app.stores();
    if let Some(problem) = survey.publish_problem() {
        return Err(PublishError::Incomplete(problem));
    }
    let published = stores.catalog.surveys.set_published(survey, true).await?;
    super::hosting::push(app, &published, None).await?;
    actor
        .record(app, AuditAction::SurveyPublished, named(survey))
        .await?;
    Ok(published)
}

/// Closes a survey to respondents; its answers stay.
pub async fn unpublish(app: &App, actor: Actor<'_>, survey: &Survey) -> Result<Survey, StoreError> {
    let stores = app.stores();
    let unpublished = stores.catalog.surveys.set_published(survey, false).await?;
    super::hosting::push(app, &unpublished, None).await?;
    actor
        .record(app, AuditAction::SurveyUnpublished, named(survey))
        .await?;
    Ok(unpublished)
}

/// Deletes a survey and every answer to it.
pub async fn delete(app: &App, actor: Actor<'_>, survey: &Survey) -> Result<(), StoreError> {
    let stores = app.stores();
    stores.catalog.surveys.delete(survey).await?;
    super::hosting::withdraw(app, survey).await?;
    // Answers kept in their region go there too. A region out of reach keeps them until its
    // workers' reconcile pass finds their survey gone (the copy withdrawn above).
    if let Ok(results) = stores.results_of(survey).await
        && matches!(results, std::borrow::Cow::Owned(_))
        && let Err(error) = results
            .catalog
            .surveys
            .delete_data(&survey.survey_ref())
            .await
    {
        tracing::warn!(survey = %survey.survey_ref(), error = %crate::telemetry::error_chain(&error), "the answers kept in the survey's region are left to that region's reconcile pass");
    }
    actor
        .record(app, AuditAction::SurveyDeleted, named(survey))
        .await
}
