//! Quotas over HTTP: a full quota ends respondents politely (as soon as a page decides it)
//! and keeps nothing of their answers, or keeps and marks them over it; a form sent twice
//! takes one place; the places are in the API and on the owner's page, where quotas are added,
//! changed and removed (asked first); bad quotas are refused at their field. The race of
//! several processes for the last places is in `quotas_race.rs`.

use reqwest::Method;
use serde_json::{Value, json};

use crate::helpers::{TestApp, drain, spawn_app, token_in};
use crate::owner::{Owner, value_of};

fn definition() -> Value {
    json!({
        "title": "Drinks",
        "pages": [
            {"questions": [{"id": "drink", "text": "What do you drink?", "type": "single_choice",
                            "required": true, "options": ["Tea", "Coffee", "Water"]}]},
            {"questions": [{"id": "age", "text": "Your age?", "type": "dropdown",
                            "options": ["18-24", "25-64", "65+"]}]}
        ],
        "quotas": [
            {"id": "tea", "name": "Tea drinkers", "limit": 2,
             "when": {"question": "drink", "equals": "Tea"},
             "message": "We have **enough** tea drinkers: thank you!"},
            {"id": "coffee", "name": "Coffee drinkers", "limit": 1, "full": "count",
             "when": {"question": "drink", "any_of": ["Coffee"]}}
        ]
    })
}

/// One respondent: page 1 with `drink`, then page 2; the status and body of the last reply
/// (a 303's body is its location).
async fn respond(app: &TestApp, drink: &str) -> (u16, String) {
    let token = token_in(&app.form("acme", "drinks").await);
    let page = |page: &str| {
        let pairs = [
            ("token".to_owned(), token.clone()),
            ("page".to_owned(), page.to_owned()),
            ("nav".to_owned(), "next".to_owned()),
            ("q-drink".to_owned(), drink.to_owned()),
            ("q-age".to_owned(), "18-24".to_owned()),
        ];
        let client = app.client.clone();
        let url = format!("{}/s/acme/drinks", app.address);
        async move {
            client
                .post(url)
                .form(&pairs)
                .send()
                .await
                .expect("answered")
        }
    };
    let first = page("0").await;
    if first.status() != 200 || !first.headers().contains_key("content-type") {
        return (first.status().as_u16(), String::new());
    }
    let body = first.text().await.expect("a body");
    if !body.contains("Your age?") {
        return (200, body);
    }
    let last = page("1").await;
    let status = last.status().as_u16();
    let body = match last.headers().get("location") {
        Some(location) => location.to_str().expect("ascii").to_owned(),
        None => last.text().await.expect("a body"),
    };
    (status, body)
}

#[tokio::test]
async fn a_full_quota_ends_respondents_politely_and_keeps_nothing_of_their_answers() {
    let app = spawn_app().await;
    let key = app.api_tenant("acme").await;
    let created = app.published_survey(&key, definition()).await;
    assert_eq!(created["quotas"][1]["full"], "count");
    assert_eq!(
        created["quotas"][0]["when"],
        json!({"question": "drink", "equals": "Tea"})
    );

    for _ in 0..2 {
        let (status, location) = respond(&app, "Tea").await;
        assert_eq!(status, 303, "{location}");
    }
    // The third tea drinker sends the last page of a quota now full: ended, nothing kept.
    let token = token_in(&app.form("acme", "drinks").await);
    let sent = app
        .client
        .post(format!("{}/s/acme/drinks", app.address))
        .form(&[
            ("token", token.as_str()),
            ("page", "1"),
            ("nav", "next"),
            ("q-drink", "Tea"),
            ("q-age", "65+"),
        ])
        .send()
        .await
        .expect("answered");
    assert_eq!(sent.status(), 200);
    let ended = sent.text().await.expect("a body");
    assert!(
        ended.contains("Thank you for your time")
            && ended.contains("We have <strong>enough</strong> tea drinkers: thank you!"),
        "{ended}"
    );
    // The fourth is ended on leaving page 1, which already decides the quota.
    let (status, page) = respond(&app, "Tea").await;
    assert_eq!(status, 200);
    assert!(
        page.contains("enough</strong> tea drinkers"),
        "ended early: {page}"
    );

    // Coffee keeps answers once full, marked over the quota.
    for _ in 0..2 {
        assert_eq!(respond(&app, "Coffee").await.0, 303);
    }
    drain(&app.stores().await).await;
    let (_, summary) = app
        .api(Method::GET, "/api/v1/surveys/drinks/summary", &key, None)
        .await;
    assert_eq!(summary["total"], 4, "{summary}");
    let (_, responses) = app
        .api(Method::GET, "/api/v1/surveys/drinks/responses", &key, None)
        .await;
    let over: Vec<&Value> = responses["responses"]
        .as_array()
        .expect("responses")
        .iter()
        .map(|r| &r["over_quota"])
        .filter(|o| !o.is_null())
        .collect();
    assert_eq!(over, [&json!(["coffee"])], "{responses}");
    let (_, quotas) = app
        .api(Method::GET, "/api/v1/surveys/drinks/quotas", &key, None)
        .await;
    assert_eq!(
        quotas,
        json!([
            {"id": "tea", "name": "Tea drinkers", "limit": 2, "placed": 2, "full": true, "when_full": "end"},
            {"id": "coffee", "name": "Coffee drinkers", "limit": 1, "placed": 1, "full": true, "when_full": "count"}
        ])
    );
    let csv = app
        .client
        .get(format!(
            "{}/api/v1/surveys/drinks/responses.csv",
            app.address
        ))
        .bearer_auth(&key)
        .send()
        .await
        .expect("answered")
        .text()
        .await
        .expect("a body");
    assert!(
        csv.contains("Over quota") && csv.contains("Coffee drinkers"),
        "{csv}"
    );

    // Deleting the survey deletes its places.
    let (status, _) = app
        .api(Method::DELETE, "/api/v1/surveys/drinks", &key, None)
        .await;
    assert_eq!(status, 204);
    let left = app
        .stores()
        .await
        .operations
        .scan("quotas/", None)
        .await
        .expect("listed");
    assert!(left.keys.is_empty(), "{:?}", left.keys);
}

