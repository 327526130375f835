//! What is read when `/metrics` is scraped: every queue's length and the age of its head, and
//! the storage transactions made since the last scrape.

use std::sync::Mutex;
use std::time::Duration;

use futures_util::future::join_all;

use crate::storage::{Operation, Storage, TransactionCounts};
use crate::stores::Stores;
use crate::telemetry::metrics;

/// How long one queue read may take before the scrape goes on without it.
const READ_TIMEOUT: Duration = Duration::from_secs(5);

/// The sources a scrape reads from.
pub struct Scraped {
    stores: Stores,
    // Each storage handle of the process, with its counts at the last scrape.
    storages: Mutex<Vec<(Storage, TransactionCounts)>>,
}

impl Scraped {
    /// Reads queues through `stores`, and counts the transactions of `storages` (every
    /// storage handle the process opened; `stores`' own is always counted).
    pub fn new(stores: Stores, storages: Vec<Storage>) -> Self {
        let mut all = vec![stores.operations.storage.clone()];
        all.extend(storages);
        Self {
            storages: Mutex::new(
                all.into_iter()
                    .map(|storage| (storage, TransactionCounts::default()))
                    .collect(),
            ),
            stores,
        }
    }

    /// Reads what is read at scrape time into the metrics and renders them all.
    pub async fn render(&self) -> String {
        self.read_queues().await;
        self.read_transfers().await;
        self.count_transactions();
        metrics::rendered()
    }

    /// With regions: what waits here to move to other regions, over every hosted tenant.
    async fn read_transfers(&self) {
        if !self.stores.residency.regions.named() {
            return;
        }
        let read = async {
            let (mut waiting, mut oldest) = (0, std::time::Duration::ZERO);
            for tenant in self.stores.residency.hosted.tenants().await? {
                let (count, age) = self
                    .stores
                    .answering
                    .queues
                    .transfer_backlog(&tenant)
                    .await?;
                waiting += count;
                oldest = oldest.max(age.unwrap_or_default());
            }
            Ok::<_, crate::stores::StoreError>((waiting, oldest))
        };
        match tokio::time::timeout(READ_TIMEOUT, read).await {
            Ok(Ok((waiting, oldest))) => metrics::transfer_backlog(waiting, oldest),
            Ok(Err(error)) => {
                metrics::scrape_error();
                tracing::warn!(error = %crate::telemetry::error_chain(&error), "reading the transfer queues for /metrics failed");
            }
            Err(_) => {
                metrics::scrape_error();
                tracing::warn!("reading the transfer queues for /metrics timed out");
            }
        }
    }

    async fn read_queues(&self) {
        let reads = self
            .stores
            .queues()
            .into_iter()
            .map(|(role, queue)| async move {
                let read = async {
                    let length = self.stores.operations.queue_length(&queue).await?;
                    let age = self.stores.operations.queue_head_age(&queue).await?;
                    Ok::<_, crate::stores::StoreError>((length, age))
                };
                let result = tokio::time::timeout(READ_TIMEOUT, read).await;
                (role, queue, result)
            });
        for (role, queue, result) in join_all(reads).await {
            match result {
                Ok(Ok((length, age))) => {
                    metrics::queue_depth(queue.to_string(), role, length, age.unwrap_or_default());
                }
                Ok(Err(error)) => {
                    metrics::scrape_error();
                    tracing::warn!(%queue, error = %crate::telemetry::error_chain(&error), "reading a queue for /metrics failed");
                }
                Err(_) => {
                    metrics::scrape_error();
                    tracing::warn!(%queue, "reading a queue for /metrics timed out");
                }
            }
        }
    }

    fn count_transactions(&self) {
        // Only ever held for this arithmetic, so a poisoned lock still holds sound counts.
        let mut storages = self
            .storages
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        for (storage, last) in storages.iter_mut() {
            let now = storage.transactions();
            let new = now.since(last);
            for operation in Operation::ALL {
                let count = new.of(operation);
                if count > 0 {
                    metrics::transactions(operation.name(), count);
                }
            }
            *last = now;
        }
    }
}
