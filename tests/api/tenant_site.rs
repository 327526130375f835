//! The tenant site over HTTP, as an owner in a browser would use it (cookies kept, redirects
//! seen): sign-up, sign-in, throttling, CSRF, sessions, the designer, results, and isolation
//! between tenants.

use canvass::worker::StepOutcome;

use crate::helpers::{spawn_app, token_in, worker};
use crate::owner::{Owner, form_fields, value_of};

#[tokio::test]
async fn an_owner_signs_up_designs_publishes_and_reads_results() {
    let app = spawn_app().await;
    let owner = Owner::new(&app);

    let response = owner.sign_up("Acme Coffee", "", "owner@acme.test").await;

    assert_eq!(response.status(), 303);
    let dashboard = owner.page("/tenant").await;
    assert!(dashboard.contains("Acme Coffee"), "{dashboard}");
    assert!(dashboard.contains("No surveys yet"));

    let slug = owner.design("Team offsite").await;
    assert_eq!(slug, "team-offsite");
    let editor = owner.page(&format!("/tenant/surveys/{slug}?saved=1")).await;
    assert!(
        editor.contains("Saved.") && editor.contains("Draft"),
        "{editor}"
    );
    let csrf = value_of(&editor, "csrf");
    let published = owner
        .post(
            &format!("/tenant/surveys/{slug}/publish"),
            &[("csrf", &csrf)],
        )
        .await;
    assert_eq!(published.status(), 303);

    for place in ["Beach", "Beach", "Mountains"] {
        let html = app.form("acme-coffee", &slug).await;
        let where_id = html
            .split(r#"type="radio" name="q-"#)
            .nth(1)
            .expect("a radio")
            .split('"')
            .next()
            .expect("an id")
            .to_owned();
        let response = app
            .submit(
                "acme-coffee",
                &slug,
                &token_in(&html),
                &[(&where_id, place)],
            )
            .await;
        assert_eq!(response.status(), 303);
    }
    let stores = app.stores().await;
    let mut worker = worker(&stores, std::time::Duration::from_secs(60));
    while let StepOutcome::BatchDone { .. } = worker.step().await.expect("a step") {}

    let summary = owner.page(&format!("/tenant/surveys/{slug}/summary")).await;
    assert!(
        summary.contains(r#"<span class="big">3</span>"#),
        "{summary}"
    );
    // The chart is a table: each option's row names it and gives its count and share.
    assert!(summary.contains(r#"<table class="chart">"#), "{summary}");
    assert!(
        summary.contains(r#"<th scope="row" class="label">Beach</th>"#)
            && summary.contains(
                r#"value="2" aria-hidden="true"></progress></td><td class="value">2 (66.7%)</td>"#
            ),
        "the Beach bar shows its count beside it: {summary}"
    );
    let responses = owner
        .page(&format!("/tenant/surveys/{slug}/responses"))
        .await;
    assert!(responses.contains("Page 1 of 1"));
    let first = owner
        .page(&format!("/tenant/surveys/{slug}/responses/1"))
        .await;
    assert!(
        first.contains("Mountains"),
        "the newest response comes first"
    );
    assert!(first.contains("Older"));
    assert_eq!(
        owner
            .get(&format!("/tenant/surveys/{slug}/responses/4"))
            .await
            .status(),
        404
    );
    assert!(
        owner
            .page("/tenant")
            .await
            .contains(r#"<td class="number" data-label="Responses">3</td>"#)
    );
}

#[tokio::test]
async fn the_designer_reorders_removes_and_adds_questions_before_saving_and_shows_errors_at_fields()
{
    let app = spawn_app().await;
    let owner = Owner::new(&app);
    owner.sign_up("Acme", "acme", "a@acme.test").await;
    let slug = owner.design("Reorder me").await;
    let editor = owner.page(&format!("/tenant/surveys/{slug}")).await;
    let csrf = value_of(&editor, "csrf");
    let mut form: Vec<(String, String)> = vec![
        ("csrf".into(), csrf.clone()),
        ("title".into(), "Reorder me".into()),
        ("count".into(), "2".into()),
    ];
    for (i, text) in ["First", "Second"].iter().enumerate() {
        form.push((format!("q{i}.id"), value_of(&editor, &format!("q{i}.id"))));
        form.push((format!("q{i}.text"), (*text).into()));
        form.push((format!("q{i}.type"), "short_text".into()));
    }
    let with = |action: &str| {
        let mut all = form.clone();
        all.push(("action".into(), action.into()));
        all
    };
    let path = format!("/tenant/surveys/{slug}");

    let moved = owner
        .post_owned(&path, &with("down-0"))
        .await
        .text()
        .await
        .expect("a body");
    assert!(moved.contains("Not saved yet"));
    assert!(
        moved.find("Second").expect("second") < moved.find("First").expect("first"),
        "Second now comes first"
    );
    let added = owner
        .post_owned(&path, &with("add"))
        .await
        .text()
        .await
        .expect("a body");
    assert!(added.contains(r#"name="count" value="3""#));
    let removed = owner
        .post_owned(&path, &with("remove-1"))
        .await
        .text()
        .await
        .expect("a body");
    // Removed, it waits collapsed with an Undo button until the form is saved.
    assert!(
        removed.contains("Removed: &ldquo;Second&rdquo;. It goes when you save."),
        "{removed}"
    );
    assert!(removed.contains(r#"name="q1.removed" value="on""#));
    assert!(removed.contains(r#"value="restore-1""#));
    let mut undone = form_fields(&removed, r#"<form class="designer"#);
    undone.retain(|(k, _)| k != "action");
    undone.push(("action".into(), "restore-1".into()));
    let undone = owner
        .post_owned(&path, &undone)
        .await
        .text()
        .await
        .expect("a body");
    assert!(
        !undone.contains(r#"name="q1.removed""#),
        "Undo takes it back"
    );
    let mut saved = form_fields(&removed, r#"<form class="designer"#);
    saved.retain(|(k, _)| k != "action");
    saved.push(("action".into(), "save".into()));
    assert_eq!(owner.post_owned(&path, &saved).await.status(), 303);
    let after = owner.page(&path).await;
    assert!(
        !after.contains(r#"value="Second""#),
        "a save leaves the removed question out"
    );
    assert!(after.contains(r#"name="count" value="1""#), "{after}");
    // A copy follows its question as a new one (no id), and each button posts to the control
    // it lands on, so the page comes back there and focused without JavaScript.
    let copied = owner
        .post_owned(&path, &with("duplicate-0"))
        .await
        .text()
        .await
        .expect("a body");
    assert!(copied.contains(r#"name="count" value="3""#));
    assert_eq!(crate::owner::value_of(&copied, "q1.text"), "First");
    // A new question, with an id of its own from the start (rules can name it at once).
    let copy_id = crate::owner::value_of(&copied, "q1.id");
    assert!(!copy_id.is_empty() && copy_id != crate::owner::value_of(&copied, "q0.id"));
    assert!(copied.contains(r#"name="q1.new" value="on""#));
    assert!(copied.contains("Question duplicated"));
    assert!(
        copied.contains(&format!(
            r##"value="up-2" formaction="/tenant/surveys/{slug}#q1-up""##
        )),
        "{copied}"
    );
    assert!(copied.contains(&format!(
        r##"value="remove-2" formaction="/tenant/surveys/{slug}#q2-undo""##
    )));
    // A question of a chosen type can be added at any place.
    assert!(copied.contains(&format!(
        r##"value="add-1-nps" formaction="/tenant/surveys/{slug}#q1-text""##
    )));
    let mut inserted = form_fields(&copied, r#"<form class="designer"#);
    inserted.retain(|(k, _)| k != "action");
    inserted.push(("action".into(), "add-1-matrix".into()));
    let inserted = owner
        .post_owned(&path, &inserted)
        .await
        .text()
        .await
        .expect("a body");
    assert_eq!(
        crate::owner::value_of(&inserted, "q2.text"),
        "First",
        "the rest move down"
    );
    assert!(
        inserted.contains(r#"<option value="matrix" selected>"#),
        "the new question has the type picked"
    );
    // Only the fields a question's type uses are shown.
    let options_group = |html: &str, block: usize| {
        let at = html
            .find(&format!(r#"id="q{block}-options""#))
            .expect("an options field");
        let group = html[..at].rfind("<div data-types=").expect("its group");
        html[group..at].contains(" hidden>")
    };
    assert!(
        options_group(&copied, 0),
        "a short text question hides its options"
    );

    let mut bad = with("save");
    bad.retain(|(k, _)| k != "title");
    bad.push(("title".into(), "".into()));
    bad.push(("q1.type".into(), "single_choice".into()));
    bad.retain(|(k, v)| !(k == "q1.type" && v == "short_text"));
    let response = owner.post_owned(&path, &bad).await;
    assert_eq!(response.status(), 422);
    let html = response.text().await.expect("a body");
    assert!(html.contains("a survey needs a title"), "{html}");
    assert!(
        html.contains("a choice question needs 2 to 50 options"),
        "{html}"
    );
    // Each problem is listed, named by number and text and linked to its field.
    assert!(html.contains(r##"<a href="#title">Title</a>"##), "{html}");
    assert!(
        html.contains("<a href=\"#q1-options\">Question 2, \u{201c}Second\u{201d}</a>: a choice question needs"),
        "{html}"
    );
    assert!(
        !options_group(&html, 1),
        "a choice question shows its options"
    );

    let saved = owner.post_owned(&path, &with("save")).await;
    assert_eq!(saved.status(), 303);
    let survey = app
        .stores()
        .await
        .catalog
        .surveys
        .get(
            &canvass::domain::TenantSlug::parse("acme").unwrap(),
            &canvass::domain::SurveySlug::parse(&slug).unwrap(),
        )
        .await
        .expect("read")
        .expect("found");
    assert_eq!(
        survey.questions.len(),
        2,
        "saving replaced the six questions by the two posted"
    );
}

#[tokio::test]
async fn wrong_passwords_are_refused_and_throttled() {
    let app = spawn_app().await;
    let owner = Owner::new(&app);
    owner.sign_up("Acme", "acme", "a@acme.test").await;
    let stranger = Owner::new(&app);

    for attempt in 0..5 {
        let response = stranger.sign_in("a@acme.test", "not the password").await;
        assert_eq!(response.status(), 401, "attempt {attempt}");
        assert!(response.text().await.expect("a body").contains("not right"));
    }
    let throttled = stranger
        .sign_in("a@acme.test", "a long enough password")
        .await;

    assert_eq!(
        throttled.status(),
        429,
        "even the right password waits after five failures"
    );
    let other = Owner::new(&app);
    assert_eq!(
        other
            .sign_in("nobody@acme.test", "whatever password")
            .await
            .status(),
        401
    );
}

#[tokio::test]
async fn forms_without_their_csrf_token_are_refused() {
    let app = spawn_app().await;
    let owner = Owner::new(&app);

    let no_token = owner
        .post(
            "/tenant/sign-up",
            &[
                ("name", "Acme"),
                ("email", "a@acme.test"),
                ("password", "a long enough password"),
            ],
        )
        .await;
    assert_eq!(no_token.status(), 403);

    owner.sign_up("Acme", "acme", "a@acme.test").await;
    let forged = owner
        .post(
            "/tenant/surveys",
            &[
                ("csrf", "forged"),
                ("title", "X"),
                ("count", "0"),
                ("action", "save"),
            ],
        )
        .await;
    assert_eq!(forged.status(), 403);
    let sign_out = owner.post("/tenant/sign-out", &[("csrf", "forged")]).await;
    assert_eq!(sign_out.status(), 403);
}

#[tokio::test]
async fn a_tampered_cookie_is_rejected_and_signing_out_ends_the_session() {
    let app = spawn_app().await;
    let owner = Owner::new(&app);
    let response = owner.sign_up("Acme", "acme", "a@acme.test").await;
    let cookie = response
        .headers()
        .get_all("set-cookie")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .find(|v| v.starts_with("canvass_session="))
        .expect("a session cookie")
        .split(';')
        .next()
        .expect("name=value")
        .to_owned();
    assert!(response.headers().get_all("set-cookie").iter().any(|v| {
        v.to_str()
            .is_ok_and(|v| v.contains("HttpOnly") && v.contains("SameSite=Lax"))
    }));
    let plain = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        // No idle connections: one reused just as the server's keep-alive (5 s) closes it
        // fails the request (seen after a 5 s wait in a test).
        .pool_max_idle_per_host(0)
        .build()
        .expect("a client");
    let with_cookie = |cookie: String| {
        let plain = plain.clone();
        let url = format!("{}/tenant", app.address);
        async move {
            plain
                .get(url)
                .header("cookie", cookie)
                .send()
                .await
                .expect("answered")
                .status()
        }
    };
    assert_eq!(with_cookie(cookie.clone()).await, 200);

    let mut tampered = cookie.clone().into_bytes();
    let last = tampered.len() - 3;
    tampered[last] = if tampered[last] == b'A' { b'B' } else { b'A' };
    assert_eq!(
        with_cookie(String::from_utf8(tampered).expect("ascii")).await,
        303,
        "a tampered cookie is no session"
    );

    let csrf = owner.csrf("/tenant").await;
    assert_eq!(
        owner
            .post("/tenant/sign-out", &[("csrf", &csrf)])
            .await
            .status(),
        303
    );
    assert_eq!(
        with_cookie(cookie).await,
        303,
        "the old cookie no longer signs in"
    );
    assert_eq!(owner.get("/tenant").await.status(), 303);
}

#[tokio::test]
async fn an_owner_never_sees_or_changes_another_tenants_surveys() {
    let app = spawn_app().await;
    let (alice, bob) = (Owner::new(&app), Owner::new(&app));
    alice.sign_up("Alpha", "alpha", "a@alpha.test").await;
    bob.sign_up("Beta", "beta", "b@beta.test").await;
    let slug = bob.design("Bob's secret").await;
    let bob_key_id = {
        let csrf = bob.csrf("/tenant/api-keys").await;
        let html = bob
            .post("/tenant/api-keys", &[("csrf", &csrf), ("label", "ci")])
            .await
            .text()
            .await
            .expect("a body");
        assert!(html.contains("cnv_"), "the key is shown once");
        html.split("<code>")
            .nth(2)
            .expect("an id")
            .split('<')
            .next()
            .expect("id")
            .to_owned()
    };
    let bob_export = {
        let summary = bob.page(&format!("/tenant/surveys/{slug}/summary")).await;
        let csrf = value_of(&summary, "csrf");
        let path = format!("/tenant/surveys/{slug}/exports");
        let requested = bob.post(&path, &[("csrf", &csrf)]).await;
        requested.headers()["location"]
            .to_str()
            .expect("ascii")
            .to_owned()
    };
    let csrf = alice.csrf("/tenant").await;

    for path in [
        format!("/tenant/surveys/{slug}"),
        format!("/tenant/surveys/{slug}/summary"),
        format!("/tenant/surveys/{slug}/responses"),
        format!("/tenant/surveys/{slug}/responses/1"),
        format!("/tenant/surveys/{slug}/responses.csv"),
        bob_export.clone(),
    ] {
        assert_eq!(alice.get(&path).await.status(), 404, "GET {path}");
    }
    for path in [
        format!("/tenant/surveys/{slug}"),
        format!("/tenant/surveys/{slug}/publish"),
        format!("/tenant/surveys/{slug}/unpublish"),
        format!("/tenant/surveys/{slug}/delete"),
        format!("/tenant/surveys/{slug}/exports"),
        format!("/tenant/api-keys/{bob_key_id}/revoke"),
    ] {
        let response = alice
            .post(
                &path,
                &[
                    ("csrf", &csrf),
                    ("title", "Hijacked"),
                    ("count", "0"),
                    ("action", "save"),
                ],
            )
            .await;
        assert_eq!(response.status(), 404, "POST {path}");
    }
    let dashboard = alice.page("/tenant").await;
    assert!(!dashboard.contains("secret"));
    let bobs = bob.page(&format!("/tenant/surveys/{slug}")).await;
    assert!(
        bobs.contains("Bob&#39;s secret"),
        "Bob's survey is untouched"
    );
    assert!(bob.page("/tenant/api-keys").await.contains(&bob_key_id));
    assert_eq!(
        bob.get(&bob_export).await.status(),
        200,
        "Bob still sees his export"
    );
}

#[tokio::test]
async fn a_tenant_exports_to_its_own_database_set_in_settings_and_never_sees_its_password() {
    let db = crate::export::TestDatabase::create().await;
    let mut settings = crate::helpers::test_settings();
    settings.worker.export_allowed_hosts = "127.0.0.1".into();
    let app =
        crate::helpers::spawn_app_configured(canvass::storage::memory::storage(), settings).await;
    let owner = Owner::new(&app);
    owner.sign_up("Acme", "acme", "a@acme.test").await;
    let csrf = owner.csrf("/tenant/settings").await;

    let refused = owner
        .post(
            "/tenant/settings",
            &[
                ("csrf", &csrf),
                (
                    "export_database_url",
                    "postgres://nobody:pw@127.0.0.1:1/none",
                ),
                ("action", "save"),
            ],
        )
        .await;
    assert_eq!(refused.status(), 422);
    let html = refused.text().await.expect("a body");
    assert!(html.contains("could not connect"), "{html}");
    assert!(
        !html.contains(":pw@"),
        "the refused URL's password is not echoed"
    );

    let with_password = db.url.replacen(
        "postgres://postgres@",
        "postgres://postgres:hunter2secret@",
        1,
    );
    let saved = owner
        .post(
            "/tenant/settings",
            &[
                ("csrf", &csrf),
                ("export_database_url", &with_password),
                ("action", "save"),
            ],
        )
        .await;
    assert_eq!(saved.status(), 303);
    let settings = owner.page("/tenant/settings").await;
    assert!(settings.contains("postgres:****@"), "{settings}");
    assert!(!settings.contains("hunter2secret"));

    let slug = owner.design("Own export").await;
    let csrf = owner.csrf(&format!("/tenant/surveys/{slug}")).await;
    owner
        .post(
            &format!("/tenant/surveys/{slug}/publish"),
            &[("csrf", &csrf)],
        )
        .await;
    let html = app.form("acme", &slug).await;
    let where_id = html
        .split(r#"type="radio" name="q-"#)
        .nth(1)
        .expect("a radio")
        .split('"')
        .next()
        .expect("an id")
        .to_owned();
    app.submit("acme", &slug, &token_in(&html), &[(&where_id, "Beach")])
        .await;
    crate::export::work(
        &app,
        "postgres://postgres@127.0.0.1:1/not-the-server-default",
    )
    .await;
    let summary = owner.page(&format!("/tenant/surveys/{slug}/summary")).await;
    let requested = owner
        .post(
            &format!("/tenant/surveys/{slug}/exports"),
            &[("csrf", &value_of(&summary, "csrf"))],
        )
        .await;
    assert_eq!(requested.status(), 303);
    let job_page = requested.headers()["location"]
        .to_str()
        .expect("ascii")
        .to_owned();

    crate::export::work(
        &app,
        "postgres://postgres@127.0.0.1:1/not-the-server-default",
    )
    .await;

    assert!(
        owner
            .page(&job_page)
            .await
            .contains("<strong>done</strong>")
    );
    assert_eq!(
        db.count("select count(*) from canvass.response where tenant = 'acme'")
            .await,
        1
    );
}

#[tokio::test]
async fn a_survey_is_duplicated_as_a_draft_of_its_own() {
    let app = spawn_app().await;
    let owner = Owner::new(&app);
    owner.sign_up("Acme", "acme", "a@acme.test").await;
    let slug = owner.design("Team lunch").await;
    let editor = owner.page(&format!("/tenant/surveys/{slug}")).await;
    let response = owner
        .post(
            &format!("/tenant/surveys/{slug}/duplicate"),
            &[("csrf", &value_of(&editor, "csrf"))],
        )
        .await;
    assert_eq!(response.status(), 303);
    let location = response.headers()["location"]
        .to_str()
        .expect("ascii")
        .to_owned();
    assert_ne!(location, format!("/tenant/surveys/{slug}"));
    let copy = owner.page(&location).await;
    assert!(copy.contains("Survey duplicated"), "a notice: {copy}");
    assert_eq!(value_of(&copy, "title"), "Copy of Team lunch");
    assert_eq!(value_of(&copy, "q2.text"), "Where?");
    assert!(copy.contains("Draft"), "{copy}");
    // The notice is shown once.
    assert!(!owner.page(&location).await.contains("Survey duplicated"));
    // Without the form's token nothing is copied.
    let forged = owner
        .post(
            &format!("/tenant/surveys/{slug}/duplicate"),
            &[("csrf", "x")],
        )
        .await;
    assert_eq!(forged.status(), 403);
}
