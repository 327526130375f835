//! Exports to a real PostgreSQL (the server on 127.0.0.1:5432, or the one `scripts/test`
//! starts; `CANVASS_TEST_DATABASE_URL` names it). Each test makes its own database and drops it.

use canvass::domain::{AnswerValue, QuestionId, Subscription};
use canvass::worker::{StepOutcome, Worker, WorkerSettings};
use serde_json::Value;
use sqlx::{Connection, PgConnection};

use crate::helpers::{TestApp, demo_answer, spawn_app};

/// A database of this test's own, dropped when the test ends.
pub struct TestDatabase {
    admin: String,
    name: String,
    pub url: String,
}

impl TestDatabase {
    pub async fn create() -> Self {
        let admin = std::env::var("CANVASS_TEST_DATABASE_URL")
            .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/postgres".into());
        let name = format!("canvass_test_{}", uuid::Uuid::new_v4().simple());
        let mut connection = PgConnection::connect(&admin).await.unwrap_or_else(|error| {
            panic!("PostgreSQL at {admin} is needed for export tests: {error}")
        });
        sqlx::raw_sql(sqlx::AssertSqlSafe(format!("create database {name}")))
            .execute(&mut connection)
            .await
            .expect("the test database is created");
        let url = match admin.rsplit_once('/') {
            Some((server, _)) => format!("{server}/{name}"),
            None => panic!("{admin} names no database"),
        };
        Self { admin, name, url }
    }

    /// A connection to the test database.
    pub async fn connect(&self) -> PgConnection {
        PgConnection::connect(&self.url)
            .await
            .expect("connects to the test database")
    }

    /// The responses below list position `mark`, each with the transaction that wrote it.
    pub async fn rows_below(&self, mark: i64) -> Vec<(String, i64)> {
        sqlx::query_as(
            "select xmin::text, reference from canvass.response where position < $1 \
             order by reference",
        )
        .bind(mark)
        .fetch_all(&mut self.connect().await)
        .await
        .expect("read")
    }

    pub async fn count(&self, sql: &'static str) -> i64 {
        sqlx::query_scalar(sql)
            .fetch_one(&mut self.connect().await)
            .await
            .expect("counted")
    }
}

impl Drop for TestDatabase {
    fn drop(&mut self) {
        let (admin, name) = (self.admin.clone(), self.name.clone());
        // Drop in a thread with its own runtime: Drop cannot await.
        let _ = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build();
            if let Ok(runtime) = runtime {
                runtime.block_on(async {
                    if let Ok(mut connection) = PgConnection::connect(&admin).await {
                        let drop = format!("drop database if exists {name} with (force)");
                        let _ = sqlx::raw_sql(sqlx::AssertSqlSafe(drop))
                            .execute(&mut connection)
                            .await;
                    }
                });
            }
        })
        .join();
    }
}

async fn api(app: &TestApp, method: reqwest::Method, path: &str, key: &str) -> (u16, Value) {
    let response = app
        .client
        .request(method, format!("{}{path}", app.address))
        .bearer_auth(key)
        .send()
        .await
        .expect("answered");
    let status = response.status().as_u16();
    (status, response.json().await.unwrap_or(Value::Null))
}

/// Steps a worker with the export database until every queue is empty.
pub async fn work(app: &TestApp, export_url: &str) {
    let settings = WorkerSettings {
        export_database_url: Some(export_url.to_owned()),
        // Tenants of the tests may export to their own database on this machine.
        export_hosts: canvass::outbound::AllowedHosts::parse("127.0.0.1"),
        ..WorkerSettings::default()
    };
    let mut worker = Worker::new(app.stores().await, settings);
    loop {
        match worker.step().await.expect("a step") {
            StepOutcome::QueuesEmpty => return,
            StepOutcome::Paused => panic!("paused"),
            _ => {}
        }
    }
}

