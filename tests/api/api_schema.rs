//! The published API schema (`/api/v1/openapi.json`) checked against the live API by
//! schemathesis, the property-based API tester (pinned; scripts/test installs it): requests
//! generated from the schema, valid and not, with a real key, over data that lets every
//! operation do its real work. No answer may be a server error, and every answer must be as
//! documented: its status, content type, headers and body.

use std::collections::BTreeMap;

use reqwest::Method;
use serde_json::{Value, json};
use time::OffsetDateTime;

use canvass::domain::{Answer, Subscription};
use canvass::domain::{AnswerValue, QuestionId, Survey, SurveySlug, TenantSlug};
use canvass::stores::Stores;

use crate::helpers::{TestApp, settle, spawn_app_configured, test_settings};

/// The checks run on every answer.
const CHECKS: &str = "not_a_server_error,status_code_conformance,content_type_conformance,\
                      response_headers_conformance,response_schema_conformance";

/// A survey of two pages with logic, a segment question and every question type.
fn every_type() -> Value {
    json!({
        "title": "Every type",
        "description": "One of each.",
        "thank_you": "Thank you!",
        "closed_message": "Closed now.",
        "response_limit": 10000,
        "closes_at": "2099-01-01T00:00:00Z",
        "quotas": [{"id": "tea", "name": "Tea drinkers", "limit": 1000,
                    "when": {"question": "drink", "equals": "Tea"}},
                   {"id": "high", "name": "High raters", "limit": 20, "full": "count",
                    "when": {"question": "stars", "greater_than": 3}}],
        "pages": [
            {"title": "First", "questions": [
                {"id": "name", "text": "Your name?", "type": "short_text"},
                {"id": "story", "text": "Tell us more", "type": "long_text"},
                {"id": "drink", "text": "Drink?", "type": "single_choice", "required": true,
                 "options": ["Tea", "Coffee"], "other": true, "segment": true},
                {"id": "extras", "text": "Extras?", "type": "multiple_choice",
                 "options": ["Milk", "Sugar"], "other": true},
                {"id": "stars", "text": "Your rating", "type": "five_stars", "required": true},
                {"id": "branch", "text": "Which branch?", "type": "dropdown",
                 "options": ["North", "South"]}],
             "jumps": [{"if": {"all": [{"question": "stars", "less_than": 2}]}, "to": "end"}]},
            {"title": "Second", "description": "Nearly done.",
             "show_if": {"any": [{"question": "drink", "equals": "Tea"},
                                 {"question": "stars", "greater_than": 1}]},
             "questions": [
                {"id": "nps", "text": "Would you recommend us?", "type": "nps"},
                {"id": "agree", "text": "Friendly staff?", "type": "scale", "points": 5,
                 "min_label": "No", "max_label": "Yes"},
                {"id": "visited", "text": "When?", "type": "date", "earliest": "2026-01-01"},
                {"id": "grid", "text": "How was it?", "type": "matrix",
                 "rows": ["Food", "Service"], "columns": ["Bad", "Good"]},
                {"id": "order", "text": "Put these in order", "type": "ranking",
                 "options": ["A", "B", "C"]},
                {"id": "spent", "text": "How much?", "type": "numeric", "min": 0, "max": 1000,
                 "show_if": {"question": "branch", "answered": true}}]}
        ]
    })
}

/// Answer `n` to the survey of `every_type`: every answer kind, "Other" included.
fn values(n: u64) -> BTreeMap<QuestionId, AnswerValue> {
    let id = |text: &str| QuestionId::parse(text).expect("an id");
    let word = |options: &[&str]| options[(n as usize) % options.len()].to_owned();
    let mut order: Vec<String> = ["A", "B", "C"].map(String::from).to_vec();
    order.rotate_left(n as usize % 3);
    let mut values = BTreeMap::from([
        (id("name"), AnswerValue::Text(format!("Person {n}"))),
        (
            id("story"),
            AnswerValue::Text(format!("A long story, part {n}")),
        ),
        (id("stars"), AnswerValue::Stars((2 + n % 4) as u8)),
        (id("branch"), AnswerValue::Choice(word(&["North", "South"]))),
        (id("nps"), AnswerValue::Point((n % 11) as u8)),
        (id("agree"), AnswerValue::Point((1 + n % 5) as u8)),
        (
            id("visited"),
            AnswerValue::Date(format!("2026-06-{:02}", 1 + n % 28)),
        ),
        (
            id("grid"),
            AnswerValue::Matrix(BTreeMap::from([
                ("Food".to_owned(), word(&["Bad", "Good"])),
                ("Service".to_owned(), "Good".to_owned()),
            ])),
        ),
        (id("order"), AnswerValue::Ranking(order)),
        (id("spent"), AnswerValue::Number(n as f64 * 2.5)),
    ]);
    let (drink, extras) = if n.is_multiple_of(4) {
        (
            AnswerValue::Other {
                picked: vec![],
                text: "Mate".into(),
            },
            AnswerValue::Other {
                picked: vec!["Sugar".into()],
                text: "Honey".into(),
            },
        )
    } else {
        (
            AnswerValue::Choice(word(&["Tea", "Coffee", "Tea"])),
            AnswerValue::Choices(vec!["Milk".into()]),
        )
    };
    values.insert(id("drink"), drink);
    values.insert(id("extras"), extras);
    values
}

