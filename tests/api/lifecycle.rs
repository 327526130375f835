//! A survey's life as owners and respondents see it: draft (404), open, closed by its owner,
//! its close date or its response limit (410 with the owner's message, answers in flight
//! kept), its texts in Markdown, sharing (the public address, QR code, embed), and the
//! confirmations before anything is deleted or revoked.

use reqwest::Method;
use serde_json::{Value, json};

use crate::helpers::{TestApp, drain, spawn_app, token_in};
use crate::owner::{Owner, form_fields, value_of};

fn one_question(extra: Value) -> Value {
    let mut definition = json!({"title": "Lunch", "questions": [
        {"id": "dish", "text": "What did you eat?", "type": "short_text", "required": true}]});
    if let (Some(fields), Value::Object(extra)) = (definition.as_object_mut(), extra) {
        fields.extend(extra);
    }
    definition
}

async fn api(app: &TestApp, key: &str, method: Method, path: &str, body: Option<Value>) -> Value {
    let (status, json) = app.api(method, path, key, body).await;
    assert!(status < 300, "{path}: {status} {json}");
    json
}

#[tokio::test]
async fn a_draft_is_404_a_survey_closed_by_its_owner_or_its_date_is_410_with_its_message() {
    let app = spawn_app().await;
    let key = app.api_tenant("cafe").await;
    let draft = app.create_survey(&key, one_question(json!({}))).await;
    assert_eq!(draft["state"], "draft");
    assert_eq!(app.get("/s/cafe/lunch").await.status(), 404, "a draft");

    let open = api(
        &app,
        &key,
        Method::POST,
        "/api/v1/surveys/lunch/publish",
        None,
    )
    .await;
    assert_eq!(open["state"], "open");
    assert_eq!(app.get("/s/cafe/lunch").await.status(), 200);

    let closed = api(
        &app,
        &key,
        Method::POST,
        "/api/v1/surveys/lunch/unpublish",
        None,
    )
    .await;
    assert_eq!(
        closed["state"], "closed",
        "unpublished after being published"
    );
    let page = app.get("/s/cafe/lunch").await;
    assert_eq!(page.status(), 410);
    let html = page.text().await.expect("a body");
    assert!(html.contains("This survey is closed"), "{html}");
    assert!(
        html.contains("It no longer takes answers"),
        "the default message"
    );

    // Published again, with a close date already past and a message in Markdown.
    let message =
        "Thanks, **everyone**! See [our site](https://example.com).\n\n<script>alert(1)</script>";
    let dated = one_question(json!({
        "closes_at": "2020-01-01T12:00:00+01:00", "closed_message": message}));
    let saved = api(
        &app,
        &key,
        Method::PUT,
        "/api/v1/surveys/lunch",
        Some(dated),
    )
    .await;
    assert_eq!(saved["closes_at"], "2020-01-01T11:00:00Z", "stored in UTC");
    assert_eq!(saved["closed_message"], message);
    let published = api(
        &app,
        &key,
        Method::POST,
        "/api/v1/surveys/lunch/publish",
        None,
    )
    .await;
    assert_eq!(published["state"], "closed", "its date has passed");
    let page = app.get("/s/cafe/lunch").await;
    assert_eq!(page.status(), 410);
    let html = page.text().await.expect("a body");
    assert!(html.contains("<strong>everyone</strong>"), "{html}");
    assert!(
        html.contains(r#"<a href="https://example.com" rel="noopener noreferrer nofollow ugc">"#),
        "{html}"
    );
    assert!(!html.contains("<script>alert"), "{html}");
    assert!(
        !app.get("/s/cafe")
            .await
            .text()
            .await
            .expect("a body")
            .contains("/s/cafe/lunch"),
        "a closed survey is not listed"
    );

    // Posting to it once closed is refused the same way; nothing is queued.
    let response = app
        .submit("cafe", "lunch", "whatever", &[("dish", "Soup")])
        .await;
    assert_eq!(response.status(), 410);

    // A date in the future keeps it open.
    let later = one_question(json!({"closes_at": "2999-01-01T00:00:00Z"}));
    let reopened = api(
        &app,
        &key,
        Method::PUT,
        "/api/v1/surveys/lunch",
        Some(later),
    )
    .await;
    assert_eq!(reopened["state"], "open");
    assert_eq!(app.get("/s/cafe/lunch").await.status(), 200);
}

#[tokio::test]
async fn bad_close_dates_and_limits_are_refused_at_their_field() {
    let app = spawn_app().await;
    let key = app.api_tenant("cafe").await;
    for (extra, field) in [
        (json!({"closes_at": "next friday"}), "closes_at"),
        (json!({"closes_at": "2026-12-01T17:00:00"}), "closes_at"),
        (json!({"response_limit": 0}), "response_limit"),
        (json!({"response_limit": 100_000_001u64}), "response_limit"),
        (
            json!({"closed_message": "x".repeat(2001)}),
            "closed_message",
        ),
        (json!({"thank_you": "bad\u{7}bell"}), "thank_you"),
    ] {
        let (status, error) = app
            .api(
                Method::POST,
                "/api/v1/surveys",
                &key,
                Some(one_question(extra.clone())),
            )
            .await;
        assert_eq!(status, 422, "{extra}: {error}");
        assert!(error["fields"][field].is_string(), "{extra}: {error}");
    }
}

#[tokio::test]
async fn a_survey_closes_at_its_limit_of_counted_answers_and_keeps_those_in_flight() {
    let app = spawn_app().await;
    let key = app.api_tenant("cafe").await;
    let survey = app
        .published_survey(&key, one_question(json!({"response_limit": 2})))
        .await;
    assert_eq!(survey["response_limit"], 2);
    // Three respondents open the form before any answer is counted, and all send it.
    let mut tokens = Vec::new();
    for _ in 0..3 {
        tokens.push(token_in(&app.form("cafe", "lunch").await));
    }
    let mut thanks = Vec::new();
    for (n, token) in tokens.iter().enumerate() {
        let sent = app
            .submit("cafe", "lunch", token, &[("dish", &format!("Dish {n}"))])
            .await;
        assert_eq!(sent.status(), 303, "answer {n} is accepted and thanked for");
        thanks.push(
            sent.headers()["location"]
                .to_str()
                .expect("ascii")
                .to_owned(),
        );
    }
    drain(&app.stores().await).await;
    // The counted total is read at most once a second: wait for it to be read again.
    tokio::time::sleep(std::time::Duration::from_millis(1100)).await;

    assert_eq!(
        app.get("/s/cafe/lunch").await.status(),
        410,
        "closed by its limit"
    );
    let (_, summary) = app
        .api(Method::GET, "/api/v1/surveys/lunch/summary", &key, None)
        .await;
    assert_eq!(
        summary["total"], 3,
        "every answer thanked for is kept: {summary}"
    );
    let shown = api(&app, &key, Method::GET, "/api/v1/surveys/lunch", None).await;
    assert_eq!(shown["state"], "closed");
    for link in &thanks {
        assert_eq!(
            app.get(link).await.status(),
            200,
            "the last respondents' thanks still show"
        );
    }

    // The owner sees the limit and by how many it was passed.
    let owner = Owner::signed_up(&app, "Bistro", "bistro", "chef@bistro.example").await;
    let key = app.api_key("bistro").await;
    app.published_survey(&key, one_question(json!({"response_limit": 1})))
        .await;
    for n in 0..2 {
        let token = token_in(&app.form("bistro", "lunch").await);
        let sent = app
            .submit("bistro", "lunch", &token, &[("dish", &n.to_string())])
            .await;
        assert_eq!(sent.status(), 303);
    }
    drain(&app.stores().await).await;
    let summary = owner.page("/tenant/surveys/lunch/summary").await;
    assert!(
        summary.contains("Response limit: <strong>1</strong>, passed by <strong>1</strong>"),
        "{summary}"
    );
    let dashboard = owner.page("/tenant").await;
    assert!(dashboard.contains("Closed"), "{dashboard}");
    assert!(
        dashboard.contains("it reached its response limit"),
        "{dashboard}"
    );
}

#[tokio::test]
async fn owners_set_closing_in_their_time_zone_and_texts_in_markdown_in_the_designer() {
    let app = spawn_app().await;
    let owner = Owner::signed_up(&app, "Bistro", "bistro", "chef@bistro.example").await;
    let csrf = owner.csrf("/tenant/settings").await;
    let bad = owner
        .post(
            "/tenant/settings/zone",
            &[("csrf", &csrf), ("time_zone", "Mars/Olympus")],
        )
        .await;
    assert_eq!(bad.status(), 422);
    let saved = owner
        .post(
            "/tenant/settings/zone",
            &[("csrf", &csrf), ("time_zone", "Europe/Paris")],
        )
        .await;
    assert_eq!(saved.status(), 303);

    let slug = owner.design("Dinner").await;
    let editor = owner.page(&format!("/tenant/surveys/{slug}")).await;
    assert!(editor.contains("time zone Europe/Paris"), "{editor}");
    let mut fields = form_fields(&editor, r#"class="designer"#);
    for (name, value) in [
        ("closes_at", "2999-12-01T17:00"),
        ("response_limit", "50"),
        ("thank_you", "See you *soon*."),
        ("description", "Tell us about **dinner**."),
        ("action", "save"),
    ] {
        fields.retain(|(n, _)| n != name);
        fields.push((name.into(), value.into()));
    }
    let response = owner
        .post_owned(&format!("/tenant/surveys/{slug}"), &fields)
        .await;
    assert_eq!(response.status(), 303);

    let key = app.api_key("bistro").await;
    let survey = api(
        &app,
        &key,
        Method::GET,
        &format!("/api/v1/surveys/{slug}"),
        None,
    )
    .await;
    assert_eq!(
        survey["closes_at"], "2999-12-01T16:00:00Z",
        "Paris is UTC+1 in winter"
    );
    assert_eq!(survey["response_limit"], 50);
    let editor = owner.page(&format!("/tenant/surveys/{slug}")).await;
    assert_eq!(
        value_of(&editor, "closes_at"),
        "2999-12-01T17:00",
        "shown as entered"
    );

    api(
        &app,
        &key,
        Method::POST,
        &format!("/api/v1/surveys/{slug}/publish"),
        None,
    )
    .await;
    let form = app.form("bistro", &slug).await;
    assert!(
        form.contains("Tell us about <strong>dinner</strong>."),
        "{form}"
    );
    let where_to = survey["questions"][2]["id"].as_str().expect("an id");
    let sent = app.answer("bistro", &slug, &[(where_to, "Beach")]).await;
    assert_eq!(sent.status(), 303);
    let link = sent.headers()["location"]
        .to_str()
        .expect("ascii")
        .to_owned();
    let thanks = app.get(&link).await.text().await.expect("a body");
    assert!(thanks.contains("See you <em>soon</em>."), "{thanks}");
    let dashboard = owner.page("/tenant").await;
    assert!(
        dashboard.contains("closes 1 December 2999 at 17:00 (Europe/Paris)"),
        "{dashboard}"
    );
    assert!(dashboard.contains("of 50"), "{dashboard}");

    // A malformed close time is answered at its field, nothing saved (the form made from
    // the version saved above).
    let saved_from = value_of(
        &owner.page(&format!("/tenant/surveys/{slug}")).await,
        "edited_from",
    );
    fields.retain(|(n, _)| n != "edited_from");
    fields.push(("edited_from".into(), saved_from));
    fields.retain(|(n, _)| n != "closes_at");
    fields.push(("closes_at".into(), "soon".into()));
    let response = owner
        .post_owned(&format!("/tenant/surveys/{slug}"), &fields)
        .await;
    assert_eq!(response.status(), 422);
    assert!(
        response
            .text()
            .await
            .expect("a body")
            .contains("Enter a date and a time")
    );
}

#[tokio::test]
async fn the_survey_page_shares_its_full_address_a_qr_code_of_it_and_an_embed_snippet() {
    let app = spawn_app().await;
    let owner = Owner::signed_up(&app, "Bistro", "bistro", "chef@bistro.example").await;
    let slug = owner.design("Dinner").await;
    let qr = format!("/s/bistro/{slug}/qr.svg");
    assert_eq!(app.get(&qr).await.status(), 404, "not for a draft");
    let key = app.api_key("bistro").await;
    api(
        &app,
        &key,
        Method::POST,
        &format!("/api/v1/surveys/{slug}/publish"),
        None,
    )
    .await;

    let url = format!("{}/s/bistro/{slug}", app.address);
    let editor = owner.page(&format!("/tenant/surveys/{slug}")).await;
    assert!(
        editor.contains(&format!(r#"<a href="{url}">{url}</a>"#)),
        "{editor}"
    );
    assert!(
        editor.contains(&format!(r#"data-copy="{url}""#)),
        "a copy button"
    );
    assert!(
        editor.contains(&format!(r#"&lt;iframe src="{url}""#)),
        "{editor}"
    );
    assert!(
        owner.page("/tenant").await.contains(&url),
        "the dashboard shows it too"
    );

    let response = app.get(&qr).await;
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()["content-type"], "image/svg+xml");
    let svg = response.text().await.expect("a body");
    let expected = qrcode::QrCode::new(url.as_bytes())
        .expect("a code")
        .render::<qrcode::render::svg::Color<'_>>()
        .min_dimensions(256, 256)
        .build();
    assert_eq!(svg, expected, "the code of the survey's address");
    assert!(
        editor.contains(&format!(r#"href="/s/bistro/{slug}/qr.png""#)),
        "{editor}"
    );

    // The PNG, read by image-rs's decoder: 8 pixels a module, a quiet zone of 4 modules, each
    // module as dark as the code's.
    let response = app.get(&format!("/s/bistro/{slug}/qr.png")).await;
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()["content-type"], "image/png");
    let bytes = response.bytes().await.expect("a body");
    let mut decoder = png::Decoder::new(std::io::Cursor::new(bytes.to_vec()))
        .read_info()
        .expect("a PNG");
    let mut pixels = vec![0; decoder.output_buffer_size().expect("a size")];
    let frame = decoder.next_frame(&mut pixels).expect("its pixels");
    let code = qrcode::QrCode::new(url.as_bytes()).expect("a code");
    let modules = code.width();
    let side = (modules + 8) * 8;
    assert_eq!((frame.width as usize, frame.height as usize), (side, side));
    for (at, color) in code.to_colors().iter().enumerate() {
        let (x, y) = ((at % modules + 4) * 8 + 4, (at / modules + 4) * 8 + 4);
        let dark = pixels[y * frame.line_size + x] < 128;
        assert_eq!(dark, *color == qrcode::Color::Dark, "module {at}");
    }
    assert!(
        pixels[..frame.line_size].iter().all(|&p| p == 255),
        "a blank border"
    );

    // Public pages may be framed anywhere; tenant pages never.
    let public = app.get(&format!("/s/bistro/{slug}")).await;
    assert!(
        public.headers()["content-security-policy"]
            .to_str()
            .expect("ascii")
            .contains("frame-ancestors *")
    );
    let tenant = owner.get("/tenant").await;
    assert!(
        tenant.headers()["content-security-policy"]
            .to_str()
            .expect("ascii")
            .contains("frame-ancestors 'none'")
    );
}

#[tokio::test]
async fn deleting_a_survey_asks_for_its_title_and_revoking_a_key_asks_once_each_with_a_notice() {
    let app = spawn_app().await;
    let owner = Owner::signed_up(&app, "Bistro", "bistro", "chef@bistro.example").await;
    let slug = owner.design("Dinner").await;
    let key = app.api_key("bistro").await;
    api(
        &app,
        &key,
        Method::POST,
        &format!("/api/v1/surveys/{slug}/publish"),
        None,
    )
    .await;
    let survey = api(
        &app,
        &key,
        Method::GET,
        &format!("/api/v1/surveys/{slug}"),
        None,
    )
    .await;
    let where_to = survey["questions"][2]["id"]
        .as_str()
        .expect("an id")
        .to_owned();
    for _ in 0..2 {
        let sent = app
            .answer("bistro", &slug, &[(where_to.as_str(), "Beach")])
            .await;
        assert_eq!(sent.status(), 303);
    }
    drain(&app.stores().await).await;

    let ask = owner.page(&format!("/tenant/surveys/{slug}/delete")).await;
    assert!(ask.contains("Delete &ldquo;Dinner&rdquo;?"), "{ask}");
    assert!(
        ask.contains("<strong>2 answers</strong>"),
        "names what will be lost: {ask}"
    );
    let csrf = value_of(&ask, "csrf");
    let wrong = owner
        .post(
            &format!("/tenant/surveys/{slug}/delete"),
            &[("csrf", &csrf), ("confirm", "dinner")],
        )
        .await;
    assert_eq!(wrong.status(), 422);
    assert!(
        wrong
            .text()
            .await
            .expect("a body")
            .contains("Type the survey")
    );
    assert_eq!(
        app.get(&format!("/s/bistro/{slug}")).await.status(),
        200,
        "still there"
    );

    let deleted = owner
        .post(
            &format!("/tenant/surveys/{slug}/delete"),
            &[("csrf", &csrf), ("confirm", " Dinner ")],
        )
        .await;
    assert_eq!(deleted.status(), 303);
    assert_eq!(deleted.headers()["location"], "/tenant");
    let dashboard = owner.page("/tenant").await;
    assert!(
        dashboard.contains("Survey &#34;Dinner&#34; deleted, with all its answers."),
        "{dashboard}"
    );
    assert!(
        !owner.page("/tenant").await.contains("deleted, with"),
        "the notice shows once"
    );
    assert_eq!(app.get(&format!("/s/bistro/{slug}")).await.status(), 404);

    let keys = owner.page("/tenant/api-keys").await;
    let id = keys
        .split("/tenant/api-keys/")
        .nth(1)
        .and_then(|rest| rest.split("/revoke").next())
        .expect("a key id")
        .to_owned();
    let ask = owner.page(&format!("/tenant/api-keys/{id}/revoke")).await;
    assert!(ask.contains("Revoke the key"), "{ask}");
    assert_eq!(
        app.api(Method::GET, "/api/v1/surveys", &key, None).await.0,
        200,
        "asking changes nothing"
    );
    let revoked = owner
        .post(
            &format!("/tenant/api-keys/{id}/revoke"),
            &[("csrf", &value_of(&ask, "csrf"))],
        )
        .await;
    assert_eq!(revoked.status(), 303);
    assert!(
        owner
            .page("/tenant/api-keys")
            .await
            .contains("revoked: programs using it")
    );
    assert_eq!(
        app.api(Method::GET, "/api/v1/surveys", &key, None).await.0,
        401
    );
}

#[tokio::test]
async fn a_removed_question_keeps_its_text_in_the_summary_and_the_responses() {
    let app = spawn_app().await;
    let owner = Owner::signed_up(&app, "Bistro", "bistro", "chef@bistro.example").await;
    let key = app.api_key("bistro").await;
    let two = json!({"title": "Lunch", "questions": [
        {"id": "dish", "text": "What did you eat?", "type": "short_text"},
        {"id": "wine", "text": "Which wine?", "type": "single_choice", "options": ["Red", "White"]}]});
    app.published_survey(&key, two).await;
    let sent = app
        .answer("bistro", "lunch", &[("dish", "Soup"), ("wine", "Red")])
        .await;
    assert_eq!(sent.status(), 303);
    api(
        &app,
        &key,
        Method::PUT,
        "/api/v1/surveys/lunch",
        Some(one_question(json!({}))),
    )
    .await;
    drain(&app.stores().await).await;

    let summary = api(
        &app,
        &key,
        Method::GET,
        "/api/v1/surveys/lunch/summary",
        None,
    )
    .await;
    let wine = summary["questions"]
        .as_array()
        .and_then(|qs| qs.iter().find(|q| q["id"] == "wine"))
        .expect("the removed question's statistics are kept");
    assert_eq!(wine["text"], "Which wine?");
    assert_eq!(wine["removed"], true);
    let page = owner.page("/tenant/surveys/lunch/summary").await;
    assert!(
        page.contains(r#"Which wine? <span class="badge">Removed</span>"#),
        "{page}"
    );
    let response = owner.page("/tenant/surveys/lunch/responses/1").await;
    assert!(
        response.contains("Which wine? (removed question)"),
        "{response}"
    );
}
