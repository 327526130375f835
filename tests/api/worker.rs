//! The worker, stepped by the tests: answers stored, listed and counted exactly once, premium
//! first without starving standard, oversized answers, poison messages, the pause flag and the
//! reconcile pass.

use std::time::Duration;

use canvass::domain::{QuestionId, QuestionSummary, Reference, Subscription, SurveyRef};
use canvass::storage::PutMode;
use canvass::stores::{AnswerMessage, Stores, SummaryDoc, keys};
use canvass::worker::StepOutcome;

use crate::helpers::{demo_answer, spawn_app, token_in, worker};

const LONG: Duration = Duration::from_secs(60);

/// Where the demo survey's data is filed.
async fn demo(stores: &Stores) -> SurveyRef {
    crate::helpers::demo_survey(stores).await
}

async fn summary(stores: &Stores) -> SummaryDoc {
    let survey = demo(stores).await;
    crate::helpers::summary_doc(stores, &survey).await
}

async fn drain(stores: &Stores) -> usize {
    let mut worker = worker(stores, LONG);
    let mut steps = 0;
    while let StepOutcome::BatchDone { .. } = worker.step().await.expect("a step") {
        steps += 1;
    }
    steps
}

/// Queues demo answers with these references for a standard tenant.
async fn queue_standard(stores: &Stores, references: std::ops::Range<u64>) {
    for reference in references {
        stores
            .answering
            .queues
            .submit(
                &demo_answer(&demo(stores).await, reference, reference),
                Subscription::Standard,
            )
            .await
            .expect("queued");
    }
}

/// The references in the demo survey's answer list, oldest first.
async fn listed(stores: &Stores) -> Vec<Reference> {
    let survey = demo(stores).await;
    let doc = summary(stores).await;
    stores
        .answering
        .lists
        .references(&doc.list_view(&survey), 0..doc.list_len)
        .await
        .expect("listed")
}

#[tokio::test]
async fn a_submitted_answer_is_stored_listed_counted_and_its_message_deleted() {
    let app = spawn_app().await;
    let stores = app.stores().await;
    let response = app
        .answer(
            "demo",
            "customer-satisfaction",
            &[("overall", "4"), ("drink", "Tea")],
        )
        .await;
    let reference =
        crate::helpers::reference_in(response.headers()["location"].to_str().expect("ascii"));

    let outcome = worker(&stores, LONG).step().await.expect("a step");

    let StepOutcome::BatchDone {
        received,
        counted,
        duplicates,
        ..
    } = outcome
    else {
        panic!("{outcome:?}")
    };
    assert_eq!((received, counted.len(), duplicates), (1, 1, 0));
    let survey = demo(&stores).await;
    let stored = stores
        .answering
        .answers
        .get(&survey, Reference(reference))
        .await
        .expect("read");
    assert!(stored.is_some(), "the answer is stored");
    assert_eq!(listed(&stores).await, vec![Reference(reference)]);
    let doc = summary(&stores).await;
    assert_eq!(doc.summary.total, 1);
    assert!(doc.recent.is_empty(), "the commit was completed");
    let overall = QuestionId::parse("overall").expect("an id");
    let QuestionSummary::Stars { counts, .. } = &doc.summary.questions[&overall] else {
        panic!("stars")
    };
    assert_eq!(counts, &[0, 0, 0, 1, 0]);
    assert_eq!(
        stores
            .answering
            .queues
            .waiting(Subscription::Standard)
            .await
            .expect("length"),
        0
    );
}

#[tokio::test]
async fn a_message_redelivered_after_its_answer_was_counted_is_not_counted_again() {
    let app = spawn_app().await;
    let stores = app.stores().await;
    let answer = demo_answer(&demo(&stores).await, 5000, 1);
    stores
        .answering
        .queues
        .submit(&answer, Subscription::Standard)
        .await
        .expect("queued");
    drain(&stores).await;

    // The same message again, as if the first worker died before deleting it.
    stores
        .answering
        .queues
        .submit(&answer, Subscription::Standard)
        .await
        .expect("queued");
    let outcome = worker(&stores, LONG).step().await.expect("a step");

    let StepOutcome::BatchDone {
        counted,
        duplicates,
        ..
    } = outcome
    else {
        panic!("{outcome:?}")
    };
    assert_eq!((counted.len(), duplicates), (0, 1));
    assert_eq!(summary(&stores).await.summary.total, 1);
    assert_eq!(listed(&stores).await, vec![Reference(5000)]);
}