async fn submit(app: &TestApp, from: u64, count: u64, long: Option<&str>) {
    let stores = app.stores().await;
    let demo = crate::helpers::demo_survey(&stores).await;
    for n in from..from + count {
        let mut answer = demo_answer(&demo, 100_000 + n, n);
        if let (Some(text), 0) = (long, n % 10) {
            answer.values.insert(
                QuestionId::parse("comments").expect("id"),
                AnswerValue::Text(text.to_owned()),
            );
        }
        stores
            .answering
            .queues
            .submit(&answer, Subscription::Standard)
            .await
            .expect("queued");
    }
}

#[tokio::test]
async fn an_export_writes_every_answer_exactly_and_a_second_one_adds_only_new_answers() {
    let db = TestDatabase::create().await;
    let app = spawn_app().await;
    let key = app.api_key("demo").await;
    let long = "é".repeat(100_000);
    submit(&app, 0, 30, Some(&long)).await;
    work(&app, &db.url).await;

    let (status, requested) = api(
        &app,
        reqwest::Method::POST,
        "/api/v1/surveys/customer-satisfaction/exports",
        &key,
    )
    .await;
    assert_eq!(status, 202, "{requested}");
    assert_eq!(requested["status"], "pending");
    let id = requested["id"].as_str().expect("an id").to_owned();
    work(&app, &db.url).await;

    let (status, job) = api(
        &app,
        reqwest::Method::GET,
        &format!("/api/v1/exports/{id}"),
        &key,
    )
    .await;
    assert_eq!(
        (status, job["status"].as_str(), job["exported"].as_u64()),
        (200, Some("done"), Some(30)),
        "{job}"
    );
    assert_eq!(
        db.count("select count(*) from canvass.response where tenant = 'demo'")
            .await,
        30
    );
    let demo = crate::helpers::demo_survey(&app.stores().await).await;
    let expected_answers: i64 = (0..30)
        .map(|n| demo_answer(&demo, 0, n).values.len() as i64)
        .sum::<i64>()
        + (0..30).filter(|n| n % 10 == 0 && n % 4 != 0).count() as i64;
    assert_eq!(
        db.count("select count(*) from canvass.answer").await,
        expected_answers
    );
    assert_eq!(
        db.count("select count(*) from canvass.answer where length(text) = 100000")
            .await,
        3,
        "long texts are not cut"
    );
    assert_eq!(
        db.count("select count(*) from canvass.question where survey = 'customer-satisfaction'")
            .await,
        6
    );
    assert_eq!(
        db.count("select count(*) from canvass.option where question = 'drink'")
            .await,
        5
    );
    assert_eq!(db.count("select count(*) from canvass.answer where question = 'overall' and number between 1 and 5").await, 30);

    submit(&app, 30, 5, None).await;
    work(&app, &db.url).await;
    let (_, again) = api(
        &app,
        reqwest::Method::POST,
        "/api/v1/surveys/customer-satisfaction/exports",
        &key,
    )
    .await;
    work(&app, &db.url).await;
    let (_, second) = api(
        &app,
        reqwest::Method::GET,
        &format!("/api/v1/exports/{}", again["id"].as_str().expect("id")),
        &key,
    )
    .await;

    assert_eq!(second["status"], "done");
    assert_eq!(second["total"], 35);
    assert_eq!(
        db.count("select count(*) from canvass.response").await,
        35,
        "no duplicates, just the new ones"
    );
    assert_eq!(
        db.count("select exported_through from canvass.survey")
            .await,
        35
    );
}

/// Requests an export of the demo survey and runs it; returns the finished job.
async fn export_demo(app: &TestApp, key: &str, export_url: &str) -> Value {
    let (status, requested) = api(
        app,
        reqwest::Method::POST,
        "/api/v1/surveys/customer-satisfaction/exports",
        key,
    )
    .await;
    assert_eq!(status, 202, "{requested}");
    work(app, export_url).await;
    let id = requested["id"].as_str().expect("an id");
    api(
        app,
        reqwest::Method::GET,
        &format!("/api/v1/exports/{id}"),
        key,
    )
    .await
    .1
}

