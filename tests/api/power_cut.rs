//! Power cuts: the worker's files on the handle workers use (commits not fsynced; flushes and
//! deletes fsync the blob files' logs first) lose everything not fsynced, at many moments of a
//! drain (`lost_writes`). After the power comes back, workers drain what is left and the
//! reconcile pass runs: no answer that was queued (thanked) is lost, none is counted twice,
//! every list and index is exact.

use std::time::{Duration, Instant};

use canvass::storage::local::{self, Durability, Options};
use canvass::storage::memory;
use canvass::stores::{StoreSettings, Stores};
use canvass::worker::{StepOutcome, Worker, WorkerSettings};

use crate::lost_writes;
use crate::worker_crash::Backlog;

const ANSWERS: u64 = 200;

fn through_the_vfs(durability: Durability) -> Options {
    Options {
        durability,
        vfs: Some(lost_writes::NAME.to_owned()),
    }
}

fn worker(stores: &Stores) -> Worker {
    let settings = WorkerSettings {
        visibility: Duration::from_millis(200),
        max_dequeue: 1000,
        batches_per_step: 1,
        ..WorkerSettings::default()
    };
    Worker::new(stores.clone(), settings)
}

/// Closes the stores and waits until every file opened through the VFS is closed.
async fn close(stores: Stores) {
    drop(stores);
    lost_writes::wait_until_closed().await;
}

/// A backlog queued through the VFS by the web tier's handle (every commit fsynced), closed.
async fn thanked_backlog() -> Backlog {
    lost_writes::reset();
    let mut backlog = Backlog::queue_with(ANSWERS, 0xfeed, through_the_vfs(Durability::Full)).await;
    let placeholder = Stores::open(memory::storage(), &StoreSettings::default())
        .await
        .expect("stores");
    close(std::mem::replace(&mut backlog.stores, placeholder)).await;
    backlog
}

/// A worker on the relaxed handle drains the backlog until it is empty or the power goes off;
/// returns the operations it made.
async fn drain_until_the_cut(backlog: &Backlog) -> u64 {
    let before = lost_writes::operations();
    let (storage, _) = local::open(backlog.path(), through_the_vfs(Durability::Relaxed))
        .await
        .expect("opens");
    let stores = Stores::open(storage, &StoreSettings::default())
        .await
        .expect("stores");
    let mut worker = worker(&stores);
    while !lost_writes::cut() {
        match worker.step().await {
            Ok(StepOutcome::QueuesEmpty) if backlog_empty(&stores).await => break,
            Ok(StepOutcome::QueuesEmpty) => tokio::time::sleep(Duration::from_millis(50)).await,
            Ok(_) => {}
            // After the cut a step may fail; before it, none may.
            Err(error) => assert!(lost_writes::cut(), "a step failed: {error}"),
        }
    }
    drop(worker);
    close(stores).await;
    lost_writes::operations() - before
}

async fn backlog_empty(stores: &Stores) -> bool {
    let mut waiting = 0;
    for (_, queue) in stores.answering.queues.all() {
        waiting += stores.answering.queues.length(queue).await.expect("length");
    }
    waiting == 0
}

/// After the power comes back: reopen as usual, drain everything, then check it all; returns
/// how many messages were still queued when the power came back.
async fn recover_and_check(mut backlog: Backlog, cut_at: u64) -> u64 {
    lost_writes::restore(backlog.path());
    let stores = Stores::open(
        local::storage_with(backlog.path(), Durability::Relaxed)
            .await
            .unwrap_or_else(|error| panic!("cut at {cut_at}: the directory opens: {error}")),
        &StoreSettings::default(),
    )
    .await
    .expect("stores");
    backlog.stores = stores.clone();
    let left = backlog.queued().await;
    let mut worker = worker(&stores);
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        match worker.step().await.expect("a step after recovery") {
            StepOutcome::QueuesEmpty if backlog_empty(&stores).await => break,
            StepOutcome::QueuesEmpty => tokio::time::sleep(Duration::from_millis(50)).await,
            _ => {}
        }
        assert!(
            Instant::now() < deadline,
            "cut at {cut_at}: the backlog did not drain"
        );
    }
    drop(worker);
    backlog.assert_exact().await;
    left
}

#[tokio::test]
async fn a_power_cut_anywhere_in_a_drain_loses_no_thanked_answer_and_counts_none_twice() {
    let _turn = lost_writes::exclusive().await;
    // A whole drain without a cut: how many writes and syncs it makes.
    let backlog = thanked_backlog().await;
    let total = drain_until_the_cut(&backlog).await;
    recover_and_check(backlog, u64::MAX).await;
    assert!(total > 50, "a drain makes {total} writes and syncs");

    // Cuts spread over the drain, and at the first few operations. A drain's count of writes
    // varies a little from run to run (batches form as messages arrive, and files give space
    // back at most once a second), so the cuts stop at nine tenths of the first drain's, and a
    // cut that a shorter drain never reached is allowed, twice at most.
    let mut cuts: Vec<u64> = (1..=5)
        .chain((1..=30).map(|n| n * total * 9 / (10 * 30)))
        .collect();
    cuts.dedup();
    let (mut redone, mut missed) = (0, Vec::new());
    for &cut_at in &cuts {
        let backlog = thanked_backlog().await;
        lost_writes::cut_after(cut_at);
        drain_until_the_cut(&backlog).await;
        if !lost_writes::cut() {
            missed.push(cut_at);
        }
        redone += usize::from(recover_and_check(backlog, cut_at).await > 0);
    }
    assert!(
        missed.len() <= 2,
        "the power never went off at operations {missed:?} of a drain of about {total}"
    );
    // Each cut before the last delete leaves messages queued that a worker had finished with
    // in the lost writes: the recovery redoes that work (and counts nothing twice).
    assert!(
        redone * 2 > cuts.len(),
        "only {redone} of {} cuts left work to redo",
        cuts.len()
    );
}

#[tokio::test]
async fn serve_opens_every_local_file_with_each_commit_fsynced_through_its_own_start_up() {
    use canvass::config::{ServeSettings, StorageSettings};
    let dir = tempfile::tempdir().expect("a temp dir");
    let mut settings = ServeSettings::with_storage(StorageSettings::local(dir.path()));
    settings.listen = "127.0.0.1:0".into();
    settings.no_worker = true;
    settings.demo_responses = 0;
    // The same call `canvass serve` makes: no durability is set by the test.
    let application = canvass::startup::Application::build(settings)
        .await
        .expect("the application builds");
    let files = application
        .file_durability()
        .await
        .expect("a local handle says how it writes");
    assert!(
        files.len() >= 2,
        "the queue file and the blob files: {files:?}"
    );
    assert!(
        files.iter().all(|&synchronous| synchronous == 2),
        "synchronous=FULL on every file: {files:?}"
    );
}
