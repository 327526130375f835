//! Typed stores over the two storage ports: tenants, surveys, reference numbers, the signing
//! key and the answer queues. Web and worker code talk to these, never to an adapter; the moka
//! caches in front of tenants and surveys live here too.

mod answer_queue;
mod error;
pub mod keys;
mod references;
mod secrets;
mod surveys;
mod tenants;

pub use answer_queue::{AnswerMessage, AnswerQueues, Delivery};
pub use error::{Context, StoreError};
pub use references::ReferenceAllocator;
pub use surveys::SurveyStore;
pub use tenants::TenantStore;

use std::time::Duration;

use crate::domain::SigningKey;
use crate::storage::Storage;

/// How the stores are tuned; every field has a default in `config`.
#[derive(Clone, Debug)]
pub struct StoreSettings {
    /// How long a cached tenant or survey may be served before it is read again; another
    /// process's change is seen within this time.
    pub cache_ttl: Duration,
    /// Most entries each cache holds.
    pub cache_capacity: u64,
    /// How many reference numbers a process reserves at once.
    pub reference_range: u64,
}

impl Default for StoreSettings {
    fn default() -> Self {
        Self {
            cache_ttl: Duration::from_secs(10),
            cache_capacity: 10_000,
            reference_range: 1000,
        }
    }
}

impl StoreSettings {
    /// A cache bounded and expired as these settings say.
    fn cache<K, V>(&self) -> moka::future::Cache<K, V>
    where
        K: std::hash::Hash + Eq + Send + Sync + 'static,
        V: Clone + Send + Sync + 'static,
    {
        moka::future::Cache::builder()
            .max_capacity(self.cache_capacity)
            .time_to_live(self.cache_ttl)
            .build()
    }
}

/// Every typed store, built once per process over one storage.
#[derive(Debug, Clone)]
pub struct Stores {
    /// The ports underneath, for counting transactions.
    pub storage: Storage,
    /// Tenants, cached.
    pub tenants: TenantStore,
    /// Survey definitions, cached.
    pub surveys: SurveyStore,
    /// Reference numbers for answers.
    pub references: std::sync::Arc<ReferenceAllocator>,
    /// Where submitted answers wait for a worker.
    pub answer_queues: AnswerQueues,
    /// The key that signs submission tokens.
    pub signing_key: SigningKey,
}

impl Stores {
    /// Builds the stores, creating the queues and the signing key if this is a new storage.
    pub async fn open(storage: Storage, settings: &StoreSettings) -> Result<Self, StoreError> {
        let answer_queues = AnswerQueues::create(&storage).await?;
        let signing_key = secrets::signing_key(storage.blobs.as_ref()).await?;
        Ok(Self {
            tenants: TenantStore::new(storage.blobs.clone(), settings),
            surveys: SurveyStore::new(storage.blobs.clone(), settings),
            references: std::sync::Arc::new(ReferenceAllocator::new(
                storage.blobs.clone(),
                settings.reference_range,
            )),
            answer_queues,
            signing_key,
            storage,
        })
    }
}
