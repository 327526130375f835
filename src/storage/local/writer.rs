//! The writer thread of one database file: group commit for every write to it.
//!
//! Callers hand in a job (a few statements) and wait. The thread takes every job that is
//! waiting, runs them all inside one `BEGIN IMMEDIATE` transaction and commits once, so
//! concurrent writers share one commit (and, for a durable file, one fsync). A job's result is
//! released only after the commit; if the transaction fails, every job in it fails and nothing
//! of it was written.
//!
//! The thread owns its connection and runs the statements itself: the file's write lock is held
//! only while SQLite works, never across a hand-off between threads. (With an async driver each
//! statement and each returned row crossed threads, and the lock was held for 250-550 µs per
//! transaction, mostly waiting for wake-ups; that, not SQLite, limited several processes.)
//!
//! A job's expected failures (a failed condition, a stale pop receipt) change nothing, so they
//! do not spoil the transaction for the others; a backend error rolls the whole batch back.
//!
//! The thread also gives the file's free pages back (`reclaim`): at most once a second while
//! writes come in, and once more when they stop, so a burst of deletes returns its space soon
//! after without costing every commit a vacuum.

use std::sync::Arc;
use std::time::{Duration, Instant};

use rusqlite::Connection;
use tokio::sync::{mpsc, oneshot};

use super::busy;
use crate::storage::{Error, Result};

/// Most jobs committed in one transaction.
const MAX_BATCH: usize = 512;

/// How long a batch of a fsynced file gathers more jobs while writers are busy: the commit's
/// fsync is most of its cost, so under load fewer, fuller commits leave more of the machine
/// to the requests (measured in docs/performance.md); a caller waits at most this much more.
const GATHER: Duration = Duration::from_millis(1);

/// Jobs waiting for the writer before callers wait to hand in more.
const BACKLOG: usize = 4096;

/// Hands a job's result to its caller once the fate of its transaction is known.
type Deliver = Box<dyn FnOnce(Option<&Arc<Error>>) + Send>;

/// A job run inside the batch's transaction: whether its failure spoils the batch, and how to
/// deliver its result.
type Job = Box<dyn FnOnce(&Connection) -> (bool, Deliver) + Send>;

/// A handle to a writer thread; the thread ends when every handle is dropped.
#[derive(Debug, Clone)]
pub(super) struct Writer {
    jobs: mpsc::Sender<Job>,
}

impl Writer {
    /// Starts the writer thread on `connection`; `gathers` when each commit is fsynced (see
    /// `GATHER`).
    pub(super) fn spawn(connection: Connection, name: String, gathers: bool) -> Result<Self> {
        let (jobs, receiver) = mpsc::channel(BACKLOG);
        std::thread::Builder::new()
            .name(name)
            .spawn(move || run(&connection, receiver, gathers))
            .map_err(|error| Error::backend(format!("cannot start a writer thread: {error}")))?;
        Ok(Self { jobs })
    }

    /// Runs `work` in the next transaction and returns its result once that is committed.
    pub(super) async fn write<T, F>(&self, work: F) -> Result<T>
    where
        T: Send + 'static,
        F: FnOnce(&Connection) -> Result<T> + Send + 'static,
    {
        let (reply, result) = oneshot::channel();
        let job: Job = Box::new(move |connection| {
            let outcome = work(connection);
            let spoils_batch = spoils(&outcome);
            let deliver: Deliver = Box::new(move |failed: Option<&Arc<Error>>| {
                let outcome = match failed {
                    Some(error) if outcome.is_ok() => Err(batch_failed(error)),
                    _ => outcome,
                };
                // The caller may have gone away (request cancelled); nothing to do then.
                let _ = reply.send(outcome);
            });
            (spoils_batch, deliver)
        });
        self.jobs
            .send(job)
            .await
            .map_err(|_| Error::backend("the storage writer has stopped"))?;
        result.await.map_err(|_| {
            Error::backend("the write was abandoned: its transaction could not begin (see the log)")
        })?
    }
}

/// The results of a job that made several calls: each call's own, unless one failed in the
/// backend, which fails the job (and so rolls back its transaction).
pub(super) fn each<T>(results: Vec<Result<T>>) -> Result<Vec<Result<T>>> {
    match results.iter().position(spoils) {
        Some(failed) => Err(results
            .into_iter()
            .nth(failed)
            .and_then(Result::err)
            .unwrap_or_else(|| Error::backend("a write failed"))),
        None => Ok(results),
    }
}

