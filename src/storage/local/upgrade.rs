//! Bringing a data directory written by an earlier version up to date, when it is opened.
//!
//! Earlier versions kept every blob in a `blob` table, and message bodies in the message rows,
//! of `canvass.sqlite3`. Both are moved where they live now in transactions, so a crash
//! part-way leaves everything in one place or the other, and the next opener finishes the move.
//! Processes of an earlier version must be stopped first: they would go on using the old places.

use std::path::Path;
use std::time::{Duration, Instant};

use rusqlite::{Connection, OptionalExtension, TransactionBehavior, params};

use super::busy;
use super::files::{blob_path, file_of, open_plain};
use crate::storage::Result;

/// Blobs moved per transaction.
const MOVE_BATCH: usize = 1000;

/// Whether `query` returns a row.
fn any(connection: &Connection, query: &str) -> rusqlite::Result<bool> {
    Ok(connection
        .query_row(query, [], |_| Ok(()))
        .optional()?
        .is_some())
}

/// Finds message rows that still hold their bodies.
const OLD_BODIES: &str = "select 1 from pragma_table_info('message') where name = 'body'";

/// Finds the old blob table.
const OLD_BLOBS: &str = "select 1 from sqlite_schema where type = 'table' and name = 'blob'";

/// Moves message bodies an older version kept in the message rows into their own table.
pub(super) fn move_old_bodies(queue_file: &mut Connection) -> Result<()> {
    // Looked for without a lock first: a directory of this version has nothing to move.
    if !busy::retry(|| any(queue_file, OLD_BODIES))? {
        return Ok(());
    }
    busy::retry(|| {
        let transaction = queue_file.transaction_with_behavior(TransactionBehavior::Immediate)?;
        if any(&transaction, OLD_BODIES)? {
            let moved = transaction.execute(
                // `where true` tells SQLite's parser the `on conflict` is the insert's.
                "insert into message_body (id, body) select id, body from message where true
                 on conflict do nothing",
                [],
            )?;
            transaction.execute_batch("alter table message drop column body")?;
            tracing::info!(moved, "moved queued message bodies into their own table");
        }
        transaction.commit()
    })
}

/// A blob as stored, moved whole from the old table.
struct OldBlob {
    key: String,
    body: Vec<u8>,
    version: i64,
    last_modified: i64,
}

/// Moves the blobs an older version kept in the queue file into their own files.
pub(super) fn move_old_blobs(
    queue_file: &mut Connection,
    data_dir: &Path,
    count: u32,
    vfs: Option<&str>,
) -> Result<()> {
    if !busy::retry(|| any(queue_file, OLD_BLOBS))? {
        return Ok(());
    }
    let mut files = (0..count)
        .map(|n| open_plain(&blob_path(data_dir, n), vfs))
        .collect::<Result<Vec<_>>>()?;
    let (mut moved, mut shown) = (0, Instant::now());
    while let Some(batch) = busy::retry(|| move_batch(queue_file, &mut files))? {
        moved += batch;
        if shown.elapsed() >= Duration::from_secs(1) {
            tracing::info!(moved, "moving blobs into their own files");
            shown = Instant::now();
        }
    }
    if moved > 0 {
        tracing::info!(moved, "moved the blobs into their own files");
    }
    Ok(())
}

/// Moves one batch, holding the queue file's lock throughout so two openers never move the
/// same blobs; `None` once there is nothing left (the old table is then dropped).
fn move_batch(
    queue_file: &mut Connection,
    files: &mut [Connection],
) -> rusqlite::Result<Option<usize>> {
    let transaction = queue_file.transaction_with_behavior(TransactionBehavior::Immediate)?;
    if !any(&transaction, OLD_BLOBS)? {
        return Ok(None);
    }
    let batch: Vec<OldBlob> = transaction
        .prepare("select key, body, version, last_modified from blob order by key limit ?1")?
        .query_map([MOVE_BATCH as i64], |row| {
            Ok(OldBlob {
                key: row.get(0)?,
                body: row.get(1)?,
                version: row.get(2)?,
                last_modified: row.get(3)?,
            })
        })?
        .collect::<rusqlite::Result<_>>()?;
    if batch.is_empty() {
        transaction.execute_batch("drop table blob")?;
        transaction.commit()?;
        return Ok(None);
    }
    let count = files.len();
    for (n, file) in files.iter_mut().enumerate() {
        let target = file.transaction_with_behavior(TransactionBehavior::Immediate)?;
        for blob in batch.iter().filter(|blob| file_of(&blob.key, count) == n) {
            // A copy there already is this very blob, moved by an opener that died before it
            // could delete the old row.
            target.execute(
                "insert into blob (key, body, version, last_modified) values (?1, ?2, ?3, ?4)
                 on conflict (key) do nothing",
                params![blob.key, blob.body, blob.version, blob.last_modified],
            )?;
        }
        target.commit()?;
    }
    {
        let mut delete = transaction.prepare("delete from blob where key = ?1")?;
        for blob in &batch {
            delete.execute([&blob.key])?;
        }
    }
    transaction.commit()?;
    Ok(Some(batch.len()))
}
