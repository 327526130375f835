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
mod dropoff;
mod error_menu;
mod exports;
mod gallery;
mod imports;
mod join;
mod keys;
mod mailings;
mod members;
mod notice;
mod participants;
mod password;
mod preview;
mod quotas;
mod results;
mod segments;
mod session;
mod settings;
mod sso;
mod survey_form;
mod translations;
mod webhooks;

use actix_web::web::{self, ServiceConfig};

use crate::web::route_table::{Mounted, Route, mount, routes, under};

/// Where the site is mounted.
const SCOPE: &str = "/tenant";

/// Every route of the tenant site and the least role it needs. Pages before sign-in need
/// none.
static ROUTES: &[Route] = routes![
    GET "" for Viewer => dashboard::show,
    GET "/sign-up" => auth::sign_up_form,
    POST "/sign-up" => auth::sign_up,
    GET "/sign-up/address" => auth::address,
    GET "/sign-in" => auth::sign_in_form,
    POST "/sign-in" => auth::sign_in,
    POST "/sign-out" for Viewer => auth::sign_out,
    GET "/forgot-password" => password::forgot_form,
    POST "/forgot-password" => password::forgot,
    GET "/reset-password/{token}" => password::reset_form,
    POST "/reset-password/{token}" => password::reset,
    GET "/join/{token}" => join::show,
    POST "/join/{token}" => join::accept,
    POST "/join/{token}/sso" => sso::join,
    GET "/sso" => sso::start,
    GET "/sso/callback" => sso::callback,
    POST "/settings/sso" for Owner => settings::save_sso,
    GET "/audit" for Owner => audit::show,
    GET "/account" for Viewer => account::show,
    POST "/account/notify" for Viewer => account::save_notify,
    POST "/account/password" for Viewer => account::change_password,
    GET "/members" for Owner => members::show,
    POST "/members/invite" for Owner => members::invite,
    POST "/members/role" for Owner => members::set_role,
    GET "/members/remove" for Owner => members::confirm_remove,
    POST "/members/remove" for Owner => members::remove,
    POST "/members/invitations/{id}/withdraw" for Owner => members::withdraw,
    GET "/settings" for Owner => settings::show,
    POST "/settings" for Owner => settings::save,
    POST "/settings/zone" for Owner => settings::save_zone,
    POST "/settings/branding" for Owner => settings::save_branding,
    GET "/webhooks" for Editor => webhooks::show,
    POST "/webhooks" for Editor => webhooks::create,
    POST "/webhooks/{id}/test" for Editor => webhooks::test,
    POST "/webhooks/{id}/remove" for Editor => webhooks::remove,
    GET "/api-keys" for Viewer => keys::show,
    POST "/api-keys" for Viewer => keys::create,
    GET "/api-keys/{id}/revoke" for Viewer => keys::confirm_revoke,
    POST "/api-keys/{id}/revoke" for Viewer => keys::revoke,
    GET "/templates" for Editor => gallery::show,
    GET "/templates/{id}" for Editor => gallery::preview,
    POST "/templates/{id}" for Editor => gallery::create,
    GET "/surveys/new" for Editor => designer::new,
    GET "/surveys/import" for Editor => imports::show,
    POST "/surveys/import" for Editor => imports::preview,
    POST "/surveys/import/create" for Editor => imports::create,
    POST "/surveys" for Editor => designer::create,
    GET "/surveys/{slug}" for Editor => designer::edit,
    POST "/surveys/{slug}" for Editor => designer::save,
    GET "/surveys/{slug}/preview" for Editor => preview::show,
    POST "/surveys/{slug}/preview" for Editor => preview::answer,
    POST "/surveys/{slug}/publish" for Editor => designer::publish,
    POST "/surveys/{slug}/duplicate" for Editor => designer::duplicate,
    POST "/surveys/{slug}/unpublish" for Editor => designer::unpublish,
    GET "/surveys/{slug}/delete" for Editor => designer::confirm_delete,
    POST "/surveys/{slug}/delete" for Editor => designer::delete,
    GET "/surveys/{slug}/translations" for Editor => translations::show,
    POST "/surveys/{slug}/translations" for Editor => translations::save_texts,
    GET "/surveys/{slug}/translations.{format}" for Editor => translations::download,
    POST "/surveys/{slug}/translations/import" for Editor => translations::import,
    POST "/surveys/{slug}/languages" for Editor => translations::save_languages,
    GET "/surveys/{slug}/quotas" for Editor => quotas::show,
    POST "/surveys/{slug}/quotas" for Editor => quotas::save,
    GET "/surveys/{slug}/participants" for Editor => participants::show,
    POST "/surveys/{slug}/participants" for Editor => participants::add,
    POST "/surveys/{slug}/participants/access" for Editor => participants::access,
    POST "/surveys/{slug}/participants/segments" for Editor => participants::segments,
    POST "/surveys/{slug}/participants/import" for Editor => participants::import,
    POST "/surveys/{slug}/participants/import/{held}" for Editor => participants::confirm,
    POST "/surveys/{slug}/participants/{id}/remove" for Editor => participants::remove,
    GET "/surveys/{slug}/participants/{id}" for Editor => participants::show_one,
    POST "/surveys/{slug}/participants/{id}" for Editor => participants::edit,
    GET "/surveys/{slug}/participants.{format}" for Editor => participants::download,
    GET "/surveys/{slug}/mailings" for Editor => mailings::show,
    POST "/surveys/{slug}/mailings/template" for Editor => mailings::save_template,
    POST "/surveys/{slug}/mailings/send" for Editor => mailings::send,
    GET "/surveys/{slug}/summary" for Viewer => results::summary,
    GET "/surveys/{slug}/xlsform" for Viewer => exports::xlsform,
    GET "/surveys/{slug}/responses" for Viewer => results::responses,
    GET "/surveys/{slug}/responses.{format}" for Viewer => exports::download_responses,
    POST "/surveys/{slug}/exports" for Editor => exports::request,
    GET "/exports/{id}" for Editor => exports::status,
    GET "/surveys/{slug}/responses/{n}" for Viewer => results::response,
    POST "/surveys/{slug}/responses/delete" for Editor => deletions::delete,
    GET "/surveys/{slug}/responses/ref/{reference}" for Viewer => results::response_by_reference,
    GET "/surveys/{slug}/responses/ref/{reference}/files/{question}" for Viewer => results::file,
];

