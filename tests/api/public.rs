//! The respondent's path over HTTP: survey lists, forms, validation, the delayed write to the
//! right queue, oversized answers, duplicate submissions, caching and bad requests.

use std::time::Duration;

use canvass::domain::{QuestionKind, Subscription};
use canvass::storage::{self, Operation, QueueName};
use canvass::stores::{AnswerMessage, keys};

use crate::helpers::{
    question, spawn_app, spawn_app_configured, spawn_app_with, survey, test_settings, token_in,
};

const DEMO: &str = "demo";
const DEMO_SURVEY: &str = "customer-satisfaction";

fn queue(name: &str) -> QueueName {
    QueueName::parse(name).expect("a queue name")
}

/// Every message waiting on a queue, decoded.
async fn messages(app: &crate::helpers::TestApp, name: &str) -> Vec<AnswerMessage> {
    let mut all = Vec::new();
    loop {
        let batch = app
            .storage
            .queues
            .get(&queue(name), 32, Duration::from_secs(60))
            .await
            .expect("received");
        if batch.is_empty() {
            return all;
        }
        all.extend(
            batch
                .iter()
                .map(|m| serde_json::from_slice(&m.body).expect("an answer message")),
        );
    }
}

fn colours() -> Vec<canvass::domain::Question> {
    vec![
        question("name", true, QuestionKind::ShortText),
        question("notes", false, QuestionKind::LongText),
        question(
            "colour",
            true,
            QuestionKind::SingleChoice {
                options: vec!["Red".into(), "Green & Blue".into()],
                other: false,
            },
        ),
        question(
            "pets",
            false,
            QuestionKind::MultipleChoice {
                options: vec!["Cat".into(), "Dog".into()],
                other: false,
            },
        ),
        question("rating", false, QuestionKind::FiveStars),
        question(
            "age",
            false,
            QuestionKind::Numeric {
                min: Some(0.0),
                max: Some(130.0),
                integer: true,
            },
        ),
    ]
}

