//! What owners and respondents read speaks plainly: error pages carry no parser or developer
//! wording and keep the tenant site's menu for a signed-in member; tenant pages never name
//! the operator's settings.

use crate::helpers::spawn_app;
use crate::owner::Owner;

/// Words that belong to developers and operators, never on a page people read.
const JARGON: [&str; 4] = ["deserialize", "invalid digit", "QUESTION_ID", "CANVASS_"];

fn assert_plain(page: &str, what: &str) {
    for word in JARGON {
        assert!(!page.contains(word), "{what} shows {word:?}:\n{page}");
    }
}

#[tokio::test]
async fn a_malformed_address_is_answered_in_plain_words() {
    let app = spawn_app().await;
    for path in ["/s/demo?page=-1", "/s/demo?page=99999999999999999999"] {
        let response = app.get(path).await;
        assert_eq!(response.status(), 400, "{path}");
        let page = response.text().await.expect("a page");
        assert!(page.contains("Check the link"), "{path}: {page}");
        assert_plain(&page, path);
    }
}

#[tokio::test]
async fn a_signed_in_members_error_pages_keep_the_menu() {
    let app = spawn_app().await;
    let owner = Owner::signed_up(&app, "Acme", "acme", "owner@acme.test").await;
    let slug = owner.design("Team day").await;
    for (path, status) in [
        ("/tenant/surveys/no-such-survey/summary".to_owned(), 404),
        ("/tenant/no-such-page".to_owned(), 404),
        (format!("/tenant/surveys/{slug}/responses?page=-1"), 400),
        (format!("/tenant/surveys/{slug}/responses/abc"), 400),
    ] {
        let response = owner.get(&path).await;
        assert_eq!(response.status(), status, "{path}");
        let page = response.text().await.expect("a page");
        for item in [
            r#"href="/tenant/members""#,
            "Sign out",
            "Go to your surveys",
        ] {
            assert!(page.contains(item), "{path} has no {item}:\n{page}");
        }
        assert_plain(&page, &path);
    }
    // A visitor who is not signed in gets the plain page, without a member's menu.
    let stranger = Owner::new(&app);
    let page = stranger
        .get("/tenant/no-such-page")
        .await
        .text()
        .await
        .expect("a page");
    assert!(!page.contains("Sign out"), "{page}");
}

#[tokio::test]
async fn tenant_pages_never_name_the_operators_settings() {
    let app = spawn_app().await;
    let owner = Owner::signed_up(&app, "Acme", "acme", "owner@acme.test").await;
    let slug = owner.design("Team day").await;
    for path in [
        "/tenant".to_owned(),
        "/tenant/settings".to_owned(),
        "/tenant/account".to_owned(),
        "/tenant/members".to_owned(),
        "/tenant/webhooks".to_owned(),
        "/tenant/api-keys".to_owned(),
        format!("/tenant/surveys/{slug}"),
        format!("/tenant/surveys/{slug}/summary"),
        format!("/tenant/surveys/{slug}/summary?segment=nonsense"),
        format!("/tenant/surveys/{slug}/responses"),
        format!("/tenant/surveys/{slug}/responses?segment=a:b"),
    ] {
        let page = owner.page(&path).await;
        assert_plain(&page, &path);
    }
    assert!(
        owner
            .page(&format!("/tenant/surveys/{slug}/summary"))
            .await
            .contains("ask your administrator")
    );
}

#[tokio::test]
async fn the_tenants_public_list_shows_introductions_as_formatted_text_not_markdown() {
    let app = spawn_app().await;
    let key = app.api_tenant("acme").await;
    app.published_survey(
        &key,
        serde_json::json!({"title": "Lunch", "description": "Tell us **honestly**, <script>x</script>",
            "questions": [{"text": "Hi?", "type": "short_text"}]}),
    )
    .await;
    let page = app.get("/s/acme").await.text().await.expect("a page");
    assert!(page.contains("<strong>honestly</strong>"), "{page}");
    assert!(!page.contains("**honestly**"), "{page}");
    assert!(!page.contains("<script>x"), "owner HTML stays text: {page}");
}
