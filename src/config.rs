//! Settings, read from `CANVASS_*` environment variables or the matching command-line flags.
//! Every setting has a safe default, so `canvass serve` runs with none.

use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, ValueEnum};

use std::sync::Arc;

use crate::regions::{Regions, RegionsFileError};
use crate::storage::Backend;
use crate::stores::StoreSettings;
use crate::telemetry::LogFormat;
use crate::worker::WorkerSettings;

/// Which adapter stands behind the storage ports.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum StorageKind {
    /// SQLite files in the data directory (the embedded default).
    Local,
    /// Nothing kept: everything is gone when the process stops. For trials and tests.
    Memory,
    /// An Azure Storage account (or Azurite), shared by processes on many machines.
    Azure,
}

impl StorageSettings {
    /// The local backend in `data_dir`.
    pub fn local(data_dir: impl Into<PathBuf>) -> Self {
        Self {
            storage: StorageKind::Local,
            data_dir: data_dir.into(),
            azure_connection_string: None,
            regions_file: None,
            region: None,
        }
    }

    /// The installation's regions (read from the regions file, when one is given) and the
    /// storage this process uses: its region's, or the one the storage settings name.
    pub fn placement(&self) -> Result<Placement, RegionsFileError> {
        let regions = match (&self.regions_file, &self.region) {
            (Some(file), region) => crate::regions::load(file, region.as_deref())?,
            (None, Some(region)) => {
                return Err(RegionsFileError {
                    file: PathBuf::from("CANVASS_REGIONS_FILE"),
                    line: None,
                    problem: format!(
                        "CANVASS_REGION={region} needs a regions file naming the regions: set CANVASS_REGIONS_FILE"
                    ),
                });
            }
            (None, None) => Regions::implicit(),
        };
        let own = match self.storage {
            StorageKind::Local => Backend::Local {
                data_dir: self.data_dir.clone(),
            },
            StorageKind::Memory => Backend::Memory,
            StorageKind::Azure => Backend::Azure {
                connection_string: self.azure_connection_string.clone().unwrap_or_default(),
            },
        };
        Ok(Placement {
            backend: regions.backend_or(own),
            regions: Arc::new(regions),
        })
    }
}

/// Where a process keeps its state, and the regions around it.
#[derive(Clone, Debug)]
pub struct Placement {
    /// This process's storage.
    pub backend: Backend,
    /// The installation's regions (implicit without a regions file).
    pub regions: Arc<Regions>,
}

/// Where state lives; every command that touches storage reads the same settings.
#[derive(Clone, Args)]
pub struct StorageSettings {
    /// The storage backend.
    #[arg(long, env = "CANVASS_STORAGE", value_enum, default_value_t = StorageKind::Local)]
    pub storage: StorageKind,

    /// The data directory of the local backend.
    #[arg(long, env = "CANVASS_DATA_DIR", default_value = crate::storage::local::DEFAULT_DATA_DIR)]
    pub data_dir: PathBuf,

    /// The Azure backend's account: a standard Azure Storage connection string (Azurite's
    /// development string works unchanged). Never printed: it holds the account key.
    #[arg(long, env = "CANVASS_AZURE_CONNECTION_STRING", hide_env_values = true)]
    pub azure_connection_string: Option<String>,

    /// A TOML file naming the installation's regions, each with its storage and public
    /// address (see docs/operators.md, "Regions"). With it, this process takes its storage
    /// from its region's entry, and the three settings above are not read.
    #[arg(long, env = "CANVASS_REGIONS_FILE")]
    pub regions_file: Option<PathBuf>,

    /// The region this process runs in, one of the regions file's (not needed when the file
    /// names one region).
    #[arg(long, env = "CANVASS_REGION")]
    pub region: Option<String>,
}

impl std::fmt::Debug for StorageSettings {
    // The connection string carries the account key: never print it.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StorageSettings")
            .field("storage", &self.storage)
            .field("data_dir", &self.data_dir)
            .field(
                "azure_connection_string",
                &self.azure_connection_string.as_ref().map(|_| "***"),
            )
            .field("regions_file", &self.regions_file)
            .field("region", &self.region)
            .finish()
    }
}

