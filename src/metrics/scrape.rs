//! What is read when `/metrics` is scraped: every queue's length and the age of its head, and
//! the storage transactions made since the last scrape.

use std::sync::Mutex;
use std::time::Duration;

use futures_util::future::join_all;

use super::{Metrics, OperationLabels, QueueLabels, get};
use crate::storage::{Operation, Storage, TransactionCounts};
use crate::stores::Stores;

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
        let mut all = vec![stores.storage.clone()];
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
        let metrics = get();
        self.read_queues(metrics).await;
        self.count_transactions(metrics);
        metrics.render()
    }

    async fn read_queues(&self, metrics: &Metrics) {
        let reads = self
            .stores
            .queues()
            .into_iter()
            .map(|(role, queue)| async move {
                let read = async {
                    let length = self.stores.queue_length(&queue).await?;
                    let age = self.stores.queue_head_age(&queue).await?;
                    Ok::<_, crate::stores::StoreError>((length, age))
                };
                let result = tokio::time::timeout(READ_TIMEOUT, read).await;
                (role, queue, result)
            });
        for (role, queue, result) in join_all(reads).await {
            let labels = QueueLabels {
                queue: queue.to_string(),
                role,
            };
            match result {
                Ok(Ok((length, age))) => {
                    metrics
                        .queue_length
                        .get_or_create(&labels)
                        .set(i64::try_from(length).unwrap_or(i64::MAX));
                    metrics
                        .queue_age
                        .get_or_create(&labels)
                        .set(age.unwrap_or_default().as_secs_f64());
                }
                Ok(Err(error)) => {
                    metrics.scrape_errors.inc();
                    tracing::warn!(%queue, error = %crate::telemetry::error_chain(&error), "reading a queue for /metrics failed");
                }
                Err(_) => {
                    metrics.scrape_errors.inc();
                    tracing::warn!(%queue, "reading a queue for /metrics timed out");
                }
            }
        }
    }

    fn count_transactions(&self, metrics: &Metrics) {
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
                    metrics
                        .transactions
                        .get_or_create(&OperationLabels {
                            operation: operation.name(),
                        })
                        .inc_by(count);
                }
            }
            *last = now;
        }
    }
}
