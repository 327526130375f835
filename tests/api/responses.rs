//! Working with responses: text answers readable in the summary, and the spreadsheet
//! downloads (CSV with a byte order mark, XLSX opened with a real reader), on the site and
//! through the API.

use std::io::Cursor;
use std::time::Duration;

use calamine::{Data, Reader, Xlsx};
use canvass::stores::Stores;
use canvass::worker::StepOutcome;
use serde_json::{Value, json};

use crate::helpers::{TestApp, spawn_app, worker};
use crate::owner::Owner;

async fn drain(stores: &Stores) {
    let mut worker = worker(stores, Duration::from_secs(60));
    while let StepOutcome::BatchDone { .. } = worker.step().await.expect("a step") {}
}

fn ids(survey: &Value) -> Vec<String> {
    survey["questions"]
        .as_array()
        .expect("questions")
        .iter()
        .map(|q| q["id"].as_str().expect("an id").to_owned())
        .collect()
}

async fn answer(app: &TestApp, slug: &str, pairs: &[(&str, &str)]) -> u64 {
    let response = app.answer("acme", slug, pairs).await;
    assert_eq!(response.status(), 303, "{pairs:?}");
    let location = response.headers()["location"].to_str().expect("ascii");
    crate::helpers::reference_in(location)
}

#[tokio::test]
async fn the_latest_text_answers_are_read_in_the_summary_newest_first_and_link_to_their_responses()
{
    let app = spawn_app().await;
    let owner = Owner::signed_up(&app, "Acme", "acme", "a@acme.test").await;
    let key = app.api_key("acme").await;
    let survey = app
        .published_survey(
            &key,
            json!({"title": "Visit", "questions": [
                {"text": "Your email", "type": "short_text"},
                {"text": "Anything else?", "type": "long_text"}]}),
        )
        .await;
    let q = ids(&survey);
    let mut references = Vec::new();
    for n in 0..12 {
        let email = format!("guest{n}@example.com");
        let note = format!("The coffee was lovely, see https://cafe.example/{n}");
        references.push(answer(&app, "visit", &[(&q[0], &email), (&q[1], &note)]).await);
    }
    drain(&app.stores().await).await;

    let (status, summary) = app
        .api(
            reqwest::Method::GET,
            "/api/v1/surveys/visit/summary",
            &key,
            None,
        )
        .await;
    assert_eq!(status, 200, "{summary}");
    let emails = &summary["questions"][0];
    // Addresses and links are not words: an email question has none to show.
    assert_eq!(emails["top_words"], json!([]), "{emails}");
    let latest: Vec<(u64, String)> = emails["latest"]
        .as_array()
        .expect("the latest answers")
        .iter()
        .map(|a| {
            (
                a["reference"].as_u64().expect("a reference"),
                a["text"].as_str().expect("a text").to_owned(),
            )
        })
        .collect();
    let newest: Vec<(u64, String)> = (2..12)
        .rev()
        .map(|n| (references[n], format!("guest{n}@example.com")))
        .collect();
    assert_eq!(latest, newest, "the ten newest, newest first");
    let words: Vec<&str> = summary["questions"][1]["top_words"]
        .as_array()
        .expect("words")
        .iter()
        .map(|w| w["word"].as_str().expect("a word"))
        .collect();
    assert_eq!(
        words,
        ["coffee", "lovely", "see"],
        "no stop words, no pieces of links"
    );

    let page = owner.page("/tenant/surveys/visit/summary").await;
    assert!(page.contains("Latest answers"), "{page}");
    assert!(page.contains("guest11@example.com"), "{page}");
    assert!(!page.contains("guest1@example.com"), "only the ten newest");
    let link = format!("/tenant/surveys/visit/responses/ref/{}", references[11]);
    assert!(page.contains(&link), "{page}");
    let response = owner.page(&link).await;
    assert!(response.contains("guest11@example.com"), "{response}");
    assert!(response.contains("https://cafe.example/11"), "{response}");

    // Another tenant's owner cannot read it by reference.
    let other = Owner::signed_up(&app, "Other", "other", "o@other.test").await;
    let other_key = app.api_key("other").await;
    app.published_survey(
        &other_key,
        json!({"title": "Visit", "questions": [{"text": "Say", "type": "short_text"}]}),
    )
    .await;
    let status = other
        .get(&format!(
            "/tenant/surveys/visit/responses/ref/{}",
            references[11]
        ))
        .await
        .status();
    assert_eq!(status, 404);
    let status = owner
        .get("/tenant/surveys/visit/responses/ref/999999999")
        .await
        .status();
    assert_eq!(status, 404);
}

