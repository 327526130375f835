//! The embedded default: blobs and queue messages in one SQLite database in the data directory.
//!
//! Durability: the database runs in WAL mode. A `Durability::Full` handle (the web tier:
//! answers about to be acknowledged, tenants, surveys) fsyncs every commit before a call
//! returns (`synchronous=FULL`); a power cut loses only calls that had not returned yet. To
//! keep that affordable, all writes of a handle go through one writer task that commits
//! whatever calls are waiting in one transaction (group commit: one fsync for many writers).
//! A `Durability::Relaxed` handle (workers) commits without waiting for the fsync
//! (`synchronous=NORMAL`): a kill -9 loses nothing, and a power cut can only roll the database
//! back to an earlier commit, never tear one. WAL commits survive in order, so what such a
//! rollback drops is the most recent worker progress, together with the deletion of the
//! messages that caused it; those messages are then processed again, which the worker's
//! protocol makes harmless. The next `Full` commit by anyone makes everything before it durable.
//! Reads use a small pool of reader connections and never wait for the writer.
//!
//! Several processes may share one data directory: SQLite's file locks serialise their write
//! transactions, each conditional write is a single compare-and-swap statement inside such a
//! transaction, and a busy database is waited for (busy timeout) and then retried.

mod blob;
mod busy;
mod queue;
mod retry;
mod writer;

pub use blob::LocalBlobStore;
pub use queue::LocalQueue;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use sqlx::ConnectOptions;
use sqlx::sqlite::SqliteSynchronous;
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions};

use super::{Error, Result, Storage};
use writer::Writer;

/// File name of the database inside the data directory.
pub const DATABASE_FILE: &str = "canvass.sqlite3";

/// Reader connections per process; WAL readers never block each other or the writer.
const READERS: u32 = 8;

const SCHEMA: &str = "
create table if not exists blob (
    key text primary key,
    body blob not null,
    version integer not null,
    last_modified integer not null
);
create table if not exists queue (
    name text primary key
);
create table if not exists message (
    id integer primary key autoincrement,
    queue text not null references queue (name) on delete cascade,
    body blob not null,
    inserted_at integer not null,
    visible_at integer not null,
    pop_receipt text,
    dequeue_count integer not null default 0
);
create index if not exists message_by_visibility on message (queue, visible_at, id);
";

/// One SQLite database shared by the blob and queue adapters of a process.
#[derive(Debug)]
pub(crate) struct Database {
    readers: SqlitePool,
    writer: Writer,
}

impl Database {
    /// Opens (creating if needed) the database in `data_dir`.
    async fn open(data_dir: &Path, durability: Durability) -> Result<Self> {
        std::fs::create_dir_all(data_dir).map_err(|error| {
            Error::backend(format!(
                "cannot create the data directory {}: {error}",
                data_dir.display()
            ))
        })?;
        let options = SqliteConnectOptions::new()
            .filename(database_path(data_dir))
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            .synchronous(match durability {
                Durability::Full => SqliteSynchronous::Full,
                Durability::Relaxed => SqliteSynchronous::Normal,
            })
            .busy_timeout(busy::TIMEOUT)
            .foreign_keys(true);
        let mut connection = retry::busy(|| options.connect()).await?;
        busy::install(&mut connection)
            .await
            .map_err(Error::backend)?;
        retry::raw(&mut connection, SCHEMA).await?;
        let readers = SqlitePoolOptions::new()
            .max_connections(READERS)
            .after_connect(|connection, _| Box::pin(busy::install(connection)))
            .connect_with(options)
            .await
            .map_err(Error::backend)?;
        Ok(Self {
            readers,
            writer: Writer::spawn(connection),
        })
    }
}

/// Where the database of a data directory lives.
pub fn database_path(data_dir: &Path) -> PathBuf {
    data_dir.join(DATABASE_FILE)
}

/// How a handle's commits reach the disk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Durability {
    /// Every commit is fsynced before the call returns.
    Full,
    /// Commits survive a crashed process at once and a power cut once the next fsync is done.
    Relaxed,
}

/// Opens both ports on the database in `data_dir`, every write fsynced.
pub async fn storage(data_dir: &Path) -> Result<Storage> {
    storage_with(data_dir, Durability::Full).await
}

/// Opens both ports on the database in `data_dir` with the given durability.
pub async fn storage_with(data_dir: &Path, durability: Durability) -> Result<Storage> {
    let database = Arc::new(Database::open(data_dir, durability).await?);
    Ok(Storage {
        blobs: Arc::new(LocalBlobStore::new(database.clone())),
        queues: Arc::new(LocalQueue::new(database)),
    })
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
