//! Working with responses: text answers readable in the summary, and the spreadsheet
//! downloads (CSV with a byte order mark, XLSX opened with a real reader), on the site and
//! through the API.

use std::io::Cursor;
use std::time::Duration;

use calamine::{Data, Reader, Xlsx};
use canvass::worker::StepOutcome;
use serde_json::{Value, json};

use crate::helpers::{TestApp, drain, ids, settle, spawn_app, worker};
use crate::owner::Owner;

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
    answer(&app, "sheet", &[(&q[0], "Plain"), (&q[2], "1850-06-01")]).await;
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
        // The second response answered two questions: the others are empty, and a date
        // before Excel's first day is text.
        assert_eq!(rows[3][4], Data::Empty);
        assert_eq!(rows[3][6], Data::String("1850-06-01".into()));
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

    // Only the two formats there are.
    let unknown = owner.get("/tenant/surveys/sheet/responses.pdf").await;
    assert_eq!(unknown.status(), 404);
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

/// The survey `visit`'s summary through the API.
async fn summary(app: &TestApp, key: &str) -> Value {
    let (status, summary) = app
        .api(
            reqwest::Method::GET,
            "/api/v1/surveys/visit/summary",
            key,
            None,
        )
        .await;
    assert_eq!(status, 200, "{summary}");
    summary
}

