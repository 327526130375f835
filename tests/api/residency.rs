//! Answers that stay in their region: a survey hosted in eu for a tenant at home in us whose
//! answers are counted, listed, segmented, deleted and downloaded in eu, read from there by
//! the home site, and never written to a byte of us's storage.

use reqwest::Method;
use serde_json::{Value, json};

use crate::regions::{region_app, regions_file};

/// Every file under `dir` (blobs and queue messages alike, on local storage) holding `needle`.
fn files_holding(dir: &std::path::Path, needle: &[u8]) -> Vec<std::path::PathBuf> {
    let mut found = Vec::new();
    let mut to_visit = vec![dir.to_owned()];
    while let Some(dir) = to_visit.pop() {
        for entry in std::fs::read_dir(&dir).expect("a readable directory") {
            let path = entry.expect("an entry").path();
            if path.is_dir() {
                to_visit.push(path);
            } else if std::fs::read(&path)
                .expect("a readable file")
                .windows(needle.len())
                .any(|window| window == needle)
            {
                found.push(path);
            }
        }
    }
    found
}

/// "Visits", hosted in eu with its answers kept there: a rating, a segment question and a
/// written comment.
fn visits(extra: Value) -> Value {
    let mut survey = json!({
        "title": "Visits",
        "questions": [
            {"id": "overall", "text": "How was it?", "type": "five_stars", "required": true},
            {"id": "drink", "text": "What did you drink?", "type": "single_choice",
             "options": ["Tea", "Coffee"], "segment": true},
            {"id": "comments", "text": "Anything else?", "type": "long_text"},
        ],
        "regions": ["eu"],
        "residency": "region",
    });
    if let (Some(fields), Some(more)) = (survey.as_object_mut(), extra.as_object()) {
        fields.extend(more.clone());
    }
    survey
}

