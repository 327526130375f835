//! Single sign-on against a real OpenID Connect provider (oidc-provider, started by
//! `scripts/test`): an owner connects the tenant, an invited editor joins through it, members
//! sign in through it, the owner may require it, and answers that are not for the sign-in in
//! progress, or addresses that are not members', are refused.

use serde_json::{Value, json};

use crate::helpers::{TestApp, spawn_app_configured, test_settings};
use crate::owner::{MEMBER_PASSWORD, Owner, between};

const OWNER: &str = "owner@sso.test";
const EDITOR: &str = "editor@sso.test";
const VIEWER: &str = "viewer@sso.test";

/// The provider `scripts/test` started.
fn issuer() -> String {
    std::env::var("CANVASS_TEST_OIDC_ISSUER").expect(
        "CANVASS_TEST_OIDC_ISSUER names the test OpenID Connect provider: run the tests with scripts/test",
    )
}

/// An app that may reach the provider on 127.0.0.1 over http.
async fn app() -> TestApp {
    let mut settings = test_settings();
    settings.sso_allowed_hosts = "127.0.0.1".into();
    spawn_app_configured(canvass::storage::memory::storage(), settings).await
}

/// Registers a client with the provider (dynamic registration) for the app's callback; its id
/// and secret.
async fn register(app: &TestApp) -> (String, String) {
    let registered: Value = reqwest::Client::new()
        .post(format!("{}/reg", issuer()))
        .json(&json!({
            "redirect_uris": [format!("{}/tenant/sso/callback", app.address)],
            "response_types": ["code"],
            "grant_types": ["authorization_code"],
            "token_endpoint_auth_method": "client_secret_basic",
        }))
        .send()
        .await
        .expect("the provider answers")
        .json()
        .await
        .expect("JSON");
    (
        registered["client_id"].as_str().expect("an id").to_owned(),
        registered["client_secret"]
            .as_str()
            .expect("a secret")
            .to_owned(),
    )
}

/// Saves the tenant's provider on the settings page.
async fn connect(
    owner: &Owner<'_>,
    issuer: &str,
    id: &str,
    secret: &str,
    required: bool,
) -> reqwest::Response {
    let csrf = owner.csrf("/tenant/settings").await;
    let mut form = vec![
        ("csrf", csrf.as_str()),
        ("issuer", issuer),
        ("client_id", id),
        ("client_secret", secret),
        ("action", "save"),
    ];
    if required {
        form.push(("required", "on"));
    }
    owner.post("/tenant/settings/sso", &form).await
}

