//! The whole service on the Azure adapter: `canvass serve` and two `canvass worker` processes
//! against Azurite with nothing but configuration changed; both workers and both queue shards
//! carry part of the work.

use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::helpers::{CanvassProcess, answer_demo};
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
    let before = summary_total(&env);
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .pool_max_idle_per_host(0)
        .build()
        .expect("a client");

    let mut thanked = 0;
    // A backlog on both shards before the workers start, so both find work at once.
    for stars in ["4", "5", "3", "2", "1"].repeat(40) {
        answer_demo(&client, &server.address, stars).await;
        thanked += 1;
    }
    let logs = tempfile::tempdir().expect("a log folder");
    let mut worker_env = env.to_vec();
    worker_env.extend([
        ("CANVASS_LOG", "canvass=debug"),
        ("CANVASS_LOG_FORMAT", "json"),
        ("CANVASS_WORKER_BATCHES", "1"),
    ]);
    let workers: Vec<CanvassProcess> = (0..2)
        .map(|n| {
            let log = std::fs::File::create(logs.path().join(format!("worker-{n}.log")))
                .expect("a log file");
            CanvassProcess::worker_logging(unused.path(), &worker_env, log)
        })
        .collect();

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
    let logs: Vec<String> = (0..2)
        .map(|n| {
            std::fs::read_to_string(logs.path().join(format!("worker-{n}.log"))).expect("a log")
        })
        .collect();
    for (n, log) in logs.iter().enumerate() {
        assert!(log.contains("worker started"), "worker {n} started: {log}");
        assert!(
            log.contains("batch done"),
            "worker {n} did part of the work: {log}"
        );
    }
    let both: String = logs.concat();
    for shard in ["answers-standard", "answers-standard-1"] {
        let field = format!(r#""queue":"{shard}""#);
        assert!(
            both.lines()
                .any(|line| line.contains("batch done") && line.contains(&field)),
            "the shard {shard} was worked on: {both}"
        );
    }
    for worker in workers {
        let status = worker.terminate();
        assert!(status.success(), "a worker exits 0 on SIGTERM: {status}");
    }
    let status = server.terminate();
    assert!(status.success(), "serve exits 0 on SIGTERM: {status}");
}
