//! The XLSForm export, proven by the reference converter: a survey of several pages with
//! logic, every type XLSForm has, a hidden field and two languages is downloaded as an
//! XLSForm, and pyxform's `xls2xform` (pinned by scripts/test) turns it into an XForm with
//! the questions, the jump as relevance, the bounds as constraints and both languages.

use reqwest::Method;
use serde_json::json;

use crate::helpers::spawn_app;

#[tokio::test]
async fn a_survey_downloads_as_an_xlsform_that_pyxform_converts() {
    let xls2xform = std::env::var("CANVASS_TEST_XLS2XFORM").expect(
        "CANVASS_TEST_XLS2XFORM names pyxform's xls2xform command: run the tests with \
         scripts/test",
    );
    let app = spawn_app().await;
    let key = app.api_tenant("acme").await;
    let definition = json!({
        "title": "Field visit",
        "languages": ["en", "de"],
        "hidden_fields": ["enumerator"],
        "pages": [
            {"title": "Household", "questions": [
                {"id": "first", "text": {"en": "First visit?", "de": "Erster Besuch?"},
                 "type": "single_choice", "required": true,
                 "options": [{"en": "Yes", "de": "Ja"}, {"en": "No", "de": "Nein"}]},
                {"id": "people", "text": "How many people live here?", "type": "numeric",
                 "integer": true, "min": 1, "max": 30, "help": "Count children too."},
                {"id": "water", "text": "Water sources", "type": "multiple_choice",
                 "options": ["Tap", "Well", "River"], "other": true}],
             "jumps": [{"if": {"question": "first", "equals": "No"}, "to": 2}]},
            {"title": "New households", "questions": [
                {"id": "moved", "text": "When did you move, {{h:enumerator}}?", "type": "date",
                 "earliest": "2000-01-01"},
                {"id": "why", "text": "Why here?", "type": "long_text",
                 "show_if": {"question": "water", "equals": "River"}}]},
            {"title": "Views", "questions": [
                {"id": "rating", "text": "Your rating", "type": "five_stars"},
                {"id": "nps", "text": "Recommend the programme?", "type": "nps"},
                {"id": "agree", "text": "Services improved.", "type": "scale", "points": 5},
                {"id": "region", "text": "Region", "type": "dropdown",
                 "options": ["North", "South"]},
                {"id": "rank", "text": "What matters most?", "type": "ranking",
                 "options": ["Water", "Roads", "Schools"]},
                {"id": "grid", "text": "How is each?", "type": "matrix",
                 "rows": ["Roads", "Clinics"], "columns": ["Poor", "Good"]},
                {"id": "photo", "text": "A photo", "type": "file"}]},
            {"title": "Each source", "loop": {"over": "water"}, "questions": [
                {"id": "distance", "text": "How far is it, in minutes?", "type": "numeric"}]}
        ]
    });
    let (status, body) = app
        .api(Method::POST, "/api/v1/surveys", &key, Some(definition))
        .await;
    assert_eq!(status, 201, "{body}");
    let response = reqwest::Client::new()
        .get(format!(
            "{}/api/v1/surveys/field-visit/xlsform",
            app.address
        ))
        .bearer_auth(&key)
        .send()
        .await
        .expect("answered");
    assert_eq!(response.status(), 200);
    assert_eq!(
        response.headers()["content-type"],
        "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
    );
    assert_eq!(response.headers()["x-canvass-skipped"], "");
    let workbook = response.bytes().await.expect("a workbook");
    let dir = tempfile::tempdir().expect("a directory");
    let (form, xform) = (
        dir.path().join("field_visit.xlsx"),
        dir.path().join("field_visit.xml"),
    );
    std::fs::write(&form, &workbook).expect("written");
    // Its internal checks only: ODK Validate is a Java download this machine cannot make.
    let converted = std::process::Command::new(&xls2xform)
        .arg("--skip_validate")
        .arg(&form)
        .arg(&xform)
        .output()
        .expect("xls2xform runs");
    let said = String::from_utf8_lossy(&converted.stdout);
    let warned = String::from_utf8_lossy(&converted.stderr);
    assert!(converted.status.success(), "xls2xform: {said} {warned}");
    assert!(
        !said.contains("Warning") && !warned.contains("Warning"),
        "{said} {warned}"
    );
    let xml = std::fs::read_to_string(&xform).expect("the XForm");
    for part in [
        // Every question, in its page's group.
        "/data/page_1/first",
        "/data/page_1/people",
        "/data/page_2/moved",
        "/data/page_3/grid/grid_1",
        "/data/page_3/photo",
        "/data/enumerator",
        // The loop: a repeat counted by the sources ticked.
        "/data/loop_4/page_4/distance",
        "calculate=\"count-selected( /data/page_1/water )\"",
        "jr:count=\" /data/loop_4_count \"",
        // The jump over page 2, the bounds, the condition on a ticked option.
        "not( /data/page_1/first  = 'o2')",
        ". &gt;= 1 and . &lt;= 30",
        "selected( /data/page_1/water , 'o3')",
        // Both languages, and the recalled hidden field.
        "lang=\"German (de)\"",
        "Erster Besuch?",
        "<output value=\" /data/enumerator \"/>",
    ] {
        assert!(xml.contains(part), "{part:?} in the XForm:\n{xml}");
    }
}

