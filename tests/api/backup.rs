//! `canvass backup`: taken while `serve` accepts answers and a worker counts them, restored
//! into a new data directory, drained and reconciled, every count is exact.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use canvass::storage::local;
use canvass::stores::{StoreSettings, Stores};

use crate::helpers::{CanvassProcess, answer_demo, demo_survey};

/// An answer given during the load: its reference, its stars, when its POST was sent and when
/// its thanks came back.
#[derive(Clone, Copy)]
struct Given {
    reference: u64,
    stars: u64,
    sent: Instant,
    thanked: Instant,
}

async fn load(address: String, stop: Arc<AtomicBool>, given: Arc<Mutex<Vec<Given>>>, n: u64) {
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .expect("a client");
    let mut i = n;
    while !stop.load(Ordering::SeqCst) {
        let stars = 1 + i % 5;
        let sent = Instant::now();
        let reference = answer_demo(&client, &address, &stars.to_string()).await;
        given.lock().expect("not poisoned").push(Given {
            reference,
            stars,
            sent,
            thanked: Instant::now(),
        });
        i += 4;
    }
}

fn canvass(args: &[&str], data_dir: &Path) -> String {
    canvass_with(args, data_dir, &[])
}

fn canvass_with(args: &[&str], data_dir: &Path, env: &[(&str, &str)]) -> String {
    let output = Command::new(env!("CARGO_BIN_EXE_canvass"))
        .args(args)
        .envs(env.iter().copied())
        .env("CANVASS_DATA_DIR", data_dir)
        .env("CANVASS_LOG", "warn")
        .output()
        .expect("canvass runs");
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        output.status.success(),
        "canvass {args:?} failed: {stdout}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    stdout
}

