//! Hidden fields, prefill and redirects, over HTTP as a panel's respondent meets them: the
//! address's values kept through every page and stored with the response (the API's
//! `hidden`, a `hidden.NAME` column in downloads), tested in conditions and recalled in texts;
//! a question filled in from the address only with a valid answer; the respondent sent on to
//! the panel with their values URL-encoded; and every bad name, value or address refused
//! clearly.

use reqwest::Method;
use reqwest::header::LOCATION;
use serde_json::{Value, json};

use crate::helpers::{TestApp, drain, spawn_app, token_in};

fn definition() -> Value {
    json!({
        "title": "Panel study",
        "hidden_fields": ["pid", "source"],
        "redirects": {
            "complete": "https://panel.example/done?cc=C0DE&pid={{h:pid}}&age={{q:age}}&r={{ref}}",
            "screened_out": "https://panel.example/out?pid={{h:pid}}",
            "closed": "https://panel.example/closed?pid={{h:pid}}"
        },
        "pages": [
            {"questions": [
                {"id": "age", "text": "Your age", "type": "numeric", "min": 18, "max": 99},
                {"id": "mailq", "text": "How did the mail read?", "type": "short_text",
                 "show_if": {"hidden": "source", "equals": "mail"}}]},
            {"questions": [
                {"id": "more", "type": "long_text",
                 "text": "Thanks, participant {{h:pid|unknown}}: anything else?"}]}
        ]
    })
}

/// A client that does not follow redirects, so a test sees where it is sent.
pub(crate) fn client() -> reqwest::Client {
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .expect("a client")
}

/// The hidden inputs a page carries, as `(name, value)`.
fn carried(page: &str) -> Vec<(String, String)> {
    page.split("<input type=\"hidden\" name=\"h-")
        .skip(1)
        .filter_map(|rest| {
            let (name, rest) = rest.split_once('"')?;
            let value = rest.split_once("value=\"")?.1.split_once('"')?.0;
            Some((name.to_owned(), value.to_owned()))
        })
        .collect()
}

async fn post(app: &TestApp, fields: &[(&str, &str)]) -> reqwest::Response {
    client()
        .post(format!("{}/s/acme/panel-study", app.address))
        .form(fields)
        .send()
        .await
        .expect("answered")
}

