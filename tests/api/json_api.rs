//! The JSON API over HTTP: API keys, the survey life cycle, summaries, response pages, clear
//! errors, and isolation between tenants.

use serde_json::{Value, json};

use crate::helpers::{spawn_app, token_in, worker};

fn definition() -> Value {
    json!({
        "title": "Team offsite",
        "description": "Where shall we go?",
        "questions": [
            {"text": "Your name", "type": "short_text", "required": true},
            {"text": "Anything else?", "type": "long_text", "required": false},
            {"text": "Where?", "type": "single_choice", "required": true, "options": ["Beach", "Mountains"]},
            {"text": "Activities", "type": "multiple_choice", "required": false, "options": ["Hiking", "Swimming", "Games"]},
            {"text": "Last offsite?", "type": "five_stars", "required": false},
            {"text": "Budget", "type": "numeric", "required": false, "min": 0, "max": 1000}
        ]
    })
}

#[tokio::test]
async fn a_survey_created_and_published_over_the_api_collects_answers_and_reports_them() {
    let app = spawn_app().await;
    let key = app.api_tenant("acme").await;

    let (status, created) = app
        .api(
            reqwest::Method::POST,
            "/api/v1/surveys",
            &key,
            Some(definition()),
        )
        .await;

    assert_eq!(status, 201, "{created}");
    assert_eq!(created["slug"], "team-offsite");
    assert_eq!(created["published"], false);
    assert_eq!(created["questions"].as_array().expect("questions").len(), 6);
    assert_eq!(created["questions"][2]["type"], "single_choice");
    assert_eq!(
        app.get("/s/acme/team-offsite").await.status(),
        404,
        "a draft is not public"
    );

    let (status, published) = app
        .api(
            reqwest::Method::POST,
            "/api/v1/surveys/team-offsite/publish",
            &key,
            None,
        )
        .await;
    assert_eq!((status, &published["published"]), (200, &json!(true)));
    let html = app.form("acme", "team-offsite").await;
    let ids: Vec<String> = created["questions"]
        .as_array()
        .expect("questions")
        .iter()
        .map(|q| q["id"].as_str().expect("id").to_owned())
        .collect();
    for (name, place) in [("Ada", "Beach"), ("Grace", "Mountains"), ("Linus", "Beach")] {
        let token = token_in(&app.form("acme", "team-offsite").await);
        let response = app
            .submit(
                "acme",
                "team-offsite",
                &token,
                &[(&ids[0], name), (&ids[2], place), (&ids[5], "250")],
            )
            .await;
        assert_eq!(response.status(), 303);
    }
    assert!(html.contains("Where?"));
    let stores = app.stores().await;
    let mut worker = worker(&stores, std::time::Duration::from_secs(60));
    while let canvass::worker::StepOutcome::BatchDone { .. } = worker.step().await.expect("a step")
    {
    }

    let (status, summary) = app
        .api(
            reqwest::Method::GET,
            "/api/v1/surveys/team-offsite/summary",
            &key,
            None,
        )
        .await;
    assert_eq!(status, 200);
    assert_eq!(summary["total"], 3);
    let expected = serde_json::to_value(
        canvass::admin::summary(&stores, "acme", "team-offsite")
            .await
            .expect("report"),
    )
    .expect("json");
    assert_eq!(
        summary, expected,
        "the API and `canvass summary` show the same object"
    );
    assert_eq!(
        summary["questions"][2]["options"],
        json!([{"option": "Beach", "count": 2}, {"option": "Mountains", "count": 1}])
    );

    let (status, page) = app
        .api(
            reqwest::Method::GET,
            "/api/v1/surveys/team-offsite/responses?page=1",
            &key,
            None,
        )
        .await;
    assert_eq!(status, 200);
    assert_eq!(
        (page["total"].clone(), page["page"].clone()),
        (json!(3), json!(1))
    );
    let responses = page["responses"].as_array().expect("responses");
    assert_eq!(responses.len(), 3);
    assert_eq!(
        responses[0]["values"][&ids[0]]["text"], "Linus",
        "newest first"
    );
}

#[tokio::test]
async fn editing_a_published_survey_keeps_question_ids_and_starts_a_new_version() {
    let app = spawn_app().await;
    let key = app.api_tenant("acme").await;
    let (_, created) = app
        .api(
            reqwest::Method::POST,
            "/api/v1/surveys",
            &key,
            Some(definition()),
        )
        .await;
    app.api(
        reqwest::Method::POST,
        "/api/v1/surveys/team-offsite/publish",
        &key,
        None,
    )
    .await;
    let mut edited = definition();
    edited["questions"][0]["id"] = created["questions"][0]["id"].clone();
    edited["questions"][0]["text"] = json!("Your full name");

    let (status, updated) = app
        .api(
            reqwest::Method::PUT,
            "/api/v1/surveys/team-offsite",
            &key,
            Some(edited),
        )
        .await;

    assert_eq!(status, 200, "{updated}");
    assert_eq!(updated["version"], 2);
    assert_eq!(updated["questions"][0]["id"], created["questions"][0]["id"]);
    assert_eq!(updated["questions"][0]["text"], "Your full name");
    assert_ne!(
        updated["questions"][1]["id"], created["questions"][1]["id"],
        "a question sent without its id is a new one"
    );
    let (status, listed) = app
        .api(reqwest::Method::GET, "/api/v1/surveys", &key, None)
        .await;
    assert_eq!(
        (status, listed["surveys"].as_array().expect("list").len()),
        (200, 1)
    );
}

