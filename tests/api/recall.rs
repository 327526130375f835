//! Earlier answers recalled in later questions (`{{q:ID}}`), over HTTP as a respondent meets
//! them: the answer shown as text (escaped), an option by its label in the respondent's
//! language, a date and a number as that language writes them, the fallback for a question
//! hidden or skipped, never the raw marker; help texts under questions; and the designer and
//! the API refusing a recall that cannot have been answered, with the reason.

use reqwest::Method;
use serde_json::{Value, json};

use crate::helpers::{TestApp, spawn_app, token_in};
use crate::owner::{Owner, value_of};

fn definition() -> Value {
    json!({
        "title": "Visit",
        "languages": ["en", "de"],
        "pages": [
            {"questions": [
                {"id": "stars", "text": "How was it?", "type": "five_stars", "required": true},
                {"id": "why", "text": "What went wrong?", "type": "short_text",
                 "show_if": {"question": "stars", "less_than": 3}},
                {"id": "drink", "text": "What did you drink?", "type": "single_choice",
                 "options": [{"en": "Tea", "de": "Tee"}, "Coffee"]},
                {"id": "day", "text": "When?", "type": "date"},
                {"id": "spent", "text": "How much?", "type": "numeric"}]},
            {"questions": [
                {"id": "more", "type": "long_text",
                 "text": {"en": "You gave {{q:stars}} stars because of {{q:why|nothing in particular}}: tell us more",
                          "de": "Sie gaben {{q:stars}} Sterne wegen {{q:why|nichts Bestimmtem}}"},
                 "help": {"en": "About your {{q:drink|visit}} on {{q:day|that day}} ({{q:spent|?}})",
                          "de": "Zu Ihrem {{q:drink|Besuch}} am {{q:day|diesem Tag}} ({{q:spent|?}})"}},
                {"id": "again", "text": "Again?", "type": "single_choice",
                 "options": ["More {{q:drink|of the same}}", "Something else"]}]}
        ]
    })
}

/// The page without its fields' values (an option's value is its stored label, never shown).
fn shown_text(page: &str) -> String {
    page.split(" value=\"")
        .enumerate()
        .map(|(at, part)| match at {
            0 => part,
            _ => part.split_once('"').map_or("", |(_, rest)| rest),
        })
        .collect()
}

/// Posts page 1 with `fields` (in `language`), and returns page 2 as shown.
async fn second_page(app: &TestApp, language: &str, fields: &[(&str, &str)]) -> String {
    let first = app
        .get(&format!("/s/acme/visit?lang={language}"))
        .await
        .text()
        .await
        .expect("a body");
    let mut pairs = vec![
        ("token".to_owned(), token_in(&first)),
        ("page".to_owned(), "0".to_owned()),
        ("nav".to_owned(), "next".to_owned()),
    ];
    pairs.extend(
        fields
            .iter()
            .map(|(q, v)| (format!("q-{q}"), (*v).to_owned())),
    );
    let response = app
        .client
        .post(format!("{}/s/acme/visit?lang={language}", app.address))
        .form(&pairs)
        .send()
        .await
        .expect("answered");
    assert_eq!(response.status(), 200);
    response.text().await.expect("a body")
}

#[tokio::test]
async fn a_later_question_shows_earlier_answers_in_the_respondents_language() {
    let app = spawn_app().await;
    let key = app.api_tenant("acme").await;
    app.published_survey(&key, definition()).await;

    // A low rating shows the reason question; its answer is recalled as text, escaped.
    let page = second_page(
        &app,
        "en",
        &[
            ("stars", "2"),
            ("why", "<b>cold</b> tea"),
            ("drink", "Tea"),
            ("day", "2026-07-14"),
            ("spent", "1234.5"),
        ],
    )
    .await;
    assert!(
        page.contains("You gave 2 stars because of &#60;b&#62;cold&#60;/b&#62; tea: tell us more")
            || page
                .contains("You gave 2 stars because of &lt;b&gt;cold&lt;/b&gt; tea: tell us more"),
        "{page}"
    );
    assert!(
        page.contains(
            r#"<p class="hint" id="q-more-help">About your Tea on 14 July 2026 (1,234.5)</p>"#
        ),
        "{page}"
    );
    assert!(page.contains("<span>More Tea</span>"), "{page}");
    assert!(
        !shown_text(&page).contains("{{q:"),
        "no marker is ever shown: {page}"
    );

    // A high rating hides the reason: whatever was posted for it, the fallback shows.
    let page = second_page(
        &app,
        "de",
        &[
            ("stars", "5"),
            ("why", "forged"),
            ("drink", "Tea"),
            ("day", "2026-07-14"),
            ("spent", "1234.5"),
        ],
    )
    .await;
    assert!(
        page.contains("Sie gaben 5 Sterne wegen nichts Bestimmtem"),
        "{page}"
    );
    assert!(
        !shown_text(&page).contains("forged"),
        "a hidden question's answer is never recalled"
    );
    assert!(
        page.contains("Zu Ihrem Tee am 14. Juli 2026 (1.234,5)"),
        "the option in German, the date and number as German writes them: {page}"
    );

    // Skipped questions show their fallbacks.
    let page = second_page(&app, "en", &[("stars", "4")]).await;
    assert!(
        page.contains("About your visit on that day (?)") && page.contains("More of the same"),
        "{page}"
    );
}

