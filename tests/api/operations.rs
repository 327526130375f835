//! Running it for real, as an operator sees it: metrics on their own listener in `serve` and
//! `canvass worker`, `/readyz` for load balancers, and a stop that finishes what is in flight.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crate::helpers::{CanvassProcess, answer_demo, token_in};
use crate::storage::azure::connection_string;

const SURVEY: &str = "/s/demo/customer-satisfaction";

pub(crate) fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .expect("a free port")
        .port()
}

fn client() -> reqwest::Client {
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .pool_max_idle_per_host(0)
        .build()
        .expect("a client")
}

/// GETs `/metrics` from a metrics port, waiting for the listener to come up.
pub(crate) async fn scrape(port: u16) -> String {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        match client()
            .get(format!("http://127.0.0.1:{port}/metrics"))
            .send()
            .await
        {
            Ok(response) => {
                assert_eq!(response.status(), 200);
                let kind = response.headers()["content-type"]
                    .to_str()
                    .expect("ascii")
                    .to_owned();
                assert!(kind.starts_with("application/openmetrics-text"), "{kind}");
                let text = response.text().await.expect("a body");
                assert!(text.ends_with("# EOF\n"), "a whole exposition");
                return text;
            }
            Err(error) => {
                assert!(Instant::now() < deadline, "no metrics listener: {error}");
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        }
    }
}

/// The sum of the samples of `metric` whose labels contain every one of `labels`.
fn sum(text: &str, metric: &str, labels: &[&str]) -> f64 {
    text.lines()
        .filter(|line| !line.starts_with('#'))
        .filter_map(|line| line.rsplit_once(' '))
        .filter(|(series, _)| {
            let (name, rest) = series.split_once('{').unwrap_or((series, ""));
            name == metric && labels.iter().all(|label| rest.contains(label))
        })
        .map(|(_, value)| value.parse::<f64>().expect("a number"))
        .sum()
}

#[tokio::test]
async fn serve_and_worker_publish_metrics_on_their_own_listener_only() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let (serve_port, worker_port) = (free_port(), free_port());
    let serve_listen = format!("127.0.0.1:{serve_port}");
    let server = CanvassProcess::serve(
        dir.path(),
        &[
            ("CANVASS_NO_WORKER", "true"),
            ("CANVASS_METRICS_LISTEN", &serve_listen),
        ],
    );
    let public = client()
        .get(format!("{}/metrics", server.address))
        .send()
        .await
        .expect("answered");
    assert_eq!(public.status(), 404, "the public port never serves metrics");
    const ANSWERS: f64 = 7.0;
    for n in 0..7 {
        answer_demo(&client(), &server.address, &(1 + n % 5).to_string()).await;
    }
    // The head of the queue has now waited at least this long.
    tokio::time::sleep(Duration::from_millis(1100)).await;

    let text = scrape(serve_port).await;
    assert_eq!(
        sum(&text, "canvass_submissions_total", &["plan=\"standard\""]),
        ANSWERS
    );
    assert_eq!(
        sum(&text, "canvass_queue_length", &["role=\"standard\""]),
        ANSWERS,
        "{text}"
    );
    assert!(
        sum(
            &text,
            "canvass_queue_oldest_message_age_seconds",
            &["role=\"standard\""]
        ) >= 1.0
    );
    for role in [
        "premium", "standard", "poison", "export", "deletion", "mail", "webhook", "segment",
    ] {
        let label = format!("role=\"{role}\"");
        assert!(
            text.lines()
                .any(|line| line.starts_with("canvass_queue_length{") && line.contains(&label)),
            "the {role} queue is reported"
        );
        assert!(
            text.lines().any(|line| {
                line.starts_with("canvass_queue_oldest_message_age_seconds{")
                    && line.contains(&label)
            }),
            "the age of the {role} queue's head is reported"
        );
    }
    let posts = [
        "route=\"/s/{tenant}/{survey}\"",
        "method=\"POST\"",
        "status=\"3xx\"",
    ];
    assert_eq!(
        sum(&text, "canvass_http_request_duration_seconds_count", &posts),
        ANSWERS
    );
    assert_eq!(
        sum(
            &text,
            "canvass_http_request_duration_seconds_bucket",
            &["le=\"+Inf\"", posts[0], posts[1], posts[2]]
        ),
        ANSWERS
    );
    assert!(
        sum(
            &text,
            "canvass_storage_transactions_total",
            &["operation=\"add\""]
        ) >= ANSWERS
    );
    assert!(sum(&text, "canvass_cache_lookups_total", &["cache=\"surveys\""]) >= ANSWERS);

    let worker = CanvassProcess::worker(
        dir.path(),
        &[(
            "CANVASS_METRICS_LISTEN",
            &format!("127.0.0.1:{worker_port}"),
        )],
    );
    let deadline = Instant::now() + Duration::from_secs(60);
    let text = loop {
        let text = scrape(worker_port).await;
        if sum(
            &text,
            "canvass_worker_answers_counted_total",
            &["plan=\"standard\""],
        ) == ANSWERS
        {
            break text;
        }
        assert!(
            Instant::now() < deadline,
            "the worker never counted them: {text}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    assert_eq!(
        sum(
            &text,
            "canvass_summary_freshness_seconds_count",
            &["plan=\"standard\""]
        ),
        ANSWERS,
        "each counted answer's wait is measured"
    );
    // Every answer waited at least the second slept above before the worker started.
    assert_eq!(
        sum(
            &text,
            "canvass_summary_freshness_seconds_bucket",
            &["le=\"1.0\"", "plan=\"standard\""]
        ),
        0.0
    );
    assert!(
        sum(
            &text,
            "canvass_worker_batches_total",
            &["plan=\"standard\""]
        ) >= 1.0
    );
    assert!(sum(&text, "canvass_worker_merge_duration_seconds_count", &[]) >= 1.0);
    assert_eq!(
        sum(&text, "canvass_submissions_total", &[]),
        0.0,
        "workers submit nothing"
    );
    let text = scrape(serve_port).await;
    assert_eq!(
        sum(&text, "canvass_queue_length", &["role=\"standard\""]),
        0.0,
        "the serve process sees the queue drained"
    );
    assert!(worker.terminate().success());
    assert!(server.terminate().success());
}

