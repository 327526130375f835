//! API errors: a status and a JSON body `{"error": reason}` (plus `fields` for validation).

use std::collections::BTreeMap;

use actix_web::http::StatusCode;
use actix_web::{HttpResponse, ResponseError};
use serde::Serialize;
use utoipa::ToSchema;

use crate::service::StoreError;
use crate::telemetry::error_chain;

/// Everything an API handler can fail with.
#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    /// No valid API key was presented.
    #[error("missing or invalid API key: send `Authorization: Bearer <key>`")]
    Unauthorized,
    /// The key's role does not allow the call.
    #[error("{0}")]
    Forbidden(String),
    /// The resource does not exist for this tenant.
    #[error("not found")]
    NotFound,
    /// The request is malformed.
    #[error("{0}")]
    BadRequest(String),
    /// The request is well-formed but its content is not valid.
    #[error("{reason}")]
    Invalid {
        /// What is wrong overall.
        reason: String,
        /// What is wrong, by field.
        fields: BTreeMap<String, String>,
    },
    /// The request conflicts with the resource's state now (retrying later may work).
    #[error("{0}")]
    Conflict(String),
    /// Not found, with a reason worth reading.
    #[error("{0}")]
    Missing(String),
    /// The body is larger than the API takes.
    #[error("the request body is over {limit} bytes")]
    TooLarge {
        /// The limit in bytes.
        limit: usize,
    },
    /// The body took longer than the server's limit to arrive.
    #[error("the request body took too long to arrive")]
    Timeout,
    /// The body is not sent as JSON.
    #[error("send the body as JSON, with Content-Type: application/json")]
    NotJson,
    /// A store failed.
    #[error("internal error")]
    Store(#[from] StoreError),
    /// Something else failed on the server (logged with its reason).
    #[error("internal error")]
    Internal(String),
}

/// The body of every error the API answers.
#[derive(Serialize, ToSchema)]
pub struct ErrorBody {
    /// What went wrong, in words.
    pub error: String,
    /// What is wrong, by field (`title`, `pages[1].questions[0].options`, ...), when the body
    /// was not valid.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fields: Option<BTreeMap<String, String>>,
}

impl ResponseError for ApiError {
    fn status_code(&self) -> StatusCode {
        match self {
            ApiError::Unauthorized => StatusCode::UNAUTHORIZED,
            ApiError::Forbidden(_) => StatusCode::FORBIDDEN,
            ApiError::NotFound => StatusCode::NOT_FOUND,
            ApiError::Conflict(_) => StatusCode::CONFLICT,
            ApiError::Missing(_) => StatusCode::NOT_FOUND,
            ApiError::BadRequest(_) => StatusCode::BAD_REQUEST,
            ApiError::Invalid { .. } => StatusCode::UNPROCESSABLE_ENTITY,
            ApiError::TooLarge { .. } => StatusCode::PAYLOAD_TOO_LARGE,
            ApiError::Timeout => StatusCode::REQUEST_TIMEOUT,
            ApiError::NotJson => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            ApiError::Store(error) if error.is_full() || error.is_corrupt() => {
                StatusCode::SERVICE_UNAVAILABLE
            }
            ApiError::Store(_) | ApiError::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    fn error_response(&self) -> HttpResponse {
        if let ApiError::Store(error) = self {
            tracing::error!(error = %error_chain(error), "API request failed");
        }
        if let ApiError::Internal(reason) = self {
            tracing::error!(%reason, "API request failed");
        }
        let (error, fields) = match self {
            ApiError::Invalid { reason, fields } => (reason.clone(), Some(fields.clone())),
            ApiError::Store(error) if error.is_full() => (
                "storage is full: nothing was saved; try again later".into(),
                None,
            ),
            ApiError::Store(error) if error.is_corrupt() => (
                "this cannot be read right now; the reconcile pass repairs it".into(),
                None,
            ),
            other => (other.to_string(), None),
        };
        let body = ErrorBody { error, fields };
        let mut response = HttpResponse::build(self.status_code());
        if matches!(self, ApiError::Unauthorized) {
            response.insert_header(("www-authenticate", "Bearer"));
        }
        response.json(body)
    }
}