#[tokio::test]
async fn under_a_backlog_settled_answers_leave_recent_with_the_next_commit_and_the_rest_when_idle()
{
    let app = spawn_app().await;
    let stores = app.stores().await;
    queue_standard(&stores, 30_000..30_080).await;
    let one_batch_a_step = canvass::worker::WorkerSettings {
        visibility: LONG,
        batches_per_step: 1,
        ..Default::default()
    };
    let mut worker = canvass::worker::Worker::new(stores.clone(), one_batch_a_step);
    let references = |doc: &SummaryDoc| doc.recent.keys().map(|r| r.0).collect::<Vec<_>>();

    worker.step().await.expect("a full step");
    let after_first = summary(&stores).await;
    worker.step().await.expect("a second full step");
    let after_second = summary(&stores).await;
    worker.step().await.expect("the last 16");
    let after_last = summary(&stores).await;

    assert_eq!(
        references(&after_first),
        (30_000..30_032).collect::<Vec<_>>(),
        "a full step leaves its settled answers for the next commit"
    );
    assert_eq!(
        references(&after_second),
        (30_032..30_064).collect::<Vec<_>>(),
        "the next commit dropped the first step's answers"
    );
    assert!(
        after_last.recent.is_empty(),
        "a step without a backlog tidies: {:?}",
        after_last.recent
    );
    assert_eq!(after_last.summary.total, 80);
    assert_eq!(listed(&stores).await.len(), 80);
}

#[tokio::test]
async fn a_commit_left_half_done_by_a_dead_worker_is_completed_by_the_redelivery() {
    let app = spawn_app().await;
    let stores = app.stores().await;
    let survey = demo(&stores).await;
    let answer = demo_answer(&demo(&stores).await, 7000, 2);
    // The state a worker leaves when it dies right after committing the summary.
    stores
        .answering
        .answers
        .store(&answer)
        .await
        .expect("stored");
    let mut doc = SummaryDoc::default();
    doc.summary.add(&answer);
    doc.recent.insert(answer.reference, 0);
    doc.list_len = 1;
    assert!(
        stores
            .answering
            .summaries
            .write(&survey, &doc, None)
            .await
            .expect("written")
    );
    stores
        .answering
        .queues
        .submit(&answer, Subscription::Standard)
        .await
        .expect("queued");

    drain(&stores).await;

    let doc = summary(&stores).await;
    assert_eq!(doc.summary.total, 1, "not counted twice");
    assert!(doc.recent.is_empty(), "the commit was completed");
    assert_eq!(listed(&stores).await, vec![Reference(7000)]);
    assert!(
        stores
            .answering
            .counted
            .counted(&survey, [Reference(7000)])
            .await
            .expect("read")
            .contains(&Reference(7000))
    );
}

#[tokio::test]
async fn premium_answers_are_served_first_and_standard_ones_still_progress() {
    let app = spawn_app().await;
    let stores = app.stores().await;
    // More premium answers than three steps take.
    let step = canvass::worker::WorkerSettings::default().batches_per_step as u64 * 32;
    for i in 0..3 * step + 20 {
        stores
            .answering
            .queues
            .submit(
                &demo_answer(&demo(&stores).await, 10_000 + i, i),
                Subscription::Premium,
            )
            .await
            .expect("queued");
        stores
            .answering
            .queues
            .submit(
                &demo_answer(&demo(&stores).await, 20_000 + i, i),
                Subscription::Standard,
            )
            .await
            .expect("queued");
    }
    let mut worker = worker(&stores, LONG);
    let mut served = Vec::new();

    for _ in 0..4 {
        match worker.step().await.expect("a step") {
            StepOutcome::BatchDone { queue, .. } => served.push(queue.to_string()),
            other => panic!("{other:?}"),
        }
    }

    assert_eq!(
        served,
        [
            "answers-premium",
            "answers-premium",
            "answers-premium",
            "answers-standard"
        ]
    );
}