/// Settings of the web server.
#[derive(Clone, Debug, Args)]
pub struct ServeSettings {
    /// Address and port to listen on (port 0 picks a free one).
    #[arg(long, env = "CANVASS_LISTEN", default_value = crate::web::DEFAULT_LISTEN)]
    pub listen: String,

    /// Largest request body accepted, in bytes; larger posts get a 413 page.
    #[arg(long, env = "CANVASS_MAX_BODY_BYTES", default_value_t = crate::web::DEFAULT_MAX_BODY_BYTES)]
    pub max_body_bytes: usize,

    /// Largest file a respondent may upload to a file question, in bytes (a question's own,
    /// smaller limit applies too).
    #[arg(long, env = "CANVASS_UPLOAD_MAX_BYTES", default_value_t = crate::web::DEFAULT_UPLOAD_MAX_BYTES)]
    pub upload_max_bytes: u64,

    /// Uploads this process reads and stores at once (more wait their turn); each holds about
    /// three times its size meanwhile (its bytes, and the row SQLite builds of them), so this
    /// times three times CANVASS_UPLOAD_MAX_BYTES bounds what uploads hold.
    #[arg(long, env = "CANVASS_UPLOAD_CONCURRENCY", default_value_t = crate::web::DEFAULT_UPLOAD_CONCURRENCY)]
    pub upload_concurrency: usize,

    /// Seconds a request body may take to arrive; a slower one gets a 408 page.
    #[arg(long, env = "CANVASS_BODY_TIMEOUT_SECS", default_value_t = crate::web::DEFAULT_BODY_TIMEOUT_SECS)]
    pub body_timeout_secs: u64,

    /// Proxies whose X-Forwarded-For header is believed (addresses or CIDR ranges, separated
    /// by commas); by default none, so the connection's own address is the client's.
    #[arg(long, env = "CANVASS_TRUSTED_PROXIES", default_value = "", value_parser = parse_proxies)]
    pub trusted_proxies: TrustedProxies,

    /// The site's address as respondents reach it (`https://surveys.example.com`), used in the
    /// survey links, QR codes and embed snippets owners share; by default the address the
    /// owner's own request came to.
    #[arg(long, env = "CANVASS_PUBLIC_URL")]
    pub public_url: Option<String>,

    /// Where browsers fetch the stylesheet and scripts from, when a CDN serves them for this
    /// server (`https://cdn.example.com`; the CDN fetches `/static/...` from here). Files are
    /// named by their content's hash, so they may be cached for ever; by default this server.
    #[arg(long, env = "CANVASS_ASSET_URL", value_parser = parse_asset_url)]
    pub asset_url: Option<String>,

    /// Hosts tenants' identity providers (single sign-on) may be on over plain http and on any
    /// address, internal ones included (names or addresses, separated by commas); by default
    /// none: https to public addresses.
    #[arg(long, env = "CANVASS_SSO_ALLOWED_HOSTS", default_value = "")]
    pub sso_allowed_hosts: String,

    /// Create the demo tenant and survey when the storage has no demo tenant yet.
    #[arg(long, env = "CANVASS_DEMO", default_value_t = true, action = clap::ArgAction::Set)]
    pub demo: bool,

    /// How many sample responses the demo survey gets when the demo is created (at most
    /// 1,000; 0 for none).
    #[arg(long, env = "CANVASS_DEMO_RESPONSES", default_value_t = crate::demo::DEFAULT_RESPONSES,
          value_parser = clap::value_parser!(u32).range(0..=i64::from(crate::demo::MAX_SAMPLE_RESPONSES)))]
    pub demo_responses: u32,

    /// Where state lives.
    #[command(flatten)]
    pub storage: StorageSettings,

    /// Caches and reference numbers.
    #[command(flatten)]
    pub stores: StoreArgs,

    /// Seconds between a stop signal (SIGTERM, Ctrl-C) and closing the listener: meanwhile
    /// `/readyz` answers 503 and requests are still served, so a load balancer can move
    /// traffic away first. Set it a little above the balancer's probe interval times its
    /// failure threshold; 0 (the default) closes at once. Requests in flight then have 30 s.
    #[arg(long, env = "CANVASS_SHUTDOWN_DELAY_SECS", default_value_t = 0,
          value_parser = clap::value_parser!(u64).range(0..=300))]
    pub shutdown_delay_secs: u64,

    /// Where metrics are served.
    #[command(flatten)]
    pub metrics: MetricsArgs,

    /// Do not run the worker in this process (run `canvass worker` processes instead).
    #[arg(long, env = "CANVASS_NO_WORKER")]
    pub no_worker: bool,

    /// How the in-process worker runs.
    #[command(flatten)]
    pub worker: WorkerArgs,
}

