//! The metrics listener: `GET /metrics` on its own address (`CANVASS_METRICS_LISTEN`), apart
//! from the public port, which never serves it.

use std::net::TcpListener;
use std::sync::Arc;

use actix_web::dev::{Server, ServerHandle};
use actix_web::{App, HttpResponse, HttpServer, web};

use super::Scraped;

/// The OpenMetrics text format, which Prometheus reads.
const CONTENT_TYPE: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

async fn metrics(scraped: web::Data<Scraped>) -> HttpResponse {
    HttpResponse::Ok()
        .content_type(CONTENT_TYPE)
        .insert_header(("cache-control", "no-store"))
        .body(scraped.render().await)
}

/// A running metrics listener.
pub struct MetricsServer {
    port: u16,
    handle: ServerHandle,
}

impl MetricsServer {
    /// Binds `listen` and serves `/metrics` from `scraped` on a task of its own.
    pub fn start(listen: &str, scraped: Scraped) -> std::io::Result<Self> {
        let listener = TcpListener::bind(listen)?;
        let port = listener.local_addr()?.port();
        let scraped = web::Data::from(Arc::new(scraped));
        let server: Server = HttpServer::new(move || {
            App::new()
                .app_data(scraped.clone())
                .route("/metrics", web::get().to(metrics))
                .default_service(web::to(|| async {
                    HttpResponse::NotFound().body("only /metrics is served here\n")
                }))
        })
        // One scraper at a time is the norm: one thread is plenty.
        .workers(1)
        .disable_signals()
        .listen(listener)?
        .run();
        let handle = server.handle();
        tokio::spawn(server);
        tracing::info!(%listen, port, "metrics listening");
        Ok(Self { port, handle })
    }

    /// The port it listens on.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// Stops it (a scrape in progress finishes).
    pub async fn stop(self) {
        self.handle.stop(true).await;
    }
}
