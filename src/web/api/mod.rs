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
mod templates;
mod webhooks;

pub use audit::checked_token;
pub use auth::ApiCaller;
pub use body::{JsonBody, MAX_WORKBOOK_BODY};
pub use error::ApiError;

use actix_web::web::{self, ServiceConfig};

use crate::web::route_table::{Mounted, Route, mount, routes, under};

/// Where the API is mounted.
const SCOPE: &str = "/api/v1";

/// Every API call and the least role its key's member needs.
static ROUTES: &[Route] = routes![
    GET "/openapi.json" => openapi::serve,
    GET "/templates" for Viewer => templates::list,
    GET "/surveys" for Viewer => surveys::list,
    POST "/surveys" for Editor => surveys::create,
    POST "/surveys/import" for Editor => surveys::import,
    GET "/surveys/{slug}" for Viewer => surveys::get,
    PUT "/surveys/{slug}" for Editor => surveys::update,
    DELETE "/surveys/{slug}" for Editor => surveys::delete,
    POST "/surveys/{slug}/publish" for Editor => surveys::publish,
    POST "/surveys/{slug}/unpublish" for Editor => surveys::unpublish,
    GET "/surveys/{slug}/summary" for Viewer => surveys::summary,
    GET "/surveys/{slug}/xlsform" for Viewer => surveys::xlsform,
    GET "/surveys/{slug}/dropoff" for Viewer => dropoff::dropoff,
    GET "/surveys/{slug}/quotas" for Viewer => quotas::quotas,
    POST "/surveys/{slug}/participants" for Editor => participants::add,
    GET "/surveys/{slug}/participants" for Editor => participants::list,
    DELETE "/surveys/{slug}/participants/{id}" for Editor => participants::remove,
    POST "/surveys/{slug}/mailings" for Editor => mailings::start,
    GET "/surveys/{slug}/mailings" for Editor => mailings::list,
    GET "/surveys/{slug}/mailings/{id}" for Editor => mailings::one,
    GET "/surveys/{slug}/responses" for Viewer => surveys::responses,
    GET "/surveys/{slug}/partials" for Viewer => surveys::partials,
    DELETE "/surveys/{slug}/responses/{reference}" for Editor => surveys::delete_response,
    GET "/surveys/{slug}/responses.{format}" for Viewer => surveys::download_responses,
    POST "/surveys/{slug}/exports" for Editor => surveys::request_export,
    GET "/exports/{id}" for Editor => surveys::export_status,
    GET "/audit" for Owner => audit::list,
    POST "/webhooks" for Editor => webhooks::create,
    GET "/webhooks" for Editor => webhooks::list,
    DELETE "/webhooks/{id}" for Editor => webhooks::delete,
    POST "/webhooks/{id}/test" for Editor => webhooks::test,
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
