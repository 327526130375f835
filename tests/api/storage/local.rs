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

/// The suite again on the handle workers use: commits without fsync, deletes and flushes
/// after an fsync of every blob file's log.
mod relaxed {
    use crate::storage::conformance::Fixture;
    use canvass::storage::local::{self, Durability, Options};

    async fn fixture() -> Fixture {
        let dir = tempfile::tempdir().expect("a temp dir");
        let (storage, _) = local::open(dir.path(), Options::with(Durability::Relaxed))
            .await
            .expect("local storage opens");
        Fixture::new(storage, Some(dir))
    }

    conformance_suite!(fixture());
}

#[tokio::test]
async fn the_web_handle_fsyncs_every_commit_and_the_worker_handle_only_at_flushes_and_deletes() {
    use canvass::storage::local::{Durability, Options, open};
    use canvass::storage::{PutMode, QueueName};
    let dir = tempfile::tempdir().expect("a temp dir");
    let (web, full) = open(dir.path(), Options::with(Durability::Full))
        .await
        .expect("opens");
    let (worker, relaxed) = open(dir.path(), Options::with(Durability::Relaxed))
        .await
        .expect("opens again");

    assert_eq!(
        full.synchronous().await.expect("read"),
        [2, 2, 2, 2, 2],
        "FULL everywhere"
    );
    assert_eq!(
        relaxed.synchronous().await.expect("read"),
        [1, 1, 1, 1, 1],
        "NORMAL everywhere"
    );

    web.blobs
        .put("w", "x".into(), PutMode::Create)
        .await
        .expect("written");
    web.blobs.flush().await.expect("flushed");
    assert_eq!(
        full.log_syncs(),
        0,
        "a full handle's flush has nothing left to do"
    );

    worker
        .blobs
        .put("k", "x".into(), PutMode::Create)
        .await
        .expect("written");
    assert_eq!(relaxed.log_syncs(), 0, "a relaxed commit is not fsynced");
    worker.blobs.flush().await.expect("flushed");
    assert_eq!(
        relaxed.log_syncs(),
        4,
        "a flush fsyncs every blob file's log"
    );
    worker.blobs.delete("k", None).await.expect("deleted");
    assert_eq!(
        relaxed.log_syncs(),
        8,
        "a blob delete first fsyncs every blob file's log"
    );
    let queue = QueueName::parse("synced").expect("a name");
    worker.queues.create_queue(&queue).await.expect("created");
    worker
        .queues
        .add(&queue, "m".into(), None)
        .await
        .expect("added");
    let held = worker
        .queues
        .get(&queue, 1, std::time::Duration::from_secs(30))
        .await
        .expect("received");
    worker
        .queues
        .delete(&queue, &held[0].id, &held[0].pop_receipt)
        .await
        .expect("deleted");
    assert_eq!(
        relaxed.log_syncs(),
        12,
        "a message delete first fsyncs every blob file's log"
    );
}

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

/// The schema of a data directory written before blobs and message bodies had files and
/// tables of their own.
const SINGLE_FILE_SCHEMA: &str = "
create table blob (key text primary key, body blob not null, version integer not null,
                   last_modified integer not null);
create table queue (name text primary key);
create table message (id integer primary key autoincrement,
                      queue text not null references queue (name) on delete cascade,
                      body blob not null, inserted_at integer not null,
                      visible_at integer not null, pop_receipt text,
                      dequeue_count integer not null default 0);
create index message_by_visibility on message (queue, visible_at, id);
insert into queue (name) values ('old-queue');
";

#[tokio::test]
async fn a_data_directory_of_the_single_file_layout_keeps_every_blob_and_message() {
    let dir = tempfile::tempdir().expect("a temp dir");
    {
        let old = rusqlite::Connection::open(dir.path().join("canvass.sqlite3")).expect("opens");
        old.execute_batch(SINGLE_FILE_SCHEMA).expect("old schema");
        for n in 0..600 {
            old.execute(
                "insert into blob (key, body, version, last_modified) values (?1, ?2, ?3, 0)",
                rusqlite::params![format!("old/{n:04}"), format!("body {n}").into_bytes(), n],
            )
            .expect("an old blob");
        }
        for n in 0..3 {
            old.execute(
                "insert into message (queue, body, inserted_at, visible_at)
                 values ('old-queue', ?1, 0, 0)",
                [format!("message {n}").into_bytes()],
            )
            .expect("an old message");
        }
    }

    let storage = canvass::storage::local::storage(dir.path())
        .await
        .expect("the old directory opens");

    let blob = storage.blobs.get("old/0042").await.expect("moved");
    assert_eq!(blob.body, "body 42");
    let listed = storage
        .blobs
        .list(&canvass::storage::ListRequest::new("old/", 0))
        .await
        .expect("listed");
    let keys: Vec<String> = listed.items.into_iter().map(|meta| meta.key).collect();
    let expected: Vec<String> = (0..600).map(|n| format!("old/{n:04}")).collect();
    assert_eq!(keys, expected, "every blob, once, in key order");
    let queue = canvass::storage::QueueName::parse("old-queue").expect("a name");
    let received = storage
        .queues
        .get(&queue, 32, std::time::Duration::from_secs(30))
        .await
        .expect("received");
    let bodies: Vec<&[u8]> = received.iter().map(|m| m.body.as_ref()).collect();
    assert_eq!(
        bodies,
        [&b"message 0"[..], &b"message 1"[..], &b"message 2"[..]]
    );
    let again = canvass::storage::local::storage(dir.path())
        .await
        .expect("opens again");
    assert_eq!(
        again.blobs.get("old/0599").await.expect("still there").body,
        "body 599"
    );
    let old = rusqlite::Connection::open(dir.path().join("canvass.sqlite3")).expect("opens");
    let count = |sql: &str| -> i64 {
        old.query_row(sql, [], |row| row.get(0))
            .expect("schema read")
    };
    assert_eq!(
        count("select count(*) from sqlite_schema where name = 'blob'"),
        0,
        "the old blob table is gone from the queue file"
    );
    assert_eq!(
        count("select count(*) from pragma_table_info('message') where name = 'body'"),
        0,
        "messages no longer hold their bodies"
    );
    assert_eq!(
        count("select count(*) from message_body"),
        3,
        "the three bodies moved to a table of their own"
    );
}

