//! The download for R, proven by R itself (Debian's r-base-core, installed by scripts/test):
//! its script reads the CSV beside it into a data frame whose choices are factors with the
//! survey's options as levels, whose dates are dates and submission times POSIXct, whose
//! ticked options are 0/1 numbers, with each column's question as its label and long texts
//! with commas, quotes, line breaks and accents intact.

use std::io::Read;

use crate::helpers::spawn_app;
use crate::tool_files::{downloaded, tea_answered};

#[tokio::test]
async fn r_reads_the_download_typed_labelled_and_exact() {
    let rscript = std::env::var("CANVASS_TEST_RSCRIPT")
        .expect("CANVASS_TEST_RSCRIPT names Rscript: run the tests with scripts/test");
    let app = spawn_app().await;
    let key = app.api_tenant("acme").await;
    let tricky = "Gut, \"sehr\" gut;\nzweite Zeile — café";
    let given = [
        ("Coffee, black", vec!["Milk"], "2026-11-02", "3", tricky),
        ("Tea", vec!["Sugar", "Milk"], "2026-11-03", "1", "ok"),
    ];
    let slug = tea_answered(&app, &key, "Tea \"break\"", &given).await;
    let (dir, file) = downloaded(&app, &key, &slug, "zip", "application/zip").await;
    let bytes = std::fs::read(&file).expect("the zip");
    let mut zip = zip::ZipArchive::new(std::io::Cursor::new(bytes.to_vec())).expect("a zip");
    for name in ["responses.csv", "responses.R"] {
        let mut entry = zip.by_name(name).expect(name);
        let mut content = Vec::new();
        entry.read_to_end(&mut content).expect("read");
        std::fs::write(dir.path().join(name), content).expect("written");
    }
    let program = r#"
source("responses.R")
out <- function(...) cat(paste0(...), "\n", sep = "")
out("rows=", nrow(responses))
out("drink=", class(responses$drink), ":", paste(levels(responses$drink), collapse = "|"))
out("day=", class(responses$day), ":", format(min(responses$day)))
out("submitted=", class(responses$submitted)[1])
out("cups=", class(responses$cups), ":", sum(responses$cups))
out("sugar=", sum(responses[["extras.Sugar"]]), " milk=", sum(responses[["extras.Milk"]]))
out("label=", attr(responses$drink, "label"))
writeLines(responses$notes[responses$cups == 3], "notes.txt", useBytes = TRUE)
"#;
    let ran = std::process::Command::new(&rscript)
        .current_dir(dir.path())
        .args(["--vanilla", "-e", program])
        .output()
        .expect("Rscript runs");
    let said = String::from_utf8_lossy(&ran.stdout);
    assert!(
        ran.status.success(),
        "{said} {}",
        String::from_utf8_lossy(&ran.stderr)
    );
    for line in [
        "rows=2",
        "drink=factor:Tea|Coffee, black",
        "day=Date:2026-11-02",
        "submitted=POSIXct",
        "cups=numeric:4",
        "sugar=1 milk=2",
        "label=What did you drink?",
    ] {
        assert!(said.contains(line), "{line:?} in R's output:\n{said}");
    }
    let notes = std::fs::read_to_string(dir.path().join("notes.txt")).expect("R's notes");
    assert_eq!(notes.trim_end_matches('\n'), tricky);
}
