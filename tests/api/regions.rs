//! Regions: the regions file read and refused line by line, a process's storage taken from
//! its region, surveys naming only regions the installation has.

use std::process::Command;

use crate::helpers::spawn_app;

/// Runs `canvass serve` with a regions file holding `text` and this process's `region`; its
/// exit status and what it printed to stderr.
fn serve_with(text: &str, region: Option<&str>) -> (std::process::ExitStatus, String) {
    let dir = tempfile::tempdir().expect("a temp dir");
    let file = dir.path().join("regions.toml");
    std::fs::write(&file, text).expect("written");
    let mut command = Command::new(env!("CARGO_BIN_EXE_canvass"));
    command
        .arg("serve")
        .env("CANVASS_LISTEN", "127.0.0.1:0")
        .env("CANVASS_REGIONS_FILE", &file)
        .env("CANVASS_LOG", "warn")
        .env_remove("CANVASS_REGION");
    if let Some(region) = region {
        command.env("CANVASS_REGION", region);
    }
    let output = command.output().expect("canvass runs");
    (
        output.status,
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

pub(crate) fn two_regions(dir: &std::path::Path) -> String {
    format!(
        "[regions.us]\nstorage = \"local\"\ndata_dir = \"{us}\"\npublic_url = \"http://127.0.0.1:8080\"\n\n\
         [regions.eu]\nstorage = \"local\"\ndata_dir = \"{eu}\"\npublic_url = \"http://127.0.0.1:8081\"\n",
        us = dir.join("us").display(),
        eu = dir.join("eu").display(),
    )
}

#[test]
fn a_process_refuses_a_regions_file_it_cannot_use_naming_the_line() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let good = two_regions(dir.path());
    let us = dir.path().join("us").display().to_string();
    let eu = dir.path().join("eu").display().to_string();
    let cases: [(String, Option<&str>, &str); 4] = [
        // Two regions on one storage.
        (
            good.replace(&eu, &us),
            Some("us"),
            "regions.toml:7: regions us and eu both use the directory",
        ),
        // A region without storage.
        (
            good.replace(&format!("storage = \"local\"\ndata_dir = \"{eu}\"\n"), ""),
            Some("us"),
            "regions.toml:6: region eu has no storage",
        ),
        // An unknown region for this process.
        (
            good.clone(),
            Some("asia"),
            "CANVASS_REGION=asia is not one of its regions (eu, us)",
        ),
        // Two regions and no word on which this process runs in.
        (
            good.clone(),
            None,
            "say which region this process runs in with CANVASS_REGION",
        ),
    ];
    for (text, region, said) in cases {
        let (status, stderr) = serve_with(&text, region);
        assert!(!status.success(), "started with {text}");
        assert!(stderr.contains(said), "expected {said:?} in:\n{stderr}");
    }
}

#[tokio::test]
async fn without_a_regions_file_a_survey_names_no_region() {
    let app = spawn_app().await;
    let key = app.api_tenant("acme").await;
    let (status, refused) = app
        .api(
            reqwest::Method::POST,
            "/api/v1/surveys",
            &key,
            Some(serde_json::json!({
                "title": "Lunch",
                "questions": [{"text": "How was it?", "type": "five_stars"}],
                "regions": ["eu"],
            })),
        )
        .await;
    assert_eq!(status, 422, "{refused}");
    assert_eq!(
        refused["fields"]["regions[0]"],
        "this installation has one region: leave regions out"
    );
    let created = app
        .create_survey(
            &key,
            serde_json::json!({
                "title": "Lunch",
                "questions": [{"text": "How was it?", "type": "five_stars"}],
            }),
        )
        .await;
    assert_eq!(created["regions"], serde_json::json!([]));
    assert_eq!(created["residency"], "home");
}

/// A region of a two-region installation on local storage, served in this process.
pub(crate) struct RegionApp {
    pub(crate) app: crate::helpers::TestApp,
    /// Its stores, with the installation's regions.
    pub(crate) stores: canvass::stores::Stores,
}

/// Serves region `region` of the regions file `file`; workers are stepped by the test.
pub(crate) async fn region_app(file: &std::path::Path, region: &str) -> RegionApp {
    region_app_caching(file, region, canvass::stores::DEFAULT_CACHE_TTL_SECS).await
}

/// As `region_app`, its caches keeping what they read `ttl` seconds.
pub(crate) async fn region_app_caching(
    file: &std::path::Path,
    region: &str,
    ttl: u64,
) -> RegionApp {
    let mut settings = crate::helpers::test_settings();
    settings.demo = false;
    settings.stores.cache_ttl_secs = ttl;
    settings.storage.regions_file = Some(file.to_owned());
    settings.storage.region = Some(region.to_owned());
    let placement = settings.storage.placement().expect("a usable regions file");
    let storage = placement
        .backend
        .open(canvass::storage::local::Durability::Full)
        .await
        .expect("the region's storage opens");
    let backend = canvass::config::BackendSettings {
        storage: settings.storage.clone(),
        stores: settings.stores.clone(),
    };
    let app = crate::helpers::spawn_app_configured(storage, settings).await;
    let stores = canvass::startup::open_stores(&backend)
        .await
        .expect("the region's stores open");
    RegionApp { app, stores }
}

/// "Lunch", one required five-star question, hosted in eu, with `extra` fields on top.
pub(crate) fn lunch_in_eu(extra: serde_json::Value) -> serde_json::Value {
    let mut survey = serde_json::json!({
        "title": "Lunch",
        "questions": [{"id": "overall", "text": "How was it?", "type": "five_stars", "required": true}],
        "regions": ["eu"],
    });
    if let (Some(fields), Some(more)) = (survey.as_object_mut(), extra.as_object()) {
        fields.extend(more.clone());
    }
    survey
}

/// Moves one batch of answers home with a worker of `region` (the hosting one): how many.
pub(crate) async fn move_once(region: &RegionApp) -> usize {
    let mut mover = crate::helpers::worker(&region.stores, std::time::Duration::from_secs(60));
    match mover.step().await.expect("a step") {
        canvass::worker::StepOutcome::TransferDone(moved) => moved.moved,
        other => panic!("moved nothing: {other:?}"),
    }
}

/// Counts what waits at home and reads the survey's total there.
pub(crate) async fn counted_at_home(
    home: &RegionApp,
    key: &str,
    survey: &str,
) -> serde_json::Value {
    crate::helpers::drain(&home.stores).await;
    let path = format!("/api/v1/surveys/{survey}/summary");
    let (_, summary) = home.app.api(reqwest::Method::GET, &path, key, None).await;
    summary["total"].clone()
}

/// Writes a two-region file (us and eu on local storage in `dir`) and returns its path.
pub(crate) fn regions_file(dir: &std::path::Path) -> std::path::PathBuf {
    let file = dir.join("regions.toml");
    std::fs::write(&file, two_regions(dir)).expect("written");
    file
}

#[tokio::test]
async fn an_answer_given_in_a_hosting_region_is_counted_once_at_home() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let file = regions_file(dir.path());
    let us = region_app(&file, "us").await;
    let eu = region_app(&file, "eu").await;
    let owner = crate::owner::Owner::signed_up(&us.app, "Acme", "acme", "owner@acme.test").await;
    let key = owner.api_key("regions").await;
    // A logo, which the survey's pages in the hosting region show from there.
    let acme_slug = canvass::domain::TenantSlug::parse("acme").expect("a slug");
    let logo = crate::branding::png(40, 20);
    let tag = us
        .stores
        .catalog
        .settings
        .set_logo(&acme_slug, logo.clone().into())
        .await
        .expect("stored");
    us.stores
        .catalog
        .tenants
        .change(&acme_slug, |tenant| {
            tenant.branding.logo = Some(tag.clone())
        })
        .await
        .expect("changed");
    let survey = us
        .app
        .published_survey(&key, lunch_in_eu(serde_json::json!({})))
        .await;
    assert_eq!(survey["regions"], serde_json::json!(["eu"]));
    // What is kept where it is given cannot be answered away from home: participants (at
    // home) and files (where uploaded, unless the answers stay there too).
    for (extra, field) in [
        (serde_json::json!({"access": "invitation"}), "access"),
        (
            serde_json::json!({"questions": [
                {"id": "photo", "text": "A photo", "type": "file"}]}),
            "regions",
        ),
    ] {
        let (status, refused) = us
            .app
            .api(
                reqwest::Method::POST,
                "/api/v1/surveys",
                &key,
                Some(lunch_in_eu(extra)),
            )
            .await;
        assert_eq!(status, 422, "{refused}");
        assert!(refused["fields"][field].is_string(), "{refused}");
    }
    // Home sends respondents to the region hosting it, keeping the address.
    let at_home = us.app.get("/s/acme/lunch").await;
    assert_eq!(at_home.status(), 307);
    assert_eq!(
        at_home.headers()["location"],
        "http://127.0.0.1:8081/s/acme/lunch"
    );

    // The owner's share panel at home shows its QR code from home (same origin as the page).
    let qr = us.app.get("/s/acme/lunch/qr.svg").await;
    assert_eq!(qr.status(), 200);
    assert_eq!(qr.headers()["content-type"], "image/svg+xml");

    let served = eu.app.get("/b/acme/logo").await;
    assert_eq!(served.status(), 200, "the logo is served in eu, from eu");
    assert_eq!(served.bytes().await.expect("a body").to_vec(), logo);

    // The hosting region serves it from the copy pushed at publish, and thanks.
    let token = crate::helpers::token_in(&eu.app.form("acme", "lunch").await);
    let thanked = eu
        .app
        .submit("acme", "lunch", &token, &[("overall", "4")])
        .await;
    assert_eq!(thanked.status(), 303);
    // The same form posted again (a retry) is the same answer.
    let again = eu
        .app
        .submit("acme", "lunch", &token, &[("overall", "4")])
        .await;
    assert_eq!(again.status(), 303);
    let second = eu.app.answer("acme", "lunch", &[("overall", "2")]).await;
    assert_eq!(second.status(), 303);
    let acme = canvass::domain::TenantSlug::parse("acme").expect("a slug");
    let transfer = canvass::stores::transfer_queue(&acme);
    assert_eq!(
        eu.stores
            .operations
            .queue_length(&transfer)
            .await
            .expect("a length"),
        3
    );

    // While they wait, the owner's dashboard at home says so, and so does the operator's
    // command; the survey's shared address is the hosting region's.
    let dashboard = owner.page("/tenant").await;
    let waiting = crate::owner::between(&dashboard, "Answers on their way home", "</table>");
    assert!(
        waiting.contains("<td>eu</td>") && waiting.contains(r#"<td class="number">3</td>"#),
        "{waiting}"
    );
    assert!(
        dashboard.contains("http://127.0.0.1:8081/s/acme/lunch"),
        "the shared address is eu's"
    );
    let listed = Command::new(env!("CARGO_BIN_EXE_canvass"))
        .args(["regions", "--json"])
        .env("CANVASS_REGIONS_FILE", &file)
        .env("CANVASS_REGION", "us")
        .env("CANVASS_LOG", "warn")
        .output()
        .expect("canvass runs");
    assert!(
        listed.status.success(),
        "{}",
        String::from_utf8_lossy(&listed.stderr)
    );
    let listed: serde_json::Value = serde_json::from_slice(&listed.stdout).expect("JSON");
    let eu_listed = &listed["regions"][0];
    assert_eq!(eu_listed["name"], "eu", "{listed}");
    assert_eq!(eu_listed["waiting"], 3, "{listed}");
    assert_eq!(
        eu_listed["unreachable"],
        serde_json::Value::Null,
        "{listed}"
    );
    assert_eq!(listed["regions"][1]["here"], true, "{listed}");

    // Moved home, then counted there: exact, and nothing of it stays in the hosting region.
    assert_eq!(move_once(&eu).await, 3);
    assert_eq!(
        eu.stores
            .operations
            .queue_length(&transfer)
            .await
            .expect("a length"),
        0
    );
    assert_eq!(counted_at_home(&us, &key, "lunch").await, 2);
    let left = eu
        .stores
        .operations
        .scan("answers/", None)
        .await
        .expect("listed");
    assert!(
        left.keys.is_empty(),
        "answers stayed in eu: {:?}",
        left.keys
    );
    let references: Vec<u64> = {
        let (_, page) = us
            .app
            .api(
                reqwest::Method::GET,
                "/api/v1/surveys/lunch/responses",
                &key,
                None,
            )
            .await;
        page["responses"]
            .as_array()
            .expect("responses")
            .iter()
            .map(|r| r["reference"].as_u64().expect("a reference"))
            .collect()
    };
    let eu_block = canvass::regions::REFERENCE_BLOCK_SIZE;
    assert!(
        references.iter().all(|r| *r >= eu_block),
        "references come from eu's block: {references:?}"
    );
}

#[tokio::test]
async fn moving_an_answer_home_adds_at_most_two_transactions_there_and_one_at_home() {
    let report = canvass::bench::transfer::count_transfer(1_000)
        .await
        .expect("the move runs");
    assert!(
        report.added_in_hosting() <= 2.0,
        "hosting region: {:.3} per answer ({:?})",
        report.added_in_hosting(),
        report.hosting
    );
    assert!(
        report.added_at_home() <= 1.0,
        "home: {:.3} per answer beyond a local answer ({:?}, {:?})",
        report.added_at_home(),
        report.home,
        report.counting
    );
}

/// Runs `canvass tenant create` in region `here` of `file` with extra arguments.
fn tenant_create(file: &std::path::Path, here: &str, args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_canvass"))
        .args(["tenant", "create"])
        .args(args)
        .env("CANVASS_REGIONS_FILE", file)
        .env("CANVASS_REGION", here)
        .env("CANVASS_LOG", "warn")
        .output()
        .expect("canvass runs")
}

#[tokio::test]
async fn a_tenant_is_made_at_home_in_the_region_named_and_its_address_is_one_across_regions() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let file = regions_file(dir.path());
    let made = tenant_create(
        &file,
        "us",
        &["--slug", "acme", "--name", "Acme", "--region", "eu"],
    );
    let said = String::from_utf8_lossy(&made.stdout);
    assert!(
        made.status.success(),
        "{said} {}",
        String::from_utf8_lossy(&made.stderr)
    );
    assert!(said.contains("at home in region eu"), "{said}");
    let us = region_app(&file, "us").await;
    let eu = region_app(&file, "eu").await;
    let slug = canvass::domain::TenantSlug::parse("acme").expect("a slug");
    assert!(
        eu.stores
            .catalog
            .tenants
            .get(&slug)
            .await
            .expect("read")
            .is_some(),
        "made in eu"
    );
    assert!(
        us.stores
            .catalog
            .tenants
            .get(&slug)
            .await
            .expect("read")
            .is_none(),
        "not in us"
    );

    // The address is taken in every region, by the shell and on the sign-up page alike.
    let again = tenant_create(&file, "us", &["--slug", "acme", "--name", "Other"]);
    assert!(!again.status.success());
    assert!(String::from_utf8_lossy(&again.stderr).contains("already exists"));
    let unknown = tenant_create(
        &file,
        "us",
        &["--slug", "beta", "--name", "Beta", "--region", "asia"],
    );
    assert!(!unknown.status.success());
    assert!(
        String::from_utf8_lossy(&unknown.stderr)
            .contains("--region asia is not one of the installation's regions (eu, us)"),
        "{}",
        String::from_utf8_lossy(&unknown.stderr)
    );
    let suggested: serde_json::Value = us
        .app
        .get("/tenant/sign-up/address?name=Acme")
        .await
        .json()
        .await
        .expect("JSON");
    assert_eq!(suggested["taken"], true, "{suggested}");

    // Sign-up offers every region, each signing up at its own address.
    let page = us
        .app
        .get("/tenant/sign-up")
        .await
        .text()
        .await
        .expect("a page");
    assert!(page.contains("Where your data lives"), "{page}");
    assert!(
        page.contains(r#"<a href="http://127.0.0.1:8081/tenant/sign-up">eu</a>"#),
        "{page}"
    );
    assert!(
        page.contains(r#"<strong aria-current="page">us</strong>"#),
        "{page}"
    );
    // An account signs in at its organisation's home: the sign-in page says where else to.
    let sign_in = us
        .app
        .get("/tenant/sign-in")
        .await
        .text()
        .await
        .expect("a page");
    assert!(
        sign_in
            .contains(r#"Sign in there: <a href="http://127.0.0.1:8081/tenant/sign-in">eu</a>."#),
        "{sign_in}"
    );
}

#[tokio::test]
async fn a_hosting_region_closes_a_survey_at_its_limit_before_and_after_the_answers_move() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let file = regions_file(dir.path());
    let us = region_app(&file, "us").await;
    let eu = region_app(&file, "eu").await;
    let owner = crate::owner::Owner::signed_up(&us.app, "Acme", "acme", "owner@acme.test").await;
    let key = owner.api_key("limits").await;
    us.app
        .published_survey(&key, lunch_in_eu(serde_json::json!({"response_limit": 2})))
        .await;
    for stars in ["5", "4"] {
        let thanked = eu.app.answer("acme", "lunch", &[("overall", stars)]).await;
        assert_eq!(thanked.status(), 303);
    }
    // Two wait to move: the limit is reached here already.
    assert_eq!(eu.app.get("/s/acme/lunch").await.status(), 410);
    assert_eq!(move_once(&eu).await, 2);
    // Moved, not yet counted at home: still closed here (the store's one-second cache of
    // the count is waited out).
    tokio::time::sleep(std::time::Duration::from_millis(1100)).await;
    assert_eq!(eu.app.get("/s/acme/lunch").await.status(), 410);
    assert_eq!(counted_at_home(&us, &key, "lunch").await, 2);
    assert_eq!(eu.app.get("/s/acme/lunch").await.status(), 410);
}

#[tokio::test]
async fn the_designer_sets_where_a_survey_is_answered() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let file = regions_file(dir.path());
    let us = region_app(&file, "us").await;
    let _eu = region_app(&file, "eu").await;
    let owner = crate::owner::Owner::signed_up(&us.app, "Acme", "acme", "owner@acme.test").await;
    let blank = owner.page("/tenant/surveys/new").await;
    let choice = crate::owner::between(&blank, "Where it is answered", "</fieldset>");
    // Home is ticked until the owner says otherwise; every region is offered.
    assert!(
        choice.contains(r#"name="region" value="us" checked"#),
        "{choice}"
    );
    assert!(choice.contains(r#"name="region" value="eu">"#), "{choice}");
    assert!(choice.contains("(your home region)"), "{choice}");

    let csrf = owner.csrf("/tenant/surveys/new").await;
    let saved = owner
        .post(
            "/tenant/surveys",
            &[
                ("csrf", csrf.as_str()),
                ("title", "Lunch"),
                ("count", "1"),
                ("q0.text", "How was it?"),
                ("q0.type", "five_stars"),
                ("region", "eu"),
                ("residency", "region"),
                ("action", "save"),
            ],
        )
        .await;
    assert_eq!(saved.status(), 303);
    let slug = canvass::domain::SurveySlug::parse("lunch").expect("a slug");
    let acme = canvass::domain::TenantSlug::parse("acme").expect("a slug");
    let survey = us
        .stores
        .catalog
        .surveys
        .get(&acme, &slug)
        .await
        .expect("read")
        .expect("saved");
    let names: Vec<&str> = survey.regions.iter().map(|r| r.as_str()).collect();
    assert_eq!(names, ["eu"]);
    assert_eq!(survey.residency, canvass::domain::region::Residency::Region);
    let page = owner.page("/tenant/surveys/lunch").await;
    let choice = crate::owner::between(&page, "Where it is answered", "</fieldset>");
    assert!(
        choice.contains(r#"name="region" value="eu" checked"#),
        "{choice}"
    );
    assert!(choice.contains(r#"name="region" value="us">"#), "{choice}");
    assert!(
        choice.contains(
            r#"name="residency" value="region" aria-describedby="residency-hint" checked"#
        ),
        "{choice}"
    );

    // Kept in a region with two regions ticked: said beside the choice, the form kept.
    let csrf = owner.csrf("/tenant/surveys/lunch").await;
    let refused = owner
        .post(
            "/tenant/surveys/lunch",
            &[
                ("csrf", csrf.as_str()),
                ("title", "Lunch"),
                ("count", "1"),
                ("q0.id", "q1"),
                ("q0.text", "How was it?"),
                ("q0.type", "five_stars"),
                ("region", "eu"),
                ("region", "us"),
                ("residency", "region"),
                ("action", "save"),
            ],
        )
        .await;
    assert_eq!(refused.status(), 422);
    let page = refused.text().await.expect("a page");
    let choice = crate::owner::between(&page, "Where it is answered", "</fieldset>");
    assert!(choice.contains("exactly one region"), "{choice}");
    assert!(
        choice.contains(r#"name="region" value="us" checked"#),
        "{choice}"
    );
}

#[tokio::test]
async fn without_regions_the_designer_offers_no_choice_of_region() {
    let app = crate::helpers::spawn_app().await;
    let owner = crate::owner::Owner::signed_up(&app, "Acme", "acme", "owner@acme.test").await;
    let page = owner.page("/tenant/surveys/new").await;
    assert!(page.contains("Thanks and closing"), "the designer");
    assert!(!page.contains("Where it is answered"));
    let sign_up = app
        .get("/tenant/sign-up")
        .await
        .text()
        .await
        .expect("a page");
    assert!(!sign_up.contains("Where your data lives"));
    let sign_in = app
        .get("/tenant/sign-in")
        .await
        .text()
        .await
        .expect("a page");
    assert!(!sign_in.contains("another region"));
}

#[tokio::test]
async fn a_survey_answered_away_from_home_has_no_participants_and_one_with_them_stays_home() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let file = regions_file(dir.path());
    let us = region_app(&file, "us").await;
    let owner = crate::owner::Owner::signed_up(&us.app, "Acme", "acme", "owner@acme.test").await;
    let key = owner.api_key("links").await;
    let people = serde_json::json!({"participants": [{"email": "ann@example.com"}]});
    // Answered in eu: its links would be sent there, where no participant is kept.
    us.app
        .create_survey(&key, lunch_in_eu(serde_json::json!({})))
        .await;
    let (status, refused) = us
        .app
        .api(
            reqwest::Method::POST,
            "/api/v1/surveys/lunch/participants",
            &key,
            Some(people.clone()),
        )
        .await;
    assert_eq!(status, 422, "{refused}");
    assert!(
        refused.to_string().contains("kept in your home region"),
        "{refused}"
    );
    // Answered at home, with participants: it cannot move away.
    let mut at_home = lunch_in_eu(serde_json::json!({}));
    at_home["title"] = serde_json::json!("Dinner");
    at_home["regions"] = serde_json::json!([]);
    us.app.create_survey(&key, at_home.clone()).await;
    let (status, added) = us
        .app
        .api(
            reqwest::Method::POST,
            "/api/v1/surveys/dinner/participants",
            &key,
            Some(people),
        )
        .await;
    assert_eq!(status, 201, "{added}");
    at_home["regions"] = serde_json::json!(["eu"]);
    let (status, refused) = us
        .app
        .api(
            reqwest::Method::PUT,
            "/api/v1/surveys/dinner",
            &key,
            Some(at_home),
        )
        .await;
    assert_eq!(status, 422, "{refused}");
    assert!(
        refused["fields"]["regions"]
            .as_str()
            .is_some_and(|said| said.contains("remove its participants first")),
        "{refused}"
    );
}

#[tokio::test]
async fn closing_editing_deleting_and_the_tenants_look_and_zone_reach_the_hosting_region() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let file = regions_file(dir.path());
    let us = region_app(&file, "us").await;
    let eu = region_app_caching(&file, "eu", 1).await;
    let owner = crate::owner::Owner::signed_up(&us.app, "Acme", "acme", "owner@acme.test").await;
    let key = owner.api_key("reach").await;
    us.app
        .published_survey(&key, lunch_in_eu(serde_json::json!({})))
        .await;
    assert_eq!(eu.app.get("/s/acme/lunch").await.status(), 200);
    // What the hosting region's storage holds, read fresh.
    let acme = canvass::domain::TenantSlug::parse("acme").expect("a slug");
    let lunch = canvass::domain::SurveySlug::parse("lunch").expect("a slug");
    let copy = || async {
        let hosted = &eu.stores.residency.hosted;
        hosted.forget_survey(&acme, &lunch).await;
        hosted.survey(&acme, &lunch).await.expect("read")
    };

    // Edited at home: the copy there is the new version.
    let mut edited = lunch_in_eu(serde_json::json!({}));
    edited["title"] = serde_json::json!("Lunch at noon");
    let (status, body) = us
        .app
        .api(
            reqwest::Method::PUT,
            "/api/v1/surveys/lunch",
            &key,
            Some(edited),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(copy().await.expect("a copy").title, "Lunch at noon");

    // The tenant's look and time zone, set on the home site.
    let csrf = owner.csrf("/tenant/settings").await;
    let form = reqwest::multipart::Form::new()
        .text("csrf", csrf.clone())
        .text("accent", "#0b6e4f");
    let saved = owner
        .client
        .post(format!("{}/tenant/settings/branding", owner.address()))
        .multipart(form)
        .send()
        .await
        .expect("answered");
    assert_eq!(saved.status(), 303);
    let zoned = owner
        .post(
            "/tenant/settings/zone",
            &[("csrf", &csrf), ("time_zone", "Europe/Paris")],
        )
        .await;
    assert_eq!(zoned.status(), 303);
    tokio::time::sleep(std::time::Duration::from_millis(1100)).await;
    let hosted = eu
        .app
        .stores()
        .await
        .residency
        .hosted
        .tenant(&acme)
        .await
        .expect("read")
        .expect("the tenant hosted");
    assert_eq!(hosted.tenant.branding.accent.as_deref(), Some("#0b6e4f"));
    assert_eq!(hosted.tenant.time_zone.as_deref(), Some("Europe/Paris"));
    let style = eu.app.get("/b/acme/style.css").await;
    assert_eq!(style.status(), 200);
    assert!(style.text().await.expect("a body").contains("#0b6e4f"));

    // Closed at home: the hosting region stops taking answers, a form in hand included,
    // once its cache (here 1 s) has let the copy go.
    let token = crate::helpers::token_in(&eu.app.form("acme", "lunch").await);
    let (status, _) = us
        .app
        .api(
            reqwest::Method::POST,
            "/api/v1/surveys/lunch/unpublish",
            &key,
            None,
        )
        .await;
    assert_eq!(status, 200);
    assert!(!copy().await.expect("a copy").published);
    tokio::time::sleep(std::time::Duration::from_millis(1100)).await;
    assert_eq!(eu.app.get("/s/acme/lunch").await.status(), 410);
    let refused = eu
        .app
        .submit("acme", "lunch", &token, &[("overall", "5")])
        .await;
    assert_eq!(refused.status(), 410, "closed in the hosting region");

    // Deleted at home: gone from the hosting region.
    let (status, _) = us
        .app
        .api(reqwest::Method::DELETE, "/api/v1/surveys/lunch", &key, None)
        .await;
    assert_eq!(status, 204);
    assert!(copy().await.is_none(), "no copy left");
}

#[tokio::test]
async fn a_web_sign_up_refuses_an_address_a_tenant_of_another_region_has() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let file = regions_file(dir.path());
    let us = region_app(&file, "us").await;
    let eu = region_app(&file, "eu").await;
    crate::owner::Owner::signed_up(&us.app, "Acme", "acme", "owner@acme.test").await;
    let visitor = crate::owner::Owner::new(&eu.app);
    let refused = visitor
        .sign_up("Acme Europe", "acme", "owner@acme.eu")
        .await;
    assert_eq!(refused.status(), 422);
    let page = refused.text().await.expect("a page");
    assert!(
        page.contains("This address is taken: choose another."),
        "{page}"
    );
    let taken = canvass::domain::TenantSlug::parse("acme").expect("a slug");
    let tenant = eu.stores.catalog.tenants.get(&taken).await.expect("read");
    assert!(tenant.is_none(), "nothing was made in eu");
    // Another address is free there.
    let made = visitor
        .sign_up("Acme Europe", "acme-eu", "owner@acme.eu")
        .await;
    assert_eq!(made.status(), 303);
}
