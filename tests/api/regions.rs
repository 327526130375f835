//! Regions: the regions file read and refused line by line, a process's storage taken from
//! its region, surveys naming only regions the installation has.

use std::process::Command;

use crate::helpers::spawn_app;

/// Runs `canvass serve` with a regions file holding `text` and this process's `region`; its
/// exit status and what it printed to stderr.
fn serve_with(text: &str, region: Option<&str>) -> (std::process::ExitStatus, String) {
    let dir = tempfile::tempdir().expect("a temp dir");
    let file = dir.path().join("regions.toml");
    std::fs::write(&file, text).expect("written");
    let mut command = Command::new(env!("CARGO_BIN_EXE_canvass"));
    command
        .arg("serve")
        .env("CANVASS_LISTEN", "127.0.0.1:0")
        .env("CANVASS_REGIONS_FILE", &file)
        .env("CANVASS_LOG", "warn")
        .env_remove("CANVASS_REGION");
    if let Some(region) = region {
        command.env("CANVASS_REGION", region);
    }
    let output = command.output().expect("canvass runs");
    (
        output.status,
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

fn two_regions(dir: &std::path::Path) -> String {
    format!(
        "[regions.us]\nstorage = \"local\"\ndata_dir = \"{us}\"\npublic_url = \"http://127.0.0.1:8080\"\n\n\
         [regions.eu]\nstorage = \"local\"\ndata_dir = \"{eu}\"\npublic_url = \"http://127.0.0.1:8081\"\n",
        us = dir.join("us").display(),
        eu = dir.join("eu").display(),
    )
}

#[test]
fn a_process_refuses_a_regions_file_it_cannot_use_naming_the_line() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let good = two_regions(dir.path());
    let us = dir.path().join("us").display().to_string();
    let eu = dir.path().join("eu").display().to_string();
    let cases: [(String, Option<&str>, &str); 4] = [
        // Two regions on one storage.
        (
            good.replace(&eu, &us),
            Some("us"),
            "regions.toml:7: regions us and eu both use the directory",
        ),
        // A region without storage.
        (
            good.replace(&format!("storage = \"local\"\ndata_dir = \"{eu}\"\n"), ""),
            Some("us"),
            "regions.toml:6: region eu has no storage",
        ),
        // An unknown region for this process.
        (
            good.clone(),
            Some("asia"),
            "CANVASS_REGION=asia is not one of its regions (eu, us)",
        ),
        // Two regions and no word on which this process runs in.
        (
            good.clone(),
            None,
            "say which region this process runs in with CANVASS_REGION",
        ),
    ];
    for (text, region, said) in cases {
        let (status, stderr) = serve_with(&text, region);
        assert!(!status.success(), "started with {text}");
        assert!(stderr.contains(said), "expected {said:?} in:\n{stderr}");
    }
}

#[tokio::test]
async fn without_a_regions_file_a_survey_names_no_region() {
    let app = spawn_app().await;
    let key = app.api_tenant("acme").await;
    let (status, refused) = app
        .api(
            reqwest::Method::POST,
            "/api/v1/surveys",
            &key,
            Some(serde_json::json!({
                "title": "Lunch",
                "questions": [{"text": "How was it?", "type": "five_stars"}],
                "regions": ["eu"],
            })),
        )
        .await;
    assert_eq!(status, 422, "{refused}");
    assert_eq!(
        refused["fields"]["regions[0]"],
        "this installation has one region: leave regions out"
    );
    let created = app
        .create_survey(
            &key,
            serde_json::json!({
                "title": "Lunch",
                "questions": [{"text": "How was it?", "type": "five_stars"}],
            }),
        )
        .await;
    assert_eq!(created["regions"], serde_json::json!([]));
    assert_eq!(created["residency"], "home");
}
