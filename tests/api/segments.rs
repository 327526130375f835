//! Segments: a survey's results sliced by one answer, exactly. Summaries and pages of responses
//! per segment over the API and on the site; a segment marked after answers exist built from
//! them; deletions taken out of segments.

use serde_json::{Value, json};

use crate::helpers::{TestApp, drain, settle, spawn_app};
use crate::owner::Owner;

async fn answer(app: &TestApp, pairs: &[(&str, &str)]) -> u64 {
    let response = app.answer("acme", "trips", pairs).await;
    assert_eq!(response.status(), 303, "{pairs:?}");
    let location = response.headers()["location"].to_str().expect("ascii");
    crate::helpers::reference_in(location)
}

async fn get(app: &TestApp, key: &str, path: &str) -> (u16, Value) {
    app.api(reqwest::Method::GET, path, key, None).await
}

/// The references of every page of a list of responses, newest first, and its total.
async fn listed(app: &TestApp, key: &str, query: &str) -> (u64, Vec<u64>) {
    let mut all = Vec::new();
    let mut page = 1;
    loop {
        let path = format!("/api/v1/surveys/trips/responses?page={page}{query}");
        let (status, body) = get(app, key, &path).await;
        assert_eq!(status, 200, "{path}: {body}");
        all.extend(
            body["responses"]
                .as_array()
                .expect("responses")
                .iter()
                .map(|r| r["reference"].as_u64().expect("a reference")),
        );
        if page >= body["pages"].as_u64().expect("pages") {
            return (body["total"].as_u64().expect("a total"), all);
        }
        page += 1;
    }
}

fn definition(ids: &[String], rating_segment: bool) -> Value {
    json!({"title": "Trips", "questions": [
        {"id": ids[0], "text": "Where did you go?", "type": "single_choice",
         "options": ["Beach", "Hills", "City"], "segment": true},
        {"id": ids[1], "text": "How was it?", "type": "five_stars", "segment": rating_segment},
        {"id": ids[2], "text": "Nights", "type": "numeric"}]})
}

/// The trips survey published over the API (place a segment question): an API key and the
/// question ids.
async fn published(app: &TestApp) -> (String, Vec<String>) {
    let key = app.api_key("acme").await;
    let ids = ["place".into(), "rating".into(), "nights".into()];
    let survey = app.published_survey(&key, definition(&ids, false)).await;
    (key, crate::helpers::ids(&survey))
}

