//! One SQLite file of the local backend: its writer thread and its reader connections.
//!
//! Reads run on tokio's blocking pool, each on a connection taken from this file's idle list
//! (opened when none is idle, kept for the next read). In WAL mode readers never block each
//! other or the writer, so a handful of them in flight at once is plenty.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use rusqlite::{Connection, OpenFlags, ffi};
use tokio::sync::Semaphore;

use super::writer::Writer;
use super::{Durability, Options, busy};
use crate::storage::{Error, Result};

/// Reads in flight at once per file.
const READERS: usize = 8;

/// One database file.
#[derive(Debug)]
pub(super) struct Database {
    writer: Writer,
    readers: Arc<Readers>,
    /// Times `sync_log` fsynced the log.
    syncs: AtomicU64,
}

impl Database {
    /// Opens (creating if needed) the file at `path`, runs `schema` on it and starts its writer.
    /// Blocking: call it off the async runtime.
    pub(super) fn open(path: &Path, options: &Options, schema: &str) -> Result<Self> {
        let connection = connect(path, options)?;
        reclaimable(&connection, path)?;
        busy::retry(|| connection.execute_batch(schema)).map_err(|error| opening(path, error))?;
        let name = path.file_stem().map_or_else(
            || "canvass".into(),
            |stem| stem.to_string_lossy().into_owned(),
        );
        Ok(Self {
            writer: Writer::spawn(
                connection,
                format!("{name}-writer"),
                options.durability == Durability::Full,
            )?,
            syncs: AtomicU64::new(0),
            readers: Arc::new(Readers {
                path: path.to_owned(),
                options: options.clone(),
                idle: Mutex::new(Vec::new()),
                permits: Semaphore::new(READERS),
            }),
        })
    }

    /// Runs `work` in this file's next write transaction; see `Writer::write`.
    pub(super) async fn write<T, F>(&self, work: F) -> Result<T>
    where
        T: Send + 'static,
        F: FnOnce(&Connection) -> Result<T> + Send + 'static,
    {
        self.writer.write(work).await
    }

    /// Makes every transaction committed to this file so far durable, by anyone: fsyncs its
    /// write-ahead log, through SQLite's own file layer (so through whatever VFS the file was
    /// opened with). What a checkpoint has moved from the log into the file was fsynced by the
    /// checkpoint; a log that is gone was checkpointed whole.
    pub(super) async fn sync_log(&self) -> Result<()> {
        self.syncs.fetch_add(1, Ordering::Relaxed);
        self.read(sync_wal).await
    }

    /// Times the log was fsynced by `sync_log`.
    pub(super) fn log_syncs(&self) -> u64 {
        self.syncs.load(Ordering::Relaxed)
    }

    /// The `synchronous` setting of the writer's connection.
    pub(super) async fn synchronous(&self) -> Result<i64> {
        self.write(|connection| {
            connection
                .query_row("pragma synchronous", [], |row| row.get(0))
                .map_err(super::sqlite)
        })
        .await
    }

    /// Runs `read` on a reader connection, again while another process's lock is in the way.
    pub(super) async fn read<T, F>(&self, read: F) -> Result<T>
    where
        T: Send + 'static,
        F: Fn(&Connection) -> rusqlite::Result<T> + Send + 'static,
    {
        let _permit = self
            .readers
            .permits
            .acquire()
            .await
            .map_err(|_| Error::backend("the database is closed"))?;
        let readers = Arc::clone(&self.readers);
        tokio::task::spawn_blocking(move || {
            let connection = readers.take()?;
            let outcome = busy::retry(|| read(&connection));
            readers.give_back(connection);
            outcome
        })
        .await
        .map_err(Error::backend)?
    }
}

/// Fsyncs the write-ahead log `connection` has open (opening it first by reading).
fn sync_wal(connection: &Connection) -> rusqlite::Result<()> {
    connection.query_row("select count(*) from sqlite_schema", [], |_| Ok(()))?;
    let mut log: *mut ffi::sqlite3_file = std::ptr::null_mut();
    // SAFETY: the connection is this call's alone (taken from the idle list, used on one
    // thread). SQLite hands back its own handle on the connection's log, valid while the
    // connection is open; its `xSync` is called as SQLite itself calls it. A null handle or
    // method table means the connection has no log open: nothing is waiting in one.
    let code = unsafe {
        let code = ffi::sqlite3_file_control(
            connection.handle(),
            c"main".as_ptr(),
            ffi::SQLITE_FCNTL_JOURNAL_POINTER,
            (&raw mut log).cast(),
        );
        match log.as_ref().and_then(|file| file.pMethods.as_ref()) {
            Some(methods) if code == ffi::SQLITE_OK => match methods.xSync {
                Some(sync) => sync(log, ffi::SQLITE_SYNC_NORMAL),
                None => ffi::SQLITE_OK,
            },
            _ => code,
        }
    };
    match code {
        ffi::SQLITE_OK => Ok(()),
        code => Err(rusqlite::Error::SqliteFailure(
            ffi::Error::new(code),
            Some("syncing the write-ahead log".into()),
        )),
    }
}

