//! The log line of each request (at `info`), inside a span of the request (so that whatever a
//! handler logs carries its route and client too): the client address taken by the operator's
//! proxy rule (`client`) rather than from whatever `X-Forwarded-For` a client sends, and the
//! path with its secrets left out: a route's parameters that open something or tie a
//! respondent to an answer (personal and resume links, join and reset tokens, references,
//! signatures, ids) are logged by name only, so the log holds no link that works and cannot set
//! an anonymous participant beside their answer.
//!
//! A small middleware of its own rather than tracing-actix-web's: that one also drew a random
//! request id (a `getrandom` call), recorded fields into the span after its line was written,
//! and entered the span again for every chunk of the body: about 2% of a page step's CPU, for
//! nothing the log shows.

use actix_web::Error;
use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::middleware::Next;
use tracing::Instrument;

use super::client;

/// The middleware (`actix_web::middleware::from_fn(request_log::log)`): the request handled in
/// its span, then its line with the status.
pub async fn log(
    request: ServiceRequest,
    next: Next<impl MessageBody>,
) -> Result<ServiceResponse<impl MessageBody>, Error> {
    let (route, target) = route_and_target(&request);
    let span = tracing::info_span!(
        "HTTP request",
        http.method = %request.method(),
        http.route = %route,
        http.target = %target,
        http.client_ip = %client::of_service_request(&request),
    );
    let outcome = next.call(request).instrument(span.clone()).await;
    let status = match &outcome {
        Ok(response) => response.status(),
        Err(error) => error.as_response_error().status_code(),
    };
    // One line per request, inside its span (so with its route and client address).
    tracing::info!(parent: &span, status = status.as_u16(), "request handled");
    outcome
}

/// Paths one thread keeps their route and logged path for, and the longest kept.
const ROUTES_KEPT: usize = 1024;
const LONGEST_KEPT: usize = 256;

thread_local! {
    /// Each path's route and logged path, as last worked out on this thread: matching a path
    /// walks the routing table's patterns (regular expressions) and the same few paths come
    /// again and again (a survey's form and its pages).
    static ROUTES: std::cell::RefCell<std::collections::HashMap<String, (String, String)>> =
        std::cell::RefCell::new(std::collections::HashMap::new());
}

/// The request's route template (`default` when none matched) and its path as logged.
fn route_and_target(request: &ServiceRequest) -> (String, String) {
    let path = request.uri().path();
    if let Some(known) = ROUTES.with(|routes| routes.borrow().get(path).cloned()) {
        return known;
    }
    let pattern = request.match_pattern();
    let target = logged_path(pattern.as_deref(), path);
    let worked_out = (pattern.unwrap_or_else(|| "default".into()), target);
    if path.len() <= LONGEST_KEPT {
        ROUTES.with(|routes| {
            let mut routes = routes.borrow_mut();
            // Full (many different paths, as a crawler sends): start again.
            if routes.len() >= ROUTES_KEPT {
                routes.clear();
            }
            routes.insert(path.to_owned(), worked_out.clone());
        });
    }
    worked_out
}

/// Route parameters whose values are logged: none of them opens anything or names a
/// respondent.
const SHOWN: &[&str] = &[
    "tenant",
    "survey",
    "slug",
    "format",
    "n",
    "language",
    "file",
    "component",
    "property",
    "question",
];

/// Segments of a path no route matched that are logged (a mistyped link's secret is further on).
const UNMATCHED_SHOWN: usize = 3;

/// The path as logged: each segment holding a parameter not in `SHOWN` replaced by the
/// route's own segment (`/s/acme/tea/p/{link}`); for a path no route matched, its first
/// segments only.
pub fn logged_path(pattern: Option<&str>, path: &str) -> String {
    let Some(pattern) = pattern else {
        let mut segments = path.split('/');
        let shown: Vec<&str> = segments.by_ref().take(UNMATCHED_SHOWN + 1).collect();
        let rest = segments.next().map_or("", |_| "/…");
        return format!("{}{rest}", shown.join("/"));
    };
    let patterns: Vec<&str> = pattern.split('/').collect();
    let segments: Vec<&str> = path.split('/').collect();
    if patterns.len() != segments.len() {
        return pattern.to_owned();
    }
    patterns
        .iter()
        .zip(&segments)
        .map(|(pattern, segment)| match secret(pattern) {
            true => *pattern,
            false => *segment,
        })
        .collect::<Vec<_>>()
        .join("/")
}

/// Whether a route's segment holds a parameter whose value is not logged.
fn secret(pattern: &str) -> bool {
    pattern.split('{').skip(1).any(|rest| {
        let name = rest.split(['}', ':']).next().unwrap_or("");
        !SHOWN.contains(&name)
    })
}

#[cfg(test)]
mod tests {
    use super::logged_path;

    #[test]
    fn secrets_in_a_path_are_logged_by_name_only() {
        let cases = [
            (
                Some("/s/{tenant}/{survey}/p/{link}"),
                "/s/acme/tea/p/Abc123",
                "/s/acme/tea/p/{link}",
            ),
            (
                Some("/s/{tenant}/{survey}/thanks/{reference}"),
                "/s/acme/tea/thanks/1001",
                "/s/acme/tea/thanks/{reference}",
            ),
            (
                Some("/tenant/join/{token}/sso"),
                "/tenant/join/xyz/sso",
                "/tenant/join/{token}/sso",
            ),
            (
                Some("/tenant/surveys/{slug}/responses.{format}"),
                "/tenant/surveys/tea/responses.csv",
                "/tenant/surveys/tea/responses.csv",
            ),
            (Some("/files/{token}"), "/files/a.b", "/files/{token}"),
            (None, "/s/acme/tea/p/secret/x", "/s/acme/tea/…"),
            (None, "/nowhere", "/nowhere"),
        ];
        for (pattern, path, logged) in cases {
            assert_eq!(logged_path(pattern, path), logged, "{path}");
        }
    }
}
