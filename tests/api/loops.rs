//! Loops over HTTP: a page repeated for each option ticked (and a run of pages as many times as
//! a number says), `{{loop}}` showing the item, answers kept per item and checked per item
//! whatever a tampered form sends, pooled in the summary and shown per item, a column per item
//! in downloads, refused where they cannot run, and set in the designer.

use reqwest::Method;
use serde_json::{Value, json};

use crate::helpers::{TestApp, spawn_app, token_in};
use crate::hidden_fields::client;

fn definition() -> Value {
    json!({
        "title": "Drinks",
        "pages": [
            {"questions": [
                {"id": "drinks", "text": "Which do you drink?", "type": "multiple_choice",
                 "options": ["Tea", "Coffee", "Hot chocolate"], "required": true}]},
            {"title": "About {{loop}}", "loop": {"over": "drinks"}, "questions": [
                {"id": "cups", "text": "Cups of {{loop}} a day?", "type": "numeric",
                 "required": true,
                 "validate": {"expression": "q.cups < 20.0", "message": "Fewer than 20 cups."}},
                {"id": "why", "text": "Why so much {{loop}}?", "type": "short_text",
                 "show_if": {"question": "cups", "greater_than": 5}}]},
            {"questions": [
                {"id": "end", "text": "Anything else?", "type": "short_text"}]}
        ]
    })
}

async fn post(app: &TestApp, fields: &[(&str, &str)]) -> reqwest::Response {
    client()
        .post(format!("{}/s/acme/drinks", app.address))
        .form(fields)
        .send()
        .await
        .expect("answered")
}

