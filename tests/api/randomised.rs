//! Randomised orders, over HTTP: each respondent's options and a page's questions come in an
//! order drawn for their form, the same on every page and after a reload, recorded with the
//! response (`order`, a column in downloads) and never taken from what the browser sends;
//! answers and summaries keep the options' own labels.

use std::collections::BTreeSet;

use reqwest::Method;
use serde_json::{Value, json};

use crate::helpers::{TestApp, spawn_app, token_in};

fn definition() -> Value {
    json!({
        "title": "Order test",
        "pages": [
            {"randomize_questions": true, "questions": [
                {"id": "fruit", "text": "Which fruit?", "type": "single_choice", "required": true,
                 "options": ["Apple", "Banana", "Cherry", "Damson", "None of these"],
                 "randomize_options": true, "fixed_last": 1},
                {"id": "colour", "text": "Which colour?", "type": "short_text"},
                {"id": "size", "text": "Which size?", "type": "short_text"}]},
            {"questions": [{"id": "more", "text": "More?", "type": "long_text"}]}
        ]
    })
}

/// The option labels of `question` in the order the page shows them.
fn options_shown(page: &str, question: &str) -> Vec<String> {
    page.split(&format!(r#"name="q-{question}" value=""#))
        .skip(1)
        .filter_map(|rest| rest.split('"').next().map(str::to_owned))
        .collect()
}

/// The question ids in the order the page shows them.
fn questions_shown(page: &str) -> Vec<String> {
    page.split(r#"<div class="question"#)
        .skip(1)
        .filter_map(|rest| {
            let id = rest.split(r#"name="q-"#).nth(1)?.split('"').next()?;
            Some(id.to_owned())
        })
        .collect()
}

async fn first_page(app: &TestApp) -> String {
    app.form("acme", "order-test").await
}

#[tokio::test]
async fn each_form_draws_its_orders_keeps_them_and_records_them() {
    let app = spawn_app().await;
    let key = app.api_tenant("acme").await;
    let survey = app.published_survey(&key, definition()).await;
    assert_eq!(survey["questions"][0]["randomize_options"], true);
    assert_eq!(survey["questions"][0]["fixed_last"], 1);
    assert_eq!(survey["pages"][0]["randomize_questions"], true);

    // Many forms: the options come in several orders, "None of these" always last, and the
    // page's questions in several orders.
    let mut option_orders = BTreeSet::new();
    let mut question_orders = BTreeSet::new();
    for _ in 0..30 {
        let page = first_page(&app).await;
        let options = options_shown(&page, "fruit");
        assert_eq!(options.len(), 5, "{page}");
        assert_eq!(options[4], "None of these");
        option_orders.insert(options);
        let questions = questions_shown(&page);
        let mut sorted = questions.clone();
        sorted.sort();
        assert_eq!(sorted, ["colour", "fruit", "size"], "{page}");
        question_orders.insert(questions);
    }
    assert!(option_orders.len() > 5, "{option_orders:?}");
    assert!(question_orders.len() > 2, "{question_orders:?}");

    // One form keeps its orders: shown again (a wrong answer), the same.
    let page = first_page(&app).await;
    let token = token_in(&page);
    let (options, questions) = (options_shown(&page, "fruit"), questions_shown(&page));
    let post = |fields: Vec<(&'static str, String)>| {
        let app = &app;
        async move {
            app.client
                .post(format!("{}/s/acme/order-test", app.address))
                .form(&fields)
                .send()
                .await
                .expect("answered")
        }
    };
    let again = post(vec![
        ("token", token.clone()),
        ("page", "0".into()),
        ("nav", "next".into()),
    ])
    .await;
    assert_eq!(again.status(), 422, "the required fruit is missing");
    let again = again.text().await.expect("a page");
    assert_eq!(options_shown(&again, "fruit"), options);
    assert_eq!(questions_shown(&again), questions);

    // Sent, with an "order" field of its own making: the order recorded is the one shown.
    let sent = post(vec![
        ("token", token.clone()),
        ("page", "1".into()),
        ("nav", "next".into()),
        ("q-fruit", "Banana".into()),
        ("order", "forged".into()),
        ("q-order", "forged".into()),
    ])
    .await;
    assert_eq!(sent.status(), 303);
    let list = app.counted_responses(&key, "order-test").await;
    let response = &list[0];
    assert_eq!(response["values"]["fruit"], json!({"choice": "Banana"}));
    assert_eq!(
        response["order"],
        json!({"fruit": options, "page:0": questions}),
        "{response}"
    );
    // Summaries count by the option's own label, whatever order it was shown in.
    let (_, summary) = app
        .api(
            Method::GET,
            "/api/v1/surveys/order-test/summary",
            &key,
            None,
        )
        .await;
    assert!(summary.to_string().contains("Banana"), "{summary}");
    let csv = app.responses_csv(&key, "order-test").await;
    assert!(
        csv.lines()
            .next()
            .is_some_and(|h| h.contains("Order shown")),
        "{csv}"
    );
    assert!(
        csv.contains(r#"""fruit"":["#),
        "the order, as JSON in its cell: {csv}"
    );
}

#[tokio::test]
async fn only_choice_questions_draw_and_some_options_must_move() {
    let app = spawn_app().await;
    let key = app.api_tenant("acme").await;
    let (status, body) = app
        .api(
            Method::POST,
            "/api/v1/surveys",
            &key,
            Some(json!({"title": "Bad", "questions": [
                {"text": "Stars", "type": "five_stars", "randomize_options": true},
                {"text": "Pick", "type": "single_choice", "options": ["A", "B"],
                 "randomize_options": true, "fixed_last": 2},
                {"text": "Pick", "type": "dropdown", "options": ["A", "B"], "fixed_last": 1}
            ]})),
        )
        .await;
    assert_eq!(status, 422, "{body}");
    let fields = &body["fields"];
    assert!(
        fields["questions[0].randomize_options"].is_string(),
        "{body}"
    );
    assert!(fields["questions[1].fixed_last"].is_string(), "{body}");
    assert!(fields["questions[2].fixed_last"].is_string(), "{body}");
}

fn blocked() -> Value {
    json!({
        "title": "Page order",
        "randomize_pages": [1, 2],
        "pages": [
            {"title": "Start", "questions": [{"id": "start", "text": "Ready?", "type": "short_text"}]},
            {"title": "Tea page", "questions": [{"id": "tea", "text": "About tea?", "type": "short_text"}]},
            {"title": "Coffee page", "questions": [{"id": "coffee", "text": "About coffee?", "type": "short_text"}]},
            {"title": "End", "questions": [{"id": "end", "text": "Anything else?", "type": "short_text"}]}
        ]
    })
}

#[tokio::test]
async fn a_block_of_pages_comes_in_each_respondents_order_kept_and_recorded() {
    let app = spawn_app().await;
    let key = app.api_tenant("acme").await;
    let survey = app.published_survey(&key, blocked()).await;
    assert_eq!(survey["randomize_pages"], json!([1, 2]));
    let client = reqwest::Client::new();
    let post = |fields: Vec<(&'static str, String)>| {
        let client = client.clone();
        let url = format!("{}/s/acme/page-order", app.address);
        async move {
            let page = client
                .post(url)
                .form(&fields)
                .send()
                .await
                .expect("answered");
            page.text().await.expect("a page")
        }
    };
    let mut firsts = BTreeSet::new();
    let mut walked = None;
    for _ in 0..24 {
        let token = token_in(&app.form("acme", "page-order").await);
        let second = post(vec![
            ("token", token.clone()),
            ("page", "0".into()),
            ("nav", "next".into()),
            ("q-start", "yes".into()),
        ])
        .await;
        let first = match (second.contains("Tea page"), second.contains("Coffee page")) {
            (true, false) => "1",
            (false, true) => "2",
            _ => panic!("the second page is one of the block's: {second}"),
        };
        firsts.insert(first);
        // The same form, sent again from the start, meets the same order.
        let again = post(vec![
            ("token", token.clone()),
            ("page", "0".into()),
            ("nav", "next".into()),
            ("q-start", "yes".into()),
        ])
        .await;
        assert_eq!(again.contains("Tea page"), first == "1");
        walked.get_or_insert((token, first));
    }
    assert_eq!(firsts.len(), 2, "both orders are drawn: {firsts:?}");

    // One respondent through every page: the third page is the block's other one.
    let (token, first) = walked.expect("a walk");
    let mut fields = vec![
        ("token", token.clone()),
        ("nav", "next".into()),
        ("q-start", "yes".into()),
        ("q-tea", "green".into()),
        ("q-coffee", "black".into()),
    ];
    fields.push(("page", "1".into()));
    let third = post(fields.clone()).await;
    let other = if first == "1" {
        "Coffee page"
    } else {
        "Tea page"
    };
    assert!(third.contains(other), "{third}");
    fields.retain(|(name, _)| *name != "page");
    fields.push(("page", "2".into()));
    let fourth = post(fields.clone()).await;
    assert!(fourth.contains("Anything else?"), "{fourth}");
    fields.retain(|(name, _)| *name != "page");
    fields.push(("page", "3".into()));
    fields.push(("q-end", "no".into()));
    post(fields).await;
    let list = app.counted_responses(&key, "page-order").await;
    let response = &list[0];
    let expected = if first == "1" {
        json!(["1", "2"])
    } else {
        json!(["2", "1"])
    };
    assert_eq!(response["order"]["pages"], expected, "{response}");
    assert_eq!(response["values"]["tea"]["text"], "green");
    assert_eq!(response["values"]["coffee"]["text"], "black");
}

#[tokio::test]
async fn a_block_whose_pages_jump_or_name_each_other_is_refused() {
    let app = spawn_app().await;
    let key = app.api_tenant("acme").await;
    for (change, says) in [
        (json!({"randomize_pages": [2, 2]}), "two or more"),
        (json!({"randomize_pages": [1, 4]}), "two or more"),
        (
            json!({"pages": [
                {"questions": [{"id": "start", "text": "Ready?", "type": "short_text"}],
                 "jumps": [{"if": {"question": "start", "answered": true}, "to": 2}]},
                {"questions": [{"id": "tea", "text": "About tea?", "type": "short_text"}]},
                {"questions": [{"id": "coffee", "text": "About coffee?", "type": "short_text"}]},
                {"questions": [{"id": "end", "text": "Anything else?", "type": "short_text"}]}]}),
            "a jump may lead only to its first page",
        ),
        (
            json!({"pages": [
                {"questions": [{"id": "start", "text": "Ready?", "type": "short_text"}]},
                {"questions": [{"id": "tea", "text": "About tea?", "type": "short_text"}]},
                {"questions": [{"id": "coffee", "text": "More than {{q:tea}}?", "type": "short_text"}]},
                {"questions": [{"id": "end", "text": "Anything else?", "type": "short_text"}]}]}),
            "names question \"tea\"",
        ),
    ] {
        let mut definition = blocked();
        for (name, value) in change.as_object().expect("an object") {
            definition[name] = value.clone();
        }
        let (status, body) = app
            .api(Method::POST, "/api/v1/surveys", &key, Some(definition))
            .await;
        assert_eq!(status, 422, "{body}");
        let said = body["fields"]["randomize_pages"].as_str().unwrap_or("");
        assert!(said.contains(says), "{says:?} in {body}");
    }
}