#[tokio::test]
async fn a_recall_of_an_answer_not_yet_given_is_refused_in_the_api_and_the_designer() {
    let app = spawn_app().await;
    let owner = Owner::signed_up(&app, "Acme", "acme", "owner@acme.test").await;
    let key = owner.api_key("recall").await;
    let mut definition = definition();
    definition["pages"][0]["questions"][0]["text"] = json!("How was it, {{q:more}}?");
    let (status, body) = app
        .api(Method::POST, "/api/v1/surveys", &key, Some(definition))
        .await;
    assert_eq!(status, 422, "{body}");
    let said = body.to_string();
    assert!(
        said.contains("pages[0].questions[0].text") && said.contains("which comes after it"),
        "{said}"
    );

    // In the designer: a question recalling one on its own page, refused beside it.
    let page = owner.page("/tenant/surveys/new").await;
    let csrf = value_of(&page, "csrf");
    let form: Vec<(String, String)> = [
        ("csrf", csrf.as_str()),
        ("count", "2"),
        ("action", "save"),
        ("title", "Same page"),
        ("q0.text", "Your name?"),
        ("q0.id", ""),
        ("q0.type", "short_text"),
        ("q1.text", "Hello {{q:name}}"),
        ("q1.type", "short_text"),
    ]
    .iter()
    .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
    .collect();
    let response = owner.post_owned("/tenant/surveys", &form).await;
    assert_eq!(response.status(), 422);
    let page = response.text().await.expect("a body");
    assert!(page.contains("not a question of this survey"), "{page}");
}

#[tokio::test]
async fn the_owner_reads_a_recall_as_the_recalled_questions_label_never_its_id() {
    let app = spawn_app().await;
    let owner = Owner::signed_up(&app, "Acme", "acme", "owner@acme.test").await;
    let key = owner.api_key("recall").await;
    app.published_survey(&key, definition()).await;
    let labelled = "You gave [How was it?] stars because of [What went wrong?]: tell us more";

    // The downloads' headers, read by csv and calamine.
    let csv = owner.page("/tenant/surveys/visit/responses.csv").await;
    let mut reader = csv::Reader::from_reader(csv.trim_start_matches('\u{feff}').as_bytes());
    let headers: Vec<String> = reader
        .headers()
        .expect("a header row")
        .iter()
        .map(str::to_owned)
        .collect();
    assert!(headers.iter().any(|h| h == labelled), "{headers:?}");
    assert!(!csv.contains("{{q:"), "{csv}");
    let xlsx = app
        .client
        .get(format!(
            "{}/api/v1/surveys/visit/responses.xlsx",
            app.address
        ))
        .bearer_auth(&key)
        .send()
        .await
        .expect("answered")
        .bytes()
        .await
        .expect("a body");
    let mut workbook: calamine::Xlsx<_> =
        calamine::Xlsx::new(std::io::Cursor::new(xlsx.to_vec())).expect("an XLSX workbook");
    use calamine::Reader;
    let sheet = workbook.worksheet_range("Responses").expect("the sheet");
    let header: Vec<String> = sheet
        .rows()
        .next()
        .expect("a header row")
        .iter()
        .map(ToString::to_string)
        .collect();
    assert!(header.iter().any(|h| h == labelled), "{header:?}");

    // The summary page names the question the same way.
    let summary = owner.page("/tenant/surveys/visit/summary").await;
    assert!(summary.contains(labelled), "{summary}");
    assert!(!summary.contains("{{q:"), "{summary}");
}
