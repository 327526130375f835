//! Owner accounts under attack: sign-in throttling that counts every attempt across processes
//! and cannot lock an owner out, client addresses taken only from trusted proxies, sign-ups that
//! are all or nothing, and passwords checked as NIST SP 800-63B asks.

use std::io::Read;

use canvass::config::TrustedProxies;
use canvass::storage;
use futures_util::future::join_all;

use crate::helpers::{CanvassProcess, TestApp, spawn_app, spawn_app_configured, test_settings};
use crate::owner::Owner;

const PASSWORD: &str = "a long enough password";

/// Two web processes over one storage, believing `X-Forwarded-For` from 127.0.0.1.
async fn two_processes_behind_a_proxy() -> (TestApp, TestApp) {
    let storage = storage::memory::storage();
    let mut settings = test_settings();
    settings.trusted_proxies =
        TrustedProxies(canvass::web::client::parse_trusted("127.0.0.1").expect("an address"));
    let first = spawn_app_configured(storage.clone(), settings.clone()).await;
    let second = spawn_app_configured(storage, settings).await;
    (first, second)
}

/// Signs in from a client at `forwarded_for` (through the trusted proxy); the status.
async fn sign_in_as(app: &TestApp, forwarded_for: &str, password: &str) -> u16 {
    let client = Owner::from_address(app, "127.0.0.1", Some(forwarded_for));
    client
        .sign_in("victim@acme.test", password)
        .await
        .status()
        .as_u16()
}

#[tokio::test]
async fn a_burst_of_wrong_passwords_over_two_processes_gets_five_checks_and_the_rest_429() {
    let (first, second) = two_processes_behind_a_proxy().await;
    let owner = Owner::new(&first);
    assert_eq!(
        owner
            .sign_up("Acme", "acme", "victim@acme.test")
            .await
            .status(),
        303
    );

    let burst = (0..30).map(|n| {
        let app = if n % 2 == 0 { &first } else { &second };
        sign_in_as(app, "203.0.113.66", "a wrong guess here")
    });
    let statuses = join_all(burst).await;

    let checked = statuses.iter().filter(|s| **s == 401).count();
    let refused = statuses.iter().filter(|s| **s == 429).count();
    assert_eq!((checked, refused), (5, 25), "{statuses:?}");
    assert_eq!(
        sign_in_as(&second, "203.0.113.66", PASSWORD).await,
        429,
        "the attacker's address is refused even with the right password"
    );
    assert_eq!(
        sign_in_as(&first, "198.51.100.7", PASSWORD).await,
        303,
        "the owner, elsewhere, signs in"
    );
}

#[tokio::test]
async fn an_attacker_cannot_lock_the_owner_out_or_escape_the_limit_with_a_forged_header() {
    let app = spawn_app().await;
    Owner::signed_up(&app, "Acme", "acme", "victim@acme.test").await;

    // Nobody is a trusted proxy: the header changes nothing, the connection's address counts.
    let mut statuses = Vec::new();
    for n in 0..8 {
        let forged = format!("10.0.0.{n}");
        let attacker = Owner::from_address(&app, "127.0.0.2", Some(&forged));
        let status = attacker
            .sign_in("victim@acme.test", "guess number one")
            .await
            .status();
        statuses.push(status.as_u16());
    }
    assert_eq!(statuses, [401, 401, 401, 401, 401, 429, 429, 429]);

    let elsewhere = Owner::from_address(&app, "127.0.0.1", None);
    let signed_in = elsewhere.sign_in("victim@acme.test", PASSWORD).await;
    assert_eq!(
        signed_in.status(),
        303,
        "the owner is never locked out by someone else"
    );
    // Many people succeeding from one address never add up to a refusal.
    for _ in 0..60 {
        let office = Owner::from_address(&app, "127.0.0.1", None);
        assert_eq!(
            office.sign_in("victim@acme.test", PASSWORD).await.status(),
            303
        );
    }
}

