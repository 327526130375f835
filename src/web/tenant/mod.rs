//! The tenant site under `/tenant`: sign-up and sign-in, the dashboard, the survey designer,
//! summaries with charts, responses and API keys. Every page past sign-in takes a `SignedIn`
//! extractor, which resolves the owner's tenant once; handlers look surveys up within it only.

mod account;
mod audit;
mod auth;
mod charts;
mod dashboard;
mod deletions;
mod designer;
mod error_menu;
mod exports;
mod join;
mod keys;
mod members;
mod notice;
mod password;
mod preview;
mod results;
mod segments;
mod session;
mod settings;
mod sso;
mod webhooks;

use actix_web::web::{self, ServiceConfig};

/// Mounts the tenant site.
pub fn routes(config: &mut ServiceConfig) {
    config.service(
        web::scope("/tenant")
            .wrap(actix_web::middleware::from_fn(error_menu::with_menu))
            .wrap(crate::web::headers::private())
            .route("", web::get().to(dashboard::show))
            .route("/sign-up", web::get().to(auth::sign_up_form))
            .route("/sign-up", web::post().to(auth::sign_up))
            .route("/sign-up/address", web::get().to(auth::address))
            .route("/sign-in", web::get().to(auth::sign_in_form))
            .route("/sign-in", web::post().to(auth::sign_in))
            .route("/sign-out", web::post().to(auth::sign_out))
            .route("/forgot-password", web::get().to(password::forgot_form))
            .route("/forgot-password", web::post().to(password::forgot))
            .route(
                "/reset-password/{token}",
                web::get().to(password::reset_form),
            )
            .route("/reset-password/{token}", web::post().to(password::reset))
            .route("/join/{token}", web::get().to(join::show))
            .route("/join/{token}", web::post().to(join::accept))
            .route("/join/{token}/sso", web::post().to(sso::join))
            .route("/sso", web::get().to(sso::start))
            .route("/sso/callback", web::get().to(sso::callback))
            .route("/settings/sso", web::post().to(sso::save_settings))
            .route("/audit", web::get().to(audit::show))
            .route("/account", web::get().to(account::show))
            .route("/account/notify", web::post().to(account::save_notify))
            .route(
                "/account/password",
                web::post().to(account::change_password),
            )
            .route("/members", web::get().to(members::show))
            .route("/members/invite", web::post().to(members::invite))
            .route("/members/role", web::post().to(members::set_role))
            .route("/members/remove", web::get().to(members::confirm_remove))
            .route("/members/remove", web::post().to(members::remove))
            .route(
                "/members/invitations/{id}/withdraw",
                web::post().to(members::withdraw),
            )
            .route("/settings", web::get().to(settings::show))
            .route("/settings", web::post().to(settings::save))
            .route("/settings/zone", web::post().to(settings::save_zone))
            .route(
                "/settings/branding",
                web::post().to(settings::save_branding),
            )
            .route("/webhooks", web::get().to(webhooks::show))
            .route("/webhooks", web::post().to(webhooks::create))
            .route("/webhooks/{id}/test", web::post().to(webhooks::test))
            .route("/webhooks/{id}/remove", web::post().to(webhooks::remove))
            .route("/api-keys", web::get().to(keys::show))
            .route("/api-keys", web::post().to(keys::create))
            .route("/api-keys/{id}/revoke", web::get().to(keys::confirm_revoke))
            .route("/api-keys/{id}/revoke", web::post().to(keys::revoke))
            .route("/surveys/new", web::get().to(designer::new))
            .route("/surveys", web::post().to(designer::create))
            .route("/surveys/{slug}", web::get().to(designer::edit))
            .route("/surveys/{slug}", web::post().to(designer::save))
            .route("/surveys/{slug}/preview", web::get().to(preview::show))
            .route("/surveys/{slug}/preview", web::post().to(preview::answer))
            .route("/surveys/{slug}/publish", web::post().to(designer::publish))
            .route(
                "/surveys/{slug}/duplicate",
                web::post().to(designer::duplicate),
            )
            .route(
                "/surveys/{slug}/unpublish",
                web::post().to(designer::unpublish),
            )
            .route(
                "/surveys/{slug}/delete",
                web::get().to(designer::confirm_delete),
            )
            .route("/surveys/{slug}/delete", web::post().to(designer::delete))
            .route("/surveys/{slug}/summary", web::get().to(results::summary))
            .route(
                "/surveys/{slug}/responses",
                web::get().to(results::responses),
            )
            .route(
                "/surveys/{slug}/responses.{format}",
                web::get().to(exports::download_responses),
            )
            .route("/surveys/{slug}/exports", web::post().to(exports::request))
            .route("/exports/{id}", web::get().to(exports::status))
            .route(
                "/surveys/{slug}/responses/{n}",
                web::get().to(results::response),
            )
            .route(
                "/surveys/{slug}/responses/delete",
                web::post().to(deletions::delete),
            )
            .route(
                "/surveys/{slug}/responses/ref/{reference}",
                web::get().to(results::response_by_reference),
            )
            // Unknown addresses under /tenant get the error page with the menu too.
            .default_service(web::to(crate::web::error::not_found)),
    );
}

use std::sync::Arc;

use crate::domain::{Survey, SurveySlug};
use crate::web::{AppState, WebError};
use session::SignedIn;

/// One of the signed-in tenant's surveys, or 404 (also for another tenant's slug).
async fn own_survey(
    state: &AppState,
    signed_in: &SignedIn,
    slug: &str,
) -> Result<Arc<Survey>, WebError> {
    let slug = SurveySlug::parse(slug).map_err(|_| WebError::NotFound)?;
    state
        .stores
        .surveys
        .get(&signed_in.tenant.slug, &slug)
        .await?
        .ok_or(WebError::NotFound)
}
