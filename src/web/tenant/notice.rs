//! One-time notices ("Survey Team deleted") carried to the page a destructive action returns
//! to, in an encrypted cookie (so no link can make the site say something) that the next page
//! shows once and clears.

use actix_web::cookie::{Cookie, SameSite};
use actix_web::http::header::LOCATION;
use actix_web::{HttpRequest, HttpResponse};

use super::session::{seal, unseal};
use crate::web::{AppState, Reply, render};

const NOTICE_COOKIE: &str = "canvass_notice";

/// A redirect to `location` that shows `text` there.
pub fn redirect(state: &AppState, location: &str, text: &str) -> HttpResponse {
    let cookie = Cookie::build(NOTICE_COOKIE, text.to_owned())
        .path("/tenant")
        .http_only(true)
        .same_site(SameSite::Lax)
        .finish();
    HttpResponse::SeeOther()
        .insert_header((LOCATION, location))
        .cookie(seal(state, cookie))
        .finish()
}

/// The notice this request carries, if any (a tampered cookie carries none).
pub fn take(request: &HttpRequest, state: &AppState) -> Option<String> {
    unseal(request, state, NOTICE_COOKIE)
}

/// Clears the notice once shown.
pub fn clear(response: &mut HttpResponse) {
    let mut cookie = Cookie::build(NOTICE_COOKIE, "").path("/tenant").finish();
    cookie.make_removal();
    if let Err(error) = response.add_cookie(&cookie) {
        tracing::warn!(%error, "a shown notice could not be cleared");
    }
}

/// Renders a page that shows this request's notice (`shown`), clearing it so it shows once.
pub fn render_once(page: &impl askama::Template, shown: bool) -> Reply {
    let mut response = render(page)?;
    if shown {
        clear(&mut response);
    }
    Ok(response)
}
