//! Request bodies of the API: JSON, read within a size limit (1 MiB, room for the largest
//! definition) and within the server's time limit for bodies, so neither a huge nor a
//! trickling body holds the server's memory or a worker thread.

use std::future::Future;
use std::pin::Pin;

use actix_web::{FromRequest, HttpRequest, dev, http::header, web};
use serde::de::DeserializeOwned;

use super::ApiError;
use crate::web::State;

/// Largest API request body, in bytes.
pub const MAX_API_BODY: usize = 1024 * 1024;

/// A JSON body of type `T`.
pub struct JsonBody<T>(pub T);

impl<T: DeserializeOwned + 'static> FromRequest for JsonBody<T> {
    type Error = ApiError;
    type Future = Pin<Box<dyn Future<Output = Result<Self, ApiError>>>>;

    fn from_request(request: &HttpRequest, payload: &mut dev::Payload) -> Self::Future {
        let json = request
            .headers()
            .get(header::CONTENT_TYPE)
            .and_then(|value| value.to_str().ok())
            .is_some_and(|value| value.starts_with("application/json"));
        let body = limited(request, payload, MAX_API_BODY);
        Box::pin(async move {
            if !json {
                return Err(ApiError::NotJson);
            }
            serde_json::from_slice(&body.await?)
                .map(JsonBody)
                .map_err(|error| ApiError::BadRequest(format!("invalid JSON body: {error}")))
        })
    }
}

/// Largest workbook the API takes as a body, in bytes (an XLSForm of the largest survey is
/// far smaller; the workbook reader bounds what it unpacks too).
pub const MAX_WORKBOOK_BODY: usize = 5 * 1024 * 1024;

/// A spreadsheet sent as the whole body (any content type: it is told from its bytes).
pub struct WorkbookBody(pub web::Bytes);

impl FromRequest for WorkbookBody {
    type Error = ApiError;
    type Future = Pin<Box<dyn Future<Output = Result<Self, ApiError>>>>;

    fn from_request(request: &HttpRequest, payload: &mut dev::Payload) -> Self::Future {
        let body = limited(request, payload, MAX_WORKBOOK_BODY);
        Box::pin(async move { body.await.map(WorkbookBody) })
    }
}

/// The body, read within `limit` bytes and the server's time limit for bodies.
fn limited(
    request: &HttpRequest,
    payload: &mut dev::Payload,
    limit: usize,
) -> impl Future<Output = Result<web::Bytes, ApiError>> + use<> {
    let state = request.app_data::<State>().cloned();
    let payload = web::Payload::from_request(request, payload);
    async move {
        let state = state.ok_or_else(|| ApiError::BadRequest("no application".into()))?;
        let payload = payload
            .await
            .map_err(|error| ApiError::BadRequest(error.to_string()))?;
        let read = payload.to_bytes_limited(limit);
        match tokio::time::timeout(state.settings.body_timeout, read).await {
            Err(_) => Err(ApiError::Timeout),
            Ok(Err(_)) => Err(ApiError::TooLarge { limit }),
            Ok(Ok(Err(error))) => Err(ApiError::BadRequest(error.to_string())),
            Ok(Ok(Ok(body))) => Ok(body),
        }
    }
}