/// Sends a request's head and the first part of its body; the rest is `rest`.
fn start_request(address: &str, path: &str, body: &str) -> (TcpStream, String) {
    let host = address.trim_start_matches("http://");
    let mut stream = TcpStream::connect(host).expect("connected");
    let (first, rest) = body.split_at(body.len() / 2);
    write!(
        stream,
        "POST {path} HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/x-www-form-urlencoded\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n{first}",
        body.len()
    )
    .expect("sent");
    (stream, rest.to_owned())
}

#[tokio::test]
async fn on_sigterm_readyz_fails_first_then_the_listener_closes_and_requests_in_flight_finish() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let server = CanvassProcess::serve(dir.path(), &[("CANVASS_SHUTDOWN_DELAY_SECS", "2")]);
    let ready = client()
        .get(format!("{}/readyz", server.address))
        .send()
        .await
        .expect("answered");
    assert_eq!(ready.status(), 200);
    let form = client()
        .get(format!("{}{SURVEY}", server.address))
        .send()
        .await
        .expect("the form");
    let token = token_in(&form.text().await.expect("a body"));
    let body = format!("token={token}&q-overall=5&q-drink=Tea");
    let (mut in_flight, rest) = start_request(&server.address, SURVEY, &body);

    server.send_sigterm();
    tokio::time::sleep(Duration::from_millis(300)).await;
    let unready = client()
        .get(format!("{}/readyz", server.address))
        .send()
        .await
        .expect("still answered during the delay");
    assert_eq!(unready.status(), 503);
    let json: serde_json::Value = unready.json().await.expect("JSON");
    assert_eq!(json["reason"], "shutting down");

    // After the delay the listener is closed...
    tokio::time::sleep(Duration::from_millis(2500)).await;
    let port = server
        .address
        .rsplit(':')
        .next()
        .expect("a port")
        .to_owned();
    let address: SocketAddr = format!("127.0.0.1:{port}").parse().expect("an address");
    assert!(
        TcpStream::connect_timeout(&address, Duration::from_secs(1)).is_err(),
        "no new connections once stopping"
    );
    // ...and the request that was in flight all along still gets its answer.
    in_flight.write_all(rest.as_bytes()).expect("the rest sent");
    let mut response = String::new();
    in_flight.read_to_string(&mut response).expect("a response");
    assert!(response.starts_with("HTTP/1.1 303"), "{response}");
    let status = server.wait();
    assert!(status.success(), "{status}");
}