#[tokio::test]
async fn a_form_sent_twice_takes_one_place() {
    let app = spawn_app().await;
    let key = app.api_tenant("acme").await;
    let mut definition = definition();
    definition["quotas"][0]["limit"] = json!(1);
    app.published_survey(&key, definition).await;
    let token = token_in(&app.form("acme", "drinks").await);
    let send = || async {
        app.client
            .post(format!("{}/s/acme/drinks", app.address))
            .form(&[
                ("token", token.as_str()),
                ("page", "1"),
                ("nav", "next"),
                ("q-drink", "Tea"),
            ])
            .send()
            .await
            .expect("answered")
            .status()
    };
    assert_eq!(send().await, 303);
    assert_eq!(
        send().await,
        303,
        "the same form again is the same answer, in its place"
    );
    let (_, quotas) = app
        .api(Method::GET, "/api/v1/surveys/drinks/quotas", &key, None)
        .await;
    assert_eq!(quotas[0]["placed"], 1, "{quotas}");
}

#[tokio::test]
async fn bad_quotas_are_refused_at_their_field() {
    let app = spawn_app().await;
    let key = app.api_tenant("acme").await;
    for (quota, field, said) in [
        (
            json!({"name": "T", "limit": 0, "when": {"question": "drink", "equals": "Tea"}}),
            "quotas[0].limit",
            "1 to 1,000,000",
        ),
        (
            json!({"name": "", "limit": 5, "when": {"question": "drink", "equals": "Tea"}}),
            "quotas[0].name",
            "a name of 1 to 100",
        ),
        (
            json!({"name": "T", "limit": 5, "when": {"question": "nope", "equals": "Tea"}}),
            "quotas[0].when",
            "quota \"T\"",
        ),
        (
            json!({"name": "T", "limit": 5, "when": {"question": "drink", "equals": "Milk"}}),
            "quotas[0].when",
            "Milk",
        ),
        (
            json!({"name": "T", "limit": 5, "when": {"question": "drink", "equals": "Tea"}, "message": "Hi {{q:drink}}"}),
            "quotas[0].message",
            "only in a question's",
        ),
    ] {
        let mut definition = definition();
        definition["quotas"] = json!([quota]);
        let (status, body) = app
            .api(Method::POST, "/api/v1/surveys", &key, Some(definition))
            .await;
        assert_eq!(status, 422, "{body}");
        let message = body["fields"][field]
            .as_str()
            .unwrap_or_else(|| panic!("no {field} in {body}"));
        assert!(message.contains(said), "{field}: {message}");
    }
    let mut definition = definition();
    definition["quotas"] = json!((0..21)
        .map(|n| json!({"name": format!("Q{n}"), "limit": 1, "when": {"question": "drink", "equals": "Tea"}}))
        .collect::<Vec<_>>());
    let (status, body) = app
        .api(Method::POST, "/api/v1/surveys", &key, Some(definition))
        .await;
    assert_eq!(status, 422);
    assert!(body.to_string().contains("at most 20 quotas"), "{body}");
}

