//! Input meant to hurt: spreadsheet formulas in answers, control characters, a tenant's
//! database URL aimed at the server's own network, bodies that trickle in, types changed under
//! a kept question id, and pages that could be framed.

use std::time::{Duration, Instant};

use canvass::domain::{AnswerValue, QuestionId, Subscription};
use canvass::storage;
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::export::{TestDatabase, work};
use crate::helpers::{TestApp, spawn_app, spawn_app_configured, test_settings, worker};
use crate::owner::Owner;

async fn drain(app: &TestApp) {
    let stores = app.stores().await;
    let mut worker = worker(&stores, Duration::from_secs(60));
    while let canvass::worker::StepOutcome::BatchDone { .. } = worker.step().await.expect("a step")
    {
    }
}

#[tokio::test]
async fn answers_that_a_spreadsheet_would_run_arrive_in_the_csv_as_text() {
    let app = spawn_app().await;
    let owner = Owner::signed_up(&app, "Acme", "acme", "owner@acme.test").await;
    let key = app.api_key("acme").await;
    let definition = json!({"title": "Formulas", "questions": [
        {"text": "=HYPERLINK(\"x\")", "type": "short_text"},
        {"text": "Pick", "type": "single_choice", "options": ["@SUM(A1)", "Plain"]}]});
    let survey = app.published_survey(&key, definition).await;
    let (text_id, pick_id) = (
        survey["questions"][0]["id"]
            .as_str()
            .expect("id")
            .to_owned(),
        survey["questions"][1]["id"]
            .as_str()
            .expect("id")
            .to_owned(),
    );
    // (Leading tabs and carriage returns are trimmed off answers; the unit test covers them.)
    for value in ["=1+1", "+44 20 7946 0000", "-2+3", "@handle", "fine"] {
        let response = app
            .answer(
                "acme",
                "formulas",
                &[(&text_id, value), (&pick_id, "@SUM(A1)")],
            )
            .await;
        assert_eq!(response.status(), 303, "{value:?}");
    }
    drain(&app).await;

    let csv = owner.get("/tenant/surveys/formulas/responses.csv").await;
    assert_eq!(csv.status(), 200);
    let text = csv.text().await.expect("a body");
    let mut reader = csv::Reader::from_reader(text.as_bytes());
    let header: Vec<String> = reader
        .headers()
        .expect("a header")
        .iter()
        .map(str::to_owned)
        .collect();
    assert!(header[3].starts_with("'=HYPERLINK"), "{header:?}");
    let mut cells: Vec<(String, String)> = reader
        .records()
        .map(|record| {
            let record = record.expect("a row");
            (record[3].to_owned(), record[4].to_owned())
        })
        .collect();
    cells.sort();
    assert_eq!(
        cells,
        [
            ("'+44 20 7946 0000".to_owned(), "'@SUM(A1)".to_owned()),
            ("'-2+3".to_owned(), "'@SUM(A1)".to_owned()),
            ("'=1+1".to_owned(), "'@SUM(A1)".to_owned()),
            ("'@handle".to_owned(), "'@SUM(A1)".to_owned()),
            ("fine".to_owned(), "'@SUM(A1)".to_owned()),
        ]
    );
}

#[tokio::test]
async fn control_characters_are_refused_in_answers_and_definitions() {
    let app = spawn_app().await;
    let response = app
        .answer(
            "demo",
            "customer-satisfaction",
            &[
                ("overall", "4"),
                ("drink", "Tea"),
                ("comments", "nul\u{0}here"),
            ],
        )
        .await;
    assert_eq!(response.status(), 422);
    assert!(
        response
            .text()
            .await
            .expect("a body")
            .contains("invisible control characters"),
        "the message is at the field"
    );
    let kept = app
        .answer(
            "demo",
            "customer-satisfaction",
            &[
                ("overall", "4"),
                ("drink", "Tea"),
                ("comments", "tab\there\r\nnew line"),
            ],
        )
        .await;
    assert_eq!(kept.status(), 303, "tabs and line breaks are fine");

    let key = app.api_tenant("acme").await;
    let definition = json!({"title": "Bad\u{7}", "questions": [
        {"text": "Q\u{1b}", "type": "single_choice", "options": ["A", "B\u{0}"]}]});
    let (status, refused) = app
        .api(
            reqwest::Method::POST,
            "/api/v1/surveys",
            &key,
            Some(definition),
        )
        .await;
    assert_eq!(status, 422, "{refused}");
    assert!(refused["fields"]["title"].as_str().is_some(), "{refused}");
    assert!(
        refused["fields"]["questions[0].text"].as_str().is_some(),
        "{refused}"
    );
}

