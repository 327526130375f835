//! What a respondent's visit leaves outside their answer: the request log names no link,
//! token or reference of a route that carries one (so it holds no link that works and cannot
//! set an anonymous participant beside their answer), and no page made for one respondent
//! (a form with its one-time token, a saved or resumed form, a personal link, a thank-you
//! page) may be stored by a cache.

use reqwest::Method;
use serde_json::{Value, json};

use crate::helpers::{CanvassProcess, spawn_app, tenant_with_key, token_in};
use crate::owner::value_of;

/// A survey by invitation, anonymous, of two pages that may be saved to continue later.
fn pulse() -> Value {
    json!({"title": "Pulse", "access": "invitation", "anonymous": true, "save_and_resume": true,
           "pages": [
               {"questions": [{"id": "stars", "text": "How was it?", "type": "five_stars", "required": true}]},
               {"questions": [{"id": "why", "text": "Why?", "type": "short_text"}]}]})
}

#[tokio::test]
async fn the_request_log_holds_no_secret_of_any_route_that_carries_one() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let key = tenant_with_key(dir.path(), "acme", "Acme");
    let log = dir.path().join("serve.log");
    let file = std::fs::File::create(&log).expect("a log file");
    let serve = CanvassProcess::serve_logging(
        dir.path(),
        &[("CANVASS_DEMO", "false"), ("CANVASS_LOG", "info")],
        file,
    );
    let base = &serve.address;
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .expect("a client");
    let api = |method: Method, path: String, body: Option<Value>| {
        let mut request = client
            .request(method, format!("{base}/api/v1{path}"))
            .bearer_auth(&key);
        if let Some(body) = body {
            request = request.json(&body);
        }
        async move {
            let response = request.send().await.expect("answered");
            assert!(response.status().is_success(), "{}", response.status());
            response.json::<Value>().await.expect("JSON")
        }
    };
    api(Method::POST, "/surveys".into(), Some(pulse())).await;
    let added = api(
        Method::POST,
        "/surveys/pulse/participants".into(),
        Some(json!({"participants": [{"email": "ann@example.com"}]})),
    )
    .await;
    api(Method::POST, "/surveys/pulse/publish".into(), None).await;
    let link = added["participants"][0]["link"]
        .as_str()
        .expect("a link")
        .to_owned();
    let secret = link
        .rsplit('/')
        .next()
        .expect("the link's secret")
        .to_owned();

    // Opened, saved to continue later, resumed, sent, thanked: every route with a secret.
    let get = |path: String| client.get(format!("{base}{path}")).send();
    let form = client.get(&link).send().await.expect("answered");
    assert_eq!(form.status(), 200);
    let form = form.text().await.expect("a page");
    let fields = |nav: &'static str| {
        vec![
            ("token", token_in(&form)),
            ("participant", value_of(&form, "participant")),
            ("q-stars", "4".to_owned()),
            ("page", "1".to_owned()),
            ("nav", nav.to_owned()),
        ]
    };
    let saved = client
        .post(format!("{base}/s/acme/pulse"))
        .form(&fields("save"))
        .send()
        .await
        .expect("answered");
    assert_eq!(saved.status(), 303);
    let saved_at = saved.headers()["location"]
        .to_str()
        .expect("ascii")
        .to_owned();
    let resume_id = saved_at
        .split("/saved/")
        .nth(1)
        .and_then(|rest| rest.split(['?', '/']).next())
        .expect("a resume link")
        .to_owned();
    assert_eq!(get(saved_at.clone()).await.expect("answered").status(), 200);
    let resumed = get(format!("/s/acme/pulse/resume/{resume_id}")).await;
    assert_eq!(resumed.expect("answered").status(), 200);
    let sent = client
        .post(format!("{base}/s/acme/pulse"))
        .form(&fields("next"))
        .send()
        .await
        .expect("answered");
    assert_eq!(sent.status(), 303);
    let thanks = sent.headers()["location"]
        .to_str()
        .expect("ascii")
        .to_owned();
    let reference = crate::helpers::reference_in(&thanks);
    assert_eq!(get(thanks).await.expect("answered").status(), 200);
    let link_path = link.splitn(4, '/').nth(3).expect("a path");
    get(format!("/{link_path}/opt-out"))
        .await
        .expect("answered");
    // Tokens of the tenant site: joining, resetting a password, a file's signed link.
    for path in [
        "/tenant/join/JoinTokenNotForLogs1",
        "/tenant/reset-password/ResetTokenNotForLogs2",
        "/files/FileTokenNotForLogs3.signature",
    ] {
        get(path.into()).await.expect("answered");
    }
    // Stopped as an operator stops it, so its last log lines are written out.
    let stopped = serve.terminate();
    assert!(stopped.success(), "{stopped}");

    let logged = std::fs::read_to_string(&log).expect("the log");
    assert!(
        logged.contains("/s/acme/pulse/p/{link}") && logged.contains("/tenant/join/{token}"),
        "requests are logged, by route: {logged}"
    );
    // A log file is plain text: colours are for a person at a terminal.
    assert!(
        !logged.contains('\u{1b}'),
        "no terminal escape codes in a log file: {logged}"
    );
    for (what, secret) in [
        ("the personal link", secret.as_str()),
        ("the resume link", resume_id.as_str()),
        ("the reference", &format!("thanks/{reference}")),
        ("the join token", "JoinTokenNotForLogs1"),
        ("the reset token", "ResetTokenNotForLogs2"),
        ("the file's token", "FileTokenNotForLogs3"),
    ] {
        assert!(!logged.contains(secret), "{what} {secret} is in the log");
    }
}

