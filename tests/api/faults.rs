//! Storage that fails on purpose, wrapped around a real adapter: writes to chosen keys fail
//! (or are only noted, as a witness), or every queue add reports a full disk.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use async_trait::async_trait;
use bytes::Bytes;
use canvass::storage::{
    Blob, BlobMeta, BlobStore, ETag, Error, ListPage, ListRequest, Message, MessageQueue,
    MessageUpdate, PopReceipt, PutMode, QueueName, Result, Storage, TransactionCounter,
};

/// Blobs watched for writes to keys containing `marker`: such a write fails (as a broken disk
/// sector or a misbehaving backend would for one survey), or is made and noted (a witness
/// that a job ran: the reconcile pass takes its lock, say).
#[derive(Debug)]
pub struct MarkedWrites {
    inner: Arc<dyn BlobStore>,
    marker: String,
    fail: bool,
    /// Whether such a key was written.
    pub written: AtomicBool,
}

/// Marked writes that fail.
pub struct FailingWrites;

impl FailingWrites {
    /// `storage` with writes to keys containing `marker` failing.
    pub fn around(storage: &Storage, marker: &str) -> Storage {
        MarkedWrites::around(storage, marker, true).0
    }
}

/// Marked writes that are made and noted.
pub struct WrittenWitness;

impl WrittenWitness {
    /// `storage` watched for writes to keys containing `marker`.
    pub fn around(storage: &Storage, marker: &str) -> (Storage, Arc<MarkedWrites>) {
        MarkedWrites::around(storage, marker, false)
    }
}

impl MarkedWrites {
    fn around(storage: &Storage, marker: &str, fail: bool) -> (Storage, Arc<MarkedWrites>) {
        let blobs = Arc::new(Self {
            inner: storage.blobs.clone(),
            marker: marker.to_owned(),
            fail,
            written: AtomicBool::new(false),
        });
        let storage = Storage {
            blobs: blobs.clone(),
            queues: storage.queues.clone(),
        };
        (storage, blobs)
    }
}

#[async_trait]
impl BlobStore for MarkedWrites {
    async fn get(&self, key: &str) -> Result<Blob> {
        self.inner.get(key).await
    }

    async fn put(&self, key: &str, body: Bytes, mode: PutMode) -> Result<BlobMeta> {
        if key.contains(&self.marker) {
            if self.fail {
                return Err(Error::backend(format!("injected fault writing {key}")));
            }
            self.written.store(true, Ordering::SeqCst);
        }
        self.inner.put(key, body, mode).await
    }

    async fn delete(&self, key: &str, if_match: Option<&ETag>) -> Result<()> {
        self.inner.delete(key, if_match).await
    }

    async fn list(&self, request: &ListRequest) -> Result<ListPage> {
        self.inner.list(request).await
    }

    async fn flush(&self) -> Result<()> {
        self.inner.flush().await
    }

    fn transactions(&self) -> &TransactionCounter {
        self.inner.transactions()
    }
}

/// Queues that report a full disk on every add while `full` is set.
#[derive(Debug)]
pub struct FullDisk {
    inner: Arc<dyn MessageQueue>,
    /// Whether adds fail.
    pub full: AtomicBool,
}

impl FullDisk {
    /// `storage` with a switch that makes its queue adds fail as on a full disk.
    pub fn around(storage: &Storage) -> (Storage, Arc<FullDisk>) {
        let queues = Arc::new(Self {
            inner: storage.queues.clone(),
            full: AtomicBool::new(false),
        });
        let storage = Storage {
            blobs: storage.blobs.clone(),
            queues: queues.clone(),
        };
        (storage, queues)
    }
}

#[async_trait]
impl MessageQueue for FullDisk {
    async fn create_queue(&self, queue: &QueueName) -> Result<()> {
        self.inner.create_queue(queue).await
    }

    async fn add(
        &self,
        queue: &QueueName,
        body: Bytes,
        initial_invisibility: Option<Duration>,
    ) -> Result<String> {
        if self.full.load(Ordering::SeqCst) {
            return Err(Error::StorageFull(format!("no room to add to {queue}")));
        }
        self.inner.add(queue, body, initial_invisibility).await
    }

    async fn get(
        &self,
        queue: &QueueName,
        max: usize,
        visibility: Duration,
    ) -> Result<Vec<Message>> {
        self.inner.get(queue, max, visibility).await
    }

    async fn update(
        &self,
        queue: &QueueName,
        id: &str,
        receipt: &PopReceipt,
        update: MessageUpdate,
    ) -> Result<PopReceipt> {
        self.inner.update(queue, id, receipt, update).await
    }

    async fn delete(&self, queue: &QueueName, id: &str, receipt: &PopReceipt) -> Result<()> {
        self.inner.delete(queue, id, receipt).await
    }

    async fn approximate_length(&self, queue: &QueueName) -> Result<u64> {
        self.inner.approximate_length(queue).await
    }

    async fn head_inserted_at(&self, queue: &QueueName) -> Result<Option<std::time::SystemTime>> {
        self.inner.head_inserted_at(queue).await
    }

    fn transactions(&self) -> &TransactionCounter {
        self.inner.transactions()
    }
}
