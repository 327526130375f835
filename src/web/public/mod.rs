//! The public site, where respondents find and answer surveys.

mod form;
mod language;
mod notice;
mod opt_out;
mod pages;
mod participant;
mod quiz;
mod quotas;
mod reach;
mod redirect;
mod resume;
mod share;
mod survey_page;
mod uploads;
mod words;

pub(crate) use form::read_body;
pub(crate) use language::{language_query, words_for};
pub(crate) use reach::{home_elsewhere, tenant_named};
pub(crate) use survey_page::{FormContext, Step, SurveyPage, as_answered, step};
pub use uploads::UploadLimits;
pub(crate) use uploads::{Keep, Taken, read as read_answers, take as take_files};

use actix_web::web::{self, ServiceConfig};

/// Mounts the public routes under `/s`. None of their pages is stored by a cache: a form
/// carries its respondent's one-time token and what they typed, a resume or personal link
/// their saved answers, a thank-you page their reference.
pub fn routes(config: &mut ServiceConfig) {
    config.service(
        web::scope("/s")
            .wrap(super::headers::respondents())
            // Tried in turn: a form's pages and its answer (a POST each) first.
            .route("/{tenant}/{survey}", web::post().to(pages::submit))
            .route("/{tenant}", web::get().to(pages::tenant))
            .route("/{tenant}/{survey}", web::get().to(pages::form))
            .route("/{tenant}/{survey}/qr.svg", web::get().to(share::qr))
            .route("/{tenant}/{survey}/qr.png", web::get().to(share::qr_png))
            .route(
                "/{tenant}/{survey}/saved/{id}",
                web::get().to(resume::saved),
            )
            .route(
                "/{tenant}/{survey}/saved/{id}/email",
                web::post().to(resume::email),
            )
            .route(
                "/{tenant}/{survey}/p/{link}",
                web::get().to(participant::form),
            )
            .route(
                "/{tenant}/{survey}/p/{link}/opt-out",
                web::get().to(opt_out::ask),
            )
            .route(
                "/{tenant}/{survey}/p/{link}/opt-out",
                web::post().to(opt_out::confirm),
            )
            .route(
                "/{tenant}/{survey}/resume/{id}",
                web::get().to(resume::resume),
            )
            .route(
                "/{tenant}/{survey}/thanks/{reference}",
                web::get().to(pages::thanks),
            ),
    );
}
