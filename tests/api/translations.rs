//! The tenant's translation tools: the languages set on the survey's Languages page, each text
//! beside the default with what is missing, and the sheet for translators downloaded (XLSX and
//! CSV) and imported back, all or nothing with problems by row.

use reqwest::Method;
use reqwest::multipart::{Form, Part};
use serde_json::json;

use crate::helpers::{TestApp, spawn_app};
use crate::owner::{Owner, value_of};

/// "Lunch" in English only, with an introduction that links somewhere.
async fn lunch(app: &TestApp) -> (Owner<'_>, String) {
    let owner = Owner::signed_up(app, "Acme", "acme", "owner@acme.test").await;
    let key = owner.api_key("translations").await;
    app.published_survey(
        &key,
        json!({
            "title": "Lunch",
            "description": "Read [the menu](https://acme.test/menu) first.",
            "questions": [
                {"id": "drink", "text": "What did you drink?", "type": "single_choice", "options": ["Tea", "Coffee"]},
            ],
            "thank_you": "Enjoy!",
        }),
    )
    .await;
    (owner, key)
}

async fn import(owner: &Owner<'_>, name: &str, bytes: Vec<u8>) -> (u16, String) {
    let csrf = value_of(
        &owner.page("/tenant/surveys/lunch/translations").await,
        "csrf",
    );
    let form = Form::new()
        .text("csrf", csrf)
        .part("sheet", Part::bytes(bytes).file_name(name.to_owned()));
    let response = owner
        .client
        .post(format!(
            "{}/tenant/surveys/lunch/translations/import",
            owner.address()
        ))
        .multipart(form)
        .send()
        .await
        .expect("answered");
    let status = response.status().as_u16();
    let body = match status {
        303 => {
            let next = response.headers()["location"]
                .to_str()
                .expect("a location")
                .to_owned();
            owner.page(&next).await
        }
        _ => response.text().await.expect("a body"),
    };
    (status, body)
}