/// A file's idle reader connections.
#[derive(Debug)]
struct Readers {
    path: PathBuf,
    options: Options,
    idle: Mutex<Vec<Connection>>,
    permits: Semaphore,
}

impl Readers {
    fn take(&self) -> Result<Connection> {
        let idle = lock(&self.idle).pop();
        match idle {
            Some(connection) => Ok(connection),
            None => connect(&self.path, &self.options),
        }
    }

    fn give_back(&self, connection: Connection) {
        lock(&self.idle).push(connection);
    }
}

/// Locks a mutex whose data stays valid even if a holder panicked.
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Opens a connection in WAL mode with the durability asked for and our busy handler.
fn connect(path: &Path, options: &Options) -> Result<Connection> {
    // Switching a file to WAL may be refused at once (SQLITE_BUSY without the busy handler)
    // while another process upgrades its own lock, as when two processes open a restored
    // backup at the same moment: such an opening is tried again, like any busy call.
    let connection =
        busy::retry(|| configure(path, options)).map_err(|error| opening(path, error))?;
    let mode: String = connection
        .query_row("pragma journal_mode", [], |row| row.get(0))
        .map_err(|error| opening(path, error))?;
    if !mode.eq_ignore_ascii_case("wal") {
        return Err(opening(
            path,
            format!("the file cannot use write-ahead logging (journal mode {mode})"),
        ));
    }
    Ok(connection)
}

/// Largest write-ahead log kept after a checkpoint: a burst may grow it, and this gives the
/// space back once the burst is checkpointed (SQLite checkpoints at about 4 MiB of log).
const WAL_SIZE_LIMIT: i64 = 4 * 1024 * 1024;

/// Makes a file give back the pages of deleted rows (`incremental` auto-vacuum, which the
/// writer runs after its commits). A new file gets it when created; a file made by an
/// earlier version is converted once, by a VACUUM, which rewrites it.
fn reclaimable(connection: &Connection, path: &Path) -> Result<()> {
    let mode: i64 =
        busy::retry(|| connection.query_row("pragma auto_vacuum", [], |row| row.get(0)))
            .map_err(|error| opening(path, error))?;
    if mode == INCREMENTAL {
        return Ok(());
    }
    tracing::info!(file = %path.display(), "letting the file give back deleted space (a one-off rewrite)");
    busy::retry(|| connection.execute_batch("pragma auto_vacuum = incremental; vacuum;"))
        .map_err(|error| opening(path, error))
}

/// `pragma auto_vacuum`'s value for incremental.
const INCREMENTAL: i64 = 2;

fn configure(path: &Path, options: &Options) -> rusqlite::Result<Connection> {
    let connection = open_file(path, options.vfs.as_deref())?;
    busy::install(&connection)?;
    // Only takes effect on a new, empty file, and only before its journal mode is set.
    connection.pragma_update(None, "auto_vacuum", "incremental")?;
    // Switching to WAL needs a moment of exclusive access when the file is new; once it is in
    // WAL mode this is a read. Both wait through the busy handler.
    connection.query_row("pragma journal_mode = wal", [], |_| Ok(()))?;
    let synchronous = match options.durability {
        Durability::Full => "full",
        Durability::Relaxed => "normal",
    };
    connection.pragma_update(None, "synchronous", synchronous)?;
    connection.pragma_update(None, "foreign_keys", true)?;
    connection.pragma_update(None, "journal_size_limit", WAL_SIZE_LIMIT)?;
    connection.set_prepared_statement_cache_capacity(32);
    Ok(connection)
}

/// Opens a file (creating it if needed) through the VFS named, or SQLite's default.
pub(super) fn open_file(path: &Path, vfs: Option<&str>) -> rusqlite::Result<Connection> {
    let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
        | OpenFlags::SQLITE_OPEN_CREATE
        | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    match vfs {
        Some(vfs) => Connection::open_with_flags_and_vfs(path, flags, vfs),
        None => {
            // Made (or tightened) first, so the file and its -wal and -shm are 0600.
            super::private::private_file(path).map_err(|error| {
                rusqlite::Error::SqliteFailure(
                    rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_CANTOPEN),
                    Some(error.to_string()),
                )
            })?;
            Connection::open_with_flags(path, flags)
        }
    }
}

fn opening(path: &Path, error: impl std::fmt::Display) -> Error {
    Error::backend(format!("cannot open {}: {error}", path.display()))
}
