//! The one writer task of a process: group commit for every write to the local database.
//!
//! Callers hand in a job (a few statements on the connection) and wait. The task takes every
//! job that is waiting, runs them all inside one `BEGIN IMMEDIATE` transaction and commits once,
//! so concurrent writers share one fsync. A job's result is released only after the commit is
//! durable; if the transaction fails, every job in it fails and nothing of it was written.
//!
//! A job's expected failures (a failed condition, a stale pop receipt) change nothing, so they
//! do not spoil the transaction for the others; a backend error rolls the whole batch back.
//!
//! The hottest writes, message adds (one per submitted answer), create-only blob puts and
//! message deletes (one each per processed answer), are coalesced: those waiting together
//! become one multi-row statement instead of one statement each. Jobs in one batch were all
//! in flight at once, so running each kind together is an order they could have had.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use sqlx::SqliteConnection;
use tokio::sync::{mpsc, oneshot};

use super::retry;
use crate::storage::{Error, Result};

/// Most jobs committed in one transaction.
const MAX_BATCH: usize = 256;

/// Jobs waiting for the writer before callers wait to hand in more.
const BACKLOG: usize = 4096;

type Boxed<'c, T> = Pin<Box<dyn Future<Output = T> + Send + 'c>>;

/// Hands a job's result to its caller once the fate of its transaction is known.
type Deliver = Box<dyn FnOnce(Option<&Arc<Error>>) + Send>;

/// Whether a job's own failure must roll back the batch it ran in.
type Ran = (bool, Deliver);

type Work = Box<dyn for<'c> FnOnce(&'c mut SqliteConnection) -> Boxed<'c, Ran> + Send>;

/// A message to insert, with the queue it goes to.
pub(super) struct NewMessage {
    pub(super) queue: String,
    pub(super) body: bytes::Bytes,
    pub(super) inserted_at: i64,
    pub(super) visible_at: i64,
}

/// A blob to create unless its key exists.
pub(super) struct NewBlob {
    pub(super) key: String,
    pub(super) body: bytes::Bytes,
    pub(super) version: i64,
    pub(super) last_modified: i64,
}

/// A held message to delete.
pub(super) struct HeldMessage {
    pub(super) queue: String,
    pub(super) id: String,
    pub(super) receipt: String,
}

type Reply<T> = oneshot::Sender<Result<T>>;

enum Job {
    /// Any statements.
    Work(Work),
    /// A message add; replies with the new id.
    Add(NewMessage, Reply<String>),
    /// A create-only blob put.
    Create(NewBlob, Reply<()>),
    /// A message delete.
    DeleteMessage(HeldMessage, Reply<()>),
}

/// Calls of one kind run as one statement: their inputs, and where each result goes.
struct Group<I, O> {
    inputs: Vec<I>,
    replies: Vec<Reply<O>>,
}

impl<I, O> Default for Group<I, O> {
    fn default() -> Self {
        Self {
            inputs: Vec::new(),
            replies: Vec::new(),
        }
    }
}

impl<I, O> Group<I, O> {
    fn push(&mut self, input: I, reply: Reply<O>) {
        self.inputs.push(input);
        self.replies.push(reply);
    }

    /// Sends each caller its result, or the transaction's failure.
    fn deliver(self, results: Vec<Result<O>>, failure: Option<&Arc<Error>>) {
        let mut results = results.into_iter();
        for reply in self.replies {
            let outcome = match (failure, results.next()) {
                (None, Some(outcome)) => outcome,
                (Some(error), _) => Err(batch_failed(error)),
                (None, None) => Err(Error::backend("a coalesced write got no result")),
            };
            // The caller may have gone away (request cancelled); nothing to do then.
            let _ = reply.send(outcome);
        }
    }
}

/// A handle to the writer task.
#[derive(Debug, Clone)]
pub(super) struct Writer {
    jobs: mpsc::Sender<Job>,
}

impl Writer {
    /// Starts the writer task on `connection`.
    pub(super) fn spawn(connection: SqliteConnection) -> Self {
        let (jobs, receiver) = mpsc::channel(BACKLOG);
        tokio::spawn(run(connection, receiver));
        Self { jobs }
    }

