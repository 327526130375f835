//! One-time notices ("Survey Team deleted") carried to the page a destructive action returns
//! to, in an encrypted cookie (so no link can make the site say something) that the next page
//! shows once and clears.

use actix_web::cookie::{Cookie, CookieJar, SameSite};
use actix_web::http::header::LOCATION;
use actix_web::{HttpRequest, HttpResponse};

use super::session::cookie_key;
use crate::web::{AppState, WebError, render};

const NOTICE_COOKIE: &str = "canvass_notice";

/// A redirect to `location` that shows `text` there.
pub fn redirect(state: &AppState, location: &str, text: &str) -> HttpResponse {
    let cookie = Cookie::build(NOTICE_COOKIE, text.to_owned())
        .path("/tenant")
        .http_only(true)
        .same_site(SameSite::Lax)
        .finish();
    let mut jar = CookieJar::new();
    jar.private_mut(&cookie_key(state)).add(cookie);
    let mut response = HttpResponse::SeeOther();
    response.insert_header((LOCATION, location));
    if let Some(sealed) = jar.get(NOTICE_COOKIE) {
        response.cookie(sealed.clone());
    }
    response.finish()
}

/// The notice this request carries, if any (a tampered cookie carries none).
pub fn take(request: &HttpRequest, state: &AppState) -> Option<String> {
    let sent = request.cookie(NOTICE_COOKIE)?;
    let mut jar = CookieJar::new();
    jar.add_original(sent.into_owned());
    jar.private(&cookie_key(state))
        .get(NOTICE_COOKIE)
        .map(|cookie| cookie.value().to_owned())
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
pub fn render_once(page: &impl askama::Template, shown: bool) -> Result<HttpResponse, WebError> {
    let mut response = render(page)?;
    if shown {
        clear(&mut response);
    }
    Ok(response)
}
