//! Builds the application from settings: opens storage, binds the listener, mounts the sites.

use std::net::TcpListener;

use actix_web::dev::Server;
use actix_web::{App, HttpServer, web};
use tracing_actix_web::TracingLogger;

use crate::config::{ServeSettings, StorageKind, StorageSettings};
use crate::storage::{self, Storage};

/// Why the application could not start.
#[derive(Debug, thiserror::Error)]
pub enum StartupError {
    /// Storage could not be opened.
    #[error("cannot open storage")]
    Storage(#[from] storage::Error),
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

/// Opens the storage the settings name.
pub async fn open_storage(settings: &StorageSettings) -> Result<Storage, storage::Error> {
    match settings.storage {
        StorageKind::Local => storage::local::storage(&settings.data_dir).await,
        StorageKind::Memory => Ok(storage::memory::storage()),
    }
}

/// A built, bound, not yet running application.
pub struct Application {
    port: u16,
    server: Server,
}

impl Application {
    /// Opens storage and binds the listener named in `settings`.
    pub async fn build(settings: ServeSettings) -> Result<Self, StartupError> {
        let storage = open_storage(&settings.storage).await?;
        Self::build_with_storage(&settings.listen, storage)
    }

    /// Binds `listen` and serves from the given storage (tests hand in a memory storage).
    pub fn build_with_storage(listen: &str, storage: Storage) -> Result<Self, StartupError> {
        let listen_error = |source| StartupError::Listen {
            address: listen.to_owned(),
            source,
        };
        let listener = TcpListener::bind(listen).map_err(listen_error)?;
        let port = listener.local_addr().map_err(listen_error)?.port();
        let storage = web::Data::new(storage);
        let server = HttpServer::new(move || {
            App::new()
                .wrap(TracingLogger::default())
                .app_data(storage.clone())
                .configure(crate::web::routes)
        })
        .listen(listener)
        .map_err(listen_error)?
        .run();
        Ok(Self { port, server })
    }

    /// The port the application listens on.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// Serves until the process is told to stop (Ctrl-C / SIGTERM).
    pub async fn run_until_stopped(self) -> std::io::Result<()> {
        self.server.await
    }
}