#[tokio::test]
async fn any_text_arrives_exactly_and_rows_found_already_there_are_updated_not_duplicated() {
    let db = TestDatabase::create().await;
    let app = spawn_app().await;
    let key = app.api_key("demo").await;
    // Everything COPY's text format escapes, and what array literals quote.
    let tricky = "tab\there\nnew line\r\\ back\\slash \\N {braces} \"quoted\", é 😀";
    let liked = ["say \"hi\"", "a\\b", "x,y {z}", "\\N", "tab\tin"];
    let demo = crate::helpers::demo_survey(&app.stores().await).await;
    let mut answer = demo_answer(&demo, 200_000, 0);
    let id = |text: &str| QuestionId::parse(text).expect("an id");
    answer
        .values
        .insert(id("comments"), AnswerValue::Text(tricky.to_owned()));
    // A loop's answer: a row of its own, under the question's id and its item's key.
    answer
        .values
        .insert(id("comments[o2]"), AnswerValue::Text("per item".to_owned()));
    answer.values.insert(
        id("liked"),
        AnswerValue::Choices(liked.iter().map(|s| (*s).to_owned()).collect()),
    );
    // Given through a personal link: who gave it travels as JSON.
    let team = "say \"hi\"\t\\N {x} é";
    answer.participant = Some(Box::new(canvass::domain::participant::Respondent {
        id: "0123456789abcdef".into(),
        email: "ann@example.com".into(),
        first_name: Some("Ann".into()),
        last_name: None,
        attributes: [("team".to_owned(), team.to_owned())].into(),
    }));
    // Its address's hidden fields travel as JSON too.
    let pid = "say \"hi\" \\N {x} é";
    answer.hidden =
        canvass::domain::hidden::HiddenValues::read(&["pid".to_owned()], [("pid", pid)])
            .expect("a value");
    // What the survey computed travels too: variables as JSON, score, correct, ending.
    answer.variables = [
        ("total".to_owned(), serde_json::json!(7.5)),
        ("band".to_owned(), serde_json::json!(pid)),
    ]
    .into();
    answer.score = Some(3.5);
    answer.correct = Some(2);
    answer.ending = Some("top".into());
    let stores = app.stores().await;
    stores
        .answering
        .queues
        .submit(&answer, Subscription::Standard)
        .await
        .expect("queued");
    submit(&app, 1, 4, None).await;
    work(&app, &db.url).await;

    let job = export_demo(&app, &key, &db.url).await;
    assert_eq!(job["status"], "done", "{job}");
    let read = |sql: &'static str| {
        let db = &db;
        async move {
            let mut connection = db.connect().await;
            sqlx::query_as::<_, (Option<String>, Option<Vec<String>>)>(sql)
                .fetch_one(&mut connection)
                .await
                .expect("read back")
        }
    };
    let text = "select text, null::text[] from canvass.answer where reference = 200000 and question = 'comments' and item = ''";
    let per_item = "select text, null::text[] from canvass.answer where reference = 200000 and question = 'comments' and item = 'o2'";
    let choices = "select null::text, choices from canvass.answer where reference = 200000 and question = 'liked'";
    assert_eq!(read(text).await.0.as_deref(), Some(tricky));
    assert_eq!(read(per_item).await.0.as_deref(), Some("per item"));
    let expected: Vec<String> = liked.iter().map(|s| (*s).to_owned()).collect();
    assert_eq!(read(choices).await.1, Some(expected.clone()));
    let who = "select participant->'attributes'->>'team', null::text[] from canvass.response \
               where reference = 200000";
    assert_eq!(read(who).await.0.as_deref(), Some(team));
    let hidden =
        "select hidden->>'pid', null::text[] from canvass.response where reference = 200000";
    assert_eq!(read(hidden).await.0.as_deref(), Some(pid));
    let band =
        "select variables->>'band', null::text[] from canvass.response where reference = 200000";
    assert_eq!(read(band).await.0.as_deref(), Some(pid));
    let outcome = "select concat_ws('/', variables->>'total', score, correct, ending), null::text[] \
                   from canvass.response where reference = 200000";
    assert_eq!(read(outcome).await.0.as_deref(), Some("7.5/3.5/2/top"));
    assert_eq!(
        db.count("select count(*) from canvass.response where variables is null and score is null and correct is null and ending is null")
            .await,
        4,
        "the others computed nothing"
    );
    assert_eq!(
        db.count("select count(*) from canvass.response where hidden is null")
            .await,
        4,
        "the others' addresses carried none"
    );
    assert_eq!(
        db.count("select count(*) from canvass.response where participant is null")
            .await,
        4,
        "the others were not given through a link"
    );

    // Rows past the progress mark that are there already (say, restored by hand) are
    // updated in place rather than failing the export or doubling.
    sqlx::query("update canvass.survey set exported_through = 0")
        .execute(&mut db.connect().await)
        .await
        .expect("progress reset");
    sqlx::query("update canvass.answer set text = 'changed' where question = 'comments'")
        .execute(&mut db.connect().await)
        .await
        .expect("text changed");
    sqlx::query("update canvass.response set participant = null")
        .execute(&mut db.connect().await)
        .await
        .expect("participant forgotten");
    let again = export_demo(&app, &key, &db.url).await;
    assert_eq!(again["status"], "done", "{again}");
    assert_eq!(db.count("select count(*) from canvass.response").await, 5);
    assert_eq!(
        db.count("select count(*) from canvass.answer where reference = 200000")
            .await,
        answer.values.len() as i64
    );
    assert_eq!(read(text).await.0.as_deref(), Some(tricky));
    assert_eq!(read(per_item).await.0.as_deref(), Some("per item"));
    assert_eq!(read(choices).await.1, Some(expected));
    assert_eq!(read(who).await.0.as_deref(), Some(team));
    assert_eq!(
        db.count("select exported_through from canvass.survey")
            .await,
        5
    );
}