/// What `canvass serve` logs as the client address of a request with a forged header.
async fn logged_client(trusted: &str) -> String {
    let dir = tempfile::tempdir().expect("a temp dir");
    let log_path = dir.path().join("serve.log");
    let log = std::fs::File::create(&log_path).expect("a log file");
    let env = [
        ("CANVASS_LOG", "info"),
        ("CANVASS_LOG_FORMAT", "json"),
        ("CANVASS_DEMO", "false"),
        ("CANVASS_TRUSTED_PROXIES", trusted),
    ];
    let server = CanvassProcess::serve_logging(dir.path(), &env, log);
    let response = reqwest::Client::new()
        .get(format!("{}/healthz", server.address))
        .header("x-forwarded-for", "6.6.6.6")
        .send()
        .await
        .expect("answered");
    assert_eq!(response.status(), 200);
    // Stopped as an operator stops it, so its last log lines are written out.
    let stopped = server.terminate();
    assert!(stopped.success(), "{stopped}");
    let mut text = String::new();
    std::fs::File::open(&log_path)
        .expect("the log")
        .read_to_string(&mut text)
        .expect("readable");
    let line = text
        .lines()
        .find(|line| line.contains("request handled"))
        .unwrap_or_else(|| panic!("no request line in {text}"));
    let json: serde_json::Value = serde_json::from_str(line).expect("a JSON line");
    json["span"]["http.client_ip"]
        .as_str()
        .unwrap_or_else(|| panic!("no client address in {line}"))
        .to_owned()
}

#[tokio::test]
async fn the_logged_client_address_believes_x_forwarded_for_only_from_trusted_proxies() {
    assert_eq!(logged_client("").await, "127.0.0.1");
    assert_eq!(logged_client("127.0.0.1").await, "6.6.6.6");
}

