//! Online backups of a data directory while `serve` and workers keep running.
//!
//! The files are copied one by one with SQLite's online backup API, but all from one instant:
//! the backup first takes every file's write lock (writers wait, for milliseconds), starts a
//! read snapshot of each file, and lets the writers go. Copying then reads those snapshots
//! while writers carry on. So the copy is a state the installation really passed through,
//! and the worker's protocol already recovers from any such state (it is what a power cut
//! leaves): messages held by a worker then reappear, and nothing is counted twice.
//!
//! Each copied file is checked with `PRAGMA integrity_check` and hashed into a manifest,
//! written last: a directory without `manifest.json` is not a finished backup.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use rusqlite::{Connection, OpenFlags};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::files::blob_path;
use super::layout::QUEUE_FILE;
use crate::storage::{Error, Result};

/// The manifest's file name inside a backup.
pub const MANIFEST: &str = "manifest.json";

/// Pages copied per step: progress is reported after each.
const PAGES_PER_STEP: i32 = 4096;

/// How long the backup waits for a writer to finish before taking a file's lock.
const LOCK_WAIT: Duration = Duration::from_secs(30);

/// A finished backup's record.
#[derive(Debug, Serialize, Deserialize)]
pub struct Manifest {
    /// The Canvass version that made it.
    pub version: String,
    /// When the snapshot was taken (RFC 3339).
    pub taken_at: String,
    /// The data directory it was taken from.
    pub source: String,
    /// How long writers were held while the snapshot was taken, in milliseconds.
    pub writers_held_ms: u64,
    /// The copied files.
    pub files: Vec<FileRecord>,
}

/// One copied file.
#[derive(Debug, Serialize, Deserialize)]
pub struct FileRecord {
    /// Its name, in the data directory and in the backup.
    pub name: String,
    /// Its size in bytes.
    pub bytes: u64,
    /// The SHA-256 of its contents, hex.
    pub sha256: String,
    /// What `PRAGMA integrity_check` said of the copy.
    pub integrity: String,
}

/// How far a backup is: `(file, pages copied, pages in all)`.
pub type Progress<'a> = &'a dyn Fn(&str, u64, u64);

fn sqlite(path: &Path) -> impl Fn(rusqlite::Error) -> Error + '_ {
    move |error| Error::backend(format!("{}: {error}", path.display()))
}

fn open(path: &Path, flags: OpenFlags) -> Result<Connection> {
    let connection = Connection::open_with_flags(path, flags).map_err(sqlite(path))?;
    connection.busy_timeout(LOCK_WAIT).map_err(sqlite(path))?;
    Ok(connection)
}

/// The data directory's files: the queue file, then each blob file.
fn files_of(data_dir: &Path) -> Result<Vec<PathBuf>> {
    let queue = data_dir.join(QUEUE_FILE);
    if !queue.is_file() {
        return Err(Error::InvalidArgument(format!(
            "{} is not a Canvass data directory (it has no {QUEUE_FILE})",
            data_dir.display()
        )));
    }
    let connection = open(&queue, OpenFlags::SQLITE_OPEN_READ_ONLY)?;
    let count: u32 = connection
        .query_row("select blob_files from layout where id = 0", [], |row| {
            row.get(0)
        })
        .map_err(sqlite(&queue))?;
    Ok(std::iter::once(queue)
        .chain((0..count).map(|n| blob_path(data_dir, n)))
        .collect())
}

/// Read snapshots of every file, all from one instant.
fn snapshots(files: &[PathBuf]) -> Result<(Vec<Connection>, Duration)> {
    let started = Instant::now();
    // Writers are held from the first lock to the last snapshot: take the locks in one order
    // (every process writes each file on its own, so no writer waits on two files).
    let mut locks = Vec::new();
    for path in files {
        let lock = open(path, OpenFlags::SQLITE_OPEN_READ_WRITE)?;
        lock.execute_batch("begin immediate")
            .map_err(sqlite(path))?;
        locks.push(lock);
    }
    let mut snapshots = Vec::new();
    for path in files {
        let snapshot = open(path, OpenFlags::SQLITE_OPEN_READ_ONLY)?;
        // A read transaction's snapshot starts at its first read.
        snapshot
            .execute_batch("begin; select count(*) from sqlite_schema;")
            .map_err(sqlite(path))?;
        snapshots.push(snapshot);
    }
    for (lock, path) in locks.iter().zip(files) {
        lock.execute_batch("rollback").map_err(sqlite(path))?;
    }
    Ok((snapshots, started.elapsed()))
}

