//! The question types of the second wave (`dropdown`, `nps`, `scale`, `date`) end to end: made
//! over the API, shown in the form, checked when answered, summarised exactly (the Net
//! Promoter Score, a count per point, a count per day), and exported to CSV and PostgreSQL.

use reqwest::Method;
use serde_json::{Value, json};

use crate::export::{TestDatabase, work};
use crate::helpers::{TestApp, drain, spawn_app, token_in};
use crate::owner::Owner;

/// Answers survey `slug` of the tenant of the same name with a fresh form: status and page.
async fn answer(app: &TestApp, slug: &str, answers: Vec<(&str, &str)>) -> (u16, String) {
    let token = token_in(&app.form(slug, slug).await);
    let response = app.submit(slug, slug, &token, &answers).await;
    let status = response.status().as_u16();
    (status, response.text().await.unwrap_or_default())
}

/// Creates a survey of one question over the API, which must refuse it; the error body.
async fn refused(app: &TestApp, key: &str, question: Value) -> Value {
    let definition = json!({"title": "T", "questions": [question]});
    let (status, body) = app
        .api(Method::POST, "/api/v1/surveys", key, Some(definition))
        .await;
    assert_eq!(status, 422, "{body}");
    body
}

fn definition() -> Value {
    json!({"title": "Types", "questions": [
        {"id": "branch", "text": "Which branch?", "type": "dropdown", "required": true,
         "options": ["North", "South", "East", "West"]},
        {"id": "recommend", "text": "Would you recommend us?", "type": "nps", "required": true},
        {"id": "agree", "text": "The staff were friendly.", "type": "scale", "required": false,
         "points": 5, "min_label": "Strongly disagree", "max_label": "Strongly agree"},
        {"id": "visited", "text": "When did you visit?", "type": "date", "required": false,
         "earliest": "2026-01-01", "latest": "2026-12-31"}
    ]})
}

