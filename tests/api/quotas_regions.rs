//! A quota counts its places in every region its survey is answered in, and moving the
//! survey between regions neither restarts nor doubles them: the places are kept with the
//! survey's answers (at its tenant's home), whichever region's site takes the answer. Two
//! regions on one machine; respondents of both race for the last places.

use reqwest::Method;
use serde_json::{Value, json};

use crate::helpers::token_in;
use crate::regions::{RegionApp, counted_at_home, move_once, region_app, regions_file};

/// The survey, answered in `regions`, with a quota of 4 tea drinkers.
fn lunch(regions: &[&str]) -> Value {
    json!({
        "title": "Lunch", "regions": regions,
        "questions": [{"id": "drink", "text": "What do you drink?", "type": "single_choice",
                       "options": ["Tea", "Coffee"], "required": true}],
        "quotas": [{"id": "tea", "name": "Tea drinkers", "limit": 4,
                    "when": {"question": "drink", "equals": "Tea"}}]
    })
}

/// A tea drinker answers in `region`: thanked (303) or ended by the full quota (200).
async fn tea_in(region: &RegionApp) -> u16 {
    let token = token_in(&region.app.form("acme", "lunch").await);
    let sent = region
        .app
        .submit("acme", "lunch", &token, &[("drink", "Tea")])
        .await;
    sent.status().as_u16()
}

/// Moves the survey to `regions`, as its owner does over the API.
async fn answer_in(home: &RegionApp, key: &str, regions: &[&str]) {
    let (status, body) = home
        .app
        .api(
            Method::PUT,
            "/api/v1/surveys/lunch",
            key,
            Some(lunch(regions)),
        )
        .await;
    assert_eq!(status, 200, "{body}");
}

async fn placed(home: &RegionApp, key: &str) -> Value {
    let (_, quotas) = home
        .app
        .api(Method::GET, "/api/v1/surveys/lunch/quotas", key, None)
        .await;
    quotas[0]["placed"].clone()
}

#[tokio::test]
async fn a_quota_counts_every_place_wherever_and_whenever_its_survey_was_answered() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let file = regions_file(dir.path());
    let us = region_app(&file, "us").await;
    let eu = region_app(&file, "eu").await;
    let owner = crate::owner::Owner::signed_up(&us.app, "Acme", "acme", "owner@acme.test").await;
    let key = owner.api_key("quotas").await;
    us.app.published_survey(&key, lunch(&["eu"])).await;

    // Answered in eu, then at home: one quota, its places counted in both.
    assert_eq!(tea_in(&eu).await, 303);
    assert_eq!(
        placed(&us, &key).await,
        1,
        "a place taken in eu is counted at home"
    );
    answer_in(&us, &key, &["us"]).await;
    assert_eq!(tea_in(&us).await, 303);
    assert_eq!(
        placed(&us, &key).await,
        2,
        "moving home did not restart the places"
    );

    // Answered in both at once: six tea drinkers race for the last two places.
    answer_in(&us, &key, &["us", "eu"]).await;
    let racing = (0..6).map(|n| {
        let region = if n % 2 == 0 { &us } else { &eu };
        tea_in(region)
    });
    let statuses = futures_util::future::join_all(racing).await;
    let thanked = statuses.iter().filter(|status| **status == 303).count();
    assert_eq!(thanked, 2, "{statuses:?}");
    assert!(
        statuses.iter().all(|status| matches!(status, 200 | 303)),
        "{statuses:?}"
    );

    // Back in eu alone: still full.
    answer_in(&us, &key, &["eu"]).await;
    assert_eq!(
        tea_in(&eu).await,
        200,
        "the full quota ends a tea drinker in eu"
    );
    assert_eq!(placed(&us, &key).await, 4);
    assert!(move_once(&eu).await >= 1);
    assert_eq!(counted_at_home(&us, &key, "lunch").await, 4);
}
