//! `BlobStore` on the local SQLite database: conditional writes are single compare-and-swap
//! statements on the blob's version.

use std::sync::Arc;
use std::time::SystemTime;

use async_trait::async_trait;
use bytes::Bytes;
use std::collections::HashSet;

use sqlx::sqlite::SqliteRow;
use sqlx::{QueryBuilder, Row, Sqlite, SqliteConnection};

use super::writer::NewBlob;
use super::{Database, from_millis, millis, retry};
use crate::storage::{
    Blob, BlobMeta, BlobStore, ETag, Error, ListPage, ListRequest, Operation, PutMode, Result,
    TransactionCounter, check_key,
};

/// Blobs in the local database.
#[derive(Debug)]
pub struct LocalBlobStore {
    database: Arc<Database>,
    counter: TransactionCounter,
}

impl LocalBlobStore {
    pub(super) fn new(database: Arc<Database>) -> Self {
        Self {
            database,
            counter: TransactionCounter::default(),
        }
    }
}

/// Keys read by one statement (well under SQLite's limit on bound parameters).
const READ_MANY: usize = 500;

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

fn meta(row: &SqliteRow) -> Result<BlobMeta, sqlx::Error> {
    Ok(BlobMeta {
        key: row.try_get("key")?,
        etag: etag(row.try_get("version")?),
        last_modified: from_millis(row.try_get("last_modified")?),
        size: u64::try_from(row.try_get::<i64, _>("size")?).unwrap_or(0),
    })
}

/// The columns a read returns, without its condition (a macro, so `concat!` can extend it).
macro_rules! select_blob {
    () => {
        "select key, body, version, last_modified, length(body) as size from blob"
    };
}

/// A whole blob from a row of `select_blob!()`.
fn blob(row: &SqliteRow) -> Result<Blob> {
    Ok(Blob {
        meta: meta(row).map_err(Error::backend)?,
        body: Bytes::from(row.try_get::<Vec<u8>, _>("body").map_err(Error::backend)?),
    })
}

/// The smallest string greater than every key starting with `prefix`, if there is one.
fn upper_bound(prefix: &str) -> Option<String> {
    (!prefix.is_empty()).then(|| format!("{prefix}{}", char::MAX))
}

/// Creates blobs with one multi-row statement; a key that exists (or repeats an earlier key of
/// the same call) is that blob's own `AlreadyExists`. Only the writer calls this.
pub(super) async fn create_blobs(
    connection: &mut SqliteConnection,
    blobs: &[NewBlob],
) -> Result<Vec<Result<()>>> {
    let mut seen = HashSet::new();
    let first: Vec<&NewBlob> = blobs.iter().filter(|blob| seen.insert(&blob.key)).collect();
    let mut insert =
        QueryBuilder::<Sqlite>::new("insert into blob (key, body, version, last_modified) ");
    insert.push_values(&first, |mut row, blob| {
        row.push_bind(&blob.key)
            .push_bind(blob.body.as_ref())
            .push_bind(blob.version)
            .push_bind(blob.last_modified);
    });
    insert.push(" on conflict (key) do nothing returning key");
    let created: HashSet<String> = insert
        .build_query_scalar::<String>()
        .fetch_all(&mut *connection)
        .await
        .map_err(Error::backend)?
        .into_iter()
        .collect();
    let mut claimed = HashSet::new();
    Ok(blobs
        .iter()
        .map(|blob| {
            if created.contains(&blob.key) && claimed.insert(&blob.key) {
                Ok(())
            } else {
                Err(Error::AlreadyExists {
                    key: blob.key.clone(),
                })
            }
        })
        .collect())
}

#[async_trait]
impl BlobStore for LocalBlobStore {
    async fn get(&self, key: &str) -> Result<Blob> {
        check_key(key)?;
        self.counter.record(Operation::Get);
        let row = retry::busy(|| {
            sqlx::query(concat!(select_blob!(), " where key = ?"))
                .bind(key)
                .fetch_optional(&self.database.readers)
        })
        .await?
        .ok_or_else(|| Error::blob_not_found(key))?;
        blob(&row)
    }

