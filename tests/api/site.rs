//! The site's basic routes: health, home page, static files and unknown addresses.

use canvass::storage;

use crate::helpers::{spawn_app, spawn_app_with};

#[tokio::test]
async fn healthz_answers_ok_without_touching_storage() {
    let app = spawn_app().await;
    let before = app.storage.transactions();

    let response = app.get("/healthz").await;

    assert_eq!(response.status(), 200);
    let body: serde_json::Value = response.json().await.expect("a JSON body");
    assert_eq!(body["status"], "ok");
    assert_eq!(app.storage.transactions().since(&before).total(), 0);
}

#[tokio::test]
async fn the_home_page_says_what_canvass_is() {
    let app = spawn_app().await;

    let response = app.get("/").await;

    assert_eq!(response.status(), 200);
    assert!(
        response.headers()["content-type"]
            .to_str()
            .is_ok_and(|value| value.starts_with("text/html"))
    );
    let html = response.text().await.expect("a body");
    assert!(
        html.contains("<h1>Surveys you host yourself</h1>"),
        "{html}"
    );
    let stylesheet = crate::owner::between(&html, r#"<link rel="stylesheet" href=""#, "\"");
    assert!(
        stylesheet.starts_with("/static/canvass.") && stylesheet.ends_with(".css"),
        "{stylesheet}"
    );
}

#[tokio::test]
async fn the_home_page_is_served_from_the_local_backend_too() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let local = storage::local::storage(dir.path())
        .await
        .expect("local storage opens");
    let app = spawn_app_with(local).await;

    assert_eq!(app.get("/").await.status(), 200);
    assert_eq!(app.get("/healthz").await.status(), 200);
}

#[tokio::test]
async fn static_files_are_named_by_their_content_and_kept_for_a_year() {
    let app = spawn_app().await;
    let html = app.get("/").await.text().await.expect("a body");
    let stylesheet = crate::owner::between(&html, r#"<link rel="stylesheet" href=""#, "\"");
    let hash = stylesheet
        .trim_start_matches("/static/canvass.")
        .trim_end_matches(".css");
    assert!(
        hash.len() == 10 && hash.chars().all(|c| c.is_ascii_hexdigit()),
        "{stylesheet}"
    );

    let response = app.get(&stylesheet).await;
    assert_eq!(response.status(), 200);
    assert_eq!(
        response.headers()["content-type"],
        "text/css; charset=utf-8"
    );
    assert_eq!(
        response.headers()["cache-control"],
        "public, max-age=31536000, immutable"
    );
    let body = response.text().await.expect("a body");
    assert!(body.contains(":root"));
    // The name is the content's: the first 10 hex digits of its SHA-256.
    use sha2::Digest;
    let digest = sha2::Sha256::digest(body.as_bytes());
    let expected: String = digest[..5].iter().map(|b| format!("{b:02x}")).collect();
    assert_eq!(hash, expected);

    // The plain name still answers, to be checked again each time; another hash is not found.
    let plain = app.get("/static/canvass.css").await;
    assert_eq!(plain.status(), 200);
    assert_eq!(plain.headers()["cache-control"], "public, no-cache");
    assert_eq!(
        app.get("/static/canvass.0000000000.css").await.status(),
        404
    );

    // Every page names the scripts it uses by their hashed names too.
    let designer_script = canvass::web::assets::url("designer.js");
    assert!(designer_script.starts_with("/static/designer.") && designer_script.len() > 25);
    assert_eq!(app.get(&designer_script).await.status(), 200);
}

#[tokio::test]
async fn with_an_asset_url_pages_fetch_static_files_from_the_cdn() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let server = crate::helpers::CanvassProcess::serve(
        dir.path(),
        &[
            ("CANVASS_ASSET_URL", "https://cdn.example.test/canvass/"),
            ("CANVASS_DEMO", "false"),
        ],
    );
    let response = reqwest::get(format!("{}/", server.address))
        .await
        .expect("an answer");
    let policy = response.headers()["content-security-policy"]
        .to_str()
        .expect("ascii")
        .to_owned();
    assert!(
        policy.starts_with("default-src 'self' https://cdn.example.test;"),
        "{policy}"
    );
    let html = response.text().await.expect("a body");
    let stylesheet = crate::owner::between(&html, r#"<link rel="stylesheet" href=""#, "\"");
    assert!(
        stylesheet.starts_with("https://cdn.example.test/canvass/static/canvass."),
        "{stylesheet}"
    );
    // What the CDN fetches from this server is there.
    let path = stylesheet.trim_start_matches("https://cdn.example.test/canvass");
    let fetched = reqwest::get(format!("{}{path}", server.address))
        .await
        .expect("an answer");
    assert_eq!(fetched.status(), 200);
}

#[tokio::test]
async fn an_unknown_address_gets_a_readable_404_page() {
    let app = spawn_app().await;

    for path in ["/no-such-page", "/static/missing.css"] {
        let response = app.get(path).await;

        assert_eq!(response.status(), 404, "case {path}");
        let html = response.text().await.expect("a body");
        assert!(html.contains("Page not found"), "case {path}: {html}");
    }
}

#[tokio::test]
async fn malformed_paths_and_queries_answer_the_sites_own_400_page_never_a_raw_text() {
    let app = crate::helpers::spawn_app().await;
    let owner =
        crate::owner::Owner::signed_up(&app, "Bistro", "bistro", "chef@bistro.example").await;
    let slug = owner.design("Dinner").await;
    for path in [
        format!("/tenant/surveys/{slug}/responses?page="),
        format!("/tenant/surveys/{slug}/responses?page=abc"),
        format!("/tenant/surveys/{slug}/responses/abc"),
        format!("/tenant/surveys/{slug}/responses/-1"),
        "/s/demo?page=x".to_owned(),
    ] {
        let response = owner.get(&path).await;
        assert_eq!(response.status(), 400, "{path}");
        assert_eq!(
            response.headers()["content-type"],
            "text/html; charset=utf-8",
            "{path}"
        );
        let html = response.text().await.expect("a body");
        assert!(
            html.contains("This request could not be accepted"),
            "{path}: {html}"
        );
    }
    // A malformed upload is refused the same way.
    let csrf = owner.csrf("/tenant/settings").await;
    let response = owner
        .client
        .post(format!("{}/tenant/settings/branding", owner.address()))
        .header("content-type", "multipart/form-data; boundary=x")
        .body(format!("--x\r\nnonsense{csrf}"))
        .send()
        .await
        .expect("answered");
    assert_eq!(response.status(), 400);
    assert!(
        response
            .text()
            .await
            .expect("a body")
            .contains("<!doctype html>")
    );
}
