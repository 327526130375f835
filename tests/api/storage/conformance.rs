//! The storage conformance suite: every semantic of the two ports, written once and run
//! against each adapter by `conformance_suite!`. Each case works in its own namespace of keys
//! and queues, so cases may share one backend (an emulator) without seeing each other.

use std::collections::HashSet;
use std::time::Duration;

use bytes::Bytes;
use canvass::storage::{
    BlobPut, ETag, Error, ListRequest, MAX_ENCODED_MESSAGE_BYTES, MAX_MESSAGES_PER_GET,
    MessageUpdate, Operation, PutMode, QueueName, Storage,
};
use tempfile::TempDir;

/// Generates one `#[tokio::test]` per conformance case, each on a fresh fixture from `$make`.
macro_rules! conformance_suite {
    ($make:expr) => {
        conformance_suite!(@cases $make;
            reading_a_missing_blob_is_not_found,
            a_written_blob_reads_back_with_its_etag_size_and_time,
            every_write_gives_a_new_etag,
            create_only_on_an_existing_blob_fails_and_keeps_it,
            update_with_the_current_etag_succeeds,
            update_with_a_stale_etag_fails_and_changes_nothing,
            update_of_a_missing_blob_fails_its_condition,
            an_old_etag_never_matches_a_recreated_blob,
            two_concurrent_if_match_writers_holding_one_etag_exactly_one_wins,
            concurrent_retrying_increments_count_every_success_once,
            delete_removes_a_blob,
            deleting_a_missing_blob_is_not_found,
            delete_with_a_stale_etag_fails_and_keeps_the_blob,
            listing_returns_keys_under_the_prefix_in_key_order,
            list_paging_returns_every_key_exactly_once,
            bad_keys_are_rejected_before_reaching_storage,
            blob_calls_are_counted_as_transactions,
            get_many_reads_each_key_in_order_and_reports_missing_ones,
            put_many_writes_each_blob_under_its_own_condition,
            flush_succeeds_and_keeps_every_write,
            an_added_message_is_received_whole_with_dequeue_count_one,
            a_received_message_is_hidden_while_its_visibility_lasts,
            a_message_not_deleted_reappears_after_its_visibility_timeout,
            a_deleted_message_never_reappears,
            a_stale_pop_receipt_cannot_delete,
            update_changes_content_and_visibility_and_renews_the_receipt,
            initial_invisibility_hides_a_new_message,
            one_receive_returns_at_most_thirty_two_messages,
            a_message_over_the_encoded_limit_is_refused_by_add_and_update,
            approximate_length_counts_hidden_and_visible_messages,
            the_head_is_the_next_visible_message_and_when_it_was_added,
            an_unknown_queue_is_not_found,
            concurrent_receivers_never_hold_the_same_message,
            queue_calls_are_counted_as_transactions,
            delete_many_deletes_held_messages_and_reports_each_one_held_elsewhere,
        );
    };
    (@cases $make:expr; $($case:ident),* $(,)?) => {
        $(
            #[tokio::test]
            async fn $case() {
                let fixture = $make.await;
                crate::storage::conformance::$case(&fixture).await;
            }
        )*
    };
}

/// One adapter under test, with a namespace of its own.
pub struct Fixture {
    storage: Storage,
    namespace: String,
    _dir: Option<TempDir>,
}

impl Fixture {
    /// Wraps a storage; `dir` is kept alive as long as the fixture.
    pub fn new(storage: Storage, dir: Option<TempDir>) -> Self {
        let namespace = format!("c{}", &uuid::Uuid::new_v4().simple().to_string()[..10]);
        Self {
            storage,
            namespace,
            _dir: dir,
        }
    }

    fn key(&self, name: &str) -> String {
        format!("{}/{name}", self.namespace)
    }

    async fn queue(&self, name: &str) -> QueueName {
        let queue = QueueName::parse(&format!("{}-{name}", self.namespace)).expect("a queue name");
        self.storage
            .queues
            .create_queue(&queue)
            .await
            .expect("the queue is created");
        queue
    }
}

fn body(text: &str) -> Bytes {
    Bytes::copy_from_slice(text.as_bytes())
}

const LONG: Duration = Duration::from_secs(30);

// ---- blobs ----------------------------------------------------------------------------------

pub async fn reading_a_missing_blob_is_not_found(f: &Fixture) {
    let result = f.storage.blobs.get(&f.key("missing")).await;

    assert!(matches!(result, Err(Error::NotFound { .. })), "{result:?}");
}