#[tokio::test]
async fn a_tenant_page_lists_only_its_published_surveys() {
    let app = spawn_app().await;
    let mut draft = survey("acme", "draft", "Secret draft", colours());
    draft.published = false;
    app.add_tenant(
        "acme",
        Subscription::Standard,
        &[survey("acme", "open", "Open survey", colours()), draft],
    )
    .await;

    let response = app.get("/s/acme").await;

    assert_eq!(response.status(), 200);
    let html = response.text().await.expect("a body");
    assert!(html.contains(r#"href="/s/acme/open""#), "{html}");
    assert!(!html.contains("Secret draft"));
}

#[tokio::test]
async fn the_demo_survey_form_has_an_accessible_input_for_every_question_type() {
    let app = spawn_app().await;

    let html = app.form(DEMO, DEMO_SURVEY).await;

    for expected in [
        r#"<form class="survey" method="post" action="/s/demo/customer-satisfaction">"#,
        r#"<fieldset id="q-overall""#,
        r#"type="radio" name="q-overall" value="5""#,
        r#"type="radio" name="q-drink" value="Tea""#,
        r#"type="checkbox" name="q-liked" value="Taste""#,
        r#"<label class="prompt" for="q-wait">"#,
        r#"type="number" inputmode="decimal" step="1" min="0" max="120""#,
        r#"<input id="q-location" name="q-location" type="text""#,
        r#"<textarea id="q-comments" name="q-comments""#,
        "<legend>",
    ] {
        assert!(html.contains(expected), "missing {expected}");
    }
    assert!(!token_in(&html).is_empty());
}

#[tokio::test]
async fn a_valid_answer_is_thanked_with_its_reference_and_queued_whole() {
    let app = spawn_app().await;

    let response = app
        .answer(
            DEMO,
            DEMO_SURVEY,
            &[
                ("overall", "4"),
                ("drink", "Tea"),
                ("liked", "Taste"),
                ("liked", "Speed"),
                ("wait", "3"),
            ],
        )
        .await;

    assert_eq!(response.status(), 303);
    let location = response.headers()["location"]
        .to_str()
        .expect("ascii")
        .to_owned();
    assert!(
        location.starts_with("/s/demo/customer-satisfaction/thanks/"),
        "{location}"
    );
    let reference = crate::helpers::reference_in(&location).to_string();
    let thanks = app.get(&location).await;
    assert_eq!(thanks.status(), 200);
    assert!(thanks.text().await.expect("a body").contains(&format!(
        r#"<strong class="reference">{reference}</strong>"#
    )));

    let queued = messages(&app, "answers-standard").await;
    assert_eq!(queued.len(), 1);
    let AnswerMessage::Answer { answer } = &queued[0] else {
        panic!("a whole answer: {queued:?}")
    };
    assert_eq!(answer.reference.to_string(), reference);
    assert_eq!(answer.survey_version, 1);
    assert_eq!(answer.values.len(), 4);
}

#[tokio::test]
async fn a_premium_tenants_answers_go_to_the_premium_queue() {
    let app = spawn_app().await;
    app.add_tenant(
        "gold",
        Subscription::Premium,
        &[survey("gold", "team", "Team", colours())],
    )
    .await;

    let response = app
        .answer("gold", "team", &[("name", "Ada"), ("colour", "Red")])
        .await;

    assert_eq!(response.status(), 303);
    assert_eq!(messages(&app, "answers-premium").await.len(), 1);
    assert!(messages(&app, "answers-standard").await.is_empty());
}

#[tokio::test]
async fn the_request_makes_a_single_storage_write_for_a_small_answer() {
    let app = spawn_app().await;
    let token = token_in(&app.form(DEMO, DEMO_SURVEY).await);
    let before = app.storage.transactions();

    let response = app
        .submit(
            DEMO,
            DEMO_SURVEY,
            &token,
            &[("overall", "5"), ("drink", "Tea")],
        )
        .await;

    assert_eq!(response.status(), 303);
    let delta = app.storage.transactions().since(&before);
    assert_eq!(delta.of(Operation::Add), 1);
    assert_eq!(
        delta.total(),
        1,
        "one queue add and nothing else: {delta:?}"
    );
}

#[tokio::test]
async fn an_answer_too_large_for_a_message_goes_to_a_blob_with_a_pointer_message() {
    let app = spawn_app().await;
    let long = "All good. ".repeat(9_000);
    let token = token_in(&app.form(DEMO, DEMO_SURVEY).await);

    let response = app
        .submit(
            DEMO,
            DEMO_SURVEY,
            &token,
            &[("overall", "3"), ("drink", "Espresso"), ("comments", &long)],
        )
        .await;

    assert_eq!(response.status(), 303);
    let queued = messages(&app, "answers-standard").await;
    assert_eq!(queued.len(), 1);
    let AnswerMessage::Pointer { .. } = &queued[0] else {
        panic!("a pointer: {queued:?}")
    };
    let (survey, reference) = queued[0].addressee();
    let blob = app
        .storage
        .blobs
        .get(&keys::incoming_answer(&survey, reference))
        .await
        .expect("the answer is in its incoming blob");
    let answer: canvass::domain::Answer = serde_json::from_slice(&blob.body).expect("an answer");
    let comments = canvass::domain::QuestionId::parse("comments").expect("an id");
    assert_eq!(
        answer.values[&comments],
        canvass::domain::AnswerValue::Text(long.trim().to_owned())
    );
}

#[tokio::test]
async fn submitting_the_same_form_twice_gives_the_same_thanks_and_reference() {
    let app = spawn_app().await;
    let token = token_in(&app.form(DEMO, DEMO_SURVEY).await);
    let answers = [("overall", "5"), ("drink", "Tea")];

    let first = app.submit(DEMO, DEMO_SURVEY, &token, &answers).await;
    let second = app.submit(DEMO, DEMO_SURVEY, &token, &answers).await;

    assert_eq!(first.status(), 303);
    assert_eq!(second.status(), 303);
    assert_eq!(first.headers()["location"], second.headers()["location"]);
    let references: Vec<_> = messages(&app, "answers-standard")
        .await
        .into_iter()
        .map(|m| match m {
            AnswerMessage::Answer { answer } => answer.reference,
            other => panic!("a whole answer: {other:?}"),
        })
        .collect();
    assert_eq!(references.len(), 2);
    assert_eq!(
        references[0], references[1],
        "both posts are one answer for the worker"
    );
}

#[tokio::test]
async fn each_form_carries_a_different_reference() {
    let app = spawn_app().await;

    let first = token_in(&app.form(DEMO, DEMO_SURVEY).await);
    let second = token_in(&app.form(DEMO, DEMO_SURVEY).await);

    assert_ne!(first.split('.').next(), second.split('.').next());
}

#[tokio::test]
async fn each_invalid_answer_is_shown_beside_its_field_with_the_input_kept() {
    let app = spawn_app().await;
    app.add_tenant(
        "acme",
        Subscription::Standard,
        &[survey("acme", "colours", "Colours", colours())],
    )
    .await;
    let token = token_in(&app.form("acme", "colours").await);
    let too_long = "x".repeat(501);

    for (case, answers, question, message) in [
        (
            "required",
            vec![("colour", "Red")],
            "name",
            "Please answer this question.",
        ),
        (
            "not an option",
            vec![("name", "Ada"), ("colour", "Purple")],
            "colour",
            "Please choose one of the options listed.",
        ),
        (
            "out of range",
            vec![("name", "Ada"), ("colour", "Red"), ("age", "200")],
            "age",
            "Please enter a number from 0 to 130.",
        ),
        (
            "not a number",
            vec![("name", "Ada"), ("colour", "Red"), ("age", "old")],
            "age",
            "Please enter a number, like 42 or 3.5.",
        ),
        (
            "too long",
            vec![("name", too_long.as_str()), ("colour", "Red")],
            "name",
            "Please shorten your answer to 500 characters (it has 501).",
        ),
        (
            "bad rating",
            vec![("name", "Ada"), ("colour", "Red"), ("rating", "9")],
            "rating",
            "Please give a rating from 1 to 5 stars.",
        ),
        (
            "unknown pet",
            vec![("name", "Ada"), ("colour", "Red"), ("pets", "Fish")],
            "pets",
            "&#34;Fish&#34; is not one of the options listed.",
        ),
    ] {
        let response = app.submit("acme", "colours", &token, &answers).await;

        assert_eq!(response.status(), 422, "case {case}");
        let html = response.text().await.expect("a body");
        let beside = format!(r#"<p class="field-error" id="q-{question}-error">{message}</p>"#);
        assert!(html.contains(&beside), "case {case}: no {beside}");
        assert!(
            html.contains(&format!(r#"name="token" value="{token}""#)),
            "case {case}: token kept"
        );
    }
    let response = app
        .submit(
            "acme",
            "colours",
            &token,
            &[
                ("name", "Ada <b>"),
                ("colour", "Green & Blue"),
                ("age", "200"),
            ],
        )
        .await;
    let html = response.text().await.expect("a body");
    assert!(
        html.contains(r#"value="Ada &#60;b&#62;""#),
        "text kept, escaped"
    );
    assert!(
        html.contains(r#"value="Green &#38; Blue" checked"#),
        "choice kept"
    );
    assert!(html.contains(r#"value="200""#), "number kept");
    assert!(
        messages(&app, "answers-standard").await.is_empty(),
        "nothing invalid is queued"
    );
}

#[tokio::test]
async fn survey_text_is_escaped_so_a_script_title_renders_inert() {
    let app = spawn_app().await;
    let mut evil = survey(
        "acme",
        "evil",
        "<script>alert(1)</script>",
        vec![question("q", false, QuestionKind::ShortText)],
    );
    evil.questions[0].text = "<img src=x onerror=alert(2)>".into();
    app.add_tenant("acme", Subscription::Standard, &[evil])
        .await;

    for path in ["/s/acme", "/s/acme/evil"] {
        let html = app.get(path).await.text().await.expect("a body");

        assert!(!html.contains("<script>alert(1)</script>"), "case {path}");
        assert!(!html.contains("<img src=x"), "case {path}");
        assert!(
            html.contains("&#60;script&#62;alert(1)&#60;/script&#62;"),
            "case {path}"
        );
    }
}

#[tokio::test]
async fn unknown_or_unpublished_surveys_are_404_pages() {
    let app = spawn_app().await;
    let mut draft = survey("acme", "draft", "Draft", colours());
    (draft.published, draft.was_published) = (false, false);
    app.add_tenant("acme", Subscription::Standard, &[draft])
        .await;

    for path in [
        "/s/nobody",
        "/s/nobody/survey",
        "/s/acme/missing",
        "/s/acme/draft",
        "/s/Bad%20Slug",
        "/s/demo/customer-satisfaction/thanks/not-a-number",
    ] {
        let response = app.get(path).await;
        assert_eq!(response.status(), 404, "case {path}");
        assert!(
            response
                .text()
                .await
                .expect("a body")
                .contains("Page not found"),
            "case {path}"
        );
    }
    let response = app.post_raw("acme", "draft", b"token=x".to_vec()).await;
    assert_eq!(response.status(), 404);
}

#[tokio::test]
async fn a_body_over_the_limit_gets_a_readable_413_page() {
    let mut settings = test_settings();
    settings.max_body_bytes = 64 * 1024;
    let app = spawn_app_configured(storage::memory::storage(), settings).await;

    let response = app
        .post_raw(DEMO, DEMO_SURVEY, vec![b'a'; 200 * 1024])
        .await;

    assert_eq!(response.status(), 413);
    let html = response.text().await.expect("a body");
    assert!(html.contains("Your answers are too large"), "{html}");
    assert!(html.contains("at most 64 KB"), "{html}");
}

#[tokio::test]
async fn malformed_encodings_and_bad_tokens_are_400_pages() {
    let app = spawn_app().await;
    let token = token_in(&app.form(DEMO, DEMO_SURVEY).await);
    let other_survey_token = {
        app.add_tenant(
            "acme",
            Subscription::Standard,
            &[survey("acme", "colours", "Colours", colours())],
        )
        .await;
        token_in(&app.form("acme", "colours").await)
    };
    let tampered = token.replacen(token.split('.').next().expect("a reference"), "999999", 1);

    for (case, body) in [
        ("bad escape", format!("token={token}&q-overall=%ZZ")),
        ("bad utf-8", format!("token={token}&q-overall=%FF%FE")),
        ("no token", "q-overall=5&q-drink=Tea".to_owned()),
        (
            "forged token",
            "token=1234.demo.customer-satisfaction.AAAA&q-overall=5&q-drink=Tea".to_owned(),
        ),
        (
            "tampered token",
            format!("token={tampered}&q-overall=5&q-drink=Tea"),
        ),
        (
            "another survey's token",
            format!("token={other_survey_token}&q-overall=5&q-drink=Tea"),
        ),
    ] {
        let response = app.post_raw(DEMO, DEMO_SURVEY, body.into_bytes()).await;

        assert_eq!(response.status(), 400, "case {case}");
        assert!(
            response
                .text()
                .await
                .expect("a body")
                .contains("This request could not be accepted"),
            "case {case}"
        );
    }
    let raw = app
        .post_raw(DEMO, DEMO_SURVEY, vec![0xff, 0xfe, 0x00])
        .await;
    assert_eq!(raw.status(), 400, "case binary body");
    assert!(messages(&app, "answers-standard").await.is_empty());
}

#[tokio::test]
async fn a_second_view_of_a_survey_makes_no_storage_call() {
    let app = spawn_app().await;
    app.form(DEMO, DEMO_SURVEY).await;
    let before = app.storage.transactions();

    app.form(DEMO, DEMO_SURVEY).await;

    assert_eq!(app.storage.transactions().since(&before).total(), 0);
}

#[tokio::test]
async fn the_respondents_path_works_on_the_local_backend() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let local = storage::local::storage(dir.path())
        .await
        .expect("local storage opens");
    let app = spawn_app_with(local).await;

    let response = app
        .answer(DEMO, DEMO_SURVEY, &[("overall", "2"), ("drink", "Tea")])
        .await;

    assert_eq!(response.status(), 303);
    assert_eq!(messages(&app, "answers-standard").await.len(), 1);
}
