//! The whole product in a real browser: headless Chromium driven by playwright-core (both set
//! up by `scripts/test`), against a `canvass serve` process: an owner and a respondent
//! (`tests/browser/e2e.cjs`), then a survey of pages with logic answered on a phone with and
//! without JavaScript (`tests/browser/logic.cjs`), then a survey in three languages answered
//! in Arabic, right to left, on a phone (`tests/browser/languages.cjs`), then a survey made
//! from a template and shown one question per screen (`tests/browser/gallery.cjs`), then a
//! 9-question survey built as a newcomer would, its clicks counted (`tests/browser/builder.cjs`), then a long survey
//! (a photo, a recalled answer, saved and resumed, a full quota: `tests/browser/long.cjs`), then
//! invitations emailed to participants and an opt-out (`tests/browser/mailings.cjs`), then a team: an invitation accepted and a
//! forgotten password reset (`tests/browser/members.cjs`). Every page visited passes axe-core's audit
//! (`tests/browser/audit.cjs`). Screenshots land in target/screenshots/.
//! Without Node, playwright-core or Chromium this test fails, loudly.

use std::path::Path;
use std::process::Command;

use crate::helpers::CanvassProcess;

#[tokio::test]
async fn an_owner_and_a_respondent_use_canvass_in_a_real_browser() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let modules = root.join("tools/node_modules");
    for tool in ["playwright-core", "axe-core"] {
        assert!(
            modules.join(tool).exists(),
            "{tool} is not installed in tools/: run the README's test command (scripts/test), which installs it"
        );
    }
    let dir = tempfile::tempdir().expect("a temp dir");
    let server = CanvassProcess::serve(dir.path(), &[("CANVASS_DEMO", "false")]);
    let shots = root.join("target/screenshots");
    // Screenshots of an earlier run must not pass for this one's.
    if shots.exists() {
        std::fs::remove_dir_all(&shots).expect("the old screenshots are removed");
    }

    run_script(
        &root.join("tests/browser/e2e.cjs"),
        &[&server.address, &shots],
    );
    // A tenant made as an operator does, with its API key, for the survey of pages.
    let key = crate::helpers::tenant_with_key(dir.path(), "pages", "Pages");
    run_script(
        &root.join("tests/browser/logic.cjs"),
        &[&server.address, &key, &shots],
    );
    // A survey in three languages, answered in Arabic on a phone, with and without scripts.
    run_script(
        &root.join("tests/browser/languages.cjs"),
        &[&server.address, &key, &shots],
    );
    // A newcomer builds a 9-question survey of two pages with a skip rule and a recall.
    run_script(
        &root.join("tests/browser/builder.cjs"),
        &[&server.address, &shots],
    );
    // Templates: the gallery, a preview, a draft made and shown one question per screen,
    // answered with the keys on a phone and without JavaScript on a desktop.
    run_script(
        &root.join("tests/browser/gallery.cjs"),
        &[&server.address, &shots],
    );
    // A long survey: a photo, a recalled rating, saved and resumed, a full quota, and the
    // owner's drop-off, quotas and download.
    run_script(
        &root.join("tests/browser/long.cjs"),
        &[&server.address, &shots],
    );
    // Mailings: a server that emails (to an SMTP server of the test's own, which refuses
    // `refused-` addresses), with its own address as the links' address.
    let smtp = crate::smtp_tls::Server::start("plain");
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .expect("a free port")
        .port();
    let (listen, site, smtp_url) = (
        format!("127.0.0.1:{port}"),
        format!("http://127.0.0.1:{port}"),
        format!("smtp://{}", smtp.address),
    );
    let mailing_dir = tempfile::tempdir().expect("a temp dir");
    let mailing = CanvassProcess::serve(
        mailing_dir.path(),
        &[
            ("CANVASS_DEMO", "false"),
            ("CANVASS_LISTEN", &listen),
            ("CANVASS_PUBLIC_URL", &site),
            ("CANVASS_SMTP_URL", &smtp_url),
        ],
    );
    run_script(
        &root.join("tests/browser/mailings.cjs"),
        &[&mailing.address, &shots],
    );
    assert_eq!(
        smtp.mailbox().counts().get("ann@clinic.test"),
        Some(&1),
        "the walk's invitation reached Ann once"
    );
    drop(mailing);
    // Teams: an invitation accepted on a phone, then a reset link made in the shell.
    let members = root.join("tests/browser/members.cjs");
    run_script(&members, &[&"invite", &server.address, &shots]);
    let made = Command::new(env!("CARGO_BIN_EXE_canvass"))
        .args(["member", "reset-link", "editor@teamtea.test"])
        .env("CANVASS_DATA_DIR", dir.path())
        .env("CANVASS_PUBLIC_URL", &server.address)
        .env("CANVASS_LOG", "warn")
        .output()
        .expect("canvass member reset-link runs");
    assert!(
        made.status.success(),
        "{}",
        String::from_utf8_lossy(&made.stderr)
    );
    let printed = String::from_utf8_lossy(&made.stdout);
    let link = printed.lines().last().expect("the link is printed").trim();
    run_script(&members, &[&"reset", &server.address, &shots, &link]);

    for shot in [
        "logic-js-page-1",
        "logic-js-page-2",
        "logic-js-page-3",
        "logic-no-js-page-1",
        "logic-no-js-page-3",
        "arabic-js-page-1",
        "arabic-js-page-2",
        "arabic-thanks",
        "arabic-no-js-page-1",
        "arabic-no-js-page-2",
        "long-js-page-1",
        "long-js-page-2",
        "long-saved-phone",
        "long-resumed-no-js",
        "long-thanks-no-js",
        "long-quota-ended-no-js",
        "long-file-refused-no-js",
        "long-summary",
        "long-summary-phone",
        "long-quotas",
        "long-quotas-phone",
        "long-designer-phone",
        "long-response",
        "long-response-phone",
        "long-designer-file-phone",
        "long-participant",
        "long-participant-phone",
        "long-participants-preview",
        "long-participants",
        "long-participants-phone",
        "long-by-invitation-no-js",
        "long-link-answered-no-js",
        "mailings",
        "mailings-phone",
        "mailings-preview",
        "mailings-sent",
        "mailings-sent-phone",
        "opt-out-no-js",
        "opted-out-no-js",
        "participant-history",
        "participant-history-phone",
        "sign-up",
        "dashboard",
        "designer",
        "form",
        "thanks",
        "summary",
        "summary-segment",
        "summary-segment-phone",
        "responses-segment-phone",
        "responses",
        "response",
        "response-by-reference",
        "settings",
        "designer-share",
        "dashboard-phone",
        "closed",
        "responses-filtered",
        "webhooks",
        "delete-responses-confirm",
        "responses-after-delete",
        "delete-confirm",
        "designer-errors",
        "designer-no-js",
        "preview",
        "designer-phone",
        "designer-logic-phone",
        "designer-logic-phone-no-js",
        "translations-phone",
        "translations",
        "dashboard-wide",
        "dashboard-phone-published",
        "summary-phone",
        "responses-phone",
        "response-phone",
        "settings-phone",
        "api-keys-phone",
        "api-keys",
        "revoke-confirm",
        "home",
        "tenant-surveys",
        "sign-in",
        "not-found",
        "deleted-notice",
        "members",
        "members-invited",
        "join-phone",
        "joined-phone",
        "members-after-join",
        "remove-member-confirm",
        "join-used-phone",
        "forgot-password-phone",
        "reset-password-phone",
        "reset-done-phone",
        "account",
        "readme-form-phone",
        "readme-designer",
        "readme-summary",
    ] {
        assert!(
            shots.join(format!("{shot}.png")).exists(),
            "no screenshot of the {shot} page"
        );
    }
}

/// Runs a browser script with Node (playwright-core from tools/); fails with its output.
fn run_script(script: &Path, args: &[&dyn AsRef<std::ffi::OsStr>]) {
    let modules = Path::new(env!("CARGO_MANIFEST_DIR")).join("tools/node_modules");
    let output = Command::new("node")
        .arg(script)
        .args(args.iter().map(|arg| arg.as_ref()))
        .env("NODE_PATH", &modules)
        .output()
        .expect("node runs (install Node.js)");
    assert!(
        output.status.success(),
        "{}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}