#[tokio::test]
async fn each_new_type_is_shown_checked_summarised_and_exported_exactly() {
    let app = spawn_app().await;
    let owner = Owner::signed_up(&app, "Types", "types", "owner@types.test").await;
    let key = app.api_key("types").await;
    let survey = app.published_survey(&key, definition()).await;
    assert_eq!(survey["questions"][2]["points"], 5);
    assert_eq!(survey["questions"][3]["earliest"], "2026-01-01");

    let form = app.form("types", "types").await;
    assert!(
        form.contains(r#"<select id="q-branch" name="q-branch" required>"#),
        "{form}"
    );
    assert!(form.contains(r#"<option value="West">West</option>"#));
    for point in 0..=10 {
        assert!(
            form.contains(&format!(r#"name="q-recommend" value="{point}""#)),
            "{point}"
        );
    }
    assert!(form.contains("0 = Not at all likely"), "{form}");
    assert!(form.contains("10 = Extremely likely"));
    assert!(form.contains("1 = Strongly disagree"));
    assert!(form.contains("5 = Strongly agree"));
    assert!(!form.contains(r#"name="q-agree" value="6""#));
    assert!(
        form.contains(r#"type="date" min="2026-01-01" max="2026-12-31""#),
        "{form}"
    );

    let send = |answers: Vec<(&'static str, &'static str)>| answer(&app, "types", answers);
    for (answers, message) in [
        (
            vec![("branch", "Up"), ("recommend", "5")],
            "Please choose one of the options listed.",
        ),
        (
            vec![("branch", "North"), ("recommend", "11")],
            "Please choose a point from 0 to 10.",
        ),
        (
            vec![("branch", "North"), ("recommend", "5"), ("agree", "6")],
            "Please choose a point from 1 to 5.",
        ),
        (
            vec![
                ("branch", "North"),
                ("recommend", "5"),
                ("visited", "2026-13-01"),
            ],
            "Please enter a date, like 2026-07-14.",
        ),
        (
            vec![
                ("branch", "North"),
                ("recommend", "5"),
                ("visited", "2025-12-31"),
            ],
            "Please enter 2026-01-01 or later.",
        ),
    ] {
        let (status, page) = send(answers.clone()).await;
        assert_eq!(status, 422, "{answers:?}");
        assert!(page.contains(message), "{answers:?}: {message}");
    }
    for answers in [
        vec![
            ("branch", "North"),
            ("recommend", "10"),
            ("agree", "4"),
            ("visited", "2026-06-01"),
        ],
        vec![
            ("branch", "North"),
            ("recommend", "9"),
            ("agree", "5"),
            ("visited", "2026-06-01"),
        ],
        vec![
            ("branch", "West"),
            ("recommend", "3"),
            ("agree", "5"),
            ("visited", "2026-06-03"),
        ],
    ] {
        let (status, _) = send(answers).await;
        assert_eq!(status, 303);
    }
    let db = TestDatabase::create().await;
    work(&app, &db.url).await;

    let (_, summary) = app
        .api(Method::GET, "/api/v1/surveys/types/summary", &key, None)
        .await;
    let question = |id: &str| {
        summary["questions"]
            .as_array()
            .unwrap_or_else(|| panic!("questions in {summary}"))
            .iter()
            .find(|q| q["id"] == id)
            .cloned()
            .expect("the question")
    };
    let counts = |q: &Value| -> Vec<u64> {
        q["histogram"]
            .as_array()
            .expect("a histogram")
            .iter()
            .map(|bin| bin["count"].as_u64().expect("a count"))
            .collect()
    };
    let branch = question("branch");
    assert_eq!(branch["type"], "dropdown");
    assert_eq!(
        branch["options"],
        json!([{"option": "North", "count": 2}, {"option": "South", "count": 0},
               {"option": "East", "count": 0}, {"option": "West", "count": 1}])
    );
    let recommend = question("recommend");
    // Two promoters (10, 9) and one detractor (3) of three: 100 × (2 - 1) / 3.
    let nps = recommend["nps"].as_f64().expect("a score");
    assert!((nps - 100.0 / 3.0).abs() < 1e-9, "{nps}");
    assert_eq!(counts(&recommend), [0, 0, 0, 1, 0, 0, 0, 0, 0, 1, 1]);
    let agree = question("agree");
    assert_eq!(counts(&agree), [0, 0, 0, 1, 2]);
    assert!((agree["mean"].as_f64().expect("a mean") - 14.0 / 3.0).abs() < 1e-9);
    assert!(agree.get("nps").is_none(), "a scale has no NPS");
    assert_eq!(
        question("visited")["days"],
        json!([{"day": "2026-06-01", "count": 2}, {"day": "2026-06-03", "count": 1}])
    );

    let page = owner.page("/tenant/surveys/types/summary").await;
    assert!(page.contains("Net Promoter Score"), "{page}");
    for split in [
        "<dt>Promoters (9 to 10)</dt><dd>2 (66.7%)</dd>",
        "<dt>Passives (7 to 8)</dt><dd>0 (0.0%)</dd>",
        "<dt>Detractors (0 to 6)</dt><dd>1 (33.3%)</dd>",
    ] {
        assert!(page.contains(split), "{split}: {page}");
    }
    assert!(page.contains("2026-06-03"));
    let csv = owner.page("/tenant/surveys/types/responses.csv").await;
    assert!(csv.contains("West,3,5,2026-06-03"), "{csv}");

    // PostgreSQL: a point is a number, a date a date; the question says what its scale is.
    let (status, requested) = app
        .api(Method::POST, "/api/v1/surveys/types/exports", &key, None)
        .await;
    assert_eq!(status, 202, "{requested}");
    work(&app, &db.url).await;
    let mut connection = db.connect().await;
    // Question, number, date, choice.
    type Row = (String, Option<f64>, Option<String>, Option<String>);
    let rows: Vec<Row> = sqlx::query_as(
        "select question, number, date::text, choice from canvass.answer \
         where survey = 'types' and reference = (select min(reference) from canvass.answer) \
         order by question",
    )
    .fetch_all(&mut connection)
    .await
    .expect("read");
    assert_eq!(
        rows,
        [
            ("agree".into(), Some(4.0), None, None),
            ("branch".into(), None, None, Some("North".into())),
            ("recommend".into(), Some(10.0), None, None),
            ("visited".into(), None, Some("2026-06-01".into()), None),
        ]
    );
    let scale: (Option<i32>, Option<String>, Option<String>) = sqlx::query_as(
        "select points, min_label, earliest::text from canvass.question where question = 'agree'",
    )
    .fetch_one(&mut connection)
    .await
    .expect("read");
    assert_eq!(scale, (Some(5), Some("Strongly disagree".into()), None));
    let visited: Option<String> = sqlx::query_scalar(
        "select earliest::text from canvass.question where question = 'visited'",
    )
    .fetch_one(&mut connection)
    .await
    .expect("read");
    assert_eq!(visited.as_deref(), Some("2026-01-01"));
}

#[tokio::test]
async fn a_scale_or_date_defined_wrongly_is_refused_at_its_field() {
    let app = spawn_app().await;
    let key = app.api_tenant("types").await;
    for (question, field, message) in [
        (
            json!({"text": "S", "type": "scale", "points": 2}),
            "questions[0].points",
            "a scale has 3 to 10 points",
        ),
        (
            json!({"text": "S", "type": "scale", "points": 11}),
            "questions[0].points",
            "a scale has 3 to 10 points",
        ),
        (
            json!({"text": "D", "type": "date", "earliest": "01/02/2026"}),
            "questions[0].earliest",
            "YYYY-MM-DD",
        ),
        (
            json!({"text": "D", "type": "date", "earliest": "2026-05-01", "latest": "2026-04-01"}),
            "questions[0].latest",
            "must not be before",
        ),
        (
            json!({"text": "L", "type": "dropdown", "options": ["Only"]}),
            "questions[0].options",
            "2 to 50 options",
        ),
    ] {
        let body = refused(&app, &key, question).await;
        let said = body["fields"][field].as_str().unwrap_or_default();
        assert!(said.contains(message), "{field}: {body}");
    }
}

#[tokio::test]
async fn whole_numbers_in_a_small_range_get_a_bar_each_and_wider_ones_bins_named_by_what_they_hold()
{
    let app = spawn_app().await;
    let owner = Owner::signed_up(&app, "Numbers", "numbers", "owner@numbers.test").await;
    let key = app.api_key("numbers").await;
    app.published_survey(
        &key,
        json!({"title": "Numbers", "questions": [
            {"id": "score", "text": "Score?", "type": "numeric", "min": 0, "max": 10, "integer": true},
            {"id": "guests", "text": "Guests?", "type": "numeric", "min": 0, "max": 1000, "integer": true},
            {"id": "ratio", "text": "Ratio?", "type": "numeric"}
        ]}),
    )
    .await;
    for (score, guests, ratio) in [("3", "3", "0.3"), ("3", "4", "2.5"), ("10", "120", "7")] {
        let token = token_in(&app.form("numbers", "numbers").await);
        let sent = app
            .submit(
                "numbers",
                "numbers",
                &token,
                &[("score", score), ("guests", guests), ("ratio", ratio)],
            )
            .await;
        assert_eq!(sent.status(), 303);
    }
    let db = TestDatabase::create().await;
    work(&app, &db.url).await;

    let (_, summary) = app
        .api(Method::GET, "/api/v1/surveys/numbers/summary", &key, None)
        .await;
    let bars = |index: usize| -> Vec<(String, u64)> {
        summary["questions"][index]["histogram"]
            .as_array()
            .unwrap_or_else(|| panic!("a histogram in {summary}"))
            .iter()
            .map(|bin| {
                (
                    bin["label"].as_str().expect("a label").to_owned(),
                    bin["count"].as_u64().expect("a count"),
                )
            })
            .collect()
    };
    let score: Vec<(String, u64)> = (0..=10)
        .map(|n| (n.to_string(), [0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 1][n]))
        .collect();
    assert_eq!(bars(0), score, "0 to 10: a bar for every value");
    assert_eq!(
        bars(1),
        [("2 to 4".to_owned(), 2), ("100 to 199".to_owned(), 1)],
        "0 to 1000: bins, named by the whole numbers they hold"
    );
    assert_eq!(
        bars(2),
        [
            ("0.2 to under 0.5".to_owned(), 1),
            ("2 to under 5".to_owned(), 1),
            ("5 to under 10".to_owned(), 1)
        ]
    );
    let page = owner.page("/tenant/surveys/numbers/summary").await;
    assert!(page.contains("100 to 199"), "{page}");
}

#[tokio::test]
async fn other_please_specify_is_counted_as_other_with_its_words_and_exported_with_its_text() {
    let app = spawn_app().await;
    let owner = Owner::signed_up(&app, "Others", "others", "owner@others.test").await;
    let key = app.api_key("others").await;
    let survey = app
        .published_survey(
            &key,
            json!({"title": "Others", "questions": [
                {"id": "travel", "text": "How did you come?", "type": "single_choice", "required": true,
                 "options": ["Car", "Train"], "other": true},
                {"id": "extras", "text": "What else did you use?", "type": "multiple_choice",
                 "options": ["Parking", "Lockers"], "other": true},
                {"id": "walked", "text": "How far?", "type": "short_text",
                 "show_if": {"question": "travel", "equals": "Other"}}
            ]}),
        )
        .await;
    assert_eq!(survey["questions"][0]["other"], true);
    let form = app.form("others", "others").await;
    assert!(form.contains(r#"name="q-travel" value="Other""#), "{form}");
    assert!(
        form.contains(r#"name="q-travel.other" type="text""#),
        "{form}"
    );

    let send = |answers: Vec<(&'static str, &'static str)>| answer(&app, "others", answers);
    let (status, page) = send(vec![("travel", "Other")]).await;
    assert_eq!(status, 422);
    assert!(
        page.contains("Please say what you mean by &#34;Other&#34;."),
        "{page}"
    );
    // Writing beside "Other" is enough to pick it; the condition on "Other" then holds.
    let (status, _) = send(vec![("travel.other", "Bicycle"), ("walked", "3 km")]).await;
    assert_eq!(status, 303);
    let (status, _) = send(vec![
        ("travel", "Train"),
        ("travel.other", "ignored: Train was picked"),
        ("extras", "Lockers"),
        ("extras", "Other"),
        ("extras.other", "Bicycle rack"),
        ("walked", "dropped: not shown"),
    ])
    .await;
    assert_eq!(status, 303);
    let db = TestDatabase::create().await;
    work(&app, &db.url).await;

    let (_, summary) = app
        .api(Method::GET, "/api/v1/surveys/others/summary", &key, None)
        .await;
    assert_eq!(
        summary["questions"][0]["options"],
        json!([{"option": "Car", "count": 0}, {"option": "Train", "count": 1},
               {"option": "Other", "count": 1}])
    );
    assert_eq!(
        summary["questions"][0]["other_words"],
        json!([{"word": "bicycle", "count": 1}])
    );
    assert_eq!(
        summary["questions"][1]["options"],
        json!([{"option": "Parking", "count": 0}, {"option": "Lockers", "count": 1},
               {"option": "Other", "count": 1}])
    );
    assert_eq!(summary["questions"][2]["answered"], 1, "{summary}");
    let page = owner.page("/tenant/surveys/others/summary").await;
    assert!(page.contains("in their words: bicycle (1)"), "{page}");
    let csv = owner.page("/tenant/surveys/others/responses.csv").await;
    // Each option of a multiple choice, and each "Other" text, has its own column.
    assert!(csv.contains(",How did you come?,How did you come?: Other,What else did you use?: Parking,What else did you use?: Lockers,What else did you use?: Other,How far?"), "{csv}");
    assert!(csv.contains(",Other,Bicycle,,,,3 km"), "{csv}");
    assert!(csv.contains(",Train,,0,1,Bicycle rack,"), "{csv}");

    let (status, requested) = app
        .api(Method::POST, "/api/v1/surveys/others/exports", &key, None)
        .await;
    assert_eq!(status, 202, "{requested}");
    work(&app, &db.url).await;
    let mut connection = db.connect().await;
    // Question, choice, choices, text.
    type OtherRow = (String, Option<String>, Option<Vec<String>>, Option<String>);
    let rows: Vec<OtherRow> = sqlx::query_as(
        "select question, choice, choices, text from canvass.answer \
             where question in ('travel', 'extras') order by reference, question",
    )
    .fetch_all(&mut connection)
    .await
    .expect("read");
    assert_eq!(
        rows,
        [
            (
                "travel".into(),
                Some("Other".into()),
                None,
                Some("Bicycle".into())
            ),
            (
                "extras".into(),
                None,
                Some(vec!["Lockers".into(), "Other".into()]),
                Some("Bicycle rack".into())
            ),
            ("travel".into(), Some("Train".into()), None, None),
        ]
    );

    for (question, field) in [
        (
            json!({"text": "T", "type": "single_choice", "options": ["A", "Other"], "other": true}),
            "questions[0].options",
        ),
        (
            json!({"text": "N", "type": "numeric", "other": true}),
            "questions[0].other",
        ),
    ] {
        let body = refused(&app, &key, question).await;
        assert!(body["fields"][field].is_string(), "{body}");
    }
}

#[tokio::test]
async fn a_ranking_puts_every_option_in_order_and_its_summary_gives_mean_places() {
    let app = spawn_app().await;
    let owner = Owner::signed_up(&app, "Ranks", "ranks", "owner@ranks.test").await;
    let key = app.api_key("ranks").await;
    app.published_survey(
        &key,
        json!({"title": "Ranks", "questions": [
            {"id": "order", "text": "Put these in order", "type": "ranking", "required": true,
             "options": ["Price", "Taste", "Speed"]},
            {"id": "why", "text": "Why taste first?", "type": "short_text",
             "show_if": {"question": "order", "equals": "Taste"}}
        ]}),
    )
    .await;
    let form = app.form("ranks", "ranks").await;
    for place in ["1st", "2nd", "3rd"] {
        assert!(form.contains(&format!("<span>{place}</span>")), "{form}");
    }
    assert!(!form.contains("<span>4th</span>"));

    for answers in [
        vec![("order", "Taste"), ("order", "Price")],
        vec![("order", "Taste"), ("order", "Taste"), ("order", "Speed")],
        vec![("order", "Taste"), ("order", ""), ("order", "Speed")],
    ] {
        let (status, page) = answer(&app, "ranks", answers.clone()).await;
        assert_eq!(status, 422, "{answers:?}");
        assert!(
            page.contains("Please put all 3 options in order, each once."),
            "{answers:?}"
        );
    }
    for answers in [
        vec![
            ("order", "Taste"),
            ("order", "Price"),
            ("order", "Speed"),
            ("why", "Flavour"),
        ],
        vec![("order", "Taste"), ("order", "Speed"), ("order", "Price")],
        vec![
            ("order", "Price"),
            ("order", "Taste"),
            ("order", "Speed"),
            ("why", "dropped"),
        ],
    ] {
        let (status, _) = answer(&app, "ranks", answers).await;
        assert_eq!(status, 303);
    }
    let db = TestDatabase::create().await;
    work(&app, &db.url).await;

    let (_, summary) = app
        .api(Method::GET, "/api/v1/surveys/ranks/summary", &key, None)
        .await;
    let ranking: Vec<(String, f64, u64)> = summary["questions"][0]["ranking"]
        .as_array()
        .unwrap_or_else(|| panic!("a ranking in {summary}"))
        .iter()
        .map(|r| {
            (
                r["option"].as_str().expect("an option").to_owned(),
                r["mean_place"].as_f64().expect("a mean place"),
                r["first"].as_u64().expect("first places"),
            )
        })
        .collect();
    let expected = [
        ("Taste", 4.0 / 3.0, 2),
        ("Price", 2.0, 1),
        ("Speed", 8.0 / 3.0, 0),
    ];
    assert_eq!(ranking.len(), 3);
    for ((option, mean, first), (want, want_mean, want_first)) in ranking.iter().zip(expected) {
        assert_eq!((option.as_str(), *first), (want, want_first));
        assert!((mean - want_mean).abs() < 1e-9, "{option}: {mean}");
    }
    assert_eq!(
        summary["questions"][1]["shown"], 2,
        "shown when Taste came first"
    );
    assert_eq!(summary["questions"][1]["answered"], 1);
    let page = owner.page("/tenant/surveys/ranks/summary").await;
    assert!(
        page.contains("Taste: average place 1.3, first for"),
        "{page}"
    );
    let csv = owner.page("/tenant/surveys/ranks/responses.csv").await;
    // A column per option, holding its place.
    assert!(
        csv.contains(
            "Put these in order: Price,Put these in order: Taste,Put these in order: Speed,"
        ),
        "{csv}"
    );
    assert!(csv.contains(",2,1,3,Flavour"), "{csv}");

    let (status, _) = app
        .api(Method::POST, "/api/v1/surveys/ranks/exports", &key, None)
        .await;
    assert_eq!(status, 202);
    work(&app, &db.url).await;
    let orders: Vec<Vec<String>> = sqlx::query_scalar(
        "select choices from canvass.answer where question = 'order' order by reference",
    )
    .fetch_all(&mut db.connect().await)
    .await
    .expect("read");
    assert_eq!(orders[0], ["Taste", "Price", "Speed"]);
    assert_eq!(orders.len(), 3);

    let wide: Vec<String> = (1..=11).map(|n| format!("Option {n}")).collect();
    let body = refused(
        &app,
        &key,
        json!({"text": "R", "type": "ranking", "options": wide}),
    )
    .await;
    assert!(
        body["fields"]["questions[0].options"]
            .as_str()
            .is_some_and(|m| m.contains("2 to 10 options")),
        "{body}"
    );
}

#[tokio::test]
async fn a_matrix_picks_a_column_per_row_and_its_summary_counts_each_cell() {
    let app = spawn_app().await;
    let owner = Owner::signed_up(&app, "Grid", "grid", "owner@grid.test").await;
    let key = app.api_key("grid").await;
    let survey = app
        .published_survey(
            &key,
            json!({"title": "Grid", "questions": [
                {"id": "rate", "text": "Rate each", "type": "matrix", "required": true,
                 "rows": ["Coffee", "Cake"], "columns": ["Poor", "Fair", "Good"]},
                {"id": "more", "text": "Tell us more", "type": "short_text",
                 "show_if": {"question": "rate", "answered": true}}
            ]}),
        )
        .await;
    assert_eq!(survey["questions"][0]["rows"], json!(["Coffee", "Cake"]));
    let form = app.form("grid", "grid").await;
    assert!(form.contains(r#"<th scope="row">Cake</th>"#), "{form}");
    assert!(form.contains(r#"name="q-rate.1" value="Good""#), "{form}");

    let (status, page) = answer(&app, "grid", vec![("rate.0", "Good")]).await;
    assert_eq!(status, 422);
    assert!(page.contains("Please answer every row."), "{page}");
    let (status, page) = answer(&app, "grid", vec![("rate.0", "Good"), ("rate.1", "Superb")]).await;
    assert_eq!(status, 422);
    assert!(
        page.contains("Please choose one of the columns listed for &#34;Cake&#34;."),
        "{page}"
    );
    for answers in [
        vec![("rate.0", "Good"), ("rate.1", "Fair"), ("more", "Lovely")],
        vec![("rate.0", "Good"), ("rate.1", "Poor")],
    ] {
        let (status, _) = answer(&app, "grid", answers).await;
        assert_eq!(status, 303);
    }
    let db = TestDatabase::create().await;
    work(&app, &db.url).await;

    let (_, summary) = app
        .api(Method::GET, "/api/v1/surveys/grid/summary", &key, None)
        .await;
    assert_eq!(
        summary["questions"][0]["rows"],
        json!([
            {"row": "Coffee", "columns": [{"option": "Poor", "count": 0}, {"option": "Fair", "count": 0}, {"option": "Good", "count": 2}]},
            {"row": "Cake", "columns": [{"option": "Poor", "count": 1}, {"option": "Fair", "count": 1}, {"option": "Good", "count": 0}]}
        ])
    );
    assert_eq!(summary["questions"][1]["shown"], 2);
    let csv = owner.page("/tenant/surveys/grid/responses.csv").await;
    // A column per row, holding the column picked.
    assert!(csv.contains(",Rate each: Coffee,Rate each: Cake,"), "{csv}");
    assert!(csv.contains(",Good,Fair,Lovely"), "{csv}");
    let page = owner.page("/tenant/surveys/grid/summary").await;
    // The grid it was answered in: columns across, a row each, each cell its share of the
    // row (one decimal) and count, the row's answers, and a stacked bar of the shares.
    let grid = crate::owner::between(&page, r#"<table class="grid">"#, "</table>");
    for column in ["Poor", "Fair", "Good"] {
        assert!(
            grid.contains(&format!("</span> {column}</th>")),
            "{column}: {grid}"
        );
    }
    let cell = |percent: &str, count: u64| {
        format!(r#"<td class="number">{percent}%<span class="hint"> ({count})</span></td>"#)
    };
    let coffee = format!(
        r#"<tr><th scope="row">Coffee</th>{}{}{}<td class="number">2</td>"#,
        cell("0.0", 0),
        cell("0.0", 0),
        cell("100.0", 2)
    );
    assert!(grid.contains(&coffee), "{coffee} in {grid}");
    let cake = format!(
        r#"<tr><th scope="row">Cake</th>{}{}{}<td class="number">2</td>"#,
        cell("50.0", 1),
        cell("50.0", 1),
        cell("0.0", 0)
    );
    assert!(grid.contains(&cake), "{cake} in {grid}");
    assert!(
        grid.contains(r#"<rect x="0" y="0" width="50" height="10" class="swatch-0"></rect><rect x="50" y="0" width="50" height="10" class="swatch-1"></rect>"#),
        "Cake's stacked bar: {grid}"
    );

    let (status, _) = app
        .api(Method::POST, "/api/v1/surveys/grid/exports", &key, None)
        .await;
    assert_eq!(status, 202);
    work(&app, &db.url).await;
    let cells: Vec<Vec<String>> = sqlx::query_scalar(
        "select choices from canvass.answer where question = 'rate' order by reference",
    )
    .fetch_all(&mut db.connect().await)
    .await
    .expect("read");
    assert_eq!(cells[0], ["Cake: Fair", "Coffee: Good"]);

    for (question, field) in [
        (
            json!({"text": "M", "type": "matrix", "rows": [], "columns": ["A", "B"]}),
            "questions[0].rows",
        ),
        (
            json!({"text": "M", "type": "matrix", "rows": ["R"], "columns": ["A"]}),
            "questions[0].columns",
        ),
    ] {
        let body = refused(&app, &key, question).await;
        assert!(body["fields"][field].is_string(), "{body}");
    }
    let definition = json!({"title": "T", "questions": [
        {"id": "m", "text": "M", "type": "matrix", "rows": ["R"], "columns": ["A", "B"]},
        {"text": "N", "type": "short_text", "show_if": {"question": "m", "equals": "A"}}]});
    let (status, body) = app
        .api(Method::POST, "/api/v1/surveys", &key, Some(definition))
        .await;
    assert_eq!(status, 422);
    assert!(
        body["fields"]["questions[1].show_if"]
            .as_str()
            .is_some_and(|m| m.contains("can only test \"answered\"")),
        "{body}"
    );
}

#[tokio::test]
async fn a_condition_compares_dates_as_dates() {
    let app = spawn_app().await;
    let key = app.api_tenant("dates").await;
    let late = json!({"question": "visited", "greater_than": "2026-06-30"});
    app.published_survey(
        &key,
        json!({"title": "Dates", "questions": [
            {"id": "visited", "text": "When?", "type": "date", "required": true},
            {"id": "summer", "text": "How was the summer menu?", "type": "short_text", "show_if": late}
        ]}),
    )
    .await;
    for (day, said) in [("2026-07-14", "Fresh"), ("2026-06-30", "dropped")] {
        let (status, _) = answer(&app, "dates", vec![("visited", day), ("summer", said)]).await;
        assert_eq!(status, 303);
    }
    crate::export::work(&app, &TestDatabase::create().await.url).await;
    let (_, summary) = app
        .api(Method::GET, "/api/v1/surveys/dates/summary", &key, None)
        .await;
    assert_eq!(
        (
            &summary["questions"][1]["shown"],
            &summary["questions"][1]["answered"]
        ),
        (&json!(1), &json!(1)),
        "{summary}"
    );
    let body = refused(
        &app,
        &key,
        json!({"text": "D", "type": "short_text", "show_if": {"question": "x", "answered": true}}),
    )
    .await;
    assert!(body["fields"].is_object());
    let definition = json!({"title": "T", "questions": [
        {"id": "d", "text": "D", "type": "date"},
        {"text": "N", "type": "short_text", "show_if": {"question": "d", "less_than": "July"}}]});
    let (status, body) = app
        .api(Method::POST, "/api/v1/surveys", &key, Some(definition))
        .await;
    assert_eq!(status, 422);
    assert!(
        body["fields"]["questions[1].show_if"]
            .as_str()
            .is_some_and(|m| m.contains("needs a date written YYYY-MM-DD")),
        "{body}"
    );
}

#[tokio::test]
async fn an_id_once_used_keeps_its_type_even_after_its_question_was_removed() {
    let app = spawn_app().await;
    let key = app.api_tenant("ids").await;
    let numeric = json!({"id": "q", "text": "How many?", "type": "numeric"});
    let other = json!({"id": "keep", "text": "Name?", "type": "short_text"});
    app.published_survey(&key, json!({"title": "Ids", "questions": [numeric, other]}))
        .await;
    let put = |questions: Value| {
        let app = &app;
        let key = key.clone();
        async move {
            app.api(
                Method::PUT,
                "/api/v1/surveys/ids",
                &key,
                Some(json!({"title": "Ids", "questions": questions})),
            )
            .await
        }
    };
    // Removed (version 1 is kept, with its answers' question)...
    let (status, _) = put(json!([other])).await;
    assert_eq!(status, 200);
    // ...then brought back as text: refused, since version 1's answers count it as a number.
    let (status, body) =
        put(json!([other, {"id": "q", "text": "Why?", "type": "short_text"}])).await;
    assert_eq!(status, 422, "{body}");
    assert!(
        body["fields"]["questions[1].type"]
            .as_str()
            .is_some_and(|m| m.contains("cannot change")),
        "{body}"
    );
    let (status, _) = put(json!([other, numeric])).await;
    assert_eq!(status, 200, "back as a number it is the same question");
    // A change its answers allow keeps the question: short text to long text.
    let long = json!({"id": "keep", "text": "Name?", "type": "long_text"});
    let (status, body) = put(json!([long, numeric])).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["questions"][0]["id"], "keep");
    assert_eq!(body["questions"][0]["type"], "long_text");
}

#[tokio::test]
async fn a_single_choice_becomes_a_drop_down_and_keeps_its_answers() {
    let app = spawn_app().await;
    let key = app.api_tenant("turn").await;
    let choice = |kind: &str, other: bool| {
        json!({"title": "Turn", "questions": [{"id": "drink", "text": "Drink?", "type": kind,
            "options": ["Tea", "Coffee"], "other": other}]})
    };
    app.published_survey(&key, choice("single_choice", false))
        .await;
    let response = app.answer("turn", "turn", &[("drink", "Tea")]).await;
    assert_eq!(response.status(), 303);
    drain(&app.stores().await).await;
    let (status, body) = app
        .api(
            Method::PUT,
            "/api/v1/surveys/turn",
            &key,
            Some(choice("dropdown", false)),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    let response = app.answer("turn", "turn", &[("drink", "Coffee")]).await;
    assert_eq!(response.status(), 303);
    drain(&app.stores().await).await;
    let (_, summary) = app
        .api(Method::GET, "/api/v1/surveys/turn/summary", &key, None)
        .await;
    let counts: Vec<(String, u64)> = summary["questions"][0]["options"]
        .as_array()
        .unwrap_or_else(|| panic!("options in {summary}"))
        .iter()
        .map(|o| {
            (
                o["option"].as_str().unwrap_or_default().to_owned(),
                o["count"].as_u64().unwrap_or(0),
            )
        })
        .collect();
    assert_eq!(
        counts,
        [("Tea".to_owned(), 1), ("Coffee".to_owned(), 1)],
        "both answers in one question"
    );
    // With "Other" offered the answers are not the same kind: refused.
    let (status, body) = app
        .api(
            Method::PUT,
            "/api/v1/surveys/turn",
            &key,
            Some(choice("single_choice", true)),
        )
        .await;
    assert_eq!(status, 422, "{body}");
    assert!(
        body["fields"]["questions[0].type"]
            .as_str()
            .is_some_and(|m| m.contains("cannot change")),
        "{body}"
    );
}
