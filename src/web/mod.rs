//! The HTTP side: routes, pages and the one place errors become responses.

mod api;
mod assets;
mod error;
mod health;
mod home;
mod public;
mod render;

pub use error::WebError;
pub use render::{render, render_with_status};

use actix_web::web::{self, ServiceConfig};

use crate::stores::Stores;

/// What every handler can reach.
pub struct AppState {
    /// The typed stores.
    pub stores: Stores,
    /// Largest request body accepted.
    pub max_body_bytes: usize,
}

/// Mounts every route of the application.
pub fn routes(config: &mut ServiceConfig) {
    config
        .route("/", web::get().to(home::show))
        .route("/healthz", web::get().to(health::check))
        .route("/static/{file}", web::get().to(assets::serve))
        .configure(public::routes)
        .configure(api::routes)
        .default_service(web::to(error::not_found));
}