pub async fn a_written_blob_reads_back_with_its_etag_size_and_time(f: &Fixture) {
    let key = f.key("greeting");
    let before = std::time::SystemTime::now() - Duration::from_secs(5);

    let written = f
        .storage
        .blobs
        .put(&key, body("hello"), PutMode::Create)
        .await
        .expect("written");
    let read = f.storage.blobs.get(&key).await.expect("read");

    assert_eq!(read.body, "hello");
    assert_eq!(read.meta.etag, written.etag);
    assert_eq!(read.meta.size, 5);
    assert_eq!(read.meta.key, key);
    assert!(read.meta.last_modified >= before);
}

pub async fn every_write_gives_a_new_etag(f: &Fixture) {
    let key = f.key("versioned");
    let first = f
        .storage
        .blobs
        .put(&key, body("1"), PutMode::Overwrite)
        .await
        .expect("1");
    let second = f
        .storage
        .blobs
        .put(&key, body("2"), PutMode::Overwrite)
        .await
        .expect("2");

    assert_ne!(first.etag, second.etag);
    assert_eq!(f.storage.blobs.get(&key).await.expect("read").body, "2");
}

pub async fn create_only_on_an_existing_blob_fails_and_keeps_it(f: &Fixture) {
    let key = f.key("once");
    f.storage
        .blobs
        .put(&key, body("first"), PutMode::Create)
        .await
        .expect("created");

    let again = f
        .storage
        .blobs
        .put(&key, body("second"), PutMode::Create)
        .await;

    assert!(
        matches!(again, Err(Error::AlreadyExists { .. })),
        "{again:?}"
    );
    assert_eq!(f.storage.blobs.get(&key).await.expect("read").body, "first");
}

pub async fn update_with_the_current_etag_succeeds(f: &Fixture) {
    let key = f.key("counter");
    let created = f
        .storage
        .blobs
        .put(&key, body("1"), PutMode::Create)
        .await
        .expect("created");

    let updated = f
        .storage
        .blobs
        .put(&key, body("2"), PutMode::Update(created.etag.clone()))
        .await
        .expect("updated");

    let read = f.storage.blobs.get(&key).await.expect("read");
    assert_eq!(read.body, "2");
    assert_eq!(read.meta.etag, updated.etag);
}

/// Writes "1" and then "2" under `key`; returns the ETag of "1", stale from then on.
async fn stale_etag(f: &Fixture, key: &str) -> ETag {
    let stale = f
        .storage
        .blobs
        .put(key, body("1"), PutMode::Create)
        .await
        .expect("created");
    f.storage
        .blobs
        .put(key, body("2"), PutMode::Overwrite)
        .await
        .expect("moved on");
    stale.etag
}

pub async fn update_with_a_stale_etag_fails_and_changes_nothing(f: &Fixture) {
    let key = f.key("contended");
    let stale = stale_etag(f, &key).await;

    let result = f
        .storage
        .blobs
        .put(&key, body("3"), PutMode::Update(stale))
        .await;

    assert!(
        matches!(result, Err(Error::Precondition { .. })),
        "{result:?}"
    );
    assert_eq!(f.storage.blobs.get(&key).await.expect("read").body, "2");
}

pub async fn update_of_a_missing_blob_fails_its_condition(f: &Fixture) {
    let key = f.key("gone");
    let created = f
        .storage
        .blobs
        .put(&key, body("1"), PutMode::Create)
        .await
        .expect("created");
    f.storage.blobs.delete(&key, None).await.expect("deleted");

    let result = f
        .storage
        .blobs
        .put(&key, body("2"), PutMode::Update(created.etag))
        .await;

    assert!(
        matches!(
            result,
            Err(Error::Precondition { .. } | Error::NotFound { .. })
        ),
        "{result:?}"
    );
    assert!(matches!(
        f.storage.blobs.get(&key).await,
        Err(Error::NotFound { .. })
    ));
}

pub async fn an_old_etag_never_matches_a_recreated_blob(f: &Fixture) {
    let key = f.key("reborn");
    let old = f
        .storage
        .blobs
        .put(&key, body("old"), PutMode::Create)
        .await
        .expect("created");
    f.storage.blobs.delete(&key, None).await.expect("deleted");
    f.storage
        .blobs
        .put(&key, body("new"), PutMode::Create)
        .await
        .expect("recreated");

    let result = f
        .storage
        .blobs
        .put(&key, body("lost update"), PutMode::Update(old.etag))
        .await;

    assert!(
        matches!(result, Err(Error::Precondition { .. })),
        "{result:?}"
    );
    assert_eq!(f.storage.blobs.get(&key).await.expect("read").body, "new");
}