/// Where the process serves its metrics.
#[derive(Clone, Debug, Default, Args)]
pub struct MetricsArgs {
    /// Address and port to serve Prometheus metrics on, at `/metrics` (e.g. `0.0.0.0:9187`);
    /// off by default. Keep it off the public network: the public port never serves them.
    #[arg(
        id = "metrics_listen",
        long = "metrics-listen",
        value_name = "ADDRESS",
        env = "CANVASS_METRICS_LISTEN"
    )]
    pub listen: Option<String>,
}

/// Settings of a worker.
#[derive(Clone, Debug, Args)]
pub struct WorkerArgs {
    /// Seconds a received message stays hidden from other workers.
    #[arg(long, env = "CANVASS_WORKER_VISIBILITY_SECS", default_value_t = crate::worker::DEFAULT_VISIBILITY_SECS)]
    pub visibility_secs: u64,

    /// Receives after which a failing message moves to the poison queue.
    #[arg(long, env = "CANVASS_WORKER_MAX_DEQUEUE", default_value_t = crate::worker::DEFAULT_MAX_DEQUEUE)]
    pub max_dequeue: u32,

    /// Batches of 32 messages read per step.
    #[arg(long, env = "CANVASS_WORKER_BATCHES", default_value_t = crate::worker::DEFAULT_BATCHES_PER_STEP)]
    pub batches_per_step: usize,

    /// Seconds between attempts to run the reconcile pass.
    #[arg(long, env = "CANVASS_RECONCILE_EVERY_SECS", default_value_t = crate::worker::DEFAULT_RECONCILE_EVERY_SECS)]
    pub reconcile_every_secs: u64,

    /// PostgreSQL database that exports are written to (e.g. postgres://user@host/db).
    #[arg(long, env = "CANVASS_EXPORT_DATABASE_URL", hide_env_values = true)]
    pub export_database_url: Option<String>,

    /// Hosts a tenant's own export database may be on (names or addresses, separated by
    /// commas); by default none, so tenants cannot set their own.
    #[arg(long, env = "CANVASS_EXPORT_ALLOWED_HOSTS", default_value = "")]
    pub export_allowed_hosts: String,

    /// Hosts webhooks may reach over plain http and on any address, internal ones included
    /// (names or addresses, separated by commas); by default none: https to public addresses.
    #[arg(long, env = "CANVASS_WEBHOOK_ALLOWED_HOSTS", default_value = "")]
    pub webhook_allowed_hosts: String,

    /// The SMTP server email is sent through (`smtp://host:25`, `smtp://host:587?tls=required`,
    /// `smtps://user:pass@host:465`); by default none, and nothing is emailed.
    #[arg(long, env = "CANVASS_SMTP_URL", hide_env_values = true, value_parser = parse_smtp_url)]
    pub smtp_url: Option<String>,

    /// A certificate authority (a PEM file) to trust for the SMTP server's certificate besides
    /// the system's, for a relay whose certificate the organisation issued itself.
    #[arg(long, env = "CANVASS_SMTP_CA_FILE")]
    pub smtp_ca_file: Option<PathBuf>,

    /// The sender of email (`Canvass <surveys@example.com>`).
    #[arg(long, env = "CANVASS_MAIL_FROM", default_value = crate::mail::DEFAULT_FROM, value_parser = parse_mail_from)]
    pub mail_from: String,

    /// The site's address as links in email should carry it (`CANVASS_PUBLIC_URL`, as for
    /// `serve`); by default http://localhost:8080.
    #[arg(long = "mail-links-url", env = "CANVASS_PUBLIC_URL", hide = true)]
    pub links_url: Option<String>,

