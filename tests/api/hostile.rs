//! What the second hostile pass found, each case held by a test: scheme headers believed only
//! from trusted proxies, reset links voided once a password is set, data files the operator's
//! alone, a new survey never hidden by a cached miss, JSON bodies only as JSON, invisible
//! direction overrides refused, no mail to address literals, and no backup inside the data.

use std::process::Command;

use canvass::config::TrustedProxies;
use canvass::domain::account::Email;
use serde_json::json;

use crate::helpers::{spawn_app, spawn_app_configured, spawn_app_with, test_settings};
use crate::owner::Owner;

/// The `Set-Cookie` line of `name` in a response.
fn cookie(response: &reqwest::Response, name: &str) -> String {
    response
        .headers()
        .get_all("set-cookie")
        .iter()
        .filter_map(|value| value.to_str().ok())
        .find(|value| value.starts_with(&format!("{name}=")))
        .unwrap_or_else(|| panic!("no {name} cookie"))
        .to_owned()
}

const CLAIMS_HTTPS: [(&str, &str); 2] =
    [("x-forwarded-proto", "https"), ("forwarded", "proto=https")];

#[tokio::test]
async fn a_clients_own_scheme_headers_never_make_a_cookie_secure() {
    let app = spawn_app().await;
    let liar = Owner::sending(&app.address, &CLAIMS_HTTPS);
    let form = liar.get("/tenant/sign-up").await;
    assert!(
        !cookie(&form, "canvass_csrf").contains("Secure"),
        "believed a client"
    );

    // The same headers from a proxy the operator trusts are believed.
    let mut settings = test_settings();
    settings.trusted_proxies = TrustedProxies(vec!["127.0.0.1/32".parse().expect("a range")]);
    let behind = spawn_app_configured(canvass::storage::memory::storage(), settings).await;
    let proxied = Owner::sending(&behind.address, &CLAIMS_HTTPS[..1]);
    let form = proxied.get("/tenant/sign-up").await;
    assert!(
        cookie(&form, "canvass_csrf").contains("Secure"),
        "a trusted proxy's word"
    );
}

#[tokio::test]
async fn setting_a_password_voids_every_other_reset_link_of_the_account() {
    let app = spawn_app().await;
    Owner::signed_up(&app, "Acme", "acme", "owner@acme.test").await;
    let stores = app.stores().await;
    let email = Email::parse("owner@acme.test").expect("an address");
    let first = stores
        .membership
        .accounts
        .reset_link(&email)
        .await
        .expect("a link");
    let second = stores
        .membership
        .accounts
        .reset_link(&email)
        .await
        .expect("a link");
    let first_path = format!("/tenant/reset-password/{first}");
    let second_path = format!("/tenant/reset-password/{second}");
    assert_eq!(
        Owner::new(&app).get(&second_path).await.status(),
        200,
        "both work at first"
    );
    let resetting = Owner::new(&app);
    let csrf = resetting.csrf(&first_path).await;
    let done = resetting
        .post(
            &first_path,
            &[("csrf", &csrf), ("password", "a brand new password")],
        )
        .await;
    assert_eq!(done.status(), 303);
    assert_eq!(
        Owner::new(&app).get(&second_path).await.status(),
        410,
        "the other link is void"
    );
    // A link asked for afterwards works.
    let third = stores
        .membership
        .accounts
        .reset_link(&email)
        .await
        .expect("a link");
    let third_path = format!("/tenant/reset-password/{third}");
    assert_eq!(Owner::new(&app).get(&third_path).await.status(), 200);
}

