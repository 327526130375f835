//! The log line of each request (at `info`): tracing-actix-web's root span, with the client
//! address taken by the operator's proxy rule (`client`) rather than from whatever
//! `X-Forwarded-For` a client sends.

use actix_web::Error;
use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use tracing::Span;
use tracing_actix_web::{DefaultRootSpanBuilder, RootSpanBuilder};

use super::client;

/// Builds each request's span.
pub struct RequestSpan;

impl RootSpanBuilder for RequestSpan {
    fn on_request_start(request: &ServiceRequest) -> Span {
        let route = request.match_pattern().unwrap_or_else(|| "default".into());
        tracing::info_span!(
            "HTTP request",
            http.method = %request.method(),
            http.route = %route,
            http.target = %request.uri().path(),
            http.client_ip = %client::of_service_request(request),
            http.status_code = tracing::field::Empty,
            otel.status_code = tracing::field::Empty,
            exception.message = tracing::field::Empty,
            exception.details = tracing::field::Empty,
        )
    }

    fn on_request_end<B: MessageBody>(span: Span, outcome: &Result<ServiceResponse<B>, Error>) {
        let status = match outcome {
            Ok(response) => response.status(),
            Err(error) => error.as_response_error().status_code(),
        };
        // One line per request, inside its span (so with its route and client address).
        tracing::info!(parent: &span, status = status.as_u16(), "request handled");
        DefaultRootSpanBuilder::on_request_end(span, outcome);
    }
}
