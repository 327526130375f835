//! `canvass bench drain`: answers/s to drain a backlog with several `canvass worker`
//! processes, each count run several times (interleaved, so a slow spell of the machine hits
//! every count alike) and reported by its median.
//!
//! With `--separate`, each process drains a backlog of its own in a data directory of its own:
//! nothing is shared, so that figure is what the machine itself allows that many processes,
//! the bound for the shared run.
//!
//! Each run also reports the workers' CPU time per answer (their user and system time, which
//! this process reads once it has waited for them) and how many of their summary commits lost
//! an ETag race to another worker (from the line each worker logs when it stops).

use std::collections::BTreeMap;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use super::{BenchError, Scratch, answers, submit, waiting};
use crate::storage::local;
use crate::stores::{Answering, StoreSettings, Stores};

/// Where a drain benchmark runs.
pub(super) struct DrainTarget {
    /// An Azure account's connection string, or `None` for a fresh local data directory.
    pub(super) azure: Option<String>,
    /// Queue shards per class.
    pub(super) shards: usize,
    /// How many of the benchmark survey's choice-type questions are segment questions (0-3).
    pub(super) segments: usize,
    /// The workers' shard lease, or `None` to run them without affinity.
    pub(super) shard_lease: Option<Duration>,
}

/// What to measure.
pub(super) struct Plan {
    /// Answers drained in each measurement.
    pub(super) answers: u64,
    /// Worker process counts.
    pub(super) processes: Vec<usize>,
    /// Surveys the answers are spread over.
    pub(super) surveys: u64,
    /// Runs of each count.
    pub(super) runs: u32,
    /// One backlog and data directory per process instead of one shared.
    pub(super) separate: bool,
}

impl DrainTarget {
    /// A fresh local data directory, one queue per class.
    pub(super) const LOCAL: Self = Self {
        azure: None,
        shards: 1,
        segments: 0,
        shard_lease: None,
    };

    /// Opens the stores in `dir` (or on the Azure account) with the benchmark surveys.
    pub(super) async fn open(&self, dir: &Scratch, surveys: u64) -> Result<Stores, BenchError> {
        let settings = StoreSettings {
            queue_shards: self.shards,
            ..StoreSettings::default()
        };
        let storage = match &self.azure {
            Some(connection) => crate::storage::azure::storage(connection).await?,
            None => local::storage(&dir.0).await?,
        };
        let stores = Stores::open(storage, &settings).await?;
        answers::seed(&stores, surveys, self.segments).await?;
        Ok(stores)
    }

    fn spawn_worker(&self, dir: &Scratch, log: &std::path::Path) -> Result<Child, BenchError> {
        let exe = std::env::current_exe().map_err(BenchError::Spawn)?;
        let log = std::fs::File::create(log).map_err(BenchError::Spawn)?;
        let mut command = Command::new(exe);
        command
            .arg("worker")
            .env("CANVASS_QUEUE_SHARDS", self.shards.to_string())
            .env(
                "CANVASS_SHARD_LEASE_SECS",
                self.shard_lease
                    .map_or(0, |lease| lease.as_secs())
                    .to_string(),
            )
            // Workers started paused (see `drain`) look at the flag at least every 250 ms, so
            // they start within 250 ms of the release rather than at their longest idle wait.
            .env("CANVASS_IDLE_POLL_MAX_MS", "250")
            .env("CANVASS_LOG", "warn,canvass::worker=info")
            .env("CANVASS_LOG_FORMAT", "json")
            .stdout(Stdio::null())
            .stderr(log);
        match &self.azure {
            Some(connection) => command
                .env("CANVASS_STORAGE", "azure")
                .env("CANVASS_AZURE_CONNECTION_STRING", connection),
            None => command
                .env("CANVASS_STORAGE", "local")
                .env("CANVASS_DATA_DIR", &dir.0),
        };
        command.spawn().map_err(BenchError::Spawn)
    }
}

