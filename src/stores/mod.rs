//! Typed stores over the two storage ports, grouped in six areas (catalog, answering, panel,
//! membership, residency, operations). The service layer and the workers talk to these,
//! never to an adapter; the moka caches in front of tenants and surveys live here too.

mod accounts;
mod answer_list;
mod answer_queue;
mod answers;
mod api_keys;
pub mod audit;
mod control;
mod counted;
pub mod deletions;
pub mod digests;
mod error;
pub mod exports;
pub mod funnels;
pub mod hosted;
mod json_blob;
pub mod keys;
pub mod lease;
pub mod mail;
pub mod mailings;
mod members;
pub mod membership;
pub mod partials;
pub mod participants;
pub mod progress;
pub mod quotas;
mod references;
mod regional;
pub mod reports;
mod residency;
pub mod responses;
pub mod roster;
mod secrets;
pub mod segments;
mod sessions;
mod summaries;
mod surveys;
pub mod tenant_settings;
mod tenants;
pub mod throttle;
pub mod tokens;
pub mod uploads;
pub mod webhooks;
pub mod work_queue;

pub use accounts::AccountStore;
pub use answer_list::{AnswerList, CHUNK as LIST_CHUNK, ListView};
pub use answer_queue::{
    AnswerMessage, AnswerQueues, Delivery, POISON_QUEUE, Received, shard_of, transfer_queue,
};
pub use answers::AnswerStore;
pub use api_keys::{ApiKeyRecord, ApiKeyStore};
pub use audit::AuditLog;
pub use control::WorkerControl;
pub use counted::CountedIndex;
pub use error::{Context, StoreError};
pub use members::MemberStore;
pub use references::ReferenceAllocator;
pub use sessions::{SESSION_LIFETIME, Session, SessionStore};
pub use summaries::{DaySpan, SummaryDoc, SummaryStore, Versioned, day_of};
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
    /// Most bytes (estimated) the survey cache holds: surveys differ a thousandfold in size.
    pub survey_cache_bytes: u64,
    /// How many reference numbers a process reserves at once.
    pub reference_range: u64,
    /// How many queues each class of answers is split over.
    pub queue_shards: usize,
    /// The installation's regions and this process's one.
    pub regions: std::sync::Arc<crate::regions::Regions>,
}

/// Seconds a cached tenant or survey is served before it is read again, by default.
pub const DEFAULT_CACHE_TTL_SECS: u64 = 10;
/// Reference numbers a process reserves with one storage write, by default.
pub const DEFAULT_REFERENCE_RANGE: u64 = 1000;

impl Default for StoreSettings {
    fn default() -> Self {
        Self {
            cache_ttl: Duration::from_secs(DEFAULT_CACHE_TTL_SECS),
            cache_capacity: 10_000,
            survey_cache_bytes: 64 * 1024 * 1024,
            reference_range: DEFAULT_REFERENCE_RANGE,
            queue_shards: 1,
            regions: Default::default(),
        }
    }
}