/// Whether a job's result must roll back its transaction: a backend failure, not a failed
/// condition (which changed nothing).
fn spoils<T>(result: &Result<T>) -> bool {
    matches!(
        result,
        Err(Error::Backend(_) | Error::Busy(_) | Error::StorageFull(_))
    )
}

/// What a job is told when its transaction failed: a full disk stays a full disk, so the
/// caller can say that nothing was saved for want of room.
fn batch_failed(error: &Error) -> Error {
    match error {
        Error::StorageFull(reason) => Error::StorageFull(reason.clone()),
        other => Error::backend(format!("the write was rolled back: {other}")),
    }
}

/// Longest gap between looks at the file's free pages while it is being written.
const RECLAIM_EVERY: Duration = Duration::from_secs(1);

fn run(connection: &Connection, mut receiver: mpsc::Receiver<Job>, gathers: bool) {
    // A runtime of the thread's own, only to wait for a job with a time limit.
    let waiting = match tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            tracing::error!(%error, "a storage writer cannot start");
            return;
        }
    };
    let mut batch = Vec::with_capacity(MAX_BATCH);
    // Whether commits were made since the last look at the free pages, and when that was.
    let (mut written, mut looked) = (false, Instant::now());
    // How many jobs the last commit carried: more than one means writers are busy.
    let mut last_batch = 0;
    loop {
        // A job already waiting is taken at once; only an empty channel is waited on, with a
        // time limit (a timer costs something, and busy writers rarely need one).
        let next = match receiver.try_recv() {
            Ok(job) => Ok(Some(job)),
            Err(mpsc::error::TryRecvError::Disconnected) => Ok(None),
            Err(mpsc::error::TryRecvError::Empty) => waiting
                .block_on(async { tokio::time::timeout(RECLAIM_EVERY, receiver.recv()).await }),
        };
        match next {
            Ok(Some(job)) => batch.push(job),
            // Every handle is gone: the store was dropped.
            Ok(None) => return,
            // Quiet for a while: give back what the last writes freed.
            Err(_) => {
                if std::mem::take(&mut written) {
                    reclaim(connection, Checkpoint::Truncate);
                    looked = Instant::now();
                }
                continue;
            }
        }
        take_waiting(&mut receiver, &mut batch);
        if gathers_more(gathers, last_batch, batch.len()) {
            std::thread::sleep(GATHER);
            take_waiting(&mut receiver, &mut batch);
        }
        last_batch = batch.len();
        commit(connection, std::mem::take(&mut batch));
        written = true;
        if looked.elapsed() >= RECLAIM_EVERY {
            reclaim(connection, Checkpoint::Passive);
            (written, looked) = (false, Instant::now());
        }
    }
}

/// Whether a batch of `waiting` jobs gathers for `GATHER` before its commit: on a fsynced file,
/// when writers are busy (the last commit, or the jobs waiting now, were more than one), so one
/// commit (its log frames and its fsync) serves more of them. Writes that come one at a time
/// never wait.
fn gathers_more(fsynced: bool, last_batch: usize, waiting: usize) -> bool {
    fsynced && (last_batch > 1 || waiting > 1)
}

/// Takes the jobs waiting, up to a batch's worth.
fn take_waiting(receiver: &mut mpsc::Receiver<Job>, batch: &mut Vec<Job>) {
    while batch.len() < MAX_BATCH {
        match receiver.try_recv() {
            Ok(job) => batch.push(job),
            Err(_) => break,
        }
    }
}

/// Free pages a file may hold before the writer gives them back to the file system.
const FREE_PAGES: i64 = 256;
/// Pages given back per round, so one round never holds the write lock for long.
const RECLAIM_PAGES: i64 = 4096;

/// How the checkpoint after giving pages back runs.
#[derive(Clone, Copy)]
enum Checkpoint {
    /// While writes come in: copy what it can, wait for nobody.
    Passive,
    /// Once they stop: also empty the log file (waiting briefly for readers).
    Truncate,
}

