//! The whole service on the Azure adapter: `canvass serve` and two `canvass worker` processes
//! against Azurite with nothing but configuration changed.

use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::helpers::{CanvassProcess, token_in};
use crate::storage::azure::connection_string;

/// Runs `canvass summary demo customer-satisfaction` on Azure and returns its total.
fn summary_total(env: &[(&str, &str)]) -> u64 {
    let output = Command::new(env!("CARGO_BIN_EXE_canvass"))
        .args(["summary", "demo", "customer-satisfaction"])
        .env("CANVASS_LOG", "error")
        .envs(env.iter().copied())
        .output()
        .expect("canvass summary runs");
    assert!(
        output.status.success(),
        "canvass summary failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let json: Value = serde_json::from_slice(&output.stdout).expect("one JSON object");
    json["total"].as_u64().expect("a total")
}

#[tokio::test]
async fn serve_and_two_workers_on_azurite_count_an_answer_given_over_http() {
    let connection = connection_string();
    let env = [
        ("CANVASS_STORAGE", "azure"),
        ("CANVASS_AZURE_CONNECTION_STRING", connection.as_str()),
        ("CANVASS_QUEUE_SHARDS", "2"),
    ];
    let unused = tempfile::tempdir().expect("a temp dir");
    let mut serve_env = env.to_vec();
    serve_env.push(("CANVASS_NO_WORKER", "true"));
    let server = CanvassProcess::serve(unused.path(), &serve_env);
    let workers = [
        CanvassProcess::worker(unused.path(), &env),
        CanvassProcess::worker(unused.path(), &env),
    ];
    let before = summary_total(&env);
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .pool_max_idle_per_host(0)
        .build()
        .expect("a client");

    let url = format!("{}/s/demo/customer-satisfaction", server.address);
    let mut thanked = 0;
    for stars in ["4", "5", "3"] {
        let form = client.get(&url).send().await.expect("the form");
        assert_eq!(form.status(), 200);
        let token = token_in(&form.text().await.expect("a body"));
        let posted = client
            .post(&url)
            .form(&[
                ("token", token.as_str()),
                ("q-overall", stars),
                ("q-drink", "Tea"),
            ])
            .send()
            .await
            .expect("answered");
        assert_eq!(posted.status(), 303, "thanked");
        thanked += 1;
    }

    let deadline = Instant::now() + Duration::from_secs(60);
    let mut total = summary_total(&env);
    while total < before + thanked {
        assert!(
            Instant::now() < deadline,
            "the workers counted {} of {thanked} answers through Azurite",
            total - before
        );
        tokio::time::sleep(Duration::from_millis(300)).await;
        total = summary_total(&env);
    }
    assert_eq!(total, before + thanked, "every answer counted once");
    // A worker that is still starting (loading its binary) would be killed by SIGTERM's
    // default action rather than stop cleanly; give both a moment to be running.
    tokio::time::sleep(Duration::from_secs(1)).await;
    for worker in workers {
        let status = worker.terminate();
        assert!(status.success(), "a worker exits 0 on SIGTERM: {status}");
    }
    let status = server.terminate();
    assert!(status.success(), "serve exits 0 on SIGTERM: {status}");
}
