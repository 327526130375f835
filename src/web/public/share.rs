//! `GET /s/{tenant}/{survey}/qr.svg` and `qr.png`: the QR code of a survey's public address,
//! drawn on the server (SVG, and PNG through the `png` crate), for owners to print or download.

use actix_web::body::MessageBody;
use actix_web::http::header::{self, CacheControl, CacheDirective};
use actix_web::{HttpRequest, HttpResponse, web};
use qrcode::QrCode;
use qrcode::render::svg;

use super::reach::{own_survey, survey_named};
use crate::web::{Reply, State, WebError};

/// `GET /s/{tenant}/{survey}/qr.svg` (404 for a draft never published, like the survey).
pub async fn qr(state: State, path: web::Path<(String, String)>, request: HttpRequest) -> Reply {
    let (code, slug) = code_of(&state, &path, &request).await?;
    let image = code
        .render::<svg::Color<'_>>()
        .min_dimensions(256, 256)
        .quiet_zone(true)
        .build();
    Ok(image_response(
        "image/svg+xml",
        format!("{slug}-qr.svg"),
        image,
    ))
}

/// `GET /s/{tenant}/{survey}/qr.png`: the same code as a PNG (8 pixels a module, with the
/// standard quiet zone of 4 modules), for tools and print shops that take no SVG.
pub async fn qr_png(
    state: State,
    path: web::Path<(String, String)>,
    request: HttpRequest,
) -> Reply {
    let (code, slug) = code_of(&state, &path, &request).await?;
    let image = png_of(&code).map_err(|error| WebError::Internal(format!("a QR PNG: {error}")))?;
    Ok(image_response("image/png", format!("{slug}-qr.png"), image))
}

/// Pixels a module is drawn with in the PNG, and modules of blank border around it.
const PNG_SCALE: usize = 8;
const QUIET_ZONE: usize = 4;

/// The code drawn as an 8-bit greyscale PNG.
fn png_of(code: &QrCode) -> Result<Vec<u8>, png::EncodingError> {
    let modules = code.width();
    let side = (modules + 2 * QUIET_ZONE) * PNG_SCALE;
    let colors = code.to_colors();
    let mut pixels = vec![255u8; side * side];
    for (at, color) in colors.iter().enumerate() {
        if *color != qrcode::Color::Dark {
            continue;
        }
        let (x, y) = (at % modules + QUIET_ZONE, at / modules + QUIET_ZONE);
        for row in y * PNG_SCALE..(y + 1) * PNG_SCALE {
            let start = row * side + x * PNG_SCALE;
            pixels[start..start + PNG_SCALE].fill(0);
        }
    }
    let mut image = Vec::new();
    let side = u32::try_from(side).unwrap_or(u32::MAX);
    let mut encoder = png::Encoder::new(&mut image, side, side);
    encoder.set_color(png::ColorType::Grayscale);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder.write_header()?;
    writer.write_image_data(&pixels)?;
    writer.finish()?;
    Ok(image)
}

/// The QR code of the survey the path names, and its slug.
async fn code_of(
    state: &State,
    path: &(String, String),
    request: &HttpRequest,
) -> Result<(QrCode, String), WebError> {
    // The owner's share panel shows it from the home site, whichever region hosts it: the
    // code (same origin as the page) carries the hosting region's address.
    let (_, survey) = match own_survey(state, &path.0, &path.1).await? {
        Some(found) => found,
        None => survey_named(state, request, &path.0, &path.1).await?,
    };
    let url = state.survey_address(request, &survey);
    let code = QrCode::new(url.as_bytes())
        .map_err(|error| WebError::Internal(format!("a QR code of {url}: {error}")))?;
    Ok((code, survey.slug.to_string()))
}

/// A QR image, named for downloading, cached for an hour per host.
fn image_response(
    content_type: &str,
    name: String,
    body: impl MessageBody + 'static,
) -> HttpResponse {
    HttpResponse::Ok()
        .insert_header((header::CONTENT_TYPE, content_type))
        .insert_header((
            header::CONTENT_DISPOSITION,
            format!("inline; filename=\"{name}\""),
        ))
        // The address may come from the request's Host: never shared between hosts by a cache.
        .insert_header(CacheControl(vec![
            CacheDirective::Public,
            CacheDirective::MaxAge(3600),
        ]))
        .insert_header((header::VARY, "Host"))
        .body(body)
}
