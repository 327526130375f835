//! `GET /`: what Canvass is, for a visitor who arrives at the root.

use askama::Template;

use super::{Reply, render};

#[derive(Template)]
#[template(path = "public/home.html")]
struct HomePage;

/// The home page.
pub async fn show() -> Reply {
    render(&HomePage)
}
