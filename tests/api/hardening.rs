//! What a hostile test found, each case held by a test: one bad answer never breaks a survey,
//! a survey's failure stays its own, a deleted survey's answers and forms reach nothing, thanks
//! are only confirmed at the link the server made, and a full disk says nothing was saved.

use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use canvass::domain::{Subscription, SurveySlug, TenantSlug};
use canvass::storage::{self, PutMode};
use canvass::stores::{Stores, keys};
use canvass::worker::{StepOutcome, Worker, WorkerSettings, reconcile};
use serde_json::{Value, json};

use crate::faults::{FailingWrites, FullDisk};
use crate::helpers::{
    TestApp, drain, question, reference_in, spawn_app, spawn_app_with, survey, token_in, worker,
};
use crate::owner::Owner;

async fn summary_of(app: &TestApp, key: &str, slug: &str) -> (u16, Value) {
    app.api(
        reqwest::Method::GET,
        &format!("/api/v1/surveys/{slug}/summary"),
        key,
        None,
    )
    .await
}

#[tokio::test]
async fn a_number_beyond_the_documented_range_is_refused_at_its_field_and_statistics_stay_finite() {
    let app = spawn_app().await;
    let key = app.api_tenant("n1").await;
    let survey = app.published_survey(&key, json!({"title": "N", "questions": [{"text": "How many?", "type": "numeric", "required": true}]}),
    )
    .await;
    let field = survey["questions"][0]["id"]
        .as_str()
        .expect("an id")
        .to_owned();

    let refused = app.answer("n1", "n", &[(&field, "1e200")]).await;
    assert_eq!(refused.status(), 422);
    let page = refused.text().await.expect("a body");
    assert!(
        page.contains("Please enter a number between -1,000,000,000,000,000 and"),
        "{page}"
    );
    assert!(
        page.contains(&format!(r#"id="q-{field}-error""#)),
        "the message is at the field"
    );
    for accepted in ["1", "1e15", "-1e15", "0.5"] {
        let response = app.answer("n1", "n", &[(&field, accepted)]).await;
        assert_eq!(response.status(), 303, "{accepted} is accepted");
    }
    drain(&app.stores().await).await;

    let (status, summary) = summary_of(&app, &key, "n").await;
    assert_eq!(status, 200, "{summary}");
    assert_eq!(summary["total"], 4);
    let stats = &summary["questions"][0];
    for field in ["mean", "std_dev", "min", "max"] {
        assert!(
            stats[field].as_f64().is_some_and(f64::is_finite),
            "{field}: {stats}"
        );
    }
    assert_eq!(stats["max"], 1e15);
}

/// A tenant with its surveys, made directly in storage.
async fn tenant_with(app: &TestApp, tenant: &str, slugs: &[&str]) {
    let surveys: Vec<_> = slugs
        .iter()
        .map(|slug| {
            survey(
                tenant,
                slug,
                slug,
                vec![question(
                    "n",
                    true,
                    canvass::domain::QuestionKind::FiveStars,
                )],
            )
        })
        .collect();
    app.add_tenant(tenant, Subscription::Standard, &surveys)
        .await;
}

async fn total(stores: &Stores, tenant: &str, slug: &str) -> u64 {
    let definition = stores
        .catalog
        .surveys
        .get(
            &TenantSlug::parse(tenant).expect("a slug"),
            &SurveySlug::parse(slug).expect("a slug"),
        )
        .await
        .expect("read")
        .expect("the survey");
    stores
        .answering
        .summaries
        .read(&definition.survey_ref())
        .await
        .expect("a readable summary")
        .doc
        .summary
        .total
}

#[tokio::test]
async fn a_survey_whose_merge_keeps_failing_goes_to_the_poison_queue_and_nothing_else_stops() {
    let storage = FailingWrites::around(&storage::memory::storage(), "summaries/acme/broken.");
    let app = spawn_app_with(storage).await;
    tenant_with(&app, "acme", &["broken", "fine"]).await;
    tenant_with(&app, "other", &["fine"]).await;
    for (tenant, slug) in [("acme", "broken"), ("acme", "fine"), ("other", "fine")] {
        for stars in ["4", "5"] {
            let response = app.answer(tenant, slug, &[("n", stars)]).await;
            assert_eq!(response.status(), 303);
        }
    }
    let stores = app.stores().await;
    let other = stores
        .catalog
        .surveys
        .get(
            &TenantSlug::parse("other").expect("slug"),
            &SurveySlug::parse("fine").expect("slug"),
        )
        .await
        .expect("read")
        .expect("a survey");
    let job = stores
        .operations
        .exports
        .request(&other.survey_ref())
        .await
        .expect("requested");
    let mut worker = Worker::new(
        stores.clone(),
        WorkerSettings {
            visibility: Duration::from_millis(50),
            max_dequeue: 2,
            ..WorkerSettings::default()
        },
    );

    let deadline = Instant::now() + Duration::from_secs(20);
    let poison = stores.answering.queues.poison().clone();
    while stores
        .answering
        .queues
        .length(&poison)
        .await
        .expect("length")
        < 2
    {
        assert!(
            Instant::now() < deadline,
            "the broken survey's answers never reached the poison queue"
        );
        if let StepOutcome::QueuesEmpty =
            worker.step().await.expect("a step never fails as a whole")
        {
            tokio::time::sleep(Duration::from_millis(60)).await;
        }
    }
    while !matches!(
        worker.step().await.expect("a step"),
        StepOutcome::QueuesEmpty
    ) {}

    assert_eq!(
        total(&stores, "acme", "fine").await,
        2,
        "the tenant's other survey"
    );
    assert_eq!(
        total(&stores, "other", "fine").await,
        2,
        "another tenant's survey"
    );
    assert_eq!(
        stores
            .answering
            .queues
            .length(&poison)
            .await
            .expect("length"),
        2
    );
    crate::helpers::assert_export_failed(&stores, &job, "no export database").await;
}

#[tokio::test]
async fn a_damaged_summary_is_marked_on_the_dashboard_and_rebuilt_exactly_by_reconcile() {
    let app = spawn_app().await;
    let owner = Owner::signed_up(&app, "Acme", "acme", "owner@acme.test").await;
    let (damaged, fine) = (owner.design("Damaged").await, owner.design("Fine").await);
    for slug in [&damaged, &fine] {
        let csrf = owner.csrf(&format!("/tenant/surveys/{slug}")).await;
        let published = owner
            .post(
                &format!("/tenant/surveys/{slug}/publish"),
                &[("csrf", &csrf)],
            )
            .await;
        assert_eq!(published.status(), 303);
    }
    let answers = [("q2", "Beach"), ("q4", "4"), ("q5", "12")];
    for slug in [&damaged, &fine] {
        for _ in 0..3 {
            answer_designed(&app, slug, &answers).await;
        }
    }
    let stores = app.stores().await;
    drain(&stores).await;
    let acme = TenantSlug::parse("acme").expect("slug");
    let damaged_survey = stores
        .catalog
        .surveys
        .get(&acme, &SurveySlug::parse(&damaged).expect("slug"))
        .await
        .expect("read")
        .expect("the survey")
        .survey_ref();
    // As an older version wrote it after an overflow: a mean of `null`.
    let key = keys::summary(&damaged_survey);
    let mut doc: Value =
        serde_json::from_slice(&app.storage.blobs.get(&key).await.expect("a summary").body)
            .expect("json");
    let first = doc["summary"]["questions"]
        .as_object_mut()
        .and_then(|questions| questions.values_mut().find(|q| q["kind"] == "stars"))
        .expect("a stars question");
    first["moments"]["mean"] = Value::Null;
    app.storage
        .blobs
        .put(
            &key,
            serde_json::to_vec(&doc).expect("json").into(),
            PutMode::Overwrite,
        )
        .await
        .expect("damaged");
    // Answers arrive meanwhile: the damaged survey cannot count them, the other one can.
    for slug in [&damaged, &fine] {
        answer_designed(&app, slug, &answers).await;
    }
    let outcome = worker(&stores, Duration::from_millis(1))
        .step()
        .await
        .expect("a step");
    assert!(
        matches!(outcome, StepOutcome::BatchDone { failed: 1, .. }),
        "{outcome:?}"
    );

    let dashboard = owner.page("/tenant").await;
    assert!(
        dashboard.contains("Summary unreadable"),
        "the damaged survey is marked"
    );
    assert!(
        dashboard.contains(r#"<td class="number" data-label="Responses">4</td>"#),
        "the other survey shows its count: {dashboard}"
    );
    let summary_page = owner
        .get(&format!("/tenant/surveys/{damaged}/summary"))
        .await;
    assert_eq!(summary_page.status(), 503);
    assert!(
        summary_page
            .text()
            .await
            .expect("a body")
            .contains("canvass reconcile")
    );

    let report = reconcile::run_locked(&stores, Duration::ZERO, &|_| {})
        .await
        .expect("reconciled")
        .expect("not locked");
    assert_eq!(report.rebuilt_summaries, 1, "{report:?}");
    assert!(report.failed.is_empty(), "{report:?}");
    // The redelivered answer is found counted by the rebuild, not counted twice.
    tokio::time::sleep(Duration::from_millis(5)).await;
    drain(&stores).await;

    let rebuilt = stores
        .answering
        .summaries
        .read(&damaged_survey)
        .await
        .expect("readable")
        .doc;
    assert_eq!(rebuilt.summary.total, 4);
    assert_eq!(rebuilt.list_len, 4);
    let listed = stores
        .answering
        .lists
        .references(&rebuilt.list_view(&damaged_survey), 0..rebuilt.list_len)
        .await
        .expect("listed");
    let distinct: std::collections::BTreeSet<_> = listed.iter().collect();
    assert_eq!((listed.len(), distinct.len()), (4, 4));
    let stored = stores
        .answering
        .answers
        .get_many(&damaged_survey, &listed)
        .await
        .expect("read");
    let mut expected = canvass::domain::SurveySummary::default();
    for answer in stored.iter().flatten() {
        expected.add(answer);
    }
    assert_eq!(
        rebuilt.summary, expected,
        "the rebuilt summary is that of the stored answers"
    );
    assert!(
        owner
            .page("/tenant")
            .await
            .contains(r#"<td class="number" data-label="Responses">4</td>"#)
    );
}

/// Answers a survey made by `Owner::design` (its questions are `q0`..`q5` in the form by id,
/// found on the page).
async fn answer_designed(app: &TestApp, slug: &str, answers: &[(&str, &str)]) {
    let form = app.form("acme", slug).await;
    let ids = question_ids(&form);
    let pairs: Vec<(String, String)> = answers
        .iter()
        .map(|(q, value)| {
            let index: usize = q[1..].parse().expect("q<index>");
            (ids[index].clone(), (*value).to_owned())
        })
        .collect();
    let pairs: Vec<(&str, &str)> = pairs
        .iter()
        .map(|(q, v)| (q.as_str(), v.as_str()))
        .collect();
    let response = app.submit("acme", slug, &token_in(&form), &pairs).await;
    assert_eq!(response.status(), 303);
}

/// The question ids of a form, in order.
fn question_ids(form: &str) -> Vec<String> {
    let mut ids = Vec::new();
    for piece in form.split(r#"name="q-"#).skip(1) {
        let id = piece[..piece.find('"').expect("the name ends")].to_owned();
        if ids.last() != Some(&id) {
            ids.push(id);
        }
    }
    ids
}

#[tokio::test]
async fn answers_and_forms_of_a_deleted_survey_never_reach_a_new_survey_with_its_slug() {
    let app = spawn_app().await;
    let key = app.api_tenant("acme").await;
    let definition = json!({"title": "Team", "questions": [
        {"id": "mood", "text": "Mood?", "type": "five_stars", "required": true},
        {"id": "note", "text": "Note", "type": "long_text", "required": false}]});
    let first = app.published_survey(&key, definition.clone()).await;
    let old_form = app.form("acme", "team").await;
    let mood = first["questions"][0]["id"]
        .as_str()
        .expect("an id")
        .to_owned();
    let note = first["questions"][1]["id"]
        .as_str()
        .expect("an id")
        .to_owned();
    let long = "x".repeat(60_000);
    for (stars, text) in [("5", "short"), ("4", long.as_str())] {
        let response = app
            .answer("acme", "team", &[(&mood, stars), (&note, text)])
            .await;
        assert_eq!(response.status(), 303);
    }
    let (status, _) = app
        .api(reqwest::Method::DELETE, "/api/v1/surveys/team", &key, None)
        .await;
    assert_eq!(status, 204);

    let second = app.published_survey(&key, definition).await;
    assert_eq!(second["slug"], "team", "the slug is free again");
    assert_ne!(second["id"], first["id"], "a new survey has a new identity");
    let mood = second["questions"][0]["id"]
        .as_str()
        .expect("an id")
        .to_owned();
    let stale = app
        .submit("acme", "team", &token_in(&old_form), &[(&mood, "3")])
        .await;
    assert_eq!(stale.status(), 400, "the deleted survey's form is refused");
    let stores = app.stores().await;
    drain(&stores).await;
    let (_, summary) = summary_of(&app, &key, "team").await;
    assert_eq!(
        summary["total"], 0,
        "the deleted survey's answers are counted nowhere"
    );
    let answer = app.answer("acme", "team", &[(&mood, "3")]).await;
    assert_eq!(answer.status(), 303);
    drain(&stores).await;
    let (_, summary) = summary_of(&app, &key, "team").await;
    assert_eq!(summary["total"], 1);
    for prefix in [keys::INCOMING, keys::ANSWERS] {
        let page = stores.operations.scan(prefix, None).await.expect("listed");
        assert_eq!(
            page.keys.len(),
            usize::from(prefix == keys::ANSWERS),
            "{prefix}: {:?}",
            page.keys
        );
    }
}

#[tokio::test]
async fn what_a_worker_that_missed_a_deletion_writes_is_invisible_to_the_new_survey_and_removed() {
    let app = spawn_app().await;
    tenant_with(&app, "acme", &["team"]).await;
    // A worker process whose cache still holds the old survey (a long TTL).
    let stale = app.stores().await;
    let old = stale
        .catalog
        .surveys
        .get(
            &TenantSlug::parse("acme").expect("slug"),
            &SurveySlug::parse("team").expect("slug"),
        )
        .await
        .expect("read")
        .expect("the survey");
    assert_eq!(
        app.answer("acme", "team", &[("n", "5")]).await.status(),
        303
    );
    let fresh = app.stores().await;
    fresh.catalog.surveys.delete(&old).await.expect("deleted");
    let new = survey("acme", "team", "Team again", old.questions.clone());
    fresh.catalog.surveys.save(&new).await.expect("made again");

    drain(&stale).await;

    assert_eq!(total(&fresh, "acme", "team").await, 0);
    let filed = stale
        .operations
        .scan(&keys::answers_of(&old.survey_ref()), None)
        .await
        .expect("listed");
    assert_eq!(
        filed.keys.len(),
        1,
        "the stale worker filed the answer under the old survey"
    );
    let report = reconcile::run_locked(&fresh, Duration::ZERO, &|_| {})
        .await
        .expect("reconciled")
        .expect("not locked");
    assert!(report.removed >= 2, "{report:?}");
    for prefix in keys::survey_data_prefixes(&old.survey_ref()) {
        assert!(
            fresh
                .operations
                .scan(&prefix, None)
                .await
                .expect("listed")
                .keys
                .is_empty(),
            "{prefix}"
        );
    }
    assert_eq!(total(&fresh, "acme", "team").await, 0);
}

#[tokio::test]
async fn a_thank_you_page_is_shown_only_at_the_signed_link_of_a_published_survey() {
    let app = spawn_app().await;
    let response = app
        .answer(
            "demo",
            "customer-satisfaction",
            &[("overall", "4"), ("drink", "Tea")],
        )
        .await;
    let location = response.headers()["location"]
        .to_str()
        .expect("ascii")
        .to_owned();
    let reference = reference_in(&location);
    assert_eq!(app.get(&location).await.status(), 200);

    let base = "/s/demo/customer-satisfaction/thanks";
    for forged in [
        format!("{base}/{reference}"),
        format!(
            "{base}/{}?{}",
            reference + 1,
            location.split('?').nth(1).expect("a query")
        ),
        format!("{base}/999999?sig=AAAA"),
        format!("{base}/{reference}?sig="),
    ] {
        assert_eq!(app.get(&forged).await.status(), 404, "{forged}");
    }
    let key = app.api_tenant("acme").await;
    let draft = json!({"title": "Draft", "questions": [{"text": "Q", "type": "short_text"}]});
    let (status, _) = app
        .api(reqwest::Method::POST, "/api/v1/surveys", &key, Some(draft))
        .await;
    assert_eq!(status, 201);
    assert_eq!(app.get("/s/acme/draft/thanks/1000").await.status(), 404);
}

#[tokio::test]
async fn a_full_disk_answers_503_saying_nothing_was_saved_and_the_retry_is_counted_once() {
    let (storage, disk) = FullDisk::around(&storage::memory::storage());
    let app = spawn_app_with(storage).await;
    let form = app.form("demo", "customer-satisfaction").await;
    let token = token_in(&form);
    let answers = [("overall", "5"), ("drink", "Tea")];
    disk.full.store(true, Ordering::SeqCst);

    let refused = app
        .submit("demo", "customer-satisfaction", &token, &answers)
        .await;

    assert_eq!(refused.status(), 503);
    let page = refused.text().await.expect("a body");
    assert!(page.contains("Nothing was saved"), "{page}");
    disk.full.store(false, Ordering::SeqCst);
    let retried = app
        .submit("demo", "customer-satisfaction", &token, &answers)
        .await;
    assert_eq!(retried.status(), 303);
    let stores = app.stores().await;
    drain(&stores).await;
    assert_eq!(total(&stores, "demo", "customer-satisfaction").await, 1);
}

#[tokio::test]
async fn very_long_ids_in_any_route_are_not_found_never_a_server_error() {
    let app = spawn_app().await;
    let key = app.api_tenant("acme").await;
    let owner = Owner::signed_up(&app, "Long", "long", "owner@long.test").await;
    let csrf = owner.csrf("/tenant/api-keys").await;
    let long = "a".repeat(2_000);
    let number = "9".repeat(2_000);
    let public = [
        format!("/s/{long}"),
        format!("/s/demo/{long}"),
        format!("/s/{long}/{long}"),
        format!("/s/demo/customer-satisfaction/thanks/{number}?sig=x"),
        format!("/static/{long}"),
        format!("/{long}"),
    ];
    for path in &public {
        let status = app.get(path).await.status().as_u16();
        assert!(matches!(status, 400 | 404), "GET {}: {status}", &path[..40]);
    }
    for path in [
        format!("/api/v1/surveys/{long}"),
        format!("/api/v1/surveys/{long}/summary"),
        format!("/api/v1/exports/{long}"),
    ] {
        let (status, _) = app.api(reqwest::Method::GET, &path, &key, None).await;
        assert_eq!(status, 404, "GET {}", &path[..40]);
    }
    for path in [
        format!("/tenant/surveys/{long}"),
        format!("/tenant/surveys/{long}/summary"),
        format!("/tenant/surveys/demo/responses/{number}"),
        format!("/tenant/exports/{long}"),
    ] {
        let status = owner.get(&path).await.status().as_u16();
        assert!(matches!(status, 400 | 404), "GET {}: {status}", &path[..40]);
    }
    let revoke = owner
        .post(
            &format!("/tenant/api-keys/{long}/revoke"),
            &[("csrf", &csrf)],
        )
        .await;
    assert!(
        matches!(revoke.status().as_u16(), 400 | 404),
        "{}",
        revoke.status()
    );
}

#[tokio::test]
async fn a_tenant_has_at_most_200_surveys_and_the_api_lists_them_20_to_a_page() {
    let app = spawn_app().await;
    let key = app.api_tenant("many").await;
    for n in 0..200 {
        let definition = json!({"title": format!("Survey {n:03}"), "questions": []});
        let (status, created) = app
            .api(
                reqwest::Method::POST,
                "/api/v1/surveys",
                &key,
                Some(definition),
            )
            .await;
        assert_eq!(status, 201, "{n}: {created}");
    }
    let (status, refused) = app
        .api(
            reqwest::Method::POST,
            "/api/v1/surveys",
            &key,
            Some(json!({"title": "One too many", "questions": []})),
        )
        .await;
    assert_eq!(status, 422, "{refused}");
    assert!(
        refused["error"]
            .as_str()
            .is_some_and(|e| e.contains("at most 200 surveys"))
    );

    let (_, first) = app
        .api(reqwest::Method::GET, "/api/v1/surveys", &key, None)
        .await;
    assert_eq!(
        (
            &first["total"],
            &first["pages"],
            &first["per_page"],
            &first["page"]
        ),
        (&json!(200), &json!(10), &json!(20), &json!(1))
    );
    assert_eq!(first["surveys"].as_array().map(Vec::len), Some(20));
    assert_eq!(first["surveys"][0]["slug"], "survey-000");
    let (_, last) = app
        .api(reqwest::Method::GET, "/api/v1/surveys?page=10", &key, None)
        .await;
    assert_eq!(last["surveys"][19]["slug"], "survey-199");
    let (_, past) = app
        .api(reqwest::Method::GET, "/api/v1/surveys?page=11", &key, None)
        .await;
    assert_eq!(past["surveys"], json!([]));
    let (status, _) = app
        .api(reqwest::Method::GET, "/api/v1/surveys?page=0", &key, None)
        .await;
    assert_eq!(status, 400);
}

#[tokio::test]
async fn a_response_whose_texts_pass_200000_characters_is_refused_and_a_definition_past_its_limit_too()
 {
    let app = spawn_app().await;
    let key = app.api_tenant("texts").await;
    let long = |text: &str| json!({"text": text, "type": "long_text"});
    let survey = app
        .published_survey(
            &key,
            json!({"title": "Texts", "questions": [long("One"), long("Two"), long("Three")]}),
        )
        .await;
    let ids: Vec<String> = (0..3)
        .map(|n| {
            survey["questions"][n]["id"]
                .as_str()
                .expect("an id")
                .to_owned()
        })
        .collect();
    let full = "x".repeat(100_000);

    let refused = app
        .answer(
            "texts",
            "texts",
            &[(&ids[0], &full), (&ids[1], &full), (&ids[2], "one more")],
        )
        .await;
    assert_eq!(refused.status(), 422);
    assert!(refused.text().await.expect("a body").contains("200,000"));
    let accepted = app
        .answer("texts", "texts", &[(&ids[0], &full), (&ids[1], &full)])
        .await;
    assert_eq!(accepted.status(), 303);

    let options: Vec<String> = (0..50)
        .map(|n| format!("{n:03}{}", "o".repeat(197)))
        .collect();
    let wide = json!({"text": "Pick", "type": "single_choice", "options": options});
    let (status, refused) = app
        .api(
            reqwest::Method::POST,
            "/api/v1/surveys",
            &key,
            Some(json!({"title": "Wide", "questions": vec![wide; 11]})),
        )
        .await;
    assert_eq!(status, 422, "{refused}");
    assert!(
        refused["fields"]["questions"]
            .as_str()
            .is_some_and(|m| m.contains("100,000"))
    );
}
