//! `GET /healthz` (liveness: the process answers) and `GET /readyz` (readiness: it should get
//! new traffic: storage answers and it is not shutting down), for load balancers and scripts.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use actix_web::HttpResponse;
use serde::Serialize;

use super::State;
use crate::service::App;

/// How long one readiness probe waits for storage before calling it unreachable.
const PROBE_TIMEOUT: Duration = Duration::from_secs(2);

/// How long a probe's result is reused: load balancers probe often, and each probe costs two
/// storage transactions.
const PROBE_REUSE: Duration = Duration::from_secs(1);

#[derive(Serialize)]
struct Health<'a> {
    status: &'a str,
    version: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<&'a str>,
}

/// Answers `200 OK` with a small JSON body while the process serves requests. It makes no
/// storage call, so frequent probes cost no storage transactions.
pub async fn check() -> HttpResponse {
    HttpResponse::Ok().json(Health {
        status: "ok",
        version: env!("CARGO_PKG_VERSION"),
        reason: None,
    })
}

/// Whether this process should be sent new requests.
#[derive(Debug, Default)]
pub struct Readiness {
    stopping: AtomicBool,
    // Whether the last answer was 503, so only changes are logged, not every probe.
    unready: AtomicBool,
    last: tokio::sync::Mutex<Option<(Instant, Result<(), String>)>>,
}

impl Readiness {
    /// From now on `/readyz` answers 503: the process is shutting down.
    pub fn stop(&self) {
        self.stopping.store(true, Ordering::SeqCst);
    }

    /// Whether the process is shutting down.
    pub fn stopping(&self) -> bool {
        self.stopping.load(Ordering::SeqCst)
    }

    /// Whether storage answers: a blob read and a queue read, each within the timeout. The
    /// lock makes concurrent probes share one check.
    async fn storage_reachable(&self, app: &App) -> Result<(), String> {
        let mut last = self.last.lock().await;
        if let Some((at, result)) = last.as_ref()
            && at.elapsed() < PROBE_REUSE
        {
            return result.clone();
        }
        let probe = crate::service::operations::storage_answers(app);
        let result = match tokio::time::timeout(PROBE_TIMEOUT, probe).await {
            Ok(result) => result,
            Err(_) => Err(format!(
                "storage did not answer within {} s",
                PROBE_TIMEOUT.as_secs()
            )),
        };
        *last = Some((Instant::now(), result.clone()));
        result
    }
}

/// `GET /readyz`: `200` when storage can be reached and the process is not shutting down,
/// else `503` with the reason (logged when it changes: a load balancer only sees the status).
pub async fn ready(state: State) -> HttpResponse {
    let readiness = &state.readiness;
    let problem = if readiness.stopping() {
        Err("shutting down".to_owned())
    } else {
        readiness.storage_reachable(&state.app).await
    };
    let was_unready = readiness.unready.swap(problem.is_err(), Ordering::SeqCst);
    match &problem {
        Err(reason) if !was_unready => tracing::warn!(%reason, "not ready"),
        Ok(()) if was_unready => tracing::info!("ready again"),
        _ => {}
    }
    match problem {
        Ok(()) => HttpResponse::Ok().json(Health {
            status: "ready",
            version: env!("CARGO_PKG_VERSION"),
            reason: None,
        }),
        Err(reason) => HttpResponse::ServiceUnavailable().json(Health {
            status: "unavailable",
            version: env!("CARGO_PKG_VERSION"),
            reason: Some(&reason),
        }),
    }
}
