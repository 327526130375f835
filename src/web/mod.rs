//! The HTTP side: routes, pages and the one place errors become responses.

mod api;
mod assets;
mod error;
mod forms;
mod health;
mod home;
mod public;
mod render;
mod tenant;

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
    /// Failed sign-ins per address over the last 15 minutes.
    pub failed_sign_ins: moka::future::Cache<String, u32>,
}

impl AppState {
    /// The state of an application over these stores.
    pub fn new(stores: Stores, max_body_bytes: usize) -> Self {
        Self {
            stores,
            max_body_bytes,
            failed_sign_ins: moka::future::Cache::builder()
                .max_capacity(100_000)
                .time_to_live(std::time::Duration::from_secs(15 * 60))
                .build(),
        }
    }
}

/// Mounts every route of the application.
pub fn routes(config: &mut ServiceConfig) {
    config
        .route("/", web::get().to(home::show))
        .route("/healthz", web::get().to(health::check))
        .route("/static/{file}", web::get().to(assets::serve))
        .configure(public::routes)
        .configure(api::routes)
        .configure(tenant::routes)
        .default_service(web::to(error::not_found));
}
