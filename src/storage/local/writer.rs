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
//! Message adds, one per submitted answer, are the hottest write: the adds waiting together
//! become one multi-row insert instead of one statement each. Jobs in one batch were all in
//! flight at once, so running the adds after the other jobs is an order they could have had.

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

enum Job {
    /// Any statements.
    Work(Work),
    /// A message add, coalesced with the other adds of its batch; replies with the new id.
    Add(NewMessage, oneshot::Sender<Result<String>>),
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
    let (mut adds, mut add_replies) = (Vec::new(), Vec::new());
    for job in jobs {
        match job {
            Job::Work(work) => works.push(work),
            Job::Add(message, reply) => {
                adds.push(message);
                add_replies.push(reply);
            }
        }
    }
    let mut delivered = Vec::with_capacity(works.len());
    let mut added = Vec::new();
    let failure = match begin(connection).await {
        Err(error) => Some(error),
        Ok(()) => {
            let mut spoiled = false;
            for work in works {
                let (spoils, deliver) = work(connection).await;
                spoiled |= spoils;
                delivered.push(deliver);
            }
            if !adds.is_empty() {
                match super::queue::insert_messages(connection, &adds).await {
                    Ok(ids) => added = ids,
                    Err(_) => spoiled = true,
                }
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
    let mut added = added.into_iter();
    for reply in add_replies {
        let outcome = match (&failure, added.next()) {
            (None, Some(outcome)) => outcome,
            (Some(error), _) => Err(batch_failed(error)),
            (None, None) => Err(Error::backend("a message add got no result")),
        };
        // The caller may have gone away (request cancelled); nothing to do then.
        let _ = reply.send(outcome);
    }
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
