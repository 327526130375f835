//! `GET /static/{file}`: the stylesheet, compiled into the binary so one file is the whole app.

use actix_web::http::header::{self, CacheControl, CacheDirective};
use actix_web::{HttpResponse, web};

use super::WebError;

const STYLESHEET: &str = include_str!("../../static/canvass.css");

/// Serves a known static file, or 404.
pub async fn serve(file: web::Path<String>) -> Result<HttpResponse, WebError> {
    match file.as_str() {
        "canvass.css" => Ok(HttpResponse::Ok()
            .insert_header((header::CONTENT_TYPE, "text/css; charset=utf-8"))
            .insert_header(CacheControl(vec![
                CacheDirective::Public,
                CacheDirective::MaxAge(3600),
            ]))
            .body(STYLESHEET)),
        _ => Err(WebError::NotFound),
    }
}
