//! What the tests of the analysts' downloads (R, Stata, SPSS) share: a survey of every kind
//! of column they type (a choice, ticked options, a date, a number, a long text) answered
//! twice, and the download fetched into a temporary directory.

use serde_json::json;

use crate::helpers::{TestApp, drain};

/// One response: the drink, the extras ticked, the day, the cups and the notes.
pub type Given<'a> = (&'a str, Vec<&'a str>, &'a str, &'a str, &'a str);

/// Publishes the tea survey titled `title` in `key`'s tenant, sends `given` (oldest first)
/// and waits until they are counted; returns the survey's slug.
pub async fn tea_answered(app: &TestApp, key: &str, title: &str, given: &[Given<'_>]) -> String {
    let survey = app
        .published_survey(
            key,
            json!({"title": title, "questions": [
                {"id": "drink", "text": "What did you drink?", "type": "single_choice",
                 "options": ["Tea", "Coffee, black"]},
                {"id": "extras", "text": "Extras", "type": "multiple_choice",
                 "options": ["Sugar", "Milk"]},
                {"id": "day", "text": "When?", "type": "date"},
                {"id": "cups", "text": "Cups", "type": "numeric"},
                {"id": "notes", "text": "Notes", "type": "long_text"}]}),
        )
        .await;
    let slug = survey["slug"].as_str().expect("a slug").to_owned();
    for (drink, extras, day, cups, notes) in given {
        let mut pairs = vec![
            ("drink", *drink),
            ("day", *day),
            ("cups", *cups),
            ("notes", *notes),
        ];
        pairs.extend(extras.iter().map(|e| ("extras", *e)));
        assert_eq!(
            app.answer("acme", &slug, &pairs).await.status(),
            303,
            "sent"
        );
    }
    drain(&app.stores().await).await;
    slug
}

/// `GET /api/v1/surveys/{slug}/responses.{extension}`, checked for its content type; its
/// bytes, written into a fresh directory as `file`.
pub async fn downloaded(
    app: &TestApp,
    key: &str,
    slug: &str,
    extension: &str,
    content_type: &str,
) -> (tempfile::TempDir, std::path::PathBuf) {
    let response = reqwest::Client::new()
        .get(format!(
            "{}/api/v1/surveys/{slug}/responses.{extension}",
            app.address
        ))
        .bearer_auth(key)
        .send()
        .await
        .expect("answered");
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()["content-type"], content_type);
    let dir = tempfile::tempdir().expect("a directory");
    let file = dir.path().join(format!("responses.{extension}"));
    std::fs::write(&file, response.bytes().await.expect("a file")).expect("written");
    (dir, file)
}

/// `file` read by pyreadstat's `reader` (`read_dta`, `read_sav`), with the readers' Python
/// pinned by scripts/test: its columns' values as texts, labels, value labels, formats and
/// rows, as JSON.
pub fn read_with_pyreadstat(reader: &str, file: &std::path::Path) -> serde_json::Value {
    let program = format!(
        r#"
import json, sys, pyreadstat
data, meta = pyreadstat.{reader}(sys.argv[1], output_format="dict")
print(json.dumps({{
    "data": {{k: [str(x) for x in v] for k, v in data.items()}},
    "labels": meta.column_names_to_labels,
    "values": {{k: {{str(c): t for c, t in v.items()}} for k, v in meta.variable_value_labels.items()}},
    "formats": meta.original_variable_types,
    "rows": meta.number_rows,
}}))
"#
    );
    let python = std::env::var("CANVASS_TEST_READERS_PYTHON").expect(
        "CANVASS_TEST_READERS_PYTHON names the readers' Python: run the tests with scripts/test",
    );
    let ran = std::process::Command::new(&python)
        .args(["-c", &program])
        .arg(file)
        .output()
        .expect("python runs");
    assert!(
        ran.status.success(),
        "{}",
        String::from_utf8_lossy(&ran.stderr)
    );
    serde_json::from_slice(&ran.stdout).expect("JSON")
}