#[cfg(unix)]
#[tokio::test]
async fn the_data_directory_and_its_backups_are_the_operators_alone_whatever_the_umask() {
    use std::os::unix::fs::PermissionsExt;
    let mode = |path: &std::path::Path| {
        std::fs::metadata(path)
            .expect("metadata")
            .permissions()
            .mode()
            & 0o777
    };
    let root = tempfile::tempdir().expect("a temp dir");
    let data = root.path().join("data");
    let storage = canvass::storage::local::storage(&data)
        .await
        .expect("local storage");
    let app = spawn_app_with(storage).await;
    Owner::signed_up(&app, "Acme", "acme", "owner@acme.test").await;
    app.stop().await;
    assert_eq!(mode(&data), 0o700);
    let mut files = 0;
    for entry in std::fs::read_dir(&data).expect("the directory") {
        let path = entry.expect("an entry").path();
        // A write-ahead log may be removed between the listing and this look, as the last
        // connection of a task still ending after the stop closes: what is there is checked.
        let Ok(found) = std::fs::metadata(&path) else {
            continue;
        };
        assert_eq!(
            found.permissions().mode() & 0o777,
            0o600,
            "{}",
            path.display()
        );
        files += 1;
    }
    assert!(files >= 2, "the queue and blob files were made");

    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_canvass"))
            .args(args)
            .env("CANVASS_DATA_DIR", &data)
            .env("CANVASS_LOG", "warn")
            .output()
            .expect("canvass runs")
    };
    let dest = root.path().join("backup");
    let made = run(&["backup", dest.to_str().expect("utf-8")]);
    assert!(
        made.status.success(),
        "{}",
        String::from_utf8_lossy(&made.stderr)
    );
    assert_eq!(mode(&dest), 0o700);
    for entry in std::fs::read_dir(&dest).expect("the backup") {
        let path = entry.expect("an entry").path();
        assert_eq!(mode(&path), 0o600, "{}", path.display());
    }

    // A backup inside the data directory is refused, named or reached through "..".
    for inside in [data.join("backup"), data.join("x/../y")] {
        let refused = run(&["backup", inside.to_str().expect("utf-8")]);
        assert!(!refused.status.success());
        let said = String::from_utf8_lossy(&refused.stderr);
        assert!(said.contains("inside the data directory"), "{said}");
        assert!(!inside.exists(), "nothing made at {}", inside.display());
    }
}

#[tokio::test]
async fn a_survey_made_after_a_visit_to_its_address_is_found_at_once() {
    let app = spawn_app().await;
    let key = app.api_tenant("acme").await;
    let path = "/api/v1/surveys/fresh";
    let (status, _) = app.api(reqwest::Method::GET, path, &key, None).await;
    assert_eq!(status, 404);
    let (status, made) = app
        .api(
            reqwest::Method::POST,
            "/api/v1/surveys",
            &key,
            Some(json!({"title": "Fresh", "questions": [{"text": "Hi?", "type": "short_text"}]})),
        )
        .await;
    assert_eq!(status, 201, "{made}");
    let (status, _) = app.api(reqwest::Method::GET, path, &key, None).await;
    assert_eq!(
        status, 200,
        "the miss cached by the first visit is forgotten"
    );
}

#[tokio::test]
async fn the_api_takes_bodies_only_as_json_and_refuses_direction_overrides() {
    let app = spawn_app().await;
    let key = app.api_tenant("acme").await;
    let body = json!({"title": "Plain", "questions": [{"text": "Hi?", "type": "short_text"}]});
    let sent = app
        .client
        .post(format!("{}/api/v1/surveys", app.address))
        .bearer_auth(&key)
        .header("content-type", "text/plain")
        .body(body.to_string())
        .send()
        .await
        .expect("answered");
    assert_eq!(sent.status(), 415);

    let (status, refused) = app
        .api(
            reqwest::Method::POST,
            "/api/v1/surveys",
            &key,
            Some(json!({"title": "Pay \u{202E}gpj.exe", "questions": [{"text": "Hi?", "type": "short_text"}]})),
        )
        .await;
    assert_eq!(status, 422, "{refused}");
    assert!(refused["fields"]["title"].as_str().is_some(), "{refused}");
}

#[tokio::test]
async fn an_invitation_to_an_address_literal_is_refused() {
    let app = spawn_app().await;
    let owner = Owner::signed_up(&app, "Acme", "acme", "owner@acme.test").await;
    let csrf = owner.csrf("/tenant/members").await;
    let refused = owner
        .post(
            "/tenant/members/invite",
            &[
                ("csrf", &csrf),
                ("email", "x@[127.0.0.1]"),
                ("role", "editor"),
            ],
        )
        .await;
    assert_eq!(refused.status(), 422);
    let stores = app.stores().await;
    assert_eq!(
        stores.panel.mail.queue().waiting().await.expect("a count"),
        0
    );
}
