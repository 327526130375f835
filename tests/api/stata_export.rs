//! The download for Stata (`.dta`, format 118), proven by ReadStat through pyreadstat
//! (pinned by scripts/test): the values, the variables' labels, a choice's value labels, dates
//! and times as Stata's, and a long text with quotes and accents whole.

use serde_json::{Value, json};

use crate::helpers::{drain, spawn_app};

#[tokio::test]
async fn readstat_reads_the_stata_download_with_its_labels_and_values() {
    let python = std::env::var("CANVASS_TEST_READERS_PYTHON").expect(
        "CANVASS_TEST_READERS_PYTHON names the readers' Python: run the tests with scripts/test",
    );
    let app = spawn_app().await;
    let key = app.api_tenant("acme").await;
    app.published_survey(
        &key,
        json!({"title": "Tea", "questions": [
            {"id": "drink", "text": "What did you drink?", "type": "single_choice",
             "options": ["Tea", "Coffee, black"]},
            {"id": "extras", "text": "Extras", "type": "multiple_choice", "options": ["Sugar", "Milk"]},
            {"id": "day", "text": "When?", "type": "date"},
            {"id": "cups", "text": "Cups", "type": "numeric"},
            {"id": "notes", "text": "Notes", "type": "long_text"}]}),
    )
    .await;
    let long = format!("Gut, \"sehr\" gut; café {}", "x".repeat(3_000));
    for (drink, extras, day, cups, notes) in [
        (
            "Coffee, black",
            vec!["Milk"],
            "2026-11-02",
            "3",
            long.as_str(),
        ),
        ("Tea", vec!["Sugar", "Milk"], "2026-11-03", "1", ""),
    ] {
        let mut pairs = vec![
            ("drink", drink),
            ("day", day),
            ("cups", cups),
            ("notes", notes),
        ];
        pairs.extend(extras.iter().map(|e| ("extras", *e)));
        assert_eq!(app.answer("acme", "tea", &pairs).await.status(), 303);
    }
    drain(&app.stores().await).await;
    let response = reqwest::Client::new()
        .get(format!("{}/api/v1/surveys/tea/responses.dta", app.address))
        .bearer_auth(&key)
        .send()
        .await
        .expect("answered");
    assert_eq!(response.status(), 200);
    assert_eq!(
        response.headers()["content-type"],
        "application/x-stata-dta"
    );
    let dir = tempfile::tempdir().expect("a directory");
    let file = dir.path().join("tea.dta");
    std::fs::write(&file, response.bytes().await.expect("a file")).expect("written");
    let program = r#"
import json, sys, pyreadstat
data, meta = pyreadstat.read_dta(sys.argv[1], output_format="dict")
print(json.dumps({
    "data": {k: [str(x) for x in v] for k, v in data.items()},
    "labels": meta.column_names_to_labels,
    "values": {k: {str(c): t for c, t in v.items()} for k, v in meta.variable_value_labels.items()},
    "formats": meta.original_variable_types,
}))
"#;
    let ran = std::process::Command::new(&python)
        .args(["-c", program])
        .arg(&file)
        .output()
        .expect("python runs");
    assert!(
        ran.status.success(),
        "{}",
        String::from_utf8_lossy(&ran.stderr)
    );
    let read: Value = serde_json::from_slice(&ran.stdout).expect("JSON");
    let data = &read["data"];
    // Oldest first.
    assert_eq!(data["drink"], json!(["2", "1"]));
    assert_eq!(
        read["values"]["drink"],
        json!({"1": "Tea", "2": "Coffee, black"})
    );
    assert_eq!(read["labels"]["drink"], "What did you drink?");
    assert_eq!(read["labels"]["extras_Sugar"], "Extras: Sugar");
    assert_eq!(data["extras_Sugar"], json!(["0.0", "1.0"]));
    assert_eq!(data["extras_Milk"], json!(["1.0", "1.0"]));
    assert_eq!(data["day"], json!(["2026-11-02", "2026-11-03"]));
    assert_eq!(read["formats"]["day"], "%td");
    assert_eq!(read["formats"]["submitted_at"], "%tc");
    assert_eq!(data["cups"], json!(["3.0", "1.0"]));
    assert_eq!(data["notes"][0], long.as_str());
    assert_eq!(data["notes"][1], "");
}
