//! A survey's life: creating it, revising its definition, publishing, closing and deleting
//! it, each with the audit entry it leaves.

use super::App;
use crate::domain::Question;
use crate::domain::Survey;
use crate::domain::audit::AuditAction;
use crate::domain::definition::quota::{QuotaInput, check_quotas};
use crate::domain::definition::{Definition, DefinitionErrors, SurveyInput};
use crate::domain::region::Residency;
use crate::domain::segment::{attribute_segments_problem, segment_keys};
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

/// A survey's definition as sent, checked: its own rules, that the regions it names are ones
/// this installation has, and that where its answers are kept suits its regions and, once it
/// was published, stays as it was (`current`: the survey it replaces, if any).
pub fn check(
    app: &App,
    input: &SurveyInput,
    current: Option<&Survey>,
    existing: &[Question],
) -> Result<Definition, DefinitionErrors> {
    let stores = app.stores();
    let definition = input.check(existing)?;
    let regions = &stores.regions;
    let mut errors = DefinitionErrors::new();
    for (at, name) in definition.regions.iter().enumerate() {
        if regions.get(name).is_some() {
            continue;
        }
        let problem = match regions.named() {
            false => "this installation has one region: leave regions out".to_owned(),
            true => format!(
                "{name} is not one of this installation's regions ({})",
                regions
                    .all()
                    .map(|region| region.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        };
        errors.insert(format!("regions[{at}]"), problem);
    }
    if let Some(problem) = residency_problem(app, &definition, current) {
        errors.insert("residency".into(), problem.into());
    }
    // Files are stored where they are uploaded and never move: a survey with a file question
    // is answered at home, or keeps its answers in the region that answers it.
    let files = definition
        .questions
        .iter()
        .any(|q| matches!(q.kind, crate::domain::QuestionKind::File { .. }));
    let away = answered_away(app, &definition.regions);
    if files && away && definition.residency == Residency::Home {
        errors.insert(
            "regions".into(),
            "a survey with a file question is answered in your home region, or keeps its \
             answers in the one region it is answered in (files stay where they are uploaded)"
                .into(),
        );
    }
    // Participants and their links are kept at home: a survey by invitation is answered there.
    let access = definition
        .access
        .or(current.map(|survey| survey.access))
        .unwrap_or_default();
    if access == crate::domain::participant::Access::Invitation && away {
        errors.insert("access".into(), INVITATION_AT_HOME.into());
    }
    // Whether the attributes named divide answers; their values are checked once the
    // survey's participants are known (`participant_problems`).
    let anonymous = definition
        .anonymous
        .or(current.map(|survey| survey.anonymous))
        .unwrap_or_default();
    let segmenting = definition
        .segment_attributes
        .as_deref()
        .or(current.map(|survey| survey.segment_attributes.as_slice()))
        .unwrap_or_default();
    if let Some(problem) = attribute_segments_problem(segmenting, anonymous, None) {
        errors.insert("segment_attributes".into(), problem);
    }
    match errors.is_empty() {
        true => Ok(definition),
        false => Err(errors),
    }
}

/// Why the survey cannot keep its answers where it asks to. Answers that stay in their region
/// are counted by that one region, so there must be exactly one; and once answers may exist,
/// moving where they are kept (or which region keeps them) would split them in two places.
fn residency_problem(
    app: &App,
    definition: &Definition,
    current: Option<&Survey>,
) -> Option<&'static str> {
    let stores = app.stores();
    let resident = definition.residency == Residency::Region;
    if resident && !stores.regions.named() {
        return Some("this installation has one region: leave residency out");
    }
    if resident && definition.regions.len() != 1 {
        return Some(
            "answers that stay in their region need exactly one region to be answered in: name one in regions",
        );
    }
    let current = current.filter(|survey| survey.published || survey.was_published)?;
    let was_resident = current.residency == Residency::Region;
    let moved = current.residency != definition.residency
        || ((resident || was_resident) && current.regions != definition.regions);
    moved.then_some(
        "where answers are kept, and for answers that stay in their region which region, cannot change once the survey was published: its answers would be split; duplicate it instead",
    )
}

/// What `definition` cannot change of `current` given its participants and answers: it
/// cannot be answered away from home with participants (their links are kept at home), its
/// anonymity cannot change once an answer was given, and its answers cannot be divided by a
/// participant attribute that takes more values than segments can be kept for.
pub async fn participant_problems(
    app: &App,
    current: &Survey,
    definition: &Definition,
) -> Result<Option<DefinitionErrors>, StoreError> {
    let stores = app.stores();
    let filed = current.survey_ref();
    if let Some(problem) = anonymity_problem(app, current, definition.anonymous).await? {
        return Ok(Some([("anonymous".to_owned(), problem.to_owned())].into()));
    }
    // Participants and their links are kept at home, where their links are answered.
    if answered_away(app, &definition.regions) && stores.participants.any(&filed).await? {
        return Ok(Some(
            [("regions".to_owned(), PARTICIPANTS_AT_HOME.to_owned())].into(),
        ));
    }
    let Some(names) = &definition.segment_attributes else {
        return Ok(None);
    };
    let index = stores.participants.attributes(&filed).await?;
    let anonymous = definition.anonymous.unwrap_or(current.anonymous);
    Ok(attribute_segments_problem(names, anonymous, index.as_ref())
        .map(|problem| [("segment_attributes".to_owned(), problem)].into()))
}

/// Why `current`'s anonymity cannot become `wanted`: answers were given under the choice it
/// has (counted, or through a personal link), and would not be what the new choice promises.
pub async fn anonymity_problem(
    app: &App,
    current: &Survey,
    wanted: Option<bool>,
) -> Result<Option<&'static str>, StoreError> {
    match wanted {
        Some(wanted) if wanted != current.anonymous && answers_given(app, current).await? => {
            Ok(Some(ANONYMITY_FIXED))
        }
        _ => Ok(None),
    }
}

