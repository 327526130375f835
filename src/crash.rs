//! Crash points, for the fault-injection tests of the answer path and the merge protocol.
//! With `CANVASS_TEST_CRASH_AT=POINT@N` a process aborts the N-th time it reaches POINT, the
//! way SIGKILL would stop it: mid-request or mid-step, with nothing after that point done.
//! The points are the moments between writes. On the answer path (`serve`):
//!
//! - `after-claim`: a personal link's answer is claimed; no quota place is taken, nothing
//!   queued;
//! - `after-places`: its quota places are taken; nothing is queued;
//! - `after-queue`: the answer is queued; the link's claim is not settled.
//!
//! Importing participants: `before-import-done`: every participant of an import is written;
//! its marker (which keeps them absent) is not removed.
//!
//! In a worker (see `worker::merge`):
//!
//! - `after-commit`: the summary counts the batch; nothing is flushed, listed or deleted;
//! - `after-flush`: the commit is durable; no list entry or counted bit is written yet;
//! - `after-settle`: list entries and bits are written; the messages are not deleted;
//! - `before-delete`: incoming blobs are removed; the messages are not deleted;
//! - `after-move-store`: answers moving home are stored there; nothing is queued there yet;
//! - `after-move-queue`: they are queued at home too; nothing is deleted here yet.
//!
//! Unset (as in any real deployment) reaching a point costs one look at a value read once.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};

/// A moment between two writes of the answer path or the merge protocol.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Point {
    /// A personal link's answer was claimed.
    AfterClaim,
    /// The answer's quota places were taken.
    AfterPlaces,
    /// The answer was queued.
    AfterQueue,
    /// An import's participants were written, its marker not yet removed.
    BeforeImportDone,
    /// The summary commit succeeded.
    AfterCommit,
    /// The commit was made durable.
    AfterFlush,
    /// List entries and counted bits were written.
    AfterSettle,
    /// Incoming blobs were removed, messages not yet deleted.
    BeforeDelete,
    /// Answers moving home were stored there.
    AfterMoveStore,
    /// Answers moving home were queued there too.
    AfterMoveQueue,
}

impl Point {
    fn parse(name: &str) -> Option<Self> {
        match name {
            "after-claim" => Some(Point::AfterClaim),
            "after-places" => Some(Point::AfterPlaces),
            "after-queue" => Some(Point::AfterQueue),
            "before-import-done" => Some(Point::BeforeImportDone),
            "after-commit" => Some(Point::AfterCommit),
            "after-flush" => Some(Point::AfterFlush),
            "after-settle" => Some(Point::AfterSettle),
            "before-delete" => Some(Point::BeforeDelete),
            "after-move-store" => Some(Point::AfterMoveStore),
            "after-move-queue" => Some(Point::AfterMoveQueue),
            _ => None,
        }
    }
}

/// The variable naming the crash point.
pub const VARIABLE: &str = "CANVASS_TEST_CRASH_AT";

fn configured() -> Option<(Point, u64)> {
    static CONFIGURED: OnceLock<Option<(Point, u64)>> = OnceLock::new();
    *CONFIGURED.get_or_init(|| {
        let value = std::env::var(VARIABLE).ok()?;
        let (point, nth) = value.split_once('@').unwrap_or((&value, "1"));
        Some((Point::parse(point)?, nth.parse().ok()?))
    })
}

/// Marks that the process reached `point`; aborts the process if the test asked for it here.
pub fn reached(point: Point) {
    static ARRIVALS: AtomicU64 = AtomicU64::new(0);
    if let Some((crash_at, nth)) = configured()
        && crash_at == point
        && ARRIVALS.fetch_add(1, Ordering::SeqCst) + 1 == nth
    {
        // The log so far first, so a test reading it sees what led here.
        crate::telemetry::batched::flush();
        eprintln!("{VARIABLE}: crashing at {point:?}");
        std::process::abort();
    }
}