#[tokio::test]
async fn a_worker_of_one_class_takes_only_that_classs_queues() {
    use canvass::worker::{Plans, Worker, WorkerSettings};
    let app = spawn_app().await;
    let stores = app.stores().await;
    let demo = demo(&stores).await;
    let before = summary(&stores).await.summary.total;
    for i in 0..40 {
        let queues = &stores.answering.queues;
        let premium = demo_answer(&demo, 30_000 + i, i);
        queues
            .submit(&premium, Subscription::Premium)
            .await
            .expect("queued");
        let standard = demo_answer(&demo, 40_000 + i, i);
        queues
            .submit(&standard, Subscription::Standard)
            .await
            .expect("queued");
    }
    let of = |plans: Plans| {
        let settings = WorkerSettings {
            plans,
            visibility: LONG,
            ..WorkerSettings::default()
        };
        Worker::new(stores.clone(), settings)
    };
    // A standard-only worker drains the standard queue and never takes a premium message.
    let mut standard = of(Plans::Standard);
    loop {
        match standard.step().await.expect("a step") {
            StepOutcome::BatchDone { queue, .. } => {
                assert_eq!(queue.to_string(), "answers-standard");
            }
            StepOutcome::QueuesEmpty => break,
            _ => {}
        }
    }
    let queues = &stores.answering.queues;
    assert_eq!(
        queues.waiting(Subscription::Standard).await.expect("read"),
        0
    );
    assert_eq!(
        queues.waiting(Subscription::Premium).await.expect("read"),
        40
    );
    assert_eq!(summary(&stores).await.summary.total, before + 40);
    // A premium-only worker takes the rest.
    let mut premium = of(Plans::Premium);
    while let StepOutcome::BatchDone { queue, .. } = premium.step().await.expect("a step") {
        assert_eq!(queue.to_string(), "answers-premium");
    }
    assert_eq!(
        queues.waiting(Subscription::Premium).await.expect("read"),
        0
    );
    assert_eq!(summary(&stores).await.summary.total, before + 80);
}

#[tokio::test]
async fn an_oversized_answer_is_taken_from_its_blob_which_is_then_removed() {
    let app = spawn_app().await;
    let stores = app.stores().await;
    let long = "Lovely coffee. ".repeat(5_000);
    let response = app
        .answer(
            "demo",
            "customer-satisfaction",
            &[("overall", "3"), ("drink", "Tea"), ("comments", &long)],
        )
        .await;
    assert_eq!(response.status(), 303);

    drain(&stores).await;

    assert_eq!(summary(&stores).await.summary.total, 1);
    let page = stores
        .operations
        .scan(keys::INCOMING, None)
        .await
        .expect("listed");
    assert!(
        page.keys.is_empty(),
        "the incoming copy is gone: {:?}",
        page.keys
    );
    let reference = listed(&stores).await[0];
    let survey = demo(&stores).await;
    let stored = stores
        .answering
        .answers
        .get(&survey, reference)
        .await
        .expect("read")
        .expect("stored");
    assert_eq!(stored.values.len(), 3);
}