/// One page of keys under a prefix, with when each was last written.
#[derive(Debug, Default)]
pub struct ScanPage {
    /// Keys and last-modified times, in key order.
    pub keys: Vec<(String, std::time::SystemTime)>,
    /// Where the next page starts; `None` after the last.
    pub continuation: Option<String>,
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

/// Every typed store, built once per process over one storage, in six areas. A function
/// takes the area it touches (`&Answering` for the answer path, `&Membership` for accounts
/// and members, ...), so its signature says what it reads and writes; only the few that
/// span areas take the whole.
#[derive(Debug, Clone)]
pub struct Stores {
    /// Tenants, their settings and their surveys' definitions.
    pub catalog: Catalog,
    /// Answers from the form to the summary.
    pub answering: Answering,
    /// Participants, mailings and the email queue.
    pub panel: Panel,
    /// Accounts, members, sessions and API keys.
    pub membership: Membership,
    /// The installation's regions and what is kept for the others.
    pub residency: Residency,
    /// The storage underneath, the workers' flag and the queues of background jobs.
    pub operations: Operations,
}

/// What a tenant and its surveys are.
#[derive(Debug, Clone)]
pub struct Catalog {
    /// Tenants, cached.
    pub tenants: TenantStore,
    /// Survey definitions, cached.
    pub surveys: SurveyStore,
    /// Tenants' settings.
    pub settings: tenant_settings::TenantSettingsStore,
}

/// Everything an answer passes through, from the respondent's form to the summary.
#[derive(Debug, Clone)]
pub struct Answering {
    /// The key that signs submission tokens.
    pub signing_key: SigningKey,
    /// Reference numbers for answers.
    pub references: std::sync::Arc<ReferenceAllocator>,
    /// Where submitted answers wait for a worker.
    pub queues: AnswerQueues,
    /// Stored answers.
    pub answers: AnswerStore,
    /// Summary documents, the commit point of the worker.
    pub summaries: SummaryStore,
    /// Answer lists for paging.
    pub lists: AnswerList,
    /// Which answers each summary already counts.
    pub counted: CountedIndex,
    /// Respondents' saved progress ("continue later").
    pub progress: progress::ProgressStore,
    /// Partial responses of surveys that keep them.
    pub partials: partials::PartialStore,
    /// Each survey's drop-off counts.
    pub funnels: funnels::FunnelStore,
    /// Quota places, claimed exactly across processes.
    pub quotas: quotas::QuotaStore,
    /// Files respondents uploaded.
    pub uploads: uploads::UploadStore,
}

/// A survey's participants and what is sent to them.
#[derive(Debug, Clone)]
pub struct Panel {
    /// Surveys' participants and their personal links.
    pub participants: participants::ParticipantStore,
    /// Mailings to participants, their templates, and opt-outs.
    pub mailings: mailings::MailingStore,
    /// Email waiting to be sent.
    pub mail: mail::MailQueue,
    /// When each tenant's daily digest was last made.
    pub digests: digests::DigestStore,
}

/// Who may sign in and act in a tenant.
#[derive(Debug, Clone)]
pub struct Membership {
    /// Owner accounts.
    pub accounts: AccountStore,
    /// Signed-in sessions.
    pub sessions: SessionStore,
    /// Tenants' members and invitations.
    pub members: MemberStore,
    /// API keys.
    pub api_keys: ApiKeyStore,
    /// Sign-in attempts, counted across processes.
    pub sign_ins: throttle::SignInThrottle,
    /// Tenants' audit logs.
    pub audit: AuditLog,
    /// The key that encrypts session cookies (64 bytes).
    pub session_key: [u8; 64],
}

/// The installation's regions, as this process sees them.
#[derive(Debug, Clone)]
pub struct Residency {
    /// The installation's regions and this process's one.
    pub regions: std::sync::Arc<crate::regions::Regions>,
    /// Copies of other regions' tenants and surveys hosted here.
    pub hosted: hosted::HostedStore,
    /// With regions: pushes to hosting regions that failed, for a worker to retry.
    pub hosting_syncs: Option<work_queue::WorkQueue>,
    /// The stores of the other regions, opened when first needed.
    elsewhere: std::sync::Arc<regional::Elsewhere>,
}

/// The storage underneath and the work the workers do besides counting answers.
#[derive(Debug, Clone)]
pub struct Operations {
    /// The ports underneath, for counting transactions.
    pub storage: Storage,
    /// The workers' pause flag.
    pub control: WorkerControl,
    /// The running workers and their claims on answer shards.
    pub roster: roster::Roster,
    /// Export jobs and their queue.
    pub exports: exports::ExportStore,
    /// Deleted responses' records, and the queue of deletions and recounts.
    pub deletions: deletions::DeletionStore,
    /// Webhook endpoints, their delivery logs, and the delivery queue.
    pub webhooks: webhooks::WebhookStore,
    /// The segment build queue and the builds' progress.
    pub segments: segments::SegmentStore,
}

/// The names of the `.json` documents right under `prefix` that `parse` accepts, in key
/// order, read a page at a time.
pub(crate) async fn json_names<T>(
    blobs: &dyn crate::storage::BlobStore,
    prefix: &str,
    parse: impl Fn(&str) -> Option<T>,
) -> Result<Vec<T>, StoreError> {
    let mut listing = Listing::new(blobs, prefix, 0);
    let mut names = Vec::new();
    while let Some(page) = listing.next().await? {
        names.extend(
            page.items
                .iter()
                .filter_map(|meta| parse(meta.key.strip_prefix(prefix)?.strip_suffix(".json")?)),
        );
    }
    Ok(names)
}

/// The pages of the blobs under a prefix, one at a time (`next` until `None`).
pub(crate) struct Listing<'a> {
    blobs: &'a dyn crate::storage::BlobStore,
    request: crate::storage::ListRequest,
    done: bool,
}