pub async fn two_concurrent_if_match_writers_holding_one_etag_exactly_one_wins(f: &Fixture) {
    let key = f.key("race");
    let mut etag = f
        .storage
        .blobs
        .put(&key, body("start"), PutMode::Create)
        .await
        .expect("created")
        .etag;
    for round in 0..20 {
        let write = |writer: &'static str| {
            let blobs = f.storage.blobs.clone();
            let (key, etag) = (key.clone(), etag.clone());
            tokio::spawn(async move { blobs.put(&key, body(writer), PutMode::Update(etag)).await })
        };
        let (a, b) = (write("a"), write("b"));
        let (a, b) = (a.await.expect("joined"), b.await.expect("joined"));

        let winners: Vec<_> = [&a, &b]
            .into_iter()
            .filter_map(|r| r.as_ref().ok())
            .collect();
        assert_eq!(winners.len(), 1, "round {round}: {a:?} / {b:?}");
        let loser = if a.is_ok() { &b } else { &a };
        assert!(
            matches!(loser, Err(Error::Precondition { .. })),
            "round {round}: {loser:?}"
        );
        let read = f.storage.blobs.get(&key).await.expect("read");
        assert_eq!(read.meta.etag, winners[0].etag, "round {round}");
        etag = read.meta.etag;
    }
}

/// Reads the counter blob, adds one under If-Match, retries on conflict; returns the count of
/// successful writes. Shared with the multi-process race.
pub async fn increment(storage: &Storage, key: &str, attempts: usize) -> u64 {
    let mut successes = 0;
    for _ in 0..attempts {
        let current = storage
            .blobs
            .get(key)
            .await
            .expect("the counter is readable");
        let value: u64 = std::str::from_utf8(&current.body)
            .expect("utf-8")
            .parse()
            .expect("a number");
        match storage
            .blobs
            .put(
                key,
                body(&(value + 1).to_string()),
                PutMode::Update(current.meta.etag),
            )
            .await
        {
            Ok(_) => successes += 1,
            Err(Error::Precondition { .. }) => {}
            Err(other) => panic!("an increment failed: {other}"),
        }
    }
    successes
}

pub async fn concurrent_retrying_increments_count_every_success_once(f: &Fixture) {
    let key = f.key("counter");
    f.storage
        .blobs
        .put(&key, body("0"), PutMode::Create)
        .await
        .expect("created");

    let tasks: Vec<_> = (0..6)
        .map(|_| {
            let (storage, key) = (f.storage.clone(), key.clone());
            tokio::spawn(async move { increment(&storage, &key, 25).await })
        })
        .collect();
    let mut successes = 0;
    for task in tasks {
        successes += task.await.expect("joined");
    }

    let read = f.storage.blobs.get(&key).await.expect("read");
    assert_eq!(
        std::str::from_utf8(&read.body).expect("utf-8"),
        successes.to_string()
    );
    assert!(
        successes >= 25,
        "at least one writer per round wins: {successes}"
    );
}

pub async fn delete_removes_a_blob(f: &Fixture) {
    let key = f.key("doomed");
    let written = f
        .storage
        .blobs
        .put(&key, body("x"), PutMode::Create)
        .await
        .expect("created");

    f.storage
        .blobs
        .delete(&key, Some(&written.etag))
        .await
        .expect("deleted");

    assert!(matches!(
        f.storage.blobs.get(&key).await,
        Err(Error::NotFound { .. })
    ));
}

pub async fn deleting_a_missing_blob_is_not_found(f: &Fixture) {
    let result = f.storage.blobs.delete(&f.key("never"), None).await;

    assert!(matches!(result, Err(Error::NotFound { .. })), "{result:?}");
}

pub async fn delete_with_a_stale_etag_fails_and_keeps_the_blob(f: &Fixture) {
    let key = f.key("kept");
    let stale = f
        .storage
        .blobs
        .put(&key, body("1"), PutMode::Create)
        .await
        .expect("created");
    f.storage
        .blobs
        .put(&key, body("2"), PutMode::Overwrite)
        .await
        .expect("moved on");

    let result = f.storage.blobs.delete(&key, Some(&stale.etag)).await;

    assert!(
        matches!(result, Err(Error::Precondition { .. })),
        "{result:?}"
    );
    assert_eq!(
        f.storage.blobs.get(&key).await.expect("still there").body,
        "2"
    );
}

