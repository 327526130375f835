//! `/b/{tenant}/...`: what a tenant's public pages load from it, served from storage with a
//! caching policy a CDN can front: its logo (a strong ETag, a day's freshness, 304 for a
//! matching `If-None-Match`) and its style sheet (the accent colour; its link changes with it).

use actix_web::http::header::{self, CacheControl, CacheDirective, EntityTag, IfNoneMatch};
use actix_web::web::{self, ServiceConfig};
use actix_web::{HttpRequest, HttpResponse};

use crate::domain::branding::logo_type;
use crate::web::public::{home_elsewhere, tenant_named};
use crate::web::{Reply, State, WebError};

/// Mounts `/b`.
pub fn routes(config: &mut ServiceConfig) {
    config.service(
        web::scope("/b")
            .route("/{tenant}/logo", web::get().to(logo))
            .route("/{tenant}/style.css", web::get().to(style)),
    );
}

/// A day: how long browsers and CDNs keep a logo or style sheet before asking again.
fn cached_a_day() -> CacheControl {
    CacheControl(vec![CacheDirective::Public, CacheDirective::MaxAge(86_400)])
}

/// `GET /b/{tenant}/logo`: the logo, or 404 when there is none.
pub async fn logo(state: State, path: web::Path<String>, request: HttpRequest) -> Reply {
    let tenant = tenant_named(&state, &path).await?;
    // A tenant of another region: the copy pushed here with its surveys (a page's images
    // come from its own origin).
    let hosted = home_elsewhere(&state, &path).await?.is_some();
    let Some(version) = tenant.branding.logo.clone() else {
        return Err(WebError::NotFound);
    };
    let etag = EntityTag::new_strong(version);
    let matches = match header::Header::parse(&request) {
        Ok(IfNoneMatch::Any) => true,
        Ok(IfNoneMatch::Items(tags)) => tags.iter().any(|tag| tag.strong_eq(&etag)),
        Err(_) => false,
    };
    if matches {
        return Ok(HttpResponse::NotModified()
            .insert_header(header::ETag(etag))
            .insert_header(cached_a_day())
            .finish());
    }
    let bytes = crate::service::settings::logo(&state.app, &tenant.slug, hosted)
        .await?
        .ok_or(WebError::NotFound)?;
    // Checked when uploaded; its type is read from its bytes again, never trusted from a name.
    let media = logo_type(&bytes).map_err(|_| WebError::NotFound)?;
    Ok(HttpResponse::Ok()
        .insert_header((header::CONTENT_TYPE, media))
        .insert_header(header::ETag(etag))
        .insert_header(cached_a_day())
        .body(bytes))
}

/// `GET /b/{tenant}/style.css`: the tenant's accent colour over the site's style sheet.
pub async fn style(state: State, path: web::Path<String>) -> Reply {
    let tenant = tenant_named(&state, &path).await?;
    Ok(HttpResponse::Ok()
        .insert_header((header::CONTENT_TYPE, "text/css; charset=utf-8"))
        .insert_header(cached_a_day())
        .body(tenant.branding.style_sheet()))
}