    /// Most messages a mailing to participants sends a second (1 to 10000), or 0 for as
    /// fast as the mail server takes them.
    #[arg(long, env = "CANVASS_MAILING_RATE", default_value_t = crate::worker::mailer::DEFAULT_MAILING_RATE, value_parser = clap::value_parser!(u32).range(0..=10_000))]
    pub mailing_rate: u32,

    /// The answer queues this worker takes: `premium`, `standard`, or `both` (premium first),
    /// so premium tenants can have workers of their own, scaled apart.
    #[arg(long, env = "CANVASS_WORKER_PLANS", value_enum, default_value = "both")]
    pub plans: crate::worker::Plans,

    /// Seconds a worker's claims on answer shards last without its heartbeat (written every
    /// half of this): the shards are dealt among the running workers, so one worker merges a
    /// survey's summary, and a dead worker's shards are taken over within this. 0 turns the
    /// dealing off: every worker takes every shard and races on the summaries (still exact).
    #[arg(long, env = "CANVASS_SHARD_LEASE_SECS", default_value_t = crate::worker::affinity::DEFAULT_SHARD_LEASE_SECS, value_parser = clap::value_parser!(u64).range(0..=3600))]
    pub shard_lease_secs: u64,

    /// The longest wait, in milliseconds, of a worker's loops between looks when they find
    /// nothing to do (from 250 ms, doubling): longer costs fewer storage calls when idle, and
    /// delays the first answer after a quiet spell by up to this much in a worker of another
    /// process (one in the process that queued it is woken at once).
    #[arg(long, env = "CANVASS_IDLE_POLL_MAX_MS", default_value_t = crate::worker::idle::DEFAULT_IDLE_POLL_MAX_MS, value_parser = clap::value_parser!(u64).range(250..=60_000))]
    pub idle_poll_max_ms: u64,
}

fn parse_smtp_url(url: &str) -> Result<String, String> {
    crate::mail::Sender::new(url, crate::mail::DEFAULT_FROM)
        .map(|_| url.to_owned())
        .map_err(|error| error.to_string())
}

fn parse_mail_from(from: &str) -> Result<String, String> {
    crate::mail::Sender::check_from(from).map(|()| from.to_owned())
}

/// The operator's `CANVASS_PUBLIC_URL` without a trailing slash, if set: the only address
/// links in email may carry.
pub fn configured_site(public_url: Option<&str>) -> Option<String> {
    public_url
        .map(|url| url.trim().trim_end_matches('/').to_owned())
        .filter(|url| !url.is_empty())
}

/// Says once, at start, that email is set up but cannot carry links.
fn warn_mail_without_site(smtp_url: Option<&str>, public_url: Option<&str>) {
    if smtp_url.is_some() && configured_site(public_url).is_none() {
        tracing::error!(
            "CANVASS_SMTP_URL is set but CANVASS_PUBLIC_URL is not: password resets, invitations \
             and response notices are not emailed until CANVASS_PUBLIC_URL names the site's \
             address (links in email never follow a request's Host header)"
        );
    }
}

/// The site's address for links printed on the command line: the operator's
/// `CANVASS_PUBLIC_URL`, or the default listen address.
pub fn site_address(public_url: Option<&str>) -> String {
    configured_site(public_url).unwrap_or_else(|| {
        format!(
            "http://localhost:{}",
            crate::web::DEFAULT_LISTEN
                .rsplit(':')
                .next()
                .unwrap_or("8080")
        )
    })
}

impl Default for WorkerArgs {
    fn default() -> Self {
        let defaults = WorkerSettings::default();
        Self {
            visibility_secs: defaults.visibility.as_secs(),
            max_dequeue: defaults.max_dequeue,
            batches_per_step: defaults.batches_per_step,
            reconcile_every_secs: defaults.reconcile_every.as_secs(),
            export_database_url: None,
            export_allowed_hosts: String::new(),
            webhook_allowed_hosts: String::new(),
            smtp_url: None,
            smtp_ca_file: None,
            mail_from: crate::mail::DEFAULT_FROM.into(),
            links_url: None,
            mailing_rate: crate::worker::mailer::DEFAULT_MAILING_RATE,
            plans: crate::worker::Plans::Both,
            shard_lease_secs: crate::worker::affinity::DEFAULT_SHARD_LEASE_SECS,
            idle_poll_max_ms: crate::worker::idle::DEFAULT_IDLE_POLL_MAX_MS,
        }
    }
}

