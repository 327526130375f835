//! Save and continue later, over HTTP as a respondent uses it: saving on a page gives a
//! private link that brings back every answer and the page on another device; saved answers
//! are never counted; sending deletes them and the link then says it no longer works (410),
//! as it does after its time; the reconcile sweep deletes expired progress; saving is refused
//! where the survey does not offer it, limited per client, and bounded in size.

use reqwest::Method;
use serde_json::{Value, json};

use crate::helpers::{TestApp, drain, spawn_app, token_in};

fn definition(save: bool) -> Value {
    json!({
        "title": "Long one",
        "save_and_resume": save,
        "resume_days": 7,
        "pages": [
            {"questions": [{"id": "name", "text": "Your name?", "type": "short_text", "required": true}]},
            {"questions": [
                {"id": "drinks", "text": "Which drinks?", "type": "multiple_choice", "options": ["Tea", "Coffee", "Juice"]},
                {"id": "story", "text": "Tell us more", "type": "long_text"}]},
            {"questions": [{"id": "stars", "text": "Overall?", "type": "five_stars", "required": true}]}
        ]
    })
}

/// Posts a page of the long survey: its token, page, button and fields.
async fn post(app: &TestApp, fields: &[(&str, &str)]) -> reqwest::Response {
    let pairs: Vec<(String, String)> = fields
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect();
    app.client
        .post(format!("{}/s/acme/long-one", app.address))
        .form(&pairs)
        .send()
        .await
        .expect("answered")
}

fn location(response: &reqwest::Response) -> String {
    response.headers()["location"]
        .to_str()
        .expect("ascii")
        .to_owned()
}