async fn wait_for(given: &Mutex<Vec<Given>>, count: usize) {
    let deadline = Instant::now() + Duration::from_secs(120);
    while given.lock().expect("not poisoned").len() < count {
        assert!(Instant::now() < deadline, "the load is too slow");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_backup_taken_under_load_restores_with_every_count_exact() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let (live, dest, restored) = (
        dir.path().join("live"),
        dir.path().join("backup"),
        dir.path().join("restored"),
    );
    let server = CanvassProcess::serve(&live, &[("CANVASS_NO_WORKER", "true")]);
    // Messages a worker holds at the backup come back 2 s after it, in the restored copy.
    let fast = [
        ("CANVASS_WORKER_VISIBILITY_SECS", "2"),
        ("CANVASS_WORKER_BATCHES", "1"),
    ];
    let worker = CanvassProcess::worker(&live, &fast);
    let stop = Arc::new(AtomicBool::new(false));
    let given = Arc::new(Mutex::new(Vec::new()));
    let clients: Vec<_> = (0..4)
        .map(|n| tokio::spawn(load(server.address.clone(), stop.clone(), given.clone(), n)))
        .collect();
    wait_for(&given, 150).await;

    let started = Instant::now();
    let started_wall = time::OffsetDateTime::now_utc();
    // The backup waits 2 s between files, so answers are certainly written while files are
    // copied: a copy of each file at its own moment would take some of them in.
    let printed = {
        let (live, dest) = (live.clone(), dest.clone());
        tokio::task::spawn_blocking(move || {
            canvass_with(
                &["backup", dest.to_str().expect("utf-8")],
                &live,
                &[(canvass::storage::local::backup::PAUSE_VARIABLE, "2000")],
            )
        })
        .await
        .expect("the backup ran")
    };
    // The instant the snapshot was taken: the manifest's time, plus how long writers were held.
    let manifest: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dest.join("manifest.json")).expect("the manifest"))
            .expect("JSON");
    let taken_at = time::OffsetDateTime::parse(
        manifest["taken_at"].as_str().expect("a time"),
        &time::format_description::well_known::Rfc3339,
    )
    .expect("RFC 3339");
    let held = manifest["writers_held_ms"].as_u64().expect("milliseconds");
    let snapshot = started
        + Duration::try_from(taken_at - started_wall).unwrap_or_default()
        + Duration::from_millis(held + 50);
    let during = given
        .lock()
        .expect("not poisoned")
        .iter()
        .filter(|g| g.thanked > snapshot && g.thanked < Instant::now())
        .count();
    assert!(
        during >= 20,
        "answers were thanked while the files were copied: {during}"
    );
    assert!(
        printed.contains("every copy passed its integrity check"),
        "{printed}"
    );
    let at_backup = given.lock().expect("not poisoned").len();
    wait_for(&given, at_backup + 50).await;
    stop.store(true, Ordering::SeqCst);
    for client in clients {
        client.await.expect("the client ran");
    }
    assert!(worker.terminate().success());
    assert!(server.terminate().success());

    // Restore: the backup's files into a new data directory, then reconcile and drain.
    std::fs::create_dir_all(&restored).expect("a directory");
    for entry in std::fs::read_dir(&dest).expect("the backup") {
        let path = entry.expect("an entry").path();
        if path.extension().is_some_and(|e| e == "sqlite3") {
            std::fs::copy(&path, restored.join(path.file_name().expect("a name"))).expect("copied");
        }
    }
    let worker = CanvassProcess::worker(&restored, &fast);
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        let queues: serde_json::Value =
            serde_json::from_str(&canvass(&["queues", "--json"], &restored)).expect("JSON");
        let waiting: u64 = queues["queues"]
            .as_array()
            .expect("queues")
            .iter()
            .filter(|q| q["role"] == "standard" || q["role"] == "premium")
            .map(|q| q["length"].as_u64().expect("a length"))
            .sum();
        if waiting == 0 {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the restored queues never drained"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    assert!(worker.terminate().success());
    let reconciled = canvass(&["reconcile", "--grace-secs", "0"], &restored);
    assert!(
        reconciled.contains("0 repaired"),
        "nothing was left uncounted: {reconciled}"
    );

    let stores = Stores::open(
        local::storage(&restored).await.expect("opens"),
        &StoreSettings::default(),
    )
    .await
    .expect("stores");
    let survey = demo_survey(&stores).await;
    let doc = crate::helpers::summary_doc(&stores, &survey).await;
    let listed: Vec<u64> = stores
        .answering
        .lists
        .references(&doc.list_view(&survey), 0..doc.list_len)
        .await
        .expect("listed")
        .into_iter()
        .map(|reference| reference.0)
        .collect();
    let distinct: BTreeSet<u64> = listed.iter().copied().collect();
    assert_eq!(distinct.len(), listed.len(), "no answer is listed twice");
    assert_eq!(
        doc.summary.total,
        listed.len() as u64,
        "the summary counts each listed answer once"
    );

    let given: BTreeMap<u64, Given> = given
        .lock()
        .expect("not poisoned")
        .iter()
        .map(|g| (g.reference, *g))
        .collect();
    for g in given.values().filter(|g| g.thanked < started) {
        assert!(
            distinct.contains(&g.reference),
            "answer {} was thanked before the backup",
            g.reference
        );
    }
    // One instant: nothing sent after the snapshot, while files were copied, is restored.
    for reference in &distinct {
        let g = given
            .get(reference)
            .unwrap_or_else(|| panic!("{reference} was never given"));
        assert!(
            g.sent < snapshot,
            "answer {reference} was sent after the snapshot, while files were being copied"
        );
        assert!(
            stores
                .answering
                .answers
                .get(&survey, canvass::domain::Reference(*reference))
                .await
                .expect("read")
                .is_some(),
            "answer {reference} is counted and stored"
        );
    }
    // The stars add up: the summary's mean is exactly that of the answers it lists.
    let report = canvass::admin::summary(&stores, "demo", "customer-satisfaction")
        .await
        .expect("a summary");
    let overall = serde_json::to_value(&report.questions[0]).expect("JSON");
    assert_eq!(overall["answered"], listed.len() as u64);
    let expected: f64 =
        listed.iter().map(|r| given[r].stars as f64).sum::<f64>() / listed.len() as f64;
    let mean = overall["mean"].as_f64().expect("a mean");
    assert!(
        (mean - expected).abs() < 1e-9,
        "mean {mean}, expected {expected}"
    );
    assert!(
        listed.len() > 150 && listed.len() < given.len(),
        "the backup caught the load midway: {} of {}",
        listed.len(),
        given.len()
    );
}