#[tokio::test]
async fn an_answer_stored_with_a_nul_before_the_rule_still_exports() {
    let db = TestDatabase::create().await;
    let app = spawn_app().await;
    let stores = app.stores().await;
    let demo = crate::helpers::demo_survey(&stores).await;
    let mut answer = crate::helpers::demo_answer(&demo, 300_000, 0);
    let comments = QuestionId::parse("comments").expect("an id");
    answer
        .values
        .insert(comments, AnswerValue::Text("before\u{0}after".into()));
    stores
        .answering
        .queues
        .submit(&answer, Subscription::Standard)
        .await
        .expect("queued as an older version would have");
    drain(&app).await;
    let job = stores
        .operations
        .exports
        .request(&demo)
        .await
        .expect("requested");

    work(&app, &db.url).await;

    let job = crate::helpers::export_job(&stores, &job).await;
    assert_eq!(job.error, None);
    assert_eq!(job.exported, 1);
    let stored: String = sqlx::query_scalar(
        "select text from canvass.answer where reference = 300000 and question = 'comments'",
    )
    .fetch_one(&mut db.connect().await)
    .await
    .expect("the row");
    assert_eq!(stored, "before\u{FFFD}after");
}

/// Posts a database URL on the settings page; the status and the page.
async fn set_database(owner: &Owner<'_>, url: &str) -> (u16, String) {
    let csrf = owner.csrf("/tenant/settings").await;
    let response = owner
        .post(
            "/tenant/settings",
            &[
                ("csrf", &csrf),
                ("export_database_url", url),
                ("action", "save"),
            ],
        )
        .await;
    let status = response.status().as_u16();
    (status, response.text().await.expect("a body"))
}

