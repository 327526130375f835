//! Builds the application from settings: opens storage and the stores, seeds the demo, binds
//! the listener and mounts the sites.

use std::future::Future;
use std::net::TcpListener;
use std::sync::Arc;
use std::time::Duration;

use actix_web::dev::Server;
use actix_web::middleware::{Condition, from_fn};
use actix_web::{App, HttpServer, web};

use crate::config::{BackendSettings, Placement, ServeSettings, StoreArgs};
use crate::demo::{DemoError, Welcome};
use crate::metrics::Scraped;
use crate::metrics::listener::MetricsServer;
use crate::regions::RegionsFileError;
use crate::storage::local::Durability;
use crate::storage::{self, Backend, Storage};
use crate::stores::{StoreError, StoreSettings, Stores};
use crate::web::AppState;
use crate::web::health::Readiness;
use crate::worker::Worker;

/// How long requests in flight at shutdown may take to finish.
const SHUTDOWN_TIMEOUT: Duration = Duration::from_secs(30);

/// Why the application could not start.
#[derive(Debug, thiserror::Error)]
pub enum StartupError {
    /// Storage could not be opened.
    #[error("cannot open storage")]
    Storage(#[from] storage::Error),
    /// The regions file cannot be used (the message names the line).
    #[error(transparent)]
    Regions(#[from] RegionsFileError),
    /// The stores could not be prepared (queues, signing key).
    #[error("cannot prepare the stores")]
    Stores(#[from] StoreError),
    /// The demo could not be made.
    #[error("cannot create the demo")]
    Demo(#[from] DemoError),
    /// The listen address could not be bound.
    #[error("cannot listen on {address}")]
    Listen {
        /// The address from the settings.
        address: String,
        /// Why binding failed.
        #[source]
        source: std::io::Error,
    },
}

/// Has the C allocator (glibc's, which SQLite uses: Rust code uses mimalloc) map every
/// allocation of 1 MiB or more on its own and unmap it when freed. SQLite builds a large
/// blob's record in memory (a 20 MiB upload briefly takes about 40 MiB there); by default glibc
/// raises its mapping threshold after the first such free, and later ones then stay in the
/// writer thread's heap for good, each blob file's writer keeping its largest write's worth.
/// Call it first thing in `main`, before any thread starts.
pub fn return_large_allocations() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets a tunable of glibc's allocator; called before any other thread
    // exists, nothing allocates concurrently.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 1 << 20);
    }
}

/// Opens the stores the settings name (their region's, with a regions file), every write
/// durable before it returns.
pub async fn open_stores(settings: &BackendSettings) -> Result<Stores, StartupError> {
    open_stores_with(settings, Durability::Full).await
}

/// Opens the stores a worker uses: on the local backend, with relaxed durability (everything
/// a worker writes is redone from the queue if lost).
pub async fn open_worker_stores(settings: &BackendSettings) -> Result<Stores, StartupError> {
    open_stores_with(settings, Durability::Relaxed).await
}

async fn open_stores_with(
    settings: &BackendSettings,
    durability: Durability,
) -> Result<Stores, StartupError> {
    let placement = settings.storage.placement()?;
    label_metrics(&placement);
    let storage = placement.backend.open(durability).await?;
    let stores = store_settings(&settings.stores, &placement);
    Ok(Stores::open(storage, &stores).await?)
}

/// With regions, labels this process's metrics with its region.
fn label_metrics(placement: &Placement) {
    if let Some(here) = placement.regions.here() {
        crate::telemetry::metrics::label_region(here.as_str());
    }
}

/// The stores' tuning, in the placement's regions.
fn store_settings(args: &StoreArgs, placement: &Placement) -> StoreSettings {
    StoreSettings {
        regions: placement.regions.clone(),
        ..args.settings()
    }
}

/// A built, bound, not yet running application.
pub struct Application {
    port: u16,
    server: Server,
    demo: Option<Welcome>,
    worker: Option<Worker>,
    readiness: Arc<Readiness>,
    shutdown_delay: Duration,
    metrics: Option<MetricsServer>,
    stores: Stores,
    /// The web tier's local storage handle, to ask how it writes (`None` on other backends).
    diagnostics: Option<storage::local::Diagnostics>,
    /// Drop-off counts the pages make, merged into storage now and then.
    funnel: Arc<crate::web::funnel::FunnelCounter>,
}

impl Application {
    /// Opens the storage named in `settings` and binds the listener.
    pub async fn build(settings: ServeSettings) -> Result<Self, StartupError> {
        // The web tier thanks respondents only once their answer is on disk: every commit of
        // its handle is fsynced (`Durability::Full`), which `file_durability` lets tests see.
        let placement = settings.storage.placement()?;
        label_metrics(&placement);
        let (storage, diagnostics) = match &placement.backend {
            Backend::Local { data_dir } => {
                let options = storage::local::Options::with(Durability::Full);
                let (storage, diagnostics) = storage::local::open(data_dir, options).await?;
                (storage, Some(diagnostics))
            }
            other => (other.open(Durability::Full).await?, None),
        };
        let mut application = Self::build_in(&settings, storage, &placement).await?;
        application.diagnostics = diagnostics;
        let mut storages = Vec::new();
        let local = matches!(placement.backend, Backend::Local { .. });
        if application.worker.is_some() && local {
            // The in-process worker gets its own relaxed-durability handle on the database.
            let relaxed = placement.backend.open(Durability::Relaxed).await?;
            storages.push(relaxed.clone());
            let mut stores =
                Stores::open(relaxed, &store_settings(&settings.stores, &placement)).await?;
            // An answer the web tier queues still wakes this worker at once.
            stores
                .answering
                .queues
                .wake_with(&application.stores.answering.queues);
            application.worker = Some(Worker::new(stores, settings.worker.settings()));
        }
        if let Some(listen) = &settings.metrics.listen {
            let scraped = Scraped::new(application.stores.clone(), storages);
            application.metrics =
                Some(MetricsServer::start(listen, scraped).map_err(|source| {
                    StartupError::Listen {
                        address: listen.clone(),
                        source,
                    }
                })?);
        }
        Ok(application)
    }

    /// Serves from the given storage (tests hand in a memory storage or a temp directory).
    pub async fn build_with_storage(
        settings: &ServeSettings,
        storage: Storage,
    ) -> Result<Self, StartupError> {
        let placement = settings.storage.placement()?;
        Self::build_in(settings, storage, &placement).await
    }

    /// Serves from `storage`, in the placement's regions.
    async fn build_in(
        settings: &ServeSettings,
        storage: Storage,
        placement: &Placement,
    ) -> Result<Self, StartupError> {
        if let Some(prefix) = &settings.asset_url {
            crate::web::assets::use_asset_url(prefix);
        }
        let stores = Stores::open(storage, &store_settings(&settings.stores, placement)).await?;
        let worker =
            (!settings.no_worker).then(|| Worker::new(stores.clone(), settings.worker.settings()));
        let demo = match settings.demo {
            true => crate::demo::seed(&stores, settings.demo_responses).await?,
            false => None,
        };
        let listen_error = |source| StartupError::Listen {
            address: settings.listen.clone(),
            source,
        };
        let listener = TcpListener::bind(&settings.listen).map_err(listen_error)?;
        let port = listener.local_addr().map_err(listen_error)?.port();
        let state = web::Data::new(AppState::new(
            crate::service::App::new(stores.clone()),
            settings.web(),
        ));
        let time_requests = settings.metrics.listen.is_some();
        let readiness = state.readiness.clone();
        let funnel = state.funnel.clone();
        // A span per request costs about a tenth of the submit path's CPU: only pay for it
        // when request logs are wanted (the default `info`, not `warn`).
        let log_requests = tracing::enabled!(tracing::Level::INFO);
        let server = HttpServer::new(move || {
            App::new()
                .wrap(Condition::new(
                    log_requests,
                    from_fn(crate::web::request_log::log),
                ))
                .wrap(crate::web::headers::public())
                .wrap(Condition::new(
                    time_requests,
                    from_fn(crate::metrics::http::record),
                ))
                .app_data(state.clone())
                .configure(crate::web::routes)
        })
        // The process stops on its own signal handling (`run_until`): first unready, then
        // no new connections, then in-flight requests finish (up to the timeout).
        .disable_signals()
        .shutdown_timeout(SHUTDOWN_TIMEOUT.as_secs())
        .listen(listener)
        .map_err(listen_error)?
        .run();
        Ok(Self {
            port,
            server,
            demo,
            worker,
            readiness,
            shutdown_delay: Duration::from_secs(settings.shutdown_delay_secs),
            metrics: None,
            stores,
            diagnostics: None,
            funnel,
        })
    }

    /// The port the application listens on.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// Each local storage file's `synchronous` setting as the web tier writes it (2 = FULL,
    /// every commit fsynced), queue file first; `None` on other backends.
    pub async fn file_durability(&self) -> Option<Vec<i64>> {
        match &self.diagnostics {
            Some(diagnostics) => diagnostics.synchronous().await.ok(),
            None => None,
        }
    }

    /// A handle that stops the server (and so its worker) from elsewhere.
    pub fn server_handle(&self) -> actix_web::dev::ServerHandle {
        self.server.handle()
    }

    /// What this start made of the demo (`None` when it existed or is turned off).
    pub fn demo_created(&self) -> Option<&Welcome> {
        self.demo.as_ref()
    }

    /// Serves (and, unless disabled, works) until the process is told to stop (Ctrl-C /
    /// SIGTERM); see `run_until`.
    pub async fn run_until_stopped(self) -> std::io::Result<()> {
        self.run_until(crate::signals::shutdown()).await
    }

    /// Serves (and, unless disabled, works) until `stop` resolves. Then `/readyz` answers 503
    /// for the shutdown delay while requests are still served (so load balancers move traffic
    /// away first), the listener closes, requests in flight finish (up to 30 s), and the
    /// worker finishes its step in progress before this returns.
    pub async fn run_until(
        self,
        stop: impl Future<Output = ()> + Send + 'static,
    ) -> std::io::Result<()> {
        let (worker_stop, worker_stopped) = tokio::sync::oneshot::channel::<()>();
        let worker = self.worker.map(|worker| {
            tokio::spawn(worker.run(async move {
                let _ = worker_stopped.await;
            }))
        });
        let (funnel_stop, funnel_stopped) = tokio::sync::watch::channel(false);
        let funnel = self.funnel.clone();
        let app = crate::service::App::new(self.stores.clone());
        let counting = tokio::spawn(async move { funnel.run(app, funnel_stopped).await });
        let handle = self.server.handle();
        let (readiness, delay) = (self.readiness, self.shutdown_delay);
        let stopper = tokio::spawn(async move {
            stop.await;
            readiness.stop();
            tracing::info!(
                delay_secs = delay.as_secs(),
                "stopping: unready now, new connections refused after the delay"
            );
            tokio::time::sleep(delay).await;
            handle.stop(true).await;
        });
        let served = self.server.await;
        stopper.abort();
        if let Some(metrics) = self.metrics {
            metrics.stop().await;
        }
        let _ = worker_stop.send(());
        if let Some(worker) = worker {
            let _ = worker.await;
        }
        // The pages' last counts, merged once no request can add to them.
        let _ = funnel_stop.send(true);
        let _ = counting.await;
        served
    }
}