    async fn get_many(&self, keys: &[String]) -> Result<Vec<Result<Blob>>> {
        // One statement per `READ_MANY` keys instead of one query each.
        let mut found = std::collections::HashMap::with_capacity(keys.len());
        for chunk in keys.chunks(READ_MANY) {
            for key in chunk {
                check_key(key)?;
                self.counter.record(Operation::Get);
            }
            let rows = retry::busy(|| {
                let mut select =
                    QueryBuilder::<Sqlite>::new(concat!(select_blob!(), " where key in ("));
                let mut list = select.separated(", ");
                for key in chunk {
                    list.push_bind(key);
                }
                select.push(")");
                async move { select.build().fetch_all(&self.database.readers).await }
            })
            .await?;
            for row in rows {
                let blob = blob(&row)?;
                found.insert(blob.meta.key.clone(), blob);
            }
        }
        Ok(keys
            .iter()
            .map(|key| {
                found
                    .get(key)
                    .cloned()
                    .ok_or_else(|| Error::blob_not_found(key))
            })
            .collect())
    }

    async fn put(&self, key: &str, body: Bytes, mode: PutMode) -> Result<BlobMeta> {
        check_key(key)?;
        self.counter.record(Operation::Put);
        let key = key.to_owned();
        let version = new_version();
        let now = SystemTime::now();
        let meta = BlobMeta {
            key: key.clone(),
            etag: etag(version),
            last_modified: from_millis(millis(now)),
            size: body.len() as u64,
        };
        if mode == PutMode::Create {
            let blob = NewBlob {
                key,
                body,
                version,
                last_modified: millis(now),
            };
            self.database.writer.create(blob).await?;
            return Ok(meta);
        }
        self.database
            .writer
            .write(move |connection| {
                Box::pin(async move {
                    let statement = match &mode {
                        PutMode::Overwrite => {
                            "insert into blob (key, body, version, last_modified)
                             values (?1, ?2, ?3, ?4)
                             on conflict (key) do update set body = excluded.body,
                                 version = excluded.version, last_modified = excluded.last_modified"
                        }
                        PutMode::Create | PutMode::Update(_) => {
                            "update blob set body = ?2, version = ?3, last_modified = ?4
                             where key = ?1 and version = ?5"
                        }
                    };
                    let mut query = sqlx::query(statement)
                        .bind(&key)
                        .bind(body.as_ref())
                        .bind(version)
                        .bind(millis(now));
                    if let PutMode::Update(etag) = &mode {
                        query = query.bind(version_of(etag));
                    }
                    let written = query
                        .execute(&mut *connection)
                        .await
                        .map_err(Error::backend)?
                        .rows_affected();
                    match written {
                        0 => Err(Error::Precondition { key }),
                        _ => Ok(()),
                    }
                })
            })
            .await?;
        Ok(meta)
    }

    async fn delete(&self, key: &str, if_match: Option<&ETag>) -> Result<()> {
        check_key(key)?;
        self.counter.record(Operation::Delete);
        let key = key.to_owned();
        let expected = if_match.map(version_of);
        self.database
            .writer
            .write(move |connection| {
                Box::pin(async move {
                    let current: Option<i64> =
                        sqlx::query_scalar("select version from blob where key = ?")
                            .bind(&key)
                            .fetch_optional(&mut *connection)
                            .await
                            .map_err(Error::backend)?;
                    match (current, expected) {
                        (None, _) => return Err(Error::blob_not_found(&key)),
                        (Some(current), Some(expected)) if Some(current) != expected => {
                            return Err(Error::Precondition { key });
                        }
                        _ => {}
                    }
                    sqlx::query("delete from blob where key = ?")
                        .bind(&key)
                        .execute(&mut *connection)
                        .await
                        .map_err(Error::backend)?;
                    Ok(())
                })
            })
            .await
    }

    async fn list(&self, request: &ListRequest) -> Result<ListPage> {
        self.counter.record(Operation::List);
        let page_size = request.effective_page_size();
        let after = request.continuation.clone().unwrap_or_default();
        let upper = upper_bound(&request.prefix);
        let rows = retry::busy(|| {
            sqlx::query(
                "select key, version, last_modified, length(body) as size from blob
                 where key >= ?1 and key > ?2 and (?3 is null or key < ?3)
                 order by key limit ?4",
            )
            .bind(&request.prefix)
            .bind(&after)
            .bind(&upper)
            .bind(i64::try_from(page_size + 1).unwrap_or(i64::MAX))
            .fetch_all(&self.database.readers)
        })
        .await?;
        let items = rows
            .iter()
            .map(meta)
            .filter(|meta| {
                meta.as_ref()
                    .map_or(true, |meta| meta.key.starts_with(&request.prefix))
            })
            .collect::<Result<Vec<_>, _>>()
            .map_err(Error::backend)?;
        Ok(ListPage::from_overfetch(items, page_size))
    }

    fn transactions(&self) -> &TransactionCounter {
        &self.counter
    }
}
