//! Turns an askama template into an HTML response; every page goes through here.

use actix_web::HttpResponse;
use actix_web::http::StatusCode;
use actix_web::http::header::ContentType;
use askama::Template;

use super::{Reply, WebError};

/// Renders `template` as a `200 OK` HTML page.
pub fn render(template: &impl Template) -> Reply {
    render_with_status(StatusCode::OK, template)
}

/// Renders `template` as an HTML page with the given status.
pub fn render_with_status(status: StatusCode, template: &impl Template) -> Reply {
    let body = template.render().map_err(WebError::Template)?;
    Ok(HttpResponse::build(status)
        .content_type(ContentType::html())
        .body(body))
}