#[tokio::test]
async fn tenants_exporting_into_one_database_keep_to_their_own_rows() {
    let db = TestDatabase::create().await;
    let app = spawn_app().await;
    let other = crate::helpers::survey("other", "customer-satisfaction", "Same slug", Vec::new());
    let other_survey = other.survey_ref();
    app.add_tenant("other", Subscription::Standard, &[other])
        .await;
    let (demo_key, other_key) = (app.api_key("demo").await, app.api_key("other").await);
    submit(&app, 0, 12, None).await;
    let stores = app.stores().await;
    for n in 0..5 {
        let mut answer = demo_answer(&other_survey, 200_000 + n, n);
        answer.tenant = canvass::domain::TenantSlug::parse("other").expect("slug");
        stores
            .answering
            .queues
            .submit(&answer, Subscription::Standard)
            .await
            .expect("queued");
    }
    work(&app, &db.url).await;

    api(
        &app,
        reqwest::Method::POST,
        "/api/v1/surveys/customer-satisfaction/exports",
        &demo_key,
    )
    .await;
    let (_, others) = api(
        &app,
        reqwest::Method::POST,
        "/api/v1/surveys/customer-satisfaction/exports",
        &other_key,
    )
    .await;
    work(&app, &db.url).await;

    assert_eq!(
        db.count("select count(*) from canvass.response where tenant = 'demo'")
            .await,
        12
    );
    assert_eq!(
        db.count("select count(*) from canvass.response where tenant = 'other'")
            .await,
        5
    );
    assert_eq!(
        db.count(
            "select count(*) from canvass.response where tenant = 'other' and reference < 200000"
        )
        .await,
        0,
        "no demo answer was written under the other tenant"
    );
    assert_eq!(
        db.count("select count(*) from canvass.answer a join canvass.response r using (tenant, survey, reference)")
            .await,
        db.count("select count(*) from canvass.answer").await,
        "every answer row belongs to a response of its own tenant"
    );
    assert_eq!(db.count("select count(*) from canvass.survey").await, 2);
    let (status, _) = api(
        &app,
        reqwest::Method::GET,
        &format!("/api/v1/exports/{}", others["id"].as_str().expect("id")),
        &demo_key,
    )
    .await;
    assert_eq!(status, 404, "one tenant cannot read another's export job");
}