pub async fn listing_returns_keys_under_the_prefix_in_key_order(f: &Fixture) {
    for name in ["b/2", "a/1", "b/1", "b0", "b/10", "c"] {
        f.storage
            .blobs
            .put(&f.key(name), body(name), PutMode::Create)
            .await
            .expect("written");
    }

    let page = f
        .storage
        .blobs
        .list(&ListRequest::new(f.key("b/"), 100))
        .await
        .expect("listed");

    let keys: Vec<_> = page.items.iter().map(|meta| meta.key.clone()).collect();
    assert_eq!(keys, vec![f.key("b/1"), f.key("b/10"), f.key("b/2")]);
    assert!(page.continuation.is_none());
    assert_eq!(page.items[0].size, 3);
}

pub async fn list_paging_returns_every_key_exactly_once(f: &Fixture) {
    let expected: Vec<String> = (0..23).map(|i| f.key(&format!("item/{i:03}"))).collect();
    for key in &expected {
        f.storage
            .blobs
            .put(key, body("x"), PutMode::Create)
            .await
            .expect("written");
    }
    f.storage
        .blobs
        .put(&f.key("itemz"), body("x"), PutMode::Create)
        .await
        .expect("outside");

    let mut seen = Vec::new();
    let mut request = ListRequest::new(f.key("item/"), 5);
    let mut pages = 0;
    loop {
        let page = f.storage.blobs.list(&request).await.expect("a page");
        pages += 1;
        assert!(
            page.items.len() <= 5,
            "page {pages} has {} keys",
            page.items.len()
        );
        seen.extend(page.items.into_iter().map(|meta| meta.key));
        match page.continuation {
            Some(token) => request.continuation = Some(token),
            None => break,
        }
        assert!(pages < 20, "paging does not end");
    }

    assert_eq!(seen, expected);
}

pub async fn bad_keys_are_rejected_before_reaching_storage(f: &Fixture) {
    let before = f.storage.transactions();
    let long = "k".repeat(canvass::storage::MAX_KEY_LEN + 1);

    for key in ["", long.as_str(), "line\nbreak"] {
        let result = f
            .storage
            .blobs
            .put(key, body("x"), PutMode::Overwrite)
            .await;
        assert!(
            matches!(result, Err(Error::InvalidArgument(_))),
            "case {key:?}: {result:?}"
        );
    }
    assert_eq!(f.storage.transactions().since(&before).total(), 0);
}

pub async fn blob_calls_are_counted_as_transactions(f: &Fixture) {
    let key = f.key("counted");
    let before = f.storage.transactions();

    let written = f
        .storage
        .blobs
        .put(&key, body("x"), PutMode::Create)
        .await
        .expect("put");
    f.storage.blobs.get(&key).await.expect("get");
    let _ = f.storage.blobs.get(&f.key("missing")).await;
    f.storage
        .blobs
        .list(&ListRequest::new(f.key(""), 10))
        .await
        .expect("list");
    f.storage
        .blobs
        .delete(&key, Some(&written.etag))
        .await
        .expect("delete");

    let delta = f.storage.transactions().since(&before);
    assert_eq!(delta.of(Operation::Put), 1);
    assert_eq!(delta.of(Operation::Get), 2);
    assert_eq!(delta.of(Operation::List), 1);
    assert_eq!(delta.of(Operation::Delete), 1);
    assert_eq!(delta.total(), 5);
}

pub async fn get_many_reads_each_key_in_order_and_reports_missing_ones(f: &Fixture) {
    let keys: Vec<String> = (0..70).map(|i| f.key(&format!("many/{i:03}"))).collect();
    for (i, key) in keys.iter().enumerate() {
        if i % 10 != 3 {
            f.storage
                .blobs
                .put(key, body(&format!("v{i}")), PutMode::Create)
                .await
                .expect("put");
        }
    }
    // Asked out of key order, with a repeat, to show results follow the request.
    let mut asked: Vec<String> = keys.iter().rev().cloned().collect();
    asked.push(keys[0].clone());
    let before = f.storage.transactions();

    let read = f.storage.blobs.get_many(&asked).await.expect("read");

    assert_eq!(read.len(), asked.len());
    for (key, result) in asked.iter().zip(&read) {
        let i: usize = key
            .rsplit('/')
            .next()
            .and_then(|n| n.parse().ok())
            .expect("an index");
        match result {
            Ok(blob) if i % 10 != 3 => {
                assert_eq!(blob.body, body(&format!("v{i}")));
                assert_eq!(&blob.meta.key, key);
            }
            Err(Error::NotFound { .. }) if i % 10 == 3 => {}
            other => panic!("{key}: {other:?}"),
        }
    }
    assert_eq!(
        f.storage.transactions().since(&before).of(Operation::Get),
        asked.len() as u64
    );
}

