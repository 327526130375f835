//! The download for SPSS (`.sav`), proven by two readers nobody here wrote: ReadStat through
//! pyreadstat, and GNU PSPP (both pinned by scripts/test). The values, the variables' long
//! names and labels, a choice's value labels, dates and times as SPSS's, a text longer than
//! 255 bytes (a very long string) whole, and an unanswered number missing.

use serde_json::json;

use crate::helpers::spawn_app;
use crate::tool_files::{downloaded, read_with_pyreadstat, tea_answered};

#[tokio::test]
async fn readstat_and_pspp_read_the_spss_download_with_its_labels_and_values() {
    let pspp = std::env::var("CANVASS_TEST_PSPP")
        .expect("CANVASS_TEST_PSPP names GNU PSPP's pspp: run the tests with scripts/test");
    let app = spawn_app().await;
    let key = app.api_tenant("acme").await;
    let long = format!("Gut, \"sehr\" gut; café {}", "x".repeat(3_000));
    let given = [
        (
            "Coffee, black",
            vec!["Milk"],
            "2026-11-02",
            "3.5",
            long.as_str(),
        ),
        ("Tea", vec!["Sugar", "Milk"], "2026-11-03", "", "kurz"),
    ];
    let slug = tea_answered(&app, &key, "Tea", &given).await;
    let (dir, file) = downloaded(&app, &key, &slug, "sav", "application/x-spss-sav").await;
    let read = read_with_pyreadstat("read_sav", &file);
    let data = &read["data"];
    assert_eq!(read["rows"], 2);
    // Oldest first.
    assert_eq!(data["drink"], json!(["2.0", "1.0"]));
    assert_eq!(
        read["values"]["drink"],
        json!({"1.0": "Tea", "2.0": "Coffee, black"})
    );
    assert_eq!(read["labels"]["drink"], "What did you drink?");
    assert_eq!(read["labels"]["extras_Sugar"], "Extras: Sugar");
    assert_eq!(data["extras_Sugar"], json!(["0.0", "1.0"]));
    assert_eq!(data["extras_Milk"], json!(["1.0", "1.0"]));
    assert_eq!(data["day"], json!(["2026-11-02", "2026-11-03"]));
    assert_eq!(read["formats"]["day"], "DATE11");
    assert_eq!(read["formats"]["submitted_at"], "DATETIME20");
    // Unanswered: system-missing, which pyreadstat reads as None.
    assert_eq!(data["cups"], json!(["3.5", "None"]));
    assert_eq!(data["notes"][0], long.as_str());
    assert_eq!(data["notes"][1], "kurz");

    // PSPP: the dictionary and the cases, as its own listing shows them.
    let syntax = dir.path().join("read.sps");
    std::fs::write(
        &syntax,
        format!(
            "GET FILE='{}'.\nDISPLAY DICTIONARY.\nLIST VARIABLES=drink cups day.\n\
             COMPUTE length = LENGTH(RTRIM(notes)).\nLIST VARIABLES=length.\n",
            file.display()
        ),
    )
    .expect("written");
    let ran = std::process::Command::new(&pspp)
        .args(["-O", "format=txt", "-o"])
        .arg(dir.path().join("out.txt"))
        .arg(&syntax)
        .output()
        .expect("pspp runs");
    let listing = std::fs::read_to_string(dir.path().join("out.txt")).unwrap_or_default();
    assert!(
        ran.status.success() && !listing.contains("error") && !listing.contains("warning"),
        "{}{}{listing}",
        String::from_utf8_lossy(&ran.stdout),
        String::from_utf8_lossy(&ran.stderr)
    );
    for shown in [
        "What did you drink?",
        "Coffee, black",
        "02-NOV-2026",
        "3.50",
        // The long text whole: its bytes in UTF-8.
        &format!("{}.00", long.len()),
    ] {
        assert!(listing.contains(shown), "{shown} in {listing}");
    }
}