#[tokio::test]
async fn a_data_directory_keeps_the_number_of_blob_files_it_was_created_with() {
    let dir = tempfile::tempdir().expect("a temp dir");
    {
        let first = rusqlite::Connection::open(dir.path().join("canvass.sqlite3")).expect("opens");
        first
            .execute_batch(
                "create table layout (id integer primary key check (id = 0),
                                      blob_files integer not null);
                 insert into layout (id, blob_files) values (0, 2);",
            )
            .expect("a two-file layout");
    }

    let storage = canvass::storage::local::storage(dir.path())
        .await
        .expect("opens");
    for n in 0..50 {
        storage
            .blobs
            .put(
                &format!("k/{n}"),
                "v".into(),
                canvass::storage::PutMode::Create,
            )
            .await
            .expect("written");
    }

    let files: Vec<bool> = (0..4)
        .map(|n| {
            dir.path()
                .join(format!("canvass-blobs-{n}.sqlite3"))
                .exists()
        })
        .collect();
    assert_eq!(files, [true, true, false, false]);
    assert_eq!(storage.blobs.get("k/49").await.expect("read").body, "v");
}

/// Bytes of the database files in a directory, and the largest write-ahead log beside them.
fn size_of(dir: &std::path::Path) -> (u64, u64) {
    let (mut databases, mut largest_log) = (0, 0);
    for entry in std::fs::read_dir(dir).expect("a directory") {
        let entry = entry.expect("an entry");
        let size = entry.metadata().expect("metadata").len();
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.ends_with(".sqlite3") {
            databases += size;
        } else if name.ends_with("-wal") {
            largest_log = largest_log.max(size);
        }
    }
    (databases, largest_log)
}

#[tokio::test]
async fn deleted_blobs_and_messages_give_their_space_back() {
    use canvass::storage::{ListRequest, PutMode, QueueName};
    let dir = tempfile::tempdir().expect("a temp dir");
    let storage = canvass::storage::local::storage(dir.path())
        .await
        .expect("opens");
    let queue = QueueName::parse("big-queue").expect("a name");
    storage.queues.create_queue(&queue).await.expect("created");
    let body = bytes::Bytes::from(vec![7u8; 200_000]);
    for n in 0..100 {
        let key = format!("big/{n:03}");
        storage
            .blobs
            .put(&key, body.clone(), PutMode::Create)
            .await
            .expect("written");
        storage
            .queues
            .add(&queue, vec![1u8; 40_000].into(), None)
            .await
            .expect("added");
    }
    let (full, _) = size_of(dir.path());

    for item in storage
        .blobs
        .list(&ListRequest::new("big/", 0))
        .await
        .expect("listed")
        .items
    {
        storage
            .blobs
            .delete(&item.key, None)
            .await
            .expect("deleted");
    }
    loop {
        let held = storage
            .queues
            .get(&queue, 32, std::time::Duration::from_secs(60))
            .await
            .expect("received");
        if held.is_empty() {
            break;
        }
        for message in held {
            storage
                .queues
                .delete(&queue, &message.id, &message.pop_receipt)
                .await
                .expect("deleted");
        }
    }
    // The writers give free pages back, and checkpoint their logs down to the limit, within a
    // second of their last commit: wait for both (a busy machine may take longer), up to 30 s.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    let (emptied, log) = loop {
        let (emptied, log) = size_of(dir.path());
        let done = emptied < full / 4 && log <= 5 * 1024 * 1024;
        if done || std::time::Instant::now() > deadline {
            break (emptied, log);
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    };

    assert!(full > 15_000_000, "{full} bytes in the files");
    assert!(
        emptied < full / 4,
        "{emptied} bytes left of {full} after everything was deleted"
    );
    assert!(log <= 5 * 1024 * 1024, "a log of {log} bytes is kept");
}
