//! The README's smaller promises, each held by a test: a deleted survey leaves nothing behind,
//! a 100,000-character answer comes back exactly, a worker stopped by SIGTERM mid-backlog
//! leaves nothing half done, a repeated form is two messages and one answer, reordered
//! questions stay reordered, CSV cells survive a spreadsheet reader, reconcile finishes what a
//! dead worker left and waits out its grace period, answers keep the version they were given
//! to, pages past the first, CSRF on every form, and pause and resume across processes.

use std::collections::{BTreeMap, BTreeSet};
use std::fs::File;
use std::time::{Duration, Instant};

use canvass::domain::{Reference, Subscription};
use canvass::storage::local;
use canvass::stores::{StoreSettings, Stores, SummaryDoc, keys};
use canvass::worker::reconcile;
use serde_json::json;

use crate::helpers::{
    CanvassProcess, TestApp, demo_answer, demo_survey, drain, ids, spawn_app, token_in,
};
use crate::owner::{Owner, value_of};

const LONG: Duration = Duration::from_secs(60);

/// Answers a survey with the pairs given (question index, value).
async fn answer(app: &TestApp, tenant: &str, slug: &str, ids: &[String], values: &[(usize, &str)]) {
    let pairs: Vec<(&str, &str)> = values.iter().map(|(i, v)| (ids[*i].as_str(), *v)).collect();
    let response = app.answer(tenant, slug, &pairs).await;
    assert_eq!(response.status(), 303, "{values:?}");
}

#[tokio::test]
async fn deleting_a_survey_with_drained_answers_leaves_nothing_and_its_slug_starts_again_at_zero() {
    let app = spawn_app().await;
    let key = app.api_tenant("acme").await;
    let definition = json!({"title": "Team", "questions": [
        {"text": "Note", "type": "long_text", "required": true}]});
    let survey = app.published_survey(&key, definition.clone()).await;
    let question = ids(&survey);
    let big = "lovely ".repeat(12_000);
    for text in ["one", "two", big.as_str()] {
        answer(&app, "acme", "team", &question, &[(0, text)]).await;
    }
    let stores = app.stores().await;
    drain(&stores).await;
    let filed = stores
        .catalog
        .surveys
        .get(&"acme".parse_slug(), &"team".parse_survey())
        .await
        .expect("read")
        .expect("the survey")
        .survey_ref();
    // One response deleted, so the survey has a deletion record too.
    let counted = stores
        .response_page(&filed, 1, &Default::default())
        .await
        .expect("a page")
        .responses;
    let (status, _) = app
        .api(
            reqwest::Method::DELETE,
            &format!("/api/v1/surveys/team/responses/{}", counted[0].reference),
            &key,
            None,
        )
        .await;
    assert_eq!(status, 202);
    for prefix in keys::survey_data_prefixes(&filed) {
        let kept = stores.operations.scan(&prefix, None).await.expect("listed");
        // No oversized answers, no edits after publishing, no segment questions, nobody who
        // saved to continue later (`resume.rs` deletes a survey with saved progress).
        let expected_empty = prefix.starts_with(keys::INCOMING)
            || prefix.starts_with("survey-versions")
            || prefix.starts_with("segment-builds")
            || prefix.starts_with(keys::PROGRESS)
            // It keeps no partial responses (`partials.rs` deletes a survey that does).
            || prefix.starts_with(keys::PARTIALS)
            // Drop-off counts are merged every 10 s (`dropoff.rs` sweeps a deleted survey's).
            || prefix.starts_with(keys::FUNNELS)
            // No quotas (`quotas.rs` removes a quota with its places).
            || prefix.starts_with("quotas/")
            // No files (`uploads.rs` deletes a survey with files).
            || prefix.starts_with(keys::UPLOADS)
            // No participants (`participants.rs` deletes a survey with participants).
            || prefix.starts_with("participants/");
        assert_eq!(
            kept.keys.is_empty(),
            expected_empty,
            "{prefix} before the delete"
        );
    }

    let (status, _) = app
        .api(reqwest::Method::DELETE, "/api/v1/surveys/team", &key, None)
        .await;
    assert_eq!(status, 204);

    for prefix in keys::survey_data_prefixes(&filed) {
        let left = stores.operations.scan(&prefix, None).await.expect("listed");
        assert!(left.keys.is_empty(), "{prefix} still holds {:?}", left.keys);
    }
    app.published_survey(&key, definition).await;
    let (_, summary) = app
        .api(
            reqwest::Method::GET,
            "/api/v1/surveys/team/summary",
            &key,
            None,
        )
        .await;
    assert_eq!(summary["total"], 0);
    let (_, responses) = app
        .api(
            reqwest::Method::GET,
            "/api/v1/surveys/team/responses",
            &key,
            None,
        )
        .await;
    assert_eq!(responses["responses"], json!([]));
}