/// Page 1 answered, page 2 half answered, then saved: the saved page's address.
async fn saved_on_page_two(app: &TestApp) -> (String, String) {
    let form = app.form("acme", "long-one").await;
    let token = token_in(&form);
    let next = post(
        app,
        &[
            ("token", &token),
            ("page", "0"),
            ("nav", "next"),
            ("q-name", "Ada"),
        ],
    )
    .await;
    assert_eq!(next.status(), 200);
    let page_two = next.text().await.expect("a body");
    assert!(
        page_two.contains(r#"value="save""#),
        "the save button: {page_two}"
    );
    let saved = post(
        app,
        &[
            ("token", &token),
            ("page", "1"),
            ("nav", "save"),
            ("q-name", "Ada"),
            ("q-drinks", "Tea"),
            ("q-drinks", "Juice"),
            ("q-story", "It was <lovely>"),
        ],
    )
    .await;
    assert_eq!(saved.status(), 303);
    (location(&saved), token)
}

#[tokio::test]
async fn a_respondent_saves_on_page_two_and_continues_from_the_link_elsewhere() {
    let app = spawn_app().await;
    let key = app.api_tenant("acme").await;
    let survey = app.published_survey(&key, definition(true)).await;
    assert_eq!(survey["save_and_resume"], true);
    assert_eq!(survey["resume_days"], 7);

    let (saved, token) = saved_on_page_two(&app).await;
    assert!(saved.starts_with("/s/acme/long-one/saved/"), "{saved}");
    let page = app.get(&saved).await.text().await.expect("a body");
    assert!(page.contains("Your answers are saved"), "{page}");
    let link = page
        .split("<a href=\"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .expect("the link")
        .to_owned();
    assert!(link.contains("/s/acme/long-one/resume/"), "{link}");
    assert!(page.contains("The link works until "), "{page}");

    // Saved answers are not a response: nothing is counted or listed.
    let stores = app.stores().await;
    drain(&stores).await;
    let (_, responses) = app
        .api(
            Method::GET,
            "/api/v1/surveys/long-one/responses",
            &key,
            None,
        )
        .await;
    assert_eq!(responses["total"], 0, "{responses}");

    // Another device (no cookies): the page and every answer come back, with the same token.
    let path = link
        .split_once("/s/")
        .map(|(_, p)| format!("/s/{p}"))
        .expect("a path");
    let other = reqwest::Client::new();
    let resumed = other
        .get(format!("{}{path}", app.address))
        .send()
        .await
        .expect("answered");
    assert_eq!(resumed.status(), 200);
    let resumed = resumed.text().await.expect("a body");
    assert!(resumed.contains("Page 2 of 3"), "{resumed}");
    assert!(
        resumed.contains(r#"value="Tea" checked"#) && resumed.contains(r#"value="Juice" checked"#)
    );
    assert!(!resumed.contains(r#"value="Coffee" checked"#));
    assert!(
        resumed.contains("It was &#60;lovely&#62;") || resumed.contains("It was &lt;lovely&gt;")
    );
    assert!(
        resumed.contains(r#"name="q-name" value="Ada""#),
        "page 1's answer carried: {resumed}"
    );
    assert_eq!(
        token_in(&resumed),
        token,
        "the same answer, whenever it is sent"
    );
    let id = path.rsplit('/').next().expect("an id");
    assert!(resumed.contains(&format!(r#"name="resume" value="{id}""#)));

    // Sent from there: counted once, and the link no longer works.
    let next = post(
        &app,
        &[
            ("token", &token),
            ("page", "1"),
            ("nav", "next"),
            ("resume", id),
            ("q-name", "Ada"),
            ("q-drinks", "Tea"),
        ],
    )
    .await;
    assert_eq!(next.status(), 200);
    let sent = post(
        &app,
        &[
            ("token", &token),
            ("page", "2"),
            ("nav", "next"),
            ("resume", id),
            ("q-name", "Ada"),
            ("q-drinks", "Tea"),
            ("q-stars", "5"),
        ],
    )
    .await;
    assert_eq!(sent.status(), 303);
    assert!(location(&sent).contains("/thanks/"));
    drain(&stores).await;
    let (_, responses) = app
        .api(
            Method::GET,
            "/api/v1/surveys/long-one/responses",
            &key,
            None,
        )
        .await;
    assert_eq!(responses["total"], 1, "{responses}");
    let gone = app.get(&path).await;
    assert_eq!(gone.status(), 410);
    let gone = gone.text().await.expect("a body");
    assert!(
        gone.contains("This link no longer works") && gone.contains("Start the survey again"),
        "{gone}"
    );
    assert_eq!(app.get(&saved).await.status(), 410, "the saved page too");
}

#[tokio::test]
async fn saving_is_refused_where_not_offered_limited_per_client_and_bounded_in_size() {
    let app = spawn_app().await;
    let key = app.api_tenant("acme").await;
    app.published_survey(&key, definition(false)).await;
    let form = app.form("acme", "long-one").await;
    assert!(!form.contains(r#"value="save""#), "no save button");
    let token = token_in(&form);
    let refused = post(
        &app,
        &[
            ("token", &token),
            ("page", "0"),
            ("nav", "save"),
            ("q-name", "Ada"),
        ],
    )
    .await;
    assert_eq!(refused.status(), 400);

    let (status, body) = app
        .api(Method::PUT, "/api/v1/surveys/long-one", &key, Some(json!({"title": "Long one", "save_and_resume": true, "resume_days": 400, "pages": definition(true)["pages"]})))
        .await;
    assert_eq!(status, 422);
    assert!(body.to_string().contains("1 to 365 days"), "{body}");
    let (status, body) = app
        .api(
            Method::PUT,
            "/api/v1/surveys/long-one",
            &key,
            Some(definition(true)),
        )
        .await;
    assert_eq!(status, 200, "{body}");

    // Too large: the answers so far are over the bound (they could still be sent).
    let long = "x".repeat(300_000);
    let too_large = post(
        &app,
        &[
            ("token", &token),
            ("page", "1"),
            ("nav", "save"),
            ("q-name", "Ada"),
            ("q-story", &long),
        ],
    )
    .await;
    assert_eq!(too_large.status(), 413);
    assert!(
        too_large
            .text()
            .await
            .expect("a body")
            .contains("too long to save")
    );

    // A client's allowance: 20 saves (the refused one above among them), then a wait.
    for n in 0..19 {
        let saved = post(
            &app,
            &[
                ("token", &token),
                ("page", "1"),
                ("nav", "save"),
                ("q-name", "Ada"),
            ],
        )
        .await;
        assert_eq!(saved.status(), 303, "save {n}");
    }
    let limited = post(
        &app,
        &[
            ("token", &token),
            ("page", "1"),
            ("nav", "save"),
            ("q-name", "Ada"),
        ],
    )
    .await;
    assert_eq!(limited.status(), 429);
    assert!(
        limited
            .text()
            .await
            .expect("a body")
            .contains("Please wait")
    );
}

#[tokio::test]
async fn a_link_past_its_time_no_longer_works_and_the_sweep_deletes_it() {
    let app = spawn_app().await;
    let key = app.api_tenant("acme").await;
    app.published_survey(&key, definition(true)).await;
    let (saved, _) = saved_on_page_two(&app).await;
    let id = saved.rsplit('/').next().expect("an id").to_owned();
    let stores = app.stores().await;
    let survey = stores
        .catalog
        .surveys
        .get(
            &canvass::domain::TenantSlug::parse("acme").expect("a slug"),
            &canvass::domain::SurveySlug::parse("long-one").expect("a slug"),
        )
        .await
        .expect("read")
        .expect("there");
    let id = canvass::domain::progress::ResumeId::parse(&id).expect("an id");
    let mut progress = stores
        .answering
        .progress
        .load(&survey.survey_ref(), &id)
        .await
        .expect("read")
        .expect("saved");

    // Within its 7 days the sweep keeps it; past them it deletes it.
    let now = time::OffsetDateTime::now_utc();
    let swept =
        canvass::worker::sweeps::sweep_progress(&stores, now + time::Duration::days(6)).await;
    assert_eq!(swept.expect("a sweep"), 0);
    let swept =
        canvass::worker::sweeps::sweep_progress(&stores, now + time::Duration::days(8)).await;
    assert_eq!(swept.expect("a sweep"), 1);
    assert!(
        stores
            .answering
            .progress
            .load(&survey.survey_ref(), &id)
            .await
            .expect("read")
            .is_none()
    );

    // A progress saved 8 days ago (as its record says) is refused at once.
    progress.saved_at = now - time::Duration::days(8);
    stores
        .answering
        .progress
        .save(&survey.survey_ref(), &id, &progress)
        .await
        .expect("saved");
    let gone = app
        .get(&format!("/s/acme/long-one/resume/{}", id.as_str()))
        .await;
    assert_eq!(gone.status(), 410);
    let forged = app.get("/s/acme/long-one/resume/not-an-id").await;
    assert_eq!(forged.status(), 410);
}

#[tokio::test]
async fn deleting_a_survey_deletes_the_answers_saved_to_continue_it() {
    let app = spawn_app().await;
    let key = app.api_tenant("acme").await;
    app.published_survey(&key, definition(true)).await;
    let (saved, _) = saved_on_page_two(&app).await;
    let stores = app.stores().await;
    assert_eq!(
        stores
            .operations
            .scan(canvass::stores::keys::PROGRESS, None)
            .await
            .expect("listed")
            .keys
            .len(),
        1
    );
    let (status, _) = app
        .api(Method::DELETE, "/api/v1/surveys/long-one", &key, None)
        .await;
    assert_eq!(status, 204);
    let left = stores
        .operations
        .scan(canvass::stores::keys::PROGRESS, None)
        .await
        .expect("listed");
    assert!(left.keys.is_empty(), "{:?}", left.keys);
    let resume = saved.replace("/saved/", "/resume/");
    assert_eq!(
        app.get(&resume).await.status(),
        404,
        "no survey there any more"
    );
}