#[tokio::test]
async fn deleting_a_survey_removes_it_and_its_answers() {
    let app = spawn_app().await;
    let key = app.api_tenant("acme").await;
    app.api(
        reqwest::Method::POST,
        "/api/v1/surveys",
        &key,
        Some(definition()),
    )
    .await;

    let (status, _) = app
        .api(
            reqwest::Method::DELETE,
            "/api/v1/surveys/team-offsite",
            &key,
            None,
        )
        .await;

    assert_eq!(status, 204);
    let (status, body) = app
        .api(
            reqwest::Method::GET,
            "/api/v1/surveys/team-offsite",
            &key,
            None,
        )
        .await;
    assert_eq!((status, body["error"].as_str()), (404, Some("not found")));
}

#[tokio::test]
async fn bad_requests_get_json_errors_with_a_reason_and_the_right_status() {
    let app = spawn_app().await;
    let key = app.api_tenant("acme").await;
    let mut invalid = definition();
    invalid["title"] = json!("");
    invalid["questions"][2]["options"] = json!(["Only one"]);
    invalid["questions"][3]["type"] = json!("essay");

    let (status, body) = app
        .api(
            reqwest::Method::POST,
            "/api/v1/surveys",
            &key,
            Some(invalid),
        )
        .await;
    assert_eq!(status, 422, "{body}");
    for field in ["title", "questions[2].options", "questions[3].type"] {
        assert!(
            body["fields"][field].is_string(),
            "no error at {field}: {body}"
        );
    }

    let (status, body) = app
        .api(reqwest::Method::GET, "/api/v1/surveys", "cnv_wrong", None)
        .await;
    assert_eq!(status, 401);
    assert!(
        body["error"]
            .as_str()
            .expect("a reason")
            .contains("API key")
    );
    let response = app
        .client
        .get(format!("{}/api/v1/surveys", app.address))
        .send()
        .await
        .expect("answered");
    assert_eq!(response.status(), 401, "no key at all");

    let response = app
        .client
        .post(format!("{}/api/v1/surveys", app.address))
        .bearer_auth(&key)
        .header("content-type", "application/json")
        .body("{not json")
        .send()
        .await
        .expect("answered");
    assert_eq!(response.status(), 400);
    let body: Value = response.json().await.expect("a JSON error");
    assert!(
        body["error"]
            .as_str()
            .expect("a reason")
            .contains("invalid JSON")
    );

    let (status, _) = app
        .api(
            reqwest::Method::GET,
            "/api/v1/surveys/nope/summary",
            &key,
            None,
        )
        .await;
    assert_eq!(status, 404);
    let (status, _) = app
        .api(reqwest::Method::GET, "/api/v1/nowhere", &key, None)
        .await;
    assert_eq!(status, 404);
    app.api(
        reqwest::Method::POST,
        "/api/v1/surveys",
        &key,
        Some(json!({"title": "Empty"})),
    )
    .await;
    let (status, body) = app
        .api(
            reqwest::Method::POST,
            "/api/v1/surveys/empty/publish",
            &key,
            None,
        )
        .await;
    assert_eq!(
        status, 422,
        "a survey without questions cannot be published: {body}"
    );
    let (status, _) = app
        .api(
            reqwest::Method::GET,
            "/api/v1/surveys/empty/responses?page=0",
            &key,
            None,
        )
        .await;
    assert_eq!(status, 400);
}

