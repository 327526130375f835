//! Affinity by hashing (issue 51, item 1): a survey's answers wait in one shard, the shards are
//! dealt among the running workers through claims on the storage, so two workers never merge
//! the same summary, and a worker that dies loses its shards to the others once its lease ends.

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

use canvass::stores::Stores;
use canvass::worker::{StepOutcome, Worker, WorkerSettings};

use crate::helpers::spawn_app;
use crate::worker::{copies_total, four_shards_with_answers, queue_to_copies};

const LEASE: Duration = Duration::from_secs(2);

fn dealing_worker(stores: &Stores) -> Worker {
    let settings = WorkerSettings {
        visibility: Duration::from_secs(600),
        batches_per_step: 1,
        shard_lease: Some(LEASE),
        ..WorkerSettings::default()
    };
    Worker::new(stores.clone(), settings)
}

/// What stepping a worker once did with answers: the queue of its batch and its ETag races.
async fn step(worker: &mut Worker) -> Option<(String, usize)> {
    match worker.step().await.expect("a step") {
        StepOutcome::BatchDone {
            queue, conflicts, ..
        } => Some((queue.to_string(), conflicts)),
        _ => None,
    }
}

fn held(worker: &Worker) -> BTreeSet<String> {
    worker
        .shards_held()
        .map(|queue| queue.to_string())
        .collect()
}

/// Two workers over stores of four shards a class holding `answers` answers, paused, stepped
/// (they only keep their heartbeats) until each holds four of the eight shards; the pause is
/// left set.
async fn two_dealt_workers(
    app: &crate::helpers::TestApp,
    answers: u64,
) -> (Stores, Worker, Worker) {
    let stores = four_shards_with_answers(app, answers).await;
    stores.operations.control.pause().await.expect("paused");
    let (mut a, mut b) = (dealing_worker(&stores), dealing_worker(&stores));
    let deadline = Instant::now() + Duration::from_secs(20);
    while held(&a).len() != 4 || held(&b).len() != 4 {
        assert!(
            Instant::now() < deadline,
            "the shards were not dealt: {:?} and {:?}",
            held(&a),
            held(&b)
        );
        assert!(
            step(&mut a).await.is_none() && step(&mut b).await.is_none(),
            "paused"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(held(&a).is_disjoint(&held(&b)), "no shard is held twice");
    (stores, a, b)
}

#[tokio::test]
async fn two_workers_deal_the_shards_and_never_race_on_a_summary() {
    let app = spawn_app().await;
    let (stores, mut a, mut b) = two_dealt_workers(&app, 256).await;
    stores.operations.control.resume().await.expect("resumed");

    let (mut by_a, mut by_b) = (BTreeSet::new(), BTreeSet::new());
    let mut races = 0;
    let deadline = Instant::now() + Duration::from_secs(30);
    while copies_total(&stores).await < 256 {
        assert!(Instant::now() < deadline, "not drained");
        for (worker, took) in [(&mut a, &mut by_a), (&mut b, &mut by_b)] {
            if let Some((queue, conflicts)) = step(worker).await {
                took.insert(queue);
                races += conflicts;
            }
        }
    }
    assert_eq!(
        copies_total(&stores).await,
        256,
        "every answer counted once"
    );
    assert_eq!(races, 0, "no summary commit lost an ETag race");
    assert!(
        by_a.is_disjoint(&by_b),
        "each shard was read by one worker: {by_a:?} and {by_b:?}"
    );
    assert_eq!(by_a.len() + by_b.len(), 4, "the four shards with answers");
    assert!(
        !by_a.is_empty() && !by_b.is_empty(),
        "both workers had work"
    );
}

#[tokio::test]
async fn the_shards_of_a_worker_that_died_are_taken_over_once_its_lease_ends() {
    let app = spawn_app().await;
    let (stores, mut a, b) = two_dealt_workers(&app, 0).await;
    let held_by_b = held(&b);
    // b dies: no heartbeat, no letting go.
    drop(b);
    stores.operations.control.resume().await.expect("resumed");
    queue_to_copies(&stores, 128, 9000).await;

    let died = Instant::now();
    let mut took_over = None;
    while copies_total(&stores).await < 128 {
        assert!(died.elapsed() < Duration::from_secs(20), "not drained");
        if let Some((queue, _)) = step(&mut a).await
            && held_by_b.contains(&queue)
        {
            took_over.get_or_insert(died.elapsed());
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let took_over = took_over.expect("a took one of b's shards");
    assert!(
        took_over >= LEASE / 2,
        "b's shards were taken only once its lease ended, not after {took_over:?}"
    );
    assert_eq!(held(&a).len(), 8, "a holds every shard");
    assert_eq!(copies_total(&stores).await, 128);
}

#[tokio::test]
async fn a_worker_that_stops_lets_go_of_its_shards_at_once() {
    let app = spawn_app().await;
    let (stores, mut a, b) = two_dealt_workers(&app, 0).await;
    let held_by_b = held(&b);
    // A worker asked to stop leaves the roster on its way out: its claims and its heartbeat go.
    b.run(async {}).await;
    let roster = &stores.operations.roster;
    for shard in stores.answering.queues.all().into_iter().map(|(_, q)| q) {
        if held_by_b.contains(shard.as_str()) {
            assert_eq!(roster.holder(shard).await.expect("read"), None, "{shard}");
        }
    }
    let members = roster
        .members(std::time::SystemTime::now(), LEASE)
        .await
        .expect("listed");
    assert_eq!(members.len(), 1, "only a is left: {members:?}");

    let stopped = Instant::now();
    while held(&a).len() < 8 {
        assert!(
            stopped.elapsed() < LEASE,
            "b's shards were not taken before its lease would have ended: {:?}",
            held(&a)
        );
        assert!(step(&mut a).await.is_none(), "paused");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn a_claim_just_taken_is_not_taken_by_a_worker_whose_roster_missed_its_taker() {
    let app = spawn_app().await;
    let stores = app.stores().await;
    let roster = &stores.operations.roster;
    let shard = stores.answering.queues.work_queues().1[0].clone();
    let member = |owner: &str| canvass::stores::roster::Member {
        owner: owner.into(),
        plans: "both".into(),
    };
    // b starts and claims the shard; a listed the roster just before b's first heartbeat.
    let now = roster.beat(&member("b")).await.expect("a heartbeat");
    let lease = Duration::from_secs(1);
    assert!(
        roster
            .claim(&shard, "b", |_| false, now, lease)
            .await
            .expect("claimed")
            .is_some()
    );
    let now = roster.beat(&member("a")).await.expect("a heartbeat");
    let only_a = |owner: &str| owner == "a";
    assert_eq!(
        roster
            .claim(&shard, "a", only_a, now, lease)
            .await
            .expect("asked"),
        None,
        "a claim younger than a lease may be a worker's that a stale roster misses"
    );
    // b dies: once its claim and heartbeat are a lease old, a takes the shard.
    tokio::time::sleep(lease + Duration::from_millis(100)).await;
    let now = roster.beat(&member("a")).await.expect("a heartbeat");
    let live: Vec<String> = roster
        .members(now, lease)
        .await
        .expect("listed")
        .into_iter()
        .map(|m| m.owner)
        .collect();
    assert_eq!(live, ["a"], "b's heartbeat is a lease old");
    let live = |owner: &str| live.iter().any(|m| m == owner);
    assert!(
        roster
            .claim(&shard, "a", live, now, lease)
            .await
            .expect("claimed")
            .is_some()
    );
    assert_eq!(
        roster.holder(&shard).await.expect("read").map(|c| c.owner),
        Some("a".to_owned())
    );
}
