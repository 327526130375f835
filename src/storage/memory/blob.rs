//! `BlobStore` over a sorted map behind a mutex.

use std::collections::BTreeMap;
use std::ops::Bound;
use std::sync::Mutex;
use std::time::SystemTime;

use async_trait::async_trait;
use bytes::Bytes;

use crate::storage::{
    Blob, BlobMeta, BlobStore, ETag, Error, ListPage, ListRequest, Operation, PutMode, Result,
    TransactionCounter, check_key,
};

#[derive(Debug, Default)]
struct State {
    blobs: BTreeMap<String, Blob>,
    // Versions never repeat, even across delete and re-create, so an old ETag never matches.
    last_version: u64,
}

/// Blobs in memory.
#[derive(Debug, Default)]
pub struct MemoryBlobStore {
    state: Mutex<State>,
    counter: TransactionCounter,
}

impl MemoryBlobStore {
    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        // A panic while holding the lock cannot leave the map half-written: every change is
        // one insert or remove, so the state is still consistent.
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

#[async_trait]
impl BlobStore for MemoryBlobStore {
    async fn get(&self, key: &str) -> Result<Blob> {
        check_key(key)?;
        self.counter.record(Operation::Get);
        self.lock()
            .blobs
            .get(key)
            .cloned()
            .ok_or_else(|| Error::blob_not_found(key))
    }

    async fn put(&self, key: &str, body: Bytes, mode: PutMode) -> Result<BlobMeta> {
        check_key(key)?;
        self.counter.record(Operation::Put);
        let mut state = self.lock();
        let current = state.blobs.get(key).map(|blob| &blob.meta.etag);
        match (&mode, current) {
            (PutMode::Create, Some(_)) => {
                return Err(Error::AlreadyExists { key: key.into() });
            }
            (PutMode::Update(expected), current) if current != Some(expected) => {
                return Err(Error::Precondition { key: key.into() });
            }
            _ => {}
        }
        state.last_version += 1;
        let meta = BlobMeta {
            key: key.to_owned(),
            etag: ETag::new(format!("{:x}", state.last_version)),
            last_modified: SystemTime::now(),
            size: body.len() as u64,
        };
        state.blobs.insert(
            key.to_owned(),
            Blob {
                meta: meta.clone(),
                body,
            },
        );
        Ok(meta)
    }

    async fn delete(&self, key: &str, if_match: Option<&ETag>) -> Result<()> {
        check_key(key)?;
        self.counter.record(Operation::Delete);
        let mut state = self.lock();
        let blob = state
            .blobs
            .get(key)
            .ok_or_else(|| Error::blob_not_found(key))?;
        if if_match.is_some_and(|etag| *etag != blob.meta.etag) {
            return Err(Error::Precondition { key: key.into() });
        }
        state.blobs.remove(key);
        Ok(())
    }

    async fn list(&self, request: &ListRequest) -> Result<ListPage> {
        self.counter.record(Operation::List);
        let state = self.lock();
        let start = match &request.continuation {
            Some(after) => Bound::Excluded(after.clone()),
            None => Bound::Included(request.prefix.clone()),
        };
        let page_size = request.effective_page_size();
        let items: Vec<BlobMeta> = state
            .blobs
            .range((start, Bound::Unbounded))
            .take_while(|(key, _)| key.starts_with(&request.prefix))
            .take(page_size + 1)
            .map(|(_, blob)| blob.meta.clone())
            .collect();
        Ok(ListPage::from_overfetch(items, page_size))
    }

    fn transactions(&self) -> &TransactionCounter {
        &self.counter
    }
}
