//! Answering a survey: the use cases behind the respondents' site, and behind any other entry
//! point that takes answers (an API route, an offline sync, an import). Who may answer through
//! a personal link, where a survey's answers and quota places go from this region, a full
//! quota met on the way, saving to continue later, files, and the submission itself, with the
//! write order the guarantees rest on (docs/guarantees.md, "The answer path").

use std::collections::{BTreeMap, BTreeSet, HashSet};

use time::OffsetDateTime;

use super::App;
use crate::crash;
use crate::domain::hidden::HiddenValues;
use crate::domain::language::LanguageTag;
use crate::domain::participant::{Access, Moment, Participant};
use crate::domain::progress::{ResumeId, SavedProgress};
use crate::domain::quota::{Quota, QuotaId, WhenFull, met};
use crate::domain::region::{RegionName, Residency};
use crate::domain::{
    Answer, AnswerValue, QuestionId, Reference, SubmissionToken, Survey, SurveyRef, Tenant,
    TokenError,
};
use crate::stores::StoreError;
use crate::stores::participants::{AnswerClaim, LinkState, Mark};
pub use crate::stores::progress::SaveError;
use crate::stores::quotas::{Claim, QuotaStore};

/// Where a survey's answers go from this region.
#[derive(Clone, Debug, Default)]
pub struct Route {
    /// The tenant's home, when it lives in another region (its surveys hosted here).
    pub home: Option<RegionName>,
    /// Whether the answers move home from here (else they are counted here).
    pub moves_home: bool,
}

/// Where `survey` of `tenant` sends its answers and keeps its quota places, from here.
pub async fn route_of(app: &App, tenant: &Tenant, survey: &Survey) -> Result<Route, StoreError> {
    let stores = app.stores();
    if !stores.residency.regions.named()
        || stores.catalog.tenants.get(&tenant.slug).await?.is_some()
    {
        return Ok(Route::default());
    }
    let hosted = stores.residency.hosted.tenant(&tenant.slug).await?;
    Ok(Route {
        home: hosted.map(|hosted| hosted.home.clone()),
        moves_home: survey.residency != Residency::Region,
    })
}

/// Who may answer a form that carries a personal link.
pub enum Admission {
    /// Anyone: an open survey, and no personal link.
    Anyone,
    /// A participant, through their link, not answered yet.
    Participant(Participant),
    /// A participant whose answer is being sent, or whose send failed or was cut off, under
    /// this reference: their form is that answer.
    Pinned(Participant, Reference),
    /// A participant whose link answered already (or is answering under another reference).
    Answered(Participant),
    /// A survey by invitation, reached without a personal link.
    InvitationOnly,
    /// A link that is no participant's of this survey.
    UnknownLink,
}

/// Who may answer the form of `survey` that carries the personal link `link` (empty for
/// none), for the answer `reference` (`None` when the form is only being opened): a link that
/// answered, or whose answer is being sent, admits only that same answer, sent again (and
/// opens a form for it).
pub async fn admit(
    app: &App,
    survey: &Survey,
    link: &str,
    reference: Option<Reference>,
) -> Result<Admission, StoreError> {
    let stores = app.stores();
    if link.is_empty() {
        return Ok(match survey.access {
            Access::Invitation => Admission::InvitationOnly,
            Access::Open => Admission::Anyone,
        });
    }
    let found = stores
        .panel
        .participants
        .by_link(&survey.survey_ref(), link)
        .await?;
    Ok(match found {
        LinkState::Open(participant) => Admission::Participant(participant),
        // Its answer is being sent, or its send failed or was cut off: opening the link gives
        // a form for that same answer, and that form may be sent (again).
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
            Admission::Answered(participant)
        }
        LinkState::Unknown => Admission::UnknownLink,
    })
}

