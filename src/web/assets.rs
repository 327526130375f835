//! `GET /static/{file}`: the stylesheet, the survey page's script, the tenant pages' one and the designer's, compiled into the binary
//! so one file is the whole app.

use actix_web::http::header::{self, CacheControl, CacheDirective};
use actix_web::{HttpResponse, web};

use super::WebError;

const STYLESHEET: &str = include_str!("../../static/canvass.css");
const LOGIC_SCRIPT: &str = include_str!("../../static/logic.js");
const TENANT_SCRIPT: &str = include_str!("../../static/tenant.js");
const DESIGNER_SCRIPT: &str = include_str!("../../static/designer.js");

/// Serves a known static file, or 404.
pub async fn serve(file: web::Path<String>) -> Result<HttpResponse, WebError> {
    let (content_type, body) = match file.as_str() {
        "canvass.css" => ("text/css; charset=utf-8", STYLESHEET),
        "logic.js" => ("text/javascript; charset=utf-8", LOGIC_SCRIPT),
        "tenant.js" => ("text/javascript; charset=utf-8", TENANT_SCRIPT),
        "designer.js" => ("text/javascript; charset=utf-8", DESIGNER_SCRIPT),
        _ => return Err(WebError::NotFound),
    };
    Ok(HttpResponse::Ok()
        .insert_header((header::CONTENT_TYPE, content_type))
        .insert_header(CacheControl(vec![
            CacheDirective::Public,
            CacheDirective::MaxAge(3600),
        ]))
        .body(body))
}
