//! `canvass bench`: the worker's benchmarks, each on a fresh local data directory.
//!
//! - `transactions`: storage transactions per answer, counted by the adapters, for N answers
//!   submitted and then drained by one worker;
//! - `drain`: answers/s to drain a backlog of N answers with 1, 2 and 4 worker processes
//!   (`drain`);
//! - `freshness`: time from thank-you to being counted, p50/p99, for premium and standard
//!   answers under a steady load that keeps a backlog;
//! - `export`: rows/s of the PostgreSQL export against a raw `\copy`;
//! - `sheets`: rows/s and peak memory of the XLSX and CSV downloads at several sizes;
//! - `responses`: blob reads and time of a page of responses, filtered by date or not;
//! - `participants`: time and peak memory of importing N participants, and a page's cost.
//! - `mailing`: an invitation to N participants through an SMTP server: messages/s.
//! - `uploads`: time and peak memory of reading hostile spreadsheets, and the largest honest one.

mod answers;
mod drain;
mod export;
mod idle;
mod mailing;
mod participants;
mod responses;
mod sheets;
pub mod transfer;
pub mod uploads;

use std::path::PathBuf;
use std::time::{Duration, Instant};

use clap::Subcommand;
use futures_util::future::join_all;
use time::OffsetDateTime;

use crate::domain::Subscription;
use crate::storage::Operation;
use crate::stores::{Answering, StoreError, Stores};
use crate::worker::{StepOutcome, Worker, WorkerSettings};