#[tokio::test]
async fn a_segment_has_exact_statistics_and_its_own_pages_even_when_marked_after_answers() {
    let app = spawn_app().await;
    let _owner = Owner::signed_up(&app, "Acme", "acme", "a@acme.test").await;
    let (key, q) = published(&app).await;
    let stores = app.stores().await;
    let places = ["Beach", "Hills", "Beach", "City", "Beach"];
    let mut given: Vec<(u64, &str, u64, u64)> = Vec::new();
    for n in 0..30u64 {
        let place = places[n as usize % places.len()];
        let (stars, nights) = (1 + n % 5, n % 7);
        let reference = answer(
            &app,
            &[
                (&q[0], place),
                (&q[1], &stars.to_string()),
                (&q[2], &nights.to_string()),
            ],
        )
        .await;
        given.push((reference, place, stars, nights));
    }
    drain(&stores).await;

    let (status, beach) = get(
        &app,
        &key,
        "/api/v1/surveys/trips/summary?segment=place:Beach",
    )
    .await;
    assert_eq!(status, 200, "{beach}");
    let beaches: Vec<&(u64, &str, u64, u64)> = given.iter().filter(|g| g.1 == "Beach").collect();
    assert_eq!(beach["total"], beaches.len() as u64);
    assert_eq!(beach["segment"]["id"], "place:Beach");
    assert_eq!(beach["segment"]["complete"], true);
    let mean = beaches.iter().map(|g| g.3 as f64).sum::<f64>() / beaches.len() as f64;
    let nights = &beach["questions"][2];
    assert!(
        (nights["mean"].as_f64().expect("a mean") - mean).abs() < 1e-9,
        "{nights}"
    );
    let counts: Vec<u64> = beach["segments"]
        .as_array()
        .expect("every segment listed")
        .iter()
        .map(|s| s["total"].as_u64().expect("a count"))
        .collect();
    assert_eq!(
        counts,
        [18, 6, 6],
        "Beach, Hills, City: {}",
        beach["segments"]
    );
    let (total, references) = listed(&app, &key, "&segment=place:Beach").await;
    let newest_first: Vec<u64> = beaches.iter().rev().map(|g| g.0).collect();
    assert_eq!((total, &references), (18, &newest_first));
    let (total, _) = listed(
        &app,
        &key,
        "&segment=place:City&from=2000-01-01&to=2000-01-31",
    )
    .await;
    assert_eq!(total, 0, "a segment and a date range together");
    let today = time::OffsetDateTime::now_utc().date().to_string();
    let (total, city) = listed(&app, &key, &format!("&segment=place:City&from={today}")).await;
    assert_eq!((total, city.len()), (6, 6));

    for bad in [
        "segment=place",
        "segment=nights:3",
        "segment=rating:5",
        "segment=place:Moon",
        "segment=gone:Beach",
    ] {
        for path in ["summary", "responses"] {
            let (status, body) =
                get(&app, &key, &format!("/api/v1/surveys/trips/{path}?{bad}")).await;
            assert_eq!(status, 400, "{path}?{bad}: {body}");
            assert!(body["error"].as_str().is_some_and(|e| !e.is_empty()));
        }
    }

    // Stars become a segment after 30 answers: new answers count at once, the 30 earlier ones
    // once the build has run.
    let (status, body) = app
        .api(
            reqwest::Method::PUT,
            "/api/v1/surveys/trips",
            &key,
            Some(definition(&q, true)),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    let later = answer(&app, &[(&q[0], "Hills"), (&q[1], "5")]).await;
    // A worker that has read the new definition (this one's cache is fresh) starts the
    // segments with its next commit, before the build has run.
    drain(&app.stores().await).await;
    let (_, five) = get(&app, &key, "/api/v1/surveys/trips/summary?segment=rating:5").await;
    assert_eq!(five["segment"]["complete"], false, "{five}");
    assert_eq!(five["total"], 1, "only the answer since: {five}");
    settle(&stores).await;
    let (_, five) = get(&app, &key, "/api/v1/surveys/trips/summary?segment=rating:5").await;
    let fives: Vec<u64> = given.iter().filter(|g| g.2 == 5).map(|g| g.0).collect();
    assert_eq!(five["segment"]["complete"], true, "{five}");
    assert_eq!(five["total"], fives.len() as u64 + 1);
    // The build reported its way to the end (what the pages show while it runs).
    let trips = stores
        .catalog
        .surveys
        .get(
            &canvass::domain::TenantSlug::parse("acme").expect("a slug"),
            &canvass::domain::SurveySlug::parse("trips").expect("a slug"),
        )
        .await
        .expect("read")
        .expect("the survey");
    let progress = stores
        .operations
        .segments
        .progress(&trips.survey_ref())
        .await
        .expect("read");
    let rating = &progress[&canvass::domain::segment::SegmentKey::parse("rating").expect("a key")];
    assert_eq!((rating.done, rating.of), (30, 30));
    let (total, references) = listed(&app, &key, "&segment=rating:5").await;
    let mut expected = vec![later];
    expected.extend(fives.iter().rev());
    assert_eq!(
        (total, references),
        (7, expected),
        "built entries come first in the list"
    );

    // A deleted response leaves its segments.
    let gone = beaches[0].0;
    let (status, _) = app
        .api(
            reqwest::Method::DELETE,
            &format!("/api/v1/surveys/trips/responses/{gone}"),
            &key,
            None,
        )
        .await;
    assert_eq!(status, 202);
    settle(&stores).await;
    let (_, beach) = get(
        &app,
        &key,
        "/api/v1/surveys/trips/summary?segment=place:Beach",
    )
    .await;
    assert_eq!(beach["total"], 17);
    assert!(beach.get("recounting").is_none(), "recounted: {beach}");
    let low = beaches[1..].iter().map(|g| g.3).min().expect("some");
    assert_eq!(beach["questions"][2]["min"], low as f64);
    let (total, references) = listed(&app, &key, "&segment=place:Beach").await;
    assert_eq!(total, 17);
    assert!(!references.contains(&gone));

    // No longer a segment question: its filter is refused, its segments no longer listed.
    let (status, _) = app
        .api(
            reqwest::Method::PUT,
            "/api/v1/surveys/trips",
            &key,
            Some(definition(&q, false)),
        )
        .await;
    assert_eq!(status, 200);
    settle(&stores).await;
    let (status, _) = get(&app, &key, "/api/v1/surveys/trips/summary?segment=rating:5").await;
    assert_eq!(status, 400);
    let (_, all) = get(&app, &key, "/api/v1/surveys/trips/summary").await;
    assert_eq!(all["segments"].as_array().map(Vec::len), Some(3));
    let doc = stores
        .answering
        .summaries
        .read(&trips.survey_ref())
        .await
        .expect("the summary")
        .doc;
    assert_eq!(
        doc.segments.len(),
        1,
        "the summary keeps only segment questions' segments"
    );
}

#[tokio::test]
async fn only_three_choice_type_questions_may_be_segments() {
    let app = spawn_app().await;
    let _owner = Owner::signed_up(&app, "Acme", "acme", "a@acme.test").await;
    let key = app.api_key("acme").await;
    let marked =
        |kind: &str| json!({"text": "Q", "type": kind, "options": ["A", "B"], "segment": true});
    for (questions, problem) in [
        (
            vec![
                marked("single_choice"),
                marked("nps"),
                marked("dropdown"),
                marked("five_stars"),
            ],
            "at most 3 segment questions",
        ),
        (vec![marked("short_text")], "can be a segment"),
    ] {
        let (status, body) = app
            .api(
                reqwest::Method::POST,
                "/api/v1/surveys",
                &key,
                Some(json!({"title": "Too many", "questions": questions})),
            )
            .await;
        assert_eq!(status, 422, "{body}");
        assert!(body.to_string().contains(problem), "{body}");
    }
}

#[tokio::test]
async fn the_summary_and_responses_pages_show_one_segment() {
    let app = spawn_app().await;
    let owner = Owner::signed_up(&app, "Acme", "acme", "a@acme.test").await;
    let (_key, q) = published(&app).await;
    let mut beach = Vec::new();
    for place in ["Beach", "Hills", "Beach"] {
        let reference = answer(&app, &[(&q[0], place)]).await;
        if place == "Beach" {
            beach.push(reference);
        }
    }
    drain(&app.stores().await).await;

    let page = owner
        .page("/tenant/surveys/trips/summary?segment=place%3ABeach")
        .await;
    assert!(page.contains("Respondents who answered"), "{page}");
    assert!(
        page.contains(r#"<option value="place:Beach" selected>Beach (2)</option>"#),
        "{page}"
    );
    let page = owner
        .page("/tenant/surveys/trips/responses?segment=place%3ABeach")
        .await;
    for reference in &beach {
        assert!(
            page.contains(&format!("/responses/ref/{reference}")),
            "{page}"
        );
    }
    assert!(
        page.contains("2 responses matching these filters"),
        "{page}"
    );
    let page = owner
        .page("/tenant/surveys/trips/summary?segment=place%3AMoon")
        .await;
    assert!(
        page.contains("names a segment this survey does not have"),
        "{page}"
    );
}