#[tokio::test]
async fn the_xlsx_download_has_typed_cells_a_column_per_option_and_the_same_content_on_the_api() {
    let app = spawn_app().await;
    let owner = Owner::signed_up(&app, "Acme", "acme", "a@acme.test").await;
    let key = app.api_key("acme").await;
    let survey = app
        .published_survey(
            &key,
            json!({"title": "Sheet", "questions": [
                {"text": "Café name", "type": "short_text"},
                {"text": "Toppings", "type": "multiple_choice", "options": ["Crème", "Ham"]},
                {"text": "When", "type": "date"},
                {"text": "How many?", "type": "numeric"},
                {"text": "Rate", "type": "matrix", "rows": ["Food"], "columns": ["Bad", "Good"]}]}),
        )
        .await;
    let q = ids(&survey);
    let first = answer(
        &app,
        "sheet",
        &[
            (&q[0], "=Zoë's"),
            (&q[1], "Crème"),
            (&q[2], "2026-03-01"),
            (&q[3], "2.5"),
            (&format!("{}.0", q[4]), "Good"),
        ],
    )
    .await;
    answer(&app, "sheet", &[(&q[0], "Plain")]).await;
    drain(&app.stores().await).await;

    let site = owner
        .get("/tenant/surveys/sheet/responses.xlsx?ids=true")
        .await;
    assert_eq!(site.status(), 200);
    assert_eq!(
        site.headers()["content-type"],
        "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
    );
    assert!(
        site.headers()["content-disposition"]
            .to_str()
            .expect("ascii")
            .contains("acme-sheet.xlsx")
    );
    let site = site.bytes().await.expect("a body");
    let api = app
        .client
        .get(format!(
            "{}/api/v1/surveys/sheet/responses.xlsx?ids=true",
            app.address
        ))
        .bearer_auth(&key)
        .send()
        .await
        .expect("answered");
    assert_eq!(api.status(), 200);
    let api = api.bytes().await.expect("a body");

    for bytes in [&site, &api] {
        let mut workbook = Xlsx::new(Cursor::new(bytes.to_vec())).expect("an XLSX workbook");
        let sheet = workbook.worksheet_range("Responses").expect("the sheet");
        let rows: Vec<&[Data]> = sheet.rows().collect();
        assert_eq!(rows.len(), 4, "header, ids and two responses");
        let text = |cell: &Data| cell.to_string();
        let header: Vec<String> = rows[0].iter().map(text).collect();
        assert_eq!(
            header,
            [
                "Reference",
                "Submitted (UTC)",
                "Survey version",
                "Café name",
                "Toppings: Crème",
                "Toppings: Ham",
                "When",
                "How many?",
                "Rate: Food"
            ]
        );
        assert_eq!(text(&rows[1][3]), q[0]);
        assert_eq!(text(&rows[1][4]), format!("{}[Crème]", q[1]));
        let row = rows[2];
        assert_eq!(row[0], Data::Float(first as f64));
        assert!(matches!(row[1], Data::DateTime(_)), "{:?}", row[1]);
        assert_eq!(
            row[3],
            Data::String("=Zoë's".into()),
            "text, never a formula"
        );
        assert_eq!((&row[4], &row[5]), (&Data::Float(1.0), &Data::Float(0.0)));
        let Data::DateTime(when) = &row[6] else {
            panic!("a date: {:?}", row[6]);
        };
        assert_eq!(when.as_f64(), 46082.0, "2026-03-01 as Excel counts days");
        assert_eq!(row[7], Data::Float(2.5));
        assert_eq!(row[8], Data::String("Good".into()));
        // The second response answered one question: the others are empty.
        assert_eq!(rows[3][4], Data::Empty);
    }

    // The CSV on the API matches the site's, and may leave out the byte order mark.
    let site_csv = owner.page("/tenant/surveys/sheet/responses.csv").await;
    let api_csv = |query: &'static str| {
        let request = app
            .client
            .get(format!(
                "{}/api/v1/surveys/sheet/responses.csv{query}",
                app.address
            ))
            .bearer_auth(&key);
        async move {
            let response = request.send().await.expect("answered");
            assert_eq!(response.status(), 200);
            response.text().await.expect("a body")
        }
    };
    assert_eq!(api_csv("").await, site_csv);
    assert!(site_csv.starts_with("\u{feff}Reference,"), "{site_csv}");
    let bare = api_csv("?bom=false").await;
    assert!(bare.starts_with("Reference,"), "{bare}");
    assert!(bare.contains(",'=Zoë's,1,0,2026-03-01,2.5,Good"), "{bare}");

    // Without a key, or with another tenant's survey, nothing.
    let anonymous = app.get("/api/v1/surveys/sheet/responses.xlsx").await;
    assert_eq!(anonymous.status(), 401);
    let other_key = app.api_tenant("other").await;
    let (status, _) = app
        .api(
            reqwest::Method::GET,
            "/api/v1/surveys/sheet/responses.csv",
            &other_key,
            None,
        )
        .await;
    assert_eq!(status, 404);
}