#[tokio::test]
async fn a_message_that_keeps_failing_moves_to_the_poison_queue_and_can_be_requeued() {
    let app = spawn_app().await;
    let stores = app.stores().await;
    let standard = stores.answering.queues.queues_for(Subscription::Standard)[0].clone();
    app.storage
        .queues
        .add(&standard, "not an answer".into(), None)
        .await
        .expect("queued");
    // A pointer to an oversized answer that was never stored: unreadable until it appears.
    let answer = demo_answer(&demo(&stores).await, 9000, 3);
    let pointer = AnswerMessage::Pointer {
        tenant: answer.tenant.clone(),
        survey: answer.survey.clone(),
        survey_id: answer.survey_id.clone(),
        reference: answer.reference,
    };
    app.storage
        .queues
        .add(
            &standard,
            serde_json::to_vec(&pointer).expect("json").into(),
            None,
        )
        .await
        .expect("queued");
    let mut worker = canvass::worker::Worker::new(
        stores.clone(),
        canvass::worker::WorkerSettings {
            visibility: Duration::from_secs(1),
            max_dequeue: 1,
            ..Default::default()
        },
    );

    let first = worker.step().await.expect("a step");
    tokio::time::sleep(Duration::from_millis(2100)).await;
    let second = worker.step().await.expect("a step");

    assert!(
        matches!(first, StepOutcome::BatchDone { poisoned: 0, counted: ref c, .. } if c.is_empty()),
        "{first:?}"
    );
    assert!(
        matches!(second, StepOutcome::BatchDone { poisoned: 2, .. }),
        "{second:?}"
    );
    assert_eq!(
        stores
            .answering
            .queues
            .length(&standard)
            .await
            .expect("length"),
        0
    );
    let listed = canvass::admin::poison_list(&stores).await.expect("listed");
    assert_eq!(listed.len(), 2);
    assert!(
        listed
            .iter()
            .any(|entry| entry.content.starts_with("unreadable")),
        "{listed:?}"
    );

    stores
        .answering
        .answers
        .store(&answer)
        .await
        .expect("the missing answer appears");
    let incoming = keys::incoming_answer(&answer.survey_ref(), answer.reference);
    app.storage
        .blobs
        .put(
            &incoming,
            serde_json::to_vec(&answer).expect("json").into(),
            PutMode::Create,
        )
        .await
        .expect("stored");
    let (moved, stayed) = canvass::admin::poison_requeue(&stores)
        .await
        .expect("requeued");

    assert_eq!((moved, stayed), (1, 1));
    drain(&stores).await;
    assert_eq!(summary(&stores).await.summary.total, 1);
}

#[tokio::test]
async fn a_paused_worker_takes_no_messages_until_resumed() {
    let app = spawn_app().await;
    let stores = app.stores().await;
    stores
        .answering
        .queues
        .submit(
            &demo_answer(&demo(&stores).await, 1234, 1),
            Subscription::Standard,
        )
        .await
        .expect("queued");
    stores.operations.control.pause().await.expect("paused");
    let mut worker = worker(&stores, LONG);

    let paused = worker.step().await.expect("a step");

    assert!(matches!(paused, StepOutcome::Paused), "{paused:?}");
    let standard = stores.answering.queues.queues_for(Subscription::Standard)[0].clone();
    let visible = app
        .storage
        .queues
        .get(&standard, 32, Duration::from_secs(1))
        .await
        .expect("received");
    assert_eq!(visible.len(), 1, "the paused worker held nothing");
    tokio::time::sleep(Duration::from_millis(1100)).await;
    stores.operations.control.resume().await.expect("resumed");
    assert!(matches!(
        worker.step().await.expect("a step"),
        StepOutcome::BatchDone { .. }
    ));
    assert_eq!(summary(&stores).await.summary.total, 1);
}

#[tokio::test]
async fn workers_racing_on_one_survey_count_every_answer_exactly_once() {
    let app = spawn_app().await;
    let stores = app.stores().await;
    for i in 0..600 {
        stores
            .answering
            .queues
            .submit(
                &demo_answer(&demo(&stores).await, 100_000 + i, i),
                Subscription::Standard,
            )
            .await
            .expect("queued");
        if i % 10 == 0 {
            stores
                .answering
                .queues
                .submit(
                    &demo_answer(&demo(&stores).await, 100_000 + i, i),
                    Subscription::Standard,
                )
                .await
                .expect("queued");
        }
    }

    let racers: Vec<_> = (0..4)
        .map(|_| {
            let stores = stores.clone();
            tokio::spawn(async move {
                let mut worker = crate::helpers::worker(&stores, LONG);
                while let StepOutcome::BatchDone { .. } = worker.step().await.expect("a step") {}
            })
        })
        .collect();
    for racer in racers {
        racer.await.expect("joined");
    }

    let doc = summary(&stores).await;
    assert_eq!(doc.summary.total, 600);
    let list = listed(&stores).await;
    let distinct: std::collections::BTreeSet<_> = list.iter().collect();
    assert_eq!((list.len(), distinct.len()), (600, 600));
    let drink = QuestionId::parse("drink").expect("an id");
    let QuestionSummary::Choice { options, .. } = &doc.summary.questions[&drink] else {
        panic!("choice")
    };
    assert_eq!(options.values().sum::<u64>(), 600);
    assert!(options.values().all(|&count| count == 120), "{options:?}");
}