#[tokio::test]
async fn one_tenants_key_never_reaches_another_tenants_surveys() {
    let app = spawn_app().await;
    let (key_a, key_b) = (app.api_tenant("alpha").await, app.api_tenant("beta").await);
    app.api(
        reqwest::Method::POST,
        "/api/v1/surveys",
        &key_b,
        Some(definition()),
    )
    .await;
    app.api(
        reqwest::Method::POST,
        "/api/v1/surveys/team-offsite/publish",
        &key_b,
        None,
    )
    .await;

    for (method, path) in [
        (reqwest::Method::GET, "/api/v1/surveys/team-offsite"),
        (reqwest::Method::PUT, "/api/v1/surveys/team-offsite"),
        (reqwest::Method::DELETE, "/api/v1/surveys/team-offsite"),
        (
            reqwest::Method::POST,
            "/api/v1/surveys/team-offsite/publish",
        ),
        (
            reqwest::Method::POST,
            "/api/v1/surveys/team-offsite/unpublish",
        ),
        (reqwest::Method::GET, "/api/v1/surveys/team-offsite/summary"),
        (
            reqwest::Method::GET,
            "/api/v1/surveys/team-offsite/responses?page=1",
        ),
    ] {
        let body = (method == reqwest::Method::PUT).then(definition);
        let (status, answer) = app.api(method.clone(), path, &key_a, body).await;
        assert_eq!(status, 404, "case {method} {path}: {answer}");
    }
    let (_, listed) = app
        .api(reqwest::Method::GET, "/api/v1/surveys", &key_a, None)
        .await;
    assert_eq!(listed["surveys"], json!([]));
    let (status, still) = app
        .api(
            reqwest::Method::GET,
            "/api/v1/surveys/team-offsite",
            &key_b,
            None,
        )
        .await;
    assert_eq!(
        (status, &still["published"]),
        (200, &json!(true)),
        "beta's survey is untouched"
    );
}

#[tokio::test]
async fn tenant_create_prints_a_working_api_key_alone_on_its_last_line() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_canvass"))
        .args([
            "tenant", "create", "--slug", "acme", "--name", "Acme Ltd", "--plan", "premium",
        ])
        .env("CANVASS_DATA_DIR", dir.path())
        .env("CANVASS_LOG", "warn")
        .output()
        .expect("runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let stdout = String::from_utf8(output.stdout).expect("utf-8");
    let key = stdout.lines().last().expect("a last line").to_owned();
    assert!(key.starts_with("cnv_") && !key.contains(' '), "{stdout}");

    let again = std::process::Command::new(env!("CARGO_BIN_EXE_canvass"))
        .args([
            "tenant", "create", "--slug", "acme", "--name", "Acme", "--plan", "standard",
        ])
        .env("CANVASS_DATA_DIR", dir.path())
        .output()
        .expect("runs");
    assert!(!again.status.success(), "a taken slug is refused");
    assert!(String::from_utf8_lossy(&again.stderr).contains("already exists"));

    let storage = canvass::storage::local::storage(dir.path())
        .await
        .expect("opens");
    let app = crate::helpers::spawn_app_with(storage).await;
    let (status, listed) = app
        .api(reqwest::Method::GET, "/api/v1/surveys", &key, None)
        .await;
    assert_eq!((status, listed["surveys"].clone()), (200, json!([])));
}

#[tokio::test]
async fn a_key_no_field_takes_is_refused_naming_it_and_a_survey_sent_back_as_read_is_taken() {
    let app = spawn_app().await;
    let key = app.api_tenant("acme").await;
    let mut misspelt = definition();
    misspelt["questions"][0]["reqired"] = json!(true);
    misspelt["hidden_field"] = json!(["pid"]);
    let (status, refused) = app
        .api(
            reqwest::Method::POST,
            "/api/v1/surveys",
            &key,
            Some(misspelt),
        )
        .await;
    assert_eq!(status, 422, "{refused}");
    for field in ["questions[0].reqired", "hidden_field"] {
        assert!(
            refused["fields"][field]
                .as_str()
                .is_some_and(|said| said.contains("no such field")),
            "{field}: {refused}"
        );
    }
    let (status, listed) = app
        .api(reqwest::Method::GET, "/api/v1/surveys", &key, None)
        .await;
    assert_eq!(status, 200);
    assert_eq!(listed["surveys"], json!([]), "nothing was saved: {listed}");

    // What the API sends back may be sent again as it is.
    let created = app.create_survey(&key, definition()).await;
    let (status, again) = app
        .api(
            reqwest::Method::PUT,
            "/api/v1/surveys/team-offsite",
            &key,
            Some(created.clone()),
        )
        .await;
    assert_eq!(status, 200, "{again}");
    assert_eq!(again["questions"], created["questions"]);
}

#[tokio::test]
async fn every_problem_of_a_definition_is_listed_in_one_answer() {
    let app = spawn_app().await;
    let key = app.api_tenant("acme").await;
    let (status, body) = app
        .api(
            reqwest::Method::POST,
            "/api/v1/surveys",
            &key,
            Some(json!({
                "title": "",
                "languages": ["en", "French"],
                "resume_days": 0,
                "questions": [
                    {"id": "q1", "text": "", "help": "h".repeat(501), "type": "single_choice",
                     "options": ["Only one"]},
                    {"id": "q2", "text": "Fine?", "type": "scale", "points": 40},
                ],
            })),
        )
        .await;
    assert_eq!(status, 422, "{body}");
    // One save shows them all: the survey's fields, and each question's fields together.
    for field in [
        "title",
        "languages[1]",
        "resume_days",
        "questions[0].text",
        "questions[0].help",
        "questions[0].options",
        "questions[1].points",
    ] {
        assert!(
            body["fields"][field].is_string(),
            "no error at {field}: {body}"
        );
    }
}