/// The participant whose personal link `link` is, answered or not (a saved form reopened, an
/// opt-out); `None` for a link of nobody.
pub async fn participant_of(
    app: &App,
    survey: &Survey,
    link: &str,
) -> Result<Option<Participant>, StoreError> {
    let stores = app.stores();
    let found = stores
        .panel
        .participants
        .by_link(&survey.survey_ref(), link)
        .await?;
    Ok(found.participant())
}

/// Records that a participant opened their link for the first time (one write, once). Only
/// the list's status depends on it, so a failure is logged.
pub async fn opened_by(app: &App, survey: &Survey, participant: &Participant) {
    let stores = app.stores();
    if participant.started.is_some() {
        return;
    }
    let now = Moment::now(survey.anonymous);
    let filed = survey.survey_ref();
    let store = &stores.panel.participants;
    let first = |p: &mut Participant| {
        p.started.get_or_insert(now);
    };
    let recorded = async {
        store
            .set_mark(&filed, Mark::Started, &participant.id)
            .await?;
        store.change(&filed, &participant.id, first).await
    };
    if let Err(error) = recorded.await {
        tracing::warn!(%error, survey = %survey.slug, "a participant's start was not recorded");
    }
}

/// A fresh form's signed token: for a new answer, or for the one a personal link is pinned to.
pub async fn new_token(
    app: &App,
    survey: &Survey,
    pinned: Option<Reference>,
) -> Result<String, StoreError> {
    let stores = app.stores();
    let reference = match pinned {
        Some(reference) => reference,
        None => stores.answering.references.next().await?,
    };
    let token = SubmissionToken {
        reference,
        survey: survey.survey_ref(),
    };
    Ok(token.sign(&stores.answering.signing_key))
}

/// The token a posted form carries, if it was signed here for `survey`.
pub fn check_token(app: &App, survey: &Survey, token: &str) -> Result<SubmissionToken, TokenError> {
    let stores = app.stores();
    SubmissionToken::verify(&stores.answering.signing_key, token, &survey.survey_ref())
}

/// The quota places of `survey` on its route.
async fn places_of(app: &App, route: &Route, survey: &Survey) -> Result<QuotaStore, StoreError> {
    let stores = app.stores();
    stores.quota_places(survey, route.home.as_ref()).await
}

/// The full quota that ends a respondent whose pages so far (`shown`) gave `values`, if any:
/// one that ends respondents, that their answers meet, that no later page can change, and
/// that seems full.
pub async fn ends_early<'a>(
    app: &App,
    route: &Route,
    survey: &'a Survey,
    shown: &[usize],
    values: &BTreeMap<QuestionId, AnswerValue>,
) -> Result<Option<&'a Quota>, StoreError> {
    if survey.quotas.is_empty() {
        return Ok(None);
    }
    let asked: HashSet<&QuestionId> = shown
        .iter()
        .flat_map(|&page| survey.step_questions(page))
        .map(|question| &question.id)
        .collect();
    let filed = survey.survey_ref();
    let mut quotas = None;
    for quota in met(&survey.quotas, values) {
        if quota.full != WhenFull::End || !quota.decided_by(&asked) {
            continue;
        }
        let quotas = match &mut quotas {
            Some(quotas) => quotas,
            None => quotas.insert(places_of(app, route, survey).await?),
        };
        if quotas.seems_full(&filed, &quota.id, quota.limit).await? {
            return Ok(Some(quota));
        }
    }
    Ok(None)
}

/// An answer to be sent: the form's reference, the answers its walk kept, and who sent it.
pub struct Submission<'a> {
    pub tenant: &'a Tenant,
    pub survey: &'a Survey,
    pub route: Route,
    /// The form's reference (its token's).
    pub reference: Reference,
    pub values: BTreeMap<QuestionId, AnswerValue>,
    /// The questions its logic hid from the respondent.
    pub skipped: BTreeSet<QuestionId>,
    /// The survey's hidden fields as the respondent's address gave them.
    pub hidden: HiddenValues,
    /// The orders drawn for the respondent, as they were shown.
    pub order: crate::domain::order::Order,
    /// The language it was given in.
    pub language: Option<LanguageTag>,
    /// The participant answering through their personal link.
    pub participant: Option<&'a Participant>,
    /// The progress it was resumed from (forgotten once it is sent, or ended).
    pub resume: Option<ResumeId>,
    /// What the survey computed from it (variables, score, ending).
    pub outcome: crate::domain::calculation::Outcome,
}

