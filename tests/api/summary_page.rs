//! The summary page as an owner reads it: a number question's chart stays a dozen bars or
//! fewer of one even width whatever its range, with every value on demand and the median beside the mean.

use serde_json::json;

use crate::helpers::{drain, spawn_app};
use crate::owner::{Owner, between};

#[tokio::test]
async fn a_number_chart_folds_values_into_even_ranges_and_lists_every_value_on_demand() {
    let app = spawn_app().await;
    let owner = Owner::signed_up(&app, "Acme", "acme", "owner@acme.test").await;
    let key = owner.api_key("setup").await;
    let survey = app
        .published_survey(
            &key,
            json!({"title": "Waits", "questions": [{"id": "wait", "text": "Minutes waited",
                "type": "numeric", "min": 0, "max": 60, "integer": true}]}),
        )
        .await;
    assert_eq!(survey["slug"], "waits");
    for minutes in ["5", "5", "10", "30", "30", "30", "30", "60"] {
        let response = app.answer("acme", "waits", &[("wait", minutes)]).await;
        assert_eq!(response.status(), 303);
    }
    drain(&app.stores().await).await;
    let page = owner.page("/tenant/surveys/waits/summary").await;
    // The question's chart (the drop-off's comes first on the page).
    let question = &page[page
        .find("question-summary")
        .expect("the question's section")..];
    let chart = between(question, r#"<table class="chart">"#, "</table>");
    let bars: Vec<String> = chart
        .split(r#"<th scope="row" class="label">"#)
        .skip(1)
        .map(|row| row[..row.find('<').expect("a label")].to_owned())
        .collect();
    assert_eq!(
        bars,
        [
            "0 to 9", "10 to 19", "20 to 29", "30 to 39", "40 to 49", "50 to 59", "60"
        ],
        "61 possible values in 7 bars of an even width"
    );
    let every = between(&page, "<summary>Show every value</summary>", "</details>");
    for row in [
        "<td>5</td><td>2</td>",
        "<td>10</td><td>1</td>",
        "<td>30</td><td>4</td>",
        "<td>60</td><td>1</td>",
    ] {
        assert!(every.contains(row), "{row} in {every}");
    }
    assert!(
        page.contains("<dt>Median</dt><dd>30</dd>"),
        "the median of 5 5 10 30 30 30 30 60: {page}"
    );
    // The JSON keeps the exact count of every value.
    let (_, summary) = app
        .api(
            reqwest::Method::GET,
            "/api/v1/surveys/waits/summary",
            &key,
            None,
        )
        .await;
    let histogram = summary["questions"][0]["histogram"]
        .as_array()
        .unwrap_or_else(|| panic!("bins in {summary}"))
        .len();
    assert_eq!(histogram, 61, "{summary}");
}