    /// Runs `work` in the next transaction and returns its result once that is committed.
    pub(super) async fn write<T, F>(&self, work: F) -> Result<T>
    where
        T: Send + 'static,
        F: for<'c> FnOnce(&'c mut SqliteConnection) -> Boxed<'c, Result<T>> + Send + 'static,
    {
        let (reply, result) = oneshot::channel();
        let work: Work = Box::new(move |connection| {
            Box::pin(async move {
                let outcome = work(connection).await;
                let spoils_batch = matches!(outcome, Err(Error::Backend(_)) | Err(Error::Busy(_)));
                let deliver: Deliver = Box::new(move |failed: Option<&Arc<Error>>| {
                    let outcome = match failed {
                        Some(error) if outcome.is_ok() => Err(batch_failed(error)),
                        _ => outcome,
                    };
                    // The caller may have gone away (request cancelled); nothing to do then.
                    let _ = reply.send(outcome);
                });
                (spoils_batch, deliver)
            })
        });
        self.submit(Job::Work(work), result).await
    }

    /// Adds a message in the next transaction; returns its id once that is committed.
    pub(super) async fn add(&self, message: NewMessage) -> Result<String> {
        let (reply, result) = oneshot::channel();
        self.submit(Job::Add(message, reply), result).await
    }

    /// Creates a blob unless its key exists (`Error::AlreadyExists`).
    pub(super) async fn create(&self, blob: NewBlob) -> Result<()> {
        let (reply, result) = oneshot::channel();
        self.submit(Job::Create(blob, reply), result).await
    }

    /// Deletes a held message (`Error::PopReceiptMismatch` / `NotFound` if not held).
    pub(super) async fn delete_message(&self, message: HeldMessage) -> Result<()> {
        let (reply, result) = oneshot::channel();
        self.submit(Job::DeleteMessage(message, reply), result)
            .await
    }

    async fn submit<T>(&self, job: Job, result: oneshot::Receiver<Result<T>>) -> Result<T> {
        self.jobs
            .send(job)
            .await
            .map_err(|_| Error::backend("the storage writer has stopped"))?;
        result.await.map_err(|_| {
            Error::backend("the write was abandoned: its transaction could not begin (see the log)")
        })?
    }
}

fn batch_failed(error: &Error) -> Error {
    Error::backend(format!("the write was rolled back: {error}"))
}

async fn run(mut connection: SqliteConnection, mut receiver: mpsc::Receiver<Job>) {
    let mut batch = Vec::with_capacity(MAX_BATCH);
    while receiver.recv_many(&mut batch, MAX_BATCH).await > 0 {
        commit(&mut connection, std::mem::take(&mut batch)).await;
    }
}

async fn commit(connection: &mut SqliteConnection, jobs: Vec<Job>) {
    let mut works = Vec::new();
    let mut adds = Group::default();
    let mut creates = Group::default();
    let mut deletes = Group::default();
    for job in jobs {
        match job {
            Job::Work(work) => works.push(work),
            Job::Add(message, reply) => adds.push(message, reply),
            Job::Create(blob, reply) => creates.push(blob, reply),
            Job::DeleteMessage(message, reply) => deletes.push(message, reply),
        }
    }
    let mut delivered = Vec::with_capacity(works.len());
    let (mut added, mut created, mut deleted) = (Vec::new(), Vec::new(), Vec::new());
    let failure = match begin(connection).await {
        Err(error) => Some(error),
        Ok(()) => {
            let mut spoiled = false;
            for work in works {
                let (spoils, deliver) = work(connection).await;
                spoiled |= spoils;
                delivered.push(deliver);
            }
            if !adds.inputs.is_empty() {
                added = kept(
                    super::queue::insert_messages(connection, &adds.inputs).await,
                    &mut spoiled,
                );
            }
            if !creates.inputs.is_empty() {
                created = kept(
                    super::blob::create_blobs(connection, &creates.inputs).await,
                    &mut spoiled,
                );
            }
            if !deletes.inputs.is_empty() {
                deleted = kept(
                    super::queue::delete_messages(connection, &deletes.inputs).await,
                    &mut spoiled,
                );
            }
            if spoiled {
                rollback(connection).await;
                Some(Error::backend(
                    "another write in the same transaction failed",
                ))
            } else {
                end(connection).await.err()
            }
        }
    };
    let failure = failure.map(Arc::new);
    if let Some(error) = &failure {
        tracing::error!(error = %error, "a local storage transaction failed");
    }
    for deliver in delivered {
        deliver(failure.as_ref());
    }
    adds.deliver(added, failure.as_ref());
    creates.deliver(created, failure.as_ref());
    deletes.deliver(deleted, failure.as_ref());
}

/// The per-call results of a coalesced statement; a failed statement spoils the batch.
fn kept<T>(outcome: Result<Vec<Result<T>>>, spoiled: &mut bool) -> Vec<Result<T>> {
    outcome.unwrap_or_else(|_| {
        *spoiled = true;
        Vec::new()
    })
}

async fn begin(connection: &mut SqliteConnection) -> Result<()> {
    // IMMEDIATE takes the write lock up front, so the busy handler can wait for it; a
    // deferred transaction would fail outright when it tried to upgrade a read lock.
    retry::raw(connection, "begin immediate").await
}

async fn end(connection: &mut SqliteConnection) -> Result<()> {
    if let Err(error) = retry::raw(connection, "commit").await {
        rollback(connection).await;
        return Err(error);
    }
    Ok(())
}

async fn rollback(connection: &mut SqliteConnection) {
    if let Err(error) = sqlx::raw_sql("rollback").execute(&mut *connection).await {
        tracing::error!(%error, "rolling back a local storage transaction failed");
    }
}
