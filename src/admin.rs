//! Operator commands: a survey's summary, queue depths, the poison queue, and reconcile.
//! Each returns data; `main` prints it.

use std::time::Duration;

use serde::Serialize;

use crate::domain::account::Email;
use crate::domain::summary::SummaryReport;
use crate::domain::{Subscription, SurveySlug, TenantSlug};
use crate::stores::{AnswerMessage, Membership, Received, StoreError, Stores};

/// Why an operator command failed.
#[derive(Debug, thiserror::Error)]
pub enum AdminError {
    /// A store failed.
    #[error("storage failed")]
    Store(#[from] StoreError),
    /// What the operator named does not exist.
    #[error("{0}")]
    NotFound(String),
    /// What the operator asked for is not valid.
    #[error("{0}")]
    Invalid(String),
    /// A backup could not be made or verified.
    #[error("the backup failed")]
    Backup(#[source] crate::storage::Error),
}

/// The summary of one survey, as `canvass summary` prints it.
pub async fn summary(
    stores: &Stores,
    tenant: &str,
    survey: &str,
) -> Result<SummaryReport, AdminError> {
    let missing = || AdminError::NotFound(format!("no survey {tenant}/{survey}"));
    let tenant = TenantSlug::parse(tenant).map_err(|_| missing())?;
    let slug = SurveySlug::parse(survey).map_err(|_| missing())?;
    let definition = stores
        .counted_here(&tenant, &slug)
        .await?
        .ok_or_else(missing)?;
    let results = stores.results_of(&definition).await?;
    let read = results
        .answering
        .summaries
        .read(&definition.survey_ref())
        .await?;
    Ok(
        SummaryReport::new(&definition, &read.doc.summary, read.doc.updated)
            .with_unrecounted(read.doc.unrecounted),
    )
}

/// One queue and roughly how many messages it holds.
#[derive(Debug, Serialize)]
pub struct QueueDepth {
    /// The queue's name in storage.
    pub name: String,
    /// What it is for.
    pub role: &'static str,
    /// Approximate number of messages, visible or held.
    pub length: u64,
    /// For an answer shard in `canvass status`: the worker that holds its claim (affinity),
    /// if one does.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub holder: Option<String>,
}

impl std::fmt::Display for QueueDepth {
    /// The queue's line in `canvass queues` and `canvass status`: role, name, length.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:<10} {:<20} {:>10}", self.role, self.name, self.length)
    }
}

/// Every queue with its approximate length.
pub async fn queues(stores: &Stores) -> Result<Vec<QueueDepth>, AdminError> {
    let mut depths = Vec::new();
    for (role, queue) in stores.queues() {
        depths.push(QueueDepth {
            length: stores.operations.queue_length(&queue).await?,
            name: queue.to_string(),
            role,
            holder: None,
        });
    }
    Ok(depths)
}

/// What `canvass status` shows: whether workers are paused, and what waits for them.
#[derive(Debug, Serialize)]
pub struct Status {
    /// Whether `canvass workers pause` holds every worker.
    pub paused: bool,
    /// Every queue with roughly how many messages wait in it: answers, and each worker
    /// job (exports, deletions, email, mailings, webhook deliveries, segment builds).
    pub queues: Vec<QueueDepth>,
}

/// Whether workers are paused, and every queue's length.
pub async fn status(stores: &Stores) -> Result<Status, AdminError> {
    let mut queues = queues(stores).await?;
    let (premium, standard) = stores.answering.queues.work_queues();
    for depth in &mut queues {
        if let Some(shard) = premium
            .iter()
            .chain(standard)
            .find(|q| q.as_str() == depth.name)
        {
            depth.holder = stores
                .operations
                .roster
                .holder(shard)
                .await?
                .map(|claimed| claimed.owner);
        }
    }
    Ok(Status {
        paused: stores.operations.control.paused().await?,
        queues,
    })
}

/// A region as `canvass regions` shows it.
#[derive(Debug, Serialize)]
pub struct RegionReport {
    /// Its name.
    pub name: String,
    /// How people know it.
    pub label: String,
    /// Its public address.
    pub public_url: String,
    /// Whether this process runs in it.
    pub here: bool,
    /// Whether its storage answered (`None`), or why not.
    pub unreachable: Option<String>,
    /// Answers given there waiting to move to their home regions.
    pub waiting: u64,
    /// How long the oldest of them has waited, in seconds.
    pub oldest_secs: Option<u64>,
}

/// How long `canvass regions` waits for each region.
const ASK_REGION: std::time::Duration = std::time::Duration::from_secs(10);

/// Every region of the installation, asked in turn.
pub async fn regions(stores: &Stores) -> Result<Vec<RegionReport>, AdminError> {
    if !stores.residency.regions.named() {
        return Err(AdminError::Invalid(
            "this installation has no regions file (CANVASS_REGIONS_FILE): it is one region".into(),
        ));
    }
    let mut reports = Vec::new();
    for region in stores.residency.regions.all() {
        let asked = async {
            let there = stores.in_region(&region.name).await?;
            let (mut waiting, mut oldest) = (0, None::<std::time::Duration>);
            for tenant in there.residency.hosted.tenants().await? {
                let (count, age) = there.answering.queues.transfer_backlog(&tenant).await?;
                waiting += count;
                oldest = oldest.max(age);
            }
            Ok::<_, StoreError>((waiting, oldest))
        };
        let (unreachable, waiting, oldest) = match tokio::time::timeout(ASK_REGION, asked).await {
            Ok(Ok((waiting, oldest))) => (None, waiting, oldest),
            Ok(Err(error)) => (Some(crate::telemetry::error_chain(&error)), 0, None),
            Err(_) => (
                Some(format!("no answer within {}s", ASK_REGION.as_secs())),
                0,
                None,
            ),
        };
        reports.push(RegionReport {
            name: region.name.to_string(),
            label: region.label.clone(),
            public_url: region.public_url.clone(),
            here: stores.residency.regions.is_here(&region.name),
            unreachable,
            waiting,
            oldest_secs: oldest.map(|age| age.as_secs()),
        });
    }
    Ok(reports)
}

/// A message in the poison queue.
#[derive(Debug, Serialize)]
pub struct PoisonEntry {
    /// The message id.
    pub id: String,
    /// Times it has been received.
    pub dequeue_count: u32,
    /// What it carries, in short.
    pub content: String,
}

/// How long an operator command holds messages it only looks at.
const LOOK: Duration = Duration::from_secs(30);

async fn receive_all(stores: &Stores) -> Result<Vec<Received>, AdminError> {
    let mut all = Vec::new();
    loop {
        let batch = stores
            .answering
            .queues
            .receive(stores.answering.queues.poison(), 32, LOOK)
            .await?;
        if batch.is_empty() {
            return Ok(all);
        }
        all.extend(batch);
    }
}

fn describe(received: &Received) -> String {
    match &received.content {
        Ok(message @ AnswerMessage::Answer { .. }) => {
            let (survey, reference) = message.addressee();
            format!("answer {reference} to {survey}")
        }
        Ok(message @ AnswerMessage::Pointer { .. }) => {
            let (survey, reference) = message.addressee();
            format!("oversized answer {reference} to {survey}")
        }
        Ok(message @ AnswerMessage::Stored { .. }) => {
            let (survey, reference) = message.addressee();
            format!("answer {reference} to {survey}, moved from another region")
        }
        Err(reason) => format!("unreadable: {reason}"),
    }
}

/// The messages in the poison queue; they stay there.
pub async fn poison_list(stores: &Stores) -> Result<Vec<PoisonEntry>, AdminError> {
    let held = receive_all(stores).await?;
    let entries = held
        .iter()
        .map(|received| PoisonEntry {
            id: received.message.id.clone(),
            dequeue_count: received.message.dequeue_count,
            content: describe(received),
        })
        .collect();
    for received in &held {
        stores.answering.queues.release(received).await?;
    }
    Ok(entries)
}

/// Moves every readable poison message back to its tenant's queue; returns how many moved
/// and how many stayed (unreadable).
pub async fn poison_requeue(stores: &Stores) -> Result<(usize, usize), AdminError> {
    let (mut moved, mut stayed) = (0, 0);
    for received in receive_all(stores).await? {
        let addressed = received.content.as_ref().ok().map(|message| {
            let (survey, _) = message.addressee();
            survey
        });
        let Some(survey) = addressed else {
            stores.answering.queues.release(&received).await?;
            stayed += 1;
            continue;
        };
        let subscription = stores
            .catalog
            .tenants
            .get(&survey.tenant)
            .await?
            .map_or(Subscription::Standard, |t| t.subscription);
        let queue = stores
            .answering
            .queues
            .queue_for(&survey.tenant, &survey.slug, subscription)
            .clone();
        stores.answering.queues.requeue(&received, &queue).await?;
        moved += 1;
    }
    Ok((moved, stayed))
}

/// The stores of region `name` (a tenant's home to be), or this process's without a name.
pub async fn home_region(stores: &Stores, name: Option<&str>) -> Result<Stores, AdminError> {
    let Some(name) = name else {
        return Ok(stores.clone());
    };
    let known = crate::domain::region::RegionName::parse(name)
        .ok()
        .filter(|name| stores.residency.regions.get(name).is_some());
    match known {
        Some(region) => Ok(stores.in_region(&region).await?),
        None if !stores.residency.regions.named() => Err(AdminError::Invalid(format!(
            "--region {name}: this installation has no regions file (CANVASS_REGIONS_FILE)"
        ))),
        None => Err(AdminError::Invalid(format!(
            "--region {name} is not one of the installation's regions ({})",
            stores
                .residency
                .regions
                .all()
                .map(|region| region.name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ))),
    }
}

/// Creates a tenant (without an owner account) and an API key for it; returns the key.
pub async fn create_tenant(
    stores: &Stores,
    slug: &str,
    name: &str,
    subscription: Subscription,
) -> Result<String, AdminError> {
    let slug = TenantSlug::parse(slug).map_err(|error| AdminError::Invalid(error.to_string()))?;
    let name = name.trim();
    if name.is_empty() || name.chars().count() > 100 {
        return Err(AdminError::Invalid(
            "a tenant's name has 1 to 100 characters".into(),
        ));
    }
    let tenant = crate::domain::Tenant {
        slug: slug.clone(),
        name: name.to_owned(),
        subscription,
        created: time::OffsetDateTime::now_utc(),
        owner: None,
        time_zone: None,
        branding: Default::default(),
    };
    if crate::service::tenants::taken_elsewhere(&crate::service::App::new(stores.clone()), &slug)
        .await?
        || !stores.catalog.tenants.create(&tenant).await?
    {
        return Err(AdminError::Invalid(format!(
            "the tenant {slug} already exists"
        )));
    }
    let (key, _) = stores
        .membership
        .api_keys
        .create(&slug, "created by canvass tenant create", None)
        .await?;
    Ok(key)
}

/// Invites `email` to the tenant as `role` (`canvass member invite`); returns the link's
/// token, which the operator hands on.
pub async fn invite(
    stores: &Stores,
    tenant: &str,
    email: &str,
    role: crate::domain::member::Role,
) -> Result<String, AdminError> {
    let slug = TenantSlug::parse(tenant)
        .map_err(|_| AdminError::NotFound(format!("no tenant {tenant}")))?;
    let tenant = stores
        .catalog
        .tenants
        .get(&slug)
        .await?
        .ok_or_else(|| AdminError::NotFound(format!("no tenant {slug}")))?;
    let email = Email::parse(email)
        .ok_or_else(|| AdminError::Invalid(format!("{email} is not an email address")))?;
    let operator = crate::service::Actor {
        tenant: &slug,
        name: OPERATOR,
    };
    crate::service::members::invite(
        &crate::service::App::new(stores.clone()),
        operator,
        &tenant,
        &email,
        role,
    )
    .await?
    .map_err(|reason| AdminError::Invalid(reason.to_string()))
}

/// Makes a password-reset link for the account with this address (`canvass member
/// reset-link`); returns its token.
pub async fn reset_link(stores: &Membership, email: &str) -> Result<String, AdminError> {
    let missing = || AdminError::NotFound(format!("no account has the address {email}"));
    let email = Email::parse(email).ok_or_else(missing)?;
    stores.accounts.get(&email).await?.ok_or_else(missing)?;
    Ok(stores.accounts.reset_link(&email).await?)
}

/// Who the audit log says acted when an operator did, from the shell.
const OPERATOR: &str = "operator";

/// Backs up the local data directory into `dest` while other processes keep using it (see
/// `storage::local::backup`), printing progress to stderr, then verifies the backup against
/// its manifest. Other backends are refused: they have their own protections.
pub async fn backup(
    settings: &crate::config::StorageSettings,
    dest: std::path::PathBuf,
) -> Result<crate::storage::local::backup::Manifest, AdminError> {
    use crate::storage::Backend;
    use crate::storage::local::backup;
    let placement = settings
        .placement()
        .map_err(|error| AdminError::Invalid(error.to_string()))?;
    let data_dir = match placement.backend {
        Backend::Local { data_dir } => data_dir,
        Backend::Azure { .. } => {
            return Err(AdminError::Invalid(
                "canvass backup copies the local data directory; on Azure Storage use the \
                 storage account's own protections instead: blob soft delete, blob versioning \
                 and point-in-time restore for block blobs, and geo-redundant storage (GRS) \
                 for a copy in another region"
                    .into(),
            ));
        }
        Backend::Memory => {
            return Err(AdminError::Invalid(
                "the memory backend keeps nothing on disk: there is nothing to back up".into(),
            ));
        }
    };
    let run = move || {
        let last = std::sync::Mutex::new((String::new(), std::time::Instant::now()));
        let progress = |file: &str, done: u64, total: u64| {
            let mut last = last.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
            // A line per file, and one a second while a large file is copied.
            if last.0 != file || last.1.elapsed().as_secs() >= 1 || done == total {
                eprintln!("  {file}: {done} of {total} pages");
                *last = (file.to_owned(), std::time::Instant::now());
            }
        };
        backup::backup(&data_dir, &dest, &progress)?;
        eprintln!("  verifying the copies against the manifest");
        backup::verify(&dest)
    };
    tokio::task::spawn_blocking(run)
        .await
        .map_err(|e| AdminError::Invalid(format!("the backup stopped: {e}")))?
        .map_err(AdminError::Backup)
}
