//! Tenants with surveys of the same slug: each one's summary, responses, CSV and pages show
//! its own answers only; a revoked API key stops working at once; an export is invisible to
//! another tenant's key.

use serde_json::{Value, json};

use crate::helpers::{TestApp, spawn_app, token_in, worker};
use crate::owner::Owner;

/// Signs up a tenant, makes its survey "team" (one rating question) over the API, publishes
/// it and has it answered with `ratings`; returns its owner and API key.
async fn tenant_with_team<'a>(
    app: &'a TestApp,
    slug: &str,
    ratings: &[&str],
) -> (Owner<'a>, String) {
    let email = format!("owner@{slug}.test");
    let owner = Owner::signed_up(app, slug, slug, &email).await;
    let key = app.api_key(slug).await;
    let survey = app
        .published_survey(
            &key,
            json!({"title": "Team", "questions": [
                {"text": "How was it?", "type": "five_stars", "required": true},
                {"text": "Who are you?", "type": "short_text", "required": true}]}),
        )
        .await;
    assert_eq!(survey["slug"], "team");
    let ids: Vec<String> = (0..2)
        .map(|n| {
            survey["questions"][n]["id"]
                .as_str()
                .expect("an id")
                .to_owned()
        })
        .collect();
    for rating in ratings {
        let form = app.form(slug, "team").await;
        let name = format!("{slug} respondent");
        let answers = [(ids[0].as_str(), *rating), (ids[1].as_str(), name.as_str())];
        let response = app.submit(slug, "team", &token_in(&form), &answers).await;
        assert_eq!(response.status(), 303);
    }
    (owner, key)
}

async fn get(app: &TestApp, key: &str, path: &str) -> (u16, Value) {
    app.api(reqwest::Method::GET, path, key, None).await
}