impl WorkerArgs {
    /// Says, once at start, when email is set up but its links would have no address.
    pub fn warn_mail_without_site(&self) {
        warn_mail_without_site(self.smtp_url.as_deref(), self.links_url.as_deref());
    }

    /// The worker settings these arguments ask for.
    pub fn settings(&self) -> WorkerSettings {
        WorkerSettings {
            visibility: Duration::from_secs(self.visibility_secs.max(1)),
            max_dequeue: self.max_dequeue,
            batches_per_step: self.batches_per_step.max(1),
            reconcile_every: Duration::from_secs(self.reconcile_every_secs.max(1)),
            export_database_url: self.export_database_url.clone(),
            export_hosts: crate::outbound::AllowedHosts::parse(&self.export_allowed_hosts),
            deliveries: crate::worker::deliveries::DeliverySettings {
                allowed: crate::outbound::AllowedHosts::parse(&self.webhook_allowed_hosts),
                ..Default::default()
            },
            mailer: crate::worker::mailer::MailerSettings {
                sender: self.smtp_url.as_deref().and_then(|url| {
                    // Both were checked when parsed; a failure here is logged, not hidden.
                    let ca = match &self.smtp_ca_file {
                        Some(path) => match std::fs::read(path) {
                            Ok(pem) => Some(pem),
                            Err(error) => {
                                let path = path.display();
                                tracing::error!(%error, %path, "email is off: CANVASS_SMTP_CA_FILE cannot be read");
                                return None;
                            }
                        },
                        None => None,
                    };
                    crate::mail::Sender::trusting(url, &self.mail_from, ca.as_deref())
                        .inspect_err(|error| tracing::error!(%error, "email is off"))
                        .ok()
                }),
                site: configured_site(self.links_url.as_deref()),
                mailing_rate: (self.mailing_rate > 0).then_some(self.mailing_rate),
                mailing_visibility: Duration::from_secs(self.visibility_secs.max(1)),
                ..Default::default()
            },
            plans: self.plans,
            shard_lease: (self.shard_lease_secs > 0)
                .then(|| Duration::from_secs(self.shard_lease_secs)),
            idle: crate::worker::idle::Backoff::new(
                crate::worker::idle::FIRST_IDLE_WAIT,
                Duration::from_millis(self.idle_poll_max_ms),
            ),
        }
    }
}

/// Proxies whose X-Forwarded-For header is believed.
#[derive(Clone, Debug, Default)]
pub struct TrustedProxies(pub Vec<ipnet::IpNet>);

fn parse_asset_url(text: &str) -> Result<String, String> {
    let url = url::Url::parse(text)
        .map_err(|_| format!("{text:?} is not an address like https://cdn.example.com"))?;
    if !matches!(url.scheme(), "https" | "http") || url.host().is_none() || url.query().is_some() {
        return Err(format!(
            "{text:?} is not an address like https://cdn.example.com"
        ));
    }
    Ok(text.trim_end_matches('/').to_owned())
}

fn parse_proxies(list: &str) -> Result<TrustedProxies, String> {
    crate::web::client::parse_trusted(list).map(TrustedProxies)
}

impl ServeSettings {
    /// The web side's settings.
    pub fn web(&self) -> crate::web::WebSettings {
        crate::web::WebSettings {
            max_body_bytes: self.max_body_bytes,
            upload_max_bytes: self.upload_max_bytes,
            upload_concurrency: self.upload_concurrency.max(1),
            body_timeout: Duration::from_secs(self.body_timeout_secs.max(1)),
            trusted_proxies: self.trusted_proxies.0.clone(),
            export_hosts: crate::outbound::AllowedHosts::parse(&self.worker.export_allowed_hosts),
            webhook_hosts: crate::outbound::AllowedHosts::parse(&self.worker.webhook_allowed_hosts),
            server_exports: self.worker.export_database_url.is_some(),
            mail: self.worker.smtp_url.is_some(),
            sso_hosts: crate::outbound::AllowedHosts::parse(&self.sso_allowed_hosts),
            public_url: configured_site(self.public_url.as_deref()),
        }
    }

