//! The public site, where respondents find and answer surveys.

mod form;
mod pages;
mod share;
mod words;

pub(crate) use form::{parse as parse_form, read_body};
pub(crate) use pages::{
    FormContext, Step, SurveyPage, home_elsewhere, language_query, step, tenant_named, words_for,
};

use actix_web::web::{self, ServiceConfig};

/// Mounts the public routes under `/s`.
pub fn routes(config: &mut ServiceConfig) {
    config.service(
        web::scope("/s")
            .route("/{tenant}", web::get().to(pages::tenant))
            .route("/{tenant}/{survey}", web::get().to(pages::form))
            .route("/{tenant}/{survey}", web::post().to(pages::submit))
            .route("/{tenant}/{survey}/qr.svg", web::get().to(share::qr))
            .route(
                "/{tenant}/{survey}/thanks/{reference}",
                web::get().to(pages::thanks),
            ),
    );
}
