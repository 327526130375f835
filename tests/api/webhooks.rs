//! Webhooks against a real receiver on this machine (its host allowed, as the operator
//! would): registration and its refusals, Standard Webhooks signatures that verify, retries
//! with the same `webhook-id` until the receiver takes it, a delivery a dead worker held
//! made again, test events, and removal.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use actix_web::{App, HttpRequest, HttpResponse, HttpServer, web};
use base64::Engine;
use hmac::{Hmac, Mac};
use serde_json::{Value, json};
use sha2::Sha256;

use canvass::storage;
use canvass::stores::Stores;
use canvass::stores::webhooks::DeliveryMessage;
use canvass::worker::StepOutcome;
use canvass::worker::deliveries::{DeliverySettings, step};

use crate::helpers::{TestApp, spawn_app_configured, test_settings, worker};

/// What the receiver got: each request's `webhook-id`, timestamp, signature and body.
pub type Received = Arc<Mutex<Vec<(String, String, String, String)>>>;

/// A receiver on 127.0.0.1 answering each request with the next status of `script` (200
/// once it runs out).
pub async fn receiver(script: Vec<u16>) -> (String, Received) {
    let received: Received = Arc::default();
    let script = Arc::new(Mutex::new(VecDeque::from(script)));
    let (got, statuses) = (received.clone(), script.clone());
    let server = HttpServer::new(move || {
        let (got, statuses) = (got.clone(), statuses.clone());
        App::new().route(
            "/hook",
            web::post().to(move |request: HttpRequest, body: web::Bytes| {
                let (got, statuses) = (got.clone(), statuses.clone());
                async move {
                    let header = |name: &str| {
                        request
                            .headers()
                            .get(name)
                            .and_then(|v| v.to_str().ok())
                            .unwrap_or("")
                            .to_owned()
                    };
                    got.lock().expect("the log").push((
                        header("webhook-id"),
                        header("webhook-timestamp"),
                        header("webhook-signature"),
                        String::from_utf8_lossy(&body).into_owned(),
                    ));
                    let status = statuses
                        .lock()
                        .expect("the script")
                        .pop_front()
                        .unwrap_or(200);
                    HttpResponse::build(
                        actix_web::http::StatusCode::from_u16(status).expect("a status"),
                    )
                    .finish()
                }
            }),
        )
    })
    .workers(1)
    .bind("127.0.0.1:0")
    .expect("a free port");
    let port = server.addrs()[0].port();
    tokio::spawn(server.run());
    (format!("http://127.0.0.1:{port}/hook"), received)
}

/// `POST /api/v1/webhooks` with `url`: the status and the answer.
async fn register(app: &TestApp, key: &str, url: &str) -> (u16, Value) {
    app.api(
        reqwest::Method::POST,
        "/api/v1/webhooks",
        key,
        Some(json!({ "url": url })),
    )
    .await
}

async fn app_allowing_this_machine() -> TestApp {
    let mut settings = test_settings();
    settings.worker.webhook_allowed_hosts = "127.0.0.1".into();
    spawn_app_configured(storage::memory::storage(), settings).await
}

/// Delivery settings for tests: retries after a few milliseconds.
fn quick() -> DeliverySettings {
    DeliverySettings {
        allowed: canvass::outbound::AllowedHosts::parse("127.0.0.1"),
        timeout: Duration::from_secs(2),
        retry_scale: 0.001,
        ..DeliverySettings::default()
    }
}