#[tokio::test]
async fn reconcile_counts_forgotten_answers_once_and_removes_their_incoming_copies() {
    let app = spawn_app().await;
    let stores = app.stores().await;
    let survey = demo(&stores).await;
    // An oversized answer whose pointer was never queued, and a stored answer never counted.
    let forgotten = demo_answer(&demo(&stores).await, 4242, 4);
    let incoming = keys::incoming_answer(&survey, forgotten.reference);
    app.storage
        .blobs
        .put(
            &incoming,
            serde_json::to_vec(&forgotten).expect("json").into(),
            PutMode::Create,
        )
        .await
        .expect("stored");
    stores
        .answering
        .answers
        .store(&demo_answer(&demo(&stores).await, 4343, 5))
        .await
        .expect("stored");

    let first = canvass::worker::reconcile::run_locked(&stores, Duration::ZERO, &|_| {})
        .await
        .expect("ran")
        .expect("not locked");
    let second = canvass::worker::reconcile::run_locked(&stores, Duration::ZERO, &|_| {})
        .await
        .expect("ran")
        .expect("not locked");

    assert_eq!((first.repaired, second.repaired), (2, 0));
    assert_eq!(summary(&stores).await.summary.total, 2);
    assert_eq!(
        listed(&stores).await,
        vec![Reference(4242), Reference(4343)]
    );
    assert!(
        stores
            .operations
            .scan(keys::INCOMING, None)
            .await
            .expect("listed")
            .keys
            .is_empty()
    );
    // The late message of the forgotten answer is recognised as counted.
    stores
        .answering
        .queues
        .submit(&forgotten, Subscription::Standard)
        .await
        .expect("queued");
    drain(&stores).await;
    assert_eq!(summary(&stores).await.summary.total, 2);
}

#[tokio::test]
async fn only_one_instance_reconciles_at_a_time() {
    let app = spawn_app().await;
    let stores = app.stores().await;
    let held = canvass::stores::lease::acquire(
        app.storage.blobs.clone(),
        keys::RECONCILE_LOCK,
        "someone-else",
        LONG,
    )
    .await
    .expect("read")
    .expect("taken");

    let skipped = canvass::worker::reconcile::run_locked(&stores, Duration::ZERO, &|_| {})
        .await
        .expect("ran");

    assert!(skipped.is_none());
    held.release().await.expect("released");
    assert!(
        canvass::worker::reconcile::run_locked(&stores, Duration::ZERO, &|_| {})
            .await
            .expect("ran")
            .is_some()
    );
}

#[tokio::test]
async fn the_answer_list_pages_thousands_of_answers_in_arrival_order() {
    let app = spawn_app().await;
    let stores = app.stores().await;
    for i in 0..1_100u64 {
        stores
            .answering
            .queues
            .submit(
                &demo_answer(&demo(&stores).await, 50_000 + i, i),
                Subscription::Standard,
            )
            .await
            .expect("queued");
    }
    drain(&stores).await;
    let survey = demo(&stores).await;
    let doc = summary(&stores).await;
    let before = app.storage.transactions();

    let page = stores
        .answering
        .lists
        .references(&doc.list_view(&survey), 1_000..1_025)
        .await
        .expect("a page");

    assert_eq!(page, (51_000..51_025).map(Reference).collect::<Vec<_>>());
    let reads = app.storage.transactions().since(&before).total();
    assert!(reads <= 2, "a page reads at most two chunks: {reads}");
}

#[tokio::test]
async fn the_summary_report_lists_every_question_in_order_with_its_statistics() {
    let app = spawn_app().await;
    let stores = app.stores().await;
    for i in 0..10 {
        stores
            .answering
            .queues
            .submit(
                &demo_answer(&demo(&stores).await, 60_000 + i, i),
                Subscription::Standard,
            )
            .await
            .expect("queued");
    }
    drain(&stores).await;

    let report = canvass::admin::summary(&stores, "demo", "customer-satisfaction")
        .await
        .expect("a report");
    let json = serde_json::to_value(&report).expect("json");

    assert_eq!(json["total"], 10);
    let ids: Vec<&str> = json["questions"]
        .as_array()
        .expect("an array")
        .iter()
        .map(|q| q["id"].as_str().expect("id"))
        .collect();
    assert_eq!(
        ids,
        ["overall", "drink", "liked", "wait", "location", "comments"]
    );
    assert_eq!(json["questions"][0]["answered"], 10);
    assert_eq!(json["questions"][0]["mean"], 3.0);
    assert_eq!(
        json["questions"][1]["options"][0],
        serde_json::json!({"option": "Espresso", "count": 2})
    );
    assert_eq!(json["questions"][3]["answered"], 4);
    let words = json["questions"][5]["top_words"].as_array().expect("words");
    assert_eq!(words[0]["word"], "coffee");
    assert_eq!(words[0]["count"], 3);
}

