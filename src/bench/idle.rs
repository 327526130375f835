//! `bench idle`: what a worker with nothing to do costs in storage calls, and how soon it
//! counts a lone answer after a quiet spell: queued in its own process (it is woken at once),
//! and queued by another process's handles (it finds it at its next look, within its longest
//! wait). The last line is `idle: N storage calls a minute per worker; a lone answer counted
//! in M ms` (the answer queued in the worker's process, as `serve` runs its worker).

use std::time::{Duration, Instant};

use super::{BenchError, Scratch, answers, open};
use crate::domain::Subscription;
use crate::stores::Stores;
use crate::worker::{Worker, WorkerSettings};

/// Measures an idle worker over `seconds`, after letting its waits grow to their longest.
pub(super) async fn run(seconds: u64) -> Result<(), BenchError> {
    let dir = Scratch::new();
    let stores = open(&dir, 1).await?;
    // One answer counted first, so the survey and its summary exist as in a live service.
    super::submit(&stores.answering, 1, false, 1).await?;
    // What `canvass worker` runs with by default: its heartbeat and shard claims included.
    let settings: WorkerSettings = crate::config::WorkerArgs::default().settings();
    let longest = settings.idle.most();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let worker = tokio::spawn(Worker::new(stores.clone(), settings).run(async {
        let _ = stopped.await;
    }));
    wait_counted(&stores, 1).await?;
    // Its waits double from 250 ms to the longest: settled after twice that.
    let settle = longest * 2;
    eprintln!(
        "letting the worker go idle for {:.0} s (its longest wait is {:.1} s)",
        settle.as_secs_f64(),
        longest.as_secs_f64()
    );
    tokio::time::sleep(settle).await;
    let before = stores.operations.storage.transactions();
    let measured = Duration::from_secs(seconds.max(1));
    eprintln!("counting its storage calls for {} s", measured.as_secs());
    let started = Instant::now();
    while started.elapsed() < measured {
        tokio::time::sleep(Duration::from_secs(5).min(measured)).await;
        eprintln!("  {:.0} s", started.elapsed().as_secs_f64());
    }
    let calls = stores
        .operations
        .storage
        .transactions()
        .since(&before)
        .total();
    let per_minute = calls as f64 * 60.0 / measured.as_secs_f64();

    // A lone answer queued by another process's handles: found at the worker's next look.
    let elsewhere = open_again(&dir).await?;
    let from_elsewhere = lone_answer(&stores, &elsewhere, 2).await?;
    tokio::time::sleep(settle).await;
    // A lone answer queued in the worker's own process: it is woken at once.
    let here = lone_answer(&stores, &stores, 3).await?;
    let _ = stop.send(());
    let _ = worker.await;
    println!(
        "a lone answer queued by another process: counted in {} ms (bound: the longest wait, {} ms)",
        from_elsewhere.as_millis(),
        longest.as_millis()
    );
    println!(
        "idle: {per_minute:.0} storage calls a minute per worker; a lone answer counted in {} ms",
        here.as_millis()
    );
    Ok(())
}

/// The same storage opened again, as another process would: its queue handles wake nobody here.
async fn open_again(dir: &Scratch) -> Result<Stores, BenchError> {
    open(dir, 1).await
}

/// Queues one answer through `via` and times until `stores`' summary counts `total`.
async fn lone_answer(stores: &Stores, via: &Stores, total: u64) -> Result<Duration, BenchError> {
    let reference = via.answering.references.next().await?;
    let answer = answers::answer(reference, total, false, 1);
    let started = Instant::now();
    via.answering
        .queues
        .submit(&answer, Subscription::Standard)
        .await?;
    wait_counted(stores, total).await?;
    Ok(started.elapsed())
}

/// Waits until the benchmark survey's summary counts `total` answers (at most a minute).
async fn wait_counted(stores: &Stores, total: u64) -> Result<(), BenchError> {
    let at = answers::survey_ref(0);
    let started = Instant::now();
    loop {
        let counted = stores.answering.summaries.total(&at).await?;
        if counted >= total {
            return Ok(());
        }
        if started.elapsed() > Duration::from_secs(60) {
            return Err(BenchError::Setup(format!(
                "an answer was not counted within a minute ({counted} of {total})"
            )));
        }
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
}