#[tokio::test]
async fn two_tenants_surveys_of_one_slug_each_show_only_their_own_answers() {
    let app = spawn_app().await;
    let (acme, acme_key) = tenant_with_team(&app, "acme", &["5", "5", "4"]).await;
    let (bolt, bolt_key) = tenant_with_team(&app, "bolt", &["1", "2"]).await;
    let stores = app.stores().await;
    let mut worker = worker(&stores, std::time::Duration::from_secs(60));
    while let canvass::worker::StepOutcome::BatchDone { .. } = worker.step().await.expect("a step")
    {
    }

    for (key, tenant, total, mean, other) in [
        (&acme_key, "acme", 3, 14.0 / 3.0, "bolt"),
        (&bolt_key, "bolt", 2, 1.5, "acme"),
    ] {
        let (_, summary) = get(&app, key, "/api/v1/surveys/team/summary").await;
        assert_eq!(summary["tenant"], tenant);
        assert_eq!(summary["total"], total, "{tenant}: {summary}");
        let stats = &summary["questions"][0];
        assert!(
            (stats["mean"].as_f64().expect("a mean") - mean).abs() < 1e-9,
            "{tenant}"
        );
        let (_, responses) = get(&app, key, "/api/v1/surveys/team/responses?page=1").await;
        let listed = responses["responses"].as_array().expect("responses");
        assert_eq!(listed.len(), total, "{tenant}");
        assert!(
            listed.iter().all(|r| r["tenant"] == tenant),
            "{tenant}: {responses}"
        );
        assert!(
            !responses
                .to_string()
                .contains(&format!("{other} respondent"))
        );
    }
    for (owner, tenant, rows, other) in [(&acme, "acme", 3, "bolt"), (&bolt, "bolt", 2, "acme")] {
        let csv = owner.page("/tenant/surveys/team/responses.csv").await;
        assert_eq!(csv.lines().count(), rows + 1, "{tenant}: {csv}");
        assert_eq!(csv.matches(&format!("{tenant} respondent")).count(), rows);
        assert!(
            !csv.contains(&format!("{other} respondent")),
            "{tenant}: {csv}"
        );
        for page in [
            "/tenant/surveys/team/summary",
            "/tenant/surveys/team/responses",
            "/tenant/surveys/team/responses/1",
        ] {
            let html = owner.page(page).await;
            assert!(
                !html.contains(&format!("{other} respondent")),
                "{tenant} {page}"
            );
        }
        let summary = owner.page("/tenant/surveys/team/summary").await;
        assert!(
            summary.contains(&format!(r#"<span class="big">{rows}</span>"#)),
            "{tenant}"
        );
    }
}

#[tokio::test]
async fn a_revoked_key_fails_on_its_next_call_and_exports_are_invisible_to_other_keys() {
    let app = spawn_app().await;
    let (acme, acme_key) = tenant_with_team(&app, "acme", &["5"]).await;
    let (_, bolt_key) = tenant_with_team(&app, "bolt", &["1"]).await;
    let (status, job) = app
        .api(
            reqwest::Method::POST,
            "/api/v1/surveys/team/exports",
            &acme_key,
            None,
        )
        .await;
    assert_eq!(status, 202);
    let export = format!("/api/v1/exports/{}", job["id"].as_str().expect("an id"));
    assert_eq!(get(&app, &acme_key, &export).await.0, 200);
    assert_eq!(
        get(&app, &bolt_key, &export).await.0,
        404,
        "another tenant's export"
    );

    let page = acme.page("/tenant/api-keys").await;
    let csrf = crate::owner::value_of(&page, "csrf");
    let ids: Vec<&str> = page
        .split("/tenant/api-keys/")
        .skip(1)
        .filter_map(|rest| rest.split("/revoke").next())
        .collect();
    assert_eq!(ids.len(), 1, "the one key made for the test: {page}");
    assert_eq!(get(&app, &acme_key, "/api/v1/surveys").await.0, 200);
    let revoked = acme
        .post(
            &format!("/tenant/api-keys/{}/revoke", ids[0]),
            &[("csrf", &csrf)],
        )
        .await;
    assert_eq!(revoked.status(), 303);

    let (status, error) = get(&app, &acme_key, "/api/v1/surveys").await;
    assert_eq!(status, 401, "{error}");
    assert_eq!(
        get(&app, &bolt_key, "/api/v1/surveys").await.0,
        200,
        "other keys work"
    );
}

/// What a tenant holds behind every kind of id, with words that must never reach another
/// tenant: a survey with answers, a webhook, an invitation, an API key and a member.
struct Held {
    key_id: String,
    webhook_id: String,
    invitation_id: String,
    reference: u64,
    participant_id: String,
    mailing_id: String,
}

/// Words of the first tenant that no page or answer of the second may hold: its answers,
/// survey, webhook and members, and its participants (an address, a name, an attribute), a
/// quota, a translation, a mailing template and the bytes of an uploaded file.
const SECRETS: [&str; 12] = [
    "acme-secret-answer",
    "Acme Secret Survey",
    "hooks.acme-secret.example",
    "invitee@acme.test",
    "editor@acme.test",
    "participant@acme-secret.test",
    "Secretia",
    "team-acme-secret",
    "acme-secret-quota",
    "Geheime Umfrage",
    "acme-secret-subject",
    "acme-secret-file-bytes",
];

/// A PNG as far as its content goes, carrying `marker` after its header.
fn png_with(marker: &str) -> Vec<u8> {
    let mut bytes = vec![
        0x89, b'P', b'N', b'G', 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13, b'I', b'H', b'D', b'R',
    ];
    bytes.extend_from_slice(marker.as_bytes());
    bytes
}

#[tokio::test]
async fn another_tenant_reaches_nothing_of_a_tenant_on_any_route_of_the_site_or_the_api() {
    let mut settings = crate::helpers::test_settings();
    settings.worker.webhook_allowed_hosts = "hooks.acme-secret.example".into();
    // Mail set up (no worker sends it here), so the first tenant can start a mailing.
    settings.worker.smtp_url = Some("smtp://127.0.0.1:9".into());
    settings.public_url = Some("https://surveys.acme-secret.example".into());
    let app =
        crate::helpers::spawn_app_configured(canvass::storage::memory::storage(), settings).await;
    // The first tenant, with something behind each route's id.
    let acme = Owner::signed_up(&app, "Acme", "acme", "owner@acme.test").await;
    let editor_link = acme.invite("editor@acme.test", "editor").await;
    Owner::joined(&app.address, &editor_link).await;
    acme.invite("invitee@acme.test", "viewer").await;
    let acme_key = acme.api_key("acme key").await;
    let survey = app
        .published_survey(
            &acme_key,
            json!({"title": {"en": "Acme Secret Survey", "de": "Geheime Umfrage"},
                   "languages": ["en", "de"], "questions": [
                {"id": "say", "text": "Say", "type": "short_text", "required": true},
                {"id": "drink", "text": "Drink", "type": "single_choice", "options": ["Tea", "Coffee"],
                 "segment": true},
                {"id": "photo", "text": "A photo", "type": "file", "accept": ["image"]}],
                   "quotas": [{"id": "tea", "name": "acme-secret-quota", "limit": 100,
                               "when": {"question": "drink", "equals": "Tea"}}]}),
        )
        .await;
    let slug = "acme-secret-survey";
    assert_eq!(survey["slug"], slug);
    let (status, added) = app
        .api(
            reqwest::Method::POST,
            &format!("/api/v1/surveys/{slug}/participants"),
            &acme_key,
            Some(
                json!({"participants": [{"email": "participant@acme-secret.test",
                "first_name": "Secretia", "attributes": {"team": "team-acme-secret"}}]}),
            ),
        )
        .await;
    assert_eq!(status, 201, "{added}");
    let participant_id = added["participants"][0]["id"]
        .as_str()
        .expect("an id")
        .to_owned();
    let mailings = format!("/tenant/surveys/{slug}/mailings");
    let csrf = acme.csrf(&mailings).await;
    let template = acme
        .post(
            &format!("{mailings}/template"),
            &[
                ("csrf", csrf.as_str()),
                ("kind", "invitation"),
                ("language", "en"),
                ("subject", "acme-secret-subject"),
                ("body", "Please answer: {{link}}"),
            ],
        )
        .await;
    assert_eq!(template.status(), 303);
    let (status, mailing) = app
        .api(
            reqwest::Method::POST,
            &format!("/api/v1/surveys/{slug}/mailings"),
            &acme_key,
            Some(json!({"kind": "invitation"})),
        )
        .await;
    assert_eq!(status, 202, "{mailing}");
    let mailing_id = mailing["id"].as_str().expect("an id").to_owned();
    let form = app.form("acme", slug).await;
    let answer = reqwest::multipart::Form::new()
        .text("token", token_in(&form))
        .text("q-say", "acme-secret-answer")
        .text("q-drink", "Tea")
        .part(
            "q-photo",
            reqwest::multipart::Part::bytes(png_with("acme-secret-file-bytes"))
                .file_name("secret.png"),
        );
    let sent = app
        .client
        .post(format!("{}/s/acme/{slug}", app.address))
        .multipart(answer)
        .send()
        .await
        .expect("answered");
    assert_eq!(sent.status(), 303);
    let reference =
        crate::helpers::reference_in(sent.headers()["location"].to_str().expect("ascii"));
    let stores = app.stores().await;
    crate::helpers::settle(&stores).await;
    let (status, hook) = app
        .api(
            reqwest::Method::POST,
            "/api/v1/webhooks",
            &acme_key,
            Some(json!({"url": "http://hooks.acme-secret.example/in"})),
        )
        .await;
    assert_eq!(status, 201, "{hook}");
    let members = acme.page("/tenant/members").await;
    let invitation_id =
        crate::owner::between(&members, "/tenant/members/invitations/", "/withdraw");
    let keys = acme.page("/tenant/api-keys").await;
    let key_id = crate::owner::between(&keys, "/tenant/api-keys/", "/revoke");
    let held = Held {
        key_id,
        webhook_id: hook["id"].as_str().expect("an id").to_owned(),
        invitation_id,
        reference,
        participant_id,
        mailing_id,
    };
    // Each parameter names what the first tenant holds of its kind.
    let place = |path: &str| {
        let mut kind = String::new();
        let mut placed = String::new();
        for part in path.split_inclusive('/') {
            let name = part.trim_end_matches('/');
            placed.push_str(&crate::members::filled(part, |parameter| {
                match (parameter, kind.as_str()) {
                    ("slug", _) => slug.to_owned(),
                    ("n" | "reference", _) => held.reference.to_string(),
                    ("format", _) => "csv".to_owned(),
                    ("id", "api-keys") => held.key_id.clone(),
                    ("id", "webhooks") => held.webhook_id.clone(),
                    ("id", "invitations") => held.invitation_id.clone(),
                    ("id", "participants") => held.participant_id.clone(),
                    ("id", "mailings") => held.mailing_id.clone(),
                    ("question", _) => "photo".to_owned(),
                    ("language", _) => "de".to_owned(),
                    _ => "nosuch".to_owned(),
                }
            }));
            kind = name.to_owned();
        }
        placed
    };

    // The second tenant's owner walks every route of the site with the first one's ids.
    let bolt = Owner::signed_up(&app, "Bolt", "bolt", "owner@bolt.test").await;
    let bolt_key = bolt.api_key("bolt key").await;
    let csrf = bolt.csrf("/tenant/account").await;
    for route in crate::members::guarded("/tenant/") {
        if route.path == "/tenant/sign-out" {
            continue;
        }
        let (method, path) = (&route.method, place(&route.path));
        let response = match *method {
            reqwest::Method::GET if path == "/tenant/members/remove" => {
                bolt.get("/tenant/members/remove?email=editor%40acme.test")
                    .await
            }
            reqwest::Method::GET => bolt.get(&path).await,
            _ => {
                let mut form = crate::members::harmless_form(&path, &csrf);
                // Forms naming a member (to change or remove) name the first tenant's.
                let names_member = ["/tenant/members/role", "/tenant/members/remove"];
                for (name, value) in form.iter_mut() {
                    if name == "email" && names_member.contains(&path.as_str()) {
                        *value = "editor@acme.test".into();
                    }
                }
                bolt.post_owned(&path, &form).await
            }
        };
        let status = response.status().as_u16();
        let body = response.text().await.expect("a body");
        assert!(status < 500, "{method} {path}: {status}");
        for secret in SECRETS {
            assert!(
                !body.contains(secret),
                "{method} {path} shows {secret}: {body}"
            );
        }
    }
    // And every API call with its key.
    for route in crate::members::guarded("/api/") {
        let (method, path) = (route.method, place(&route.path));
        let body =
            matches!(method, reqwest::Method::POST | reqwest::Method::PUT).then(|| json!({}));
        let (status, answer) = app.api(method.clone(), &path, &bolt_key, body).await;
        assert!(status < 500, "{method} {path}: {status}");
        for secret in SECRETS {
            assert!(
                !answer.to_string().contains(secret),
                "{method} {path} shows {secret}: {answer}"
            );
        }
    }

    // Nothing of the first tenant changed.
    let (status, still) = get(&app, &acme_key, &format!("/api/v1/surveys/{slug}")).await;
    assert_eq!(
        (status, still["state"].as_str()),
        (200, Some("open")),
        "{still}"
    );
    let (_, summary) = get(&app, &acme_key, &format!("/api/v1/surveys/{slug}/summary")).await;
    assert_eq!(summary["total"], 1, "{summary}");
    let (_, hooks) = get(&app, &acme_key, "/api/v1/webhooks").await;
    assert_eq!(
        hooks["webhooks"][0]["id"],
        held.webhook_id.as_str(),
        "{hooks}"
    );
    let members = acme.page("/tenant/members").await;
    assert!(
        members.contains("editor@acme.test") && members.contains("invitee@acme.test"),
        "{members}"
    );
    let keys = acme.page("/tenant/api-keys").await;
    assert!(keys.contains(&held.key_id), "{keys}");
}
