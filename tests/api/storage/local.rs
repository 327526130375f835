//! The conformance suite on the local SQLite adapter, each test in a fresh data directory.

use crate::storage::conformance::Fixture;

async fn fixture() -> Fixture {
    let dir = tempfile::tempdir().expect("a temp dir");
    let storage = canvass::storage::local::storage(dir.path())
        .await
        .expect("local storage opens");
    Fixture::new(storage, Some(dir))
}

conformance_suite!(fixture());

#[tokio::test]
async fn a_second_process_opening_the_same_data_dir_sees_the_same_blobs_and_queues() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let first = canvass::storage::local::storage(dir.path())
        .await
        .expect("opens");
    let queue = canvass::storage::QueueName::parse("shared-queue").expect("a name");
    first.queues.create_queue(&queue).await.expect("created");
    first
        .blobs
        .put("shared", "one".into(), canvass::storage::PutMode::Create)
        .await
        .expect("written");
    first
        .queues
        .add(&queue, "hello".into(), None)
        .await
        .expect("added");

    let second = canvass::storage::local::storage(dir.path())
        .await
        .expect("opens again");

    let blob = second
        .blobs
        .get("shared")
        .await
        .expect("visible to the second opener");
    assert_eq!(blob.body, "one");
    let received = second
        .queues
        .get(&queue, 1, std::time::Duration::from_secs(30))
        .await
        .expect("received");
    assert_eq!(received.len(), 1);
    assert_eq!(received[0].body, "hello");
}