/// A TCP forwarder whose connections can be cut, to make storage unreachable on demand.
struct Cuttable {
    port: u16,
    cut: Arc<AtomicBool>,
    connections: Arc<std::sync::Mutex<Vec<tokio::task::JoinHandle<()>>>>,
}

impl Cuttable {
    async fn to(target: SocketAddr) -> Self {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bound");
        let port = listener.local_addr().expect("an address").port();
        let cut = Arc::new(AtomicBool::new(false));
        let connections = Arc::new(std::sync::Mutex::new(Vec::new()));
        let (is_cut, all) = (cut.clone(), connections.clone());
        tokio::spawn(async move {
            while let Ok((mut inbound, _)) = listener.accept().await {
                if is_cut.load(Ordering::SeqCst) {
                    continue; // dropped: the connection closes at once
                }
                let forward = tokio::spawn(async move {
                    if let Ok(mut outbound) = tokio::net::TcpStream::connect(target).await {
                        let _ = tokio::io::copy_bidirectional(&mut inbound, &mut outbound).await;
                    }
                });
                all.lock().expect("not poisoned").push(forward);
            }
        });
        Self {
            port,
            cut,
            connections,
        }
    }

    fn cut(&self) {
        self.cut.store(true, Ordering::SeqCst);
        for connection in self.connections.lock().expect("not poisoned").drain(..) {
            connection.abort();
        }
    }

    fn restore(&self) {
        self.cut.store(false, Ordering::SeqCst);
    }
}

/// The connection string with `name`'s endpoint sent through `port` instead.
fn through(connection: &str, name: &str, port: u16) -> (String, SocketAddr) {
    let start = connection
        .find(&format!("{name}=http://"))
        .expect("the endpoint")
        + name.len()
        + 8;
    let end = start + connection[start..].find('/').expect("a path");
    let target: SocketAddr = connection[start..end].parse().expect("host:port");
    assert!(target.ip().is_loopback(), "the emulator is local");
    let changed = format!(
        "{}127.0.0.1:{port}{}",
        &connection[..start],
        &connection[end..]
    );
    (changed, target)
}

async fn readyz_until(address: &str, status: u16) -> serde_json::Value {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let response = client()
            .get(format!("{address}/readyz"))
            .send()
            .await
            .expect("answered");
        if response.status() == status {
            return response.json().await.expect("JSON");
        }
        assert!(Instant::now() < deadline, "/readyz never answered {status}");
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
}

// The forwarders run on the runtime while starting `serve` blocks this thread.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn readyz_answers_503_while_storage_cannot_be_reached_and_200_once_it_is_back() {
    let connection = connection_string();
    // Both endpoints through forwarders that can be cut.
    let (_, blob_target) = through(&connection, "BlobEndpoint", 0);
    let (_, queue_target) = through(&connection, "QueueEndpoint", 0);
    let blobs = Cuttable::to(blob_target).await;
    let queues = Cuttable::to(queue_target).await;
    let (connection, _) = through(&connection, "BlobEndpoint", blobs.port);
    let (connection, _) = through(&connection, "QueueEndpoint", queues.port);
    let unused = tempfile::tempdir().expect("a temp dir");
    let server = CanvassProcess::serve(
        unused.path(),
        &[
            ("CANVASS_STORAGE", "azure"),
            ("CANVASS_AZURE_CONNECTION_STRING", connection.as_str()),
            ("CANVASS_NO_WORKER", "true"),
        ],
    );
    readyz_until(&server.address, 200).await;

    blobs.cut();
    queues.cut();
    let json = readyz_until(&server.address, 503).await;
    assert!(
        json["reason"]
            .as_str()
            .is_some_and(|r| r.contains("storage")),
        "{json}"
    );
    let live = client()
        .get(format!("{}/healthz", server.address))
        .send()
        .await
        .expect("answered");
    assert_eq!(live.status(), 200, "liveness does not depend on storage");

    blobs.restore();
    queues.restore();
    readyz_until(&server.address, 200).await;
    assert!(server.terminate().success());
}
