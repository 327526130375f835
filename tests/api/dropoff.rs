//! Where respondents stop, over HTTP: openings, the first page left, each later page reached
//! (once per respondent, whatever Back and Next they press) and responses sent, on the
//! summary page and in the API; the counts reach storage in a merge (here, the one a stopping
//! server makes), not one write per page view.

use std::time::{Duration, Instant};

use canvass::storage::Operation;
use reqwest::Method;
use serde_json::json;

use crate::helpers::{TestApp, drain, spawn_app, token_in};
use crate::owner::Owner;

/// Posts a page of the survey with a form's token.
async fn post(app: &TestApp, token: &str, page: &str, nav: &str, fields: &[(&str, &str)]) -> u16 {
    let mut pairs = vec![
        ("token".to_owned(), token.to_owned()),
        ("page".to_owned(), page.to_owned()),
        ("nav".to_owned(), nav.to_owned()),
    ];
    pairs.extend(
        fields
            .iter()
            .map(|(q, v)| (format!("q-{q}"), (*v).to_owned())),
    );
    app.client
        .post(format!("{}/s/acme/three", app.address))
        .form(&pairs)
        .send()
        .await
        .expect("answered")
        .status()
        .as_u16()
}

#[tokio::test]
async fn the_summary_shows_how_many_opened_left_page_one_reached_each_page_and_sent() {
    let app = spawn_app().await;
    let owner = Owner::signed_up(&app, "Acme", "acme", "owner@acme.test").await;
    let key = owner.api_key("dropoff").await;
    app.published_survey(
        &key,
        json!({"title": "Three", "pages": [
            {"questions": [{"id": "name", "text": "Name?", "type": "short_text", "required": true}],
             "jumps": [{"if": {"question": "name", "equals": "Skip"}, "to": 2}]},
            {"questions": [{"id": "a", "text": "A?", "type": "short_text"}]},
            {"questions": [{"id": "b", "text": "B?", "type": "short_text"}]}]}),
    )
    .await;

    // Ada goes through every page, back and forth on the way, and sends; moving between
    // pages writes nothing to storage (the counts stay in memory until a merge).
    let ada = token_in(&app.form("acme", "three").await);
    let before = app.storage.transactions();
    assert_eq!(post(&app, &ada, "0", "next", &[("name", "Ada")]).await, 200);
    assert_eq!(post(&app, &ada, "1", "back", &[("name", "Ada")]).await, 200);
    assert_eq!(post(&app, &ada, "0", "next", &[("name", "Ada")]).await, 200);
    assert_eq!(post(&app, &ada, "1", "next", &[("name", "Ada")]).await, 200);
    let moving = app.storage.transactions().since(&before);
    for write in [Operation::Put, Operation::Add, Operation::Delete] {
        assert_eq!(
            moving.of(write),
            0,
            "{write:?} while moving between pages: {moving:?}"
        );
    }
    assert_eq!(post(&app, &ada, "2", "next", &[("name", "Ada")]).await, 303);
    // Bo's answer jumps past page 2; Bo stops on page 3.
    let bo = token_in(&app.form("acme", "three").await);
    assert_eq!(post(&app, &bo, "0", "next", &[("name", "Skip")]).await, 200);
    // Cy opens it twice (a reload) and stops; Di's first page is refused (no name).
    let _ = app.form("acme", "three").await;
    let di = token_in(&app.form("acme", "three").await);
    assert_eq!(post(&app, &di, "0", "next", &[]).await, 422);
    drain(&app.stores().await).await;

    let (status, dropoff) = app
        .api(Method::GET, "/api/v1/surveys/three/dropoff", &key, None)
        .await;
    assert_eq!(status, 200, "{dropoff}");
    assert_eq!(
        dropoff,
        json!({"opened": 4, "started": 2, "sent": 1, "unread_regions": [],
               "pages": [{"page": 2, "reached": 1}, {"page": 3, "reached": 2}]})
    );
    let page = owner.page("/tenant/surveys/three/summary").await;
    for said in [
        "Where respondents stop",
        r#"<th scope="row" class="label">Opened</th>"#,
        "<td class=\"value\">2 (50.0%)</td>",
        r#"<th scope="row" class="label">Reached page 3</th>"#,
        r#"<th scope="row" class="label">Sent</th>"#,
        "<td class=\"value\">1 (25.0%)</td>",
    ] {
        assert!(page.contains(said), "{said} in {page}");
    }

    // The counts reach storage when the server merges (every 10 s, and as it stops).
    let stores = app.stores().await;
    let survey = stores
        .catalog
        .surveys
        .get(
            &canvass::domain::TenantSlug::parse("acme").expect("a slug"),
            &canvass::domain::SurveySlug::parse("three").expect("a slug"),
        )
        .await
        .expect("read")
        .expect("there")
        .survey_ref();
    app.stop().await;
    let started = Instant::now();
    loop {
        let stored = stores.answering.funnels.read(&survey).await.expect("read");
        if stored.opened > 0 {
            assert_eq!((stored.opened, stored.started), (4, 2));
            assert_eq!(stored.reached.get(&2), Some(&2));
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "the stopping server merges its counts"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test]
async fn the_counts_of_a_deleted_survey_are_swept_and_never_merged_again() {
    let app = spawn_app().await;
    let key = app.api_tenant("acme").await;
    let created = app
        .published_survey(
            &key,
            json!({"title": "Three", "questions": [{"id": "a", "text": "A?", "type": "short_text"}]}),
        )
        .await;
    let survey = canvass::domain::SurveyRef {
        tenant: canvass::domain::TenantSlug::parse("acme").expect("a slug"),
        slug: canvass::domain::SurveySlug::parse("three").expect("a slug"),
        id: canvass::domain::SurveyId::parse(created["id"].as_str().expect("an id"))
            .expect("an id"),
    };
    let stores = app.stores().await;
    let counted = canvass::domain::funnel::Funnel {
        opened: 3,
        ..Default::default()
    };
    stores
        .answering
        .funnels
        .add(&survey, &counted)
        .await
        .expect("merged");
    let _ = app.form("acme", "three").await;
    let (status, _) = app
        .api(Method::DELETE, "/api/v1/surveys/three", &key, None)
        .await;
    assert_eq!(status, 204);
    let funnels = &stores.answering.funnels;
    assert!(
        funnels.read(&survey).await.expect("read").is_empty(),
        "deleted with the survey"
    );
    // Counts merged into a deleted survey's (a merge racing the deletion) are swept.
    app.stop().await;
    funnels
        .add(&survey, &counted)
        .await
        .expect("a leftover, as a race would leave");
    let later = std::time::SystemTime::now() + Duration::from_secs(1);
    let swept = canvass::worker::sweeps::sweep_funnels(&stores, later).await;
    assert_eq!(swept.expect("a sweep"), 1);
    assert!(funnels.read(&survey).await.expect("read").is_empty());
}