/// Parsing helpers for the slugs tests name.
trait Slugs {
    fn parse_slug(&self) -> canvass::domain::TenantSlug;
    fn parse_survey(&self) -> canvass::domain::SurveySlug;
}

impl Slugs for &str {
    fn parse_slug(&self) -> canvass::domain::TenantSlug {
        canvass::domain::TenantSlug::parse(self).expect("a tenant slug")
    }
    fn parse_survey(&self) -> canvass::domain::SurveySlug {
        canvass::domain::SurveySlug::parse(self).expect("a survey slug")
    }
}

#[tokio::test]
async fn a_hundred_thousand_character_answer_from_the_form_is_stored_and_read_back_exactly() {
    let app = spawn_app().await;
    let long = "x\né😀".repeat(25_000);
    let response = app
        .answer(
            "demo",
            "customer-satisfaction",
            &[("overall", "3"), ("drink", "Tea"), ("comments", &long)],
        )
        .await;
    assert_eq!(response.status(), 303);
    let stores = app.stores().await;
    drain(&stores).await;

    let key = app.api_key("demo").await;
    let (_, page) = app
        .api(
            reqwest::Method::GET,
            "/api/v1/surveys/customer-satisfaction/responses",
            &key,
            None,
        )
        .await;
    let stored = page["responses"][0]["values"]["comments"]["text"]
        .as_str()
        .expect("the text answer");
    assert_eq!(stored.chars().count(), 100_000);
    assert_eq!(stored, long, "every character, in order");
}

#[tokio::test]
async fn a_form_posted_twice_is_two_queued_messages_and_one_counted_answer() {
    let app = spawn_app().await;
    let stores = app.stores().await;
    let token = token_in(&app.form("demo", "customer-satisfaction").await);
    for _ in 0..2 {
        let answers = [("overall", "5"), ("drink", "Tea")];
        let response = app
            .submit("demo", "customer-satisfaction", &token, &answers)
            .await;
        assert_eq!(response.status(), 303);
    }
    let queues = &stores.answering.queues;
    let queue = queues.queues_for(Subscription::Standard)[0].clone();
    assert_eq!(queues.length(&queue).await.expect("length"), 2);

    drain(&stores).await;

    let demo = demo_survey(&stores).await;
    let doc = crate::helpers::summary_doc(&stores, &demo).await;
    assert_eq!((doc.summary.total, doc.list_len), (1, 1));
    assert_eq!(queues.length(&queue).await.expect("length"), 0);
}

/// Waits until `log` (a file) has a line with `text`.
async fn wait_for_line(log: &std::path::Path, text: &str) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while !std::fs::read_to_string(log)
        .unwrap_or_default()
        .contains(text)
    {
        assert!(Instant::now() < deadline, "no {text:?} in the log");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test]
