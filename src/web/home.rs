//! `GET /`: what Canvass is, for a visitor who arrives at the root.

use actix_web::HttpResponse;
use askama::Template;

use super::{WebError, render};

#[derive(Template)]
#[template(path = "public/home.html")]
struct HomePage;

/// The home page.
pub async fn show() -> Result<HttpResponse, WebError> {
    render(&HomePage)
}