fn sha256_of(path: &Path) -> Result<(u64, String)> {
    let mut file = std::fs::File::open(path).map_err(|e| Error::backend(e.to_string()))?;
    let mut hasher = Sha256::new();
    let mut buffer = vec![0; 1 << 16];
    let mut bytes = 0;
    loop {
        let read = file
            .read(&mut buffer)
            .map_err(|e| Error::backend(e.to_string()))?;
        if read == 0 {
            break;
        }
        bytes += read as u64;
        hasher.update(&buffer[..read]);
    }
    let hex = hasher
        .finalize()
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect();
    Ok((bytes, hex))
}

/// What `PRAGMA integrity_check` says of a file ("ok" when sound).
fn integrity_of(path: &Path) -> Result<String> {
    let connection = open(path, OpenFlags::SQLITE_OPEN_READ_ONLY)?;
    let lines: Vec<String> = connection
        .prepare("pragma integrity_check")
        .and_then(|mut check| {
            check
                .query_map([], |row| row.get(0))?
                .collect::<rusqlite::Result<_>>()
        })
        .map_err(sqlite(path))?;
    Ok(lines.join("; "))
}

/// Copies one file from its snapshot, then checks and hashes the copy.
fn copy(snapshot: &Connection, to: &Path, progress: Progress<'_>) -> Result<FileRecord> {
    let name = to
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default();
    {
        super::private::private_file(to)?;
        let mut copy = Connection::open(to).map_err(sqlite(to))?;
        let backup = rusqlite::backup::Backup::new(snapshot, &mut copy).map_err(sqlite(to))?;
        loop {
            let step = backup.step(PAGES_PER_STEP).map_err(sqlite(to))?;
            let done = backup.progress();
            let total = u64::try_from(done.pagecount).unwrap_or(0);
            let left = u64::try_from(done.remaining).unwrap_or(0);
            progress(&name, total - left.min(total), total);
            match step {
                rusqlite::backup::StepResult::Done => break,
                // Only this process's own writes could hold the copy up: wait and go on.
                _ => std::thread::sleep(Duration::from_millis(10)),
            }
        }
        drop(backup);
        // The copy is a plain file: no log beside it.
        copy.execute_batch("pragma journal_mode = delete")
            .map_err(sqlite(to))?;
    }
    let integrity = integrity_of(to)?;
    if integrity != "ok" {
        return Err(Error::backend(format!(
            "the copy of {name} fails its integrity check: {integrity}"
        )));
    }
    let (bytes, sha256) = sha256_of(to)?;
    Ok(FileRecord {
        name,
        bytes,
        sha256,
        integrity,
    })
}

/// Backs up `data_dir` into the new or empty directory `dest`, reporting progress; returns
/// the manifest it wrote.
pub fn backup(data_dir: &Path, dest: &Path, progress: Progress<'_>) -> Result<Manifest> {
    if dest.exists()
        && std::fs::read_dir(dest)
            .map_err(|e| Error::backend(format!("{}: {e}", dest.display())))?
            .next()
            .is_some()
    {
        return Err(Error::InvalidArgument(format!(
            "{} is not empty: back up into a new directory",
            dest.display()
        )));
    }
    refuse_inside(data_dir, dest)?;
    super::private::private_dir(dest)?;
    let files = files_of(data_dir)?;
    let taken_at = time::OffsetDateTime::now_utc();
    let (snapshots, held) = snapshots(&files)?;
    let mut records = Vec::new();
    for (n, (snapshot, path)) in snapshots.iter().zip(&files).enumerate() {
        if n > 0 {
            pause_between_files();
        }
        let name = path.file_name().unwrap_or_default();
        records.push(copy(snapshot, &dest.join(name), progress)?);
    }
    drop(snapshots);
    let manifest = Manifest {
        version: env!("CARGO_PKG_VERSION").to_owned(),
        taken_at: taken_at
            .format(&time::format_description::well_known::Rfc3339)
            .unwrap_or_default(),
        source: data_dir.display().to_string(),
        writers_held_ms: u64::try_from(held.as_millis()).unwrap_or(u64::MAX),
        files: records,
    };
    let text = serde_json::to_vec_pretty(&manifest).map_err(Error::backend)?;
    // Written last, and whole: its presence says the backup is complete.
    let partial = dest.join(format!("{MANIFEST}.partial"));
    super::private::private_file(&partial)?;
    std::fs::write(&partial, text).map_err(|e| Error::backend(e.to_string()))?;
    std::fs::rename(&partial, dest.join(MANIFEST)).map_err(|e| Error::backend(e.to_string()))?;
    Ok(manifest)
}