pub async fn put_many_writes_each_blob_under_its_own_condition(f: &Fixture) {
    // Enough keys to land in every file of a backend that spreads them.
    let fresh: Vec<String> = (0..40).map(|i| f.key(&format!("batch/{i:02}"))).collect();
    let taken = f.key("batch/taken");
    let kept = f
        .storage
        .blobs
        .put(&taken, body("first"), PutMode::Create)
        .await
        .expect("written");
    let stale = f.key("batch/stale");
    let old = stale_etag(f, &stale).await;
    let mut puts: Vec<BlobPut> = fresh
        .iter()
        .map(|key| BlobPut {
            key: key.clone(),
            body: body(key),
            mode: PutMode::Create,
        })
        .collect();
    puts.insert(
        7,
        BlobPut {
            key: taken.clone(),
            body: body("second"),
            mode: PutMode::Create,
        },
    );
    puts.push(BlobPut {
        key: stale.clone(),
        body: body("lost"),
        mode: PutMode::Update(old),
    });
    puts.push(BlobPut {
        key: fresh[0].clone(),
        body: body("again"),
        mode: PutMode::Create,
    });
    let before = f.storage.transactions();

    let written = f
        .storage
        .blobs
        .put_many(puts.clone())
        .await
        .expect("the call");

    assert_eq!(written.len(), puts.len());
    for (put, result) in puts.iter().zip(&written) {
        let expected_failure = put.key == taken || put.key == stale || put.body == "again";
        match result {
            Ok(meta) if !expected_failure => {
                assert_eq!(meta.key, put.key);
                let read = f.storage.blobs.get(&put.key).await.expect("read");
                assert_eq!(
                    (read.body, read.meta.etag),
                    (put.body.clone(), meta.etag.clone())
                );
            }
            Err(Error::AlreadyExists { key }) if *key == taken || put.body == "again" => {}
            Err(Error::Precondition { key }) if *key == stale => {}
            other => panic!("{}: {other:?}", put.key),
        }
    }
    let unchanged = f.storage.blobs.get(&taken).await.expect("read");
    assert_eq!(
        (unchanged.body, unchanged.meta.etag),
        (body("first"), kept.etag)
    );
    assert_eq!(f.storage.blobs.get(&stale).await.expect("read").body, "2");
    assert_eq!(
        f.storage.blobs.get(&fresh[0]).await.expect("read").body,
        body(&fresh[0])
    );
    assert_eq!(
        f.storage.transactions().since(&before).of(Operation::Put),
        puts.len() as u64
    );
}

pub async fn flush_succeeds_and_keeps_every_write(f: &Fixture) {
    let key = f.key("flushed");
    f.storage
        .blobs
        .put(&key, body("kept"), PutMode::Create)
        .await
        .expect("written");

    f.storage.blobs.flush().await.expect("flushed");

    assert_eq!(f.storage.blobs.get(&key).await.expect("read").body, "kept");
}

// ---- queues ---------------------------------------------------------------------------------

pub async fn an_added_message_is_received_whole_with_dequeue_count_one(f: &Fixture) {
    let queue = f.queue("inbox").await;
    let id = f
        .storage
        .queues
        .add(&queue, body("answer 1"), None)
        .await
        .expect("added");

    let received = f
        .storage
        .queues
        .get(&queue, 32, LONG)
        .await
        .expect("received");

    assert_eq!(received.len(), 1);
    assert_eq!(received[0].id, id);
    assert_eq!(received[0].body, "answer 1");
    assert_eq!(received[0].dequeue_count, 1);
}

pub async fn a_received_message_is_hidden_while_its_visibility_lasts(f: &Fixture) {
    let queue = f.queue("hidden").await;
    f.storage
        .queues
        .add(&queue, body("m"), None)
        .await
        .expect("added");
    f.storage
        .queues
        .get(&queue, 1, LONG)
        .await
        .expect("received");

    let again = f
        .storage
        .queues
        .get(&queue, 32, LONG)
        .await
        .expect("received");

    assert!(again.is_empty(), "{again:?}");
}

pub async fn a_message_not_deleted_reappears_after_its_visibility_timeout(f: &Fixture) {
    let queue = f.queue("retry").await;
    f.storage
        .queues
        .add(&queue, body("m"), None)
        .await
        .expect("added");
    let first = f
        .storage
        .queues
        .get(&queue, 1, Duration::from_secs(1))
        .await
        .expect("received");
    assert_eq!(first.len(), 1);

    tokio::time::sleep(Duration::from_millis(2200)).await;
    let second = f
        .storage
        .queues
        .get(&queue, 1, LONG)
        .await
        .expect("received again");

    assert_eq!(second.len(), 1, "the message came back");
    assert_eq!(second[0].id, first[0].id);
    assert_eq!(second[0].body, "m");
    assert_eq!(second[0].dequeue_count, first[0].dequeue_count + 1);
    assert_ne!(second[0].pop_receipt, first[0].pop_receipt);
}