/// Which benchmark to run.
#[derive(Clone, Debug, Subcommand)]
pub enum Bench {
    /// What an idle worker costs in storage calls a minute, and how soon it counts a lone
    /// answer after a quiet spell (its last line: `idle: N storage calls a minute per worker;
    /// a lone answer counted in M ms`).
    Idle {
        /// Seconds to count an idle worker's calls over (after its waits have grown).
        #[arg(long, default_value_t = 60)]
        seconds: u64,
    },
    /// Storage transactions per answer (submit + worker).
    Transactions {
        /// Answers to submit and drain.
        #[arg(long, default_value_t = 10_000)]
        answers: u64,
    },
    /// Answers moved from a hosting region home per second, and the storage transactions the
    /// move adds per answer in each region (two regions on local storage).
    Transfer {
        /// Answers to give in the hosting region and move.
        #[arg(long, default_value_t = 10_000)]
        answers: u64,
    },
    /// Drain rate of a backlog with several worker processes.
    Drain {
        /// Answers in the backlog.
        #[arg(long, default_value_t = 100_000)]
        answers: u64,
        /// Worker process counts to measure, e.g. 1,2,4.
        #[arg(long, value_delimiter = ',', default_value = "1,2,4")]
        processes: Vec<usize>,
        /// Surveys the answers are spread over (1 = one hot survey).
        #[arg(long, default_value_t = 1)]
        surveys: u64,
        /// Queues each class of answers is split over (as `CANVASS_QUEUE_SHARDS`).
        #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..=16))]
        shards: u16,
        /// Runs of each process count, interleaved; the median is reported (this machine's
        /// figures vary by a fifth from run to run).
        #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..=50))]
        runs: u32,
        /// Give each worker process a data directory and backlog of its own (the same answers
        /// in all): nothing is shared, so this measures what the machine allows N processes.
        #[arg(long)]
        separate: bool,
        /// Segment questions in the benchmark survey (0 to 3: drink, rating, recommend), whose
        /// segments the workers keep as they count.
        #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u8).range(0..=3))]
        segments: u8,
        /// Drain on this Azure Storage account (a standard connection string; an empty
        /// emulator) instead of a fresh local data directory.
        #[arg(long, env = "CANVASS_AZURE_CONNECTION_STRING", hide_env_values = true)]
        azure: Option<String>,
        /// The workers' shard lease (as `CANVASS_SHARD_LEASE_SECS`); 0 runs them without
        /// affinity, every worker taking every shard, as before it existed.
        #[arg(long, default_value_t = crate::worker::affinity::DEFAULT_SHARD_LEASE_SECS)]
        shard_lease_secs: u64,
    },
    /// Export rows/s to PostgreSQL against a raw `\copy` of the same rows through psql.
    Export {
        /// Answers in the survey.
        #[arg(long, default_value_t = 100_000)]
        answers: u64,
        /// A PostgreSQL server to make a scratch database on (it is dropped afterwards).
        #[arg(
            long,
            env = "CANVASS_BENCH_DATABASE_URL",
            default_value = "postgres://postgres@127.0.0.1:5432/test"
        )]
        database_url: String,
    },
    /// XLSX and CSV downloads: rows/s and peak memory, at each size.
    Sheets {
        /// Survey sizes (answers) to measure, e.g. 100000,200000.
        #[arg(long, value_delimiter = ',', default_value = "100000,200000")]
        answers: Vec<u64>,
    },
    /// Participants imported from a sheet (time, peak memory), and a page's cost.
    Participants {
        /// Participants in the sheet.
        #[arg(long, default_value_t = 100_000)]
        count: u64,
    },
    /// An invitation mailing to N participants through an SMTP server: messages/s.
    Mailing {
        /// Participants invited.
        #[arg(long, default_value_t = 10_000)]
        count: u64,
        /// The SMTP server (a local one, such as aiosmtpd).
        #[arg(long)]
        smtp: String,
        /// Most messages a second (0: uncapped).
        #[arg(long, default_value_t = crate::worker::mailer::DEFAULT_MAILING_RATE)]
        rate: u32,
    },
    /// A page of responses in a large survey, unfiltered and filtered by date.
    Responses {
        /// Answers in the survey.
        #[arg(long, default_value_t = 1_000_000)]
        answers: u64,
        /// Days the answers were submitted over.
        #[arg(long, default_value_t = 100)]
        days: u64,
    },
    /// Uploaded spreadsheets read within the imports' bounds: time and peak memory of hostile
    /// sheets (two far cells, a zip bomb, repeated cells) and the largest honest one.
    Uploads,
    /// One sheet read as the participants import reads it (run by `uploads` as a process of
    /// its own).
    #[command(hide = true)]
    UploadRead {
        /// The sheet.
        #[arg(long)]
        file: PathBuf,
    },
    /// One download of a prepared benchmark survey (run by `sheets` as a process of its own).
    #[command(hide = true)]
    SheetDownload {
        /// The prepared data directory.
        #[arg(long)]
        data_dir: PathBuf,
        /// The download's type.
        #[arg(long, value_enum)]
        format: crate::export::SheetFormat,
        /// A statistics tool's download instead: `r` (a zip of the CSV and its script),
        /// `stata` (a `.dta` file) or `spss` (a `.sav` file).
        #[arg(long)]
        tool: Option<String>,
    },
    /// Summary freshness of premium and standard answers under load with a backlog.
    Freshness {
        /// Seconds to run.
        #[arg(long, default_value_t = 20)]
        seconds: u64,
        /// Answers submitted per second, half premium and half standard.
        #[arg(long, default_value_t = 16_000)]
        rate: u64,
    },
}

