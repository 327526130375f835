//! `GET /s/{tenant}/{survey}/qr.svg`: the QR code of a survey's public address, drawn as SVG on
//! the server, for owners to print or download.

use actix_web::http::header::{self, CacheControl, CacheDirective};
use actix_web::{HttpRequest, HttpResponse, web};
use qrcode::QrCode;
use qrcode::render::svg;

use super::reach::{own_survey, survey_named};
use crate::web::{Reply, State, WebError};

/// `GET /s/{tenant}/{survey}/qr.svg` (404 for a draft never published, like the survey).
pub async fn qr(state: State, path: web::Path<(String, String)>, request: HttpRequest) -> Reply {
    // The owner's share panel shows it from the home site, whichever region hosts it: the
    // code (same origin as the page) carries the hosting region's address.
    let (_, survey) = match own_survey(&state, &path.0, &path.1).await? {
        Some(found) => found,
        None => survey_named(&state, &request, &path.0, &path.1).await?,
    };
    let url = state.survey_address(&request, &survey);
    let code = QrCode::new(url.as_bytes())
        .map_err(|error| WebError::Internal(format!("a QR code of {url}: {error}")))?;
    let image = code
        .render::<svg::Color<'_>>()
        .min_dimensions(256, 256)
        .quiet_zone(true)
        .build();
    Ok(HttpResponse::Ok()
        .insert_header((header::CONTENT_TYPE, "image/svg+xml"))
        .insert_header((
            header::CONTENT_DISPOSITION,
            format!("inline; filename=\"{}-qr.svg\"", survey.slug),
        ))
        // The address may come from the request's Host: never shared between hosts by a cache.
        .insert_header(CacheControl(vec![
            CacheDirective::Public,
            CacheDirective::MaxAge(3600),
        ]))
        .insert_header((header::VARY, "Host"))
        .body(image))
}