#[tokio::test]
async fn a_tenant_sets_languages_translates_beside_the_default_and_sees_what_is_missing() {
    let app = spawn_app().await;
    let (owner, key) = lunch(&app).await;
    let path = "/tenant/surveys/lunch/translations";
    let page = owner.page(path).await;
    assert!(page.contains(r#"value="en""#), "{page}");
    assert!(page.contains("Add a second language above"));
    assert!(
        owner
            .page("/tenant/surveys/lunch")
            .await
            .contains(r#"href="/tenant/surveys/lunch/translations">Languages</a>"#),
        "the designer's tabs lead there"
    );

    // A wrong tag is refused beside the field, and nothing changes.
    let csrf = value_of(&page, "csrf");
    let refused = owner
        .post(
            "/tenant/surveys/lunch/languages",
            &[("csrf", &csrf), ("languages", "en, xx-!!")],
        )
        .await;
    assert_eq!(refused.status(), 422);
    let refused = refused.text().await.expect("a body");
    assert!(
        refused.contains(r#"id="languages-error""#) && refused.contains("is not a language tag"),
        "{refused}"
    );
    assert!(
        refused.contains(r#"value="en, xx-!!""#),
        "what was typed stays"
    );

    // Languages are picked by name: the site's eight first, fully translated, then the rest.
    assert!(
        page.contains(r#"<option value="de">Deutsch (de)</option>"#)
            && page.contains(r#"<option value="sw">Swahili – Kiswahili (sw)</option>"#),
        "{page}"
    );
    let saved = owner
        .post(
            "/tenant/surveys/lunch/languages",
            &[("csrf", &csrf), ("languages", "en, de"), ("add", "sw")],
        )
        .await;
    assert_eq!(saved.status(), 303);
    let page = owner.page(path).await;
    assert!(
        page.contains("Saved: offered in English (en), Deutsch (de), Kiswahili (sw)."),
        "{page}"
    );
    assert!(
        !page.contains(r#"<option value="sw">"#),
        "a language offered is not offered again"
    );

    let saved = owner
        .post(
            "/tenant/surveys/lunch/languages",
            &[("csrf", &csrf), ("languages", "en, de ar")],
        )
        .await;
    assert_eq!(saved.status(), 303);
    let page = owner.page(path).await;
    assert!(
        page.contains("Saved: offered in English (en), Deutsch (de), العربية (ar)."),
        "{page}"
    );
    // Five texts: title, introduction, question, two options, thanks: six in all.
    assert!(page.contains("(de): 6 of 6 missing"), "{page}");
    assert!(page.contains("(ar): 6 of 6 missing"));
    assert!(
        page.contains(
            r#"<label for="t-4">Question 1, option 1 <span class="badge">Missing</span></label>"#
        ),
        "{page}"
    );
    assert!(page.contains(r#"<span lang="en">Tea</span>"#));
    assert!(
        page.contains(r#"name="t:q:drink:option:0" lang="de" dir="ltr""#),
        "{page}"
    );

    // German, partly: a Markdown text that loses its link is refused, by its field.
    let csrf = value_of(&page, "csrf");
    let german = |intro: &'static str| {
        vec![
            ("csrf", csrf.clone()),
            ("t:title", "Mittagessen".to_owned()),
            ("t:description", intro.to_owned()),
            ("t:q:drink:option:0", "Tee".to_owned()),
        ]
    };
    let form: Vec<(String, String)> = german("Lesen Sie [die Karte(https://acme.test/menu).")
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v))
        .collect();
    let refused = owner.post_owned(&format!("{path}?lang=de"), &form).await;
    assert_eq!(refused.status(), 422);
    let refused = refused.text().await.expect("a body");
    assert!(
        refused.contains("the default text links to https://acme.test/menu"),
        "{refused}"
    );
    assert!(
        refused.contains(r#">Mittagessen</textarea>"#),
        "what was typed stays"
    );
    let form: Vec<(String, String)> = german("Lesen Sie [die Karte](https://acme.test/menu).")
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v))
        .collect();
    let saved = owner.post_owned(&format!("{path}?lang=de"), &form).await;
    assert_eq!(saved.status(), 303);
    let page = owner.page(&format!("{path}?lang=de")).await;
    assert!(
        page.contains("Saved Deutsch (de): 3 texts are missing."),
        "{page}"
    );
    assert!(page.contains("(de): 3 of 6 missing"));
    let (_, survey) = app
        .api(Method::GET, "/api/v1/surveys/lunch", &key, None)
        .await;
    assert_eq!(
        survey["translations"]["de"]["q:drink:option:0"], "Tee",
        "{survey}"
    );
    assert_eq!(survey["languages"], json!(["en", "de", "ar"]));
    assert_eq!(
        survey["version"], 1,
        "languages and translations make no new version of a published survey"
    );

    // The respondent's page in German shows them.
    let form = app
        .get("/s/acme/lunch?lang=de")
        .await
        .text()
        .await
        .expect("a body");
    assert!(
        form.contains("<h1>Mittagessen</h1>") && form.contains("<span>Tee</span>"),
        "{form}"
    );

    // Dropping Arabic keeps German's texts.
    let csrf = value_of(&page, "csrf");
    owner
        .post(
            "/tenant/surveys/lunch/languages",
            &[("csrf", &csrf), ("languages", "en,de")],
        )
        .await;
    let (_, survey) = app
        .api(Method::GET, "/api/v1/surveys/lunch", &key, None)
        .await;
    assert_eq!(survey["languages"], json!(["en", "de"]));
    assert_eq!(survey["translations"]["de"]["title"], "Mittagessen");
}

#[tokio::test]
async fn the_sheet_goes_to_translators_and_comes_back_all_or_nothing() {
    let app = spawn_app().await;
    let (owner, key) = lunch(&app).await;
    let mut definition = json!({
        "title": {"en": "Lunch", "de": "Mittagessen"},
        "description": "Read [the menu](https://acme.test/menu) first.",
        "languages": ["en", "de", "ar"],
        "questions": [
            {"id": "drink", "text": "What did you drink?", "type": "single_choice", "options": ["Tea", "Coffee"]},
        ],
        "thank_you": "Enjoy!",
    });
    let (status, body) = app
        .api(
            Method::PUT,
            "/api/v1/surveys/lunch",
            &key,
            Some(definition.clone()),
        )
        .await;
    assert_eq!(status, 200, "{body}");

    // CSV: one row per text, one column per language; what is translated is filled in.
    let csv = owner.get("/tenant/surveys/lunch/translations.csv").await;
    assert_eq!(csv.status(), 200);
    assert_eq!(csv.headers()["content-type"], "text/csv; charset=utf-8");
    assert!(
        csv.headers()["content-disposition"]
            .to_str()
            .expect("text")
            .contains("acme-lunch-translations.csv")
    );
    let csv = csv.text().await.expect("a body");
    let lines: Vec<&str> = csv.trim_start_matches('\u{feff}').lines().collect();
    assert_eq!(lines[0], "key,en,de,ar");
    assert_eq!(lines[1], "title,Lunch,Mittagessen,");
    assert_eq!(lines.len(), 7, "{csv}");

    // XLSX: the same, read as a spreadsheet program would.
    let xlsx = owner.get("/tenant/surveys/lunch/translations.xlsx").await;
    assert_eq!(xlsx.status(), 200);
    let bytes = xlsx.bytes().await.expect("a body").to_vec();
    let rows = canvass::export::text_sheet::read_rows(
        &bytes,
        &canvass::export::workbook::Bounds::sheet(100, 64, 10_000),
    )
    .expect("a workbook");
    assert_eq!(rows[0], ["key", "en", "de", "ar"]);
    assert_eq!(rows[2][0], "description");
    assert_eq!(rows.len(), 7);

    // Filled in badly: every problem by row, and nothing changes.
    let bad = "key,en,de,ar\n\
               title,Lunch,Mittag,غداء\n\
               q:gone:text,x,y,z\n\
               description,Read,Lesen Sie <b>das</b> [die Karte](https://acme.test/menu),\n\
               title,Lunch,Nochmal,\n";
    let (status, page) = import(&owner, "lunch.csv", bad.as_bytes().to_vec()).await;
    assert_eq!(status, 422, "{page}");
    for said in [
        "Row 3: the survey has no text by the key q:gone:text",
        "Row 4, de: this translation holds HTML",
        "Row 5: title is on row 2 already",
    ] {
        assert!(page.contains(said), "{said} in {page}");
    }
    let (_, survey) = app
        .api(Method::GET, "/api/v1/surveys/lunch", &key, None)
        .await;
    assert_eq!(
        survey["translations"]["de"]["title"], "Mittagessen",
        "nothing changed"
    );
    let (status, page) = import(&owner, "notes.csv", vec![0xff, 0xfe, 0x00, 0x41]).await;
    assert_eq!(status, 422);
    assert!(
        page.contains("Nothing was imported: this file is neither XLSX nor UTF-8 CSV"),
        "{page}"
    );
    let (status, page) = import(&owner, "big.csv", vec![b'a'; 2 * 1024 * 1024 + 1]).await;
    assert_eq!(status, 422);
    assert!(page.contains("larger than 2 MB"), "{page}");

    // Filled in well, as an XLSX named anything: imported, and shown to respondents.
    let mut rows = rows;
    rows[1][3] = "الغداء".into();
    rows[4][2] = "Tee".into();
    rows[4][3] = "شاي".into();
    let workbook = canvass::export::text_sheet::xlsx_bytes(&rows, "Translations").expect("written");
    let (status, page) = import(&owner, "translations.txt", workbook).await;
    assert_eq!(status, 303, "{page}");
    assert!(page.contains("Imported: 3 texts changed."), "{page}");
    let (_, survey) = app
        .api(Method::GET, "/api/v1/surveys/lunch", &key, None)
        .await;
    assert_eq!(survey["translations"]["ar"]["title"], "الغداء");
    assert_eq!(survey["translations"]["de"]["q:drink:option:0"], "Tee");
    assert_eq!(
        survey["translations"]["de"]["title"], "Mittagessen",
        "kept as it was"
    );
    let form = app
        .get("/s/acme/lunch?lang=ar")
        .await
        .text()
        .await
        .expect("a body");
    assert!(
        form.contains("<h1>الغداء</h1>") && form.contains("<span>شاي</span>"),
        "{form}"
    );

    // The JSON API refuses what the import refuses: a Markdown text that loses its link.
    definition["translations"] = json!({"de": {"description": "Lesen Sie die Karte."}});
    let (status, body) = app
        .api(Method::PUT, "/api/v1/surveys/lunch", &key, Some(definition))
        .await;
    assert_eq!(status, 422, "{body}");
    assert!(
        body.to_string().contains("links to https://acme.test/menu"),
        "{body}"
    );
}
