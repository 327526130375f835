//! `BlobStore` on the local blob files: each key lives in the file its hash picks, and a
//! conditional write is a single compare-and-swap statement on the blob's version there.

use std::sync::Arc;
use std::time::SystemTime;

use async_trait::async_trait;
use bytes::Bytes;
use futures_util::future::try_join_all;
use rusqlite::{Connection, OptionalExtension, Row, params};

use super::files::file_of;
use super::layout::Layout;
use super::writer;
use super::{from_millis, millis, sqlite};
use crate::storage::{
    Blob, BlobMeta, BlobPut, BlobStore, ETag, Error, ListPage, ListRequest, Operation, PutMode,
    Result, TransactionCounter, check_key,
};

/// Blobs in the local data directory.
#[derive(Debug)]
pub struct LocalBlobStore {
    layout: Arc<Layout>,
    counter: TransactionCounter,
}

impl LocalBlobStore {
    pub(super) fn new(layout: Arc<Layout>) -> Self {
        Self {
            layout,
            counter: TransactionCounter::default(),
        }
    }
}

/// A fresh random version: unique per write, so an ETag never matches a later incarnation.
fn new_version() -> i64 {
    (uuid::Uuid::new_v4().as_u64_pair().0 >> 1) as i64
}

fn etag(version: i64) -> ETag {
    ETag::new(format!("{version:016x}"))
}

/// The version an ETag names, if it names one at all.
fn version_of(etag: &ETag) -> Option<i64> {
    i64::from_str_radix(etag.as_str(), 16).ok()
}

/// A blob's metadata from a row of `key, version, last_modified, size`.
fn meta(row: &Row) -> rusqlite::Result<BlobMeta> {
    Ok(BlobMeta {
        key: row.get(0)?,
        etag: etag(row.get(1)?),
        last_modified: from_millis(row.get(2)?),
        size: u64::try_from(row.get::<_, i64>(3)?).unwrap_or(0),
    })
}

/// A whole blob from a row of `key, version, last_modified, size, body`.
fn blob(row: &Row) -> rusqlite::Result<Blob> {
    Ok(Blob {
        meta: meta(row)?,
        body: Bytes::from(row.get::<_, Vec<u8>>(4)?),
    })
}

const SELECT_BLOB: &str =
    "select key, version, last_modified, length(body), body from blob where key = ?1";

fn read_blob(connection: &Connection, key: &str) -> rusqlite::Result<Option<Blob>> {
    connection
        .prepare_cached(SELECT_BLOB)?
        .query_row([key], blob)
        .optional()
}

/// The smallest string greater than every key starting with `prefix`, if there is one.
fn upper_bound(prefix: &str) -> Option<String> {
    (!prefix.is_empty()).then(|| format!("{prefix}{}", char::MAX))
}

/// A write about to be made, with the version and time it will have.
struct NewBlob {
    put: BlobPut,
    version: i64,
    now: i64,
}

impl NewBlob {
    fn of(put: BlobPut) -> Self {
        Self {
            put,
            version: new_version(),
            now: millis(SystemTime::now()),
        }
    }

    /// Writes the blob under its condition. Runs inside a writer's transaction.
    fn write(self, connection: &Connection) -> Result<BlobMeta> {
        let BlobPut { key, body, mode } = self.put;
        write_blob(connection, &key, &body, self.version, self.now, &mode)?;
        Ok(BlobMeta {
            size: body.len() as u64,
            key,
            etag: etag(self.version),
            last_modified: from_millis(self.now),
        })
    }
}

/// Writes one blob under its condition.
fn write_blob(
    connection: &Connection,
    key: &str,
    body: &[u8],
    version: i64,
    now: i64,
    mode: &PutMode,
) -> Result<()> {
    let statement = match mode {
        PutMode::Overwrite => {
            "insert into blob (key, body, version, last_modified) values (?1, ?2, ?3, ?4)
             on conflict (key) do update set body = excluded.body,
                 version = excluded.version, last_modified = excluded.last_modified"
        }
        PutMode::Create => {
            "insert into blob (key, body, version, last_modified) values (?1, ?2, ?3, ?4)
             on conflict (key) do nothing"
        }
        PutMode::Update(_) => {
            "update blob set body = ?2, version = ?3, last_modified = ?4
             where key = ?1 and version = ?5"
        }
    };
    let mut statement = connection.prepare_cached(statement).map_err(sqlite)?;
    let written = match mode {
        PutMode::Update(etag) => {
            statement.execute(params![key, body, version, now, version_of(etag)])
        }
        PutMode::Overwrite | PutMode::Create => statement.execute(params![key, body, version, now]),
    }
    .map_err(sqlite)?;
    match (written, mode) {
        (0, PutMode::Create) => Err(Error::AlreadyExists { key: key.into() }),
        (0, _) => Err(Error::Precondition { key: key.into() }),
        _ => Ok(()),
    }
}

/// Deletes one blob, if it still has `expected` when that is given. Runs inside a writer's
/// transaction.
fn delete_blob(connection: &Connection, key: &str, expected: Option<Option<i64>>) -> Result<()> {
    let current: Option<i64> = connection
        .prepare_cached("select version from blob where key = ?1")
        .and_then(|mut select| select.query_row([key], |row| row.get(0)).optional())
        .map_err(sqlite)?;
    match (current, expected) {
        (None, _) => return Err(Error::blob_not_found(key)),
        (Some(current), Some(expected)) if Some(current) != expected => {
            return Err(Error::Precondition { key: key.into() });
        }
        _ => {}
    }
    connection
        .prepare_cached("delete from blob where key = ?1")
        .and_then(|mut delete| delete.execute([key]))
        .map_err(sqlite)?;
    Ok(())
}