/// The site's routes, with their full paths.
pub(crate) fn mounted() -> impl Iterator<Item = Mounted> {
    under(SCOPE, ROUTES)
}

/// Mounts the tenant site.
pub fn routes(config: &mut ServiceConfig) {
    config.service(
        mount(web::scope(SCOPE), ROUTES)
            // Unknown addresses under /tenant get the error page with the menu too.
            .default_service(web::to(crate::web::error::not_found))
            .wrap(actix_web::middleware::from_fn(error_menu::with_menu))
            .wrap(crate::web::headers::private()),
    );
}

use std::sync::Arc;

use crate::domain::{Survey, SurveySlug};
use crate::web::{AppState, WebError};
use session::SignedIn;

/// A survey's languages as a picker offers them: each tag with its name.
fn language_choices(survey: &Survey) -> Vec<(String, String)> {
    survey
        .offered_languages()
        .iter()
        .map(|tag| (tag.to_string(), crate::i18n::language_name(tag.as_str())))
        .collect()
}

/// One of the signed-in tenant's surveys, or 404 (also for another tenant's slug).
async fn own_survey(
    state: &AppState,
    signed_in: &SignedIn,
    slug: &str,
) -> Result<Arc<Survey>, WebError> {
    let slug = SurveySlug::parse(slug).map_err(|_| WebError::NotFound)?;
    crate::service::surveys::own(&state.app, &signed_in.tenant.slug, &slug)
        .await?
        .ok_or(WebError::NotFound)
}