#[tokio::test]
async fn serve_runs_a_worker_in_process_that_counts_a_submitted_answer() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let server = crate::helpers::CanvassProcess::serve(dir.path(), &[]);
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        // No idle connections: one reused just as the server's keep-alive (5 s) closes it
        // fails the request (seen after a 5 s wait in a test).
        .pool_max_idle_per_host(0)
        .build()
        .expect("a client");
    let form = client
        .get(format!("{}/s/demo/customer-satisfaction", server.address))
        .send()
        .await
        .expect("answered");
    let token = token_in(&form.text().await.expect("a body"));
    let posted = client
        .post(format!("{}/s/demo/customer-satisfaction", server.address))
        .form(&[
            ("token", token.as_str()),
            ("q-overall", "5"),
            ("q-drink", "Tea"),
        ])
        .send()
        .await
        .expect("answered");
    assert_eq!(posted.status(), 303);
    let stores = Stores::open(
        canvass::storage::local::storage(dir.path())
            .await
            .expect("opens"),
        &Default::default(),
    )
    .await
    .expect("stores");

    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while summary(&stores).await.summary.total < 1 {
        assert!(
            std::time::Instant::now() < deadline,
            "the in-process worker never counted the answer"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }

    let report = canvass::admin::summary(&stores, "demo", "customer-satisfaction")
        .await
        .expect("a report");
    assert_eq!(report.total, 1);
    assert!(server.terminate().success(), "serve exits 0 on SIGTERM");
}

#[tokio::test]
async fn answers_to_a_deleted_survey_are_dropped_not_resurrected() {
    let app = spawn_app().await;
    let stores = app.stores().await;
    stores
        .answering
        .queues
        .submit(
            &demo_answer(&demo(&stores).await, 3100, 1),
            Subscription::Standard,
        )
        .await
        .expect("queued");
    let survey = demo(&stores).await;
    let definition = stores
        .catalog
        .surveys
        .get(&survey.tenant, &survey.slug)
        .await
        .expect("read")
        .expect("the demo survey");
    stores
        .catalog
        .surveys
        .delete(&definition)
        .await
        .expect("deleted");

    let outcome = worker(&stores, LONG).step().await.expect("a step");

    assert!(
        matches!(outcome, StepOutcome::BatchDone { ref counted, .. } if counted.is_empty()),
        "{outcome:?}"
    );
    assert_eq!(
        stores
            .answering
            .queues
            .waiting(Subscription::Standard)
            .await
            .expect("length"),
        0
    );
    assert!(
        stores
            .operations
            .scan("summaries/", None)
            .await
            .expect("listed")
            .keys
            .is_empty(),
        "no summary was recreated"
    );
}

/// Stores over the app's storage with four shards per class, holding `count` standard
/// answers spread evenly over four copies of the demo survey, one filed in each shard (a
/// survey's answers all wait in the shard its tenant and slug hash to).
pub(crate) async fn four_shards_with_answers(app: &crate::helpers::TestApp, count: u64) -> Stores {
    let settings = canvass::stores::StoreSettings {
        queue_shards: 4,
        ..Default::default()
    };
    let stores = Stores::open(app.storage.clone(), &settings)
        .await
        .expect("stores");
    queue_to_copies(&stores, count, 7000).await;
    stores
}

/// Queues `count` standard answers spread evenly over the four `shard_copies`, with
/// references from `first` on.
pub(crate) async fn queue_to_copies(stores: &Stores, count: u64, first: u64) {
    let copies = shard_copies(stores).await;
    for n in 0..count {
        let survey = &copies[(n % 4) as usize];
        stores
            .answering
            .queues
            .submit(&demo_answer(survey, first + n, n), Subscription::Standard)
            .await
            .expect("queued");
    }
}

