//! The whole product in a real browser: headless Chromium driven by playwright-core (both set
//! up by `scripts/test`), against a `canvass serve` process. Screenshots land in
//! target/screenshots/. Without Node, playwright-core or Chromium this test fails, loudly.

use std::path::Path;
use std::process::Command;

use crate::helpers::CanvassProcess;

#[tokio::test]
async fn an_owner_and_a_respondent_use_canvass_in_a_real_browser() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let modules = root.join("tools/node_modules");
    assert!(
        modules.join("playwright-core").exists(),
        "playwright-core is not installed in tools/: run the README's test command (scripts/test), which installs it"
    );
    let dir = tempfile::tempdir().expect("a temp dir");
    let server = CanvassProcess::serve(dir.path(), &[("CANVASS_DEMO", "false")]);
    let shots = root.join("target/screenshots");
    // Screenshots of an earlier run must not pass for this one's.
    if shots.exists() {
        std::fs::remove_dir_all(&shots).expect("the old screenshots are removed");
    }

    let output = Command::new("node")
        .arg(root.join("tests/browser/e2e.cjs"))
        .arg(&server.address)
        .arg(&shots)
        .env("NODE_PATH", &modules)
        .output()
        .expect("node runs (install Node.js)");

    assert!(
        output.status.success(),
        "{}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    for shot in [
        "sign-up",
        "dashboard",
        "designer",
        "form",
        "thanks",
        "summary",
        "responses",
        "response",
    ] {
        assert!(
            shots.join(format!("{shot}.png")).exists(),
            "no screenshot of the {shot} page"
        );
    }
}
