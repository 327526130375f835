//! Calculations, validation and scoring over HTTP: variables, scores, correct answers and the
//! ending computed on the server from the checked answers and stored with the response (the
//! API, downloads, the summary), a validation that no tampered form gets past, the quiz
//! result on a thank-you page that cannot be rewritten, and every bad expression refused
//! with its field.

use reqwest::Method;
use reqwest::header::LOCATION;
use serde_json::{Value, json};

use crate::helpers::{TestApp, spawn_app, token_in};

fn definition() -> Value {
    json!({
        "title": "Capitals quiz",
        "variables": [
            {"id": "total", "expression": "score * 10.0"},
            {"id": "band", "expression": "v.total >= 30.0 ? 'high' : 'low'"}
        ],
        "endings": [
            {"id": "top", "if": "v.total >= 30.0", "text": "Top marks, well done."},
            {"id": "rest", "text": "Thanks for trying."}
        ],
        "quiz": {"show_score": true, "show_answers": true},
        "pages": [
            {"questions": [
                {"id": "capital", "text": "The capital of France?", "type": "single_choice",
                 "options": ["Paris", "Lyon", "Nice"], "scores": [2, 0, 0], "correct": ["Paris"]},
                {"id": "planets", "text": "Which are planets?", "type": "multiple_choice",
                 "options": ["Mars", "Moon", "Venus"], "scores": [1, -1, 1],
                 "correct": ["Mars", "Venus"]}]},
            {"show_if": {"expression": "v.total >= 30.0"},
             "questions": [
                {"id": "a", "text": "Share for A (%), after {{v:total}} points ({{v:band}})",
                 "type": "numeric", "required": true},
                {"id": "b", "text": "Share for B (%)", "type": "numeric", "required": true,
                 "validate": {"expression": "q.a + q.b == 100.0",
                              "message": "The two shares add up to 100."}}]}
        ]
    })
}

use crate::hidden_fields::client;

async fn post(app: &TestApp, fields: &[(&str, &str)]) -> reqwest::Response {
    post_to(app, "capitals-quiz", fields).await
}

#[tokio::test]
async fn scores_variables_and_the_ending_are_computed_stored_exported_and_shown() {
    let app = spawn_app().await;
    let key = app.api_tenant("acme").await;
    let survey = app.published_survey(&key, definition()).await;
    assert_eq!(
        survey["variables"][1]["expression"],
        "v.total >= 30.0 ? 'high' : 'low'"
    );
    assert_eq!(
        survey["pages"][0]["questions"][0]["scores"],
        json!([2.0, 0.0, 0.0])
    );
    let token = token_in(&app.form("acme", "capitals-quiz").await);
    // All correct, and the form tries to set what only the server computes.
    let first = [
        ("token", token.as_str()),
        ("page", "0"),
        ("nav", "next"),
        ("q-capital", "Paris"),
        ("q-planets", "Mars"),
        ("q-planets", "Venus"),
        ("v-total", "999"),
        ("score", "999"),
        ("ending", "rest"),
    ];
    let second = post(&app, &first).await;
    assert_eq!(second.status(), 200);
    let second = second.text().await.expect("a page");
    assert!(
        second.contains("Share for A (%), after 40 points (high)"),
        "a page shown by an expression on a variable, recalling variables: {second}"
    );
    let sent = post(
        &app,
        &[
            first.as_slice(),
            &[("page", "1"), ("q-a", "60"), ("q-b", "40")],
        ]
        .concat(),
    )
    .await;
    assert_eq!(sent.status(), 303);
    let thanks = sent.headers()[LOCATION]
        .to_str()
        .expect("a location")
        .to_owned();
    assert!(thanks.contains("result=top~4~11"), "{thanks}");
    let page = app.get(&thanks).await.text().await.expect("a page");
    for shown in [
        "Top marks, well done.",
        "Your score: 4",
        "2 of 2 answers correct",
        "Correct answer: Paris",
        "Correct answer: Mars; Venus",
    ] {
        assert!(page.contains(shown), "{shown} in {page}");
    }
    // A result rewritten in the link is not shown.
    let forged = thanks.replace("result=top~4~11", "result=top~99~11");
    let page = app.get(&forged).await.text().await.expect("a page");
    assert!(!page.contains("Your score"), "{page}");

    let list = app.counted_responses(&key, "capitals-quiz").await;
    let response = &list[0];
    assert_eq!(
        response["variables"],
        json!({"total": 40.0, "band": "high"})
    );
    assert_eq!(response["score"], 4.0);
    assert_eq!(response["correct"], 2);
    assert_eq!(response["ending"], "top");
    let csv = app.responses_csv(&key, "capitals-quiz").await;
    let header = csv.lines().next().expect("a header");
    assert!(
        header.contains("v.total,v.band,Score,Correct,Ending"),
        "{header}"
    );
    let row = csv.lines().last().expect("a row");
    assert!(row.contains("40,high,4,2,top"), "{csv}");
    let (status, summary) = app
        .api(
            Method::GET,
            "/api/v1/surveys/capitals-quiz/summary",
            &key,
            None,
        )
        .await;
    assert_eq!(status, 200);
    assert_eq!(
        summary["endings"],
        json!([{"id": "top", "count": 1}, {"id": "rest", "count": 0}])
    );
}

