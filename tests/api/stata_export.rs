//! The download for Stata (`.dta`, format 118), proven by ReadStat through pyreadstat
//! (pinned by scripts/test): the values, the variables' labels, a choice's value labels, dates
//! and times as Stata's, and a long text with quotes and accents whole.

use serde_json::json;

use crate::helpers::spawn_app;
use crate::tool_files::{downloaded, read_with_pyreadstat, tea_answered};

#[tokio::test]
async fn readstat_reads_the_stata_download_with_its_labels_and_values() {
    let app = spawn_app().await;
    let key = app.api_tenant("acme").await;
    let long = format!("Gut, \"sehr\" gut; café {}", "x".repeat(3_000));
    let given = [
        (
            "Coffee, black",
            vec!["Milk"],
            "2026-11-02",
            "3",
            long.as_str(),
        ),
        ("Tea", vec!["Sugar", "Milk"], "2026-11-03", "1", ""),
    ];
    let slug = tea_answered(&app, &key, "Tea", &given).await;
    let (_dir, file) = downloaded(&app, &key, &slug, "dta", "application/x-stata-dta").await;
    let read = read_with_pyreadstat("read_dta", &file);
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