/// The answers so far of a respondent leaving a page, for a survey that keeps partial
/// responses.
pub struct SoFar<'a> {
    pub tenant: &'a Tenant,
    pub survey: &'a Survey,
    /// The form's reference (its token's).
    pub reference: Reference,
    /// The walk through the pages left so far: the answers it kept, the questions it hid.
    pub walk: &'a crate::domain::walk::Walk,
    pub hidden: &'a HiddenValues,
    pub language: Option<LanguageTag>,
    pub participant: Option<&'a Participant>,
}

/// Keeps a respondent's answers so far as their partial response (one storage write, for a
/// survey that keeps them; nothing for one that does not). A failure is logged, not shown:
/// the respondent's own answer path goes on.
pub async fn keep_partial(app: &App, so_far: SoFar<'_>) {
    let survey = so_far.survey;
    if !survey.keep_partial {
        return;
    }
    let answer = Answer {
        tenant: so_far.tenant.slug.clone(),
        survey: survey.slug.clone(),
        survey_id: survey.id.clone(),
        survey_version: survey.version,
        reference: so_far.reference,
        submitted_at: survey.answer_time(OffsetDateTime::now_utc()),
        values: so_far.walk.values.clone(),
        // Only the questions of pages passed: those after are not skipped, just not reached.
        skipped: BTreeSet::new(),
        hidden: so_far.hidden.clone(),
        order: Default::default(),
        language: so_far.language,
        over_quota: BTreeSet::new(),
        variables: BTreeMap::new(),
        score: None,
        correct: None,
        ending: None,
        participant: so_far
            .participant
            .filter(|_| !survey.anonymous)
            .map(|participant| Box::new(participant.respondent())),
        partial: true,
    };
    let stores = app.stores();
    if let Err(error) = stores
        .answering
        .partials
        .keep(&survey.survey_ref(), &answer)
        .await
    {
        tracing::warn!(error = %crate::telemetry::error_chain(&error), %survey.slug, "keeping a partial response failed");
    }
}

/// Forgets the partial response of a form once it is sent (a survey that keeps them).
async fn forget_partial(app: &App, survey: &Survey, reference: Reference) {
    if !survey.keep_partial {
        return;
    }
    let partials = &app.stores().answering.partials;
    if let Err(error) = partials.forget(&survey.survey_ref(), reference).await {
        tracing::warn!(error = %crate::telemetry::error_chain(&error), %survey.slug, "forgetting a partial response failed");
    }
}

/// What became of a submission.
pub enum Submitted<'a> {
    /// Queued: the respondent is thanked with this reference.
    Thanked(Reference),
    /// Ended by this full quota: not kept.
    Ended(&'a Quota),
    /// Its personal link answered already, or is answering under another reference.
    LinkAnswered,
}

