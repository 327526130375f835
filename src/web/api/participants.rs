//! `/api/v1/surveys/{slug}/participants`: a survey's known people, added in bulk (all or
//! none), paged through in email order, removed one by one.

use actix_web::{HttpRequest, HttpResponse, web};
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;
use utoipa::{IntoParams, ToSchema};

use super::error::ErrorBody;
use super::surveys::{SlugPath, find};
use super::{ApiCaller, ApiError, JsonBody};
use crate::domain::participant::{
    GivenParticipant, Moment, Participant, ParticipantStatus, search_prefix,
};
use crate::service::participants::{self as service, Refusal};
use crate::web::State;
use crate::web::roles::Editor;

/// Participants a page.
const PER_PAGE: usize = 100;

/// What `POST .../participants` takes.
#[derive(Deserialize, ToSchema)]
pub struct NewParticipants {
    /// The people to add (at least one; within the API's 1 MiB body).
    participants: Vec<GivenParticipant>,
}

/// A participant as the API shows it.
#[derive(Serialize, ToSchema)]
pub struct ParticipantView {
    /// Its id.
    id: String,
    /// Their email address (lowercased).
    email: String,
    first_name: Option<String>,
    last_name: Option<String>,
    /// The survey's language they get, if one was given.
    #[schema(value_type = Option<String>)]
    language: Option<String>,
    /// The owner's own attributes.
    attributes: std::collections::BTreeMap<String, String>,
    /// Where they stand.
    status: ParticipantStatus,
    /// Their personal link: it opens the survey for them, once.
    link: String,
    /// When they were added.
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    added: OffsetDateTime,
    /// When they first opened their link, if they have (never for a survey whose answers are
    /// anonymous, which keeps no such time: `status` says how far they got).
    #[serde(with = "time::serde::rfc3339::option")]
    #[schema(value_type = Option<String>, format = DateTime)]
    started: Option<OffsetDateTime>,
    /// When their answer was sent, if it was (never for a survey whose answers are anonymous).
    #[serde(with = "time::serde::rfc3339::option")]
    #[schema(value_type = Option<String>, format = DateTime)]
    finished: Option<OffsetDateTime>,
    /// When their invitation was emailed, if it was.
    #[serde(with = "time::serde::rfc3339::option")]
    #[schema(value_type = Option<String>, format = DateTime)]
    invited: Option<OffsetDateTime>,
    /// Reminders emailed to them.
    reminded: u32,
    /// When they asked for no more email from the tenant, if they did.
    #[serde(with = "time::serde::rfc3339::option")]
    #[schema(value_type = Option<String>, format = DateTime)]
    opted_out: Option<OffsetDateTime>,
    /// When their mail server refused a message for good, if it did.
    #[serde(with = "time::serde::rfc3339::option")]
    #[schema(value_type = Option<String>, format = DateTime)]
    bounced: Option<OffsetDateTime>,
}

impl ParticipantView {
    fn of(participant: Participant, survey_url: &str) -> Self {
        Self {
            status: participant.status(),
            link: crate::links::personal(survey_url, &participant.link),
            id: participant.id,
            email: participant.person.email.as_str().to_owned(),
            first_name: participant.person.first_name,
            last_name: participant.person.last_name,
            language: participant.person.language.map(String::from),
            attributes: participant.person.attributes,
            added: participant.added,
            started: participant.started.and_then(Moment::at),
            finished: participant.finished.and_then(Moment::at),
            invited: participant.mail.invited,
            reminded: participant.mail.reminded,
            opted_out: participant.mail.opted_out,
            bounced: participant.mail.bounced,
        }
    }
}

/// Participants just added.
#[derive(Serialize, ToSchema)]
pub struct Added {
    /// Each, in the order given.
    participants: Vec<ParticipantView>,
}

/// One page of participants.
#[derive(Serialize, ToSchema)]
pub struct ParticipantPage {
    /// Up to 100, in email order.
    participants: Vec<ParticipantView>,
    /// Pass as `after` for the next page; null on the last.
    next: Option<String>,
}

/// Which page to read.
#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct PageQuery {
    /// Only addresses starting with this (at most 254 characters).
    search: Option<String>,
    /// The `next` of the page before (at most 1,024 characters).
    after: Option<String>,
}