#[tokio::test]
async fn tenants_cannot_set_their_own_database_unless_the_operator_allows_its_host() {
    let app = spawn_app().await;
    let owner = Owner::signed_up(&app, "Acme", "acme", "owner@acme.test").await;
    let settings = owner.page("/tenant/settings").await;
    assert!(settings.contains("not set up on this server"), "{settings}");
    assert!(
        !settings.contains(r#"name="export_database_url""#),
        "no form to fill in"
    );
    let (status, page) =
        set_database(&owner, "postgres://postgres:pw@127.0.0.1:5432/postgres").await;
    assert_eq!(status, 422);
    assert!(page.contains("not allowed tenants"), "{page}");

    let mut configured = test_settings();
    configured.worker.export_allowed_hosts = "db.example.test".into();
    let app = spawn_app_configured(storage::memory::storage(), configured).await;
    let owner = Owner::signed_up(&app, "Acme", "acme", "owner@acme.test").await;
    for url in [
        "postgres://postgres:pw@127.0.0.1:5432/postgres",
        "postgres://postgres:pw@localhost/postgres",
        "postgres://postgres:pw@db.example.test/x?host=/var/run/postgresql",
        "postgres://postgres:pw@%2Fvar%2Frun%2Fpostgresql/postgres",
        "postgres://postgres@db.example.test/x",
    ] {
        let started = Instant::now();
        let (status, page) = set_database(&owner, url).await;
        assert_eq!(status, 422, "{url}");
        assert!(
            page.contains("Canvass cannot use this database"),
            "{url}: {page}"
        );
        assert!(
            started.elapsed() < Duration::from_secs(2),
            "{url} was refused without connecting"
        );
    }
}

#[tokio::test]
async fn a_failed_connection_says_only_that_it_failed() {
    let mut configured = test_settings();
    configured.worker.export_allowed_hosts = "127.0.0.1".into();
    let app = spawn_app_configured(storage::memory::storage(), configured).await;
    let owner = Owner::signed_up(&app, "Acme", "acme", "owner@acme.test").await;

    let (status, page) = set_database(&owner, "postgres://nobody:pw@127.0.0.1:1/none").await;

    assert_eq!(status, 422);
    assert!(
        page.contains("Canvass could not connect to this database."),
        "{page}"
    );
    for detail in ["refused", "os error", "127.0.0.1:1", ":pw@"] {
        assert!(!page.contains(detail), "{detail} leaked: {page}");
    }
}

#[tokio::test]
async fn a_saved_database_no_longer_allowed_is_refused_when_the_export_runs() {
    let app = spawn_app().await;
    let stores = app.stores().await;
    let demo = crate::helpers::demo_survey(&stores).await;
    // Saved while the operator allowed it; the worker's rule allows nothing now.
    stores
        .catalog
        .settings
        .change(&demo.tenant, |settings| {
            settings.export_database_url =
                Some("postgres://postgres:pw@127.0.0.1:5432/postgres".into());
        })
        .await
        .expect("saved");
    let job = stores
        .operations
        .exports
        .request(&demo)
        .await
        .expect("requested");
    let mut worker = worker(&stores, Duration::from_secs(60));

    worker.step().await.expect("a step");

    crate::helpers::assert_export_failed(&stores, &job, "not allowed tenants").await;
}

#[tokio::test]
async fn a_body_that_trickles_in_is_answered_408_in_the_configured_time() {
    let mut settings = test_settings();
    settings.body_timeout_secs = 1;
    let app = spawn_app_configured(storage::memory::storage(), settings).await;
    let address = app.address.trim_start_matches("http://").to_owned();
    let mut stream = tokio::net::TcpStream::connect(&address)
        .await
        .expect("connected");
    let head = format!(
        "POST /s/demo/customer-satisfaction HTTP/1.1\r\nHost: {address}\r\n\
         Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 1000\r\n\r\ntoken=abc"
    );
    let started = Instant::now();
    stream.write_all(head.as_bytes()).await.expect("sent");

    let mut reply = vec![0; 4096];
    let read = tokio::time::timeout(Duration::from_secs(10), stream.read(&mut reply))
        .await
        .expect("answered before the test gave up")
        .expect("read");

    let reply = String::from_utf8_lossy(&reply[..read]);
    assert!(reply.starts_with("HTTP/1.1 408"), "{reply}");
    assert!(
        started.elapsed() >= Duration::from_millis(900),
        "it waited the time set"
    );
}

#[tokio::test]
async fn the_api_refuses_a_new_type_under_a_kept_question_id() {
    let app = spawn_app().await;
    let key = app.api_tenant("acme").await;
    let created = app
        .create_survey(
            &key,
            json!({"title": "T", "questions": [{"text": "How many?", "type": "numeric"}]}),
        )
        .await;
    let id = created["questions"][0]["id"].as_str().expect("an id");

    let (status, refused) = app
        .api(
            reqwest::Method::PUT,
            "/api/v1/surveys/t",
            &key,
            Some(json!({"title": "T", "questions": [{"id": id, "text": "How many?", "type": "short_text"}]})),
        )
        .await;

    assert_eq!(status, 422, "{refused}");
    assert!(
        refused["fields"]["questions[0].type"]
            .as_str()
            .is_some_and(|m| m.contains("cannot change")),
        "{refused}"
    );
}

#[tokio::test]
async fn tenant_pages_are_never_framed_or_cached_and_surveys_may_be_embedded() {
    let app = spawn_app().await;
    let owner = Owner::new(&app);
    let signed_up = owner.sign_up("Acme", "acme", "owner@acme.test").await;
    assert_eq!(signed_up.status(), 303);
    let key = app.api_tenant("other").await;
    for response in [
        owner.get("/tenant").await,
        owner.get("/tenant/sign-in").await,
        app.get("/tenant/sign-up").await,
    ] {
        let headers = response.headers();
        let policy = headers["content-security-policy"].to_str().expect("ascii");
        assert!(policy.contains("frame-ancestors 'none'"), "{policy}");
        assert!(policy.contains("default-src 'self'"), "{policy}");
        assert_eq!(headers["x-content-type-options"], "nosniff");
        assert_eq!(headers["cache-control"], "no-store");
        assert!(headers.contains_key("referrer-policy"));
    }
    let api = app
        .client
        .get(format!("{}/api/v1/surveys", app.address))
        .bearer_auth(&key)
        .send()
        .await
        .expect("answered");
    assert_eq!(api.headers()["cache-control"], "no-store");
    for path in [
        "/",
        "/s/demo",
        "/s/demo/customer-satisfaction",
        "/no-such-page",
    ] {
        let response = app.get(path).await;
        let policy = response.headers()["content-security-policy"]
            .to_str()
            .expect("ascii")
            .to_owned();
        assert!(policy.contains("frame-ancestors *"), "{path}: {policy}");
        assert_eq!(
            response.headers()["x-content-type-options"],
            "nosniff",
            "{path}"
        );
    }
}