/// Why a survey's anonymity no longer changes.
pub const ANONYMITY_FIXED: &str = "whether answers are anonymous is chosen before the first \
     answer: answers were given under the choice it has; duplicate the survey instead";

/// Whether any answer to `survey` was given: counted, or claimed through a personal link.
pub async fn answers_given(app: &App, survey: &Survey) -> Result<bool, StoreError> {
    let stores = app.stores();
    let filed = survey.survey_ref();
    if stores.participants.any_answer(&filed).await? {
        return Ok(true);
    }
    let results = stores.results_of(survey).await?;
    Ok(results.summaries.read(&filed).await?.doc.summary.total > 0)
}

/// Why a survey by invitation is answered at home.
const INVITATION_AT_HOME: &str = "a survey by invitation is answered in your home region, \
     where its participants are kept";

/// Sets who may answer `current` and, while no answer was given, whether its answers are
/// anonymous (`None`: as they are), under the rules every definition meets.
pub async fn set_access(
    app: &App,
    current: &Survey,
    access: crate::domain::participant::Access,
    anonymous: Option<bool>,
) -> Result<Result<Survey, DefinitionErrors>, StoreError> {
    let invitation = access == crate::domain::participant::Access::Invitation;
    if invitation && answered_away(app, &current.regions) {
        return Ok(Err(
            [("access".to_owned(), INVITATION_AT_HOME.to_owned())].into()
        ));
    }
    if let Some(problem) = anonymity_problem(app, current, anonymous).await? {
        return Ok(Err([("anonymous".to_owned(), problem.to_owned())].into()));
    }
    let mut definition = current.definition();
    definition.access = Some(access);
    if let Some(anonymous) = anonymous {
        definition.anonymous = Some(anonymous);
    }
    revise(app, current, definition).await.map(Ok)
}

/// Whether publishing `survey` should first ask whether its answers are anonymous: it is for
/// known people (by invitation, or with participants) and no answer fixed the choice yet.
pub async fn asks_anonymity(app: &App, survey: &Survey) -> Result<bool, StoreError> {
    let stores = app.stores();
    let for_people = survey.access == crate::domain::participant::Access::Invitation
        || stores.participants.any(&survey.survey_ref()).await?;
    Ok(for_people && !answers_given(app, survey).await?)
}

/// Why a survey with participants stays at home.
pub const PARTICIPANTS_AT_HOME: &str = "a survey with participants is answered in your home \
     region, where their personal links are kept: remove its participants first";

/// Why participants are not added to a survey answered away from home.
pub const PARTICIPANTS_AT_HOME_ADDING: &str = "participants and their personal links are kept \
     in your home region, and this survey is answered in another: answer it at home to invite \
     participants";

/// Whether a survey naming `regions` is answered away from this (its home) region.
pub fn answered_away(app: &App, regions: &[crate::domain::region::RegionName]) -> bool {
    let stores = app.stores();
    regions.iter().any(|name| !stores.regions.is_here(name))
}

