//! One question per screen (`"layout": "one_per_screen"`) without JavaScript: each question
//! is its own server-rendered step with a progress bar, a page's title on its first step, its
//! display logic and skip rule kept (a jump is taken when its page's last shown question is
//! left), and one response stored at the end, as for pages.

use reqwest::Method;
use serde_json::{Value, json};

use crate::helpers::{TestApp, drain, spawn_app, token_in};

/// The survey of the logic tests, in `layout`, its second page titled in German too.
fn definition(layout: &str) -> Value {
    let mut definition = crate::logic::definition();
    definition["layout"] = json!(layout);
    definition["languages"] = json!(["en", "de"]);
    definition["pages"][1]["title"] = json!({"en": "More", "de": "Mehr"});
    definition
}

/// POSTs a step with Next: the token, the step and every answer so far.
async fn post_step(
    app: &TestApp,
    token: &str,
    step: usize,
    fields: &[(&str, &str)],
    query: &str,
) -> (u16, String) {
    let path = format!("/s/tasters/tasting{query}");
    crate::logic::post_page_to(app, &path, token, step, "next", fields).await
}

#[tokio::test]
async fn each_question_is_its_own_step_with_the_pages_logic_kept() {
    let app = spawn_app().await;
    let key = app.api_tenant("tasters").await;
    let survey = app
        .published_survey(&key, definition("one_per_screen"))
        .await;
    assert_eq!(survey["layout"], "one_per_screen", "{survey}");
    assert_eq!(
        survey["pages"].as_array().map(Vec::len),
        Some(2),
        "pages stay as made"
    );

    let form = app.form("tasters", "tasting").await;
    assert!(form.contains("Question 1 of 4"), "{form}");
    assert!(
        form.contains(r#"<progress class="steps" max="4" value="1""#),
        "{form}"
    );
    assert!(form.contains(r#"class="survey one-per-screen""#));
    assert!(form.contains(&canvass::web::assets::url("screen.js")));
    assert!(form.contains("About you") && form.contains("Do you like it?"));
    assert!(
        !form.contains("Why not?"),
        "one question per screen: {form}"
    );
    assert!(
        !form.contains("data-show-if"),
        "nothing is left for a script to decide"
    );
    let token = token_in(&form);

    let (status, step) = post_step(&app, &token, 0, &[("likes", "No")], "").await;
    assert_eq!(status, 200, "{step}");
    assert!(
        step.contains("Question 2 of 4") && step.contains("Why not?"),
        "{step}"
    );
    assert!(
        !step.contains("About you"),
        "a page's title is on its first step only"
    );
    assert!(step.contains(r#"<input type="hidden" name="q-likes" value="No">"#));
    assert!(step.contains(">Back<"));

    let (status, step) = post_step(&app, &token, 1, &[("likes", "No"), ("why", "")], "").await;
    assert_eq!(status, 422, "a step is checked when left");
    assert!(step.contains("Please answer this question."), "{step}");

    let answers = [("likes", "No"), ("why", "Too dear")];
    let (status, step) = post_step(&app, &token, 1, &answers, "").await;
    assert_eq!(status, 200, "{step}");
    assert!(
        step.contains("Question 3 of 4") && step.contains(">More<"),
        "{step}"
    );
    assert!(step.contains("Two more minutes."));
    assert!(!step.contains("What would you pay?"));

    // The page's title in German is its page's translation, on its first step.
    let (_, german) = post_step(&app, &token, 1, &answers, "?lang=de").await;
    assert!(german.contains(">Mehr<"), "{german}");
    assert!(german.contains("Frage 3 von 4"), "{german}");

    let answers = [("likes", "No"), ("why", "Too dear"), ("score", "7")];
    let (status, step) = post_step(&app, &token, 2, &answers, "").await;
    assert_eq!(status, 200, "{step}");
    assert!(
        step.contains("What would you pay?"),
        "decided on the server: {step}"
    );
    assert!(step.contains(">Send my answers<"));

    let answers = [
        ("likes", "No"),
        ("why", "Too dear"),
        ("score", "7"),
        ("cheap", "3"),
    ];
    let (status, thanks) = post_step(&app, &token, 3, &answers, "").await;
    assert_eq!(status, 303, "{thanks}");
    assert!(thanks.starts_with("/s/tasters/tasting/thanks/"), "{thanks}");

    // "Yes" leaves the page at once: its hidden second question's step carries the jump.
    let token = token_in(&app.form("tasters", "tasting").await);
    let (status, thanks) =
        post_step(&app, &token, 0, &[("likes", "Yes"), ("score", "1")], "").await;
    assert_eq!(status, 303, "{thanks}");

    drain(&app.stores().await).await;
    let (_, responses) = app
        .api(Method::GET, "/api/v1/surveys/tasting/responses", &key, None)
        .await;
    let responses = responses["responses"].as_array().expect("responses");
    assert_eq!(responses.len(), 2, "one response each");
    let yes = responses
        .iter()
        .find(|r| r["values"]["likes"]["choice"] == "Yes")
        .expect("the Yes response");
    let keys: Vec<&String> = yes["values"].as_object().expect("values").keys().collect();
    assert_eq!(keys, ["likes"], "nothing past the jump is stored: {yes}");
    let no = responses
        .iter()
        .find(|r| r["values"]["likes"]["choice"] == "No")
        .expect("the No response");
    assert_eq!(no["values"]["cheap"]["number"], 3.0);

    let (_, dropoff) = app
        .api(Method::GET, "/api/v1/surveys/tasting/dropoff", &key, None)
        .await;
    assert_eq!(
        dropoff["pages"].as_array().map(Vec::len),
        Some(3),
        "the funnel counts screens: {dropoff}"
    );
}

#[tokio::test]
async fn pages_stay_the_default_and_a_layout_not_known_is_refused() {
    let app = spawn_app().await;
    let key = app.api_tenant("tasters").await;
    let mut plain = definition("pages");
    plain.as_object_mut().expect("an object").remove("layout");
    let survey = app.published_survey(&key, plain).await;
    assert_eq!(survey["layout"], "pages");
    let form = app.form("tasters", "tasting").await;
    assert!(form.contains("Page 1 of 2"), "{form}");

    let (status, refused) = app
        .api(
            Method::POST,
            "/api/v1/surveys",
            &key,
            Some(definition("cards")),
        )
        .await;
    assert_eq!(status, 400, "{refused}");
    assert!(
        refused["error"]
            .as_str()
            .is_some_and(|e| e.contains("one_per_screen")),
        "{refused}"
    );

    // Switching an existing survey's layout keeps everything else.
    let mut switched = definition("one_per_screen");
    switched["title"] = json!("Tasting");
    let (status, updated) = app
        .api(Method::PUT, "/api/v1/surveys/tasting", &key, Some(switched))
        .await;
    assert_eq!(status, 200, "{updated}");
    assert_eq!(updated["layout"], "one_per_screen");
    let mut without = definition("pages");
    without.as_object_mut().expect("an object").remove("layout");
    let (_, kept) = app
        .api(Method::PUT, "/api/v1/surveys/tasting", &key, Some(without))
        .await;
    assert_eq!(kept["layout"], "one_per_screen", "absent: as it is");
}