/// Four copies of the demo survey whose answers hash to shards 0, 1, 2 and 3 of four (filed
/// the first time they are asked for).
pub(crate) async fn shard_copies(stores: &Stores) -> Vec<SurveyRef> {
    let demo = demo(stores).await;
    let surveys = &stores.catalog.surveys;
    let original = surveys
        .get(&demo.tenant, &demo.slug)
        .await
        .expect("read")
        .expect("the demo survey");
    let mut copies: Vec<Option<SurveyRef>> = vec![None; 4];
    for n in 0.. {
        let slug = canvass::domain::SurveySlug::parse(&format!("copy-{n}")).expect("a slug");
        let shard = canvass::stores::shard_of(&demo.tenant, &slug, 4);
        if copies[shard].is_none() {
            let filed = surveys.get(&demo.tenant, &slug).await.expect("read");
            copies[shard] = Some(match filed {
                Some(copy) => copy.survey_ref(),
                None => {
                    let mut copy = (*original).clone();
                    copy.slug = slug;
                    copy.id = canvass::domain::SurveyId::generate();
                    surveys.save(&copy).await.expect("saved");
                    copy.survey_ref()
                }
            });
        }
        if copies.iter().all(Option::is_some) {
            break;
        }
    }
    copies.into_iter().flatten().collect()
}

/// The four copies' summaries' total.
pub(crate) async fn copies_total(stores: &Stores) -> u64 {
    let mut total = 0;
    for copy in shard_copies(stores).await {
        total += crate::helpers::summary_doc(stores, &copy)
            .await
            .summary
            .total;
    }
    total
}

#[tokio::test]
async fn sharded_queues_spread_answers_and_the_worker_reads_every_shard() {
    let app = spawn_app().await;
    let stores = four_shards_with_answers(&app, 40).await;
    let shards = stores.answering.queues.queues_for(Subscription::Standard);
    assert_eq!(shards.len(), 4);
    assert_eq!(
        shards[0].as_str(),
        "answers-standard",
        "shard 0 keeps the old name"
    );
    for shard in shards {
        let length = stores.answering.queues.length(shard).await.expect("length");
        assert_eq!(
            length, 10,
            "{shard} holds its survey's quarter of the answers"
        );
    }
    let listed: Vec<(String, &str)> = canvass::admin::queues(&stores)
        .await
        .expect("queues")
        .into_iter()
        .map(|depth| (depth.name, depth.role))
        .collect();
    for name in [
        "answers-standard-1",
        "answers-standard-3",
        "answers-premium-2",
    ] {
        assert!(
            listed.iter().any(|(listed, _)| listed == name),
            "canvass queues lists shard {name}: {listed:?}"
        );
    }
    assert!(
        listed.contains(&("exports".to_owned(), "export")),
        "canvass queues lists the export queue: {listed:?}"
    );

    let mut worker = worker(&stores, LONG);
    let mut steps = 0;
    while let StepOutcome::BatchDone { .. } = worker.step().await.expect("a step") {
        steps += 1;
    }

    assert_eq!(steps, 4, "one batch per shard");
    assert_eq!(copies_total(&stores).await, 40);
    assert_eq!(
        stores
            .answering
            .queues
            .waiting(Subscription::Standard)
            .await
            .expect("length"),
        0
    );
}

#[tokio::test]
async fn a_worker_takes_the_shards_in_turn_rather_than_emptying_one_first() {
    let app = spawn_app().await;
    // Two batches' worth on every shard.
    let stores = four_shards_with_answers(&app, 256).await;
    let one_batch_a_step = canvass::worker::WorkerSettings {
        visibility: LONG,
        batches_per_step: 1,
        ..Default::default()
    };
    let mut worker = canvass::worker::Worker::new(stores.clone(), one_batch_a_step);

    let mut order = Vec::new();
    while let StepOutcome::BatchDone { queue, .. } = worker.step().await.expect("a step") {
        order.push(queue.to_string());
    }

    assert_eq!(order.len(), 8, "{order:?}");
    assert!(
        order.windows(2).all(|pair| pair[0] != pair[1]),
        "no shard is read twice in a row while others wait: {order:?}"
    );
    assert_eq!(copies_total(&stores).await, 256);
}