async fn sigterm_while_a_backlog_drains_exits_0_and_leaves_no_message_hidden_or_uncounted() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let stores = Stores::open(
        local::storage(dir.path()).await.expect("opens"),
        &StoreSettings::default(),
    )
    .await
    .expect("stores");
    let survey = crate::helpers::survey("acme", "team", "Team", Vec::new());
    stores.catalog.surveys.save(&survey).await.expect("saved");
    const ANSWERS: u64 = 20_000;
    let answers: Vec<_> = (0..ANSWERS)
        .map(|n| demo_answer(&survey.survey_ref(), 10_000 + n, n))
        .collect();
    for chunk in answers.chunks(256) {
        let queued = chunk
            .iter()
            .map(|a| stores.answering.queues.submit(a, Subscription::Standard));
        for outcome in futures_util::future::join_all(queued).await {
            outcome.expect("queued");
        }
    }
    let log = dir.path().join("worker.log");
    let worker = CanvassProcess::worker_logging(
        dir.path(),
        &[
            ("CANVASS_LOG", "canvass=debug"),
            ("CANVASS_WORKER_BATCHES", "1"),
        ],
        File::create(&log).expect("a log file"),
    );
    wait_for_line(&log, "batch done").await;

    let status = worker.terminate();

    assert!(status.success(), "{status}");
    let queue = stores.answering.queues.queues_for(Subscription::Standard)[0].clone();
    let left = stores
        .answering
        .queues
        .length(&queue)
        .await
        .expect("length");
    assert!(
        left > 0 && left < ANSWERS,
        "stopped mid-backlog: {left} left"
    );
    let mut visible = 0;
    loop {
        let held = stores
            .answering
            .queues
            .receive(&queue, 32, LONG)
            .await
            .expect("received");
        if held.is_empty() {
            break;
        }
        visible += held.len() as u64;
    }
    assert_eq!(
        visible, left,
        "every message left is visible: none is held by the stopped worker"
    );
    let doc = stores
        .answering
        .summaries
        .read(&survey.survey_ref())
        .await
        .expect("read")
        .doc;
    assert_eq!(
        doc.summary.total,
        ANSWERS - left,
        "every deleted message was counted"
    );
    assert!(doc.recent.is_empty(), "the worker tidied on its way out");
}

#[tokio::test]
async fn a_worker_process_started_and_stopped_at_once_exits_0() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let log = dir.path().join("worker.log");
    let worker = CanvassProcess::worker_logging(
        dir.path(),
        &[("CANVASS_LOG", "canvass=info")],
        File::create(&log).expect("a log file"),
    );
    wait_for_line(&log, "worker started").await;
    assert!(worker.terminate().success());
}

#[tokio::test]
async fn questions_reordered_in_the_designer_stay_in_their_new_order_once_saved() {
    let app = spawn_app().await;
    let owner = Owner::signed_up(&app, "Acme", "acme", "a@acme.test").await;
    let slug = owner.design("Reorder me").await;
    let editor = owner.page(&format!("/tenant/surveys/{slug}")).await;
    let original: Vec<(String, String)> = (0..6)
        .map(|i| {
            (
                value_of(&editor, &format!("q{i}.id")),
                value_of(&editor, &format!("q{i}.text")),
            )
        })
        .collect();
    let mut form = vec![
        ("csrf".to_owned(), value_of(&editor, "csrf")),
        ("title".to_owned(), "Reorder me".to_owned()),
        ("count".to_owned(), "2".to_owned()),
    ];
    // The first two questions `Owner::design` makes, with their types.
    let type_of = |text: &str| {
        if text == "Comments" {
            "long_text"
        } else {
            "short_text"
        }
    };
    for (i, (id, text)) in original.iter().take(2).enumerate() {
        form.push((format!("q{i}.id"), id.clone()));
        form.push((format!("q{i}.text"), text.clone()));
        form.push((format!("q{i}.type"), type_of(text).into()));
    }
    let path = format!("/tenant/surveys/{slug}");
    let mut moving = form.clone();
    moving.push(("action".into(), "down-0".into()));
    let moved = owner
        .post_owned(&path, &moving)
        .await
        .text()
        .await
        .expect("a body");

    // Save what the page now shows.
    let mut saving = vec![
        ("csrf".to_owned(), value_of(&moved, "csrf")),
        ("title".to_owned(), value_of(&moved, "title")),
        ("count".to_owned(), "2".to_owned()),
        ("action".to_owned(), "save".to_owned()),
    ];
    for i in 0..2 {
        for field in ["id", "text"] {
            let name = format!("q{i}.{field}");
            saving.push((name.clone(), value_of(&moved, &name)));
        }
        let text = value_of(&moved, &format!("q{i}.text"));
        saving.push((format!("q{i}.type"), type_of(&text).into()));
    }
    assert_eq!(owner.post_owned(&path, &saving).await.status(), 303);

    let stored = app
        .stores()
        .await
        .catalog
        .surveys
        .get(&"acme".parse_slug(), &slug.as_str().parse_survey())
        .await
        .expect("read")
        .expect("the survey");
    let order: Vec<(String, String)> = stored
        .questions
        .iter()
        .map(|q| (q.id.to_string(), q.text.clone()))
        .collect();
    assert_eq!(
        order,
        [original[1].clone(), original[0].clone()],
        "moved, ids kept"
    );
}