pub async fn a_deleted_message_never_reappears(f: &Fixture) {
    let queue = f.queue("done").await;
    f.storage
        .queues
        .add(&queue, body("m"), None)
        .await
        .expect("added");
    let held = f
        .storage
        .queues
        .get(&queue, 1, Duration::from_secs(1))
        .await
        .expect("received");

    f.storage
        .queues
        .delete(&queue, &held[0].id, &held[0].pop_receipt)
        .await
        .expect("deleted");
    tokio::time::sleep(Duration::from_millis(2200)).await;

    assert!(
        f.storage
            .queues
            .get(&queue, 32, LONG)
            .await
            .expect("received")
            .is_empty()
    );
    assert_eq!(
        f.storage
            .queues
            .approximate_length(&queue)
            .await
            .expect("length"),
        0
    );
}

pub async fn a_stale_pop_receipt_cannot_delete(f: &Fixture) {
    let queue = f.queue("stale").await;
    f.storage
        .queues
        .add(&queue, body("m"), None)
        .await
        .expect("added");
    let first = f
        .storage
        .queues
        .get(&queue, 1, Duration::from_secs(1))
        .await
        .expect("received");
    tokio::time::sleep(Duration::from_millis(2200)).await;
    let second = f
        .storage
        .queues
        .get(&queue, 1, LONG)
        .await
        .expect("received again");
    assert_eq!(second.len(), 1);

    let result = f
        .storage
        .queues
        .delete(&queue, &first[0].id, &first[0].pop_receipt)
        .await;

    assert!(
        matches!(result, Err(Error::PopReceiptMismatch { .. })),
        "{result:?}"
    );
    f.storage
        .queues
        .delete(&queue, &second[0].id, &second[0].pop_receipt)
        .await
        .expect("the current holder can delete");
    let again = f
        .storage
        .queues
        .delete(&queue, &second[0].id, &second[0].pop_receipt)
        .await;
    assert!(
        matches!(
            again,
            Err(Error::NotFound { .. } | Error::PopReceiptMismatch { .. })
        ),
        "deleting twice is an error, not a silent success: {again:?}"
    );
}

pub async fn update_changes_content_and_visibility_and_renews_the_receipt(f: &Fixture) {
    let queue = f.queue("updated").await;
    f.storage
        .queues
        .add(&queue, body("v1"), None)
        .await
        .expect("added");
    let held = f
        .storage
        .queues
        .get(&queue, 1, LONG)
        .await
        .expect("received");
    let message = &held[0];

    let receipt = f
        .storage
        .queues
        .update(
            &queue,
            &message.id,
            &message.pop_receipt,
            MessageUpdate {
                body: Some(body("v2")),
                visibility: Duration::ZERO,
            },
        )
        .await
        .expect("updated");

    assert_ne!(receipt, message.pop_receipt);
    let stale = f
        .storage
        .queues
        .delete(&queue, &message.id, &message.pop_receipt)
        .await;
    assert!(
        matches!(stale, Err(Error::PopReceiptMismatch { .. })),
        "{stale:?}"
    );
    let visible = f
        .storage
        .queues
        .get(&queue, 1, LONG)
        .await
        .expect("visible again at once");
    assert_eq!(visible.len(), 1);
    assert_eq!(visible[0].body, "v2");
    assert_eq!(visible[0].dequeue_count, 2);

    let extended = f
        .storage
        .queues
        .update(
            &queue,
            &visible[0].id,
            &visible[0].pop_receipt,
            MessageUpdate {
                body: None,
                visibility: LONG,
            },
        )
        .await
        .expect("extended");
    assert!(
        f.storage
            .queues
            .get(&queue, 1, LONG)
            .await
            .expect("received")
            .is_empty()
    );
    f.storage
        .queues
        .delete(&queue, &visible[0].id, &extended)
        .await
        .expect("deleted");
}

pub async fn initial_invisibility_hides_a_new_message(f: &Fixture) {
    let queue = f.queue("later").await;
    f.storage
        .queues
        .add(&queue, body("later"), Some(Duration::from_secs(1)))
        .await
        .expect("added");

    assert!(
        f.storage
            .queues
            .get(&queue, 1, LONG)
            .await
            .expect("received")
            .is_empty()
    );
    tokio::time::sleep(Duration::from_millis(2200)).await;
    let received = f
        .storage
        .queues
        .get(&queue, 1, LONG)
        .await
        .expect("received");
    assert_eq!(received.len(), 1);
    assert_eq!(received[0].body, "later");
}