#[tokio::test]
async fn a_validation_refuses_with_the_owners_message_and_a_wrong_quiz_ends_elsewhere() {
    let app = spawn_app().await;
    let key = app.api_tenant("acme").await;
    app.published_survey(&key, definition()).await;
    let token = token_in(&app.form("acme", "capitals-quiz").await);
    let answers = [
        ("token", token.as_str()),
        ("page", "1"),
        ("nav", "next"),
        ("q-capital", "Paris"),
        ("q-planets", "Mars"),
        ("q-planets", "Venus"),
        ("q-a", "60"),
        ("q-b", "30"),
    ];
    // Sent straight to the last step, the shares that do not add up are still checked.
    let refused = post(&app, &answers).await;
    assert_eq!(refused.status(), 422);
    let page = refused.text().await.expect("a page");
    assert!(page.contains("The two shares add up to 100."), "{page}");
    assert!(
        app.counted_responses(&key, "capitals-quiz")
            .await
            .as_array()
            .expect("a list")
            .is_empty()
    );

    // One answer wrong: 2 + 1 - 1 = 2 points, below the band; the last page is not shown.
    let token = token_in(&app.form("acme", "capitals-quiz").await);
    let sent = post(
        &app,
        &[
            ("token", token.as_str()),
            ("page", "0"),
            ("nav", "next"),
            ("q-capital", "Paris"),
            ("q-planets", "Mars"),
            ("q-planets", "Moon"),
        ],
    )
    .await;
    assert_eq!(sent.status(), 303);
    let thanks = sent.headers()[LOCATION]
        .to_str()
        .expect("a location")
        .to_owned();
    let page = app.get(&thanks).await.text().await.expect("a page");
    assert!(page.contains("Thanks for trying."), "{page}");
    assert!(page.contains("1 of 2 answers correct"), "{page}");
    let list = app.counted_responses(&key, "capitals-quiz").await;
    let response = &list[0];
    assert_eq!(response["variables"], json!({"total": 20.0, "band": "low"}));
    assert_eq!(response["ending"], "rest");
    assert_eq!(response["skipped"], json!(["a", "b"]));
}