/// A running server's request lines reach its log while it runs (they are written in
/// batches, every few tens of milliseconds), not only when it stops.
#[tokio::test]
async fn a_running_server_writes_its_request_lines_while_it_runs() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let log_path = dir.path().join("serve.log");
    let log = std::fs::File::create(&log_path).expect("a log file");
    let env = [("CANVASS_LOG", "info"), ("CANVASS_DEMO", "false")];
    let server = CanvassProcess::serve_logging(dir.path(), &env, log);
    let response = reqwest::get(format!("{}/healthz", server.address))
        .await
        .expect("answered");
    assert_eq!(response.status(), 200);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    loop {
        let text = std::fs::read_to_string(&log_path).unwrap_or_default();
        if text.lines().any(|line| line.contains("request handled")) {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "no request line in the running server's log after 5 s: {text}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
}

/// The statuses of requests sent at once.
async fn statuses_of(
    attempts: impl Iterator<Item = impl std::future::Future<Output = reqwest::Response>>,
) -> Vec<u16> {
    join_all(attempts)
        .await
        .iter()
        .map(|response| response.status().as_u16())
        .collect()
}

#[tokio::test]
async fn concurrent_sign_ups_with_one_address_make_one_tenant_and_leave_the_other_names_free() {
    let app = spawn_app().await;
    let slugs: Vec<String> = (0..8).map(|n| format!("race-{n}")).collect();
    let owners: Vec<Owner> = slugs.iter().map(|_| Owner::new(&app)).collect();

    let attempts = owners
        .iter()
        .zip(&slugs)
        .map(|(owner, slug)| owner.sign_up("Race", slug, "same@race.test"));
    let statuses = statuses_of(attempts).await;

    assert_eq!(
        statuses.iter().filter(|s| **s == 303).count(),
        1,
        "{statuses:?}"
    );
    assert_eq!(
        statuses.iter().filter(|s| **s == 422).count(),
        7,
        "{statuses:?}"
    );
    let winner = slugs[statuses.iter().position(|s| *s == 303).expect("a winner")].clone();
    for slug in slugs.iter().filter(|slug| **slug != winner) {
        assert_eq!(
            app.get(&format!("/s/{slug}")).await.status(),
            404,
            "{slug} holds no tenant"
        );
        let other = Owner::new(&app);
        let email = format!("owner@{slug}.test");
        assert_eq!(
            other.sign_up("Later", slug, &email).await.status(),
            303,
            "{slug} is free"
        );
    }
}

#[tokio::test]
async fn concurrent_sign_ups_for_one_name_give_it_to_one_and_the_others_addresses_back() {
    let app = spawn_app().await;
    let owners: Vec<Owner> = (0..6).map(|_| Owner::new(&app)).collect();
    let emails: Vec<String> = (0..6).map(|n| format!("owner{n}@same.test")).collect();

    let attempts = owners
        .iter()
        .zip(&emails)
        .map(|(owner, email)| owner.sign_up("Same", "same", email));
    let statuses = statuses_of(attempts).await;

    assert_eq!(
        statuses.iter().filter(|s| **s == 303).count(),
        1,
        "{statuses:?}"
    );
    for (email, status) in emails.iter().zip(&statuses) {
        if *status == 303 {
            continue;
        }
        let again = Owner::new(&app);
        let slug = email.split('@').next().expect("a local part");
        assert_eq!(
            again.sign_up("Again", slug, email).await.status(),
            303,
            "{email} is free"
        );
        let stranger = Owner::new(&app);
        assert_eq!(
            stranger.sign_in(email, PASSWORD).await.status(),
            303,
            "{email} signs in to its own tenant"
        );
    }
}

#[tokio::test]
async fn common_blank_and_short_passwords_are_refused_at_sign_up() {
    let app = spawn_app().await;
    for (password, message) in [
        ("          ", "Use something other than spaces."),
        ("password1", "one of the most common"),
        ("Qwertyuiop", "one of the most common"),
        ("seven77", "Use at least 8 characters."),
        ("owner@pw.test", "other than your email address"),
    ] {
        let owner = Owner::new(&app);
        let csrf = owner.csrf("/tenant/sign-up").await;
        let response = owner
            .post(
                "/tenant/sign-up",
                &[
                    ("csrf", &csrf),
                    ("name", "Pw"),
                    ("slug", "pw"),
                    ("plan", "standard"),
                    ("email", "owner@pw.test"),
                    ("password", password),
                ],
            )
            .await;
        assert_eq!(response.status(), 422, "{password:?}");
        let page = response.text().await.expect("a body");
        assert!(page.contains(message), "{password:?}: {page}");
    }
    let owner = Owner::new(&app);
    assert_eq!(
        owner.sign_up("Pw", "pw", "owner@pw.test").await.status(),
        303
    );
}

#[tokio::test]
async fn the_survey_address_is_shown_and_editable_before_the_account_is_made() {
    let app = spawn_app().await;
    let owner = Owner::new(&app);
    // As the name is typed, the page's script asks what address it makes.
    let made: serde_json::Value = owner
        .get("/tenant/sign-up/address?name=Caf%C3%A9%20Cr%C3%A8me")
        .await
        .json()
        .await
        .expect("JSON");
    assert_eq!(made["slug"], "cafe-creme");
    assert_eq!(made["taken"], false);
    assert!(
        made["url"]
            .as_str()
            .is_some_and(|u| u.ends_with("/s/cafe-creme")),
        "{made}"
    );

    // Without the script, "Make it from the name" fills the field and creates nothing.
    let csrf = owner.csrf("/tenant/sign-up").await;
    let response = owner
        .post(
            "/tenant/sign-up",
            &[
                ("csrf", &csrf),
                ("name", "Café Crème"),
                ("slug", "whatever"),
                ("action", "suggest"),
                ("email", ""),
                ("password", ""),
            ],
        )
        .await;
    assert_eq!(response.status(), 200);
    let page = response.text().await.expect("a page");
    assert_eq!(crate::owner::value_of(&page, "slug"), "cafe-creme");
    assert!(
        page.contains("/s/<span id=\"slug-shown\">cafe-creme</span>"),
        "{page}"
    );
    assert!(
        !page.contains("field-error"),
        "no complaints about fields not reached: {page}"
    );
    assert_eq!(
        app.get("/s/cafe-creme").await.status(),
        404,
        "no tenant yet"
    );

    // The owner edits it, and that is the address made.
    let response = owner
        .sign_up("Café Crème", "creme", "owner@creme.example")
        .await;
    assert_eq!(response.status(), 303);
    assert_eq!(app.get("/s/creme").await.status(), 200);
    let taken: serde_json::Value = owner
        .get("/tenant/sign-up/address?name=Creme")
        .await
        .json()
        .await
        .expect("JSON");
    assert_eq!(taken["taken"], true);
}
