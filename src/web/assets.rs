//! The static files (the stylesheet, the survey page's script, the tenant pages' and the
//! designer's), compiled into the binary so one file is the whole app, and served under names
//! that carry a hash of their content (`/static/canvass.3f2a9c51d0.css`): a browser or a CDN may
//! keep them for a year, and after an upgrade a page can only ever name the files it was made
//! with. Pages name them through `url`, which puts the operator's `CANVASS_ASSET_URL` (a CDN
//! in front of this server) before the path when one is set.

use std::sync::{LazyLock, OnceLock};

use actix_web::http::header::{self, CacheControl, CacheDirective};
use actix_web::{HttpResponse, web};
use sha2::{Digest, Sha256};

use super::{Reply, WebError};

/// One static file.
struct Asset {
    /// Its plain name, as templates ask for it.
    name: &'static str,
    /// Its name with the hash of its content, as pages link to it.
    hashed: String,
    content_type: &'static str,
    body: &'static str,
}

impl Asset {
    fn new(name: &'static str, content_type: &'static str, body: &'static str) -> Self {
        let digest = Sha256::digest(body.as_bytes());
        let hash: String = digest[..5].iter().map(|b| format!("{b:02x}")).collect();
        let (stem, extension) = name.rsplit_once('.').unwrap_or((name, ""));
        Self {
            name,
            hashed: format!("{stem}.{hash}.{extension}"),
            content_type,
            body,
        }
    }
}

static ASSETS: LazyLock<[Asset; 7]> = LazyLock::new(|| {
    [
        Asset::new(
            "canvass.css",
            "text/css; charset=utf-8",
            include_str!("../../static/canvass.css"),
        ),
        Asset::new(
            "logic.js",
            "text/javascript; charset=utf-8",
            include_str!("../../static/logic.js"),
        ),
        Asset::new(
            "tenant.js",
            "text/javascript; charset=utf-8",
            include_str!("../../static/tenant.js"),
        ),
        Asset::new(
            "embed.js",
            "text/javascript; charset=utf-8",
            include_str!("../../static/embed.js"),
        ),
        Asset::new(
            "frame.js",
            "text/javascript; charset=utf-8",
            include_str!("../../static/frame.js"),
        ),
        Asset::new(
            "screen.js",
            "text/javascript; charset=utf-8",
            include_str!("../../static/screen.js"),
        ),
        Asset::new(
            "designer.js",
            "text/javascript; charset=utf-8",
            include_str!("../../static/designer.js"),
        ),
    ]
});

/// Where static files are served from when not from this server: the operator's
/// `CANVASS_ASSET_URL`, set once at start-up (`use_asset_url`).
static PREFIX: OnceLock<String> = OnceLock::new();

/// Makes pages name static files under `prefix` (a CDN's address, no trailing slash). Only
/// the first call counts: it is the process's setting.
pub fn use_asset_url(prefix: &str) {
    let _ = PREFIX.set(prefix.trim_end_matches('/').to_owned());
}

/// The origin static files come from besides this site, for the pages' content policy.
pub fn asset_origin() -> Option<String> {
    let prefix = PREFIX.get()?;
    let parsed = url::Url::parse(prefix).ok()?;
    Some(parsed.origin().ascii_serialization())
}

/// The address a page links a static file by: its hashed name, after the CDN's address when
/// one is set. A name that is not a static file is a mistake in a template.
pub fn url(name: &str) -> String {
    let prefix = PREFIX.get().map_or("", String::as_str);
    match ASSETS.iter().find(|asset| asset.name == name) {
        Some(asset) => format!("{prefix}/static/{}", asset.hashed),
        None => {
            debug_assert!(false, "no static file {name}");
            format!("{prefix}/static/{name}")
        }
    }
}

/// A year: what `immutable` files are kept for.
const A_YEAR: u32 = 365 * 24 * 60 * 60;

/// Serves a static file: by its hashed name, to be kept for ever; by its plain name (links
/// made by hand), to be checked again each time. Anything else is a 404.
pub async fn serve(file: web::Path<String>) -> Reply {
    let requested = file.as_str();
    let (asset, immutable) = match ASSETS.iter().find(|a| a.hashed == requested) {
        Some(asset) => (asset, true),
        None => (
            ASSETS
                .iter()
                .find(|a| a.name == requested)
                .ok_or(WebError::NotFound)?,
            false,
        ),
    };
    let caching = match immutable {
        true => vec![
            CacheDirective::Public,
            CacheDirective::MaxAge(A_YEAR),
            CacheDirective::Extension("immutable".into(), None),
        ],
        false => vec![CacheDirective::Public, CacheDirective::NoCache],
    };
    Ok(HttpResponse::Ok()
        .insert_header((header::CONTENT_TYPE, asset.content_type))
        .insert_header(CacheControl(caching))
        .body(asset.body))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashed_names_follow_the_content() {
        let a = Asset::new("app.css", "text/css", "body{}");
        let b = Asset::new("app.css", "text/css", "body{color:red}");
        assert!(a.hashed.starts_with("app.") && a.hashed.ends_with(".css"));
        assert_eq!(a.hashed.len(), "app.".len() + 10 + ".css".len());
        assert_ne!(a.hashed, b.hashed);
        assert_eq!(a.hashed, Asset::new("app.css", "text/css", "body{}").hashed);
        for asset in ASSETS.iter() {
            assert_eq!(url(asset.name), format!("/static/{}", asset.hashed));
        }
    }
}
