//! The one writer task of a process: group commit for every write to the local database.
//!
//! Callers hand in a job (a few statements on the connection) and wait. The task takes every
//! job that is waiting, runs them all inside one `BEGIN IMMEDIATE` transaction and commits once,
//! so concurrent writers share one fsync. A job's result is released only after the commit is
//! durable; if the transaction fails, every job in it fails and nothing of it was written.
//!
//! A job's expected failures (a failed condition, a stale pop receipt) change nothing, so they
//! do not spoil the transaction for the others; a backend error rolls the whole batch back.

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

type Job = Box<dyn for<'c> FnOnce(&'c mut SqliteConnection) -> Boxed<'c, Ran> + Send>;

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
        let job: Job = Box::new(move |connection| {
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
    let mut delivered = Vec::with_capacity(jobs.len());
    let failure = match begin(connection).await {
        Err(error) => Some(error),
        Ok(()) => {
            let mut spoiled = false;
            for job in jobs {
                let (spoils, deliver) = job(connection).await;
                spoiled |= spoils;
                delivered.push(deliver);
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
