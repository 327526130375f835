//! `/api/v1/surveys/{slug}/mailings`: invitations and reminders emailed to a survey's
//! participants, started here and followed as they go out, with the participants' totals.

use actix_web::{HttpResponse, web};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use super::error::ErrorBody;
use super::surveys::{SlugPath, find};
use super::{ApiCaller, ApiError, JsonBody};
use crate::domain::mailing::{Mailing, MailingKind};
use crate::service::mailings as service;
use crate::service::participants::Totals;
use crate::web::State;
use crate::web::roles::Editor;

/// What `POST .../mailings` takes.
#[derive(Deserialize, ToSchema)]
pub struct NewMailing {
    /// `invitation` (to participants never invited) or `reminder` (to those invited who
    /// have not answered); never to those who opted out or bounced.
    kind: MailingKind,
}

/// A survey's mailings and where its participants stand.
#[derive(Serialize, ToSchema)]
pub struct Mailings {
    /// The latest first.
    mailings: Vec<Mailing>,
    totals: Totals,
}

/// The survey and mailing a path names.
#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Path)]
pub struct MailingPath {
    /// The survey's slug.
    slug: String,
    /// The mailing's id.
    id: String,
}

/// `POST /api/v1/surveys/{slug}/mailings`: 202, the mailing; workers send it.
#[utoipa::path(post, path = "/api/v1/surveys/{slug}/mailings", operation_id = "start_mailing",
    summary = "Email invitations or reminders to a survey's participants", tag = "participants",
    params(SlugPath), request_body = NewMailing,
    responses(
        (status = 202, description = "Started: workers send it, at most the operator's rate a second", body = Mailing),
        (status = 409, description = "Email is not set up, the survey is not published, it has no participants, or a mailing is being sent", body = ErrorBody),
    ))]
pub async fn start(
    state: State,
    caller: ApiCaller<Editor>,
    slug: web::Path<String>,
    body: JsonBody<NewMailing>,
) -> Result<HttpResponse, ApiError> {
    let survey = find(&state, &caller.tenant, &slug).await?;
    let mail = state.mail_links().is_some();
    match service::start(&state.app, caller.actor(), &survey, body.0.kind, mail).await? {
        Ok(mailing) => Ok(HttpResponse::Accepted().json(mailing)),
        Err(refusal) => Err(ApiError::Conflict(refusal.to_string())),
    }
}

/// `GET /api/v1/surveys/{slug}/mailings`: every mailing, and the participants' totals.
#[utoipa::path(get, path = "/api/v1/surveys/{slug}/mailings", operation_id = "list_mailings",
    summary = "A survey's mailings and its participants' totals", tag = "participants",
    params(SlugPath),
    responses((status = 200, description = "The mailings, the latest first", body = Mailings)))]
pub async fn list(
    state: State,
    caller: ApiCaller<Editor>,
    slug: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let survey = find(&state, &caller.tenant, &slug).await?;
    Ok(HttpResponse::Ok().json(Mailings {
        mailings: service::list(&state.app, &survey).await?,
        totals: crate::service::participants::totals(&state.app, &survey).await?,
    }))
}

/// `GET /api/v1/surveys/{slug}/mailings/{id}`: one mailing, as far as it got.
#[utoipa::path(get, path = "/api/v1/surveys/{slug}/mailings/{id}", operation_id = "get_mailing",
    summary = "One mailing and how far it got", tag = "participants",
    params(MailingPath),
    responses(
        (status = 200, description = "The mailing", body = Mailing),
        (status = 404, description = "No such mailing", body = ErrorBody),
    ))]
pub async fn one(
    state: State,
    caller: ApiCaller<Editor>,
    path: web::Path<MailingPath>,
) -> Result<HttpResponse, ApiError> {
    let MailingPath { slug, id } = path.into_inner();
    let survey = find(&state, &caller.tenant, &slug).await?;
    match service::get(&state.app, &survey, &id).await? {
        Some(mailing) => Ok(HttpResponse::Ok().json(mailing)),
        None => Err(ApiError::NotFound),
    }
}
