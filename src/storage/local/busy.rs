//! Waiting for another process's lock on the local database, in steps as short as the locks.
//!
//! SQLite's busy timeout sleeps 1, 2, 5, 10, 15, 20, 25 ... ms between tries, but our write
//! transactions hold the lock for well under a millisecond. With two worker processes each
//! waited several times longer than the other held the lock, so a second process added almost
//! nothing to the drain rate. This handler tries again after 50 µs, doubling up to 1 ms, and
//! gives up (SQLITE_BUSY, which the callers' retries then handle) after the same 5 s.

use std::ffi::{c_int, c_void};
use std::time::Duration;

use sqlx::SqliteConnection;

/// The first pause.
const FIRST: Duration = Duration::from_micros(50);
/// The longest single pause.
const LONGEST: Duration = Duration::from_millis(1);
/// How long one call waits in all before SQLite reports the database busy.
pub(super) const TIMEOUT: Duration = Duration::from_secs(5);

/// The pause before retry number `tries` (from 0), or `None` once the pauses before it add up
/// to the timeout.
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
/// asks for another try (non-zero), or gives up (zero).
unsafe extern "C" fn on_busy(_: *mut c_void, tries: c_int) -> c_int {
    match pause(u32::try_from(tries).unwrap_or(u32::MAX)) {
        Some(step) => {
            std::thread::sleep(step);
            1
        }
        None => 0,
    }
}

/// Replaces the connection's busy timeout with the short-step handler.
pub(super) async fn install(connection: &mut SqliteConnection) -> Result<(), sqlx::Error> {
    let mut handle = connection.lock_handle().await?;
    // SAFETY: the locked handle guarantees no other call uses the connection meanwhile, and the
    // handler keeps no state (a null user pointer) and only sleeps.
    unsafe {
        libsqlite3_sys::sqlite3_busy_handler(
            handle.as_raw_handle().as_ptr(),
            Some(on_busy),
            std::ptr::null_mut(),
        );
    }
    Ok(())
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
}
