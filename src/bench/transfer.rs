//! `canvass bench transfer`: answers given in a hosting region moved to their home region,
//! both on local storage in a scratch directory: how many a second one worker moves, and the
//! storage transactions the move adds per answer in each region.

use std::time::Instant;

use futures_util::future::join_all;

use super::{BenchError, Scratch, answers};
use crate::domain::Survey;
use crate::domain::region::RegionName;
use crate::storage::local;
use crate::storage::{Operation, TransactionCounts};
use crate::stores::hosted::HostedTenant;
use crate::stores::{StoreSettings, Stores};
use crate::worker::{StepOutcome, Worker, WorkerSettings};

/// The two regions of the benchmark, `us` (home) and `eu` (hosting), in `dir`.
fn regions(dir: &Scratch, here: &str) -> Result<crate::regions::Regions, BenchError> {
    let text = format!(
        "[regions.us]\nstorage = \"local\"\ndata_dir = \"{}\"\npublic_url = \"http://127.0.0.1:8080\"\n\n\
         [regions.eu]\nstorage = \"local\"\ndata_dir = \"{}\"\npublic_url = \"http://127.0.0.1:8081\"\n",
        dir.0.join("us").display(),
        dir.0.join("eu").display()
    );
    crate::regions::parse(&dir.0.join("regions.toml"), &text, Some(here))
        .map_err(|error| BenchError::Setup(error.to_string()))
}

async fn open(dir: &Scratch, here: &str) -> Result<Stores, BenchError> {
    let regions = regions(dir, here)?;
    let data_dir = dir.0.join(here);
    let storage = local::storage(&data_dir).await?;
    let settings = StoreSettings {
        regions: std::sync::Arc::new(regions),
        ..StoreSettings::default()
    };
    Ok(Stores::open(storage, &settings).await?)
}

/// What moving answers home cost, per answer, and how fast it went.
#[derive(Debug)]
pub struct TransferReport {
    /// Answers moved.
    pub answers: u64,
    /// How long the move took.
    pub took: std::time::Duration,
    /// The hosting region's submits.
    pub submit: TransactionCounts,
    /// The move's transactions in the hosting region.
    pub hosting: TransactionCounts,
    /// The move's transactions at home.
    pub home: TransactionCounts,
    /// The home worker's transactions counting the moved answers.
    pub counting: TransactionCounts,
    /// An answer given at home, submit and worker, per answer.
    pub local_per_answer: f64,
}

impl TransferReport {
    /// Transactions per answer the move adds in the hosting region.
    pub fn added_in_hosting(&self) -> f64 {
        self.hosting.total() as f64 / self.answers as f64
    }

    /// Transactions per answer the move adds at home, beyond an answer given there.
    pub fn added_at_home(&self) -> f64 {
        (self.home.total() + self.counting.total()) as f64 / self.answers as f64
            - self.local_per_answer
    }
}

/// Runs the benchmark over `count` answers and prints it.
pub(super) async fn run(count: u64) -> Result<(), BenchError> {
    let report = count_transfer(count).await?;
    print(&report);
    Ok(())
}

