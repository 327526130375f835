//! Retrying SQLite calls that find the database locked by another process.

use std::future::Future;
use std::time::{Duration, Instant};

use crate::storage::Error;

/// How long to keep retrying a busy database before giving up.
const BUDGET: Duration = Duration::from_secs(30);

/// True if SQLite reported the database busy or locked (another connection holds the lock).
pub(super) fn is_busy(error: &sqlx::Error) -> bool {
    let Some(database_error) = error.as_database_error() else {
        return false;
    };
    // Primary result codes 5 (SQLITE_BUSY) and 6 (SQLITE_LOCKED); extended codes keep them
    // in their low byte.
    database_error
        .code()
        .and_then(|code| code.parse::<i32>().ok())
        .is_some_and(|code| matches!(code & 0xff, 5 | 6))
}

/// Runs `call` until it succeeds, fails with something other than busy, or the budget is spent.
pub(super) async fn busy<T, F, Fut>(mut call: F) -> Result<T, Error>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<T, sqlx::Error>>,
{
    let mut backoff = Backoff::new();
    loop {
        match call().await {
            Err(error) if is_busy(&error) => backoff.wait().await?,
            outcome => return outcome.map_err(Error::backend),
        }
    }
}

/// Runs a raw SQL script on one connection, retrying while the database is busy.
pub(super) async fn raw(
    connection: &mut sqlx::SqliteConnection,
    sql: &'static str,
) -> Result<(), Error> {
    let mut backoff = Backoff::new();
    loop {
        match sqlx::raw_sql(sql).execute(&mut *connection).await {
            Err(error) if is_busy(&error) => backoff.wait().await?,
            outcome => return outcome.map(drop).map_err(Error::backend),
        }
    }
}

/// Exponential pauses between retries, within the budget.
struct Backoff {
    started: Instant,
    pause: Duration,
}

impl Backoff {
    fn new() -> Self {
        Self {
            started: Instant::now(),
            pause: Duration::from_millis(2),
        }
    }

    /// Waits before the next try, or fails once the budget is spent.
    async fn wait(&mut self) -> Result<(), Error> {
        if self.started.elapsed() > BUDGET {
            return Err(Error::Busy(BUDGET));
        }
        tokio::time::sleep(self.pause).await;
        self.pause = (self.pause * 2).min(Duration::from_millis(200));
        Ok(())
    }
}