#[tokio::test]
async fn an_unreachable_database_fails_the_job_with_a_readable_reason() {
    let app = spawn_app().await;
    let key = app.api_key("demo").await;
    let (_, job) = api(
        &app,
        reqwest::Method::POST,
        "/api/v1/surveys/customer-satisfaction/exports",
        &key,
    )
    .await;

    work(&app, "postgres://postgres@127.0.0.1:1/nowhere").await;

    let (_, failed) = api(
        &app,
        reqwest::Method::GET,
        &format!("/api/v1/exports/{}", job["id"].as_str().expect("id")),
        &key,
    )
    .await;
    assert_eq!(failed["status"], "failed");
    let reason = failed["error"].as_str().expect("a reason");
    assert!(
        reason == "could not connect to the export database",
        "{reason}"
    );
}

#[tokio::test]
async fn the_csv_download_has_a_header_of_texts_an_optional_row_of_ids_and_one_row_per_response() {
    let app = spawn_app().await;
    submit(&app, 0, 3, None).await;
    let stores = app.stores().await;
    let mut worker = crate::helpers::worker(&stores, std::time::Duration::from_secs(60));
    while let StepOutcome::BatchDone { .. } = worker.step().await.expect("a step") {}
    let survey = stores
        .catalog
        .surveys
        .get(
            &canvass::domain::TenantSlug::parse("demo").unwrap(),
            &canvass::domain::SurveySlug::parse("customer-satisfaction").unwrap(),
        )
        .await
        .expect("read")
        .expect("found");
    let csv = |options| {
        let (stores, survey) = (stores.clone(), survey.clone());
        async move {
            let layout = canvass::export::Layout::of(&survey);
            let chunks: Vec<bytes::Bytes> = futures_util::TryStreamExt::try_collect(
                canvass::export::csv_stream(stores, survey, layout, options),
            )
            .await
            .expect("streamed");
            String::from_utf8(chunks.concat()).expect("utf-8")
        }
    };

    let text = csv(canvass::export::SheetOptions {
        bom: false,
        ids: true,
    })
    .await;
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 5, "{text}");
    assert!(
        lines[0].starts_with(
            "Reference,Submitted (UTC),Survey version,How would you rate your visit overall?,"
        ),
        "{}",
        lines[0]
    );
    assert!(
        lines[1].starts_with("reference,submitted_at,survey_version,overall,"),
        "{}",
        lines[1]
    );
    assert!(lines[2].starts_with("100000,"));

    let marked = csv(canvass::export::SheetOptions::default()).await;
    assert!(marked.starts_with("\u{feff}Reference,"), "{marked}");
    assert_eq!(marked.lines().count(), 4);
}