/// Moves `count` answers from a hosting region home, counting transactions on each side.
pub async fn count_transfer(count: u64) -> Result<TransferReport, BenchError> {
    let dir = Scratch::new();
    let home = open(&dir, "us").await?;
    let hosting = open(&dir, "eu").await?;
    answers::seed(&home, 1, 0).await?;
    let us = RegionName::parse("us").expect("a region name");
    // The hosted copies publishing would push.
    for premium in [false, true] {
        let slug = answers::tenant(premium);
        let tenant = std::sync::Arc::new(crate::domain::Tenant {
            slug: slug.clone(),
            name: slug.to_string(),
            subscription: match premium {
                true => crate::domain::Subscription::Premium,
                false => crate::domain::Subscription::Standard,
            },
            created: time::OffsetDateTime::now_utc(),
            owner: None,
            time_zone: None,
            branding: Default::default(),
        });
        let survey: std::sync::Arc<Survey> = home
            .catalog
            .surveys
            .get(&slug, &answers::survey(0))
            .await?
            .ok_or_else(|| BenchError::Setup("the benchmark survey is missing".into()))?;
        let hosted = HostedTenant {
            tenant,
            home: us.clone(),
        };
        hosting.residency.hosted.put(&hosted, &survey).await?;
    }

    eprintln!("  queueing {count} answers in the hosting region");
    let before = hosting.operations.storage.transactions();
    let mut done = 0;
    while done < count {
        let chunk = (count - done).min(128);
        let mut batch = Vec::with_capacity(chunk as usize);
        for n in done..done + chunk {
            let reference = hosting.answering.references.next().await?;
            batch.push(answers::answer(reference, n, false, 1));
        }
        for queued in join_all(
            batch
                .iter()
                .map(|a| hosting.answering.queues.submit_for_transfer(a)),
        )
        .await
        {
            queued?;
        }
        done += chunk;
    }
    let submitted = hosting.operations.storage.transactions();

    let there = hosting.in_region(&us).await?;
    let home_before = there.operations.storage.transactions();
    let mut mover = Worker::new(hosting.clone(), WorkerSettings::default());
    let started = Instant::now();
    let mut moved = 0;
    let mut last = Instant::now();
    loop {
        match mover.step().await? {
            StepOutcome::TransferDone(step) => moved += step.moved as u64,
            _ => break,
        }
        if last.elapsed().as_secs() >= 2 {
            eprintln!("  moved {moved} / {count}");
            last = Instant::now();
        }
    }
    let took = started.elapsed();
    let transferred = hosting.operations.storage.transactions();
    let home_moved = there.operations.storage.transactions();
    if moved != count {
        return Err(BenchError::Setup(format!(
            "moved {moved} of {count} answers"
        )));
    }

    // The home worker counts them; its transactions against those of answers given at home.
    let counting = home.operations.storage.transactions();
    let mut worker = Worker::new(home.clone(), WorkerSettings::default());
    while let StepOutcome::BatchDone { .. } = worker.step().await? {}
    let counted = home.operations.storage.transactions();
    let local = super::count_transactions(count).await?;

    Ok(TransferReport {
        answers: count,
        took,
        submit: submitted.since(&before),
        hosting: transferred.since(&submitted),
        home: home_moved.since(&home_before),
        counting: counted.since(&counting),
        local_per_answer: local.per_answer(local.submit.total() + local.work.total()),
    })
}

fn print(report: &TransferReport) {
    let count = report.answers;
    let per = |n: u64| n as f64 / count as f64;
    println!("moving {count} answers from a hosting region home (local storage, one worker):");
    println!(
        "  moved: {:.0} answers/s ({count} in {:.2} s)",
        count as f64 / report.took.as_secs_f64().max(f64::EPSILON),
        report.took.as_secs_f64()
    );
    println!("  hosting region, per answer:");
    println!(
        "    submit (as at home):                 {:.3}",
        per(report.submit.total())
    );
    println!(
        "    transfer (receive, delete):          {:.3}",
        per(report.hosting.total())
    );
    breakdown(&report.hosting, per);
    println!("  home region, per answer:");
    println!(
        "    transfer (store, queue add):         {:.3}",
        per(report.home.total())
    );
    breakdown(&report.home, per);
    println!(
        "    worker (counting it):                {:.3}",
        per(report.counting.total())
    );
    println!(
        "    total at home:                       {:.3}",
        per(report.home.total() + report.counting.total())
    );
    println!(
        "  an answer given at home (submit + worker): {:.3}",
        report.local_per_answer
    );
    println!(
        "  added by the move: {:.3} in the hosting region, {:.3} at home",
        report.added_in_hosting(),
        report.added_at_home()
    );
}

/// The transactions of `counts` by kind, per answer.
fn breakdown(counts: &TransactionCounts, per: impl Fn(u64) -> f64) {
    for (name, operation) in [
        ("blob get", Operation::Get),
        ("blob put", Operation::Put),
        ("blob delete", Operation::Delete),
        ("message add", Operation::Add),
        ("message get-batch", Operation::GetMessages),
        ("message delete", Operation::DeleteMessage),
    ] {
        let n = counts.of(operation);
        if n > 0 {
            println!("      {name:<20} {:.3}", per(n));
        }
    }
}
