//! Waiting for another process's lock on a local database file.
//!
//! SQLite's own busy timeout sleeps 1, 2, 5, 10, 15 ... ms between tries, while our write
//! transactions hold a lock for well under a millisecond, so a waiting process would sleep many
//! times longer than the lock was held. The handler installed here tries again after 50 µs,
//! doubling up to 1 ms, and gives up (SQLITE_BUSY) after 5 s; `retry` then starts the call
//! again with longer pauses, for up to 30 s in all, before reporting `Error::Busy`.
//!
//! Everything here blocks: it runs on a database's writer thread or on a blocking-pool thread.

use std::time::{Duration, Instant};

use rusqlite::{Connection, ErrorCode};

use crate::storage::{Error, Result};

/// The first pause of the handler.
const FIRST: Duration = Duration::from_micros(50);
/// The handler's longest single pause.
const LONGEST: Duration = Duration::from_millis(1);
/// How long one call waits in the handler before SQLite reports the database busy.
const TIMEOUT: Duration = Duration::from_secs(5);
/// How long `retry` keeps starting a call again before giving up.
const BUDGET: Duration = Duration::from_secs(30);

/// The handler's pause before retry number `tries` (from 0), or `None` once the pauses before
/// it add up to the timeout.
fn pause(tries: u32) -> Option<Duration> {
    // Pauses double from FIRST until they reach LONGEST, then stay there.
    let doubling = (0..)
        .map(|n| FIRST * 2u32.pow(n))
        .take_while(|pause| *pause < LONGEST);
    let mut waited = Duration::ZERO;
    for (n, step) in doubling.chain(std::iter::repeat(LONGEST)).enumerate() {
        if waited + step > TIMEOUT {
            return None;
        }
        if n as u64 == u64::from(tries) {
            return Some(step);
        }
        waited += step;
    }
    None
}

/// Called by SQLite on the connection's own thread when a lock is held elsewhere: sleeps and
/// asks for another try (true), or gives up (false).
fn on_busy(tries: i32) -> bool {
    match pause(u32::try_from(tries).unwrap_or(u32::MAX)) {
        Some(step) => {
            std::thread::sleep(step);
            true
        }
        None => false,
    }
}

/// Replaces the connection's busy timeout with the short-step handler.
pub(super) fn install(connection: &Connection) -> rusqlite::Result<()> {
    connection.busy_handler(Some(on_busy))
}

/// True if SQLite reported the database busy or locked by another connection.
fn is_busy(error: &rusqlite::Error) -> bool {
    matches!(
        error.sqlite_error_code(),
        Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked)
    )
}

/// Runs `call` until it succeeds, fails with something other than busy, or the budget is spent.
pub(super) fn retry<T>(mut call: impl FnMut() -> rusqlite::Result<T>) -> Result<T> {
    let started = Instant::now();
    let mut backoff = Duration::from_millis(2);
    loop {
        match call() {
            Err(error) if is_busy(&error) => {
                if started.elapsed() > BUDGET {
                    return Err(Error::Busy(BUDGET));
                }
                std::thread::sleep(backoff);
                backoff = (backoff * 2).min(Duration::from_millis(200));
            }
            outcome => return outcome.map_err(super::sqlite),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pauses_double_from_fifty_microseconds_to_a_millisecond() {
        let first: Vec<u128> = (0..7).map(|n| pause(n).unwrap().as_micros()).collect();
        assert_eq!(first, [50, 100, 200, 400, 800, 1000, 1000]);
    }

    #[test]
    fn gives_up_once_the_pauses_add_up_to_the_timeout() {
        let total: Duration = (0..).map_while(pause).sum();
        assert!(total <= TIMEOUT);
        assert!(total > TIMEOUT - LONGEST);
        let last = (0..).map_while(pause).count() as u32;
        assert_eq!(pause(last), None);
        assert_eq!(pause(u32::MAX), None);
    }

    #[test]
    fn only_busy_and_locked_are_retried() {
        let busy = rusqlite::Error::SqliteFailure(
            rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_BUSY),
            None,
        );
        let constraint = rusqlite::Error::SqliteFailure(
            rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_CONSTRAINT),
            None,
        );
        assert!(is_busy(&busy));
        assert!(!is_busy(&constraint));
        assert!(!is_busy(&rusqlite::Error::QueryReturnedNoRows));
    }
}
