//! The web error type: each variant maps to one status and renders as an error page.
//! Internal failures are logged with their cause chain and shown to users without internals.

use actix_web::http::StatusCode;
use actix_web::http::header::ContentType;
use actix_web::{HttpResponse, ResponseError};
use askama::Template;

use crate::storage;

/// Everything a handler can fail with.
#[derive(Debug, thiserror::Error)]
pub enum WebError {
    /// The page or resource does not exist (or is not the caller's to see).
    #[error("not found")]
    NotFound,
    /// Storage failed underneath the request.
    #[error("storage failed")]
    Storage(#[from] storage::Error),
    /// A template failed to render.
    #[error("rendering a page failed")]
    Template(#[source] askama::Error),
}

/// The page shown for any error.
#[derive(Template)]
#[template(path = "error.html")]
struct ErrorPage<'a> {
    status: u16,
    title: &'a str,
    message: &'a str,
}

impl WebError {
    fn title_and_message(&self) -> (&'static str, &'static str) {
        match self {
            WebError::NotFound => (
                "Page not found",
                "There is nothing at this address. Check the link you followed.",
            ),
            WebError::Storage(_) | WebError::Template(_) => (
                "Something went wrong",
                "We could not complete your request. Please try again in a moment.",
            ),
        }
    }
}

/// The whole cause chain of an error, for logs.
fn chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

impl ResponseError for WebError {
    fn status_code(&self) -> StatusCode {
        match self {
            WebError::NotFound => StatusCode::NOT_FOUND,
            WebError::Storage(_) | WebError::Template(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    fn error_response(&self) -> HttpResponse {
        let status = self.status_code();
        if status.is_server_error() {
            tracing::error!(error = %chain(self), "request failed");
        }
        let (title, message) = self.title_and_message();
        let page = ErrorPage {
            status: status.as_u16(),
            title,
            message,
        };
        let mut response = HttpResponse::build(status);
        match page.render() {
            Ok(html) => response.content_type(ContentType::html()).body(html),
            // The error page itself failed: fall back to plain text rather than nothing.
            Err(_) => response.content_type(ContentType::plaintext()).body(title),
        }
    }
}

/// The fallback for every unknown route.
pub async fn not_found() -> Result<actix_web::HttpResponse, WebError> {
    Err(WebError::NotFound)
}
