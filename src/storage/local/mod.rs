//! The embedded default: blobs and queue messages in SQLite files in the data directory.
//!
//! Layout (see `layout`): queues and messages in `canvass.sqlite3`, blobs spread by a hash of
//! their key over a few `canvass-blobs-N.sqlite3` files. Each file has its own write lock, so
//! processes sharing the directory mostly write to different files at once.
//!
//! Each file of a handle has one writer thread that runs every waiting write in one
//! transaction (group commit: one commit, and one fsync, for many callers) on its own
//! connection, so a file's lock is held only while SQLite works. Reads run on reader
//! connections from tokio's blocking pool and never wait for the writer (WAL mode).
//!
//! Durability. A `Durability::Full` handle (the web tier: answers about to be acknowledged,
//! tenants, surveys) fsyncs every commit before a call returns (`synchronous=FULL`); a power
//! cut loses only calls that had not returned. A `Durability::Relaxed` handle (workers)
//! commits without waiting for the fsync (`synchronous=NORMAL`): a kill -9 loses nothing, and a
//! power cut rolls each file back to one of its earlier commits, never tearing one. Files roll
//! back independently, so a write that depends on writes in other files waits for them to
//! reach the disk: deletes (of messages, and of blobs) first flush every blob file, and the
//! worker's protocol calls `BlobStore::flush` where its own steps depend on each other. What a
//! power cut then drops is recent worker progress together with the deletes of the messages
//! behind it, which are processed again; the protocol makes that harmless.
//!
//! Several processes may share one data directory: SQLite's file locks serialise their write
//! transactions, each conditional write is a single compare-and-swap statement inside such a
//! transaction, and a busy file is waited for in short steps and then retried (`busy`).

pub mod backup;
mod blob;
mod busy;
mod database;
mod files;
mod layout;
mod private;
mod queue;
mod upgrade;
mod writer;

/// Where state lives when `CANVASS_DATA_DIR` is not set.
pub const DEFAULT_DATA_DIR: &str = "./data";

pub use blob::LocalBlobStore;
pub use layout::QUEUE_FILE;
pub use queue::LocalQueue;

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use super::{Error, Result, Storage};
use layout::Layout;

/// How a handle's commits reach the disk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Durability {
    /// Every commit is fsynced before the call returns.
    Full,
    /// Commits survive a crashed process at once and a power cut once the next fsync is done.
    Relaxed,
}

/// How a handle opens its files.
#[derive(Clone, Debug)]
pub struct Options {
    /// How its commits reach the disk.
    pub durability: Durability,
    /// The SQLite VFS its files are opened through (`None`: SQLite's default). The power-cut
    /// test registers one that forgets what was not fsynced.
    pub vfs: Option<String>,
}

impl Options {
    /// The default VFS with this durability.
    pub fn with(durability: Durability) -> Self {
        Self {
            durability,
            vfs: None,
        }
    }
}

/// Opens both ports on the files in `data_dir`, every write fsynced.
pub async fn storage(data_dir: &Path) -> Result<Storage> {
    storage_with(data_dir, Durability::Full).await
}

/// Opens both ports on the files in `data_dir` with the given durability.
pub async fn storage_with(data_dir: &Path, durability: Durability) -> Result<Storage> {
    open(data_dir, Options::with(durability))
        .await
        .map(|(storage, _)| storage)
}

/// Opens both ports on the files in `data_dir`, with what can be asked of the handle itself.
pub async fn open(data_dir: &Path, options: Options) -> Result<(Storage, Diagnostics)> {
    let dir = data_dir.to_owned();
    let layout = tokio::task::spawn_blocking(move || Layout::open(&dir, &options))
        .await
        .map_err(Error::backend)??;
    let layout = Arc::new(layout);
    let storage = Storage {
        blobs: Arc::new(LocalBlobStore::new(layout.clone())),
        queues: Arc::new(LocalQueue::new(layout.clone())),
    };
    Ok((storage, Diagnostics { layout }))
}

/// What a local handle can tell about itself, for tests and operators.
#[derive(Clone, Debug)]
pub struct Diagnostics {
    layout: Arc<Layout>,
}

impl Diagnostics {
    /// Each file's `synchronous` setting as its writer uses it (2 full, 1 normal), queue
    /// file first.
    pub async fn synchronous(&self) -> Result<Vec<i64>> {
        self.layout.synchronous().await
    }

    /// How many times this handle has fsynced a blob file's log.
    pub fn log_syncs(&self) -> u64 {
        self.layout.log_syncs()
    }
}

/// A SQLite failure as a storage error, with a full disk told apart so callers can say so.
fn sqlite(error: rusqlite::Error) -> Error {
    match error.sqlite_error_code() {
        Some(rusqlite::ErrorCode::DiskFull) => Error::StorageFull(error.to_string()),
        _ => Error::backend(error),
    }
}

/// Milliseconds since the Unix epoch, the clock every process sharing the database uses.
fn millis(time: SystemTime) -> i64 {
    time.duration_since(UNIX_EPOCH)
        .map(|elapsed| i64::try_from(elapsed.as_millis()).unwrap_or(i64::MAX))
        .unwrap_or(0)
}

/// The inverse of `millis`.
fn from_millis(millis: i64) -> SystemTime {
    UNIX_EPOCH + Duration::from_millis(u64::try_from(millis).unwrap_or(0))
}
