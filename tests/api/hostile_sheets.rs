//! No uploaded spreadsheet can take the server down: two cells at the far corners of a sheet,
//! a zip bomb named .xlsx and one text repeated in millions of cells are each refused by the
//! translations and participants imports with a 422 naming the bound they passed, and the
//! server goes on answering. (Their time and peak memory: `canvass bench uploads`.)

use reqwest::multipart::{Form, Part};
use serde_json::json;

use crate::helpers::spawn_app;
use crate::owner::{Owner, value_of};

/// Uploads `bytes` as `name` to the import form of `page`: the status and the page.
async fn upload(owner: &Owner<'_>, page: &str, bytes: Vec<u8>) -> (u16, String) {
    let csrf = value_of(&owner.page(page).await, "csrf");
    let form = Form::new()
        .text("csrf", csrf)
        .part("sheet", Part::bytes(bytes).file_name("sheet.xlsx"));
    let response = owner
        .client
        .post(format!("{}{page}/import", owner.address()))
        .multipart(form)
        .send()
        .await
        .expect("answered");
    let status = response.status().as_u16();
    (status, response.text().await.expect("a page"))
}

#[tokio::test]
async fn hostile_sheets_are_refused_by_both_imports_naming_the_bound_and_the_server_lives() {
    let app = spawn_app().await;
    let owner = Owner::signed_up(&app, "Acme", "acme", "owner@acme.test").await;
    let key = owner.api_key("sheets").await;
    app.create_survey(
        &key,
        json!({"title": "Lunch", "languages": ["en", "de"],
               "questions": [{"text": "How was it?", "type": "five_stars"}]}),
    )
    .await;
    use canvass::bench::uploads;
    // Each sheet, and what each import says of it (translations, participants).
    let cases: [(&str, Vec<u8>, [&str; 2]); 3] = [
        (
            "two far cells",
            uploads::two_cells(),
            [
                "the sheet has more than 10,000 rows",
                "the sheet has more than 100,001 rows",
            ],
        ),
        (
            "zip bomb",
            uploads::zip_bomb(),
            [
                "the workbook unpacks to more than 134 MB",
                "the workbook unpacks to more than 134 MB",
            ],
        ),
        (
            "repeated cells",
            uploads::repeated_cells(),
            [
                "the sheet has more than 32 columns",
                "the sheet holds more than 2,000,000 cells",
            ],
        ),
    ];
    for (name, bytes, said) in cases {
        for (page, said) in [
            ("/tenant/surveys/lunch/translations", said[0]),
            ("/tenant/surveys/lunch/participants", said[1]),
        ] {
            let (status, shown) = upload(&owner, page, bytes.clone()).await;
            assert_eq!(status, 422, "{name} at {page}");
            assert!(
                shown.contains(said),
                "{name} at {page}: expected {said:?} in {shown}"
            );
        }
        assert_eq!(app.get("/healthz").await.status(), 200, "after {name}");
    }
    // Nothing was added.
    let (_, listed) = app
        .api(
            reqwest::Method::GET,
            "/api/v1/surveys/lunch/participants",
            &key,
            None,
        )
        .await;
    assert_eq!(listed["participants"], json!([]), "{listed}");
}