/// Gives free pages back once deletes have left enough of them, then checkpoints so the file
/// itself shrinks. Reading the count costs a look at the file's first page.
fn reclaim(connection: &Connection, checkpoint: Checkpoint) {
    let free = busy::retry(|| {
        connection
            .prepare_cached("pragma freelist_count")?
            .query_row([], |row| row.get(0))
    });
    if free.is_ok_and(|free: i64| free > FREE_PAGES) {
        let vacuum = format!("pragma incremental_vacuum({RECLAIM_PAGES})");
        // The pragma frees a page for each step: it is run by reading it to its end.
        let run = || {
            let mut statement = connection.prepare(&vacuum)?;
            let mut rows = statement.query([])?;
            while rows.next()?.is_some() {}
            Ok(())
        };
        let pragma = match checkpoint {
            Checkpoint::Passive => "pragma wal_checkpoint(passive)",
            Checkpoint::Truncate => "pragma wal_checkpoint(truncate)",
        };
        let checkpoint = || connection.query_row(pragma, [], |_| Ok(()));
        if let Err(error) = busy::retry(run).and_then(|()| busy::retry(checkpoint)) {
            tracing::warn!(%error, "giving free pages back failed; trying again later");
        }
    }
}

fn commit(connection: &Connection, jobs: Vec<Job>) {
    // IMMEDIATE takes the write lock up front, so the busy handler can wait for it; a deferred
    // transaction would fail outright when it tried to upgrade a read lock.
    if let Err(error) = busy::retry(|| connection.execute_batch("begin immediate")) {
        // Dropping the jobs unrun tells each caller its write was abandoned.
        tracing::error!(%error, "a local storage transaction could not begin");
        return;
    }
    let mut spoiled = false;
    let mut delivered = Vec::with_capacity(jobs.len());
    for job in jobs {
        let (spoils, deliver) = job(connection);
        spoiled |= spoils;
        delivered.push(deliver);
    }
    let failure = if spoiled {
        rollback(connection);
        Some(Error::backend(
            "another write in the same transaction failed",
        ))
    } else {
        busy::retry(|| connection.execute_batch("commit"))
            .err()
            .inspect(|_| rollback(connection))
    };
    let failure = failure.map(Arc::new);
    if let Some(error) = &failure {
        tracing::error!(%error, "a local storage transaction failed");
    }
    for deliver in delivered {
        deliver(failure.as_ref());
    }
}

fn rollback(connection: &Connection) {
    if let Err(error) = connection.execute_batch("rollback") {
        tracing::error!(%error, "rolling back a local storage transaction failed");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_busy_writers_of_a_fsynced_file_gather() {
        // One write at a time: none waits, however long it goes on.
        assert!(!gathers_more(true, 0, 1));
        assert!(!gathers_more(true, 1, 1));
        // Busy: several waiting now, or the last commit carried several.
        assert!(gathers_more(true, 1, 2));
        assert!(gathers_more(true, 3, 1));
        // A file not fsynced per commit (workers') never waits.
        assert!(!gathers_more(false, 3, 5));
    }

    #[tokio::test]
    async fn a_full_disk_is_reported_as_such_and_nothing_of_the_write_is_kept() {
        let dir = tempfile::tempdir().expect("a temp dir");
        let connection = Connection::open(dir.path().join("full.sqlite3")).expect("opens");
        connection
            .execute_batch("create table t (body blob not null); pragma max_page_count = 16;")
            .expect("set up");
        let writer = Writer::spawn(connection, "full-writer".into(), true).expect("a writer");

        let write = |size: usize| {
            writer.write(move |connection| {
                connection
                    .execute("insert into t (body) values (?1)", [vec![7u8; size]])
                    .map_err(crate::storage::local::sqlite)?;
                Ok(())
            })
        };
        assert!(write(1_000).await.is_ok());
        let full = write(1_000_000).await;

        assert!(matches!(full, Err(Error::StorageFull(_))), "{full:?}");
        let count = writer
            .write(|connection| {
                connection
                    .query_row("select count(*) from t", [], |row| row.get::<_, i64>(0))
                    .map_err(crate::storage::local::sqlite)
            })
            .await
            .expect("counted");
        assert_eq!(count, 1, "the failed write left nothing");
    }
}
