//! Load-run results: throughput and latency percentiles, and progress lines while it runs.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// What one client saw.
#[derive(Default)]
pub(super) struct ClientRun {
    /// Latencies of each respondent's last POST.
    pub(super) latencies: Vec<Duration>,
    /// Every POST answered as expected.
    pub(super) posts: u64,
    pub(super) errors: u64,
}

/// The outcome of one measurement.
#[derive(Debug, Clone)]
pub struct Report {
    /// Requests answered as expected.
    pub ok: u64,
    /// Requests that failed or got an unexpected status.
    pub errors: u64,
    /// Successful requests per second (last POSTs: submissions, for `serve`).
    pub per_second: f64,
    /// Every POST answered as expected, per second (pages and submissions).
    pub posts_per_second: f64,
    /// Median latency.
    pub p50: Duration,
    /// 99th-percentile latency.
    pub p99: Duration,
}

impl Report {
    pub(super) fn from_runs(runs: Vec<ClientRun>, elapsed: Duration) -> Self {
        let errors = runs.iter().map(|run| run.errors).sum();
        let posts: u64 = runs.iter().map(|run| run.posts).sum();
        let mut latencies: Vec<Duration> = runs.into_iter().flat_map(|run| run.latencies).collect();
        latencies.sort_unstable();
        let percentile = |p: f64| {
            latencies
                .get(((latencies.len() as f64 * p) as usize).min(latencies.len().saturating_sub(1)))
                .copied()
                .unwrap_or_default()
        };
        Self {
            ok: latencies.len() as u64,
            errors,
            per_second: latencies.len() as f64 / elapsed.as_secs_f64().max(f64::EPSILON),
            posts_per_second: posts as f64 / elapsed.as_secs_f64().max(f64::EPSILON),
            p50: percentile(0.50),
            p99: percentile(0.99),
        }
    }

    /// One line for the terminal.
    pub fn line(&self, what: &str) -> String {
        format!(
            "{what:<34} {:>9.0} req/s   p50 {:>6.2} ms   p99 {:>6.2} ms   ({} ok, {} errors)",
            self.per_second,
            self.p50.as_secs_f64() * 1e3,
            self.p99.as_secs_f64() * 1e3,
            self.ok,
            self.errors
        )
    }
}

/// Prints the running count once a second until aborted or past the deadline.
pub(super) async fn progress(done: Arc<AtomicU64>, started: Instant, deadline: Instant) {
    let mut tick = tokio::time::interval(Duration::from_secs(1));
    tick.tick().await;
    while Instant::now() < deadline {
        tick.tick().await;
        let count = done.load(Ordering::Relaxed);
        let elapsed = started.elapsed().as_secs_f64();
        eprintln!(
            "  {elapsed:>4.0} s  {count:>9} done  {:>9.0}/s",
            count as f64 / elapsed
        );
    }
}