#[tokio::test]
async fn csv_cells_with_commas_quotes_line_breaks_and_accents_read_back_exactly() {
    let app = spawn_app().await;
    let owner = Owner::signed_up(&app, "Acme", "acme", "a@acme.test").await;
    let key = app.api_key("acme").await;
    let survey = app
        .published_survey(
            &key,
            json!({"title": "Quoting", "questions": [
                {"text": "Say, \"anything\"", "type": "long_text"},
                {"text": "Pick", "type": "multiple_choice", "options": ["a, b", "c \"d\""]},
                {"text": "How many?", "type": "numeric"}]}),
        )
        .await;
    let question = ids(&survey);
    let text = "Commas, \"quotes\",\nline breaks; é and 😀";
    answer(
        &app,
        "acme",
        "quoting",
        &question,
        &[(0, text), (1, "a, b"), (1, "c \"d\""), (2, "-2.5")],
    )
    .await;
    drain(&app.stores().await).await;

    let csv = owner.page("/tenant/surveys/quoting/responses.csv").await;
    let mut reader = csv::Reader::from_reader(csv.as_bytes());
    let header: Vec<String> = reader
        .headers()
        .expect("a header")
        .iter()
        .map(str::to_owned)
        .collect();
    assert!(
        csv.starts_with('\u{feff}'),
        "Excel needs the byte order mark"
    );
    assert_eq!(
        header[3..],
        [
            "Say, \"anything\"",
            "Pick: a, b",
            "Pick: c \"d\"",
            "How many?"
        ]
    );
    let rows: Vec<csv::StringRecord> = reader.records().map(|r| r.expect("a row")).collect();
    assert_eq!(rows.len(), 1);
    assert_eq!(&rows[0][3], text);
    assert_eq!((&rows[0][4], &rows[0][5]), ("1", "1"));
    assert_eq!(
        &rows[0][6], "-2.5",
        "a number Canvass writes is not made text"
    );
    assert_eq!(&rows[0][2], "1", "the survey version");
}

