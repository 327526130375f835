//! Several OS processes sharing one local data directory. Each test re-runs this test binary
//! as its child processes (selected by name, told their role by environment variables), so the
//! children exercise the very code under test with no helper binary. Children open the
//! directory as workers do (relaxed durability) and wait at a barrier (a file the parent makes
//! once all of them run), so their work overlaps; each must do some of it.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use canvass::storage::local::{self, Durability};
use canvass::storage::{PutMode, QueueName, Storage};

use crate::storage::conformance::increment;

/// Set in a child process: the data directory to work in.
const CHILD_DIR: &str = "CANVASS_TEST_CHILD_DIR";
/// Set in a child process: its number, naming its result file.
const CHILD_INDEX: &str = "CANVASS_TEST_CHILD_INDEX";
/// The barrier: made by the parent once every child runs.
const GO: &str = "go";
/// Made by each child once it runs and has opened the directory.
fn ready(index: &str) -> String {
    format!("ready-{index}")
}

const COUNTER: &str = "race/counter";
const ROUNDS: usize = 2500;
const MESSAGES: usize = 2000;

/// The child's instructions, if this process is a child.
fn child() -> Option<(PathBuf, String)> {
    Some((
        std::env::var_os(CHILD_DIR)?.into(),
        std::env::var(CHILD_INDEX).ok()?,
    ))
}

/// In a child: says it is ready, then waits for the parent's go.
fn wait_for_go(dir: &Path, index: &str) {
    std::fs::write(dir.join(ready(index)), "").expect("ready is written");
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while !dir.join(GO).exists() {
        assert!(
            std::time::Instant::now() < deadline,
            "no go from the parent"
        );
        std::thread::sleep(Duration::from_millis(1));
    }
}

/// Runs `test` (a test of this module) in `count` child processes and waits for them all.
fn run_children(test: &str, dir: &Path, count: usize) {
    let name = format!(
        "{}::{test}",
        module_path!().split_once("::").map_or("", |(_, m)| m)
    );
    let exe = std::env::current_exe().expect("the test binary's path");
    let children: Vec<_> = (0..count)
        .map(|index| {
            Command::new(&exe)
                .args([name.as_str(), "--exact", "--nocapture", "--test-threads=1"])
                .env(CHILD_DIR, dir)
                .env(CHILD_INDEX, index.to_string())
                .stdout(Stdio::null())
                .spawn()
                .expect("a child process starts")
        })
        .collect();
    // The barrier: go once every child has opened the directory.
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    while !(0..count).all(|index| dir.join(ready(&index.to_string())).exists()) {
        assert!(
            std::time::Instant::now() < deadline,
            "the children did not start"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    std::fs::write(dir.join(GO), "").expect("go is written");
    for mut child in children {
        let status = child.wait().expect("the child is waited for");
        assert!(status.success(), "a child process failed: {status}");
    }
}

fn result_files(dir: &Path, count: usize) -> Vec<String> {
    (0..count)
        .map(|index| {
            std::fs::read_to_string(dir.join(format!("result-{index}.txt")))
                .expect("the child wrote its result")
        })
        .collect()
}

async fn open(dir: &Path) -> Storage {
    local::storage_with(dir, Durability::Relaxed)
        .await
        .expect("local storage opens")
}

fn queue() -> QueueName {
    QueueName::parse("race-queue").expect("a name")
}

#[tokio::test]
async fn two_processes_racing_if_match_increments_end_at_their_successful_writes() {
    if let Some((dir, index)) = child() {
        let storage = open(&dir).await;
        wait_for_go(&dir, &index);
        let successes = increment(&storage, COUNTER, ROUNDS).await;
        std::fs::write(
            dir.join(format!("result-{index}.txt")),
            successes.to_string(),
        )
        .expect("the result is written");
        return;
    }
    let dir = tempfile::tempdir().expect("a temp dir");
    let storage = open(dir.path()).await;
    storage
        .blobs
        .put(COUNTER, "0".into(), PutMode::Create)
        .await
        .expect("the counter starts");

    run_children(
        "two_processes_racing_if_match_increments_end_at_their_successful_writes",
        dir.path(),
        2,
    );

    let successes: Vec<u64> = result_files(dir.path(), 2)
        .iter()
        .map(|text| text.parse().expect("a count"))
        .collect();
    let counter = storage.blobs.get(COUNTER).await.expect("the counter");
    let value: u64 = std::str::from_utf8(&counter.body)
        .expect("utf-8")
        .parse()
        .expect("a number");
    assert_eq!(
        value,
        successes.iter().sum::<u64>(),
        "per process: {successes:?}"
    );
    assert!(
        successes.iter().all(|&s| s > 0),
        "both processes wrote: {successes:?}"
    );
    let conflicts = 2 * ROUNDS as u64 - successes.iter().sum::<u64>();
    assert!(
        conflicts > 0,
        "the processes never raced: no If-Match write failed ({successes:?})"
    );
}

#[tokio::test]
async fn two_processes_draining_one_queue_handle_every_message_exactly_once() {
    if let Some((dir, index)) = child() {
        let storage = open(&dir).await;
        wait_for_go(&dir, &index);
        let mut handled = Vec::new();
        loop {
            let batch = storage
                .queues
                .get(&queue(), 32, Duration::from_secs(60))
                .await
                .expect("a batch");
            if batch.is_empty() {
                break;
            }
            for message in batch {
                assert_eq!(
                    message.dequeue_count, 1,
                    "no message is delivered twice here"
                );
                storage
                    .queues
                    .delete(&queue(), &message.id, &message.pop_receipt)
                    .await
                    .expect("the holder deletes");
                handled.push(String::from_utf8(message.body.to_vec()).expect("utf-8"));
            }
        }
        std::fs::write(dir.join(format!("result-{index}.txt")), handled.join("\n"))
            .expect("the result is written");
        return;
    }
    let dir = tempfile::tempdir().expect("a temp dir");
    let storage = open(dir.path()).await;
    storage
        .queues
        .create_queue(&queue())
        .await
        .expect("the queue exists");
    for i in 0..MESSAGES {
        storage
            .queues
            .add(&queue(), format!("m{i}").into(), None)
            .await
            .expect("added");
    }

    run_children(
        "two_processes_draining_one_queue_handle_every_message_exactly_once",
        dir.path(),
        2,
    );

    let handled: Vec<Vec<String>> = result_files(dir.path(), 2)
        .iter()
        .map(|text| {
            text.lines()
                .filter(|l| !l.is_empty())
                .map(str::to_owned)
                .collect()
        })
        .collect();
    let total: usize = handled.iter().map(Vec::len).sum();
    let distinct: HashSet<&String> = handled.iter().flatten().collect();
    assert_eq!(
        total,
        MESSAGES,
        "per process: {} / {}",
        handled[0].len(),
        handled[1].len()
    );
    assert_eq!(
        distinct.len(),
        MESSAGES,
        "no message was handled by both processes"
    );
    assert!(
        handled.iter().all(|mine| !mine.is_empty()),
        "each process handled messages: {} / {}",
        handled[0].len(),
        handled[1].len()
    );
    assert_eq!(
        storage
            .queues
            .approximate_length(&queue())
            .await
            .expect("length"),
        0
    );
}