/// The variable that makes a backup wait between two files (milliseconds): the backup test
/// sets it so that writers certainly run while files are being copied, which proves every
/// file is copied from one instant. Unset, as in any real deployment, it is read once.
pub const PAUSE_VARIABLE: &str = "CANVASS_TEST_BACKUP_PAUSE_MS";

fn pause_between_files() {
    static PAUSE: std::sync::OnceLock<Option<Duration>> = std::sync::OnceLock::new();
    let pause = PAUSE.get_or_init(|| {
        let ms = std::env::var(PAUSE_VARIABLE).ok()?.parse().ok()?;
        Some(Duration::from_millis(ms))
    });
    if let Some(pause) = pause {
        std::thread::sleep(*pause);
    }
}

/// Refuses a destination inside the data directory: the backup would copy itself into the
/// next one, and deleting the data directory would delete its backup with it.
fn refuse_inside(data_dir: &Path, dest: &Path) -> Result<()> {
    let data = std::fs::canonicalize(data_dir)
        .map_err(|e| Error::backend(format!("{}: {e}", data_dir.display())))?;
    // The destination may not exist yet: its ".." are taken lexically, then its nearest
    // existing ancestor is resolved (symbolic links included).
    let absolute = std::path::absolute(dest)
        .map_err(|e| Error::backend(format!("{}: {e}", dest.display())))?;
    let mut lexical = PathBuf::new();
    for part in absolute.components() {
        match part {
            std::path::Component::ParentDir => {
                lexical.pop();
            }
            std::path::Component::CurDir => {}
            other => lexical.push(other),
        }
    }
    let mut existing = lexical;
    let mut rest = Vec::new();
    while !existing.exists() {
        let Some(name) = existing.file_name() else {
            break;
        };
        rest.push(name.to_owned());
        existing.pop();
    }
    let mut resolved = std::fs::canonicalize(&existing)
        .map_err(|e| Error::backend(format!("{}: {e}", dest.display())))?;
    resolved.extend(rest.iter().rev());
    if resolved.starts_with(&data) {
        return Err(Error::InvalidArgument(format!(
            "{} is inside the data directory {}: back up somewhere else",
            dest.display(),
            data_dir.display()
        )));
    }
    Ok(())
}

/// Checks a backup against its manifest: every file present and unchanged. The same bytes
/// as when copied are the bytes that passed their integrity check then, so it is not run
/// again.
pub fn verify(dest: &Path) -> Result<Manifest> {
    let text = std::fs::read(dest.join(MANIFEST)).map_err(|e| {
        Error::InvalidArgument(format!(
            "{} has no readable {MANIFEST} (an unfinished backup?): {e}",
            dest.display()
        ))
    })?;
    let manifest: Manifest = serde_json::from_slice(&text)
        .map_err(|e| Error::InvalidArgument(format!("{MANIFEST} cannot be read: {e}")))?;
    for file in &manifest.files {
        let path = dest.join(&file.name);
        let (bytes, sha256) = sha256_of(&path)?;
        if bytes != file.bytes || sha256 != file.sha256 {
            return Err(Error::backend(format!(
                "{} changed since the backup was made",
                file.name
            )));
        }
    }
    Ok(manifest)
}