impl<'a> Listing<'a> {
    /// The listing under `prefix`, `page_size` keys a page (0: the most a page holds).
    pub(crate) fn new(
        blobs: &'a dyn crate::storage::BlobStore,
        prefix: &str,
        page_size: usize,
    ) -> Self {
        Self {
            blobs,
            request: crate::storage::ListRequest::new(prefix.to_owned(), page_size),
            done: false,
        }
    }

    /// The next page, or `None` after the last.
    pub(crate) async fn next(&mut self) -> Result<Option<crate::storage::ListPage>, StoreError> {
        if self.done {
            return Ok(None);
        }
        let request = &self.request;
        let page = self
            .blobs
            .list(request)
            .await
            .context(|| format!("listing {}", request.prefix))?;
        self.request.continuation.clone_from(&page.continuation);
        self.done = page.continuation.is_none();
        Ok(Some(page))
    }
}

/// Deletes every blob under `prefix` (gone already is fine); returns how many it found.
pub(crate) async fn delete_prefix(
    blobs: &dyn crate::storage::BlobStore,
    prefix: &str,
) -> Result<u64, StoreError> {
    let mut deleted = 0;
    loop {
        let page = blobs
            .list(&crate::storage::ListRequest::new(prefix, 0))
            .await
            .context(|| format!("listing {prefix}"))?;
        if page.items.is_empty() {
            return Ok(deleted);
        }
        deleted += page.items.len() as u64;
        for item in page.items {
            match blobs.delete(&item.key, None).await {
                Ok(()) | Err(crate::storage::Error::NotFound { .. }) => {}
                Err(error) => return Err(error).context(|| format!("deleting {}", item.key)),
            }
        }
    }
}

/// Looks `key` up in `cache`, loading it on a miss (concurrent misses of one key share one
/// load), and counts the lookup as a hit or a miss under the cache's `name`.
pub(crate) async fn cached<K, V>(
    cache: &moka::future::Cache<K, V>,
    name: &'static str,
    key: K,
    load: impl std::future::Future<Output = Result<V, StoreError>>,
) -> Result<V, StoreError>
where
    K: std::hash::Hash + Eq + Send + Sync + 'static,
    V: Clone + Send + Sync + 'static,
{
    use std::sync::atomic::{AtomicBool, Ordering};
    let loaded = AtomicBool::new(false);
    let found = cache
        .try_get_with(key, async {
            loaded.store(true, Ordering::Relaxed);
            load.await
        })
        .await
        .map_err(StoreError::Shared);
    crate::telemetry::metrics::cache_lookup(name, !loaded.load(Ordering::Relaxed));
    found
}

impl Stores {
    /// Every queue the application has, with what it is for (`premium`, `standard`,
    /// `poison`, `export`, `deletion`, `mail`, `mailing`, `webhook`, `segment`).
    pub fn queues(&self) -> Vec<(&'static str, crate::storage::QueueName)> {
        let mut queues: Vec<_> = self
            .answering
            .queues
            .all()
            .into_iter()
            .map(|(role, queue)| (role, queue.clone()))
            .collect();
        for (role, work) in [
            ("export", self.operations.exports.queue()),
            ("deletion", self.operations.deletions.queue()),
            ("mail", self.panel.mail.queue()),
            ("mailing", self.panel.mailings.queue()),
            ("webhook", self.operations.webhooks.queue()),
            ("segment", self.operations.segments.queue()),
        ] {
            queues.push((role, work.name().clone()));
        }
        queues
    }

