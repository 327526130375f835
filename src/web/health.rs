//! `GET /healthz`: a cheap liveness probe for load balancers and scripts.

use actix_web::HttpResponse;
use serde::Serialize;

#[derive(Serialize)]
struct Health {
    status: &'static str,
    version: &'static str,
}

/// Answers `200 OK` with a small JSON body while the process serves requests. It makes no
/// storage call, so frequent probes cost no storage transactions.
pub async fn check() -> HttpResponse {
    HttpResponse::Ok().json(Health {
        status: "ok",
        version: env!("CARGO_PKG_VERSION"),
    })
}
