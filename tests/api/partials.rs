//! Partial responses over HTTP: a survey that keeps them stores the answers so far each time a
//! respondent leaves a page; they are listed as partial (API and site), downloaded with a
//! `Complete` column of 0, left out of the summary unless asked for, and forgotten once the
//! response is sent. A survey that does not keep them stores nothing of the kind.

use reqwest::Method;
use serde_json::{Value, json};

use crate::helpers::{TestApp, drain, spawn_app, token_in};

fn definition(keep: bool) -> Value {
    json!({
        "title": if keep { "Kept" } else { "Not kept" },
        "keep_partial": keep,
        "pages": [
            {"questions": [{"id": "stars", "text": "Stars?", "type": "five_stars", "required": true}]},
            {"questions": [{"id": "why", "text": "Why?", "type": "short_text", "required": true}]}
        ]
    })
}

async fn post(app: &TestApp, slug: &str, fields: &[(&str, &str)]) -> u16 {
    crate::calculations::post_to(app, slug, fields)
        .await
        .status()
        .as_u16()
}

#[tokio::test]
async fn answers_so_far_are_kept_listed_downloaded_and_summarised_only_when_asked() {
    let app = spawn_app().await;
    let owner = crate::owner::Owner::signed_up(&app, "Acme", "acme", "owner@acme.test").await;
    let key = owner.api_key("script").await;
    let survey = app.published_survey(&key, definition(true)).await;
    assert_eq!(survey["keep_partial"], true);
    // Two respondents leave page 1; one of them sends.
    let (first, second) = (
        token_in(&app.form("acme", "kept").await),
        token_in(&app.form("acme", "kept").await),
    );
    for (token, stars) in [(&first, "5"), (&second, "2")] {
        let page = [
            ("token", token.as_str()),
            ("page", "0"),
            ("nav", "next"),
            ("q-stars", stars),
        ];
        assert_eq!(post(&app, "kept", &page).await, 200);
    }
    let (status, partials) = app
        .api(Method::GET, "/api/v1/surveys/kept/partials", &key, None)
        .await;
    assert_eq!(status, 200, "{partials}");
    assert_eq!(partials["total"], 2, "{partials}");
    assert_eq!(partials["responses"][0]["partial"], true);
    assert_eq!(
        partials["responses"][0]["values"]["stars"],
        json!({"stars": 5})
    );
    let sent = [
        ("token", first.as_str()),
        ("page", "1"),
        ("nav", "next"),
        ("q-stars", "5"),
        ("q-why", "Great"),
    ];
    assert_eq!(post(&app, "kept", &sent).await, 303);
    drain(&app.stores().await).await;
    // The one sent is no longer partial.
    let (_, partials) = app
        .api(Method::GET, "/api/v1/surveys/kept/partials", &key, None)
        .await;
    assert_eq!(partials["total"], 1, "{partials}");
    assert_eq!(
        partials["responses"][0]["values"]["stars"],
        json!({"stars": 2})
    );
    // The summary counts the sent response; asked, the partial one too.
    let summary = |query: &'static str| {
        let (app, key) = (&app, &key);
        async move {
            let path = format!("/api/v1/surveys/kept/summary{query}");
            app.api(Method::GET, &path, key, None).await.1
        }
    };
    let sent_only = summary("").await;
    assert_eq!(sent_only["total"], 1, "{sent_only}");
    assert!(sent_only.get("partial").is_none());
    let with_partial = summary("?partial=true").await;
    assert_eq!(with_partial["total"], 2, "{with_partial}");
    assert_eq!(with_partial["partial"], 1);
    // Downloads: a Complete column, 1 for the sent response and 0 for the partial one.
    let csv = app.responses_csv(&key, "kept").await;
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines.len(), 4, "{csv}");
    assert!(lines[1].split(',').any(|id| id == "complete"), "{csv}");
    assert!(
        lines[2].contains(",1,") && lines[2].contains("Great"),
        "{csv}"
    );
    assert!(lines[3].contains(",0,"), "{csv}");
    // The site lists it as partial, and the summary page counts it in on request.
    let page = owner.page("/tenant/surveys/kept/responses").await;
    assert!(
        page.contains(r#"<h2 id="partial-title">Partial responses"#),
        "{page}"
    );
    let page = owner.page("/tenant/surveys/kept/summary?partial=1").await;
    assert!(page.contains("1 of them partial"), "{page}");
    // Deleted with their survey.
    let stores = app.stores().await;
    let filed = crate::helpers::filed_survey(&stores, "acme", "kept").await;
    let (status, _) = app
        .api(Method::DELETE, "/api/v1/surveys/kept", &key, None)
        .await;
    assert_eq!(status, 204);
    let kept = stores
        .answering
        .partials
        .list(&filed)
        .await
        .expect("listed");
    assert!(kept.is_empty(), "{kept:?}");
}

#[tokio::test]
async fn a_survey_that_does_not_keep_them_stores_none() {
    let app = spawn_app().await;
    let key = app.api_tenant("acme").await;
    app.published_survey(&key, definition(false)).await;
    let token = token_in(&app.form("acme", "not-kept").await);
    let page = [
        ("token", token.as_str()),
        ("page", "0"),
        ("nav", "next"),
        ("q-stars", "4"),
    ];
    assert_eq!(post(&app, "not-kept", &page).await, 200);
    let (_, partials) = app
        .api(Method::GET, "/api/v1/surveys/not-kept/partials", &key, None)
        .await;
    assert_eq!(partials["total"], 0, "{partials}");
    let stores = app.stores().await;
    let survey = crate::helpers::filed_survey(&stores, "acme", "not-kept").await;
    let kept = stores
        .answering
        .partials
        .list(&survey)
        .await
        .expect("listed");
    assert!(
        kept.is_empty(),
        "nothing stored for a survey that does not keep them"
    );
}
