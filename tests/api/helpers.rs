//! Starting the application for a test and talking to it over HTTP.

use canvass::startup::Application;
use canvass::storage::{self, Storage};

/// A running application on a random port, with its own storage.
pub struct TestApp {
    /// `http://127.0.0.1:PORT`
    pub address: String,
    /// The storage behind it, for inspecting what requests did.
    pub storage: Storage,
    /// A client that does not follow redirects, so tests see them.
    pub client: reqwest::Client,
}

/// Logs go to the test output only when `TEST_LOG` is set.
fn init_logs() {
    if std::env::var_os("TEST_LOG").is_some() {
        canvass::telemetry::init(&canvass::config::LogSettings {
            filter: "debug".into(),
            log_format: canvass::config::LogFormat::Text,
        });
    }
}

/// Starts the application on the in-memory adapter.
pub async fn spawn_app() -> TestApp {
    spawn_app_with(storage::memory::storage()).await
}

/// Starts the application on the given storage.
pub async fn spawn_app_with(storage: Storage) -> TestApp {
    init_logs();
    let application = Application::build_with_storage("127.0.0.1:0", storage.clone())
        .expect("the application builds");
    let address = format!("http://127.0.0.1:{}", application.port());
    tokio::spawn(application.run_until_stopped());
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .expect("a client builds");
    TestApp {
        address,
        storage,
        client,
    }
}

impl TestApp {
    /// GETs a path on the app.
    pub async fn get(&self, path: &str) -> reqwest::Response {
        self.client
            .get(format!("{}{path}", self.address))
            .send()
            .await
            .expect("the request is answered")
    }
}