/// Queues `count` answers to `survey` as the answer path does.
async fn answer(stores: &Stores, survey: &Survey, count: u64) {
    for n in 0..count {
        let answer = Answer {
            tenant: survey.tenant.clone(),
            survey: survey.slug.clone(),
            survey_id: survey.id.clone(),
            survey_version: survey.version,
            reference: stores
                .answering
                .references
                .next()
                .await
                .expect("a reference"),
            submitted_at: OffsetDateTime::now_utc(),
            values: values(n),
            skipped: Default::default(),
            hidden: Default::default(),
            order: Default::default(),
            language: None,
            over_quota: Default::default(),
            variables: Default::default(),
            score: None,
            correct: None,
            ending: None,
            participant: None,
            partial: false,
        };
        stores
            .answering
            .queues
            .submit(&answer, Subscription::Standard)
            .await
            .expect("queued");
    }
}

/// Calls the API as `key`, expecting `status`; the JSON answer.
async fn call(app: &TestApp, key: &str, method: Method, path: &str, body: Option<Value>) -> Value {
    let (status, body) = app.api(method, path, key, body).await;
    assert!((200..300).contains(&status), "{path}: {status} {body}");
    body
}

/// A TOML list of strings.
fn list(items: &[String]) -> String {
    let quoted: Vec<String> = items.iter().map(|item| format!("{item:?}")).collect();
    format!("[{}]", quoted.join(", "))
}

