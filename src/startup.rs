//! Builds the application from settings: opens storage and the stores, seeds the demo, binds
//! the listener and mounts the sites.

use std::future::Future;
use std::net::TcpListener;
use std::sync::Arc;
use std::time::Duration;

use actix_web::dev::Server;
use actix_web::middleware::{Condition, from_fn};
use actix_web::{App, HttpServer, web};
use tracing_actix_web::TracingLogger;

use crate::config::{BackendSettings, ServeSettings, StorageKind, StorageSettings};
use crate::demo::{DemoError, Welcome};
use crate::metrics::Scraped;
use crate::metrics::listener::MetricsServer;
use crate::storage::local::Durability;
use crate::storage::{self, Storage};
use crate::stores::{StoreError, Stores};
use crate::web::AppState;
use crate::web::health::Readiness;
use crate::web::request_log::RequestSpan;
use crate::worker::Worker;

/// How long requests in flight at shutdown may take to finish.
const SHUTDOWN_TIMEOUT: Duration = Duration::from_secs(30);

/// Why the application could not start.
#[derive(Debug, thiserror::Error)]
pub enum StartupError {
    /// Storage could not be opened.
    #[error("cannot open storage")]
    Storage(#[from] storage::Error),
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

/// Opens the storage the settings name, every write durable before it returns.
pub async fn open_storage(settings: &StorageSettings) -> Result<Storage, storage::Error> {
    open_storage_with(settings, Durability::Full).await
}

/// Opens the storage the settings name with the given durability (workers may relax it:
/// everything they write is redone from the queue if lost).
pub async fn open_storage_with(
    settings: &StorageSettings,
    durability: Durability,
) -> Result<Storage, storage::Error> {
    match settings.storage {
        StorageKind::Local => storage::local::storage_with(&settings.data_dir, durability).await,
        StorageKind::Memory => Ok(storage::memory::storage()),
        StorageKind::Azure => match &settings.azure_connection_string {
            Some(connection_string) => storage::azure::storage(connection_string).await,
            None => Err(storage::Error::InvalidArgument(
                "CANVASS_STORAGE=azure needs CANVASS_AZURE_CONNECTION_STRING".into(),
            )),
        },
    }
}

/// Opens the storage and the typed stores the settings name.
pub async fn open_stores(settings: &BackendSettings) -> Result<Stores, StartupError> {
    let storage = open_storage(&settings.storage).await?;
    Ok(Stores::open(storage, &settings.stores.settings()).await?)
}

/// Opens the stores a worker uses: on the local backend, with relaxed durability.
pub async fn open_worker_stores(settings: &BackendSettings) -> Result<Stores, StartupError> {
    let storage = open_storage_with(&settings.storage, Durability::Relaxed).await?;
    Ok(Stores::open(storage, &settings.stores.settings()).await?)
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
}

impl Application {
    /// Opens the storage named in `settings` and binds the listener.
    pub async fn build(settings: ServeSettings) -> Result<Self, StartupError> {
        // The web tier thanks respondents only once their answer is on disk: every commit of
        // its handle is fsynced (`Durability::Full`), which `file_durability` lets tests see.
        let (storage, diagnostics) = match settings.storage.storage {
            StorageKind::Local => {
                let options = storage::local::Options::with(Durability::Full);
                let (storage, diagnostics) =
                    storage::local::open(&settings.storage.data_dir, options).await?;
                (storage, Some(diagnostics))
            }
            _ => (open_storage(&settings.storage).await?, None),
        };
        let mut application = Self::build_with_storage(&settings, storage).await?;
        application.diagnostics = diagnostics;
        let mut storages = Vec::new();
        if application.worker.is_some() && settings.storage.storage == StorageKind::Local {
            // The in-process worker gets its own relaxed-durability handle on the database.
            let relaxed = open_storage_with(&settings.storage, Durability::Relaxed).await?;
            storages.push(relaxed.clone());
            let stores = Stores::open(relaxed, &settings.stores.settings()).await?;
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
        if let Some(prefix) = &settings.asset_url {
            crate::web::assets::use_asset_url(prefix);
        }
        let stores = Stores::open(storage, &settings.stores.settings()).await?;
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
        let state = web::Data::new(AppState::new(stores.clone(), settings.web()));
        let time_requests = settings.metrics.listen.is_some();
        let readiness = state.readiness.clone();
        // A span per request costs about a tenth of the submit path's CPU: only pay for it
        // when request logs are wanted (the default `info`, not `warn`).
        let log_requests = tracing::enabled!(tracing::Level::INFO);
        let server = HttpServer::new(move || {
            App::new()
                .wrap(Condition::new(
                    log_requests,
                    TracingLogger::<RequestSpan>::new(),
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
        served
    }
}