#[tokio::test]
async fn the_designer_offers_the_xlsform_and_names_what_it_cannot_carry() {
    use crate::owner::Owner;
    let app = spawn_app().await;
    let owner = Owner::signed_up(&app, "Acme", "acme", "owner@acme.test").await;
    let slug = owner.design("Team day").await;
    let page = owner.page(&format!("/tenant/surveys/{slug}")).await;
    let link = format!(r#"href="/tenant/surveys/{slug}/xlsform" download"#);
    assert!(page.contains(&link), "{page}");
    let download = owner.get(&format!("/tenant/surveys/{slug}/xlsform")).await;
    assert_eq!(download.status(), 200);
    assert_eq!(download.headers()["x-canvass-skipped"], "");
    // A calculation has no XLSForm form: the download says it was left out.
    let key = owner.api_key("script").await;
    let (status, body) = app
        .api(
            Method::POST,
            "/api/v1/surveys",
            &key,
            Some(json!({
                "title": "Scored",
                "variables": [{"id": "total", "expression": "score * 2.0"}],
                "questions": [{"id": "n", "text": "N?", "type": "numeric",
                               "validate": {"expression": "q.n > 0.0", "message": "Above 0"}}]
            })),
        )
        .await;
    assert_eq!(status, 201, "{body}");
    let download = owner.get("/tenant/surveys/scored/xlsform").await;
    let skipped = download.headers()["x-canvass-skipped"]
        .to_str()
        .expect("ascii")
        .to_owned();
    assert!(
        skipped.contains("question n: its rule") && skipped.contains("variables"),
        "{skipped}"
    );
}

/// POSTs `body` to the import.
pub(crate) async fn import(
    app: &crate::helpers::TestApp,
    key: &str,
    format: &str,
    body: Vec<u8>,
) -> (u16, serde_json::Value) {
    let response = reqwest::Client::new()
        .post(format!(
            "{}/api/v1/surveys/import?format={format}",
            app.address
        ))
        .bearer_auth(key)
        .header(
            "content-type",
            "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        )
        .body(body)
        .send()
        .await
        .expect("answered");
    let status = response.status().as_u16();
    (status, response.json().await.unwrap_or_default())
}

#[tokio::test]
async fn an_xlsform_imports_as_a_draft_with_what_it_could_not_carry_listed_by_row() {
    let app = spawn_app().await;
    let key = app.api_tenant("acme").await;
    // A form as the XLSForm documentation describes one, written here.
    let mut book = rust_xlsxwriter::Workbook::new();
    let rows: [(&str, Vec<Vec<&str>>); 2] = [
        (
            "survey",
            vec![
                vec!["type", "name", "label", "required", "relevant"],
                vec!["select_one yes_no", "likes", "Do you like it?", "yes", ""],
                vec!["text", "why", "Why not?", "", "${likes} = 'no'"],
                vec!["geopoint", "where", "Where are you?", "", ""],
                vec!["integer", "age", "Your age", "", ""],
            ],
        ),
        (
            "choices",
            vec![
                vec!["list_name", "name", "label"],
                vec!["yes_no", "yes", "Yes"],
                vec!["yes_no", "no", "No"],
            ],
        ),
    ];
    for (name, rows) in rows {
        let sheet = book.add_worksheet();
        sheet.set_name(name).expect("a name");
        for (r, row) in rows.iter().enumerate() {
            for (c, cell) in row.iter().enumerate() {
                sheet
                    .write_string(r as u32, c as u16, *cell)
                    .expect("written");
            }
        }
    }
    let (status, body) = import(
        &app,
        &key,
        "xlsform",
        book.save_to_buffer().expect("a book"),
    )
    .await;
    assert_eq!(status, 201, "{body}");
    assert_eq!(body["survey"]["state"], "draft");
    let ids: Vec<&str> = body["survey"]["questions"]
        .as_array()
        .expect("questions")
        .iter()
        .filter_map(|q| q["id"].as_str())
        .collect();
    assert_eq!(ids, ["likes", "why", "age"]);
    assert_eq!(
        body["survey"]["questions"][1]["show_if"],
        json!({"question": "likes", "equals": "No"})
    );
    assert_eq!(body["skipped"].as_array().map(Vec::len), Some(1), "{body}");
    assert_eq!(body["skipped"][0]["row"], 4);
    assert!(
        body["skipped"][0]["reason"]
            .as_str()
            .unwrap_or("")
            .contains("geopoint")
    );

    // A survey's own XLSForm comes back as the same survey.
    let slug = body["survey"]["slug"].as_str().expect("a slug").to_owned();
    let exported = reqwest::Client::new()
        .get(format!("{}/api/v1/surveys/{slug}/xlsform", app.address))
        .bearer_auth(&key)
        .send()
        .await
        .expect("answered")
        .bytes()
        .await
        .expect("a workbook");
    let (status, again) = import(&app, &key, "xlsform", exported.to_vec()).await;
    assert_eq!(status, 201, "{again}");
    assert_eq!(again["skipped"], json!([]));
    assert_eq!(again["survey"]["questions"], body["survey"]["questions"]);

    // What is not an XLSForm is refused clearly.
    let (status, refused) = import(&app, &key, "xlsform", b"not a workbook".to_vec()).await;
    assert_eq!(status, 422, "{refused}");
    assert!(
        refused["error"]
            .as_str()
            .unwrap_or("")
            .contains("cannot be read"),
        "{refused}"
    );
    let (status, _) = import(&app, &key, "spss", b"x".to_vec()).await;
    assert_eq!(status, 400);
}

/// Uploads `bytes` to the site's import: the status and the page.
pub(crate) async fn upload(owner: &crate::owner::Owner<'_>, bytes: Vec<u8>) -> (u16, String) {
    use reqwest::multipart::{Form, Part};
    let csrf = crate::owner::value_of(&owner.page("/tenant/surveys/import").await, "csrf");
    let form = Form::new()
        .text("csrf", csrf)
        .part("sheet", Part::bytes(bytes).file_name("form.xlsx"));
    let response = owner
        .client
        .post(format!("{}/tenant/surveys/import", owner.address()))
        .multipart(form)
        .send()
        .await
        .expect("answered");
    let status = response.status().as_u16();
    (status, response.text().await.expect("a page"))
}

#[tokio::test]
async fn the_site_reads_an_xlsform_shows_what_it_holds_and_makes_the_draft_on_request() {
    use crate::owner::{Owner, form_fields};
    let app = spawn_app().await;
    let owner = Owner::signed_up(&app, "Acme", "acme", "owner@acme.test").await;
    assert!(
        owner
            .page("/tenant")
            .await
            .contains(r#"href="/tenant/surveys/import""#)
    );
    // The XLSForm of a survey of the designer's, as the site gives it.
    let slug = owner.design("Team day").await;
    let exported = owner.get(&format!("/tenant/surveys/{slug}/xlsform")).await;
    let mut bytes = exported.bytes().await.expect("a workbook").to_vec();
    let (status, page) = upload(&owner, bytes.clone()).await;
    assert_eq!(status, 200, "{page}");
    assert!(
        page.contains("&#8220;Team day&#8221;: 6 questions")
            || page.contains("Team day&rdquo;: 6 questions"),
        "{page}"
    );
    assert!(page.contains("Everything comes along."), "{page}");
    // Nothing is made until the owner asks.
    let key = owner.api_key("script").await;
    let (_, listed) = app.api(Method::GET, "/api/v1/surveys", &key, None).await;
    assert_eq!(listed["total"], 1, "{listed}");
    let form = form_fields(&page, r#"action="/tenant/surveys/import/create""#);
    let created = owner
        .post_owned("/tenant/surveys/import/create", &form)
        .await;
    assert_eq!(created.status(), 303);
    let location = created.headers()["location"]
        .to_str()
        .expect("ascii")
        .to_owned();
    assert!(
        location.starts_with("/tenant/surveys/team-day-"),
        "{location}"
    );
    let (_, listed) = app.api(Method::GET, "/api/v1/surveys", &key, None).await;
    assert_eq!(listed["total"], 2, "{listed}");

    // What is not a workbook, and hostile ones, are refused and the server lives on.
    use canvass::bench::uploads;
    bytes.truncate(100);
    for (name, sent) in [
        ("cut short", bytes),
        ("two far cells", uploads::two_cells()),
        ("zip bomb", uploads::zip_bomb()),
        ("repeated cells", uploads::repeated_cells()),
    ] {
        let (status, page) = upload(&owner, sent).await;
        assert_eq!(status, 422, "{name}: {page}");
        assert!(
            page.contains("This file was not imported"),
            "{name}: {page}"
        );
        assert_eq!(app.get("/healthz").await.status(), 200, "after {name}");
    }
}
