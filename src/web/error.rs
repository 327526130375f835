//! The web error type: each variant maps to one status and renders as an error page.
//! Internal failures are logged with their cause chain and shown to users without internals.

use actix_web::http::StatusCode;
use actix_web::http::header::ContentType;
use actix_web::{HttpResponse, ResponseError};
use askama::Template;

use crate::domain::member::Role;
use crate::service::StoreError;
use crate::telemetry::error_chain;

/// What a handler answers: a page or a document, or an error that `WebError` maps to its
/// response in one place.
pub type Reply = Result<HttpResponse, WebError>;

/// Everything a handler can fail with.
#[derive(Debug, thiserror::Error)]
pub enum WebError {
    /// The page or resource does not exist (or is not the caller's to see).
    #[error("not found")]
    NotFound,
    /// The request is malformed; the message says how, in words for the user.
    #[error("bad request: {0}")]
    BadRequest(String),
    /// The request body took longer than the configured time to arrive.
    #[error("the request body took too long to arrive")]
    RequestTimeout,
    /// The request body is over the configured limit.
    #[error("request body over {limit} bytes")]
    PayloadTooLarge {
        /// The limit in bytes.
        limit: usize,
    },
    /// The page needs a signed-in owner.
    #[error("sign-in required")]
    SignInRequired,
    /// The request failed a security check (a missing or wrong CSRF token).
    #[error("forbidden: {0}")]
    Forbidden(String),
    /// A link that worked once no longer does (used, withdrawn or expired); the message says
    /// what to do.
    #[error("gone: {0}")]
    Gone(String),
    /// Too many attempts; the message says when to try again.
    #[error("too many requests: {0}")]
    TooManyRequests(String),
    /// What was sent cannot be saved as it is; the message says why, by field.
    #[error("unprocessable: {0}")]
    Unprocessable(String),
    /// A store failed underneath the request.
    #[error("a store failed")]
    Store(#[from] StoreError),
    /// Something on the server failed that is neither storage nor a template (a worker thread
    /// pool, hashing, a response header); the text is for the log only.
    #[error("internal failure: {0}")]
    Internal(String),
    /// A template failed to render.
    #[error("rendering a page failed")]
    Template(#[source] askama::Error),
    /// What was asked for is served by another region, at this address: a 307, so a form
    /// posted here is posted there as it was.
    #[error("served in another region: {0}")]
    Elsewhere(String),
}

impl From<crate::domain::definition::DefinitionErrors> for WebError {
    /// A survey change that a page makes without a form of its own to show problems beside
    /// (its languages, its translations) and the definition checker refused.
    fn from(errors: crate::domain::definition::DefinitionErrors) -> Self {
        let said: Vec<String> = errors
            .iter()
            .map(|(field, problem)| format!("{field}: {problem}"))
            .collect();
        WebError::Unprocessable(said.join("; "))
    }
}

impl From<crate::service::accounts::AccountError> for WebError {
    fn from(error: crate::service::accounts::AccountError) -> Self {
        match error {
            crate::service::accounts::AccountError::Store(error) => WebError::Store(error),
            hashing => WebError::Internal(hashing.to_string()),
        }
    }
}

/// The page shown for any error.
#[derive(Template)]
#[template(path = "error.html")]
struct ErrorPage {
    status: u16,
    title: &'static str,
    message: String,
    /// The tenant site's menu, for a signed-in member: their role and session's CSRF token.
    menu: Option<(Role, String)>,
}

impl WebError {
    fn title_and_message(&self) -> (&'static str, String) {
        match self {
            WebError::NotFound => (
                "Page not found",
                "There is nothing at this address. Check the link you followed.".into(),
            ),
            WebError::BadRequest(message) => {
                ("This request could not be accepted", message.clone())
            }
            WebError::SignInRequired => ("Please sign in", "Sign in to see this page.".into()),
            WebError::Forbidden(message) => ("This request was refused", message.clone()),
            WebError::TooManyRequests(message) => ("Too many attempts", message.clone()),
            WebError::Gone(message) => ("This link no longer works", message.clone()),
            WebError::Unprocessable(message) => ("This change was not saved", message.clone()),
            WebError::Elsewhere(_) => (
                "This survey is answered elsewhere",
                "It is served from another address; your browser goes there now.".into(),
            ),
            WebError::RequestTimeout => (
                "This took too long",
                "What you sent did not arrive in time, so it was not saved. Please check your \
                 connection and send it again."
                    .into(),
            ),
            WebError::PayloadTooLarge { limit } => (
                "Your answers are too large",
                format!(
                    "This site accepts at most {} KB in one submission. Please shorten your \
                     answers and send them again.",
                    limit / 1024
                ),
            ),
            WebError::Store(error) if error.is_full() => (
                "Nothing was saved",
                "This service has no storage space left at the moment, so what you sent was not \
                 saved. Please go back and send it again in a few minutes."
                    .into(),
            ),
            WebError::Store(error) if error.is_corrupt() => (
                "This cannot be shown right now",
                "Part of what this page shows cannot be read at the moment. Nothing is lost: the \
                 answers are kept, and the operator's repair pass (canvass reconcile) rebuilds \
                 what they add up to. Please try again later."
                    .into(),
            ),
            WebError::Store(_) | WebError::Template(_) | WebError::Internal(_) => (
                "Something went wrong",
                "We could not complete your request. Please try again in a moment.".into(),
            ),
        }
    }
}

impl ResponseError for WebError {
    fn status_code(&self) -> StatusCode {
        match self {
            WebError::NotFound => StatusCode::NOT_FOUND,
            WebError::BadRequest(_) => StatusCode::BAD_REQUEST,
            WebError::SignInRequired => StatusCode::SEE_OTHER,
            WebError::Forbidden(_) => StatusCode::FORBIDDEN,
            WebError::TooManyRequests(_) => StatusCode::TOO_MANY_REQUESTS,
            WebError::Gone(_) => StatusCode::GONE,
            WebError::Unprocessable(_) => StatusCode::UNPROCESSABLE_ENTITY,
            WebError::PayloadTooLarge { .. } => StatusCode::PAYLOAD_TOO_LARGE,
            WebError::RequestTimeout => StatusCode::REQUEST_TIMEOUT,
            WebError::Elsewhere(_) => StatusCode::TEMPORARY_REDIRECT,
            WebError::Store(error) if error.is_full() || error.is_corrupt() => {
                StatusCode::SERVICE_UNAVAILABLE
            }
            WebError::Store(_) | WebError::Template(_) | WebError::Internal(_) => {
                StatusCode::INTERNAL_SERVER_ERROR
            }
        }
    }

    fn error_response(&self) -> HttpResponse {
        if let WebError::SignInRequired = self {
            return HttpResponse::SeeOther()
                .insert_header((actix_web::http::header::LOCATION, "/tenant/sign-in"))
                .finish();
        }
        if let WebError::Elsewhere(location) = self {
            return HttpResponse::TemporaryRedirect()
                .insert_header((actix_web::http::header::LOCATION, location.as_str()))
                .finish();
        }
        if self.status_code().is_server_error() {
            tracing::error!(error = %error_chain(self), "request failed");
        }
        self.page(None)
    }
}

impl WebError {
    /// The error page, with the tenant site's menu for a signed-in member (`role`, and their
    /// session's CSRF token for the sign-out button).
    pub(crate) fn page(&self, menu: Option<(Role, String)>) -> HttpResponse {
        let status = self.status_code();
        let (title, message) = self.title_and_message();
        let page = ErrorPage {
            status: status.as_u16(),
            title,
            message,
            menu,
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
pub async fn not_found() -> Result<HttpResponse, WebError> {
    Err(WebError::NotFound)
}
