//! The `BlobStore` port: documents under string keys, each with an ETag for optimistic
//! concurrency.

use std::fmt;
use std::time::SystemTime;

use async_trait::async_trait;
use bytes::Bytes;

use super::{Error, Result, TransactionCounter};

/// Longest key any backend accepts (Azure's limit).
pub const MAX_KEY_LEN: usize = 1024;

/// Calls in flight at once in the default `get_many` and `put_many`.
const MANY_CONCURRENCY: usize = 64;

/// Largest page a listing returns, whatever the caller asks for (Azure's limit).
pub const MAX_LIST_PAGE: usize = 5000;

/// An opaque version tag; it changes on every write of a blob and never repeats for a key.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ETag(String);

impl ETag {
    /// Wraps a backend's version string.
    pub fn new(tag: impl Into<String>) -> Self {
        Self(tag.into())
    }

    /// The tag as the backend spelled it.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for ETag {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// The condition a put is made under.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PutMode {
    /// Write whatever is there (no condition).
    Overwrite,
    /// Write only if no blob has this key (If-None-Match: *); else `Error::AlreadyExists`.
    Create,
    /// Write only if the blob still has this ETag (If-Match); else `Error::Precondition`.
    Update(ETag),
}

/// One write of `BlobStore::put_many`.
#[derive(Clone, Debug)]
pub struct BlobPut {
    /// The blob's key.
    pub key: String,
    /// The bytes to write.
    pub body: Bytes,
    /// The condition to write them under.
    pub mode: PutMode,
}

/// What a blob is, without its body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BlobMeta {
    /// The blob's key.
    pub key: String,
    /// Its current version.
    pub etag: ETag,
    /// When it was last written.
    pub last_modified: SystemTime,
    /// Its body's length in bytes.
    pub size: u64,
}

/// A blob read whole.
#[derive(Clone, Debug)]
pub struct Blob {
    /// Key, ETag, last-modified and size.
    pub meta: BlobMeta,
    /// The bytes.
    pub body: Bytes,
}

/// Which page of a listing to read.
#[derive(Clone, Debug, Default)]
pub struct ListRequest {
    /// Only keys starting with this.
    pub prefix: String,
    /// The token a previous page returned; `None` for the first page.
    pub continuation: Option<String>,
    /// At most this many keys (capped at `MAX_LIST_PAGE`; 0 means the maximum).
    pub page_size: usize,
}

impl ListRequest {
    /// The first page of keys under `prefix`, `page_size` keys at a time.
    pub fn new(prefix: impl Into<String>, page_size: usize) -> Self {
        Self {
            prefix: prefix.into(),
            continuation: None,
            page_size,
        }
    }

    /// The page size a backend should use.
    pub fn effective_page_size(&self) -> usize {
        match self.page_size {
            0 => MAX_LIST_PAGE,
            n => n.min(MAX_LIST_PAGE),
        }
    }
}

/// One page of a listing, in key order.
#[derive(Clone, Debug, Default)]
pub struct ListPage {
    /// The blobs on this page.
    pub items: Vec<BlobMeta>,
    /// Pass this back for the next page; `None` when the listing is complete.
    pub continuation: Option<String>,
}

impl ListPage {
    /// Builds a page from keys read in order, up to `page_size + 1` of them: the one extra key
    /// only tells that more follow, so the token is the last key kept.
    pub fn from_overfetch(mut items: Vec<BlobMeta>, page_size: usize) -> Self {
        let continuation = if items.len() > page_size {
            items.truncate(page_size);
            items.last().map(|meta| meta.key.clone())
        } else {
            None
        };
        Self {
            items,
            continuation,
        }
    }
}

/// Documents under string keys with ETags. Every call is one storage transaction.
#[async_trait]
pub trait BlobStore: Send + Sync + fmt::Debug {
    /// Reads a blob whole; `Error::NotFound` if there is none.
    async fn get(&self, key: &str) -> Result<Blob>;

    /// Reads several blobs: each key's own result (`Error::NotFound` for a missing one), in the
    /// keys' order; the outer error is a failure of the whole call. One transaction per key, as
    /// `get`; backends that can fetch many keys in one round trip do so.
    async fn get_many(&self, keys: &[String]) -> Result<Vec<Result<Blob>>> {
        // A bounded number in flight: a remote backend gets parallel requests, not a flood.
        let mut blobs = Vec::with_capacity(keys.len());
        for chunk in keys.chunks(MANY_CONCURRENCY) {
            let mut reads = Vec::with_capacity(chunk.len());
            for key in chunk {
                reads.push(self.get(key));
            }
            blobs.extend(futures_util::future::join_all(reads).await);
        }
        Ok(blobs)
    }

    /// Writes a blob under a condition and returns its new metadata.
    async fn put(&self, key: &str, body: Bytes, mode: PutMode) -> Result<BlobMeta>;

    /// Writes several blobs, each under its own condition: each write's own result, in order;
    /// the outer error is a failure of the whole call (then some writes may have happened).
    /// One transaction per blob, as `put`; backends that can write many in one round trip do.
    async fn put_many(&self, puts: Vec<BlobPut>) -> Result<Vec<Result<BlobMeta>>> {
        let mut written = Vec::with_capacity(puts.len());
        for chunk in puts.chunks(MANY_CONCURRENCY) {
            let writes = chunk
                .iter()
                .map(|put| self.put(&put.key, put.body.clone(), put.mode.clone()));
            written.extend(futures_util::future::join_all(writes).await);
        }
        Ok(written)
    }

    /// Deletes a blob, only if it still has `if_match` when given.
    /// `Error::NotFound` if there is none; `Error::Precondition` if the ETag moved on.
    async fn delete(&self, key: &str, if_match: Option<&ETag>) -> Result<()>;

    /// One page of the keys under a prefix, in key order.
    async fn list(&self, request: &ListRequest) -> Result<ListPage>;

    /// Makes every write that returned before this call durable, whoever made it. Backends
    /// whose writes are durable when they return (Azure, memory) have nothing to do; the local
    /// backend's relaxed handles commit without fsync and fsync here.
    async fn flush(&self) -> Result<()> {
        Ok(())
    }

    /// This adapter's transaction counter.
    fn transactions(&self) -> &TransactionCounter;
}

/// Rejects keys no backend could store; adapters call it before touching storage.
pub fn check_key(key: &str) -> Result<()> {
    if key.is_empty() {
        return Err(Error::InvalidArgument("a blob key cannot be empty".into()));
    }
    if key.len() > MAX_KEY_LEN {
        return Err(Error::InvalidArgument(format!(
            "a blob key is at most {MAX_KEY_LEN} bytes; this one has {}",
            key.len()
        )));
    }
    if key.chars().any(char::is_control) {
        return Err(Error::InvalidArgument(
            "a blob key cannot contain control characters".into(),
        ));
    }
    Ok(())
}
