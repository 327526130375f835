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
        // Azure's last-modified times are whole seconds: a lease of a few of them.
        ("CANVASS_SHARD_LEASE_SECS", "3"),
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
    let log_dir = tempfile::tempdir().expect("a log folder");
    let mut worker_env = env.to_vec();
    worker_env.extend([
        ("CANVASS_LOG", "canvass=debug"),
        ("CANVASS_LOG_FORMAT", "json"),
        ("CANVASS_WORKER_BATCHES", "1"),
    ]);
    let workers: Vec<CanvassProcess> = (0..2)
        .map(|n| {
            let log = std::fs::File::create(log_dir.path().join(format!("worker-{n}.log")))
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
    let read_logs = || -> Vec<String> {
        (0..2)
            .map(|n| {
                std::fs::read_to_string(log_dir.path().join(format!("worker-{n}.log")))
                    .expect("a log")
            })
            .collect()
    };
    // The backlog may be counted before the dealing ends (a joiner is dealt its share at the
    // holder's next heartbeat): wait for it.
    let dealt = |logs: &[String]| {
        logs.iter()
            .all(|log| log.contains("this worker's answer shards changed"))
    };
    let mut logs = read_logs();
    while !dealt(&logs) && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(200)).await;
        logs = read_logs();
    }
    for (n, log) in logs.iter().enumerate() {
        assert!(log.contains("worker started"), "worker {n} started: {log}");
        assert!(
            log.contains("this worker's answer shards changed"),
            "worker {n} was dealt shards: {log}"
        );
    }
    let both: String = logs.concat();
    // The demo survey's answers all wait in the one shard its name hashes to.
    let demo_shard = match canvass::stores::shard_of(
        &canvass::domain::TenantSlug::parse("demo").expect("a slug"),
        &canvass::domain::SurveySlug::parse("customer-satisfaction").expect("a slug"),
        2,
    ) {
        0 => "answers-standard",
        _ => "answers-standard-1",
    };
    for line in both.lines().filter(|line| line.contains("batch done")) {
        assert!(
            line.contains(&format!(r#""queue":"{demo_shard}""#)),
            "answers were read only from the survey's shard {demo_shard}: {line}"
        );
    }
    for worker in workers {
        let status = worker.terminate();
        assert!(status.success(), "a worker exits 0 on SIGTERM: {status}");
    }
    // The shard's claim let one worker at a time merge the survey's summary.
    for n in 0..2 {
        let log =
            std::fs::read_to_string(log_dir.path().join(format!("worker-{n}.log"))).expect("a log");
        let stopped = log
            .lines()
            .find(|line| line.contains("worker stopped"))
            .unwrap_or_else(|| panic!("worker {n} logged its totals: {log}"));
        assert!(
            stopped.contains(r#""conflicts":0"#),
            "worker {n} lost no ETag race: {stopped}"
        );
    }
    let status = server.terminate();
    assert!(status.success(), "serve exits 0 on SIGTERM: {status}");
}
