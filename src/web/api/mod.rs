//! The JSON API under `/api/v1`, authenticated by per-tenant API keys sent as
//! `Authorization: Bearer`. Every route works on the caller's tenant only: another tenant's
//! survey is simply not found.

mod audit;
mod auth;
mod body;
mod document;
mod dropoff;
mod error;
mod mailings;
mod openapi;
mod participants;
mod quotas;
mod surveys;
mod webhooks;

pub use audit::checked_token;
pub use auth::ApiCaller;
pub use body::JsonBody;
pub use error::ApiError;

use actix_web::http::Method;
use actix_web::web::{self, ServiceConfig};

use crate::domain::member::Role;
use crate::web::route_table::{Mounted, Route, anyone, member, mount, under};

/// Where the API is mounted.
const SCOPE: &str = "/api/v1";

/// Every API call and the least role its key's member needs.
static ROUTES: &[Route] = &[
    anyone(Method::GET, "/openapi.json", |r| r.to(openapi::serve)),
    member(Role::Viewer, Method::GET, "/surveys", |r| {
        r.to(surveys::list)
    }),
    member(Role::Editor, Method::POST, "/surveys", |r| {
        r.to(surveys::create)
    }),
    member(Role::Viewer, Method::GET, "/surveys/{slug}", |r| {
        r.to(surveys::get)
    }),
    member(Role::Editor, Method::PUT, "/surveys/{slug}", |r| {
        r.to(surveys::update)
    }),
    member(Role::Editor, Method::DELETE, "/surveys/{slug}", |r| {
        r.to(surveys::delete)
    }),
    member(Role::Editor, Method::POST, "/surveys/{slug}/publish", |r| {
        r.to(surveys::publish)
    }),
    member(
        Role::Editor,
        Method::POST,
        "/surveys/{slug}/unpublish",
        |r| r.to(surveys::unpublish),
    ),
    member(Role::Viewer, Method::GET, "/surveys/{slug}/summary", |r| {
        r.to(surveys::summary)
    }),
    member(Role::Viewer, Method::GET, "/surveys/{slug}/dropoff", |r| {
        r.to(dropoff::dropoff)
    }),
    member(Role::Viewer, Method::GET, "/surveys/{slug}/quotas", |r| {
        r.to(quotas::quotas)
    }),
    member(
        Role::Editor,
        Method::POST,
        "/surveys/{slug}/participants",
        |r| r.to(participants::add),
    ),
    member(
        Role::Editor,
        Method::GET,
        "/surveys/{slug}/participants",
        |r| r.to(participants::list),
    ),
    member(
        Role::Editor,
        Method::DELETE,
        "/surveys/{slug}/participants/{id}",
        |r| r.to(participants::remove),
    ),
    member(
        Role::Editor,
        Method::POST,
        "/surveys/{slug}/mailings",
        |r| r.to(mailings::start),
    ),
    member(Role::Editor, Method::GET, "/surveys/{slug}/mailings", |r| {
        r.to(mailings::list)
    }),
    member(
        Role::Editor,
        Method::GET,
        "/surveys/{slug}/mailings/{id}",
        |r| r.to(mailings::one),
    ),
    member(
        Role::Viewer,
        Method::GET,
        "/surveys/{slug}/responses",
        |r| r.to(surveys::responses),
    ),
    member(
        Role::Editor,
        Method::DELETE,
        "/surveys/{slug}/responses/{reference}",
        |r| r.to(surveys::delete_response),
    ),
    member(
        Role::Viewer,
        Method::GET,
        "/surveys/{slug}/responses.{format}",
        |r| r.to(surveys::download_responses),
    ),
    member(Role::Editor, Method::POST, "/surveys/{slug}/exports", |r| {
        r.to(surveys::request_export)
    }),
    member(Role::Editor, Method::GET, "/exports/{id}", |r| {
        r.to(surveys::export_status)
    }),
    member(Role::Owner, Method::GET, "/audit", |r| r.to(audit::list)),
    member(Role::Editor, Method::POST, "/webhooks", |r| {
        r.to(webhooks::create)
    }),
    member(Role::Editor, Method::GET, "/webhooks", |r| {
        r.to(webhooks::list)
    }),
    member(Role::Editor, Method::DELETE, "/webhooks/{id}", |r| {
        r.to(webhooks::delete)
    }),
    member(Role::Editor, Method::POST, "/webhooks/{id}/test", |r| {
        r.to(webhooks::test)
    }),
];

/// The API's routes, with their full paths.
pub(crate) fn mounted() -> impl Iterator<Item = Mounted> {
    under(SCOPE, ROUTES)
}

/// Mounts the API routes.
pub fn routes(config: &mut ServiceConfig) {
    let query = web::QueryConfig::default()
        .error_handler(|error, _| ApiError::BadRequest(format!("invalid query: {error}")).into());
    let path = web::PathConfig::default()
        .error_handler(|error, _| ApiError::BadRequest(format!("invalid path: {error}")).into());
    config.service(
        mount(web::scope(SCOPE), ROUTES)
            .app_data(query)
            .app_data(path)
            .default_service(web::to(|| async {
                Err::<actix_web::HttpResponse, _>(ApiError::NotFound)
            }))
            .wrap(crate::web::headers::private()),
    );
}
