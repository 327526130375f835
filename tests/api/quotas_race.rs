//! A quota is exact when several OS processes race for its last places: three `canvass serve`
//! processes on one data directory, 45 respondents sending at the same moment through all
//! three for a quota of 10. Exactly 10 are thanked and counted, the others ended; the test
//! shows that requests of different processes were in flight together, and that a thanked
//! and an ended one overlapped, so the race did happen.

use std::sync::Arc;
use std::time::{Duration, Instant};

use reqwest::Method;
use serde_json::json;

use crate::helpers::{CanvassProcess, tenant_with_key, token_in};

/// The quota's limit and how many respondents race for it.
const LIMIT: usize = 10;
const RESPONDENTS: usize = 45;

/// One respondent's send: through which process, when it started and ended, thanked or not.
#[derive(Debug)]
struct Sent {
    process: usize,
    started: Duration,
    ended: Duration,
    thanked: bool,
}

#[tokio::test]
async fn processes_racing_for_the_last_places_of_a_quota_never_pass_it() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let key = tenant_with_key(dir.path(), "acme", "Acme");
    let processes: Vec<CanvassProcess> = (0..3)
        .map(|_| CanvassProcess::serve(dir.path(), &[("CANVASS_DEMO", "false")]))
        .collect();
    let client = reqwest::Client::new();
    let api = |method: Method, path: &str, body: Option<serde_json::Value>| {
        let mut request = client
            .request(method, format!("{}/api/v1{path}", processes[0].address))
            .bearer_auth(&key);
        if let Some(body) = body {
            request = request.json(&body);
        }
        async move {
            let response = request.send().await.expect("answered");
            let status = response.status();
            let body: serde_json::Value = response.json().await.expect("JSON");
            assert!(status.is_success(), "{status}: {body}");
            body
        }
    };
    api(
        Method::POST,
        "/surveys",
        Some(json!({"title": "Tea", "questions": [
            {"id": "drink", "text": "What do you drink?", "type": "single_choice", "options": ["Tea", "Coffee"]}],
            "quotas": [{"id": "tea", "name": "Tea drinkers", "limit": LIMIT,
                        "when": {"question": "drink", "equals": "Tea"}}]})),
    )
    .await;
    api(Method::POST, "/surveys/tea/publish", None).await;

    // Every respondent's form first, each from the process it will send through.
    let mut forms = Vec::new();
    for respondent in 0..RESPONDENTS {
        let process = respondent % processes.len();
        let url = format!("{}/s/acme/tea", processes[process].address);
        let page = client.get(&url).send().await.expect("answered");
        forms.push((process, url, token_in(&page.text().await.expect("a body"))));
    }
    // Then all at once.
    let start = Arc::new(tokio::sync::Barrier::new(RESPONDENTS));
    let origin = Instant::now();
    let sends = forms.into_iter().map(|(process, url, token)| {
        let client = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .expect("a client");
        let start = start.clone();
        tokio::spawn(async move {
            start.wait().await;
            let started = origin.elapsed();
            let response = client
                .post(&url)
                .form(&[("token", token.as_str()), ("q-drink", "Tea")])
                .send()
                .await
                .expect("answered");
            let thanked = response.status() == 303;
            let body = response.text().await.unwrap_or_default();
            assert!(
                thanked || body.contains("Thank you for your time"),
                "{body}"
            );
            Sent {
                process,
                started,
                ended: origin.elapsed(),
                thanked,
            }
        })
    });
    let mut sent = Vec::new();
    for send in futures_util::future::join_all(sends).await {
        sent.push(send.expect("a send"));
    }

    let thanked = sent.iter().filter(|s| s.thanked).count();
    assert_eq!(
        thanked, LIMIT,
        "exactly the quota's places are thanked: {sent:#?}"
    );
    // The race happened: requests of different processes were in flight together, and a
    // thanked one overlapped one ended for want of a place.
    let overlap = |a: &Sent, b: &Sent| a.started < b.ended && b.started < a.ended;
    let across = sent
        .iter()
        .any(|a| sent.iter().any(|b| a.process != b.process && overlap(a, b)));
    let contested = sent.iter().filter(|a| a.thanked).any(|a| {
        sent.iter()
            .filter(|b| !b.thanked && b.process != a.process)
            .any(|b| overlap(a, b))
    });
    println!(
        "{thanked} of {RESPONDENTS} thanked; sends overlapped across processes: {across}; a thanked and an ended one overlapped: {contested}"
    );
    assert!(across && contested, "the sends did not overlap: {sent:#?}");

    // Counted by the processes' workers: exactly the limit, and no more arrive.
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let summary = api(Method::GET, "/surveys/tea/summary", None).await;
        let total = summary["total"].as_u64().expect("a total");
        assert!(total <= LIMIT as u64, "the quota was passed: {summary}");
        if total == LIMIT as u64 {
            break;
        }
        assert!(Instant::now() < deadline, "not counted in 60 s: {summary}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let quotas = api(Method::GET, "/surveys/tea/quotas", None).await;
    assert_eq!(quotas[0]["placed"], LIMIT, "{quotas}");
    assert_eq!(quotas[0]["full"], true);
}