pub async fn one_receive_returns_at_most_thirty_two_messages(f: &Fixture) {
    let queue = f.queue("batch").await;
    for i in 0..40 {
        f.storage
            .queues
            .add(&queue, body(&i.to_string()), None)
            .await
            .expect("added");
    }

    let too_many = f
        .storage
        .queues
        .get(&queue, MAX_MESSAGES_PER_GET + 1, LONG)
        .await;
    let none = f.storage.queues.get(&queue, 0, LONG).await;
    let first = f
        .storage
        .queues
        .get(&queue, MAX_MESSAGES_PER_GET, LONG)
        .await
        .expect("a batch");
    let rest = f
        .storage
        .queues
        .get(&queue, MAX_MESSAGES_PER_GET, LONG)
        .await
        .expect("the rest");

    assert!(
        matches!(too_many, Err(Error::InvalidArgument(_))),
        "{too_many:?}"
    );
    assert!(matches!(none, Err(Error::InvalidArgument(_))), "{none:?}");
    assert_eq!(first.len(), 32);
    assert_eq!(rest.len(), 8);
    let ids: HashSet<_> = first.iter().chain(&rest).map(|m| m.id.clone()).collect();
    assert_eq!(ids.len(), 40);
}

pub async fn a_message_over_the_encoded_limit_is_refused_by_add_and_update(f: &Fixture) {
    let queue = f.queue("limit").await;
    let largest = MAX_ENCODED_MESSAGE_BYTES / 4 * 3;
    let fits = Bytes::from(vec![b'a'; largest]);
    let too_big = Bytes::from(vec![b'a'; largest + 1]);

    let refused = f.storage.queues.add(&queue, too_big.clone(), None).await;
    f.storage
        .queues
        .add(&queue, fits.clone(), None)
        .await
        .expect("the largest message fits");

    assert!(
        matches!(refused, Err(Error::MessageTooLarge { encoded_len, limit })
            if encoded_len > limit && limit == MAX_ENCODED_MESSAGE_BYTES),
        "{refused:?}"
    );
    let held = f
        .storage
        .queues
        .get(&queue, 1, LONG)
        .await
        .expect("received");
    assert_eq!(held[0].body.len(), largest);
    let update = MessageUpdate {
        body: Some(too_big),
        visibility: LONG,
    };
    let result = f
        .storage
        .queues
        .update(&queue, &held[0].id, &held[0].pop_receipt, update)
        .await;
    assert!(
        matches!(result, Err(Error::MessageTooLarge { .. })),
        "{result:?}"
    );
    assert_eq!(
        f.storage
            .queues
            .approximate_length(&queue)
            .await
            .expect("length"),
        1
    );
}

pub async fn approximate_length_counts_hidden_and_visible_messages(f: &Fixture) {
    let queue = f.queue("depth").await;
    assert_eq!(
        f.storage
            .queues
            .approximate_length(&queue)
            .await
            .expect("length"),
        0
    );
    for i in 0..5 {
        f.storage
            .queues
            .add(&queue, body(&i.to_string()), None)
            .await
            .expect("added");
    }
    f.storage
        .queues
        .get(&queue, 2, LONG)
        .await
        .expect("received");

    assert_eq!(
        f.storage
            .queues
            .approximate_length(&queue)
            .await
            .expect("length"),
        5
    );
}

pub async fn the_head_is_the_next_visible_message_and_when_it_was_added(f: &Fixture) {
    let queue = f.queue("head").await;
    let queues = &f.storage.queues;
    assert_eq!(queues.head_inserted_at(&queue).await.expect("peeked"), None);
    let before = std::time::SystemTime::now();
    queues
        .add(&queue, body("first"), None)
        .await
        .expect("added");
    queues
        .add(&queue, body("second"), None)
        .await
        .expect("added");
    let after = std::time::SystemTime::now();

    let head = queues
        .head_inserted_at(&queue)
        .await
        .expect("peeked")
        .expect("a visible message");
    // Azure keeps insertion times to the second.
    let slack = Duration::from_secs(2);
    assert!(head + slack >= before && head <= after + slack, "{head:?}");

    // Peeking receives nothing: both messages are still there to be received.
    let all = queues.get(&queue, 2, LONG).await.expect("received");
    assert_eq!(all.len(), 2);
    assert_eq!(
        queues.head_inserted_at(&queue).await.expect("peeked"),
        None,
        "held messages are not the head"
    );
}