#[tokio::test]
async fn no_page_made_for_one_respondent_may_be_stored_by_a_cache() {
    let app = spawn_app().await;
    let key = app.api_tenant("acme").await;
    let mut open = pulse();
    open["access"] = json!("open");
    open["title"] = json!("Open");
    app.published_survey(&key, open).await;
    app.create_survey(&key, pulse()).await;
    let (_, added) = app
        .api(
            Method::POST,
            "/api/v1/surveys/pulse/participants",
            &key,
            Some(json!({"participants": [{"email": "ann@example.com"}]})),
        )
        .await;
    let (status, _) = app
        .api(Method::POST, "/api/v1/surveys/pulse/publish", &key, None)
        .await;
    assert_eq!(status, 200);
    let link = added["participants"][0]["link"].as_str().expect("a link");
    let link = link.strip_prefix(&app.address).expect("a path").to_owned();

    let form = app.form("acme", "open").await;
    let token = token_in(&form);
    let post = |fields: Vec<(&'static str, String)>| {
        app.client
            .post(format!("{}/s/acme/open", app.address))
            .form(&fields)
            .send()
    };
    let refused = post(vec![
        ("token", token.clone()),
        ("page", "0".into()),
        ("nav", "next".into()),
    ])
    .await
    .expect("answered");
    assert_eq!(refused.status(), 422, "a form with what was typed, again");
    let saved = post(vec![
        ("token", token.clone()),
        ("q-stars", "3".into()),
        ("page", "1".into()),
        ("nav", "save".into()),
    ])
    .await
    .expect("answered");
    let saved_at = saved.headers()["location"]
        .to_str()
        .expect("ascii")
        .to_owned();
    let resume = saved_at.replace("/saved/", "/resume/");
    let resume = resume.split('?').next().expect("a path").to_owned();
    let cache_control = |response: &reqwest::Response| {
        response
            .headers()
            .get("cache-control")
            .and_then(|value| value.to_str().ok())
            .unwrap_or("")
            .to_owned()
    };
    // The saved page and the resumed form, while the answers are kept to continue.
    for path in [saved_at, resume] {
        let page = app.get(&path).await;
        assert_eq!(page.status(), 200, "{path}");
        assert_eq!(cache_control(&page), "no-store", "{path}");
    }
    let sent = post(vec![
        ("token", token),
        ("q-stars", "3".into()),
        ("page", "1".into()),
        ("nav", "next".into()),
    ])
    .await
    .expect("answered");
    let thanks = sent.headers()["location"]
        .to_str()
        .expect("ascii")
        .to_owned();
    assert_eq!(cache_control(&refused), "no-store", "the refused form");
    assert_eq!(cache_control(&saved), "no-store", "the save's redirect");
    for path in ["/s/acme/open".to_owned(), thanks, link] {
        let page = app.get(&path).await;
        assert_eq!(page.status(), 200, "{path}");
        assert_eq!(cache_control(&page), "no-store", "{path}");
    }
}
