//! Security headers on every response. Public pages (surveys, the home page) may be framed by
//! any site, so a survey can be embedded; the tenant site and the API are never framed, never
//! cached and send no referrer outside the site. Every page allows only this site's own
//! stylesheet, scripts and images (and the static files' CDN, when set) (pages have no inline script or style).

use actix_web::middleware::DefaultHeaders;

/// Content allowed on every page: this site's own files only, and the static files' CDN when
/// the operator set one (`CANVASS_ASSET_URL`).
fn content() -> String {
    let cdn = super::assets::asset_origin()
        .map(|origin| format!(" {origin}"))
        .unwrap_or_default();
    format!(
        "default-src 'self'{cdn}; img-src 'self' data:; object-src 'none'; base-uri 'none'; \
         form-action 'self'"
    )
}

/// The policy of public pages: framing allowed (embedding a survey), everything else strict.
fn public_policy() -> String {
    format!("{}; frame-ancestors *", content())
}

/// The policy of a survey's form whose answers send the respondent on to other sites (a
/// panel's return address): its form may also end there, as the answer's redirect does.
pub fn form_ending_at(origins: &[String]) -> String {
    let policy = public_policy();
    match origins.is_empty() {
        true => policy,
        false => policy.replace(
            "form-action 'self'",
            &format!("form-action 'self' {}", origins.join(" ")),
        ),
    }
}

/// Headers of public pages: framing allowed (embedding a survey), everything else strict.
pub fn public() -> DefaultHeaders {
    DefaultHeaders::new()
        .add(("Content-Security-Policy", public_policy()))
        .add(("X-Content-Type-Options", "nosniff"))
        .add(("Referrer-Policy", "strict-origin-when-cross-origin"))
}

/// Headers of the tenant site and the API: never framed, never stored by a cache.
pub fn private() -> DefaultHeaders {
    DefaultHeaders::new()
        .add((
            "Content-Security-Policy",
            format!("{}; frame-ancestors 'none'", content()),
        ))
        .add(("X-Frame-Options", "DENY"))
        .add(("X-Content-Type-Options", "nosniff"))
        .add(("Referrer-Policy", "same-origin"))
        .add(("Cache-Control", "no-store"))
}

/// Headers of the respondents' pages, on top of `public`: never stored by a cache (a shared
/// one would hand one respondent's token or answers to another).
pub fn respondents() -> DefaultHeaders {
    DefaultHeaders::new().add(("Cache-Control", "no-store"))
}