/// Why a benchmark could not run.
#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    /// Storage or a store failed.
    #[error("storage failed")]
    Store(#[from] StoreError),
    /// Opening storage failed.
    #[error("cannot open storage")]
    Storage(#[from] crate::storage::Error),
    /// A worker process could not be started.
    #[error("cannot start a worker process")]
    Spawn(#[source] std::io::Error),
    /// The benchmark cannot start as set up.
    #[error("{0}")]
    Setup(String),
    /// The benchmark database failed.
    #[error("the benchmark database failed: {0}")]
    Database(String),
}

/// Runs a benchmark, printing progress to stderr and results to stdout.
pub async fn run(bench: Bench) -> Result<(), BenchError> {
    match bench {
        Bench::Idle { seconds } => idle::run(seconds).await,
        Bench::Transactions { answers } => transactions(answers).await,
        Bench::Transfer { answers } => transfer::run(answers).await,
        Bench::Drain {
            answers,
            processes,
            surveys,
            shards,
            runs,
            separate,
            segments,
            azure,
            shard_lease_secs,
        } => {
            let target = drain::DrainTarget {
                azure,
                shards: usize::from(shards),
                segments: usize::from(segments),
                shard_lease: (shard_lease_secs > 0).then(|| Duration::from_secs(shard_lease_secs)),
            };
            let plan = drain::Plan {
                answers,
                processes,
                surveys,
                runs,
                separate,
            };
            drain::run(&target, &plan).await
        }
        Bench::Freshness { seconds, rate } => freshness(seconds, rate).await,
        Bench::Export {
            answers,
            database_url,
        } => export::run(answers, &database_url).await,
        Bench::Sheets { answers } => sheets::run(&answers).await,
        Bench::Responses { answers, days } => responses::run(answers, days).await,
        Bench::Participants { count } => participants::run(count).await,
        Bench::Mailing { count, smtp, rate } => mailing::run(count, &smtp, rate).await,
        Bench::SheetDownload {
            data_dir,
            format,
            tool,
        } => sheets::download(&data_dir, format, tool.as_deref()).await,
        Bench::Uploads => uploads::run().await,
        Bench::UploadRead { file } => uploads::read(&file).await,
    }
}

/// A fresh data directory that is removed when dropped.
pub(super) struct Scratch(PathBuf);

impl Scratch {
    pub(super) fn new() -> Self {
        let name = format!("canvass-bench-{}", uuid::Uuid::new_v4().simple());
        Self(std::env::temp_dir().join(name))
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Opens fresh stores in `dir` with the benchmark surveys defined.
pub(super) async fn open(dir: &Scratch, surveys: u64) -> Result<Stores, BenchError> {
    drain::DrainTarget::LOCAL.open(dir, surveys).await
}

/// Submits `count` answers over `surveys` surveys (half to premium tenants when `premium` is
/// set), 128 at a time.
pub(super) async fn submit(
    stores: &Answering,
    count: u64,
    premium: bool,
    surveys: u64,
) -> Result<(), BenchError> {
    let mut done = 0;
    while done < count {
        let chunk = (count - done).min(128);
        let mut batch = Vec::with_capacity(chunk as usize);
        for n in done..done + chunk {
            let reference = stores.references.next().await?;
            let premium = premium && n % 2 == 1;
            batch.push((
                answers::answer(reference, n, premium, surveys),
                subscription(premium),
            ));
        }
        for queued in join_all(batch.iter().map(|(a, s)| stores.queues.submit(a, *s))).await {
            queued?;
        }
        done += chunk;
        if done % 20_000 == 0 {
            eprintln!("  queued {done} / {count}");
        }
    }
    Ok(())
}

fn subscription(premium: bool) -> Subscription {
    if premium {
        Subscription::Premium
    } else {
        Subscription::Standard
    }
}

pub(super) async fn waiting(stores: &Stores) -> Result<u64, BenchError> {
    let queues = &stores.answering.queues;
    Ok(queues.waiting(Subscription::Premium).await?
        + queues.waiting(Subscription::Standard).await?)
}

/// Storage transactions made for some answers, counted by the adapters.
#[derive(Clone, Debug)]
pub struct TransactionReport {
    /// Answers submitted and drained.
    pub answers: u64,
    /// Made by submitting them (reference ranges and queue adds).
    pub submit: crate::storage::TransactionCounts,
    /// Made by one worker draining them.
    pub work: crate::storage::TransactionCounts,
}

impl TransactionReport {
    /// Transactions per answer of some counts.
    pub fn per_answer(&self, n: u64) -> f64 {
        n as f64 / self.answers.max(1) as f64
    }
}

/// Submits `count` answers to one survey in a fresh local data directory and drains them
/// with one worker, counting every storage transaction on the way.
pub async fn count_transactions(count: u64) -> Result<TransactionReport, BenchError> {
    let dir = Scratch::new();
    let stores = open(&dir, 1).await?;
    let start = stores.operations.storage.transactions();
    submit(&stores.answering, count, false, 1).await?;
    let submitted = stores.operations.storage.transactions();
    let mut worker = Worker::new(stores.clone(), WorkerSettings::default());
    while let StepOutcome::BatchDone { .. } = worker.step().await? {}
    let drained = stores.operations.storage.transactions();
    Ok(TransactionReport {
        answers: count,
        submit: submitted.since(&start),
        work: drained.since(&submitted),
    })
}

async fn transactions(count: u64) -> Result<(), BenchError> {
    let report = count_transactions(count).await?;
    let per = |n: u64| report.per_answer(n);
    let (submit, work) = (&report.submit, &report.work);
    println!("storage transactions per answer over {count} answers (local backend):");
    println!(
        "  submit (reference ranges + queue add):  {:.3}",
        per(submit.total())
    );
    println!(
        "  worker:                                 {:.3}",
        per(work.total())
    );
    for (name, operation) in [
        ("blob get", Operation::Get),
        ("blob put", Operation::Put),
        ("blob delete", Operation::Delete),
        ("blob list", Operation::List),
        ("message get-batch", Operation::GetMessages),
        ("message update", Operation::Update),
        ("message delete", Operation::DeleteMessage),
        ("queue length", Operation::Length),
    ] {
        println!("    {name:<20} {:.3}", per(work.of(operation)));
    }
    println!(
        "  total:                                  {:.3}",
        per(submit.total() + work.total())
    );
    Ok(())
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted
        .get(((sorted.len() as f64 * p) as usize).min(sorted.len().saturating_sub(1)))
        .copied()
        .unwrap_or_default()
}

async fn freshness(seconds: u64, rate: u64) -> Result<(), BenchError> {
    let dir = Scratch::new();
    let stores = open(&dir, 1).await?;
    let submitter = {
        let stores = stores.clone();
        tokio::spawn(async move {
            let tick = Duration::from_millis(10);
            let per_tick = (rate / 100).max(2);
            let deadline = Instant::now() + Duration::from_secs(seconds);
            let mut n = 0;
            let mut interval = tokio::time::interval(tick);
            while Instant::now() < deadline {
                interval.tick().await;
                submit(&stores.answering, per_tick, true, 1).await?;
                n += per_tick;
            }
            Ok::<u64, BenchError>(n)
        })
    };
    let mut worker = Worker::new(stores.clone(), WorkerSettings::default());
    let (mut premium, mut standard) = (Vec::new(), Vec::new());
    let started = Instant::now();
    let mut last = Instant::now();
    while !submitter.is_finished() {
        if let StepOutcome::BatchDone { queue, counted, .. } = worker.step().await? {
            let now = OffsetDateTime::now_utc();
            let into = if queue.as_str().contains("premium") {
                &mut premium
            } else {
                &mut standard
            };
            into.extend(counted.iter().map(|(_, at)| (now - *at).unsigned_abs()));
        }
        if last.elapsed() >= Duration::from_secs(2) {
            eprintln!(
                "  {:>4.0} s  counted {} premium, {} standard; {} waiting",
                started.elapsed().as_secs_f64(),
                premium.len(),
                standard.len(),
                waiting(&stores).await?
            );
            last = Instant::now();
        }
    }
    let submitted = submitter
        .await
        .map_err(|e| BenchError::Spawn(std::io::Error::other(e)))??;
    let backlog = waiting(&stores).await?;
    println!(
        "summary freshness over {seconds} s, {submitted} answers submitted at {rate}/s, one worker; {backlog} still queued at the end:"
    );
    for (name, latencies) in [("premium", &mut premium), ("standard", &mut standard)] {
        latencies.sort_unstable();
        println!(
            "  {name:<8} counted {:>7}   p50 {:>8.1} ms   p99 {:>8.1} ms",
            latencies.len(),
            percentile(latencies, 0.5).as_secs_f64() * 1e3,
            percentile(latencies, 0.99).as_secs_f64() * 1e3
        );
    }
    Ok(())
}

/// This process's peak resident memory in KiB (`VmHWM`).
pub(super) fn peak_memory() -> Option<u64> {
    std::fs::read_to_string("/proc/self/status")
        .ok()?
        .lines()
        .find_map(|line| line.strip_prefix("VmHWM:"))?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}
