//! What the process counts for operators: one registry of Prometheus metrics per process,
//! recorded into from wherever the event happens (stores, workers, pages), and served to
//! Prometheus by the metrics listener on its own address.
//!
//! Recording is a few atomic operations (a label lookup for labelled metrics), cheap enough to
//! stay on even when nothing scrapes; the per-request HTTP histogram is only recorded when
//! the metrics listener is on (the request timer decides). Queue depths and storage
//! transactions are read when scraped, so they are never staler than the scrape.

use std::borrow::Cow;
use std::sync::LazyLock;
use std::sync::atomic::AtomicU64;
use std::time::Duration;

use prometheus_client::encoding::{EncodeLabelSet, EncodeLabelValue};
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::{Registry, Unit};

use crate::domain::Subscription;

/// A tenant's plan, as a label.
#[derive(Clone, Copy, Debug, Hash, PartialEq, Eq, EncodeLabelValue)]
#[allow(non_camel_case_types)] // label values are lowercase, as Prometheus spells them
pub enum Plan {
    /// Standard subscribers.
    standard,
    /// Premium subscribers.
    premium,
}

impl From<Subscription> for Plan {
    fn from(subscription: Subscription) -> Self {
        match subscription {
            Subscription::Standard => Plan::standard,
            Subscription::Premium => Plan::premium,
        }
    }
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct PlanLabels {
    plan: Plan,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RouteLabels {
    method: &'static str,
    route: String,
    status: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct QueueLabels {
    queue: String,
    role: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct OperationLabels {
    operation: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct StateLabels {
    state: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct CacheLabels {
    cache: &'static str,
    result: &'static str,
}

/// An export job's step, as counted.
#[derive(Clone, Copy, Debug)]
pub enum ExportState {
    /// A tenant asked for it.
    Requested,
    /// It finished.
    Done,
    /// It failed for good.
    Failed,
    /// Storage failed under it; it will resume.
    Interrupted,
}

type HistogramFamily<L> = Family<L, Histogram, fn() -> Histogram>;

/// The process's metrics.
pub struct Metrics {
    registry: Registry,
    requests: HistogramFamily<RouteLabels>,
    submissions: Family<PlanLabels, Counter>,
    batches: Family<PlanLabels, Counter>,
    counted: Family<PlanLabels, Counter>,
    duplicates: Family<PlanLabels, Counter>,
    poisoned: Counter,
    conflicts: Counter,
    merge_seconds: HistogramFamily<PlanLabels>,
    freshness: HistogramFamily<PlanLabels>,
    queue_length: Family<QueueLabels, Gauge>,
    queue_age: Family<QueueLabels, Gauge<f64, AtomicU64>>,
    transactions: Family<OperationLabels, Counter>,
    exports: Family<StateLabels, Counter>,
    cache: Family<CacheLabels, Counter>,
    scrape_errors: Counter,
    transfer_waiting: Gauge,
    transfer_age: Gauge<f64, AtomicU64>,
}

fn latency_histogram() -> Histogram {
    // 0.5 ms to about 16 s.
    Histogram::new(prometheus_client::metrics::histogram::exponential_buckets(
        0.0005, 2.0, 16,
    ))
}

fn freshness_histogram() -> Histogram {
    // From a busy worker's fraction of a second to an hour of backlog.
    Histogram::new([
        0.1, 0.25, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0, 600.0, 1800.0, 3600.0,
    ])
}

impl Metrics {
    fn new() -> Self {
        let mut metrics = Metrics {
            // With regions, every series says which region's process it came from.
            registry: Registry::with_prefix_and_labels(
                "canvass",
                REGION
                    .get()
                    .map(|region| (Cow::Borrowed("region"), Cow::Owned(region.clone())))
                    .into_iter(),
            ),
            requests: Family::new_with_constructor(latency_histogram),
            submissions: Family::default(),
            batches: Family::default(),
            counted: Family::default(),
            duplicates: Family::default(),
            poisoned: Counter::default(),
            conflicts: Counter::default(),
            merge_seconds: Family::new_with_constructor(latency_histogram),
            freshness: Family::new_with_constructor(freshness_histogram),
            queue_length: Family::default(),
            queue_age: Family::default(),
            transactions: Family::default(),
            exports: Family::default(),
            cache: Family::default(),
            scrape_errors: Counter::default(),
            transfer_waiting: Gauge::default(),
            transfer_age: Gauge::default(),
        };
        let r = &mut metrics.registry;
        r.register_with_unit(
            "http_request_duration",
            "HTTP requests by route template, method and status class, and how long they took \
             (its _count counts requests)",
            Unit::Seconds,
            metrics.requests.clone(),
        );
        r.register(
            "submissions",
            "Answers accepted and queued, by plan",
            metrics.submissions.clone(),
        );
        r.register(
            "worker_batches",
            "Batches of answer messages a worker processed, by plan",
            metrics.batches.clone(),
        );
        r.register(
            "worker_answers_counted",
            "Answers merged into their summary for the first time, by plan",
            metrics.counted.clone(),
        );
        r.register(
            "worker_duplicates",
            "Answer messages found already counted (redeliveries, repeated posts), by plan",
            metrics.duplicates.clone(),
        );
        r.register(
            "worker_poisoned",
            "Answer messages moved to the poison queue",
            metrics.poisoned.clone(),
        );
        r.register(
            "summary_conflicts",
            "Summary commits that lost an ETag race to another writer and were merged again",
            metrics.conflicts.clone(),
        );
        r.register_with_unit(
            "worker_merge_duration",
            "Time to merge one batch into its surveys' summaries (commit and settle), by plan",
            Unit::Seconds,
            metrics.merge_seconds.clone(),
        );
        r.register_with_unit(
            "summary_freshness",
            "Time from an answer's submission to its being counted in the summary, by plan",
            Unit::Seconds,
            metrics.freshness.clone(),
        );
        r.register(
            "queue_length",
            "Messages in a queue, visible or held (read when scraped)",
            metrics.queue_length.clone(),
        );
        r.register_with_unit(
            "queue_oldest_message_age",
            "How long the next message a worker would receive has waited; 0 when none waits \
             (read when scraped)",
            Unit::Seconds,
            metrics.queue_age.clone(),
        );
        r.register(
            "storage_transactions",
            "Storage calls this process made, by operation (as a cloud storage bill counts them)",
            metrics.transactions.clone(),
        );
        r.register(
            "export_jobs",
            "Export jobs by the state they reached",
            metrics.exports.clone(),
        );
        r.register(
            "cache_lookups",
            "Cache lookups by cache and result (hit: no storage read)",
            metrics.cache.clone(),
        );
        r.register(
            "scrape_errors",
            "Storage reads that failed while serving /metrics (queue gauges keep their last value)",
            metrics.scrape_errors.clone(),
        );
        r.register(
            "transfer_waiting",
            "Answers given in this region waiting to move to their tenants' home regions \
             (read when scraped; hosting regions only)",
            metrics.transfer_waiting.clone(),
        );
        r.register_with_unit(
            "transfer_oldest_answer_age",
            "How long the oldest answer waiting to move home has waited; 0 when none waits \
             (read when scraped; hosting regions only)",
            Unit::Seconds,
            metrics.transfer_age.clone(),
        );
        metrics
    }
}

/// The region this process runs in, when the installation has regions: set before the first
/// metric is recorded, it labels every series.
static REGION: std::sync::OnceLock<String> = std::sync::OnceLock::new();

/// Labels every metric of this process with its region (the first call wins; call it before
/// anything is recorded).
pub fn label_region(region: &str) {
    let _ = REGION.set(region.to_owned());
}

/// What waits in this region to move home, as a scrape read it.
pub fn transfer_backlog(waiting: u64, oldest: Duration) {
    let metrics = get();
    metrics
        .transfer_waiting
        .set(i64::try_from(waiting).unwrap_or(i64::MAX));
    metrics.transfer_age.set(oldest.as_secs_f64());
}

static METRICS: LazyLock<Metrics> = LazyLock::new(Metrics::new);

fn get() -> &'static Metrics {
    &METRICS
}

/// An answer was accepted and queued.
pub fn submission(subscription: Subscription) {
    let plan = subscription.into();
    get().submissions.get_or_create(&PlanLabels { plan }).inc();
}

/// What a worker made of one batch of answer messages.
pub struct BatchFigures<'a> {
    /// Which class of queue the batch came from.
    pub plan: Plan,
    /// When each answer counted for the first time was submitted.
    pub counted: &'a [time::OffsetDateTime],
    /// Messages of answers counted already.
    pub duplicates: usize,
    /// Messages moved to the poison queue.
    pub poisoned: usize,
    /// Lost ETag races.
    pub conflicts: usize,
    /// Time spent merging.
    pub merge: Duration,
}

/// A worker processed a batch.
pub fn batch(figures: &BatchFigures<'_>) {
    get().record_batch(figures, time::OffsetDateTime::now_utc());
}

impl Metrics {
    fn record_batch(&self, figures: &BatchFigures<'_>, now: time::OffsetDateTime) {
        let labels = PlanLabels { plan: figures.plan };
        self.batches.get_or_create(&labels).inc();
        self.counted
            .get_or_create(&labels)
            .inc_by(figures.counted.len() as u64);
        self.duplicates
            .get_or_create(&labels)
            .inc_by(figures.duplicates as u64);
        self.poisoned.inc_by(figures.poisoned as u64);
        self.conflicts.inc_by(figures.conflicts as u64);
        self.merge_seconds
            .get_or_create(&labels)
            .observe(figures.merge.as_secs_f64());
        let freshness = self.freshness.get_or_create(&labels);
        for submitted in figures.counted {
            freshness.observe((now - *submitted).as_seconds_f64().max(0.0));
        }
    }

    /// The metrics in the OpenMetrics text format.
    fn render(&self) -> String {
        let mut text = String::new();
        // Writing into a String cannot fail.
        let _ = prometheus_client::encoding::text::encode(&mut text, &self.registry);
        text
    }
}

/// An export job reached a state.
pub fn export(state: ExportState) {
    let state = match state {
        ExportState::Requested => "requested",
        ExportState::Done => "done",
        ExportState::Failed => "failed",
        ExportState::Interrupted => "interrupted",
    };
    get().exports.get_or_create(&StateLabels { state }).inc();
}

/// A request was answered: its method, the route it matched (`None`: no route did) and its
/// status class, and how long it took.
pub fn request(method: &'static str, route: Option<String>, status: &'static str, took: Duration) {
    let labels = RouteLabels {
        method,
        // Paths no route matched would make a label per path.
        route: route.unwrap_or_else(|| "unmatched".to_owned()),
        status,
    };
    get()
        .requests
        .get_or_create(&labels)
        .observe(took.as_secs_f64());
}

/// A queue's depth as a scrape read it: its length and how long its head has waited.
pub fn queue_depth(queue: String, role: &'static str, length: u64, head_age: Duration) {
    let labels = QueueLabels { queue, role };
    let metrics = get();
    metrics
        .queue_length
        .get_or_create(&labels)
        .set(i64::try_from(length).unwrap_or(i64::MAX));
    metrics
        .queue_age
        .get_or_create(&labels)
        .set(head_age.as_secs_f64());
}

/// A read a scrape makes failed or timed out (the gauges keep their last value).
pub fn scrape_error() {
    get().scrape_errors.inc();
}

/// Storage transactions of one kind made since the last scrape.
pub fn transactions(operation: &'static str, count: u64) {
    get()
        .transactions
        .get_or_create(&OperationLabels { operation })
        .inc_by(count);
}

/// Every metric in the OpenMetrics text format.
pub fn rendered() -> String {
    get().render()
}

/// A cache was asked for something; `hit` when it had it (no storage read).
pub fn cache_lookup(cache: &'static str, hit: bool) {
    let result = if hit { "hit" } else { "miss" };
    get()
        .cache
        .get_or_create(&CacheLabels { cache, result })
        .inc();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_batch_counts_its_answers_and_their_freshness_by_plan() {
        let metrics = Metrics::new();
        let now = time::OffsetDateTime::now_utc();
        let submitted = now - time::Duration::seconds(3);
        metrics.record_batch(
            &BatchFigures {
                plan: Plan::premium,
                counted: &[submitted, submitted],
                duplicates: 1,
                poisoned: 0,
                conflicts: 2,
                merge: Duration::from_millis(5),
            },
            now,
        );
        let text = metrics.render();
        assert!(text.contains("canvass_worker_answers_counted_total{plan=\"premium\"} 2"));
        // Both answers waited 3 s: in the 5 s bucket, not in the 2 s one.
        assert!(
            text.contains(
                "canvass_summary_freshness_seconds_bucket{le=\"2.0\",plan=\"premium\"} 0"
            ),
            "{text}"
        );
        assert!(
            text.contains(
                "canvass_summary_freshness_seconds_bucket{le=\"5.0\",plan=\"premium\"} 2"
            )
        );
        assert!(text.contains("canvass_summary_conflicts_total 2"));
        assert!(text.contains("canvass_worker_duplicates_total{plan=\"premium\"} 1"));
        assert!(
            !text.contains("plan=\"standard\""),
            "nothing standard happened"
        );
    }

    #[test]
    fn an_answer_stamped_after_now_is_counted_as_fresh_not_negative() {
        // A web process's clock ahead of the worker's: no negative age reaches the histogram.
        let metrics = Metrics::new();
        let now = time::OffsetDateTime::now_utc();
        metrics.record_batch(
            &BatchFigures {
                plan: Plan::standard,
                counted: &[now + time::Duration::seconds(30)],
                duplicates: 0,
                poisoned: 0,
                conflicts: 0,
                merge: Duration::ZERO,
            },
            now,
        );
        let text = metrics.render();
        assert!(
            text.contains(
                "canvass_summary_freshness_seconds_bucket{le=\"0.1\",plan=\"standard\"} 1"
            ),
            "{text}"
        );
        assert!(text.contains("canvass_summary_freshness_seconds_sum{plan=\"standard\"} 0.0"));
    }
}