#[tokio::test]
async fn deleted_responses_leave_every_figure_list_and_download_exactly() {
    let app = spawn_app().await;
    let owner = Owner::signed_up(&app, "Acme", "acme", "a@acme.test").await;
    let key = app.api_key("acme").await;
    let survey = app
        .published_survey(
            &key,
            json!({"title": "Visit", "questions": [
                {"text": "Stars", "type": "five_stars"},
                {"text": "Drink", "type": "single_choice", "options": ["Tea", "Coffee"]},
                {"text": "Minutes", "type": "numeric"},
                {"text": "Say", "type": "short_text"}]}),
        )
        .await;
    let q = ids(&survey);
    let given = [
        ("1", "Tea", "3", "spam spam"),
        ("5", "Coffee", "10", "lovely"),
        ("2", "Tea", "100", "test answer"),
        ("4", "Coffee", "12", "good"),
        ("3", "Tea", "7", "fine"),
    ];
    let mut references = Vec::new();
    for (stars, drink, minutes, say) in given {
        let pairs = [
            (&q[0][..], stars),
            (&q[1], drink),
            (&q[2], minutes),
            (&q[3], say),
        ];
        references.push(answer(&app, "visit", &pairs).await);
    }
    let stores = app.stores().await;
    settle(&stores).await;

    // One through the API (202), two through the site after a confirmation page.
    let path = |r: u64| format!("/api/v1/surveys/visit/responses/{r}");
    let (status, body) = app
        .api(reqwest::Method::DELETE, &path(references[0]), &key, None)
        .await;
    assert_eq!(status, 202, "{body}");
    let (status, _) = app
        .api(reqwest::Method::DELETE, &path(999_999), &key, None)
        .await;
    assert_eq!(status, 404);
    let other_key = app.api_tenant("other").await;
    let (status, _) = app
        .api(
            reqwest::Method::DELETE,
            &path(references[1]),
            &other_key,
            None,
        )
        .await;
    assert_eq!(status, 404, "another tenant's key finds nothing");

    let list = "/tenant/surveys/visit/responses";
    let csrf = owner.csrf(list).await;
    let (two, three) = (references[2].to_string(), references[3].to_string());
    let picked = [
        ("csrf", csrf.as_str()),
        ("reference", two.as_str()),
        ("reference", three.as_str()),
    ];
    let refused = owner
        .post("/tenant/surveys/visit/responses/delete", &picked[1..])
        .await;
    assert_eq!(refused.status(), 403, "no CSRF token, no deletion");
    let confirm = owner
        .post("/tenant/surveys/visit/responses/delete", &picked)
        .await;
    assert_eq!(confirm.status(), 200);
    let confirm = confirm.text().await.expect("a page");
    assert!(confirm.contains("Delete these 2 responses?"), "{confirm}");
    assert!(confirm.contains("2 of 5 stars · Tea · 100"), "{confirm}");
    let mut confirmed = picked.to_vec();
    confirmed.push(("confirm", "yes"));
    let done = owner
        .post("/tenant/surveys/visit/responses/delete", &confirmed)
        .await;
    assert_eq!(done.status(), 303);
    let page = owner.page(list).await;
    assert!(page.contains("2 responses deleted."), "{page}");
    // Before any worker applies them, the list already leaves them out and counts without them.
    assert!(
        page.contains("3 deleted responses are being taken out"),
        "{page}"
    );
    assert!(page.contains(r#"id="count">2 responses"#), "{page}");
    for (i, reference) in references.iter().enumerate() {
        let listed = page.contains(&format!(r#"value="{reference}""#));
        assert_eq!(
            listed,
            ![0, 2, 3].contains(&i),
            "response {reference}: {page}"
        );
    }
    // Every box of the page ticked at once, without JavaScript.
    let all = owner.page(&format!("{list}?select=all")).await;
    assert_eq!(all.matches(r#"name="reference""#).count(), 2, "{all}");
    assert_eq!(all.matches(" checked>").count(), 2, "{all}");
    let again = owner.page(list).await;
    assert!(
        !again.contains("2 responses deleted."),
        "a notice is shown once"
    );

    // The first deletion applied: the total drops at once, min and max wait for the recount.
    let mut worker = worker(&stores, Duration::from_secs(60));
    let step = worker.step().await.expect("a step");
    assert!(matches!(step, StepOutcome::DeletionDone { .. }), "{step:?}");
    let first = summary(&app, &key).await;
    assert_eq!(first["total"], 4, "{first}");
    assert_eq!(first["recounting"], 1, "{first}");
    let page = owner.page("/tenant/surveys/visit/summary").await;
    assert!(
        page.contains("still include one deleted response"),
        "{page}"
    );

    settle(&stores).await;
    let after = summary(&app, &key).await;
    assert!(after.get("recounting").is_none(), "recounted: {after}");
    // Exactly the summary of the two responses left (5 stars/Coffee/10, 3 stars/Tea/7).
    assert_eq!(after["total"], 2, "{after}");
    let stars = &after["questions"][0];
    let counts: Vec<u64> = stars["histogram"]
        .as_array()
        .expect("a histogram")
        .iter()
        .map(|bin| bin["count"].as_u64().expect("a count"))
        .collect();
    assert_eq!(counts, [0, 0, 1, 0, 1], "{stars}");
    assert_eq!(
        (
            stars["mean"].as_f64(),
            stars["min"].as_f64(),
            stars["max"].as_f64()
        ),
        (Some(4.0), Some(3.0), Some(5.0)),
        "{stars}"
    );
    assert_eq!(
        after["questions"][1]["options"],
        json!([{"option": "Tea", "count": 1}, {"option": "Coffee", "count": 1}])
    );
    let minutes = &after["questions"][2];
    assert_eq!(
        (minutes["min"].as_f64(), minutes["max"].as_f64()),
        (Some(7.0), Some(10.0)),
        "{minutes}"
    );
    let words: Vec<&str> = after["questions"][3]["top_words"]
        .as_array()
        .expect("words")
        .iter()
        .map(|w| w["word"].as_str().expect("a word"))
        .collect();
    assert_eq!(
        words,
        ["fine", "lovely"],
        "the deleted answers' words are gone"
    );
    let latest: Vec<u64> = after["questions"][3]["latest"]
        .as_array()
        .expect("latest")
        .iter()
        .map(|a| a["reference"].as_u64().expect("a reference"))
        .collect();
    assert_eq!(latest, [references[4], references[1]]);

    // Lists, downloads and the response itself.
    let (_, listed) = app
        .api(
            reqwest::Method::GET,
            "/api/v1/surveys/visit/responses",
            &key,
            None,
        )
        .await;
    assert_eq!(listed["total"], 2, "{listed}");
    let kept: Vec<u64> = listed["responses"]
        .as_array()
        .expect("responses")
        .iter()
        .map(|r| r["reference"].as_u64().expect("a reference"))
        .collect();
    assert_eq!(kept, [references[4], references[1]]);
    let csv = owner.page("/tenant/surveys/visit/responses.csv").await;
    assert_eq!(csv.lines().count(), 3, "{csv}");
    for gone in &references[..4] {
        if *gone != references[1] {
            assert!(!csv.contains(&format!("\n{gone},")), "{csv}");
        }
    }
    let status = owner
        .get(&format!(
            "/tenant/surveys/visit/responses/ref/{}",
            references[2]
        ))
        .await
        .status();
    assert_eq!(status, 404, "a deleted response's answers are erased");
    // Each deletion is recorded: who, when, which.
    let page = owner.page(list).await;
    // Each listed response links to its own page, deleted ones between them or not.
    for reference in [references[4], references[1]] {
        let row = page
            .split("<tr>")
            .find(|row| row.contains(&format!(">{reference}</a>")))
            .expect("a row of the response");
        let link = row
            .split("href=\"")
            .nth(1)
            .and_then(|rest| rest.split('"').next())
            .expect("a link");
        let shown = owner.page(link).await;
        assert!(shown.contains(&format!("Reference {reference}")), "{link}");
    }
    assert!(page.contains("3 in all"), "{page}");
    assert!(
        page.contains(&format!(
            "Response {}, deleted by a@acme.test",
            references[3]
        )),
        "{page}"
    );
    assert!(
        page.contains(&format!("Response {}, deleted by API key", references[0])),
        "{page}"
    );
    // A deletion delivered again subtracts nothing.
    let at = stores
        .catalog
        .surveys
        .get(
            &canvass::domain::TenantSlug::parse("acme").expect("a slug"),
            &canvass::domain::SurveySlug::parse("visit").expect("a slug"),
        )
        .await
        .expect("read")
        .expect("the survey")
        .survey_ref();
    let first = canvass::domain::Reference(references[0]);
    let again = canvass::worker::delete(&stores, &at, &[first])
        .await
        .expect("applied");
    assert_eq!(again, canvass::worker::Deleted::Applied(0));
    assert_eq!(summary(&app, &key).await["total"], 2);
    // Deleting it again finds nothing.
    let (status, _) = app
        .api(reqwest::Method::DELETE, &path(references[0]), &key, None)
        .await;
    assert_eq!(status, 404);
}

#[tokio::test]
async fn a_response_not_counted_yet_cannot_be_deleted_until_it_is() {
    let app = spawn_app().await;
    let key = app.api_tenant("acme").await;
    let survey = app
        .published_survey(
            &key,
            json!({"title": "Visit", "questions": [{"text": "Say", "type": "short_text"}]}),
        )
        .await;
    let q = ids(&survey);
    let reference = answer(&app, "visit", &[(&q[0], "hello")]).await;
    let path = format!("/api/v1/surveys/visit/responses/{reference}");
    let (status, body) = app.api(reqwest::Method::DELETE, &path, &key, None).await;
    assert_eq!(status, 404, "{body}");
    let reason = body["error"].as_str().expect("a reason");
    assert!(reason.contains("try again"), "{reason}");
    settle(&app.stores().await).await;
    let (status, _) = app.api(reqwest::Method::DELETE, &path, &key, None).await;
    assert_eq!(status, 202);
}

#[tokio::test]
async fn responses_are_filtered_by_submission_day_exactly_with_each_page_read_from_its_window() {
    let app = spawn_app().await;
    let key = app.api_key("demo").await;
    let stores = app.stores().await;
    let demo = crate::helpers::demo_survey(&stores).await;
    // 30 answers over three days, one day's answers counted out of order with the next's.
    let day = |d: u8, n: u64| {
        time::Date::from_calendar_date(2026, time::Month::March, d)
            .expect("a day")
            .with_hms(12, 0, (n % 60) as u8)
            .expect("a time")
            .assume_utc()
    };
    let mut by_day: std::collections::BTreeMap<u8, Vec<u64>> = Default::default();
    for n in 0..30u64 {
        let d = match n {
            0..10 => 1,
            // Mostly the 2nd, with some of the 3rd's answers counted in between.
            10..22 if n % 4 == 0 => 3,
            10..22 => 2,
            _ => 3,
        };
        let mut answer = crate::helpers::demo_answer(&demo, 5_000 + n, n);
        answer.submitted_at = day(d, n);
        by_day.entry(d).or_default().push(answer.reference.0);
        stores
            .answering
            .queues
            .submit(&answer, canvass::domain::Subscription::Standard)
            .await
            .expect("queued");
        // One at a time, so list order is submission order.
        settle(&stores).await;
    }
    let listed = |query: &'static str| {
        let (app, key) = (&app, &key);
        async move {
            let path = format!("/api/v1/surveys/customer-satisfaction/responses{query}");
            let (status, body) = app.api(reqwest::Method::GET, &path, key, None).await;
            assert_eq!(status, 200, "{body}");
            let references: Vec<u64> = body["responses"]
                .as_array()
                .expect("responses")
                .iter()
                .map(|r| r["reference"].as_u64().expect("a reference"))
                .collect();
            (body["total"].as_u64().expect("a total"), references)
        }
    };
    let newest_first = |mut references: Vec<u64>| {
        references.reverse();
        references
    };
    let (total, second) = listed("?from=2026-03-02&to=2026-03-02").await;
    assert_eq!(total, by_day[&2].len() as u64);
    assert_eq!(
        second,
        newest_first(by_day[&2].clone()),
        "exactly the 2nd's, newest first"
    );
    let (total, third) = listed("?from=2026-03-03").await;
    assert_eq!(total, by_day[&3].len() as u64);
    assert_eq!(third, newest_first(by_day[&3].clone()));
    let (total, none) = listed("?from=2026-04-01&to=2026-04-30").await;
    assert_eq!((total, none.len()), (0, 0));
    let (total, all) = listed("").await;
    assert_eq!((total, all.len()), (30, 25), "unfiltered: the newest 25");

    for bad in [
        "?from=March",
        "?from=2026-03-03&to=2026-03-01",
        "?segment=drink:Tea",
    ] {
        let path = format!("/api/v1/surveys/customer-satisfaction/responses{bad}");
        let (status, body) = app.api(reqwest::Method::GET, &path, &key, None).await;
        assert_eq!(status, 400, "{bad}: {body}");
    }

    let deleted = by_day[&2][0];
    let (status, _) = app
        .api(
            reqwest::Method::DELETE,
            &format!("/api/v1/surveys/customer-satisfaction/responses/{deleted}"),
            &key,
            None,
        )
        .await;
    assert_eq!(status, 202);
    settle(&stores).await;
    let (total, second) = listed("?from=2026-03-02&to=2026-03-02").await;
    assert_eq!(
        total,
        by_day[&2].len() as u64 - 1,
        "a deleted response leaves its day's count"
    );
    assert!(!second.contains(&deleted));
}

#[tokio::test]
async fn a_text_search_finds_written_answers_a_thousand_responses_at_a_time() {
    use canvass::domain::{Answer, AnswerValue, QuestionId, Reference, Subscription};
    let app = spawn_app().await;
    let owner = Owner::signed_up(&app, "Acme", "acme", "a@acme.test").await;
    let key = owner.api_key("setup").await;
    let survey = app
        .published_survey(
            &key,
            json!({"title": "Notes", "questions": [{"id": "say", "text": "Say", "type": "long_text"}]}),
        )
        .await;
    assert_eq!(survey["slug"], "notes");
    let stores = app.stores().await;
    let at = stores
        .catalog
        .surveys
        .get(
            &canvass::domain::TenantSlug::parse("acme").expect("a slug"),
            &canvass::domain::SurveySlug::parse("notes").expect("a slug"),
        )
        .await
        .expect("read")
        .expect("there")
        .survey_ref();
    // 1,030 responses, oldest first: the 3rd says "Lovely Coffee", the 1,020th "lovely tea".
    let said = |n: u64| match n {
        3 => "Lovely Coffee".to_owned(),
        1_020 => "what a lovely tea".to_owned(),
        n => format!("note {n}"),
    };
    for n in 1..=1_030u64 {
        let answer = Answer {
            tenant: at.tenant.clone(),
            survey: at.slug.clone(),
            survey_id: at.id.clone(),
            survey_version: 1,
            reference: Reference(5_000 + n),
            submitted_at: time::OffsetDateTime::now_utc(),
            values: [(
                QuestionId::parse("say").expect("an id"),
                AnswerValue::Text(said(n)),
            )]
            .into(),
            skipped: Default::default(),
            hidden: Default::default(),
            order: Default::default(),
            language: None,
            over_quota: Default::default(),
            variables: Default::default(),
            score: None,
            correct: None,
            ending: None,
            participant: None,
            partial: false,
        };
        stores
            .answering
            .queues
            .submit(&answer, Subscription::Standard)
            .await
            .expect("queued");
    }
    drain(&stores).await;
    let list = "/tenant/surveys/notes/responses";
    let first = owner.page(&format!("{list}?q=LOVELY")).await;
    assert!(
        first.contains(
            "Searched responses 1 to 1000 (newest first): one mentions &ldquo;LOVELY&rdquo;."
        ),
        "{first}"
    );
    assert!(
        first.contains(r#"value="6020""#),
        "the newer one is found: {first}"
    );
    assert!(!first.contains(r#"value="5003""#), "{first}");
    let searched = crate::owner::between(&first, r#"id="searched">"#, "</p>");
    let older =
        crate::owner::between(&searched, r#"<a href=""#, r#"">Search older"#).replace("&amp;", "&");
    assert_eq!(older, "?q=LOVELY&before=30");
    let second = owner.page(&format!("{list}{older}")).await;
    assert!(
        second.contains("Searched responses 1001 to 1030 (newest first): one mentions"),
        "{second}"
    );
    assert!(second.contains(r#"value="5003""#), "{second}");
    assert!(
        !second.contains("Search older responses"),
        "nothing older: {second}"
    );
    // Too long a search is refused plainly, and the page lists as usual.
    let long = owner.page(&format!("{list}?q={}", "x".repeat(101))).await;
    assert!(long.contains("search for at most 100 characters"), "{long}");
}