/// Sends an answer. The write order the guarantees rest on: everything written before the
/// answer's one durable queue write leaves the same form free to be sent again whatever fails
/// after it. The link's claim pins the link to this reference (never undone: the form sent
/// again is the same answer, counted once by reference); quota places are counted per send
/// and given back when the queue write fails. The claim comes first, so other forms of one
/// link are turned away before they take a quota place.
pub async fn submit<'a>(
    app: &App,
    submission: Submission<'a>,
) -> Result<Submitted<'a>, StoreError> {
    let stores = app.stores();
    let (survey, reference) = (submission.survey, submission.reference);
    if let Some(participant) = submission.participant {
        if !claim(app, survey, participant, reference).await? {
            return Ok(Submitted::LinkAnswered);
        }
        crash::reached(crash::Point::AfterClaim);
    }
    let places = match place(app, &submission, reference).await? {
        Placed::Kept(places) => places,
        Placed::Ended(quota) => {
            forget_progress(app, survey, submission.resume.as_ref()).await;
            return Ok(Submitted::Ended(quota));
        }
    };
    if !survey.quotas.is_empty() {
        crash::reached(crash::Point::AfterPlaces);
    }
    let answer = Answer {
        tenant: submission.tenant.slug.clone(),
        survey: survey.slug.clone(),
        survey_id: survey.id.clone(),
        survey_version: survey.version,
        reference,
        // To the day when answers are anonymous.
        submitted_at: survey.answer_time(OffsetDateTime::now_utc()),
        values: submission.values,
        skipped: submission.skipped,
        hidden: submission.hidden,
        order: submission.order,
        // Kept for every survey: one that gains a language later segments its earlier
        // answers by the language they were given in.
        language: submission.language,
        over_quota: places.over.clone(),
        variables: submission.outcome.variables,
        score: submission.outcome.score,
        correct: submission.outcome.correct,
        ending: submission.outcome.ending,
        // Named, unless its survey's answers are anonymous.
        participant: submission
            .participant
            .filter(|_| !survey.anonymous)
            .map(|participant| Box::new(participant.respondent())),
        partial: false,
    };
    let queues = &stores.answering.queues;
    let queued = match submission.route.moves_home {
        true => queues.submit_for_transfer(&answer).await,
        false => queues.submit(&answer, submission.tenant.subscription).await,
    };
    if let Err(error) = queued {
        places.give_back(survey, reference).await;
        return Err(error);
    }
    crash::reached(crash::Point::AfterQueue);
    if let Some(participant) = submission.participant {
        sent(app, survey, participant, reference).await;
    }
    crate::telemetry::metrics::submission(submission.tenant.subscription);
    forget_progress(app, survey, submission.resume.as_ref()).await;
    // After the queue write: a partial response outlives a failed send, never a sent one's
    // answer.
    forget_partial(app, survey, reference).await;
    Ok(Submitted::Thanked(reference))
}

/// Claims a participant's one answer for `reference` before it is queued: whether it is
/// theirs (claimed now, or the same form sent again).
async fn claim(
    app: &App,
    survey: &Survey,
    participant: &Participant,
    reference: Reference,
) -> Result<bool, StoreError> {
    let stores = app.stores();
    let filed = survey.survey_ref();
    let claimed = stores
        .panel
        .participants
        .claim_answer(&filed, &participant.id, reference)
        .await?;
    Ok(matches!(
        claimed,
        AnswerClaim::Sending(claimed) | AnswerClaim::Sent(Some(claimed)) if claimed == reference
    ))
}