#[tokio::test]
async fn reconcile_completes_what_a_dead_worker_left_in_recent_and_waits_out_its_grace() {
    let app = spawn_app().await;
    let stores = app.stores().await;
    let demo = demo_survey(&stores).await;
    // A worker that died after its commit: stored, counted, positioned, nothing else.
    let counted: Vec<_> = (0..3).map(|n| demo_answer(&demo, 5_000 + n, n)).collect();
    let mut doc = SummaryDoc::default();
    for answer in &counted {
        stores
            .answering
            .answers
            .store(answer)
            .await
            .expect("stored");
        doc.summary.add(answer);
        doc.recent.insert(answer.reference, doc.list_len);
        doc.list_len += 1;
    }
    assert!(
        stores
            .answering
            .summaries
            .write(&demo, &doc, None)
            .await
            .expect("written")
    );
    // And an answer stored whose message was lost, a moment ago.
    let forgotten = demo_answer(&demo, 6_000, 9);
    stores
        .answering
        .answers
        .store(&forgotten)
        .await
        .expect("stored");

    let waiting = reconcile::run_locked(&stores, Duration::from_secs(300), &|_| {})
        .await
        .expect("reconciled")
        .expect("not locked");

    assert_eq!(waiting.completed_summaries, 1, "{waiting:?}");
    assert_eq!(
        waiting.repaired, 0,
        "a recent answer is left to the workers: {waiting:?}"
    );
    let after = crate::helpers::summary_doc(&stores, &demo).await;
    assert!(after.recent.is_empty(), "recent is settled and dropped");
    assert_eq!(after.summary.total, 3);
    let chunks_only = SummaryDoc {
        recent: BTreeMap::new(),
        ..after.clone()
    };
    let listed = stores
        .answering
        .lists
        .references(&chunks_only.list_view(&demo), 0..3)
        .await
        .expect("listed");
    let references: Vec<Reference> = counted.iter().map(|a| a.reference).collect();
    assert_eq!(listed, references, "the list chunks hold every position");
    let marked = stores
        .answering
        .counted
        .counted(&demo, references.iter().copied())
        .await
        .expect("read");
    assert_eq!(marked, references.iter().copied().collect::<BTreeSet<_>>());

    let repaired = reconcile::run_locked(&stores, Duration::ZERO, &|_| {})
        .await
        .expect("reconciled")
        .expect("not locked");
    assert_eq!(
        repaired.repaired, 1,
        "past its grace, the forgotten answer is counted"
    );
    assert_eq!(
        crate::helpers::summary_doc(&stores, &demo)
            .await
            .summary
            .total,
        4
    );
}

#[tokio::test]
async fn editing_a_published_survey_keeps_earlier_answers_on_their_version() {
    let app = spawn_app().await;
    let key = app.api_tenant("acme").await;
    let definition = json!({"title": "Team", "questions": [
        {"text": "Mood", "type": "five_stars", "required": true}]});
    let first = app.published_survey(&key, definition).await;
    let question = ids(&first);
    answer(&app, "acme", "team", &question, &[(0, "5")]).await;
    let edited = json!({"title": "Team", "questions": [
        {"id": question[0], "text": "Your mood today", "type": "five_stars", "required": true},
        {"text": "Why?", "type": "short_text"}]});
    let (status, second) = app
        .api(
            reqwest::Method::PUT,
            "/api/v1/surveys/team",
            &key,
            Some(edited),
        )
        .await;
    assert_eq!((status, &second["version"]), (200, &json!(2)));
    answer(
        &app,
        "acme",
        "team",
        &ids(&second),
        &[(0, "3"), (1, "sunny")],
    )
    .await;
    drain(&app.stores().await).await;

    let (_, page) = app
        .api(
            reqwest::Method::GET,
            "/api/v1/surveys/team/responses",
            &key,
            None,
        )
        .await;
    let versions: Vec<(u64, usize)> = page["responses"]
        .as_array()
        .expect("responses")
        .iter()
        .map(|r| {
            let values = r["values"].as_object().expect("values").len();
            (r["survey_version"].as_u64().expect("a version"), values)
        })
        .collect();
    assert_eq!(
        versions,
        [(2, 2), (1, 1)],
        "newest first, each on its own version"
    );
    let (_, summary) = app
        .api(
            reqwest::Method::GET,
            "/api/v1/surveys/team/summary",
            &key,
            None,
        )
        .await;
    assert_eq!(
        summary["questions"][0]["answered"], 2,
        "the kept question counts both"
    );
}