/// Makes deliveries until the receiver has `count` requests (or 10 s pass).
async fn deliver_until(stores: &Stores, received: &Received, count: usize) {
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while received.lock().expect("the log").len() < count {
        assert!(
            std::time::Instant::now() < deadline,
            "deliveries did not arrive"
        );
        step(&stores.operations, &quick())
            .await
            .expect("a delivery step");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

fn verifies(secret: &str, id: &str, timestamp: &str, signature: &str, body: &str) -> bool {
    let key = base64::engine::general_purpose::STANDARD
        .decode(secret.trim_start_matches("whsec_"))
        .expect("a base64 secret");
    let mut mac = Hmac::<Sha256>::new_from_slice(&key).expect("a key");
    mac.update(format!("{id}.{timestamp}.{body}").as_bytes());
    let expected = base64::engine::general_purpose::STANDARD.encode(mac.finalize().into_bytes());
    signature == format!("v1,{expected}")
}

#[tokio::test]
async fn while_workers_are_paused_no_delivery_is_made_and_once_released_it_is() {
    let app = app_allowing_this_machine().await;
    let key = app.api_tenant("acme").await;
    let (url, received) = receiver(vec![]).await;
    assert_eq!(register(&app, &key, &url).await.0, 201);
    app.published_survey(
        &key,
        json!({"title": "Held", "questions": [{"id": "x", "text": "X?", "type": "short_text"}]}),
    )
    .await;
    assert_eq!(
        app.answer("acme", "held", &[("x", "one")]).await.status(),
        303
    );
    let stores = app.stores().await;
    crate::helpers::drain(&stores).await;
    stores.operations.control.pause().await.expect("paused");
    let settings = canvass::worker::WorkerSettings {
        deliveries: quick(),
        idle: canvass::worker::idle::Backoff::new(
            Duration::from_millis(50),
            Duration::from_millis(200),
        ),
        ..canvass::worker::WorkerSettings::default()
    };
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let running = tokio::spawn(
        canvass::worker::Worker::new(stores.clone(), settings).run(async {
            let _ = stopped.await;
        }),
    );
    tokio::time::sleep(Duration::from_secs(2)).await;
    assert!(
        received.lock().expect("the log").is_empty(),
        "a delivery was made while paused"
    );
    stores.operations.control.resume().await.expect("resumed");
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while received.lock().expect("the log").is_empty() {
        assert!(
            std::time::Instant::now() < deadline,
            "not delivered once released"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let _ = stop.send(());
    running.await.expect("the worker stops");
}

#[tokio::test]
async fn a_counted_response_is_delivered_signed_and_retried_with_the_same_id_until_taken() {
    let app = app_allowing_this_machine().await;
    let key = app.api_tenant("acme").await;
    let (url, received) = receiver(vec![500, 500]).await;

    // Refusals first: plain http to a host not allowed, internal addresses, not a URL.
    for (bad, why) in [
        ("http://example.com/hook", "use https"),
        ("https://10.0.0.7/hook", "internal address"),
        ("https://169.254.169.254/latest", "internal address"),
        ("ftp://example.com/x", "not a URL"),
    ] {
        let (status, body) = register(&app, &key, bad).await;
        assert_eq!(status, 422, "{bad}: {body}");
        assert!(
            body["error"].as_str().expect("a reason").contains(why),
            "{bad}: {body}"
        );
    }
    let (status, made) = register(&app, &key, &url).await;
    assert_eq!(status, 201, "{made}");
    let secret = made["secret"]
        .as_str()
        .expect("the secret, once")
        .to_owned();
    let id = made["id"].as_str().expect("an id").to_owned();
    let (_, listed) = app
        .api(reqwest::Method::GET, "/api/v1/webhooks", &key, None)
        .await;
    assert_eq!(listed["webhooks"][0]["id"], id.as_str());
    assert!(
        listed["webhooks"][0].get("secret").is_none(),
        "shown once only"
    );

    let survey = app
        .published_survey(
            &key,
            json!({"title": "Visit", "questions": [{"text": "Say", "type": "short_text"}]}),
        )
        .await;
    let question = survey["questions"][0]["id"]
        .as_str()
        .expect("an id")
        .to_owned();
    let response = app.answer("acme", "visit", &[(&question, "Lovely")]).await;
    let reference =
        crate::helpers::reference_in(response.headers()["location"].to_str().expect("ascii"));
    let stores = app.stores().await;
    let mut worker = worker(&stores, Duration::from_secs(60));
    while let StepOutcome::BatchDone { .. } = worker.step().await.expect("a step") {}

    // 500, 500, then 200: three attempts, one webhook-id, each signed.
    deliver_until(&stores, &received, 3).await;
    let got = received.lock().expect("the log").clone();
    assert_eq!(got.len(), 3);
    for (webhook_id, timestamp, signature, body) in &got {
        assert_eq!(webhook_id, &got[0].0, "the same webhook-id on every retry");
        assert!(
            verifies(&secret, webhook_id, timestamp, signature, body),
            "{signature}"
        );
        let event: Value = serde_json::from_str(body).expect("JSON");
        assert_eq!(event["type"], "response.counted");
        assert_eq!(event["data"]["reference"], reference);
        assert_eq!(
            event["data"]["values"][&question]["text"], "Lovely",
            "{event}"
        );
    }
    // Nothing more is sent once it is taken.
    step(&stores.operations, &quick()).await.expect("a step");
    assert_eq!(received.lock().expect("the log").len(), 3);
    let log = stores
        .operations
        .webhooks
        .log(
            &canvass::domain::TenantSlug::parse("acme").expect("a slug"),
            &id,
        )
        .await
        .expect("the log");
    let outcomes: Vec<(&str, Option<u16>)> =
        log.iter().map(|d| (d.outcome.as_str(), d.status)).collect();
    assert_eq!(
        outcomes,
        [
            ("delivered", Some(200)),
            ("will retry", Some(500)),
            ("will retry", Some(500))
        ]
    );

    // A test event, then the endpoint removed.
    let path = format!("/api/v1/webhooks/{id}/test");
    let (status, _) = app.api(reqwest::Method::POST, &path, &key, None).await;
    assert_eq!(status, 202);
    deliver_until(&stores, &received, 4).await;
    let (_, _, _, body) = received.lock().expect("the log")[3].clone();
    assert_eq!(
        serde_json::from_str::<Value>(&body).expect("JSON")["type"],
        "test"
    );
    let path = format!("/api/v1/webhooks/{id}");
    let (status, _) = app.api(reqwest::Method::DELETE, &path, &key, None).await;
    assert_eq!(status, 204);
    let (status, _) = app.api(reqwest::Method::DELETE, &path, &key, None).await;
    assert_eq!(status, 404);
}

#[tokio::test]
async fn a_delivery_a_dead_worker_held_is_made_once_it_reappears() {
    let app = app_allowing_this_machine().await;
    let key = app.api_tenant("acme").await;
    let (url, received) = receiver(vec![]).await;
    let (status, made) = register(&app, &key, &url).await;
    assert_eq!(status, 201, "{made}");
    let id = made["id"].as_str().expect("an id");
    let (status, _) = app
        .api(
            reqwest::Method::POST,
            &format!("/api/v1/webhooks/{id}/test"),
            &key,
            None,
        )
        .await;
    assert_eq!(status, 202);
    let stores = app.stores().await;
    // A worker takes the delivery and dies before making it: the message stays hidden...
    let held = stores
        .operations
        .webhooks
        .queue()
        .receive_many::<DeliveryMessage>(8, Duration::from_millis(500))
        .await
        .expect("received");
    assert_eq!(held.len(), 1);
    drop(held);
    assert_eq!(
        step(&stores.operations, &quick()).await.expect("a step"),
        0,
        "hidden meanwhile"
    );
    // ...and comes back to the next worker once its visibility timeout passes.
    tokio::time::sleep(Duration::from_millis(600)).await;
    deliver_until(&stores, &received, 1).await;
}

#[tokio::test]
async fn without_the_operators_leave_internal_addresses_and_plain_http_are_refused() {
    let app = crate::helpers::spawn_app().await;
    let key = app.api_tenant("acme").await;
    for bad in [
        "http://127.0.0.1:9/hook",
        "https://127.0.0.1/hook",
        "https://[::1]/hook",
    ] {
        let (status, body) = register(&app, &key, bad).await;
        assert_eq!(status, 422, "{bad}: {body}");
    }
}

#[tokio::test]
async fn owners_add_see_and_remove_webhooks_on_the_site() {
    let app = crate::helpers::spawn_app().await;
    let owner = crate::owner::Owner::signed_up(&app, "Acme", "acme", "a@acme.test").await;
    let csrf = owner.csrf("/tenant/webhooks").await;
    let refused = owner
        .post(
            "/tenant/webhooks",
            &[("csrf", &csrf), ("url", "http://hooks.example.com/canvass")],
        )
        .await;
    assert_eq!(refused.status(), 422);
    let page = refused.text().await.expect("a page");
    assert!(page.contains("use https"), "{page}");
    assert!(
        page.contains("value=\"http://hooks.example.com/canvass\""),
        "kept as typed"
    );
    let forged = owner
        .post(
            "/tenant/webhooks",
            &[("url", "https://hooks.example.com/canvass")],
        )
        .await;
    assert_eq!(forged.status(), 403);
    let added = owner
        .post(
            "/tenant/webhooks",
            &[
                ("csrf", &csrf),
                ("url", "https://hooks.example.com/canvass"),
            ],
        )
        .await;
    assert_eq!(added.status(), 200);
    let page = added.text().await.expect("a page");
    assert!(page.contains("whsec_"), "the secret, once: {page}");
    let again = owner.page("/tenant/webhooks").await;
    assert!(!again.contains("whsec_"), "never shown again");
    assert!(again.contains("https://hooks.example.com/canvass"));
    let id = again
        .split("/tenant/webhooks/")
        .nth(1)
        .and_then(|rest| rest.split('/').next())
        .expect("an endpoint id")
        .to_owned();
    let removed = owner
        .post(&format!("/tenant/webhooks/{id}/remove"), &[("csrf", &csrf)])
        .await;
    assert_eq!(removed.status(), 303);
    let page = owner.page("/tenant/webhooks").await;
    assert!(page.contains("Webhook removed"), "{page}");
    assert!(!page.contains("https://hooks.example.com/canvass"));
}

#[tokio::test]
async fn a_delivery_failing_for_24_hours_is_given_up_and_its_endpoint_disabled_with_the_reason() {
    let app = app_allowing_this_machine().await;
    let key = app.api_tenant("acme").await;
    let (url, received) = receiver(vec![503]).await;
    let (_, made) = register(&app, &key, &url).await;
    let id = made["id"].as_str().expect("an id").to_owned();
    let stores = app.stores().await;
    let tenant = canvass::domain::TenantSlug::parse("acme").expect("a slug");
    // As if it had been failing since yesterday, with a delivery first tried then.
    let yesterday = time::OffsetDateTime::now_utc() - time::Duration::hours(25);
    let mut endpoints = stores
        .operations
        .webhooks
        .list(&tenant)
        .await
        .expect("read");
    endpoints[0].failing_since = Some(yesterday);
    stores
        .operations
        .storage
        .blobs
        .put(
            "webhooks/acme.json",
            serde_json::to_vec(&endpoints).expect("JSON").into(),
            canvass::storage::PutMode::Overwrite,
        )
        .await
        .expect("written");
    stores
        .operations
        .webhooks
        .queue()
        .send(&DeliveryMessage {
            tenant: tenant.clone(),
            endpoint: id.clone(),
            webhook_id: "msg_old".into(),
            event: "test".into(),
            body: "{}".into(),
            body_blob: None,
            first: yesterday,
            attempts: 12,
        })
        .await
        .expect("queued");
    deliver_until(&stores, &received, 1).await;
    let log = stores
        .operations
        .webhooks
        .log(&tenant, &id)
        .await
        .expect("the log");
    assert_eq!(
        (log[0].outcome.as_str(), log[0].status),
        ("given up", Some(503))
    );
    let (_, listed) = app
        .api(reqwest::Method::GET, "/api/v1/webhooks", &key, None)
        .await;
    let why = listed["webhooks"][0]["disabled"]
        .as_str()
        .expect("disabled, with why");
    assert!(
        why.contains("failed for 24 hours") && why.contains("HTTP 503"),
        "{why}"
    );
    assert_eq!(
        stores
            .operations
            .webhooks
            .queue()
            .waiting()
            .await
            .expect("length"),
        0,
        "not retried"
    );
}

/// A survey with one long text question, an endpoint at a receiver, and two answers: one of
/// 70,000 characters (its delivery too big for a queue message) and one short.
async fn a_big_and_a_small_answer(app: &TestApp) -> (String, String, Received, String, u64, u64) {
    let key = app.api_tenant("acme").await;
    let (url, received) = receiver(vec![]).await;
    let (status, made) = register(app, &key, &url).await;
    assert_eq!(status, 201, "{made}");
    let secret = made["secret"].as_str().expect("a secret").to_owned();
    let survey = app
        .published_survey(
            &key,
            json!({"title": "Visit", "questions": [{"text": "Tell us", "type": "long_text"}]}),
        )
        .await;
    let question = survey["questions"][0]["id"]
        .as_str()
        .expect("an id")
        .to_owned();
    let long = "word ".repeat(14_000);
    let reference = |response: reqwest::Response| {
        crate::helpers::reference_in(response.headers()["location"].to_str().expect("ascii"))
    };
    let big = reference(app.answer("acme", "visit", &[(&question, &long)]).await);
    let small = reference(app.answer("acme", "visit", &[(&question, "Short")]).await);
    (key, secret, received, question, big, small)
}

#[tokio::test]
async fn a_big_answer_is_delivered_whole_through_a_blob_and_the_blob_is_removed() {
    let app = app_allowing_this_machine().await;
    let (key, secret, received, question, big, small) = a_big_and_a_small_answer(&app).await;
    let stores = app.stores().await;
    let mut worker = worker(&stores, Duration::from_secs(60));
    while let StepOutcome::BatchDone { poisoned, .. } = worker.step().await.expect("a step") {
        assert_eq!(poisoned, 0);
    }
    deliver_until(&stores, &received, 2).await;
    let got = received.lock().expect("the log").clone();
    let mut references = Vec::new();
    for (webhook_id, timestamp, signature, body) in &got {
        assert!(verifies(&secret, webhook_id, timestamp, signature, body));
        let event: Value = serde_json::from_str(body).expect("JSON");
        let text = event["data"]["values"][&question]["text"]
            .as_str()
            .expect("a text");
        references.push((
            event["data"]["reference"].as_u64().expect("a reference"),
            text.len(),
        ));
    }
    references.sort_unstable();
    let mut expected = vec![(big, "word ".repeat(14_000).trim_end().len()), (small, 5)];
    expected.sort_unstable();
    assert_eq!(references, expected, "both delivered, the big one whole");
    let (_, summary) = app
        .api(
            reqwest::Method::GET,
            "/api/v1/surveys/visit/summary",
            &key,
            None,
        )
        .await;
    assert_eq!(summary["total"], 2);
    let left = stores
        .operations
        .scan("webhook-bodies/", None)
        .await
        .expect("a listing");
    assert!(
        left.keys.is_empty(),
        "delivered bodies are removed: {:?}",
        left.keys
    );
}

#[tokio::test]
async fn one_answer_whose_webhook_cannot_be_queued_never_holds_up_another() {
    // Every body blob fails to write: the big answer's delivery cannot be queued.
    let base = storage::memory::storage();
    let mut settings = test_settings();
    settings.worker.webhook_allowed_hosts = "127.0.0.1".into();
    let app = spawn_app_configured(
        crate::faults::FailingWrites::around(&base, "webhook-bodies/"),
        settings,
    )
    .await;
    let (key, _, received, _, big, small) = a_big_and_a_small_answer(&app).await;
    let stores = app.stores().await;
    let mut worker = worker(&stores, Duration::from_millis(300));
    let StepOutcome::BatchDone {
        received: taken,
        failed,
        poisoned,
        ..
    } = worker.step().await.expect("a step")
    else {
        panic!("a batch");
    };
    assert_eq!(
        (taken, failed, poisoned),
        (2, 1, 0),
        "one held back, none poisoned"
    );
    // The small answer is counted and delivered; the big one is counted, and its message
    // waits to be tried again (counted once, whatever happens to its webhook).
    deliver_until(&stores, &received, 1).await;
    let got = received.lock().expect("the log").clone();
    let event: Value = serde_json::from_str(&got[0].3).expect("JSON");
    assert_eq!(event["data"]["reference"], small);
    let (_, summary) = app
        .api(
            reqwest::Method::GET,
            "/api/v1/surveys/visit/summary",
            &key,
            None,
        )
        .await;
    assert_eq!(summary["total"], 2);
    tokio::time::sleep(Duration::from_millis(400)).await;
    let StepOutcome::BatchDone {
        received: again,
        duplicates,
        ..
    } = worker.step().await.expect("a step")
    else {
        panic!("the held answer comes back");
    };
    assert_eq!(
        (again, duplicates),
        (1, 1),
        "only the big answer ({big}) comes back"
    );
    let (_, summary) = app
        .api(
            reqwest::Method::GET,
            "/api/v1/surveys/visit/summary",
            &key,
            None,
        )
        .await;
    assert_eq!(summary["total"], 2, "and it is not counted twice");
}

#[tokio::test]
async fn an_anonymous_surveys_answers_are_announced_by_no_webhook() {
    let app = app_allowing_this_machine().await;
    let key = app.api_tenant("acme").await;
    let (url, received) = receiver(Vec::new()).await;
    let (status, made) = register(&app, &key, &url).await;
    assert_eq!(status, 201, "{made}");
    for (title, anonymous) in [("Named", false), ("Unnamed", true)] {
        app.published_survey(
            &key,
            json!({"title": title, "anonymous": anonymous,
                   "questions": [{"id": "say", "text": "Say", "type": "short_text"}]}),
        )
        .await;
        let slug = title.to_lowercase();
        let sent = app.answer("acme", &slug, &[("say", "Hello")]).await;
        assert_eq!(sent.status(), 303);
    }
    let stores = app.stores().await;
    let mut worker = worker(&stores, Duration::from_secs(60));
    while let StepOutcome::BatchDone { .. } = worker.step().await.expect("a step") {}
    deliver_until(&stores, &received, 1).await;
    // Whatever is left to deliver is delivered: still one.
    while step(&stores.operations, &quick()).await.expect("a step") > 0 {}
    let got = received.lock().expect("the log").clone();
    assert_eq!(got.len(), 1, "{got:?}");
    let body: Value = serde_json::from_str(&got[0].3).expect("JSON");
    assert_eq!(body["data"]["survey"], "named", "{body}");
}