    /// Builds the stores, creating the queues and the signing key if this is a new storage.
    pub async fn open(storage: Storage, settings: &StoreSettings) -> Result<Self, StoreError> {
        let answer_queues =
            AnswerQueues::create(&storage, settings.queue_shards, settings.regions.named()).await?;
        let exports = exports::ExportStore::create(&storage).await?;
        let deletions = deletions::DeletionStore::create(&storage).await?;
        let webhooks = webhooks::WebhookStore::create(&storage).await?;
        let segments = segments::SegmentStore::create(&storage).await?;
        let mail = mail::MailQueue::create(&storage).await?;
        let mailings = mailings::MailingStore::create(&storage).await?;
        let hosting_syncs = match settings.regions.named() {
            true => Some(work_queue::WorkQueue::create(&storage, hosted::SYNC_QUEUE).await?),
            false => None,
        };
        let signing_key = secrets::signing_key(storage.blobs.as_ref()).await?;
        let session_key = secrets::session_key(storage.blobs.as_ref()).await?;
        Ok(Self {
            catalog: Catalog {
                tenants: TenantStore::new(storage.blobs.clone(), settings),
                surveys: SurveyStore::new(storage.blobs.clone(), settings),
                settings: tenant_settings::TenantSettingsStore::new(storage.blobs.clone()),
            },
            answering: Answering {
                signing_key,
                references: std::sync::Arc::new(ReferenceAllocator::new(
                    storage.blobs.clone(),
                    settings.reference_range,
                    settings.regions.reference_base(),
                )),
                queues: answer_queues,
                answers: AnswerStore::new(storage.blobs.clone()),
                summaries: SummaryStore::new(storage.blobs.clone()),
                lists: AnswerList::new(storage.blobs.clone()),
                counted: CountedIndex::new(storage.blobs.clone()),
                progress: progress::ProgressStore::new(storage.blobs.clone()),
                partials: partials::PartialStore::new(storage.blobs.clone()),
                funnels: funnels::FunnelStore::new(storage.blobs.clone()),
                quotas: quotas::QuotaStore::new(storage.blobs.clone()),
                uploads: uploads::UploadStore::new(storage.blobs.clone()),
            },
            panel: Panel {
                participants: participants::ParticipantStore::new(storage.blobs.clone()),
                mailings,
                mail,
                digests: digests::DigestStore::new(storage.blobs.clone()),
            },
            membership: Membership {
                accounts: AccountStore::new(storage.blobs.clone()),
                sessions: SessionStore::new(storage.blobs.clone()),
                members: MemberStore::new(storage.blobs.clone()),
                api_keys: ApiKeyStore::new(storage.blobs.clone()),
                sign_ins: throttle::SignInThrottle::new(storage.blobs.clone()),
                audit: AuditLog::new(storage.blobs.clone()),
                session_key,
            },
            residency: Residency {
                regions: settings.regions.clone(),
                hosted: hosted::HostedStore::new(storage.blobs.clone(), settings),
                hosting_syncs,
                elsewhere: std::sync::Arc::new(regional::Elsewhere::new(settings)),
            },
            operations: Operations {
                control: WorkerControl::new(storage.blobs.clone()),
                roster: roster::Roster::new(storage.blobs.clone()),
                exports,
                deletions,
                webhooks,
                segments,
                storage,
            },
        })
    }
}

/// The keys under a prefix, with when each was last written, read a page at a time, for a
/// pass that deletes some of them (`Operations::sweep`).
pub struct Sweep<'a> {
    operations: &'a Operations,
    prefix: String,
    page: std::vec::IntoIter<(String, std::time::SystemTime)>,
    continuation: Option<String>,
    listed: bool,
    deleted: u64,
}

impl Sweep<'_> {
    /// The next key and when it was written; `None` after the last.
    pub async fn next(&mut self) -> Result<Option<(String, std::time::SystemTime)>, StoreError> {
        loop {
            if let Some(found) = self.page.next() {
                return Ok(Some(found));
            }
            if self.listed && self.continuation.is_none() {
                return Ok(None);
            }
            let page = self
                .operations
                .scan(&self.prefix, self.continuation.take())
                .await?;
            self.listed = true;
            self.continuation = page.continuation;
            self.page = page.keys.into_iter();
        }
    }

    /// Deletes `key` (gone already is fine), counting it.
    pub async fn delete(&mut self, key: &str) -> Result<(), StoreError> {
        self.operations.delete_blob(key).await?;
        self.deleted += 1;
        Ok(())
    }

    /// How many keys this pass deleted.
    pub fn deleted(&self) -> u64 {
        self.deleted
    }
}