/// Measures every count `plan.runs` times and prints each run and the medians.
pub(super) async fn run(target: &DrainTarget, plan: &Plan) -> Result<(), BenchError> {
    if plan.separate && target.azure.is_some() {
        return Err(BenchError::Setup(
            "--separate gives each process a local data directory; it cannot run on Azure".into(),
        ));
    }
    let mut rates: BTreeMap<usize, Vec<Measured>> = BTreeMap::new();
    for run in 1..=plan.runs {
        for &processes in &plan.processes {
            eprintln!("run {run} of {}, {processes} worker process(es)", plan.runs);
            let measured = drain(target, plan, processes).await?;
            rates.entry(processes).or_default().push(measured);
        }
    }
    let layout = match (plan.separate, &target.azure) {
        (true, _) => "a data directory each",
        (false, Some(_)) => "one storage account",
        (false, None) => "one shared data directory",
    };
    println!(
        "median of {} run(s), {} answers, {} survey(s), {} segment question(s), {} shard(s), \
         {layout}:",
        plan.runs, plan.answers, plan.surveys, target.segments, target.shards
    );
    let baseline = plan
        .processes
        .first()
        .and_then(|first| rates.get(first))
        .map(|runs| median(runs.iter().map(|m| m.rate)));
    for &processes in &plan.processes {
        let Some(runs) = rates.get(&processes) else {
            continue;
        };
        let rate = median(runs.iter().map(|m| m.rate));
        let all: Vec<String> = runs.iter().map(|m| format!("{:.0}", m.rate)).collect();
        let ratio = baseline.map_or(String::new(), |base| format!("  ({:.2}×)", rate / base));
        println!(
            "  {processes} worker process(es): {rate:>8.0} answers/s{ratio}   runs: {}",
            all.join(", ")
        );
        println!(
            "      CPU {:.1} µs per answer, {:.1}% of summary commits lost an ETag race (medians)",
            median(runs.iter().map(|m| m.cpu_per_answer.as_secs_f64() * 1e6)),
            median(runs.iter().map(|m| m.conflict_share * 100.0)),
        );
    }
    Ok(())
}

/// One run's figures.
#[derive(Clone, Copy, Debug)]
struct Measured {
    /// Answers drained per second.
    rate: f64,
    /// The workers' CPU time (user and system) per answer.
    cpu_per_answer: Duration,
    /// Summary commits that lost an ETag race, over all commit attempts.
    conflict_share: f64,
}