#[tokio::test(flavor = "multi_thread")]
async fn schemathesis_finds_no_server_error_and_no_answer_unlike_the_schema() {
    let schemathesis = std::env::var("CANVASS_TEST_SCHEMATHESIS").expect(
        "CANVASS_TEST_SCHEMATHESIS names the schemathesis command: run the tests with \
         scripts/test, which installs it",
    );
    let mut settings = test_settings();
    settings.demo_responses = 30;
    // Mail set up (no worker sends it here), so a mailing can be started for the fuzzer to read.
    settings.worker.smtp_url = Some("smtp://127.0.0.1:9".into());
    settings.public_url = Some("https://surveys.example.com".into());
    let app = spawn_app_configured(canvass::storage::memory::storage(), settings).await;
    let key = app.api_key("demo").await;

    // Data for every operation to find: surveys with answers of every kind, a segment, an
    // export job, webhooks, and surveys that may be deleted.
    app.published_survey(&key, every_type()).await;
    let stores = app.stores().await;
    let tenant = TenantSlug::parse("demo").expect("a slug");
    let survey = stores
        .catalog
        .surveys
        .get(&tenant, &SurveySlug::parse("every-type").expect("a slug"))
        .await
        .expect("read")
        .expect("made");
    answer(&stores, &survey, 24).await;
    settle(&stores).await;
    // Where respondents stopped, as the pages' counts would have merged them.
    let stopped = canvass::domain::funnel::Funnel {
        opened: 40,
        started: 30,
        reached: BTreeMap::from([(1, 28)]),
    };
    stores
        .answering
        .funnels
        .add(&survey.survey_ref(), &stopped)
        .await
        .expect("counted");
    // Participants (some to be removed), and a mailing to them.
    let people: Vec<Value> = (0..6)
        .map(|n| {
            json!({"email": format!("person{n}@example.com"), "first_name": format!("P{n}"),
                   "language": "en", "attributes": {"team": format!("T{}", n % 2)}})
        })
        .collect();
    let added = call(
        &app,
        &key,
        Method::POST,
        "/api/v1/surveys/every-type/participants",
        Some(json!({ "participants": people })),
    )
    .await;
    let participants: Vec<String> = added["participants"]
        .as_array()
        .expect("participants")
        .iter()
        .map(|p| p["id"].as_str().expect("an id").to_owned())
        .collect();
    let mailing = call(
        &app,
        &key,
        Method::POST,
        "/api/v1/surveys/every-type/mailings",
        Some(json!({"kind": "invitation"})),
    )
    .await;
    let mut doomed = Vec::new();
    for n in 0..3 {
        let made = app
            .create_survey(
                &key,
                json!({"title": format!("Doomed {n}"), "questions": [
                    {"text": "Why?", "type": "short_text"}]}),
            )
            .await;
        doomed.push(made["slug"].as_str().expect("a slug").to_owned());
    }
    let export = call(
        &app,
        &key,
        Method::POST,
        "/api/v1/surveys/every-type/exports",
        None,
    )
    .await;
    // No worker runs here, so no delivery is ever attempted.
    let mut webhooks = Vec::new();
    for name in ["kept", "doomed"] {
        let added = call(
            &app,
            &key,
            Method::POST,
            "/api/v1/webhooks",
            Some(json!({"url": format!("https://hooks.example.com/{name}")})),
        )
        .await;
        webhooks.push(added["id"].as_str().expect("an id").to_owned());
    }
    let mut references = Vec::new();
    for slug in ["every-type", "customer-satisfaction"] {
        let page = call(
            &app,
            &key,
            Method::GET,
            &format!("/api/v1/surveys/{slug}/responses"),
            None,
        )
        .await;
        let listed = page["responses"].as_array().expect("responses");
        assert!(listed.len() >= 20, "{slug}: {page}");
        references.extend(listed.iter().map(|r| r["reference"].to_string()));
    }

    let dir = tempfile::tempdir().expect("a directory");
    let config = dir.path().join("schemathesis.toml");
    let ids = [
        export["id"].as_str().expect("an id").to_owned(),
        webhooks[0].clone(),
    ];
    let mailings = [mailing["id"].as_str().expect("an id").to_owned()];
    std::fs::write(
        &config,
        format!(
            r#"[dictionaries.slugs]
values = {slugs}
[dictionaries.participant_surveys]
values = ["every-type"]
[dictionaries.doomed]
values = {doomed}
[dictionaries.references]
values = [{references}]
[dictionaries.ids]
values = {ids}
[dictionaries.doomed_webhooks]
values = {doomed_webhook}
[dictionaries.doomed_participants]
values = {doomed_participants}
[dictionaries.mailings]
values = {mailings}

[parameters]
"path.slug" = {{ dictionary = "slugs", probability = 0.8 }}
"path.reference" = {{ dictionary = "references", probability = 0.8 }}
"path.id" = {{ dictionary = "ids", probability = 0.8 }}

[[operations]]
include-name = "DELETE /api/v1/surveys/{{slug}}"
parameters = {{ "path.slug" = {{ dictionary = "doomed", probability = 0.8 }} }}

[[operations]]
include-name = "DELETE /api/v1/webhooks/{{id}}"
parameters = {{ "path.id" = {{ dictionary = "doomed_webhooks", probability = 0.8 }} }}

[[operations]]
include-name = "DELETE /api/v1/surveys/{{slug}}/participants/{{id}}"
parameters = {{ "path.slug" = {{ dictionary = "participant_surveys", probability = 0.9 }}, "path.id" = {{ dictionary = "doomed_participants", probability = 0.8 }} }}

[[operations]]
include-name = "GET /api/v1/surveys/{{slug}}/mailings/{{id}}"
parameters = {{ "path.slug" = {{ dictionary = "participant_surveys", probability = 0.9 }}, "path.id" = {{ dictionary = "mailings", probability = 0.8 }} }}
"#,
            slugs = list(&["customer-satisfaction".into(), "every-type".into()]),
            doomed = list(&doomed),
            references = references.join(", "),
            ids = list(&ids),
            doomed_webhook = list(&webhooks[1..]),
            doomed_participants = list(&participants[3..]),
            mailings = list(&mailings),
        ),
    )
    .expect("the configuration is written");

    let output = tokio::process::Command::new(&schemathesis)
        .arg("--no-color")
        .arg("--config-file")
        .arg(&config)
        .arg("run")
        .arg(format!("{}/api/v1/openapi.json", app.address))
        .args(["--checks", CHECKS])
        .args(["--header", &format!("Authorization: Bearer {key}")])
        .args(["--phases", "examples,coverage,fuzzing"])
        // One worker: with several, its threads trip over Python's parser ("AST constructor
        // recursion depth mismatch", seen on 3.11.2 and 3.11.7) and report runtime errors.
        .args(["--max-examples", "40", "--workers", "1"])
        .args(["--request-timeout", "30"])
        .current_dir(dir.path())
        .output()
        .await
        .unwrap_or_else(|error| panic!("{schemathesis} runs: {error}"));
    let printed = String::from_utf8_lossy(&output.stdout);
    println!("{printed}{}", String::from_utf8_lossy(&output.stderr));
    assert!(
        output.status.success(),
        "schemathesis found problems (above)"
    );
    // Every call of the API's route table but the schema itself (`/api/v1/openapi.json`).
    let calls = canvass::web::mounted_routes()
        .iter()
        .filter(|route| route.path.starts_with("/api/v1/") && route.path != "/api/v1/openapi.json")
        .count();
    for line in [
        format!("Selected: {calls}/{calls}").as_str(),
        format!("Tested: {calls}").as_str(),
        "✅ Examples",
        "✅ Coverage",
        "✅ Fuzzing",
    ] {
        assert!(printed.contains(line), "schemathesis printed {line:?}");
    }
    app.stop().await;
}