impl Operations {
    /// A pass over the keys under `prefix` that may delete some of them.
    pub fn sweep(&self, prefix: &str) -> Sweep<'_> {
        Sweep {
            operations: self,
            prefix: prefix.to_owned(),
            page: Vec::new().into_iter(),
            continuation: None,
            listed: false,
            deleted: 0,
        }
    }

    /// Roughly how many messages a queue holds, visible or held.
    pub async fn queue_length(&self, queue: &crate::storage::QueueName) -> Result<u64, StoreError> {
        self.storage
            .queues
            .approximate_length(queue)
            .await
            .context(|| format!("reading the length of {queue}"))
    }

    /// How long the next message a worker would receive from a queue has waited (`None` when
    /// none is waiting).
    pub async fn queue_head_age(
        &self,
        queue: &crate::storage::QueueName,
    ) -> Result<Option<std::time::Duration>, StoreError> {
        let added = self
            .storage
            .queues
            .head_inserted_at(queue)
            .await
            .context(|| format!("peeking at {queue}"))?;
        // A clock behind the storage's makes a head "from the future": it has waited 0 s.
        Ok(added.map(|added| added.elapsed().unwrap_or_default()))
    }

    /// Makes every blob written so far durable (see `BlobStore::flush`): a step of the
    /// worker's protocol whose writes depend on earlier ones being on disk waits for this.
    pub async fn flush(&self) -> Result<(), StoreError> {
        self.storage
            .blobs
            .flush()
            .await
            .context(|| "making blob writes durable".to_owned())
    }

    /// Deletes one blob found by `scan`; already gone is fine.
    pub async fn delete_blob(&self, key: &str) -> Result<(), StoreError> {
        match self.storage.blobs.delete(key, None).await {
            Ok(()) | Err(crate::storage::Error::NotFound { .. }) => Ok(()),
            Err(error) => Err(error).context(|| format!("deleting {key}")),
        }
    }

    /// One page of the keys under `prefix`, for background passes over all data.
    pub async fn scan(
        &self,
        prefix: &str,
        continuation: Option<String>,
    ) -> Result<ScanPage, StoreError> {
        let request = crate::storage::ListRequest {
            prefix: prefix.to_owned(),
            continuation,
            page_size: 0,
        };
        let page = self
            .storage
            .blobs
            .list(&request)
            .await
            .context(|| format!("listing {prefix}"))?;
        Ok(ScanPage {
            keys: page
                .items
                .into_iter()
                .map(|meta| (meta.key, meta.last_modified))
                .collect(),
            continuation: page.continuation,
        })
    }
}

#[cfg(test)]
mod listing_tests {
    use super::Listing;
    use crate::storage::memory::MemoryBlobStore;
    use crate::storage::{BlobStore, PutMode};

    #[tokio::test]
    async fn a_listing_gives_every_page_under_its_prefix_once_then_none() {
        let blobs = MemoryBlobStore::default();
        for n in 0..7 {
            let key = format!("a/{n}.json");
            blobs
                .put(&key, bytes::Bytes::from_static(b"{}"), PutMode::Create)
                .await
                .expect("written");
        }
        blobs
            .put(
                "b/other.json",
                bytes::Bytes::from_static(b"{}"),
                PutMode::Create,
            )
            .await
            .expect("written");
        let mut listing = Listing::new(&blobs, "a/", 3);
        let mut sizes = Vec::new();
        let mut keys = Vec::new();
        while let Some(page) = listing.next().await.expect("listed") {
            sizes.push(page.items.len());
            keys.extend(page.items.into_iter().map(|item| item.key));
        }
        assert_eq!(sizes, [3, 3, 1]);
        assert_eq!(
            keys,
            (0..7).map(|n| format!("a/{n}.json")).collect::<Vec<_>>()
        );
        assert!(
            listing.next().await.expect("listed").is_none(),
            "and stays done"
        );
        let mut empty = Listing::new(&blobs, "c/", 3);
        let page = empty.next().await.expect("listed").expect("one page");
        assert!(page.items.is_empty(), "an empty prefix is one empty page");
        assert!(empty.next().await.expect("listed").is_none());
    }
}
