//! Times every HTTP request into the request histogram, labelled by the route template it
//! matched (`/s/{tenant}/{survey}`, never the path itself, so labels stay few), its method
//! and its status class.

use std::time::Instant;

use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::{Method, StatusCode};
use actix_web::middleware::Next;

fn method(method: &Method) -> &'static str {
    match *method {
        Method::GET => "GET",
        Method::HEAD => "HEAD",
        Method::POST => "POST",
        Method::PUT => "PUT",
        Method::DELETE => "DELETE",
        Method::PATCH => "PATCH",
        Method::OPTIONS => "OPTIONS",
        _ => "other",
    }
}

fn class(status: StatusCode) -> &'static str {
    match status.as_u16() {
        100..=199 => "1xx",
        200..=299 => "2xx",
        300..=399 => "3xx",
        400..=499 => "4xx",
        _ => "5xx",
    }
}

/// The middleware (`actix_web::middleware::from_fn(metrics::http::record)`).
pub async fn record(
    request: ServiceRequest,
    next: Next<impl MessageBody>,
) -> Result<ServiceResponse<impl MessageBody>, actix_web::Error> {
    let started = Instant::now();
    let method = method(request.method());
    let response = next.call(request).await;
    let (route, status) = match &response {
        Ok(response) => (response.request().match_pattern(), class(response.status())),
        Err(error) => (None, class(error.as_response_error().status_code())),
    };
    crate::telemetry::metrics::request(method, route, status, started.elapsed());
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_are_grouped_by_class() {
        assert_eq!(class(StatusCode::OK), "2xx");
        assert_eq!(class(StatusCode::SEE_OTHER), "3xx");
        assert_eq!(class(StatusCode::UNPROCESSABLE_ENTITY), "4xx");
        assert_eq!(class(StatusCode::SERVICE_UNAVAILABLE), "5xx");
    }

    #[test]
    fn unusual_methods_share_one_label() {
        assert_eq!(method(&Method::POST), "POST");
        assert_eq!(
            method(&Method::from_bytes(b"BREW").expect("a method")),
            "other"
        );
    }
}