fn median(values: impl Iterator<Item = f64>) -> f64 {
    let mut sorted: Vec<f64> = values.collect();
    sorted.sort_by(f64::total_cmp);
    match sorted.len() {
        0 => 0.0,
        n if n % 2 == 1 => sorted[n / 2],
        n => (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0,
    }
}

/// A queued backlog in one data directory (or on the Azure account).
struct Backlog {
    dir: Scratch,
    stores: Stores,
    answers: u64,
    counted_before: u64,
}

impl Backlog {
    async fn queue(target: &DrainTarget, answers: u64, surveys: u64) -> Result<Self, BenchError> {
        let dir = Scratch::new();
        let stores = target.open(&dir, surveys).await?;
        if waiting(&stores).await? > 0 {
            return Err(BenchError::Setup(
                "the answer queues are not empty: drain on a fresh account or emulator".into(),
            ));
        }
        let counted_before = counted(&stores.answering, surveys).await?;
        submit(&stores.answering, answers, false, surveys).await?;
        Ok(Self {
            dir,
            stores,
            answers,
            counted_before,
        })
    }

    /// Answers counted in the summaries since the backlog was queued.
    async fn counted(&self, surveys: u64) -> Result<u64, BenchError> {
        Ok(counted(&self.stores.answering, surveys).await? - self.counted_before)
    }

    /// Whether every answer is counted and every message gone.
    async fn drained(&self, surveys: u64) -> Result<bool, BenchError> {
        Ok(self.counted(surveys).await? >= self.answers && waiting(&self.stores).await? == 0)
    }
}

async fn counted(stores: &Answering, surveys: u64) -> Result<u64, BenchError> {
    let mut counted = 0;
    for survey in 0..surveys.max(1) {
        let read = stores.summaries.read(&answers::survey_ref(survey)).await?;
        counted += read.doc.summary.total;
    }
    Ok(counted)
}

/// One measurement: queues the backlog(s), starts the workers, and measures them.
async fn drain(
    target: &DrainTarget,
    plan: &Plan,
    processes: usize,
) -> Result<Measured, BenchError> {
    let processes = processes.max(1);
    let surveys = plan.surveys;
    let backlogs = if plan.separate {
        let each = plan.answers / processes as u64;
        let mut backlogs = Vec::with_capacity(processes);
        for _ in 0..processes {
            backlogs.push(Backlog::queue(target, each, surveys).await?);
        }
        backlogs
    } else {
        vec![Backlog::queue(target, plan.answers, surveys).await?]
    };
    let total: u64 = backlogs.iter().map(|backlog| backlog.answers).sum();
    let logs = Scratch::new();
    std::fs::create_dir_all(&logs.0).map_err(BenchError::Spawn)?;
    let log = |n: usize| logs.0.join(format!("worker-{n}.log"));
    let cpu_before = children_cpu();
    // With affinity, the workers start paused and deal the shards among themselves before the
    // clock starts: the figure is the steady drain, not the few seconds of dealing.
    if target.shard_lease.is_some() {
        for backlog in &backlogs {
            backlog.stores.operations.control.pause().await?;
        }
    }
    let mut workers = (0..processes)
        .map(|n| target.spawn_worker(&backlogs[n % backlogs.len()].dir, &log(n)))
        .collect::<Result<Vec<_>, _>>()?;
    if let Some(lease) = target.shard_lease {
        let each = processes / backlogs.len();
        dealt(&backlogs, each, lease).await?;
        for backlog in &backlogs {
            backlog.stores.operations.control.resume().await?;
        }
    }
    let started = Instant::now();
    let outcome = watch(&backlogs, &mut workers, surveys, started).await;
    let elapsed = started.elapsed();
    stop(&mut workers).await;
    outcome?;
    let cpu = children_cpu().saturating_sub(cpu_before);
    let (mut commits, mut conflicts) = (0, 0);
    for n in 0..processes {
        let (c, x) = commits_and_conflicts(&log(n));
        commits += c;
        conflicts += x;
    }
    let mut counted = 0;
    for backlog in &backlogs {
        counted += backlog.counted(surveys).await?;
    }
    let rate = total as f64 / elapsed.as_secs_f64();
    let measured = Measured {
        rate,
        cpu_per_answer: cpu / u32::try_from(total.max(1)).unwrap_or(u32::MAX),
        conflict_share: conflicts as f64 / (commits + conflicts).max(1) as f64,
    };
    eprintln!(
        "  {processes} worker process(es): drained {total} answers in {:.2} s = {rate:.0} answers/s (summaries count {counted}); CPU {:.2} s; {conflicts} ETag races in {commits} commits",
        elapsed.as_secs_f64(),
        cpu.as_secs_f64(),
    );
    if counted != total {
        return Err(BenchError::Setup(format!(
            "the summaries count {counted} answers, not {total}"
        )));
    }
    Ok(measured)
}

/// Waits until `each` workers run on every backlog and every shard is claimed by the worker
/// it is dealt to.
async fn dealt(backlogs: &[Backlog], each: usize, lease: Duration) -> Result<(), BenchError> {
    eprintln!("  waiting for the workers to deal the shards among themselves");
    let deadline = Instant::now() + Duration::from_secs(60);
    for backlog in backlogs {
        let roster = &backlog.stores.operations.roster;
        let (premium, standard) = backlog.stores.answering.queues.work_queues();
        loop {
            let members = roster.members(std::time::SystemTime::now(), lease).await?;
            let mut settled = members.len() == each;
            for member in &members {
                for queue in
                    crate::worker::affinity::dealt(premium, standard, &members, &member.owner)
                {
                    if settled {
                        let holder = roster.holder(queue).await?;
                        settled = holder.is_some_and(|claimed| claimed.owner == member.owner);
                    }
                }
            }
            if settled {
                break;
            }
            if Instant::now() > deadline {
                return Err(BenchError::Setup(
                    "the workers did not deal the shards among themselves within 60 s".into(),
                ));
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
    Ok(())
}

/// Stops the workers with SIGTERM (so each logs what it did) and waits for them; one that
/// does not stop within 10 s is killed.
async fn stop(workers: &mut [Child]) {
    for worker in workers.iter() {
        let _ = Command::new("kill")
            .args(["-TERM", &worker.id().to_string()])
            .status();
    }
    let deadline = Instant::now() + Duration::from_secs(10);
    for worker in workers.iter_mut() {
        while matches!(worker.try_wait(), Ok(None)) && Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        let _ = worker.kill();
        let _ = worker.wait();
    }
}

/// The CPU time (user and system) of this process's children that it has waited for, from
/// `/proc/self/stat` (zero where there is no such file).
fn children_cpu() -> Duration {
    let Ok(stat) = std::fs::read_to_string("/proc/self/stat") else {
        return Duration::ZERO;
    };
    // Fields after the command name (which may hold spaces), from field 3 on.
    let fields: Vec<&str> = stat
        .rsplit_once(')')
        .map_or("", |(_, rest)| rest)
        .split_whitespace()
        .collect();
    let ticks: u64 = [13, 14]
        .iter()
        .filter_map(|&i| fields.get(i)?.parse::<u64>().ok())
        .sum();
    Duration::from_secs_f64(ticks as f64 / clock_ticks())
}

/// Clock ticks per second (`getconf CLK_TCK`; 100 on Linux if it cannot be asked).
fn clock_ticks() -> f64 {
    Command::new("getconf")
        .arg("CLK_TCK")
        .output()
        .ok()
        .and_then(|out| String::from_utf8(out.stdout).ok())
        .and_then(|text| text.trim().parse().ok())
        .unwrap_or(100.0)
}

/// The commits and ETag races a worker logged when it stopped (zeros if it did not).
fn commits_and_conflicts(log: &std::path::Path) -> (u64, u64) {
    let text = std::fs::read_to_string(log).unwrap_or_default();
    let Some(line) = text.lines().find(|line| line.contains("worker stopped")) else {
        return (0, 0);
    };
    let json: serde_json::Value = serde_json::from_str(line).unwrap_or_default();
    let field = |name: &str| json["fields"][name].as_u64().unwrap_or(0);
    (field("commits"), field("conflicts"))
}

/// Waits until every backlog is drained, showing progress; fails if a worker exits.
async fn watch(
    backlogs: &[Backlog],
    workers: &mut [Child],
    surveys: u64,
    started: Instant,
) -> Result<(), BenchError> {
    // The summaries' totals are one cheap read per survey, so they can be watched closely;
    // the queues are checked once they are reached.
    let mut last = Instant::now();
    loop {
        let mut done = true;
        for backlog in backlogs {
            done &= backlog.drained(surveys).await?;
        }
        if done {
            return Ok(());
        }
        for worker in workers.iter_mut() {
            if let Ok(Some(status)) = worker.try_wait() {
                return Err(BenchError::Setup(format!(
                    "a worker process exited before the backlog was drained ({status})"
                )));
            }
        }
        if last.elapsed() >= Duration::from_secs(1) {
            let mut counted = 0;
            for backlog in backlogs {
                counted += backlog.counted(surveys).await?;
            }
            eprintln!(
                "    {:>5.1} s  {counted:>7} counted",
                started.elapsed().as_secs_f64()
            );
            last = Instant::now();
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}