#[tokio::test]
async fn responses_past_the_first_page_are_served_over_the_api_and_the_tenant_site() {
    let app = spawn_app().await;
    let owner = Owner::signed_up(&app, "Acme", "acme", "a@acme.test").await;
    let key = app.api_key("acme").await;
    let survey = app
        .published_survey(
            &key,
            json!({"title": "Many", "questions": [{"text": "N", "type": "numeric", "required": true}]}),
        )
        .await;
    let question = ids(&survey);
    for n in 0..30 {
        answer(&app, "acme", "many", &question, &[(0, &n.to_string())]).await;
    }
    drain(&app.stores().await).await;

    let (_, second) = app
        .api(
            reqwest::Method::GET,
            "/api/v1/surveys/many/responses?page=2",
            &key,
            None,
        )
        .await;
    assert_eq!(
        (&second["total"], &second["pages"], &second["page"]),
        (&json!(30), &json!(2), &json!(2))
    );
    let numbers: Vec<f64> = second["responses"]
        .as_array()
        .expect("responses")
        .iter()
        .map(|r| {
            r["values"][&question[0]]["number"]
                .as_f64()
                .expect("a number")
        })
        .collect();
    assert_eq!(
        numbers,
        [4.0, 3.0, 2.0, 1.0, 0.0],
        "the five oldest, newest first"
    );
    let html = owner.page("/tenant/surveys/many/responses?page=2").await;
    assert!(
        html.contains("Page 2 of 2") || html.contains("page 2 of 2"),
        "{html}"
    );
    assert_eq!(
        html.matches("href=\"/tenant/surveys/many/responses/")
            .count(),
        5,
        "five rows"
    );
    assert!(
        html.contains("/tenant/surveys/many/responses/30"),
        "the oldest is number 30"
    );
}

#[tokio::test]
async fn every_state_changing_form_refuses_a_missing_or_forged_csrf_token() {
    let app = spawn_app().await;
    let owner = Owner::signed_up(&app, "Acme", "acme", "a@acme.test").await;
    let slug = owner.design("Guarded").await;
    let keys_page = owner
        .post(
            "/tenant/api-keys",
            &[
                ("csrf", &owner.csrf("/tenant/api-keys").await),
                ("label", "k"),
            ],
        )
        .await
        .text()
        .await
        .expect("a body");
    let key_id = keys_page
        .split("/tenant/api-keys/")
        .nth(1)
        .and_then(|rest| rest.split("/revoke").next())
        .expect("a key id")
        .to_owned();
    let routes = [
        "/tenant/sign-up".to_owned(),
        "/tenant/sign-in".to_owned(),
        "/tenant/sign-out".to_owned(),
        "/tenant/settings".to_owned(),
        "/tenant/api-keys".to_owned(),
        format!("/tenant/api-keys/{key_id}/revoke"),
        "/tenant/surveys".to_owned(),
        format!("/tenant/surveys/{slug}"),
        format!("/tenant/surveys/{slug}/publish"),
        format!("/tenant/surveys/{slug}/unpublish"),
        format!("/tenant/surveys/{slug}/delete"),
        format!("/tenant/surveys/{slug}/exports"),
        format!("/tenant/surveys/{slug}/preview"),
    ];
    for route in &routes {
        for token in [None, Some("forged")] {
            let mut form = vec![("title", "Hijacked"), ("count", "0"), ("action", "save")];
            form.extend([
                ("name", "X"),
                ("email", "x@x.test"),
                ("password", "long enough pass"),
            ]);
            if let Some(token) = token {
                form.push(("csrf", token));
            }
            let response = owner.post(route, &form).await;
            assert_eq!(response.status(), 403, "POST {route} with {token:?}");
        }
    }
    assert_eq!(routes.len(), 13);
    assert!(
        owner.page("/tenant").await.contains("Guarded"),
        "nothing changed"
    );
    assert!(
        owner.page("/tenant/api-keys").await.contains(&key_id),
        "the key is still there"
    );
}