    /// The defaults, on the given storage.
    pub fn with_storage(storage: StorageSettings) -> Self {
        Self {
            listen: crate::web::DEFAULT_LISTEN.into(),
            max_body_bytes: crate::web::DEFAULT_MAX_BODY_BYTES,
            upload_max_bytes: crate::web::DEFAULT_UPLOAD_MAX_BYTES,
            upload_concurrency: crate::web::DEFAULT_UPLOAD_CONCURRENCY,
            body_timeout_secs: crate::web::DEFAULT_BODY_TIMEOUT_SECS,
            trusted_proxies: TrustedProxies::default(),
            public_url: None,
            asset_url: None,
            sso_allowed_hosts: String::new(),
            demo: true,
            demo_responses: crate::demo::DEFAULT_RESPONSES,
            storage,
            stores: StoreArgs::default(),
            shutdown_delay_secs: 0,
            metrics: MetricsArgs::default(),
            no_worker: false,
            worker: WorkerArgs::default(),
        }
    }
}

/// Tuning of the typed stores.
#[derive(Clone, Debug, Args)]
pub struct StoreArgs {
    /// Seconds a cached tenant or survey is served before it is read again; another process's
    /// change shows within this time.
    #[arg(long, env = "CANVASS_CACHE_TTL_SECS", default_value_t = crate::stores::DEFAULT_CACHE_TTL_SECS)]
    pub cache_ttl_secs: u64,

    /// How many reference numbers a process reserves with one storage write.
    #[arg(long, env = "CANVASS_REFERENCE_RANGE", default_value_t = crate::stores::DEFAULT_REFERENCE_RANGE)]
    pub reference_range: u64,

    /// How many queues the standard and the premium answers are each split over (1 to 16),
    /// past one queue's throughput. Every web and worker process must use the same number.
    #[arg(long, env = "CANVASS_QUEUE_SHARDS", default_value_t = 1,
          value_parser = clap::value_parser!(u16).range(1..=16))]
    pub queue_shards: u16,
}

impl Default for StoreArgs {
    fn default() -> Self {
        let defaults = StoreSettings::default();
        Self {
            cache_ttl_secs: defaults.cache_ttl.as_secs(),
            reference_range: defaults.reference_range,
            queue_shards: 1,
        }
    }
}

impl StoreArgs {
    /// The store settings these arguments ask for.
    pub fn settings(&self) -> StoreSettings {
        StoreSettings {
            cache_ttl: Duration::from_secs(self.cache_ttl_secs),
            reference_range: self.reference_range,
            queue_shards: usize::from(self.queue_shards),
            ..StoreSettings::default()
        }
    }
}

/// How logs are written (`crate::telemetry::LogSettings`).
#[derive(Clone, Debug, Args)]
pub struct LogArgs {
    /// Which events to log, as a tracing filter (e.g. `info`, `canvass=debug`). Lines go to
    /// stderr in batches: warnings and errors at once, after every line before them; the rest
    /// within 50 ms (a process killed outright may lose its last 50 ms of those).
    #[arg(
        long = "log",
        env = "CANVASS_LOG",
        default_value = crate::telemetry::DEFAULT_FILTER,
        global = true
    )]
    pub filter: String,

    /// Log as human-readable text or one JSON object per line (text is coloured only when
    /// stderr is a terminal; a file or a collector gets plain text).
    #[arg(long, env = "CANVASS_LOG_FORMAT", value_enum, default_value_t = LogFormat::Text, global = true)]
    pub log_format: LogFormat,
}

impl LogArgs {
    /// The log settings these arguments ask for.
    pub fn settings(&self) -> crate::telemetry::LogSettings {
        crate::telemetry::LogSettings {
            filter: self.filter.clone(),
            log_format: self.log_format,
        }
    }
}

/// Storage plus store tuning: what every command that reads or writes data needs.
#[derive(Clone, Debug, Args)]
pub struct BackendSettings {
    /// Where state lives.
    #[command(flatten)]
    pub storage: StorageSettings,

    /// Caches and reference numbers.
    #[command(flatten)]
    pub stores: StoreArgs,
}
