//! The files of a data directory, and which file holds what.
//!
//! - `canvass.sqlite3` holds the queues and their messages, and the layout record;
//! - `canvass-blobs-N.sqlite3`, N from 0, hold the blobs, each key in the file its hash picks.
//!
//! Every file has its own write lock, so processes sharing the directory mostly write to
//! different files at once: a worker storing answers does not wait for another deleting
//! messages. The number of blob files is recorded when the directory is created and read back
//! by every later opener, so all processes agree where a key lives.
//!
//! A directory written by an earlier version is brought up to date when opened (`upgrade`).

use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

use futures_util::future::try_join_all;
use rusqlite::Connection;

use super::database::Database;
use super::files::{blob_path, file_of, open_plain};
use super::{Durability, Options, busy, upgrade};
use crate::storage::Result;

/// File name of the queue database inside the data directory.
pub const QUEUE_FILE: &str = "canvass.sqlite3";

/// Blob files in a new data directory.
const BLOB_FILES: u32 = 4;

const QUEUE_SCHEMA: &str = "
create table if not exists layout (
    id integer primary key check (id = 0),
    blob_files integer not null
);
create table if not exists queue (
    name text primary key
);
create table if not exists message (
    id integer primary key autoincrement,
    queue text not null references queue (name) on delete cascade,
    inserted_at integer not null,
    visible_at integer not null,
    pop_receipt text,
    dequeue_count integer not null default 0
);
create index if not exists message_by_visibility on message (queue, visible_at, id);
-- Apart from the message, so that receiving (which rewrites visibility, receipt and count)
-- rewrites a small row, many to a page, not a page for every few messages.
create table if not exists message_body (
    id integer primary key,
    body blob not null
);
";

const BLOB_SCHEMA: &str = "
create table if not exists blob (
    key text primary key,
    body blob not null,
    version integer not null,
    last_modified integer not null
);
";

/// The open files of one data directory.
#[derive(Debug)]
pub(super) struct Layout {
    /// Queues and messages.
    pub(super) queues: Database,
    /// Blobs, by `file_of`.
    blobs: Vec<Database>,
    /// Whether commits are fsynced as they are made.
    durability: Durability,
    /// Calls of `flush_blobs` so far.
    flush_calls: AtomicU64,
    /// Held by the one round of fsyncs under way; the calls that round covers.
    flushed: tokio::sync::Mutex<u64>,
}

impl Layout {
    /// Opens (creating if needed) every file of `data_dir`. Blocking.
    pub(super) fn open(data_dir: &Path, options: &Options) -> Result<Self> {
        super::private::private_dir(data_dir)?;
        let queue_path = data_dir.join(QUEUE_FILE);
        let queues = Database::open(&queue_path, options, QUEUE_SCHEMA)?;
        // One connection for the one-off work of opening.
        let vfs = options.vfs.as_deref();
        let mut setup = open_plain(&queue_path, vfs)?;
        upgrade::move_old_bodies(&mut setup)?;
        let count = blob_files(&setup)?;
        let blobs = (0..count)
            .map(|n| Database::open(&blob_path(data_dir, n), options, BLOB_SCHEMA))
            .collect::<Result<Vec<_>>>()?;
        upgrade::move_old_blobs(&mut setup, data_dir, count, vfs)?;
        Ok(Self {
            queues,
            blobs,
            durability: options.durability,
            flush_calls: AtomicU64::new(0),
            flushed: tokio::sync::Mutex::new(0),
        })
    }

    /// The file that holds `key`.
    pub(super) fn blob_file(&self, key: &str) -> &Database {
        &self.blobs[file_of(key, self.blobs.len())]
    }

    /// Every blob file, in order.
    pub(super) fn blob_files(&self) -> &[Database] {
        &self.blobs
    }

    /// Makes every blob write so far durable, if this handle's commits are not fsynced anyway.
    /// Files reach the disk independently, so a write in one file that depends on writes in
    /// others (a message delete on the answers it queued, a commit on the answers it counts)
    /// must come after this, or a power cut could keep it and lose them.
    ///
    /// Concurrent callers share rounds of fsyncs: a round covers every call made before it
    /// started, since those callers' writes had returned by then.
    /// Each file's `synchronous` setting, queue file first.
    pub(super) async fn synchronous(&self) -> Result<Vec<i64>> {
        let files = std::iter::once(&self.queues).chain(&self.blobs);
        try_join_all(files.map(Database::synchronous)).await
    }

    /// Times this handle fsynced a blob file's log.
    pub(super) fn log_syncs(&self) -> u64 {
        self.blobs.iter().map(Database::log_syncs).sum()
    }

    pub(super) async fn flush_blobs(&self) -> Result<()> {
        if self.durability == Durability::Full {
            return Ok(());
        }
        let call = self.flush_calls.fetch_add(1, Ordering::AcqRel) + 1;
        let mut flushed = self.flushed.lock().await;
        if *flushed >= call {
            return Ok(());
        }
        let covers = self.flush_calls.load(Ordering::Acquire);
        try_join_all(self.blobs.iter().map(Database::sync_log)).await?;
        *flushed = covers;
        Ok(())
    }
}

/// The directory's number of blob files: recorded by its first opener, read by the rest.
fn blob_files(connection: &Connection) -> Result<u32> {
    busy::retry(|| {
        connection.execute(
            "insert into layout (id, blob_files) values (0, ?1) on conflict do nothing",
            [BLOB_FILES],
        )?;
        connection.query_row("select blob_files from layout where id = 0", [], |row| {
            row.get(0)
        })
    })
}
