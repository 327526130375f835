//! A pause that holds (issue 51, item 3): while the pause flag is set, a running worker (its
//! whole loop, as `canvass worker` runs it) does none of its jobs; released, it does each.
//! Answers (`worker.rs`, and from the command line in `guarantees.rs`) and webhook deliveries
//! (`webhooks.rs`) and mailings (`mailings.rs`) have theirs elsewhere; email, segment builds,
//! deletions, exports to PostgreSQL and the reconcile pass are here (moving answers home is in
//! `regions_crash.rs`). (Workers start no backups: `canvass backup`
//! is an operator's command.)

use std::time::{Duration, Instant};

use canvass::domain::{Reference, Subscription};
use canvass::stores::Stores;
use canvass::worker::{Worker, WorkerSettings};

use crate::helpers::{demo_answer, demo_survey, spawn_app};
use crate::mailbox::Mailbox;

/// How long the paused worker is watched doing nothing.
const HELD: Duration = Duration::from_secs(2);

/// Runs a worker over `stores` while paused: `done` must stay false for `HELD`; then resumes
/// and waits (10 s at most) for `done`.
pub(crate) async fn held_until_released(
    stores: &Stores,
    settings: WorkerSettings,
    job: &str,
    done: impl AsyncFn() -> bool,
) {
    let control = &stores.operations.control;
    control.pause().await.expect("paused");
    let settings = WorkerSettings {
        idle: canvass::worker::idle::Backoff::new(
            Duration::from_millis(50),
            Duration::from_millis(200),
        ),
        ..settings
    };
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let running = tokio::spawn(Worker::new(stores.clone(), settings).run(async {
        let _ = stopped.await;
    }));
    let held = Instant::now();
    while held.elapsed() < HELD {
        assert!(!done().await, "{job} ran while the workers were paused");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    control.resume().await.expect("resumed");
    let released = Instant::now();
    while !done().await {
        assert!(
            released.elapsed() < Duration::from_secs(10),
            "{job} did not run once the workers were released"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let _ = stop.send(());
    running.await.expect("the worker stops");
}

/// Queues and counts `count` answers to the demo survey; returns their references.
async fn counted_answers(stores: &Stores, count: u64) -> Vec<Reference> {
    let demo = demo_survey(stores).await;
    let mut references = Vec::new();
    for n in 0..count {
        let answer = demo_answer(&demo, 4_000 + n, n);
        references.push(answer.reference);
        stores
            .answering
            .queues
            .submit(&answer, Subscription::Standard)
            .await
            .expect("queued");
    }
    crate::helpers::drain(stores).await;
    references
}

async fn demo_total(stores: &Stores) -> u64 {
    let demo = demo_survey(stores).await;
    crate::helpers::summary_doc(stores, &demo)
        .await
        .summary
        .total
}

#[tokio::test]
async fn while_workers_are_paused_no_email_is_sent_and_once_released_it_is() {
    let app = spawn_app().await;
    let stores = app.stores().await;
    let mailbox = Mailbox::from_env();
    let to = format!("held-{}@acme.test", uuid::Uuid::new_v4().simple());
    let mail = canvass::mail::Mail {
        to: canvass::domain::Email::parse(&to).expect("an address"),
        subject: "Held".into(),
        body: "Sent once the workers are released.".into(),
    };
    stores.panel.mail.send(&mail).await.expect("queued");
    let settings = WorkerSettings {
        mailer: canvass::worker::mailer::MailerSettings {
            sender: Some(
                canvass::mail::Sender::new(&mailbox.smtp_url(), "Canvass <canvass@acme.test>")
                    .expect("a sender"),
            ),
            site: Some("https://surveys.acme.test".into()),
            ..Default::default()
        },
        ..WorkerSettings::default()
    };
    held_until_released(&stores, settings, "sending email", async || {
        !mailbox.received(&to).is_empty()
    })
    .await;
    assert_eq!(mailbox.received(&to).len(), 1, "sent once");
}

#[tokio::test]
async fn while_workers_are_paused_no_segment_is_built_and_once_released_it_is() {
    let app = spawn_app().await;
    let stores = app.stores().await;
    counted_answers(&stores, 5).await;
    let demo = demo_survey(&stores).await;
    let mut survey = (*stores
        .catalog
        .surveys
        .get(&demo.tenant, &demo.slug)
        .await
        .expect("read")
        .expect("the demo survey"))
    .clone();
    let drink = survey
        .questions
        .iter_mut()
        .find(|question| question.id.as_str() == "drink")
        .expect("the drink question");
    drink.segment = true;
    stores.catalog.surveys.save(&survey).await.expect("saved");
    stores
        .operations
        .segments
        .request(&demo)
        .await
        .expect("a build queued");
    let segments = &stores.operations.segments;
    held_until_released(
        &stores,
        WorkerSettings::default(),
        "building segments",
        async || {
            segments.queue().waiting().await.expect("a length") == 0
                && !segments.progress(&demo).await.expect("read").is_empty()
        },
    )
    .await;
}

#[tokio::test]
async fn while_workers_are_paused_no_response_is_deleted_and_once_released_it_is() {
    let app = spawn_app().await;
    let stores = app.stores().await;
    let references = counted_answers(&stores, 3).await;
    let before = demo_total(&stores).await;
    let demo = demo_survey(&stores).await;
    stores
        .operations
        .deletions
        .request(&demo, &references[..1], "the pause test")
        .await
        .expect("a deletion queued");
    held_until_released(
        &stores,
        WorkerSettings::default(),
        "deleting a response",
        async || demo_total(&stores).await == before - 1,
    )
    .await;
}

#[tokio::test]
async fn while_workers_are_paused_no_export_runs_and_once_released_it_does() {
    let app = spawn_app().await;
    let stores = app.stores().await;
    counted_answers(&stores, 2).await;
    let demo = demo_survey(&stores).await;
    let job = stores
        .operations
        .exports
        .request(&demo)
        .await
        .expect("an export queued");
    let database = crate::export::TestDatabase::create().await;
    let settings = WorkerSettings {
        export_database_url: Some(database.url.clone()),
        ..WorkerSettings::default()
    };
    held_until_released(&stores, settings, "an export", async || {
        let now = crate::helpers::export_job(&stores, &job).await;
        assert_ne!(
            now.status,
            canvass::stores::exports::ExportStatus::Failed,
            "{now:?}"
        );
        now.status == canvass::stores::exports::ExportStatus::Done
    })
    .await;
    assert_eq!(
        database
            .count("select count(*) from canvass.response")
            .await,
        2
    );
}

#[tokio::test]
async fn while_workers_are_paused_the_reconcile_pass_waits_and_once_released_it_runs() {
    let (storage, witness) = crate::faults::WrittenWitness::around(
        &canvass::storage::memory::storage(),
        canvass::stores::keys::RECONCILE_LOCK,
    );
    let stores = Stores::open(storage, &canvass::stores::StoreSettings::default())
        .await
        .expect("stores");
    let settings = WorkerSettings {
        reconcile_every: Duration::from_millis(100),
        ..WorkerSettings::default()
    };
    let ran = std::sync::atomic::Ordering::SeqCst;
    held_until_released(&stores, settings, "the reconcile pass", async || {
        witness.written.load(ran)
    })
    .await;
}
