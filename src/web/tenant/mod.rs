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

use actix_web::http::Method;
use actix_web::web::{self, ServiceConfig};

use crate::domain::member::Role;
use crate::web::route_table::{Mounted, Route, anyone, member, mount, under};

/// Where the site is mounted.
const SCOPE: &str = "/tenant";

/// Every route of the tenant site and the least role it needs. Pages before sign-in need
/// none.
static ROUTES: &[Route] = &[
    member(Role::Viewer, Method::GET, "", |r| r.to(dashboard::show)),
    anyone(Method::GET, "/sign-up", |r| r.to(auth::sign_up_form)),
    anyone(Method::POST, "/sign-up", |r| r.to(auth::sign_up)),
    anyone(Method::GET, "/sign-up/address", |r| r.to(auth::address)),
    anyone(Method::GET, "/sign-in", |r| r.to(auth::sign_in_form)),
    anyone(Method::POST, "/sign-in", |r| r.to(auth::sign_in)),
    member(Role::Viewer, Method::POST, "/sign-out", |r| {
        r.to(auth::sign_out)
    }),
    anyone(Method::GET, "/forgot-password", |r| {
        r.to(password::forgot_form)
    }),
    anyone(Method::POST, "/forgot-password", |r| r.to(password::forgot)),
    anyone(Method::GET, "/reset-password/{token}", |r| {
        r.to(password::reset_form)
    }),
    anyone(Method::POST, "/reset-password/{token}", |r| {
        r.to(password::reset)
    }),
    anyone(Method::GET, "/join/{token}", |r| r.to(join::show)),
    anyone(Method::POST, "/join/{token}", |r| r.to(join::accept)),
    anyone(Method::POST, "/join/{token}/sso", |r| r.to(sso::join)),
    anyone(Method::GET, "/sso", |r| r.to(sso::start)),
    anyone(Method::GET, "/sso/callback", |r| r.to(sso::callback)),
    member(Role::Owner, Method::POST, "/settings/sso", |r| {
        r.to(settings::save_sso)
    }),
    member(Role::Owner, Method::GET, "/audit", |r| r.to(audit::show)),
    member(Role::Viewer, Method::GET, "/account", |r| {
        r.to(account::show)
    }),
    member(Role::Viewer, Method::POST, "/account/notify", |r| {
        r.to(account::save_notify)
    }),
    member(Role::Viewer, Method::POST, "/account/password", |r| {
        r.to(account::change_password)
    }),
    member(Role::Owner, Method::GET, "/members", |r| {
        r.to(members::show)
    }),
    member(Role::Owner, Method::POST, "/members/invite", |r| {
        r.to(members::invite)
    }),
    member(Role::Owner, Method::POST, "/members/role", |r| {
        r.to(members::set_role)
    }),
    member(Role::Owner, Method::GET, "/members/remove", |r| {
        r.to(members::confirm_remove)
    }),
    member(Role::Owner, Method::POST, "/members/remove", |r| {
        r.to(members::remove)
    }),
    member(
        Role::Owner,
        Method::POST,
        "/members/invitations/{id}/withdraw",
        |r| r.to(members::withdraw),
    ),
    member(Role::Owner, Method::GET, "/settings", |r| {
        r.to(settings::show)
    }),
    member(Role::Owner, Method::POST, "/settings", |r| {
        r.to(settings::save)
    }),
    member(Role::Owner, Method::POST, "/settings/zone", |r| {
        r.to(settings::save_zone)
    }),
    member(Role::Owner, Method::POST, "/settings/branding", |r| {
        r.to(settings::save_branding)
    }),
    member(Role::Editor, Method::GET, "/webhooks", |r| {
        r.to(webhooks::show)
    }),
    member(Role::Editor, Method::POST, "/webhooks", |r| {
        r.to(webhooks::create)
    }),
    member(Role::Editor, Method::POST, "/webhooks/{id}/test", |r| {
        r.to(webhooks::test)
    }),
    member(Role::Editor, Method::POST, "/webhooks/{id}/remove", |r| {
        r.to(webhooks::remove)
    }),
    member(Role::Viewer, Method::GET, "/api-keys", |r| r.to(keys::show)),
    member(Role::Viewer, Method::POST, "/api-keys", |r| {
        r.to(keys::create)
    }),
    member(Role::Viewer, Method::GET, "/api-keys/{id}/revoke", |r| {
        r.to(keys::confirm_revoke)
    }),
    member(Role::Viewer, Method::POST, "/api-keys/{id}/revoke", |r| {
        r.to(keys::revoke)
    }),
    member(Role::Editor, Method::GET, "/surveys/new", |r| {
        r.to(designer::new)
    }),
    member(Role::Editor, Method::POST, "/surveys", |r| {
        r.to(designer::create)
    }),
    member(Role::Editor, Method::GET, "/surveys/{slug}", |r| {
        r.to(designer::edit)
    }),
    member(Role::Editor, Method::POST, "/surveys/{slug}", |r| {
        r.to(designer::save)
    }),
    member(Role::Editor, Method::GET, "/surveys/{slug}/preview", |r| {
        r.to(preview::show)
    }),
    member(Role::Editor, Method::POST, "/surveys/{slug}/preview", |r| {
        r.to(preview::answer)
    }),
    member(Role::Editor, Method::POST, "/surveys/{slug}/publish", |r| {
        r.to(designer::publish)
    }),
    member(
        Role::Editor,
        Method::POST,
        "/surveys/{slug}/duplicate",
        |r| r.to(designer::duplicate),
    ),
    member(
        Role::Editor,
        Method::POST,
        "/surveys/{slug}/unpublish",
        |r| r.to(designer::unpublish),
    ),
    member(Role::Editor, Method::GET, "/surveys/{slug}/delete", |r| {
        r.to(designer::confirm_delete)
    }),
    member(Role::Editor, Method::POST, "/surveys/{slug}/delete", |r| {
        r.to(designer::delete)
    }),
    member(
        Role::Editor,
        Method::GET,
        "/surveys/{slug}/translations",
        |r| r.to(translations::show),
    ),
    member(
        Role::Editor,
        Method::POST,
        "/surveys/{slug}/translations",
        |r| r.to(translations::save_texts),
    ),
    member(
        Role::Editor,
        Method::GET,
        "/surveys/{slug}/translations.{format}",
        |r| r.to(translations::download),
    ),
    member(
        Role::Editor,
        Method::POST,
        "/surveys/{slug}/translations/import",
        |r| r.to(translations::import),
    ),
    member(
        Role::Editor,
        Method::POST,
        "/surveys/{slug}/languages",
        |r| r.to(translations::save_languages),
    ),
    member(Role::Editor, Method::GET, "/surveys/{slug}/quotas", |r| {
        r.to(quotas::show)
    }),
    member(Role::Editor, Method::POST, "/surveys/{slug}/quotas", |r| {
        r.to(quotas::save)
    }),
    member(
        Role::Editor,
        Method::GET,
        "/surveys/{slug}/participants",
        |r| r.to(participants::show),
    ),
    member(
        Role::Editor,
        Method::POST,
        "/surveys/{slug}/participants",
        |r| r.to(participants::add),
    ),
    member(
        Role::Editor,
        Method::POST,
        "/surveys/{slug}/participants/access",
        |r| r.to(participants::access),
    ),
    member(
        Role::Editor,
        Method::POST,
        "/surveys/{slug}/participants/segments",
        |r| r.to(participants::segments),
    ),
    member(
        Role::Editor,
        Method::POST,
        "/surveys/{slug}/participants/import",
        |r| r.to(participants::import),
    ),
    member(
        Role::Editor,
        Method::POST,
        "/surveys/{slug}/participants/import/{held}",
        |r| r.to(participants::confirm),
    ),
    member(
        Role::Editor,
        Method::POST,
        "/surveys/{slug}/participants/{id}/remove",
        |r| r.to(participants::remove),
    ),
    member(
        Role::Editor,
        Method::GET,
        "/surveys/{slug}/participants/{id}",
        |r| r.to(participants::show_one),
    ),
    member(
        Role::Editor,
        Method::POST,
        "/surveys/{slug}/participants/{id}",
        |r| r.to(participants::edit),
    ),
    member(
        Role::Editor,
        Method::GET,
        "/surveys/{slug}/participants.{format}",
        |r| r.to(participants::download),
    ),
    member(Role::Editor, Method::GET, "/surveys/{slug}/mailings", |r| {
        r.to(mailings::show)
    }),
    member(
        Role::Editor,
        Method::POST,
        "/surveys/{slug}/mailings/template",
        |r| r.to(mailings::save_template),
    ),
    member(
        Role::Editor,
        Method::POST,
        "/surveys/{slug}/mailings/send",
        |r| r.to(mailings::send),
    ),
    member(Role::Viewer, Method::GET, "/surveys/{slug}/summary", |r| {
        r.to(results::summary)
    }),
    member(
        Role::Viewer,
        Method::GET,
        "/surveys/{slug}/responses",
        |r| r.to(results::responses),
    ),
    member(
        Role::Viewer,
        Method::GET,
        "/surveys/{slug}/responses.{format}",
        |r| r.to(exports::download_responses),
    ),
    member(Role::Editor, Method::POST, "/surveys/{slug}/exports", |r| {
        r.to(exports::request)
    }),
    member(Role::Editor, Method::GET, "/exports/{id}", |r| {
        r.to(exports::status)
    }),
    member(
        Role::Viewer,
        Method::GET,
        "/surveys/{slug}/responses/{n}",
        |r| r.to(results::response),
    ),
    member(
        Role::Editor,
        Method::POST,
        "/surveys/{slug}/responses/delete",
        |r| r.to(deletions::delete),
    ),
    member(
        Role::Viewer,
        Method::GET,
        "/surveys/{slug}/responses/ref/{reference}",
        |r| r.to(results::response_by_reference),
    ),
    member(
        Role::Viewer,
        Method::GET,
        "/surveys/{slug}/responses/ref/{reference}/files/{question}",
        |r| r.to(results::file),
    ),
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