#[tokio::test]
async fn bad_expressions_scores_and_endings_are_refused_at_their_fields() {
    let app = spawn_app().await;
    let key = app.api_tenant("acme").await;
    // Questions' own problems are found first; the expressions once those are right.
    let questions = json!([
        {"id": "x", "text": "X?", "type": "numeric",
         "validate": {"expression": "q.y > 1.0", "message": "no"}},
        {"id": "y", "text": "Y?", "type": "single_choice", "options": ["A", "B"],
         "scores": [1], "correct": ["C"]},
        {"id": "z", "text": "Z?", "type": "short_text", "scores": [1]}
    ]);
    let mut definition = json!({
        "title": "Bad",
        "variables": [
            {"id": "early", "expression": "v.later + 1.0"},
            {"id": "later", "expression": "q.x +"},
            {"id": "Bad", "expression": "1"},
            {"id": "loops", "expression": "[1, 2].all(x, [3].exists(y, y == x))"},
            {"id": "deep", "expression": format!("{}1{}", "(".repeat(34), ")".repeat(34))}
        ],
        "endings": [{"id": "e", "if": "h.nope == 'x'"}, {"id": "f", "redirect": "http://x.example"}],
        "questions": questions
    });
    // Each round: a change to the definition, then what the fields say.
    type Round = (fn(&mut Value), &'static [(&'static str, &'static str)]);
    let rounds: [Round; 3] = [
        (
            |_| {},
            &[
                ("questions[1].scores", "one score per option"),
                ("questions[2].scores", "only a single choice"),
            ],
        ),
        (
            |d| {
                d["questions"][1]["scores"] = json!([1, 0]);
                d["questions"].as_array_mut().expect("a list").pop();
            },
            &[("questions[1].correct", "not one of its options")],
        ),
        (
            |d| d["questions"][1]["correct"] = json!(["A"]),
            &[
                ("variables[0].expression", "v.later"),
                ("variables[1].expression", "not a valid expression"),
                ("variables[2].id", "lowercase letter"),
                ("variables[3].expression", "may not hold another"),
                ("variables[4].expression", "nested too deeply"),
                ("questions[0].validate.expression", "q.y"),
                ("endings[0].if", "h.nope"),
                ("endings[1].redirect", "https"),
            ],
        ),
    ];
    for (change, expected) in rounds {
        change(&mut definition);
        let (status, body) = app
            .api(
                Method::POST,
                "/api/v1/surveys",
                &key,
                Some(definition.clone()),
            )
            .await;
        assert_eq!(status, 422, "{body}");
        for (field, part) in expected {
            assert!(
                body["fields"][field]
                    .as_str()
                    .is_some_and(|m| m.contains(part)),
                "{field} should say {part:?}: {body}"
            );
        }
    }
}

#[tokio::test]
async fn a_quota_takes_no_expression() {
    let app = spawn_app().await;
    let key = app.api_tenant("acme").await;
    let bad = json!({
        "title": "Quota",
        "questions": [{"id": "x", "text": "X?", "type": "numeric"}],
        "quotas": [{"name": "Q", "limit": 1, "when": {"expression": "q.x > 1.0"}}]
    });
    let (status, body) = app
        .api(Method::POST, "/api/v1/surveys", &key, Some(bad))
        .await;
    assert_eq!(status, 422, "{body}");
    assert!(body.to_string().contains("not expressions"), "{body}");
}

#[tokio::test]
async fn the_designer_sets_scores_rules_calculations_endings_and_the_quiz() {
    use crate::designer_saves::set;
    use crate::owner::{Owner, form_fields};
    let app = spawn_app().await;
    let owner = Owner::signed_up(&app, "Acme", "acme", "owner@acme.test").await;
    let slug = owner.design("Team day").await;
    let path = format!("/tenant/surveys/{slug}");
    let page = owner.page(&path).await;
    assert!(
        page.contains(r#"<details class="panel settings-fold" id="panel-calculations">"#),
        "folded while unused: {page}"
    );
    let mut form = form_fields(&page, r#"<form class="designer"#);
    // "Where?" (q2) scores and a correct answer; "Budget" (q5) a rule; a wrong ending first.
    set(&mut form, "q2.scores", "3, x");
    set(&mut form, "q2.correct", "Beach");
    set(&mut form, "q5.validate", "q.nope > 1.0");
    set(&mut form, "q5.validate_message", "Keep it under 500.");
    set(&mut form, "variables", "points = score * 2.0");
    set(&mut form, "quiz_show_score", "on");
    set(&mut form, "ending0.id", "beach");
    set(&mut form, "ending0.if", "score >=");
    set(&mut form, "ending0.text", "Sun cream!");
    set(&mut form, "action", "save");
    let refused = owner.post_owned(&path, &form).await;
    assert_eq!(refused.status(), 422);
    let page = refused.text().await.expect("a page");
    assert!(page.contains("one number per option"), "{page}");
    assert!(page.contains(r#"id="panel-calculations" open>"#), "{page}");
    set(&mut form, "q2.scores", "3, 0");
    let refused = owner.post_owned(&path, &form).await;
    assert_eq!(refused.status(), 422);
    let page = refused.text().await.expect("a page");
    assert!(
        page.contains(r##"<a href="#ending0-if">Ending 1</a>"##),
        "{page}"
    );
    assert!(page.contains("q.nope"), "{page}");
    let budget = crate::owner::field_of(&form, "q5.id");
    set(&mut form, "q5.validate", &format!("q.{budget} < 500.0"));
    set(&mut form, "ending0.if", "score >= 3.0");
    let saved = owner.post_owned(&path, &form).await;
    let status = saved.status();
    assert_eq!(status, 303, "{}", saved.text().await.unwrap_or_default());

    let key = owner.api_key("script").await;
    let (_, survey) = app
        .api(Method::GET, &format!("/api/v1/surveys/{slug}"), &key, None)
        .await;
    assert_eq!(
        survey["variables"],
        json!([{"id": "points", "expression": "score * 2.0"}])
    );
    assert_eq!(
        survey["endings"],
        json!([{"id": "beach", "if": "score >= 3.0", "text": "Sun cream!"}])
    );
    assert_eq!(
        survey["quiz"],
        json!({"show_score": true, "show_answers": false})
    );
    let questions = &survey["pages"][0]["questions"];
    let questions = match questions.is_array() {
        true => questions.clone(),
        false => survey["questions"].clone(),
    };
    assert_eq!(questions[2]["scores"], json!([3.0, 0.0]));
    assert_eq!(questions[2]["correct"], json!(["Beach"]));
    assert_eq!(
        questions[5]["validate"],
        json!({"expression": format!("q.{budget} < 500.0"), "message": "Keep it under 500."})
    );
    // Drawn again, the form holds what was saved.
    let page = owner.page(&path).await;
    for shown in [
        r#"value="3, 0""#,
        "points = score * 2.0",
        r#"value="score &#62;= 3.0""#,
    ] {
        assert!(page.contains(shown), "{shown} in {page}");
    }
    // Answered, the response's page lists what was computed.
    let publish = format!("/api/v1/surveys/{slug}/publish");
    assert_eq!(app.api(Method::POST, &publish, &key, None).await.0, 200);
    let token = token_in(&app.form("acme", &slug).await);
    let place = format!("q-{}", crate::owner::field_of(&form, "q2.id"));
    let fields = [("token", token.as_str()), (place.as_str(), "Beach")];
    assert_eq!(post_to(&app, &slug, &fields).await.status(), 303);
    crate::helpers::drain(&app.stores().await).await;
    let response = owner.page(&format!("{path}/responses/1")).await;
    for shown in [
        "<h2>Computed</h2>",
        "<dt>Score</dt><dd>3</dd>",
        "<dt>Correct answers</dt><dd>1</dd>",
        "<dt>Ending</dt><dd>beach</dd>",
        "<dt>v.points</dt><dd>6</dd>",
    ] {
        assert!(response.contains(shown), "{shown} in {response}");
    }
}

#[tokio::test]
async fn results_are_divided_by_a_links_value_and_by_a_variables_band() {
    let app = spawn_app().await;
    let key = app.api_tenant("acme").await;
    let definition = json!({
        "title": "Banded",
        "hidden_fields": ["source"],
        "segment_hidden": ["source"],
        "variables": [
            {"id": "band", "segment": true,
             "expression": "q.age < 30.0 ? 'under 30' : '30 and over'"}
        ],
        "questions": [{"id": "age", "text": "Your age", "type": "numeric", "required": true}]
    });
    let survey = app.published_survey(&key, definition).await;
    assert_eq!(survey["segment_hidden"], json!(["source"]));
    for (source, age) in [("mail", "25"), ("web", "41"), ("mail", "52")] {
        let form = app
            .get(&format!("/s/acme/banded?source={source}"))
            .await
            .text()
            .await
            .expect("a form");
        let token = token_in(&form);
        let sent = post_to(
            &app,
            "banded",
            &[
                ("token", token.as_str()),
                ("h-source", source),
                ("q-age", age),
            ],
        )
        .await;
        assert_eq!(sent.status(), 303);
    }
    crate::helpers::settle(&app.stores().await).await;
    let summary = |segment: &'static str| {
        let app = &app;
        let key = &key;
        async move {
            let path = format!("/api/v1/surveys/banded/summary?segment={segment}");
            let (status, body) = app.api(Method::GET, &path, key, None).await;
            assert_eq!(status, 200, "{body}");
            body
        }
    };
    assert_eq!(summary("@hidden.source:mail").await["total"], 2);
    assert_eq!(summary("@hidden.source:web").await["total"], 1);
    let over = summary("@variable.band:30%20and%20over").await;
    assert_eq!(over["total"], 2, "{over}");
    let segments: Vec<(String, u64)> = over["segments"]
        .as_array()
        .expect("segments")
        .iter()
        .map(|s| {
            (
                s["id"].as_str().unwrap_or("").to_owned(),
                s["total"].as_u64().unwrap_or(0),
            )
        })
        .collect();
    for expected in [
        ("@hidden.source:mail", 2),
        ("@hidden.source:web", 1),
        ("@variable.band:under 30", 1),
        ("@variable.band:30 and over", 2),
    ] {
        assert!(
            segments.contains(&(expected.0.to_owned(), expected.1)),
            "{expected:?} in {segments:?}"
        );
    }
    // A field the survey does not segment by is refused clearly.
    let (status, body) = app
        .api(
            Method::GET,
            "/api/v1/surveys/banded/summary?segment=@hidden.other:x",
            &key,
            None,
        )
        .await;
    assert_eq!(status, 400, "{body}");
}

pub(crate) async fn post_to(
    app: &TestApp,
    slug: &str,
    fields: &[(&str, &str)],
) -> reqwest::Response {
    client()
        .post(format!("{}/s/acme/{slug}", app.address))
        .form(fields)
        .send()
        .await
        .expect("answered")
}