#[async_trait]
impl BlobStore for LocalBlobStore {
    async fn get(&self, key: &str) -> Result<Blob> {
        check_key(key)?;
        self.counter.record(Operation::Get);
        let owned = key.to_owned();
        self.layout
            .blob_file(key)
            .read(move |connection| read_blob(connection, &owned))
            .await?
            .ok_or_else(|| Error::blob_not_found(key))
    }

    async fn get_many(&self, keys: &[String]) -> Result<Vec<Result<Blob>>> {
        // One blocking call per file for all of its keys, instead of one per key.
        let files = self.layout.blob_files();
        let mut wanted: Vec<Vec<(usize, String)>> = vec![Vec::new(); files.len()];
        for (index, key) in keys.iter().enumerate() {
            check_key(key)?;
            self.counter.record(Operation::Get);
            wanted[file_of(key, files.len())].push((index, key.clone()));
        }
        let reads = files.iter().zip(wanted).map(|(file, wanted)| {
            file.read(move |connection| {
                wanted
                    .iter()
                    .map(|(index, key)| Ok((*index, read_blob(connection, key)?)))
                    .collect::<rusqlite::Result<Vec<_>>>()
            })
        });
        let mut found: Vec<Option<Blob>> = vec![None; keys.len()];
        for (index, blob) in try_join_all(reads).await?.into_iter().flatten() {
            found[index] = blob;
        }
        Ok(found
            .into_iter()
            .zip(keys)
            .map(|(blob, key)| blob.ok_or_else(|| Error::blob_not_found(key)))
            .collect())
    }

    async fn put(&self, key: &str, body: Bytes, mode: PutMode) -> Result<BlobMeta> {
        check_key(key)?;
        self.counter.record(Operation::Put);
        let put = NewBlob::of(BlobPut {
            key: key.to_owned(),
            body,
            mode,
        });
        self.layout
            .blob_file(key)
            .write(move |connection| put.write(connection))
            .await
    }

    async fn put_many(&self, puts: Vec<BlobPut>) -> Result<Vec<Result<BlobMeta>>> {
        // One job per file for all of its writes, instead of one per blob.
        let files = self.layout.blob_files();
        let mut by_file: Vec<Vec<(usize, NewBlob)>> = files.iter().map(|_| Vec::new()).collect();
        let count = puts.len();
        for (index, put) in puts.into_iter().enumerate() {
            check_key(&put.key)?;
            self.counter.record(Operation::Put);
            by_file[file_of(&put.key, files.len())].push((index, NewBlob::of(put)));
        }
        let writes = files
            .iter()
            .zip(by_file)
            .filter(|(_, puts)| !puts.is_empty())
            .map(|(file, puts)| {
                file.write(move |connection| {
                    let (indexes, written): (Vec<usize>, Vec<Result<BlobMeta>>) = puts
                        .into_iter()
                        .map(|(index, put)| (index, put.write(connection)))
                        .unzip();
                    Ok(indexes.into_iter().zip(writer::each(written)?))
                })
            });
        let mut results: Vec<Option<Result<BlobMeta>>> = (0..count).map(|_| None).collect();
        for (index, written) in try_join_all(writes).await?.into_iter().flatten() {
            results[index] = Some(written);
        }
        Ok(results
            .into_iter()
            .map(|written| written.unwrap_or_else(|| Err(Error::backend("a write got no result"))))
            .collect())
    }

    async fn delete(&self, key: &str, if_match: Option<&ETag>) -> Result<()> {
        check_key(key)?;
        self.counter.record(Operation::Delete);
        let owned = key.to_owned();
        let expected = if_match.map(version_of);
        // The blob may be the last other copy of what earlier writes stored.
        self.layout.flush_blobs().await?;
        self.layout
            .blob_file(key)
            .write(move |connection| delete_blob(connection, &owned, expected))
            .await
    }

    async fn list(&self, request: &ListRequest) -> Result<ListPage> {
        self.counter.record(Operation::List);
        let page_size = request.effective_page_size();
        // Each file's first `page_size + 1` keys after the token; together, in key order, they
        // hold the page's keys and tell whether more follow.
        let reads = self.layout.blob_files().iter().map(|file| {
            let prefix = request.prefix.clone();
            let after = request.continuation.clone().unwrap_or_default();
            let upper = upper_bound(&prefix);
            let limit = i64::try_from(page_size + 1).unwrap_or(i64::MAX);
            file.read(move |connection| {
                connection
                    .prepare_cached(
                        "select key, version, last_modified, length(body) from blob
                         where key >= ?1 and key > ?2 and (?3 is null or key < ?3)
                         order by key limit ?4",
                    )?
                    .query_map(params![prefix, after, upper, limit], meta)?
                    .collect::<rusqlite::Result<Vec<_>>>()
            })
        });
        let mut items: Vec<BlobMeta> = try_join_all(reads)
            .await?
            .into_iter()
            .flatten()
            .filter(|meta| meta.key.starts_with(&request.prefix))
            .collect();
        items.sort_unstable_by(|a, b| a.key.cmp(&b.key));
        items.truncate(page_size + 1);
        Ok(ListPage::from_overfetch(items, page_size))
    }

    async fn flush(&self) -> Result<()> {
        self.layout.flush_blobs().await
    }

    fn transactions(&self) -> &TransactionCounter {
        &self.counter
    }
}
