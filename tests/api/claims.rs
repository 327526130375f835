//! Figures the README states that a test can hold: what an answer costs in storage
//! transactions (a rise fails here), and that an answer is on disk before its thank-you.

use canvass::domain::Subscription;
use canvass::storage::Operation;
use canvass::storage::local::{self, Durability, Options};
use canvass::stores::{StoreSettings, Stores};

use crate::helpers::{reference_in, spawn_app_configured, test_settings};
use crate::lost_writes;

#[tokio::test]
async fn an_answer_costs_three_storage_transactions_and_a_rise_fails_this_test() {
    let report = canvass::bench::count_transactions(2_000)
        .await
        .expect("counted");
    let per = |n: u64| report.per_answer(n);

    let submit = per(report.submit.total());
    assert!(
        submit <= 1.005,
        "submitting costs {submit:.3} per answer (1.002 in the README)"
    );
    for (operation, most) in [
        (Operation::Put, 1.02),
        (Operation::DeleteMessage, 1.0),
        (Operation::Get, 0.03),
        (Operation::GetMessages, 0.05),
        (Operation::Update, 0.0),
        (Operation::List, 0.0),
    ] {
        let cost = per(report.work.of(operation));
        assert!(
            cost <= most,
            "the worker's {operation:?} costs {cost:.3} per answer, over {most}"
        );
    }
    let work = per(report.work.total());
    assert!(
        work <= 2.09,
        "the worker costs {work:.3} per answer (2.068 in the README)"
    );
    assert!(
        submit + work <= 3.09,
        "an answer costs {:.3} in all",
        submit + work
    );
}

#[tokio::test]
async fn an_answer_is_on_disk_before_the_respondent_is_thanked() {
    let _turn = lost_writes::exclusive().await;
    lost_writes::reset();
    let dir = tempfile::tempdir().expect("a temp dir");
    let options = Options {
        durability: Durability::Full,
        vfs: Some(lost_writes::NAME.to_owned()),
    };
    let (storage, _) = local::open(dir.path(), options).await.expect("opens");
    let app = spawn_app_configured(storage, test_settings()).await;

    let thanked = app
        .answer(
            "demo",
            "customer-satisfaction",
            &[("overall", "5"), ("drink", "Tea")],
        )
        .await;
    assert_eq!(thanked.status(), 303);
    // The power goes off the moment the thank-you is sent: nothing after it reaches the disk.
    lost_writes::cut_now();
    let reference = reference_in(thanked.headers()["location"].to_str().expect("ascii"));
    app.stop().await;
    lost_writes::wait_until_closed().await;
    lost_writes::restore(dir.path());

    let stores = Stores::open(
        local::storage(dir.path()).await.expect("reopens"),
        &StoreSettings::default(),
    )
    .await
    .expect("stores");
    let queue = stores.answering.queues.queues_for(Subscription::Standard)[0].clone();
    let queued = stores
        .answering
        .queues
        .receive(&queue, 32, std::time::Duration::from_secs(60))
        .await
        .expect("received");
    let references: Vec<u64> = queued
        .iter()
        .filter_map(|r| r.content.as_ref().ok())
        .map(|message| message.addressee().1.0)
        .collect();
    assert_eq!(
        references,
        [reference],
        "the thanked answer survived the power cut"
    );
}
