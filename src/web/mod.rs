//! The HTTP side: routes, pages and the one place errors become responses.

mod assets;
mod error;
mod health;
mod home;
mod render;

pub use error::WebError;
pub use render::render;

use actix_web::web::{self, ServiceConfig};

/// Mounts every route of the application.
pub fn routes(config: &mut ServiceConfig) {
    config
        .route("/", web::get().to(home::show))
        .route("/healthz", web::get().to(health::check))
        .route("/static/{file}", web::get().to(assets::serve))
        .default_service(web::to(error::not_found));
}