/// A tenant's survey, as it is now.
pub async fn own(
    app: &App,
    tenant: &crate::domain::TenantSlug,
    slug: &crate::domain::SurveySlug,
) -> Result<Option<std::sync::Arc<Survey>>, StoreError> {
    app.stores().surveys.get(tenant, slug).await
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
    let slugs = stores.surveys.slugs(tenant).await?;
    let mut surveys = Vec::new();
    for slug in slugs.iter().skip(first).take(count) {
        if let Some(survey) = stores.surveys.get(tenant, slug).await? {
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
    app.stores().surveys.fresh(tenant, slug).await
}

/// Every question `survey` has asked, in any of its versions: how an answer to a question
/// since removed is still named, and how a retyped question gets a new id.
pub async fn known_questions(app: &App, survey: &Survey) -> Result<Vec<Question>, StoreError> {
    app.stores().surveys.known_questions(survey).await
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
    definition: Definition,
) -> Result<Option<Survey>, StoreError> {
    let stores = app.stores();
    let Some(created) = stores.surveys.create(actor.tenant, definition).await? else {
        return Ok(None);
    };
    actor
        .record(app, AuditAction::SurveyCreated, named(&created))
        .await?;
    Ok(Some(created))
}

/// A new draft with `survey`'s questions, pages, logic and texts, titled "Copy of ...";
/// `None` when the tenant already has its most surveys.
pub async fn duplicate(
    app: &App,
    actor: Actor<'_>,
    survey: &Survey,
) -> Result<Option<Survey>, StoreError> {
    let stores = app.stores();
    let copy = survey.copy(time::OffsetDateTime::now_utc());
    let Some(copy) = stores.surveys.create(&survey.tenant, copy).await? else {
        return Ok(None);
    };
    actor
        .record(
            app,
            AuditAction::SurveyCreated,
            format!("{}, a copy of {}", named(&copy), survey.slug),
        )
        .await?;
    Ok(Some(copy))
}

/// Replaces a survey's definition (a published survey starts a new version) and has its
/// segments follow when its segment questions (or its languages) change.
pub async fn revise(
    app: &App,
    current: &Survey,
    definition: Definition,
) -> Result<Survey, StoreError> {
    let stores = app.stores();
    let survey = stores.surveys.revise(current, definition).await?;
    super::hosting::push(app, &survey, Some(current)).await?;
    // Its participants' openings were timed: now they are not (their answers' are never).
    if survey.anonymous && !current.anonymous {
        stores
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
        results.segments.request(&survey.survey_ref()).await?;
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
    revise(app, current, definition).await.map(Ok)
}

/// Opens a survey to respondents.
pub async fn publish(app: &App, actor: Actor<'_>, survey: &Survey) -> Result<Survey, PublishError> {
    let stores = app.stores();
    if let Some(problem) = survey.publish_problem() {
        return Err(PublishError::Incomplete(problem));
    }
    let published = stores.surveys.set_published(survey, true).await?;
    super::hosting::push(app, &published, None).await?;
    actor
        .record(app, AuditAction::SurveyPublished, named(survey))
        .await?;
    Ok(published)
}

/// Closes a survey to respondents; its answers stay.
pub async fn unpublish(app: &App, actor: Actor<'_>, survey: &Survey) -> Result<Survey, StoreError> {
    let stores = app.stores();
    let unpublished = stores.surveys.set_published(survey, false).await?;
    super::hosting::push(app, &unpublished, None).await?;
    actor
        .record(app, AuditAction::SurveyUnpublished, named(survey))
        .await?;
    Ok(unpublished)
}

/// Deletes a survey and every answer to it.
pub async fn delete(app: &App, actor: Actor<'_>, survey: &Survey) -> Result<(), StoreError> {
    let stores = app.stores();
    stores.surveys.delete(survey).await?;
    super::hosting::withdraw(app, survey).await?;
    // Answers kept in their region go there too. A region out of reach keeps them until its
    // workers' reconcile pass finds their survey gone (the copy withdrawn above).
    if let Ok(results) = stores.results_of(survey).await
        && matches!(results, std::borrow::Cow::Owned(_))
        && let Err(error) = results.surveys.delete_data(&survey.survey_ref()).await
    {
        tracing::warn!(survey = %survey.survey_ref(), error = %crate::telemetry::error_chain(&error), "the answers kept in the survey's region are left to that region's reconcile pass");
    }
    actor
        .record(app, AuditAction::SurveyDeleted, named(survey))
        .await
}