/// The survey and participant a path names.
#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Path)]
pub struct ParticipantPath {
    /// The survey's slug.
    slug: String,
    /// The participant's id.
    id: String,
}

/// `POST /api/v1/surveys/{slug}/participants`: adds them all, or none (422 naming each bad
/// one by its place in the list, from 1).
#[utoipa::path(post, path = "/api/v1/surveys/{slug}/participants", operation_id = "add_participants",
    summary = "Add participants to a survey, all or none", tag = "participants",
    params(SlugPath), request_body = NewParticipants,
    responses(
        (status = 201, description = "Added, each with its id and personal link", body = Added),
        (status = 422, description = "Some are not valid or listed already: none was added", body = ErrorBody),
    ))]
pub async fn add(
    state: State,
    request: HttpRequest,
    caller: ApiCaller<Editor>,
    slug: web::Path<String>,
    body: JsonBody<NewParticipants>,
) -> Result<HttpResponse, ApiError> {
    let survey = find(&state, &caller.tenant, &slug).await?;
    let given = body.0.participants.into_iter().enumerate();
    let given = given.map(|(at, one)| (at + 1, one)).collect();
    let added = service::add(&state.app, &survey, given)
        .await?
        .map_err(|refusal| refused(&refusal))?;
    let url = state.survey_url(&request, &survey.tenant, &survey.slug);
    Ok(HttpResponse::Created().json(Added {
        participants: added
            .into_iter()
            .map(|participant| ParticipantView::of(participant, &url))
            .collect(),
    }))
}

/// A refusal as the API's 422: each problem under `participants[N]`.
fn refused(refusal: &Refusal) -> ApiError {
    let fields = match refusal {
        Refusal::Rows(problems) => problems
            .iter()
            .map(|problem| {
                let at = problem.row - 1;
                (format!("participants[{at}]"), problem.problem.to_string())
            })
            .collect(),
        _ => Default::default(),
    };
    ApiError::Invalid {
        reason: refusal.to_string(),
        fields,
    }
}

/// `GET /api/v1/surveys/{slug}/participants?search=&after=`: 100 a page, in email order.
#[utoipa::path(get, path = "/api/v1/surveys/{slug}/participants", operation_id = "list_participants",
    summary = "Page through a survey's participants", tag = "participants",
    params(SlugPath, PageQuery),
    responses((status = 200, description = "One page", body = ParticipantPage)))]
pub async fn list(
    state: State,
    request: HttpRequest,
    caller: ApiCaller<Editor>,
    slug: web::Path<String>,
    query: web::Query<PageQuery>,
) -> Result<HttpResponse, ApiError> {
    let survey = find(&state, &caller.tenant, &slug).await?;
    let query = query.into_inner();
    let after = super::checked_token(query.after).map_err(ApiError::BadRequest)?;
    let search = search_prefix(query.search.as_deref().unwrap_or_default())
        .map_err(|problem| ApiError::BadRequest(problem.to_owned()))?;
    let (search, after) = (search.as_deref(), after.as_deref());
    let page = service::page(&state.app, &survey, search, after, PER_PAGE).await?;
    let url = state.survey_url(&request, &survey.tenant, &survey.slug);
    Ok(HttpResponse::Ok().json(ParticipantPage {
        participants: page
            .participants
            .into_iter()
            .map(|participant| ParticipantView::of(participant, &url))
            .collect(),
        next: page.next,
    }))
}

/// `DELETE /api/v1/surveys/{slug}/participants/{id}`: 204; their link stops working.
#[utoipa::path(delete, path = "/api/v1/surveys/{slug}/participants/{id}", operation_id = "remove_participant",
    summary = "Remove a participant (their link stops working)", tag = "participants",
    params(ParticipantPath),
    responses((status = 204, description = "Removed")))]
pub async fn remove(
    state: State,
    caller: ApiCaller<Editor>,
    path: web::Path<ParticipantPath>,
) -> Result<HttpResponse, ApiError> {
    let ParticipantPath { slug, id } = path.into_inner();
    let survey = find(&state, &caller.tenant, &slug).await?;
    match service::remove(&state.app, &survey, &id).await? {
        true => Ok(HttpResponse::NoContent().finish()),
        false => Err(ApiError::NotFound),
    }
}