#[tokio::test]
async fn an_owner_adds_changes_and_removes_quotas_on_the_quotas_page() {
    let app = spawn_app().await;
    let owner = Owner::signed_up(&app, "Acme", "acme", "owner@acme.test").await;
    let key = owner.api_key("quotas").await;
    let mut survey = definition();
    survey["quotas"] = json!([]);
    app.published_survey(&key, survey).await;
    let path = "/tenant/surveys/drinks/quotas";
    let page = owner.page(path).await;
    assert!(
        page.contains("Add a quota") && page.contains(r#"name="a:drink" value="Tea""#),
        "{page}"
    );
    let csrf = value_of(&page, "csrf");

    // Nothing ticked: refused beside the field, what was typed kept.
    let refused = owner
        .post(
            path,
            &[
                ("csrf", &csrf),
                ("quota", ""),
                ("action", "save"),
                ("name", "Young tea"),
                ("limit", "30"),
                ("full", "end"),
            ],
        )
        .await;
    assert_eq!(refused.status(), 422);
    let refused = refused.text().await.expect("a body");
    assert!(
        refused.contains("Tick at least one answer") && refused.contains(r#"value="Young tea""#),
        "{refused}"
    );

    let added = owner
        .post(
            path,
            &[
                ("csrf", &csrf),
                ("quota", ""),
                ("action", "save"),
                ("name", "Young tea"),
                ("limit", "30"),
                ("a:drink", "Tea"),
                ("a:age", "18-24"),
                ("full", "end"),
                ("message", ""),
            ],
        )
        .await;
    assert_eq!(added.status(), 303);
    let page = owner.page(path).await;
    assert!(
        page.contains("Quota \u{201c}Young tea\u{201d} added."),
        "{page}"
    );
    assert!(
        page.contains("<strong>0</strong> of 30 places taken"),
        "{page}"
    );
    let (_, survey) = app
        .api(Method::GET, "/api/v1/surveys/drinks", &key, None)
        .await;
    assert_eq!(
        survey["quotas"][0]["when"],
        json!({"all": [{"question": "age", "any_of": ["18-24"]}, {"question": "drink", "any_of": ["Tea"]}]})
    );
    let id = survey["quotas"][0]["id"]
        .as_str()
        .expect("an id")
        .to_owned();

    // A young tea drinker takes a place; removing the quota asks first, then takes its places.
    assert_eq!(respond(&app, "Tea").await.0, 303);
    assert!(
        owner
            .page(path)
            .await
            .contains("<strong>1</strong> of 30 places taken")
    );
    let asked = owner
        .post(
            path,
            &[("csrf", &csrf), ("quota", &id), ("action", "remove")],
        )
        .await
        .text()
        .await
        .expect("a body");
    assert!(
        asked.contains("Remove the quota &ldquo;Young tea&rdquo;?")
            && asked.contains("Its 1 places"),
        "{asked}"
    );
    let (_, survey) = app
        .api(Method::GET, "/api/v1/surveys/drinks", &key, None)
        .await;
    assert_eq!(
        survey["quotas"].as_array().map(Vec::len),
        Some(1),
        "not removed yet"
    );
    let removed = owner
        .post(
            path,
            &[
                ("csrf", &csrf),
                ("quota", &id),
                ("action", "remove"),
                ("confirm", "yes"),
            ],
        )
        .await;
    assert_eq!(removed.status(), 303);
    assert!(owner.page(path).await.contains("removed, with its places"));
    let left = app
        .stores()
        .await
        .operations
        .scan("quotas/", None)
        .await
        .expect("listed");
    assert!(left.keys.is_empty(), "{:?}", left.keys);
}

#[tokio::test]
async fn a_quota_adds_one_read_and_two_writes_to_a_submission_that_meets_it() {
    use canvass::storage::Operation;
    let app = spawn_app().await;
    let key = app.api_tenant("acme").await;
    app.published_survey(&key, definition()).await;
    let token = token_in(&app.form("acme", "drinks").await);
    let before = app.storage.transactions();
    let sent = app
        .client
        .post(format!("{}/s/acme/drinks", app.address))
        .form(&[
            ("token", token.as_str()),
            ("page", "1"),
            ("nav", "next"),
            ("q-drink", "Tea"),
        ])
        .send()
        .await
        .expect("answered");
    assert_eq!(sent.status(), 303);
    let delta = app.storage.transactions().since(&before);
    // The holder looked up (none yet), the place and the holder written create-only, and the
    // one queue add every answer costs.
    assert_eq!(delta.of(Operation::Get), 1, "{delta:?}");
    assert_eq!(delta.of(Operation::Put), 2, "{delta:?}");
    assert_eq!(delta.of(Operation::Add), 1, "{delta:?}");
    assert_eq!(delta.total(), 4, "{delta:?}");

    // An answer that meets no quota costs what it always did: one queue add.
    let token = token_in(&app.form("acme", "drinks").await);
    let before = app.storage.transactions();
    let sent = app
        .client
        .post(format!("{}/s/acme/drinks", app.address))
        .form(&[
            ("token", token.as_str()),
            ("page", "1"),
            ("nav", "next"),
            ("q-drink", "Water"),
        ])
        .send()
        .await
        .expect("answered");
    assert_eq!(sent.status(), 303);
    assert_eq!(app.storage.transactions().since(&before).total(), 1);
}