/// Follows redirects from `response` with the member's client, across the app and the
/// provider, signing in at the provider's form as `email` when it asks; the app's last answer.
async fn through_provider(
    member: &Owner<'_>,
    mut response: reqwest::Response,
    email: &str,
) -> reqwest::Response {
    for _ in 0..20 {
        let status = response.status().as_u16();
        if status == 200 {
            let url = response.url().clone();
            let page = response.text().await.expect("a page");
            assert!(
                url.as_str().starts_with(&issuer()),
                "a page outside the provider: {page}"
            );
            let action = between(&page, r#"action=""#, "\"");
            let action = match action.starts_with("http") {
                true => action,
                false => format!("{}{action}", issuer()),
            };
            response = member
                .client
                .post(action)
                .form(&[
                    ("prompt", "login"),
                    ("login", email),
                    ("password", "anything"),
                ])
                .send()
                .await
                .expect("the provider answers");
            continue;
        }
        if status != 303 && status != 302 {
            return response;
        }
        let location = response.headers()["location"]
            .to_str()
            .expect("ascii")
            .to_owned();
        let next = if location.starts_with("http") {
            location
        } else if response.url().as_str().starts_with(&issuer()) {
            format!("{}{location}", issuer())
        } else {
            format!("{}{location}", member.address())
        };
        if !next.starts_with(&issuer()) && !next.contains("/tenant/sso/callback") {
            // Back on the app, past the callback.
            return response;
        }
        response = member.client.get(&next).send().await.expect("answered");
    }
    panic!("too many redirects");
}

/// Signs in through the provider from the sign-in page; the app's last answer.
async fn sso_sign_in(member: &Owner<'_>, organisation: &str, email: &str) -> reqwest::Response {
    let started = member
        .get(&format!("/tenant/sso?organisation={organisation}"))
        .await;
    assert_eq!(started.status(), 303, "off to the provider");
    through_provider(member, started, email).await
}

#[tokio::test]
async fn a_tenant_signs_in_through_its_own_openid_connect_provider() {
    let app = app().await;
    let owner = Owner::signed_up(&app, "Single", "single", OWNER).await;
    let (id, secret) = register(&app).await;
    let viewer_link = owner.invite(VIEWER, "viewer").await;
    let viewer = Owner::joined(&app.address, &viewer_link).await;

    // A provider that cannot be discovered is refused, with the reason.
    let wrong = connect(
        &owner,
        &format!("{}/nothing-here", issuer()),
        &id,
        &secret,
        false,
    )
    .await;
    assert_eq!(wrong.status(), 422);
    assert!(
        wrong
            .text()
            .await
            .unwrap()
            .contains("identity provider could not be used")
    );
    let not_allowed = connect(&owner, "http://10.1.2.3/", &id, &secret, false).await;
    assert_eq!(not_allowed.status(), 422);
    assert_eq!(
        connect(&owner, &issuer(), &id, &secret, false)
            .await
            .status(),
        303
    );
    let settings = owner.page("/tenant/settings").await;
    assert!(settings.contains(&format!("{}/tenant/sso/callback", app.address)));
    assert!(
        !settings.contains(&secret),
        "the secret is never shown back"
    );

    // An invited editor joins through the provider.
    let link = owner.invite(EDITOR, "editor").await;
    let joining = Owner::at(&app.address);
    let page = joining.page(&link).await;
    assert!(page.contains("single sign-on"), "{page}");
    let csrf = crate::owner::value_of(&page, "csrf");
    let started = joining
        .post(&format!("{link}/sso"), &[("csrf", &csrf)])
        .await;
    assert_eq!(started.status(), 303);
    let joined = through_provider(&joining, started, EDITOR).await;
    let status = joined.status();
    if status != 303 {
        panic!("{status} {}", joined.text().await.unwrap());
    }
    assert_eq!(joined.headers()["location"], "/tenant", "signed in");
    assert_eq!(
        joining.get("/tenant/webhooks").await.status(),
        200,
        "as an editor"
    );
    assert_eq!(joining.get("/tenant/members").await.status(), 403);
    assert_eq!(
        Owner::at(&app.address).get(&link).await.status(),
        410,
        "used once"
    );

    // Members sign in through it; anyone else is refused.
    let editor = Owner::at(&app.address);
    let signed_in = sso_sign_in(&editor, "single", EDITOR).await;
    assert_eq!(signed_in.headers()["location"], "/tenant");
    assert_eq!(editor.get("/tenant/surveys/new").await.status(), 200);
    let stranger = Owner::at(&app.address);
    let refused = sso_sign_in(&stranger, "single", "stranger@sso.test").await;
    assert_eq!(refused.status(), 403);
    assert!(refused.text().await.unwrap().contains("is not a member"));
    assert_eq!(
        stranger.get("/tenant").await.headers()["location"],
        "/tenant/sign-in"
    );

    // An invitation accepted as someone else is refused.
    let link = owner.invite("invited@sso.test", "viewer").await;
    let impostor = Owner::at(&app.address);
    let csrf = impostor.csrf(&link).await;
    let started = impostor
        .post(&format!("{link}/sso"), &[("csrf", &csrf)])
        .await;
    let refused = through_provider(&impostor, started, "impostor@sso.test").await;
    assert_eq!(refused.status(), 403);
    assert!(
        refused
            .text()
            .await
            .unwrap()
            .contains("The invitation is for invited@sso.test")
    );

    // Required: the viewer's password no longer signs in; the provider does; owners keep theirs.
    assert_eq!(
        connect(&owner, &issuer(), &id, "", true).await.status(),
        303,
        "the secret kept"
    );
    let with_password = Owner::at(&app.address);
    let refused = with_password.sign_in(VIEWER, MEMBER_PASSWORD).await;
    assert_eq!(refused.status(), 403);
    assert!(refused.text().await.unwrap().contains("single sign-on"));
    assert_eq!(
        sso_sign_in(&with_password, "single", VIEWER).await.status(),
        303
    );
    assert_eq!(with_password.get("/tenant").await.status(), 200);
    assert_eq!(
        Owner::at(&app.address)
            .sign_in(OWNER, "a long enough password")
            .await
            .status(),
        303
    );
    drop(viewer);

    // The audit log names how each signed in.
    let log = owner.page("/tenant/audit").await;
    assert!(log.contains("through single sign-on"), "{log}");
}

#[tokio::test]
async fn an_answer_that_is_not_for_the_sign_in_in_progress_is_refused() {
    let app = app().await;
    let owner = Owner::signed_up(&app, "Guarded", "guarded", "owner@guarded.test").await;
    let (id, secret) = register(&app).await;
    assert_eq!(
        connect(&owner, &issuer(), &id, &secret, false)
            .await
            .status(),
        303
    );

    // No sign-in started here: no cookie, no trust.
    let cold = Owner::at(&app.address);
    let answer = cold.get("/tenant/sso/callback?code=abc&state=xyz").await;
    assert_eq!(answer.status(), 400);

    // A sign-in started, then an answer with another state (as a forged link would carry).
    let member = Owner::at(&app.address);
    let started = member.get("/tenant/sso?organisation=guarded").await;
    let location = started.headers()["location"].to_str().unwrap().to_owned();
    assert!(location.starts_with(&issuer()), "{location}");
    for wanted in [
        "code_challenge=",
        "code_challenge_method=S256",
        "nonce=",
        "state=",
        "scope=openid+email",
    ] {
        assert!(location.contains(wanted), "{wanted} in {location}");
    }
    let forged = member
        .get("/tenant/sso/callback?code=abc&state=forged")
        .await;
    assert_eq!(forged.status(), 403);
    assert!(
        forged
            .text()
            .await
            .unwrap()
            .contains("not for this sign-in")
    );
    // An organisation without a provider, or none at all.
    let none = member.get("/tenant/sso?organisation=nobody-here").await;
    assert_eq!(none.status(), 422);
}

#[tokio::test]
async fn an_address_the_provider_does_not_say_is_verified_is_refused() {
    let app = app().await;
    let owner = Owner::signed_up(&app, "Single", "single", OWNER).await;
    let (id, secret) = register(&app).await;
    assert_eq!(
        connect(&owner, &issuer(), &id, &secret, false)
            .await
            .status(),
        303
    );
    for email in ["unverified-kim@single.test", "unsaid-lee@single.test"] {
        let link = owner.invite(email, "viewer").await;
        let member = Owner::joined(&app.address, &link).await;
        let out = member.csrf("/tenant/account").await;
        member.post("/tenant/sign-out", &[("csrf", &out)]).await;
        let answer = sso_sign_in(&member, "single", email).await;
        let status = answer.status();
        let page = answer.text().await.expect("a page");
        assert_ne!(status, 303, "{email} signed in: {page}");
        assert!(page.contains("verified"), "{email}: {page}");
        assert_eq!(
            member.get("/tenant").await.headers()["location"],
            "/tenant/sign-in",
            "{email} is not signed in"
        );
    }
}

#[tokio::test]
async fn an_id_token_tampered_with_for_another_client_or_issuer_expired_or_replayed_is_refused() {
    let app = app().await;
    let owner = Owner::signed_up(&app, "Shield", "shield", "owner@shield.test").await;
    let (id, secret) = register(&app).await;
    assert_eq!(
        connect(&owner, &issuer(), &id, &secret, false)
            .await
            .status(),
        303
    );
    // A member who signs in through the provider, and then signs out again.
    let member_of = |email: &'static str| {
        let owner = &owner;
        let app = &app;
        async move {
            let link = owner.invite(email, "viewer").await;
            let member = Owner::joined(&app.address, &link).await;
            let csrf = member.csrf("/tenant/account").await;
            member.post("/tenant/sign-out", &[("csrf", &csrf)]).await;
            member
        }
    };
    // The first sign-in of the replayed login is a sound one (the provider spoils nothing
    // yet): the provider and the app agree, so each refusal below is its one spoiled claim.
    let replayed = member_of("replayed-rae@shield.test").await;
    let first = sso_sign_in(&replayed, "shield", "replayed-rae@shield.test").await;
    assert_eq!(
        first.status(),
        303,
        "{}",
        first.text().await.expect("a page")
    );
    assert_eq!(replayed.get("/tenant").await.status(), 200, "signed in");
    let csrf = replayed.csrf("/tenant/account").await;
    replayed.post("/tenant/sign-out", &[("csrf", &csrf)]).await;

    // The provider's prefix for each spoiled token, and what the refusal says.
    for (email, says) in [
        ("tampered-tom@shield.test", "Signature verification failed"),
        ("audience-ann@shield.test", "Invalid audiences"),
        ("issuer-ida@shield.test", "Invalid issuer"),
        ("expired-eve@shield.test", "Expired"),
        ("replayed-rae@shield.test", "Invalid nonce"),
    ] {
        let member = if email.starts_with("replayed-") {
            Owner::at(&app.address)
        } else {
            member_of(email).await
        };
        let answer = sso_sign_in(&member, "shield", email).await;
        let status = answer.status().as_u16();
        let page = answer.text().await.expect("a page");
        assert_eq!(status, 403, "{email}: {page}");
        assert!(page.contains(says), "{email}: {says} in {page}");
        assert_eq!(
            member.get("/tenant").await.headers()["location"],
            "/tenant/sign-in",
            "{email} is not signed in"
        );
    }
}