pub async fn an_unknown_queue_is_not_found(f: &Fixture) {
    let queue = QueueName::parse(&format!("{}-nowhere", f.namespace)).expect("a name");

    let added = f.storage.queues.add(&queue, body("m"), None).await;
    let received = f.storage.queues.get(&queue, 1, LONG).await;
    let peeked = f.storage.queues.head_inserted_at(&queue).await;

    assert!(matches!(peeked, Err(Error::NotFound { .. })), "{peeked:?}");
    assert!(matches!(added, Err(Error::NotFound { .. })), "{added:?}");
    assert!(
        matches!(received, Err(Error::NotFound { .. })),
        "{received:?}"
    );
}

pub async fn concurrent_receivers_never_hold_the_same_message(f: &Fixture) {
    let queue = f.queue("shared").await;
    let total = 120;
    for i in 0..total {
        f.storage
            .queues
            .add(&queue, body(&i.to_string()), None)
            .await
            .expect("added");
    }

    let receivers: Vec<_> = (0..4)
        .map(|_| {
            let (queues, queue) = (f.storage.queues.clone(), queue.clone());
            tokio::spawn(async move {
                let mut bodies = Vec::new();
                loop {
                    let batch = queues.get(&queue, 7, LONG).await.expect("received");
                    if batch.is_empty() {
                        return bodies;
                    }
                    for message in batch {
                        queues
                            .delete(&queue, &message.id, &message.pop_receipt)
                            .await
                            .expect("the holder deletes");
                        bodies.push(message.body);
                    }
                }
            })
        })
        .collect();
    let mut all = Vec::new();
    for receiver in receivers {
        all.extend(receiver.await.expect("joined"));
    }

    assert_eq!(all.len(), total, "every message handled once");
    let distinct: HashSet<_> = all.into_iter().collect();
    assert_eq!(distinct.len(), total, "no message handled twice");
}

pub async fn queue_calls_are_counted_as_transactions(f: &Fixture) {
    let queue = f.queue("counted").await;
    let before = f.storage.transactions();

    f.storage
        .queues
        .add(&queue, body("m"), None)
        .await
        .expect("add");
    let held = f.storage.queues.get(&queue, 32, LONG).await.expect("get");
    let receipt = f
        .storage
        .queues
        .update(
            &queue,
            &held[0].id,
            &held[0].pop_receipt,
            MessageUpdate {
                body: None,
                visibility: LONG,
            },
        )
        .await
        .expect("update");
    f.storage
        .queues
        .delete(&queue, &held[0].id, &receipt)
        .await
        .expect("delete");

    let delta = f.storage.transactions().since(&before);
    assert_eq!(delta.of(Operation::Add), 1);
    assert_eq!(delta.of(Operation::GetMessages), 1);
    assert_eq!(delta.of(Operation::Update), 1);
    assert_eq!(delta.of(Operation::DeleteMessage), 1);
    assert_eq!(delta.total(), 4);
}

pub async fn delete_many_deletes_held_messages_and_reports_each_one_held_elsewhere(f: &Fixture) {
    let queue = f.queue("bulk").await;
    for n in 0..5 {
        f.storage
            .queues
            .add(&queue, body(&format!("m{n}")), None)
            .await
            .expect("added");
    }
    let held = f
        .storage
        .queues
        .get(&queue, 5, LONG)
        .await
        .expect("received");
    assert_eq!(held.len(), 5);
    let mut asked: Vec<(String, canvass::storage::PopReceipt)> = held
        .iter()
        .map(|message| (message.id.clone(), message.pop_receipt.clone()))
        .collect();
    // The third with a receipt it never had, and one that was deleted already.
    asked[2].1 = canvass::storage::PopReceipt::new("not-the-receipt");
    f.storage
        .queues
        .delete(&queue, &held[4].id, &held[4].pop_receipt)
        .await
        .expect("deleted on its own");
    let before = f.storage.transactions();

    let deleted = f
        .storage
        .queues
        .delete_many(&queue, &asked)
        .await
        .expect("the call");

    assert_eq!(deleted.len(), 5);
    for (n, result) in deleted.iter().enumerate() {
        match (n, result) {
            (0 | 1 | 3, Ok(())) => {}
            (2, Err(Error::PopReceiptMismatch { .. })) => {}
            (4, Err(Error::NotFound { .. })) => {}
            other => panic!("message {n}: {other:?}"),
        }
    }
    assert_eq!(
        f.storage
            .queues
            .approximate_length(&queue)
            .await
            .expect("length"),
        1,
        "only the one with the wrong receipt is left"
    );
    assert_eq!(
        f.storage
            .transactions()
            .since(&before)
            .of(Operation::DeleteMessage),
        5
    );
}