#[tokio::test]
async fn the_addresss_values_go_through_every_page_into_the_response_and_its_downloads() {
    let app = spawn_app().await;
    let key = app.api_tenant("acme").await;
    let survey = app.published_survey(&key, definition()).await;
    assert_eq!(survey["hidden_fields"], json!(["pid", "source"]));
    assert_eq!(
        survey["redirects"]["screened_out"],
        "https://panel.example/out?pid={{h:pid}}"
    );

    // The address gives the values and fills in the age; an unknown name is left alone.
    let first = app
        .get("/s/acme/panel-study?pid=P%2677&source=mail&utm=x&q.age=42")
        .await;
    assert_eq!(first.status(), 200);
    // Its forms may end at the panel's site, where the last page's answer is sent on.
    let policy = first.headers()["content-security-policy"]
        .to_str()
        .expect("ascii");
    assert!(
        policy.contains("form-action 'self' https://panel.example;"),
        "{policy}"
    );
    let first = first.text().await.expect("a page");
    assert_eq!(
        carried(&first),
        [
            ("pid".to_owned(), "P&#38;77".to_owned()),
            ("source".to_owned(), "mail".to_owned())
        ],
        "{first}"
    );
    assert!(
        first.contains(r#"value="42""#),
        "the age is filled in: {first}"
    );
    assert!(
        first.contains("How did the mail read?"),
        "a condition on a hidden field holds: {first}"
    );
    // Page 2 recalls the participant id, and still carries both values.
    let token = token_in(&first);
    let second = post(
        &app,
        &[
            ("token", token.as_str()),
            ("page", "0"),
            ("nav", "next"),
            ("h-pid", "P&77"),
            ("h-source", "mail"),
            ("q-age", "42"),
            ("q-mailq", "Clear"),
        ],
    )
    .await;
    assert_eq!(second.status(), 200);
    let second = second.text().await.expect("a page");
    assert!(
        second.contains("Thanks, participant P&#38;77: anything else?"),
        "{second}"
    );
    assert_eq!(carried(&second).len(), 2, "{second}");
    // Sent: the panel's completion link, each value URL-encoded.
    let sent = post(
        &app,
        &[
            ("token", token.as_str()),
            ("page", "1"),
            ("nav", "next"),
            ("h-pid", "P&77"),
            ("h-source", "mail"),
            ("q-age", "42"),
            ("q-mailq", "Clear"),
            ("q-more", "No"),
        ],
    )
    .await;
    assert_eq!(sent.status(), 303);
    let location = sent.headers()[LOCATION].to_str().expect("a location");
    let reference = location.rsplit("r=").next().expect("a reference");
    assert_eq!(
        location,
        format!("https://panel.example/done?cc=C0DE&pid=P%2677&age=42&r={reference}")
    );

    // Stored with the response: the API shows it, the downloads have a column each.
    let list = app.counted_responses(&key, "panel-study").await;
    let response = &list[0];
    assert_eq!(response["hidden"], json!({"pid": "P&77", "source": "mail"}));
    assert_eq!(response["reference"].to_string(), reference);
    let csv = app.responses_csv(&key, "panel-study").await;
    let mut lines = csv.lines();
    let header = lines.next().expect("a header");
    assert!(
        header.contains("hidden.pid,hidden.source"),
        "a column per hidden field: {header}"
    );
    let row = csv.lines().last().expect("a row");
    assert!(row.contains("P&77,mail"), "{csv}");
}

#[tokio::test]
async fn a_condition_on_a_hidden_field_fails_without_it_and_a_bad_prefill_is_not_filled_in() {
    let app = spawn_app().await;
    let key = app.api_tenant("acme").await;
    app.published_survey(&key, definition()).await;
    let page = app
        .get("/s/acme/panel-study?source=web&q.age=12&q.nope=1")
        .await
        .text()
        .await
        .expect("a page");
    assert!(!page.contains("How did the mail read?"), "{page}");
    assert!(
        !page.contains(r#"value="12""#),
        "an age out of range is not filled in: {page}"
    );
    // A respondent who sends the hidden question's answer anyway has it dropped.
    let token = token_in(&page);
    let fields = [
        ("token", token.as_str()),
        ("page", "0"),
        ("nav", "next"),
        ("h-source", "web"),
        ("q-age", "30"),
        ("q-mailq", "forged"),
    ];
    let second = post(&app, &fields).await;
    assert_eq!(second.status(), 200);
    let sent = post(
        &app,
        &[fields.as_slice(), &[("page", "1"), ("q-more", "x")]].concat(),
    )
    .await;
    assert_eq!(sent.status(), 303);
    let list = app.counted_responses(&key, "panel-study").await;
    let response = &list[0];
    assert_eq!(response["hidden"], json!({"source": "web"}));
    assert!(response["values"].get("mailq").is_none(), "{response}");
    assert_eq!(response["skipped"], json!(["mailq"]));
}

#[tokio::test]
async fn values_out_of_bounds_are_refused_clearly_and_never_reach_a_redirect() {
    let app = spawn_app().await;
    let key = app.api_tenant("acme").await;
    app.published_survey(&key, definition()).await;
    let long = "x".repeat(201);
    for query in [
        format!("pid={long}"),
        "pid=a%00b".into(),
        "pid=a%E2%80%AEb".into(),
    ] {
        let refused = app.get(&format!("/s/acme/panel-study?{query}")).await;
        assert_eq!(refused.status(), 400, "{query}");
        let page = refused.text().await.expect("a page");
        assert!(
            page.contains("the value of &#34;pid&#34;") || page.contains("the value of \"pid\""),
            "{page}"
        );
    }
    // A form carrying one is refused the same way, before anything is stored.
    let token = token_in(&app.form("acme", "panel-study").await);
    let refused = post(
        &app,
        &[
            ("token", token.as_str()),
            ("h-pid", long.as_str()),
            ("q-age", "30"),
        ],
    )
    .await;
    assert_eq!(refused.status(), 400);
}

#[tokio::test]
async fn definitions_name_hidden_fields_and_redirects_the_survey_can_fill() {
    let app = spawn_app().await;
    let key = app.api_tenant("acme").await;
    let bad = json!({
        "title": "Bad",
        "hidden_fields": ["pid", "Source", "lang", "pid"],
        "questions": [{"id": "q", "text": "Q?", "type": "short_text"}]
    });
    let (status, body) = app
        .api(Method::POST, "/api/v1/surveys", &key, Some(bad))
        .await;
    assert_eq!(status, 422, "{body}");
    assert!(
        body["fields"]["hidden_fields[1]"]
            .as_str()
            .is_some_and(|m| m.contains("not a hidden field's name")),
        "{body}"
    );
    let bad = json!({
        "title": "Bad",
        "hidden_fields": ["pid"],
        "redirects": {
            "complete": "http://panel.example/done",
            "screened_out": "https://panel.example/{{h:source}}",
            "closed": "https://panel.example/{{q:missing}}"
        },
        "questions": [
            {"id": "q", "text": "Hi {{h:who}}", "type": "short_text"},
            {"id": "r", "text": "R?", "type": "short_text",
             "show_if": {"hidden": "origin", "equals": "x"}}
        ]
    });
    let (status, body) = app
        .api(Method::POST, "/api/v1/surveys", &key, Some(bad))
        .await;
    assert_eq!(status, 422, "{body}");
    let errors = &body["fields"];
    for (field, said) in [
        ("redirects.complete", "https"),
        ("redirects.screened_out", "does not declare"),
        ("redirects.closed", "not a question"),
    ] {
        assert!(
            errors[field].as_str().is_some_and(|m| m.contains(said)),
            "{field}: {body}"
        );
    }
    // The questions' problems show once the settings are right.
    let (status, body) = app
        .api(
            Method::POST,
            "/api/v1/surveys",
            &key,
            Some(json!({
                "title": "Bad",
                "hidden_fields": ["pid"],
                "questions": [
                    {"id": "q", "text": "Hi {{h:who}}", "type": "short_text"},
                    {"id": "r", "text": "R?", "type": "short_text",
                     "show_if": {"hidden": "origin", "equals": "x"}}
                ]
            })),
        )
        .await;
    assert_eq!(status, 422, "{body}");
    let errors = &body["fields"];
    assert!(
        errors["questions[1].show_if"]
            .as_str()
            .is_some_and(|m| m.contains("not one of the survey's hidden_fields")),
        "{body}"
    );
    assert!(
        errors["questions[0].text"]
            .as_str()
            .is_some_and(|m| m.contains("does not declare")),
        "{body}"
    );
}

#[tokio::test]
async fn a_closed_survey_and_a_full_quota_send_the_respondent_back_to_the_panel() {
    let app = spawn_app().await;
    let key = app.api_tenant("acme").await;
    let mut survey = definition();
    survey["quotas"] = json!([{"id": "adults", "name": "Adults", "limit": 1,
        "when": {"question": "age", "greater_than": 17}}]);
    app.published_survey(&key, survey).await;
    let page_one = |token: String, pid: &'static str| {
        let app = &app;
        async move {
            let fields = [
                ("token", token.as_str()),
                ("page", "0"),
                ("nav", "next"),
                ("h-pid", pid),
                ("q-age", "30"),
            ];
            post(app, &fields).await
        }
    };
    // The first adult fills the quota; the next is screened out on leaving page 1.
    let token = token_in(&app.form("acme", "panel-study").await);
    assert_eq!(page_one(token.clone(), "first").await.status(), 200);
    let done = post(
        &app,
        &[
            ("token", token.as_str()),
            ("page", "1"),
            ("nav", "next"),
            ("h-pid", "first"),
            ("q-age", "30"),
            ("q-more", "x"),
        ],
    )
    .await;
    assert_eq!(done.status(), 303);
    drain(&app.stores().await).await;
    // (Leaving page 1, a respondent is ended early only once this process has counted the
    // quota full, which it rechecks every 30 seconds; sending is always checked.)
    let token = token_in(&app.form("acme", "panel-study").await);
    let second = post(
        &app,
        &[
            ("token", token.as_str()),
            ("page", "1"),
            ("nav", "next"),
            ("h-pid", "second one"),
            ("q-age", "30"),
            ("q-more", "x"),
        ],
    )
    .await;
    assert_eq!(second.status(), 303, "{:?}", second.text().await);
    assert_eq!(
        second.headers()[LOCATION],
        "https://panel.example/out?pid=second%20one"
    );
    // Closed: the panel's closed link, with the address's id.
    let (status, _) = app
        .api(
            Method::POST,
            "/api/v1/surveys/panel-study/unpublish",
            &key,
            None,
        )
        .await;
    assert_eq!(status, 200);
    let closed = client()
        .get(format!("{}/s/acme/panel-study?pid=late", app.address))
        .send()
        .await
        .expect("answered");
    assert_eq!(closed.status(), 303);
    assert_eq!(
        closed.headers()[LOCATION],
        "https://panel.example/closed?pid=late"
    );
}

#[tokio::test]
async fn saved_answers_keep_the_addresss_values_for_when_the_respondent_comes_back() {
    let app = spawn_app().await;
    let key = app.api_tenant("acme").await;
    let mut survey = definition();
    survey["save_and_resume"] = json!(true);
    app.published_survey(&key, survey).await;
    let first = app
        .get("/s/acme/panel-study?pid=P9&source=mail")
        .await
        .text()
        .await
        .expect("a page");
    let token = token_in(&first);
    let saved = post(
        &app,
        &[
            ("token", token.as_str()),
            ("page", "0"),
            ("nav", "save"),
            ("h-pid", "P9"),
            ("h-source", "mail"),
            ("q-age", "50"),
        ],
    )
    .await;
    assert_eq!(saved.status(), 303);
    let saved = saved.headers()[LOCATION]
        .to_str()
        .expect("ascii")
        .to_owned();
    let page = app.get(&saved).await.text().await.expect("a page");
    let link = page
        .split("<a href=\"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .expect("the link");
    let path = link
        .split_once("/s/")
        .map(|(_, p)| format!("/s/{p}"))
        .expect("a path");
    // Another device, without the address's values: they come back from the saved answers.
    let resumed = app.get(&path).await.text().await.expect("a page");
    assert_eq!(
        carried(&resumed),
        [
            ("pid".to_owned(), "P9".to_owned()),
            ("source".to_owned(), "mail".to_owned())
        ],
        "{resumed}"
    );
    assert!(resumed.contains("How did the mail read?"), "{resumed}");
}

#[tokio::test]
async fn the_designer_names_the_links_values_and_the_panels_addresses() {
    use crate::designer_saves::set;
    use crate::owner::{Owner, form_fields};
    let app = spawn_app().await;
    let owner = Owner::signed_up(&app, "Acme", "acme", "owner@acme.test").await;
    let slug = owner.design("Team day").await;
    let path = format!("/tenant/surveys/{slug}");
    let page = owner.page(&path).await;
    assert!(
        page.contains(r#"<details class="panel settings-fold" id="panel-links">"#),
        "folded while unused: {page}"
    );
    let mut form = form_fields(&page, r#"<form class="designer"#);
    set(&mut form, "hidden_fields", "pid, Source");
    set(&mut form, "redirect_complete", "http://panel.example/done");
    set(&mut form, "action", "save");
    let refused = owner.post_owned(&path, &form).await;
    assert_eq!(refused.status(), 422);
    let page = refused.text().await.expect("a page");
    assert!(
        page.contains(r##"<a href="#hidden_fields">Values the link carries</a>"##),
        "{page}"
    );
    assert!(
        page.contains(r##"<a href="#redirect_complete">Once answered, send them to</a>"##),
        "{page}"
    );
    assert!(page.contains(r#"id="panel-links" open>"#), "{page}");
    set(&mut form, "hidden_fields", "pid, source");
    set(
        &mut form,
        "redirect_complete",
        "https://panel.example/done?pid={{h:pid}}",
    );
    assert_eq!(owner.post_owned(&path, &form).await.status(), 303);
    let key = owner.api_key("script").await;
    let (_, survey) = app
        .api(Method::GET, &format!("/api/v1/surveys/{slug}"), &key, None)
        .await;
    assert_eq!(survey["hidden_fields"], json!(["pid", "source"]));
    assert_eq!(
        survey["redirects"],
        json!({"complete": "https://panel.example/done?pid={{h:pid}}"})
    );
    let page = owner.page(&path).await;
    assert!(page.contains(r#"id="panel-links" open>"#), "{page}");
    assert!(page.contains(r#"value="pid, source""#), "{page}");
    // A response's page lists what its link carried.
    let (status, _) = app
        .api(
            Method::POST,
            &format!("/api/v1/surveys/{slug}/publish"),
            &key,
            None,
        )
        .await;
    assert_eq!(status, 200);
    let form = app
        .get(&format!("/s/acme/{slug}?pid=A1&source=web"))
        .await
        .text()
        .await
        .expect("a form");
    let token = token_in(&form);
    // "Where?" is required: its field's name, as the form gives it.
    let place = form
        .split(r#"type="radio" name=""#)
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .expect("a radio question");
    let sent = client()
        .post(format!("{}/s/acme/{slug}", app.address))
        .form(&[
            ("token", token.as_str()),
            ("h-pid", "A1"),
            ("h-source", "web"),
            (place, "Beach"),
        ])
        .send()
        .await
        .expect("answered");
    assert_eq!(sent.status(), 303);
    drain(&app.stores().await).await;
    let response = owner.page(&format!("{path}/responses/1")).await;
    assert!(
        response.contains("<dt><code>hidden.pid</code></dt><dd>A1</dd>"),
        "{response}"
    );
}
