//! LimeSurvey imports over HTTP: survey structures written by hand to LimeSurvey's format (in
//! the layouts of LimeSurvey 3 and 6, `tests/fixtures/limesurvey`) become drafts through the
//! API (`POST /api/v1/surveys/import?format=lss`) and the site's import page, with what does
//! not map listed by question; hostile XML is refused and the server lives on.

use reqwest::Method;
use serde_json::json;

use crate::helpers::spawn_app;
use crate::xlsform::{import, upload};

const SIX: &[u8] = include_bytes!("../fixtures/limesurvey/coffee-ls6.lss");
const THREE: &[u8] = include_bytes!("../fixtures/limesurvey/trip-ls3.lss");

#[tokio::test]
async fn a_limesurvey_structure_imports_as_a_draft_in_its_languages() {
    let app = spawn_app().await;
    let key = app.api_tenant("acme").await;
    let (status, body) = import(&app, &key, "lss", SIX.to_vec()).await;
    assert_eq!(status, 201, "{body}");
    let survey = &body["survey"];
    assert_eq!(survey["title"], "Coffee habits");
    assert_eq!(survey["state"], "draft");
    assert_eq!(survey["languages"], json!(["en", "de"]));
    let pages = survey["pages"].as_array().expect("pages");
    assert_eq!(pages.len(), 2);
    assert_eq!(pages[0]["title"], "About you");
    let ids: Vec<&str> = pages[1]["questions"]
        .as_array()
        .expect("questions")
        .iter()
        .filter_map(|q| q["id"].as_str())
        .collect();
    assert_eq!(ids, ["kind", "extras", "why", "taste"]);
    assert_eq!(
        pages[1]["questions"][2]["show_if"],
        json!({"question": "kind", "equals": "Filter coffee"})
    );
    assert_eq!(body["skipped"].as_array().map(Vec::len), Some(1), "{body}");
    let slug = survey["slug"].as_str().expect("a slug");
    let (_, read) = app
        .api(Method::GET, &format!("/api/v1/surveys/{slug}"), &key, None)
        .await;
    assert!(
        read.to_string().contains("Filterkaffee"),
        "German texts kept: {read}"
    );

    let (status, body) = import(&app, &key, "lss", THREE.to_vec()).await;
    assert_eq!(status, 201, "{body}");
    assert_eq!(body["survey"]["languages"], json!(["en", "fr"]));

    // Hostile or wrong files: a clear 422, nothing made.
    let laughs = br#"<?xml version="1.0"?><!DOCTYPE l [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]><document><LimeSurveyDocType>Survey</LimeSurveyDocType><x>&b;</x></document>"#;
    for (name, bytes) in [
        ("entity expansion", laughs.to_vec()),
        ("not XML", b"PK\x03\x04 not xml".to_vec()),
        (
            "a label set",
            b"<document><LimeSurveyDocType>Label set</LimeSurveyDocType></document>".to_vec(),
        ),
    ] {
        let (status, refused) = import(&app, &key, "lss", bytes).await;
        assert_eq!(status, 422, "{name}: {refused}");
        assert!(
            refused["error"]
                .as_str()
                .unwrap_or("")
                .contains("cannot be read as a LimeSurvey survey structure"),
            "{name}: {refused}"
        );
    }
    let (_, listed) = app.api(Method::GET, "/api/v1/surveys", &key, None).await;
    assert_eq!(listed["total"], 2, "{listed}");
    assert_eq!(app.get("/healthz").await.status(), 200);
}

#[tokio::test]
async fn the_site_reads_a_limesurvey_file_and_lists_what_it_leaves_out_by_question() {
    use crate::owner::Owner;
    let app = spawn_app().await;
    let owner = Owner::signed_up(&app, "Acme", "acme", "owner@acme.test").await;
    let (status, page) = upload(&owner, THREE.to_vec()).await;
    assert_eq!(status, 200, "{page}");
    assert!(page.contains("Last trip"), "{page}");
    assert!(page.contains(r#"<th scope="col">Question</th>"#), "{page}");
    assert!(page.contains("contacts: multiple short text"), "{page}");
}