/// Runs `canvass workers ACTION` on a data directory.
fn workers(dir: &std::path::Path, action: &str) {
    let status = std::process::Command::new(env!("CARGO_BIN_EXE_canvass"))
        .args(["workers", action])
        .env("CANVASS_DATA_DIR", dir)
        .env("CANVASS_LOG", "error")
        .stdout(std::process::Stdio::null())
        .status()
        .expect("canvass workers runs");
    assert!(status.success(), "canvass workers {action}");
}

#[tokio::test]
async fn pausing_from_the_command_line_holds_a_worker_process_and_resuming_releases_it() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let stores = Stores::open(
        local::storage(dir.path()).await.expect("opens"),
        &StoreSettings::default(),
    )
    .await
    .expect("stores");
    let survey = crate::helpers::survey("acme", "team", "Team", Vec::new());
    stores.catalog.surveys.save(&survey).await.expect("saved");
    let log = dir.path().join("worker.log");
    let worker = CanvassProcess::worker_logging(
        dir.path(),
        &[("CANVASS_LOG", "canvass=info")],
        File::create(&log).expect("a log file"),
    );
    wait_for_line(&log, "worker started").await;

    workers(dir.path(), "pause");
    wait_for_line(&log, "workers are paused").await;
    for n in 0..10 {
        let answer = demo_answer(&survey.survey_ref(), 100 + n, n);
        stores
            .answering
            .queues
            .submit(&answer, Subscription::Standard)
            .await
            .expect("queued");
    }
    // Several of the worker's polls pass while it is paused.
    tokio::time::sleep(Duration::from_secs(1)).await;
    let queue = stores.answering.queues.queues_for(Subscription::Standard)[0].clone();
    let held = stores
        .answering
        .queues
        .receive(&queue, 32, Duration::ZERO)
        .await
        .expect("received");
    assert_eq!(
        held.len(),
        10,
        "every message is there and visible: the worker took none"
    );
    // `canvass status` says so, and what waits.
    let shown = std::process::Command::new(env!("CARGO_BIN_EXE_canvass"))
        .args(["status", "--json"])
        .env("CANVASS_DATA_DIR", dir.path())
        .env("CANVASS_LOG", "error")
        .output()
        .expect("canvass status runs");
    assert!(shown.status.success());
    let status: serde_json::Value = serde_json::from_slice(&shown.stdout).expect("JSON");
    assert_eq!(status["paused"], true, "{status}");
    let standard = status["queues"]
        .as_array()
        .expect("queues")
        .iter()
        .find(|q| q["role"] == "standard")
        .cloned()
        .unwrap_or_default();
    assert_eq!(standard["length"], 10, "{status}");
    // A paused worker keeps its heartbeat and its shards: it resumes on them.
    assert!(
        standard["holder"]
            .as_str()
            .is_some_and(|owner| !owner.is_empty()),
        "the shard is claimed by the paused worker: {status}"
    );
    assert!(
        status["queues"].as_array().is_some_and(|queues| [
            "webhook", "mail", "mailing", "segment", "export", "deletion"
        ]
        .iter()
        .all(|role| queues.iter().any(|q| q["role"] == *role))),
        "{status}"
    );
    assert_eq!(
        stores
            .answering
            .summaries
            .read(&survey.survey_ref())
            .await
            .expect("read")
            .doc
            .summary
            .total,
        0
    );

    workers(dir.path(), "resume");
    wait_for_line(&log, "workers are resumed").await;
    let deadline = Instant::now() + Duration::from_secs(30);
    while stores
        .answering
        .summaries
        .read(&survey.survey_ref())
        .await
        .expect("read")
        .doc
        .summary
        .total
        < 10
    {
        assert!(
            Instant::now() < deadline,
            "the resumed worker did not drain the queue"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(worker.terminate().success());
}