#[tokio::test]
async fn answers_that_stay_in_their_region_are_counted_there_read_from_home_and_never_stored_at_home()
 {
    let dir = tempfile::tempdir().expect("a temp dir");
    let file = regions_file(dir.path());
    let us = region_app(&file, "us").await;
    let eu = region_app(&file, "eu").await;
    let owner = crate::owner::Owner::signed_up(&us.app, "Acme", "acme", "owner@acme.test").await;
    let key = owner.api_key("residency").await;

    // Kept in a region needs exactly one region to keep them.
    for regions in [json!([]), json!(["us", "eu"])] {
        let (status, refused) = us
            .app
            .api(
                Method::POST,
                "/api/v1/surveys",
                &key,
                Some(visits(json!({"regions": regions}))),
            )
            .await;
        assert_eq!(status, 422, "{refused}");
        assert!(
            refused["fields"]["residency"]
                .as_str()
                .is_some_and(|said| said.contains("exactly one region")),
            "{refused}"
        );
    }
    let survey = us
        .app
        .published_survey(&key, visits(json!({"response_limit": 4})))
        .await;
    assert_eq!(survey["residency"], "region", "{survey}");
    // Once published, where its answers are kept stays as it was.
    for change in [json!({"residency": "home"}), json!({"regions": ["us"]})] {
        let (status, refused) = us
            .app
            .api(
                Method::PUT,
                "/api/v1/surveys/visits",
                &key,
                Some(visits(change)),
            )
            .await;
        assert_eq!(status, 422, "{refused}");
        assert!(
            refused["fields"]["residency"]
                .as_str()
                .is_some_and(|said| said.contains("cannot change once the survey was published")),
            "{refused}"
        );
    }

    // Answered in eu: a long comment goes to an incoming blob there, the rest in messages.
    let marker = "Kept-in-eu-3f9a";
    let long = format!("{marker} ").repeat(5_000);
    let given = [
        ("5", "Tea", marker.to_owned()),
        ("4", "Coffee", long),
        ("2", "Tea", format!("{marker} too slow")),
    ];
    for (stars, drink, comments) in &given {
        let answered = eu
            .app
            .answer(
                "acme",
                "visits",
                &[("overall", stars), ("drink", drink), ("comments", comments)],
            )
            .await;
        assert_eq!(answered.status(), 303);
    }
    // Nothing waits to move home: eu's own worker counts them, segments built.
    let acme = canvass::domain::TenantSlug::parse("acme").expect("a slug");
    let transfer = canvass::stores::transfer_queue(&acme);
    assert_eq!(
        eu.stores
            .operations
            .queue_length(&transfer)
            .await
            .expect("a length"),
        0
    );
    crate::helpers::settle(&eu.stores).await;

    // Home reads them from eu: the summary, a segment, the list, one response, a download,
    // the dashboard.
    let summary = |query: &'static str| {
        let path = format!("/api/v1/surveys/visits/summary{query}");
        let (app, key) = (&us.app, &key);
        async move { app.api(Method::GET, &path, key, None).await.1 }
    };
    let all = summary("").await;
    assert_eq!(all["total"], 3, "{all}");
    let tea = summary("?segment=drink:Tea").await;
    assert_eq!(tea["total"], 2, "{tea}");
    assert_eq!(tea["segment"]["complete"], true, "{tea}");
    let (_, listed) = us
        .app
        .api(Method::GET, "/api/v1/surveys/visits/responses", &key, None)
        .await;
    let references: Vec<u64> = listed["responses"]
        .as_array()
        .expect("responses")
        .iter()
        .map(|r| r["reference"].as_u64().expect("a reference"))
        .collect();
    assert_eq!(references.len(), 3, "{listed}");
    let newest = owner.page("/tenant/surveys/visits/responses/1").await;
    assert!(
        newest.contains("too slow"),
        "the newest response, read from eu"
    );
    let csv = owner.page("/tenant/surveys/visits/responses.csv").await;
    assert_eq!(
        csv.matches(marker).count(),
        5_000 + 2,
        "every comment, in full"
    );
    let dashboard = owner.page("/tenant").await;
    assert!(
        dashboard.contains(r#"data-label="Responses">3 <span class="hint">of 4</span>"#),
        "the dashboard counts them from eu"
    );
    assert!(
        !dashboard.contains("Answers on their way home"),
        "nothing of it moves home"
    );

    // Its response limit holds in eu from eu's own count: one more, then closed.
    let fourth = eu.app.answer("acme", "visits", &[("overall", "3")]).await;
    assert_eq!(fourth.status(), 303);
    crate::helpers::drain(&eu.stores).await;
    // (The site's one-second cache of the count is waited out.)
    tokio::time::sleep(std::time::Duration::from_millis(1100)).await;
    let closed = eu.app.get("/s/acme/visits").await;
    assert_eq!(closed.status(), 410, "closed at its limit of 4");

    // A deletion asked at home is applied in eu.
    let (status, _) = us
        .app
        .api(
            Method::DELETE,
            &format!("/api/v1/surveys/visits/responses/{}", references[0]),
            &key,
            None,
        )
        .await;
    assert_eq!(status, 202);
    crate::helpers::settle(&eu.stores).await;
    let all = summary("").await;
    assert_eq!(all["total"], 3, "{all}");

    // An analyst's export to PostgreSQL runs at home, reading the answers from eu.
    let database = crate::export::TestDatabase::create().await;
    let (status, requested) = us
        .app
        .api(Method::POST, "/api/v1/surveys/visits/exports", &key, None)
        .await;
    assert_eq!(status, 202, "{requested}");
    let settings = canvass::worker::WorkerSettings {
        export_database_url: Some(database.url.clone()),
        ..canvass::worker::WorkerSettings::default()
    };
    let mut worker = canvass::worker::Worker::new(us.stores.clone(), settings);
    while !matches!(
        worker.step().await.expect("a step"),
        canvass::worker::StepOutcome::QueuesEmpty
    ) {}
    assert_eq!(
        database
            .count("select count(*) from canvass.response")
            .await,
        3
    );

    // Home's workers have nothing more of it to do.
    crate::helpers::settle(&us.stores).await;

    // Not one byte of an answer at home: no comment, no reference, in any blob or queue
    // message; in eu, where they are kept, the same search finds them (the search works).
    let home = dir.path().join("us");
    let there = dir.path().join("eu");
    assert!(!files_holding(&there, marker.as_bytes()).is_empty());
    assert_eq!(
        files_holding(&home, marker.as_bytes()),
        Vec::<std::path::PathBuf>::new(),
        "an answer's words were written at home"
    );
    // The deleted response's number is in the home audit log (who deleted which), by design;
    // the others' appear nowhere at home.
    for reference in &references[1..] {
        let text = reference.to_string();
        assert!(!files_holding(&there, text.as_bytes()).is_empty());
        assert_eq!(
            files_holding(&home, text.as_bytes()),
            Vec::<std::path::PathBuf>::new(),
            "response {reference} was written at home"
        );
    }

    // Deleting the survey at home deletes its answers where they are kept.
    let slug = canvass::domain::SurveySlug::parse("visits").expect("a slug");
    let visits = us
        .stores
        .catalog
        .surveys
        .get(&acme, &slug)
        .await
        .expect("read")
        .expect("there")
        .survey_ref();
    assert!(
        !eu.stores
            .operations
            .scan(&canvass::stores::keys::summary(&visits), None)
            .await
            .expect("listed")
            .keys
            .is_empty(),
        "its summary is in eu"
    );
    let (status, _) = us
        .app
        .api(Method::DELETE, "/api/v1/surveys/visits", &key, None)
        .await;
    assert_eq!(status, 204);
    for prefix in canvass::stores::keys::survey_data_prefixes(&visits) {
        let left = eu
            .stores
            .operations
            .scan(&prefix, None)
            .await
            .expect("listed");
        assert!(left.keys.is_empty(), "left in eu: {:?}", left.keys);
    }
}