#[tokio::test]
async fn a_worker_killed_mid_export_leaves_the_job_to_be_finished_by_another_exactly() {
    let db = TestDatabase::create().await;
    let dir = tempfile::tempdir().expect("a temp dir");
    let local = canvass::storage::local::storage(dir.path())
        .await
        .expect("opens");
    let stores = canvass::stores::Stores::open(local, &Default::default())
        .await
        .expect("stores");
    let big = crate::helpers::survey("demo", "customer-satisfaction", "Big", Vec::new());
    stores.catalog.surveys.save(&big).await.expect("saved");
    let answers: Vec<_> = (0..20_000)
        .map(|n| demo_answer(&big.survey_ref(), 1_000_000 + n, n))
        .collect();
    for chunk in answers.chunks(256) {
        for queued in futures_util::future::join_all(
            chunk
                .iter()
                .map(|a| stores.answering.queues.submit(a, Subscription::Standard)),
        )
        .await
        {
            queued.expect("queued");
        }
    }
    let mut drainer = crate::helpers::worker(&stores, std::time::Duration::from_secs(60));
    while let StepOutcome::BatchDone { .. } = drainer.step().await.expect("a step") {}
    let job = stores
        .operations
        .exports
        .request(&big.survey_ref())
        .await
        .expect("requested");

    let exporter = crate::helpers::CanvassProcess::worker(
        dir.path(),
        &[
            ("CANVASS_EXPORT_DATABASE_URL", db.url.as_str()),
            ("CANVASS_WORKER_VISIBILITY_SECS", "2"),
        ],
    );
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    loop {
        let seen = stores
            .operations
            .exports
            .get(&job.tenant, &job.id)
            .await
            .expect("read")
            .expect("the job");
        if seen.exported >= 1000 {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the export never started"
        );
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    }
    exporter.kill();

    let interrupted = stores
        .operations
        .exports
        .get(&job.tenant, &job.id)
        .await
        .expect("read")
        .expect("the job");
    assert!(
        interrupted.exported < 20_000,
        "the kill came too late to interrupt the export"
    );
    assert_ne!(
        interrupted.status,
        canvass::stores::exports::ExportStatus::Done,
        "never done while half-written"
    );
    // What the killed worker committed: its mark, and the rows below it with the transaction
    // that wrote each (PostgreSQL's xmin), to show the next worker resumes rather than redoes.
    let mark = db
        .count("select exported_through from canvass.survey where tenant = 'demo'")
        .await;
    assert!(
        mark > 0 && mark < 20_000,
        "a committed mark mid-way: {mark}"
    );
    let written_before = db.rows_below(mark).await;
    let settings = WorkerSettings {
        export_database_url: Some(db.url.clone()),
        visibility: std::time::Duration::from_secs(2),
        ..WorkerSettings::default()
    };
    let mut resumer = Worker::new(stores.clone(), settings);
    loop {
        if let StepOutcome::ExportDone { .. } = resumer.step().await.expect("a step") {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the export request never came back"
        );
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }

    let done = stores
        .operations
        .exports
        .get(&job.tenant, &job.id)
        .await
        .expect("read")
        .expect("the job");
    assert_eq!(
        (done.status, done.exported),
        (canvass::stores::exports::ExportStatus::Done, 20_000)
    );
    assert_eq!(
        db.count("select count(*) from canvass.response").await,
        20_000
    );
    assert_eq!(
        db.count("select count(distinct position) from canvass.response")
            .await,
        20_000
    );
    let expected_answers: i64 = answers.iter().map(|a| a.values.len() as i64).sum();
    assert_eq!(
        db.count("select count(*) from canvass.answer").await,
        expected_answers
    );
    let written_after = db.rows_below(mark).await;
    let rewritten = written_before
        .iter()
        .zip(&written_after)
        .filter(|(before, after)| before != after)
        .count();
    assert_eq!(
        (written_after.len(), rewritten),
        (written_before.len(), 0),
        "rows below the killed worker's mark ({mark}) were written again: the export restarted"
    );
}

#[tokio::test]
async fn deleted_responses_leave_the_export_at_its_next_run() {
    let db = TestDatabase::create().await;
    let app = spawn_app().await;
    let key = app.api_key("demo").await;
    submit(&app, 0, 10, None).await;
    work(&app, &db.url).await;
    export_demo(&app, &key, &db.url).await;
    assert_eq!(db.count("select count(*) from canvass.response").await, 10);

    // One exported already, one counted after the first export and deleted before the next.
    submit(&app, 10, 3, None).await;
    work(&app, &db.url).await;
    for reference in [100_003, 100_011] {
        let path = format!("/api/v1/surveys/customer-satisfaction/responses/{reference}");
        let (status, body) = api(&app, reqwest::Method::DELETE, &path, &key).await;
        assert_eq!(status, 202, "{body}");
    }
    work(&app, &db.url).await;
    let job = export_demo(&app, &key, &db.url).await;
    assert_eq!(job["status"], "done", "{job}");
    assert_eq!(db.count("select count(*) from canvass.response").await, 11);
    assert_eq!(
        db.count("select count(*) from canvass.response where reference in (100003, 100011)")
            .await,
        0
    );
    assert_eq!(
        db.count("select count(*) from canvass.answer where reference in (100003, 100011)")
            .await,
        0,
        "their answers go with them"
    );
}
