//! Fault injection: several `canvass worker` processes on one local data directory are killed
//! with SIGKILL at random moments while they drain thousands of answers (with repeated
//! messages and oversized answers among them). Afterwards every summary, histogram and answer
//! list must be exactly right: nothing lost, nothing counted twice.

use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, Instant};

use canvass::domain::{
    Answer, AnswerValue, QuestionId, QuestionSummary, Reference, Subscription, SurveyRef,
    SurveySummary,
};
use canvass::storage::local;
use canvass::stores::{StoreSettings, Stores, SummaryDoc};
use futures_util::future::join_all;

use crate::helpers::{CanvassProcess, demo_answer};

const ANSWERS: u64 = 4000;
const WORKERS: usize = 3;

/// A small deterministic random source, so a failure can be replayed.
struct Xorshift(u64);

impl Xorshift {
    fn next(&mut self, below: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % below
    }
}

fn answer_for(survey: &SurveyRef, reference: u64, n: u64) -> Answer {
    let mut answer = demo_answer(survey, reference, n);
    if n % 200 == 7 {
        // Too large for a message: travels as an incoming blob plus a pointer.
        let comments = QuestionId::parse("comments").expect("an id");
        answer
            .values
            .insert(comments, AnswerValue::Text("lovely coffee ".repeat(5_000)));
    }
    answer
}

/// Messages still in any queue, held or not.
async fn queued(stores: &Stores) -> u64 {
    let mut waiting = 0;
    for (_, queue) in stores.answer_queues.all() {
        waiting += stores.answer_queues.length(queue).await.expect("length");
    }
    waiting
}

async fn wait_until_drained(stores: &Stores, deadline: Instant) {
    loop {
        let waiting = queued(stores).await;
        if waiting == 0 {
            return;
        }
        assert!(Instant::now() < deadline, "{waiting} messages still queued");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

fn assert_same_summary(actual: &SurveySummary, expected: &SurveySummary, survey: &str) {
    assert_eq!(actual.total, expected.total, "{survey}: total");
    assert_eq!(
        actual.questions.len(),
        expected.questions.len(),
        "{survey}: questions"
    );
    for (id, want) in &expected.questions {
        let got = &actual.questions[id];
        match (got, want) {
            (
                QuestionSummary::Stars {
                    moments: a,
                    counts: ca,
                },
                QuestionSummary::Stars {
                    moments: b,
                    counts: cb,
                },
            ) => {
                assert_eq!(ca, cb, "{survey}/{id}: star counts");
                assert_eq!(
                    (a.count, a.min, a.max),
                    (b.count, b.min, b.max),
                    "{survey}/{id}"
                );
                assert!((a.mean - b.mean).abs() < 1e-9, "{survey}/{id}: mean");
            }
            (
                QuestionSummary::Number {
                    moments: a,
                    histogram: ha,
                },
                QuestionSummary::Number {
                    moments: b,
                    histogram: hb,
                },
            ) => {
                assert_eq!(ha, hb, "{survey}/{id}: histogram");
                assert_eq!(
                    (a.count, a.min, a.max),
                    (b.count, b.min, b.max),
                    "{survey}/{id}"
                );
                assert!(
                    (a.std_dev() - b.std_dev()).abs() < 1e-9,
                    "{survey}/{id}: deviation"
                );
            }
            _ => assert_eq!(got, want, "{survey}/{id}"),
        }
    }
}

#[tokio::test]
async fn workers_killed_at_random_moments_never_lose_or_double_count_an_answer() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let stores = Stores::open(
        local::storage(dir.path()).await.expect("opens"),
        &StoreSettings::default(),
    )
    .await
    .expect("stores");
    let mut surveys = Vec::new();
    for (tenant, slug) in [("acme", "team"), ("gold", "launch")] {
        let definition = crate::helpers::survey(tenant, slug, slug, Vec::new());
        stores
            .surveys
            .save(&definition)
            .await
            .expect("the survey exists");
        surveys.push(definition.survey_ref());
    }
    let mut random = Xorshift(0x9e37_79b9_7f4a_7c15);
    let mut expected = [SurveySummary::default(), SurveySummary::default()];
    let mut unique: [BTreeSet<Reference>; 2] = Default::default();
    let mut messages = Vec::new();
    for n in 0..ANSWERS {
        let survey = (n % 2) as usize;
        let answer = answer_for(&surveys[survey], 1_000 + n, n);
        expected[survey].add(&answer);
        unique[survey].insert(answer.reference);
        let subscription = if survey == 0 {
            Subscription::Standard
        } else {
            Subscription::Premium
        };
        messages.push((answer.clone(), subscription));
        if random.next(20) == 0 {
            messages.push((answer, subscription)); // the same answer queued twice
        }
    }
    for chunk in messages.chunks(128) {
        for queued in join_all(
            chunk
                .iter()
                .map(|(a, s)| stores.answer_queues.submit(a, *s)),
        )
        .await
        {
            queued.expect("queued");
        }
    }

    let env = [
        ("CANVASS_WORKER_VISIBILITY_SECS", "2"),
        ("CANVASS_WORKER_MAX_DEQUEUE", "1000"),
        ("CANVASS_WORKER_BATCHES", "1"),
    ];
    let mut workers: Vec<CanvassProcess> = (0..WORKERS)
        .map(|_| CanvassProcess::worker(dir.path(), &env))
        .collect();
    let deadline = Instant::now() + Duration::from_secs(120);
    let mut kills = 0;
    loop {
        tokio::time::sleep(Duration::from_millis(20 + random.next(180))).await;
        let victim = random.next(WORKERS as u64) as usize;
        workers.remove(victim).kill();
        kills += 1;
        workers.push(CanvassProcess::worker(dir.path(), &env));
        if queued(&stores).await == 0 || Instant::now() > deadline {
            break;
        }
    }
    wait_until_drained(&stores, deadline).await;
    drop(workers);

    assert!(
        kills >= 5,
        "the run should have killed workers mid-way, killed {kills}"
    );
    for (survey, filed) in surveys.iter().enumerate() {
        let slug = &filed.slug;
        let doc = stores.summaries.read(filed).await.expect("read").doc;
        assert_same_summary(&doc.summary, &expected[survey], slug.as_str());
        // Every position must be in the list chunks themselves, not only in `recent` (where
        // a worker killed after settling leaves answers until a later commit or the reconcile
        // pass drops them); with the counted index checked below, every answer is settled.
        let chunks_only = SummaryDoc {
            recent: BTreeMap::new(),
            ..doc.clone()
        };
        let listed = stores
            .answer_list
            .references(filed, &chunks_only, 0..doc.list_len)
            .await
            .expect("listed");
        let distinct: BTreeSet<Reference> = listed.iter().copied().collect();
        assert_eq!(listed.len() as u64, doc.list_len, "{slug}: list has holes");
        assert_eq!(
            distinct, unique[survey],
            "{slug}: list differs from the answers"
        );
        let counted = stores
            .counted
            .counted(filed, unique[survey].iter().copied())
            .await
            .expect("read");
        assert_eq!(counted, unique[survey], "{slug}: counted index");
        let mut missing = BTreeMap::new();
        for reference in unique[survey].iter().step_by(37) {
            if stores
                .answers
                .get(filed, *reference)
                .await
                .expect("read")
                .is_none()
            {
                missing.insert(*reference, ());
            }
        }
        assert!(
            missing.is_empty(),
            "{slug}: answers not stored: {missing:?}"
        );
    }
}