#[tokio::test]
async fn a_survey_kept_in_its_region_sends_no_webhook_and_no_email_from_either_region() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let file = regions_file(dir.path());
    let us = region_app(&file, "us").await;
    let eu = region_app(&file, "eu").await;
    let owner = crate::owner::Owner::signed_up(&us.app, "Acme", "acme", "owner@acme.test").await;
    let key = owner.api_key("residency").await;
    // At home: an endpoint, and an owner who asked for an email on each response.
    let acme = canvass::domain::TenantSlug::parse("acme").expect("a slug");
    us.stores
        .operations
        .webhooks
        .add(&acme, "https://hooks.acme.example/in")
        .await
        .expect("an endpoint");
    owner.notify("each").await;
    us.app.published_survey(&key, visits(json!({}))).await;
    for stars in ["5", "2"] {
        let sent = eu.app.answer("acme", "visits", &[("overall", stars)]).await;
        assert_eq!(sent.status(), 303);
    }

    // Counted in eu, by workers that could email; home's workers run too.
    for region in [&eu, &us] {
        crate::helpers::drain_mailing(&region.stores).await;
    }
    let (_, summary) = us
        .app
        .api(Method::GET, "/api/v1/surveys/visits/summary", &key, None)
        .await;
    assert_eq!(summary["total"], 2, "{summary}");
    let waiting = |region: &crate::regions::RegionApp| {
        let stores = region.stores.clone();
        async move {
            let mut waiting = Vec::new();
            for (role, queue) in stores.queues() {
                if matches!(role, "webhook" | "mail") {
                    waiting.push((
                        role,
                        stores
                            .operations
                            .queue_length(&queue)
                            .await
                            .expect("a length"),
                    ));
                }
            }
            waiting
        }
    };
    for (name, region) in [("eu", &eu), ("us", &us)] {
        assert_eq!(
            waiting(region).await,
            [("mail", 0), ("webhook", 0)],
            "{name}"
        );
    }
    // The same tenant's survey answered at home is announced both ways: what was looked for
    // above would have been seen.
    let mut at_home = visits(json!({}));
    at_home["title"] = json!("At home");
    at_home["regions"] = json!([]);
    at_home["residency"] = json!("home");
    us.app.published_survey(&key, at_home).await;
    let sent = us.app.answer("acme", "at-home", &[("overall", "4")]).await;
    assert_eq!(sent.status(), 303);
    crate::helpers::drain_mailing(&us.stores).await;
    assert_eq!(waiting(&us).await, [("mail", 1), ("webhook", 1)]);
}