/// Records that a participant's answer was queued: the claim settled (named, or for an
/// anonymous survey no longer holding its reference) and the time (or not) on their record.
/// The claim already holds their link to this one answer, so a failure is logged: the link
/// stays pinned to it, and its form is sent again as the same answer.
async fn sent(app: &App, survey: &Survey, participant: &Participant, reference: Reference) {
    let stores = app.stores();
    let filed = survey.survey_ref();
    let store = &stores.panel.participants;
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

/// Where an answer's quotas leave it.
enum Placed<'a> {
    Kept(Places),
    Ended(&'a Quota),
}

/// The places one send of an answer holds.
#[derive(Default)]
struct Places {
    /// The quotas it is kept over (those that count answers once full).
    over: BTreeSet<QuotaId>,
    /// The quotas it took a place in, and the store that keeps them.
    taken: Vec<QuotaId>,
    kept: Option<QuotaStore>,
}

impl Places {
    /// Gives the places back: this send's answer was not queued. A failure is logged (the
    /// place then stays taken by no answer: the quota closes one place early).
    async fn give_back(self, survey: &Survey, reference: Reference) {
        let Some(kept) = self.kept else {
            return;
        };
        let filed = survey.survey_ref();
        for quota in &self.taken {
            if let Err(error) = kept.let_go(&filed, quota, reference).await {
                tracing::warn!(%error, survey = %survey.slug, %quota, "a quota place was not given back");
            }
        }
    }
}

/// Claims a place for a send of the answer `reference` in each quota its values meet. A full
/// quota that ends respondents gives back the places already taken and ends this one.
async fn place<'a>(
    app: &App,
    submission: &Submission<'a>,
    reference: Reference,
) -> Result<Placed<'a>, StoreError> {
    let survey = submission.survey;
    // Most surveys have none: the answer path stays as it was.
    if survey.quotas.is_empty() {
        return Ok(Placed::Kept(Places::default()));
    }
    let filed = survey.survey_ref();
    let quotas = places_of(app, &submission.route, survey).await?;
    let (mut taken, mut over) = (Vec::new(), BTreeSet::new());
    for quota in met(&survey.quotas, &submission.values) {
        let claimed = quotas
            .claim(&filed, &quota.id, quota.limit, reference)
            .await;
        match claimed {
            Ok(Claim::Placed(_)) => taken.push(quota.id.clone()),
            Ok(Claim::Full) if quota.full == WhenFull::Count => {
                over.insert(quota.id.clone());
            }
            refused => {
                let places = Places {
                    over,
                    taken,
                    kept: Some(quotas),
                };
                places.give_back(survey, reference).await;
                return match refused {
                    Err(error) => Err(error),
                    Ok(_) => Ok(Placed::Ended(quota)),
                };
            }
        }
    }
    Ok(Placed::Kept(Places {
        over,
        taken,
        kept: Some(quotas),
    }))
}

/// Saves a form's progress to continue later under `id`.
pub async fn save_progress(
    app: &App,
    survey: &Survey,
    id: &ResumeId,
    progress: &SavedProgress,
) -> Result<(), SaveError> {
    let stores = app.stores();
    stores
        .answering
        .progress
        .save(&survey.survey_ref(), id, progress)
        .await
}

/// The progress saved under `id`, if its link still works: the survey still offering to
/// continue later, the progress there and within its time.
pub async fn saved_progress(
    app: &App,
    survey: &Survey,
    id: &str,
) -> Result<Option<(ResumeId, SavedProgress)>, StoreError> {
    let stores = app.stores();
    let (Some(id), Some(days)) = (ResumeId::parse(id), survey.resume_days) else {
        return Ok(None);
    };
    if !survey.offers_resume() {
        return Ok(None);
    }
    let progress = stores
        .answering
        .progress
        .load(&survey.survey_ref(), &id)
        .await?;
    Ok(progress
        .filter(|progress| progress.is_current(days, OffsetDateTime::now_utc()))
        .map(|progress| (id, progress)))
}

/// Deletes the progress a sent (or ended) form was resumed from: its link stops working. A
/// failure is only logged: the answers are already queued, and the link's form, sent again,
/// is the same answer (its token's reference), counted once; the progress expires in its time.
pub async fn forget_progress(app: &App, survey: &Survey, resume: Option<&ResumeId>) {
    let stores = app.stores();
    let Some(id) = resume else {
        return;
    };
    if let Err(error) = stores
        .answering
        .progress
        .delete(&survey.survey_ref(), id)
        .await
    {
        tracing::warn!(error = %crate::telemetry::error_chain(&error), %survey.slug, "deleting saved progress after sending failed");
    }
}

/// Stores an uploaded file for the answer `reference` (create-only: its id is drawn at random).
pub async fn keep_file(
    app: &App,
    survey: &SurveyRef,
    (reference, question, id): (Reference, &str, &str),
    bytes: bytes::Bytes,
) -> Result<(), StoreError> {
    let stores = app.stores();
    stores
        .answering
        .uploads
        .put(survey, reference, question, id, bytes)
        .await
}

/// Emails a respondent the link to their saved answers (queued; a worker sends it).
pub async fn email_resume_link(app: &App, mail: &crate::mail::Mail) -> Result<(), StoreError> {
    app.stores().panel.mail.send(mail).await
}