#[tokio::test]
async fn a_page_repeats_for_each_option_ticked_and_its_answers_are_kept_per_item() {
    let app = spawn_app().await;
    let key = app.api_tenant("acme").await;
    let survey = app.published_survey(&key, definition()).await;
    assert_eq!(survey["pages"][1]["loop"], json!({"over": "drinks"}));
    let token = token_in(&app.form("acme", "drinks").await);
    let first = [
        ("token", token.as_str()),
        ("q-drinks", "Tea"),
        ("q-drinks", "Hot chocolate"),
    ];
    let next = |page: &'static str| [("page", page), ("nav", "next")];
    // Page 1 is the loop's first time round: Tea, named by `{{loop}}`.
    let shown = post(&app, &[first.as_slice(), &next("0")].concat()).await;
    assert_eq!(shown.status(), 200);
    let page = shown.text().await.expect("a page");
    assert!(page.contains("About Tea"), "{page}");
    assert!(page.contains("Cups of Tea a day?"), "{page}");
    assert!(page.contains(r#"name="q-cups[tea]""#), "{page}");
    // Then Hot chocolate; a condition on the same time round's answer shows "why".
    let tea = [("q-cups[tea]", "8"), ("q-why[tea]", "Cold office")];
    let shown = post(&app, &[first.as_slice(), &tea, &next("1")].concat()).await;
    let page = shown.text().await.expect("a page");
    assert!(page.contains("Cups of Hot chocolate a day?"), "{page}");
    assert!(page.contains(r#"name="q-cups[hot_chocolate]""#), "{page}");

    // The owner's rule reads the current item's answer, on every step and at send.
    let too_many = [("q-cups[hot_chocolate]", "25")];
    let refused = post(
        &app,
        &[first.as_slice(), &tea, &too_many, &next("3")].concat(),
    )
    .await;
    assert_eq!(refused.status(), 422);
    let page = refused.text().await.expect("a page");
    assert!(page.contains("Fewer than 20 cups."), "{page}");

    // Sent, with answers for an item not ticked and a made-up one: never kept.
    let rest = [
        ("q-cups[hot_chocolate]", "2"),
        ("q-why[hot_chocolate]", "never shown: 2 is not more than 5"),
        ("q-cups[coffee]", "4"),
        ("q-cups[milk]", "1"),
        ("q-end", "No"),
    ];
    let sent = post(&app, &[first.as_slice(), &tea, &rest, &next("3")].concat()).await;
    assert_eq!(
        sent.status(),
        303,
        "{}",
        sent.text().await.unwrap_or_default()
    );

    let list = app.counted_responses(&key, "drinks").await;
    let values = &list[0]["values"];
    assert_eq!(values["cups[tea]"], json!({"number": 8.0}), "{values}");
    assert_eq!(values["why[tea]"], json!({"text": "Cold office"}));
    assert_eq!(values["cups[hot_chocolate]"], json!({"number": 2.0}));
    for never in ["cups[coffee]", "cups[milk]", "why[hot_chocolate]", "cups"] {
        assert!(values.get(never).is_none(), "{never}: {values}");
    }

    // The summary pools the loop's answers; each item can be shown alone.
    let summary = |query: &str| {
        let path = format!("/api/v1/surveys/drinks/summary{query}");
        let (app, key) = (&app, &key);
        async move { app.api(Method::GET, &path, key, None).await }
    };
    let cups = |report: &Value| {
        report["questions"]
            .as_array()
            .and_then(|qs| qs.iter().find(|q| q["id"] == "cups"))
            .map(|q| (q["answered"].clone(), q["mean"].clone()))
    };
    let (status, pooled) = summary("").await;
    assert_eq!(status, 200);
    assert_eq!(cups(&pooled), Some((json!(2), json!(5.0))), "{pooled}");
    let keys: Vec<&str> = pooled["items"]
        .as_array()
        .expect("items")
        .iter()
        .filter_map(|i| i["key"].as_str())
        .collect();
    assert_eq!(keys, ["tea", "coffee", "hot_chocolate"]);
    let (_, tea_only) = summary("?item=tea").await;
    assert_eq!(cups(&tea_only), Some((json!(1), json!(8.0))), "{tea_only}");
    assert_eq!(tea_only["item"], "tea");
    let (status, unknown) = summary("?item=milk").await;
    assert_eq!(status, 400, "{unknown}");

    // Downloads: a column per item and question, headed with the item.
    let csv = app.responses_csv(&key, "drinks").await;
    let mut lines = csv.lines();
    let header = lines.next().expect("a header");
    assert!(
        header.contains("Cups of Tea a day?,Cups of Coffee a day?"),
        "{header}"
    );
    let ids = lines.next().expect("a row of ids");
    for column in [
        "cups[tea]",
        "cups[coffee]",
        "cups[hot_chocolate]",
        "why[tea]",
    ] {
        assert!(ids.contains(column), "{column} in {ids}");
    }
    let row = lines.next().expect("a row");
    assert!(row.contains("Cold office"), "{row}");
}

#[tokio::test]
async fn a_number_repeats_a_run_of_pages_and_nothing_skips_the_loop() {
    let app = spawn_app().await;
    let key = app.api_tenant("acme").await;
    app.published_survey(
        &key,
        json!({"title": "Household", "pages": [
            {"questions": [{"id": "people", "text": "How many others live with you?",
                            "type": "numeric", "max": 10, "integer": true}]},
            {"loop": {"times": "people", "pages": 2}, "questions": [
                {"id": "age", "text": "Age of person {{loop}}?", "type": "numeric"}]},
            {"questions": [{"id": "works", "text": "Does person {{loop}} work?",
                            "type": "short_text"}]},
            {"questions": [{"id": "end", "text": "Thanks?", "type": "short_text"}]}
        ]}),
    )
    .await;
    let go = |fields: Vec<(&'static str, String)>| {
        let app = &app;
        async move {
            client()
                .post(format!("{}/s/acme/household", app.address))
                .form(&fields)
                .send()
                .await
                .expect("answered")
        }
    };
    let token = token_in(&app.form("acme", "household").await);
    let base = |page: &str| {
        vec![
            ("token", token.clone()),
            ("q-people", "2".to_owned()),
            ("page", page.to_owned()),
            ("nav", "next".to_owned()),
        ]
    };
    // Leaving person 1's age (page 1): their work; leaving person 2's (page 3): theirs.
    let page = go(base("1")).await.text().await.expect("a page");
    assert!(page.contains("Does person 1 work?"), "{page}");
    let page = go(base("3")).await.text().await.expect("a page");
    assert!(page.contains("Does person 2 work?"), "{page}");
    let mut all = base("5");
    all.extend([
        ("q-age[1]", "40".to_owned()),
        ("q-works[1]", "Yes".to_owned()),
        ("q-age[2]", "9".to_owned()),
        ("q-works[2]", "No".to_owned()),
    ]);
    assert_eq!(go(all).await.status(), 303);
    // None: the loop's pages are passed over, its answers dropped.
    let token = token_in(&app.form("acme", "household").await);
    let none = vec![
        ("token", token),
        ("q-people", "0".to_owned()),
        ("q-age[1]", "30".to_owned()),
        ("page", "1".to_owned()),
        ("nav", "next".to_owned()),
    ];
    assert_eq!(go(none).await.status(), 303);
    let list = app.counted_responses(&key, "household").await;
    let values: Vec<&Value> = list
        .as_array()
        .expect("a list")
        .iter()
        .map(|r| &r["values"])
        .collect();
    assert!(
        values
            .iter()
            .any(|v| v["works[2]"] == json!({"text": "No"})),
        "{list}"
    );
    assert!(values.iter().any(|v| v.get("age[1]").is_none()), "{list}");
    let csv = app.responses_csv(&key, "household").await;
    let ids = csv.lines().nth(1).expect("a row of ids");
    assert!(ids.contains("age[10]") && !ids.contains("age[11]"), "{ids}");
}

#[tokio::test]
async fn loops_that_cannot_run_are_refused_at_their_field() {
    let app = spawn_app().await;
    let key = app.api_tenant("acme").await;
    let refused = |loop_: Value| {
        let (app, key) = (&app, &key);
        async move {
            let definition = json!({"title": "Bad", "pages": [
                {"questions": [{"id": "name", "text": "Name?", "type": "short_text"},
                               {"id": "pick", "text": "Pick", "type": "multiple_choice",
                                "options": ["A", "B"]}]},
                {"loop": loop_, "questions": [{"id": "x", "text": "X", "type": "short_text"}]}
            ]});
            let (status, body) = app
                .api(Method::POST, "/api/v1/surveys", key, Some(definition))
                .await;
            assert_eq!(status, 422, "{body}");
            body["fields"]["pages[1].loop"]
                .as_str()
                .unwrap_or_default()
                .to_owned()
        }
    };
    assert!(
        refused(json!({"over": "name"}))
            .await
            .contains("multiple-choice")
    );
    assert!(
        refused(json!({"times": "pick"}))
            .await
            .contains("number question")
    );
    assert!(refused(json!({"over": "x"})).await.contains("earlier page"));
    assert!(
        refused(json!({"over": "pick", "pages": 4}))
            .await
            .contains("pages")
    );
    assert!(
        refused(json!({"over": "pick", "times": "pick"}))
            .await
            .contains("one question")
    );
}

#[tokio::test]
async fn the_designer_repeats_a_page_and_the_summary_picks_an_item() {
    use crate::designer_saves::set;
    use crate::owner::{Owner, field_of, form_fields};
    let app = spawn_app().await;
    let owner = Owner::signed_up(&app, "Acme", "acme", "owner@acme.test").await;
    let slug = owner.design("Team day").await;
    let path = format!("/tenant/surveys/{slug}");
    let page = owner.page(&path).await;
    let mut form = form_fields(&page, r#"<form class="designer"#);
    // "Activities" (q3) is a multiple choice; "Rating" (q4) starts a page repeated over it.
    let activities = field_of(&form, "q3.id");
    set(&mut form, "q4.page_break", "on");
    set(&mut form, "q4.repeat", &format!("over:{activities}"));
    set(&mut form, "q4.repeat_pages", "x");
    set(&mut form, "q4.text", "Rate {{loop}}");
    set(&mut form, "q5.page_break", "on");
    set(&mut form, "action", "save");
    let refused = owner.post_owned(&path, &form).await;
    assert_eq!(refused.status(), 422);
    let page = refused.text().await.expect("a page");
    assert!(
        page.contains("Pages repeated together is a whole number"),
        "{page}"
    );
    set(&mut form, "q4.repeat_pages", "");
    let saved = owner.post_owned(&path, &form).await;
    assert_eq!(
        saved.status(),
        303,
        "{}",
        saved.text().await.unwrap_or_default()
    );
    let key = owner.api_key("script").await;
    let (_, survey) = app
        .api(Method::GET, &format!("/api/v1/surveys/{slug}"), &key, None)
        .await;
    assert_eq!(
        survey["pages"][1]["loop"],
        json!({"over": activities}),
        "{survey}"
    );
    let page = owner.page(&path).await;
    assert!(
        page.contains(&format!(r#"<option value="over:{activities}" selected>"#)),
        "{page}"
    );
    // Answered, the summary page offers each item.
    let publish = format!("/api/v1/surveys/{slug}/publish");
    assert_eq!(app.api(Method::POST, &publish, &key, None).await.0, 200);
    let summary = owner.page(&format!("{path}/summary")).await;
    assert!(
        summary.contains(r#"<label for="item">Loop item</label>"#),
        "{summary}"
    );
    assert!(
        summary.contains(r#"<option value="swimming">Swimming (0)</option>"#),
        "{summary}"
    );
    // `{{loop}}` reads as every item when pooled, and as the item shown.
    assert!(summary.contains("Rate [each item]"), "{summary}");
    let swimming = owner.page(&format!("{path}/summary?item=swimming")).await;
    assert!(swimming.contains("Rate Swimming"), "{swimming}");
}
