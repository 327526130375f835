//! The JSON API under `/api/v1`, authenticated by per-tenant API keys sent as
//! `Authorization: Bearer`. Every route works on the caller's tenant only: another tenant's
//! survey is simply not found.

mod audit;
mod auth;
mod body;
mod document;
mod error;
mod openapi;
mod surveys;
mod webhooks;

pub use audit::checked_token;
pub use auth::ApiCaller;
pub use body::JsonBody;
pub use error::ApiError;

use actix_web::web::{self, ServiceConfig};

/// Mounts the API routes.
pub fn routes(config: &mut ServiceConfig) {
    let query = web::QueryConfig::default()
        .error_handler(|error, _| ApiError::BadRequest(format!("invalid query: {error}")).into());
    let path = web::PathConfig::default()
        .error_handler(|error, _| ApiError::BadRequest(format!("invalid path: {error}")).into());
    config.service(
        web::scope("/api/v1")
            .wrap(crate::web::headers::private())
            .app_data(query)
            .app_data(path)
            .route("/openapi.json", web::get().to(openapi::serve))
            .route("/surveys", web::get().to(surveys::list))
            .route("/surveys", web::post().to(surveys::create))
            .route("/surveys/{slug}", web::get().to(surveys::get))
            .route("/surveys/{slug}", web::put().to(surveys::update))
            .route("/surveys/{slug}", web::delete().to(surveys::delete))
            .route("/surveys/{slug}/publish", web::post().to(surveys::publish))
            .route(
                "/surveys/{slug}/unpublish",
                web::post().to(surveys::unpublish),
            )
            .route("/surveys/{slug}/summary", web::get().to(surveys::summary))
            .route(
                "/surveys/{slug}/responses",
                web::get().to(surveys::responses),
            )
            .route(
                "/surveys/{slug}/responses/{reference}",
                web::delete().to(surveys::delete_response),
            )
            .route(
                "/surveys/{slug}/responses.{format}",
                web::get().to(surveys::download_responses),
            )
            .route(
                "/surveys/{slug}/exports",
                web::post().to(surveys::request_export),
            )
            .route("/exports/{id}", web::get().to(surveys::export_status))
            .route("/audit", web::get().to(audit::list))
            .route("/webhooks", web::post().to(webhooks::create))
            .route("/webhooks", web::get().to(webhooks::list))
            .route("/webhooks/{id}", web::delete().to(webhooks::delete))
            .route("/webhooks/{id}/test", web::post().to(webhooks::test))
            .default_service(web::to(|| async {
                Err::<actix_web::HttpResponse, _>(ApiError::NotFound)
            })),
    );
}
