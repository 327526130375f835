//! The first start on an empty data directory shows the whole product: the demo owner's
//! sign-in is printed once, and the demo survey comes with sample responses that went through
//! the queue and the worker. `CANVASS_DEMO=false` makes none of it.

use std::time::{Duration, Instant};

use canvass::demo::DEFAULT_RESPONSES as DEFAULT_DEMO_RESPONSES;

use crate::helpers::CanvassProcess;
use crate::owner::Owner;

const SUMMARY: &str = "/tenant/surveys/customer-satisfaction/summary";

/// The summary page once it counts `total`, or a failure after 30 s.
async fn summary_counting(owner: &Owner<'_>, total: u32) -> String {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let page = owner.page(SUMMARY).await;
        if page.contains(&format!(r#"<span class="big">{total}</span>"#)) {
            return page;
        }
        assert!(
            Instant::now() < deadline,
            "the summary never counted {total}: {page}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

#[tokio::test]
async fn a_first_start_prints_the_demo_sign_in_and_fills_the_demo_survey() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let responses = DEFAULT_DEMO_RESPONSES.to_string();
    let env = [("CANVASS_DEMO_RESPONSES", responses.as_str())];
    let server = CanvassProcess::serve(dir.path(), &env);
    let printed = server
        .printed(|lines| lines.iter().any(|l| l.contains("Its results:")))
        .await;
    let said = |label: &str| {
        printed
            .iter()
            .find_map(|line| line.trim().strip_prefix(label))
            .map(|value| value.trim().to_owned())
            .unwrap_or_else(|| panic!("no {label} in {printed:?}"))
    };
    let (email, password) = (said("email:"), said("password:"));
    assert_eq!(email, canvass::demo::OWNER_EMAIL);
    assert!(password.len() >= 20, "a generated password: {password}");
    assert!(
        printed
            .iter()
            .any(|l| l.contains(&format!("{}/tenant/sign-in", server.address))),
        "the sign-in address is printed: {printed:?}"
    );

    let owner = Owner::at(&server.address);
    assert_eq!(owner.sign_in(&email, &password).await.status(), 303);
    let summary = summary_counting(&owner, DEFAULT_DEMO_RESPONSES).await;
    assert!(summary.contains("How would you rate your visit overall?"));
    let responses_page = owner
        .page("/tenant/surveys/customer-satisfaction/responses")
        .await;
    assert!(
        ["Espresso", "Flat white", "Tea"]
            .iter()
            .any(|drink| responses_page.contains(drink)),
        "the sample responses are listed: {responses_page}"
    );
    drop(server);

    // A second start on the same data makes nothing again and prints no password.
    let again = CanvassProcess::serve(dir.path(), &env);
    let printed = again
        .printed(|lines| lines.iter().any(|l| l.contains("Its results:")))
        .await;
    assert!(
        !printed.iter().any(|l| l.contains("password")),
        "{printed:?}"
    );
    let owner = Owner::at(&again.address);
    assert_eq!(owner.sign_in(&email, &password).await.status(), 303);
    summary_counting(&owner, DEFAULT_DEMO_RESPONSES).await;
}

#[tokio::test]
async fn canvass_demo_false_makes_no_demo_at_all() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let server = CanvassProcess::serve(
        dir.path(),
        &[("CANVASS_DEMO", "false"), ("CANVASS_DEMO_RESPONSES", "36")],
    );
    let client = reqwest::Client::new();
    for path in ["/s/demo", "/s/demo/customer-satisfaction"] {
        let response = client
            .get(format!("{}{path}", server.address))
            .send()
            .await
            .expect("answered");
        assert_eq!(response.status(), 404, "{path}");
    }
    let printed = server.printed(|_| true).await;
    assert!(
        !printed.iter().any(|l| l.contains("demo")),
        "nothing about a demo is printed: {printed:?}"
    );
}
