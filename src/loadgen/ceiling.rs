//! The ceiling: a trivial actix-web POST handler that parses the form and hands it to a task
//! through a channel, which is all a handler could do with no storage at all.

use actix_web::dev::ServerHandle;
use actix_web::{App, HttpResponse, HttpServer, web};
use tokio::sync::mpsc;

/// A running ceiling server.
pub(super) struct CeilingServer {
    pub(super) url: String,
    handle: ServerHandle,
}

impl CeilingServer {
    pub(super) async fn stop(self) {
        self.handle.stop(true).await;
    }
}

async fn accept(
    form: web::Form<Vec<(String, String)>>,
    sink: web::Data<mpsc::UnboundedSender<Vec<(String, String)>>>,
) -> HttpResponse {
    // The receiver only drains; a closed channel just means the run is over.
    let _ = sink.send(form.into_inner());
    HttpResponse::Ok().finish()
}

pub(super) async fn start() -> std::io::Result<CeilingServer> {
    let (sink, mut drain) = mpsc::unbounded_channel::<Vec<(String, String)>>();
    tokio::spawn(async move { while drain.recv().await.is_some() {} });
    let sink = web::Data::new(sink);
    let server = HttpServer::new(move || {
        App::new()
            .app_data(sink.clone())
            .route("/", web::post().to(accept))
    })
    .bind("127.0.0.1:0")?;
    let address = server.addrs()[0];
    let server = server.run();
    let handle = server.handle();
    tokio::spawn(server);
    Ok(CeilingServer {
        url: format!("http://{address}/"),
        handle,
    })
}
