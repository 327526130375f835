//! Fault injection: `canvass worker` processes on one local data directory die mid-protocol
//! while they drain answers (with repeated messages and oversized answers among them), killed
//! with SIGKILL at random moments, or made to abort at each crash point of the merge protocol
//! on purpose (`CANVASS_TEST_CRASH_AT`). Afterwards everything must be exactly right: every
//! summary (counts, histograms, means, deviations), every answer list (as long as the total,
//! no reference twice), the counted index, every stored answer equal to what was submitted,
//! no incoming blob left, and nothing for the reconcile pass to repair. In the random-kill run,
//! responses are deleted while answers still arrive: the summaries must then be exactly those of
//! the answers not deleted, and every deletion subtracted once. Segments are checked alike: one
//! survey has a segment question from the start; in the random-kill run, more are marked while
//! answers arrive, so their builds run (and are killed) alongside.

use std::collections::{BTreeMap, BTreeSet};
use std::fs::File;
use std::path::Path;
use std::time::{Duration, Instant};

use canvass::domain::segment::SegmentKey;
use canvass::domain::{
    Answer, AnswerValue, Question, QuestionId, QuestionKind, QuestionSummary, Reference, SegmentId,
    Subscription, SurveyRef, SurveySummary,
};
use canvass::storage::local;
use canvass::stores::{ListView, StoreSettings, Stores, SummaryDoc, keys};
use canvass::worker::reconcile;
use futures_util::future::join_all;

use crate::helpers::{CanvassProcess, demo_answer};

/// A small deterministic random source, so a failure can be replayed.
pub(crate) struct Xorshift(pub(crate) u64);

impl Xorshift {
    pub(crate) fn next(&mut self, below: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % below
    }
}

pub(crate) fn answer_for(survey: &SurveyRef, reference: u64, n: u64) -> Answer {
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

/// The questions the answers answer (see `demo_answer`); `drink` a segment question if asked.
pub(crate) fn questions(drink_segment: bool) -> Vec<Question> {
    use crate::helpers::question;
    let drinks = [
        "Espresso",
        "Flat white",
        "Filter coffee",
        "Tea",
        "Something else",
    ];
    vec![
        question("overall", false, QuestionKind::FiveStars),
        Question {
            segment: drink_segment,
            ..question(
                "drink",
                false,
                QuestionKind::SingleChoice {
                    options: drinks.map(String::from).to_vec(),
                    other: false,
                },
            )
        },
        question(
            "wait",
            false,
            QuestionKind::Numeric {
                min: None,
                max: None,
                integer: false,
            },
        ),
        question("comments", false, QuestionKind::LongText),
    ]
}

/// A data directory with two surveys (a standard and a premium tenant's) and a backlog.
pub struct Backlog {
    dir: tempfile::TempDir,
    /// The stores the backlog was made with (replaced by the tests that reopen the directory).
    pub stores: Stores,
    surveys: Vec<SurveyRef>,
    /// Every answer submitted, by reference.
    submitted: BTreeMap<Reference, Answer>,
    /// Responses asked to be deleted.
    deleted: BTreeSet<Reference>,
    /// What worker processes are told to find the same storage (none: the data directory).
    storage_env: Vec<(String, String)>,
}

impl Backlog {
    /// `answers` answers, some queued twice, one in 200 oversized.
    async fn queue(answers: u64, seed: u64) -> Self {
        Self::queue_with(answers, seed, local::Options::with(local::Durability::Full)).await
    }

    /// As `queue`, with the data directory opened with `options`.
    pub async fn queue_with(answers: u64, seed: u64, options: local::Options) -> Self {
        let dir = tempfile::tempdir().expect("a temp dir");
        let (storage, _) = local::open(dir.path(), options).await.expect("opens");
        Self::queue_on(dir, storage, Vec::new(), answers, seed, 1).await
    }

    /// As `queue`, on `storage`, which worker processes reach with `storage_env`, each class of
    /// answers split over `shards` queues (as the workers must be told).
    async fn queue_on(
        dir: tempfile::TempDir,
        storage: canvass::storage::Storage,
        storage_env: Vec<(String, String)>,
        answers: u64,
        seed: u64,
        shards: usize,
    ) -> Self {
        let settings = StoreSettings {
            queue_shards: shards,
            ..StoreSettings::default()
        };
        let stores = Stores::open(storage, &settings).await.expect("stores");
        let mut surveys = Vec::new();
        for (tenant, slug) in [("acme", "team"), ("gold", "launch")] {
            // The first survey's drink question is a segment question from the start.
            let definition = crate::helpers::survey(tenant, slug, slug, questions(slug == "team"));
            stores
                .catalog
                .surveys
                .save(&definition)
                .await
                .expect("saved");
            surveys.push(definition.survey_ref());
        }
        let mut random = Xorshift(seed);
        let mut submitted = BTreeMap::new();
        let (mut messages, mut repeats) = (Vec::new(), Vec::new());
        for n in 0..answers {
            let survey = (n % 2) as usize;
            let answer = answer_for(&surveys[survey], 1_000 + n, n);
            submitted.insert(answer.reference, answer.clone());
            let subscription = [Subscription::Standard, Subscription::Premium][survey];
            messages.push((answer.clone(), subscription));
            if random.next(20) == 0 {
                repeats.push((answer, subscription));
            }
        }
        // The same answers queued again, after all the others: by the time they arrive their
        // first copies have left `recent`, so only the counted index knows them.
        messages.extend(repeats);
        for chunk in messages.chunks(128) {
            let queued = chunk
                .iter()
                .map(|(a, s)| stores.answering.queues.submit(a, *s));
            for outcome in join_all(queued).await {
                outcome.expect("queued");
            }
        }
        Self {
            dir,
            stores,
            surveys,
            submitted,
            deleted: BTreeSet::new(),
            storage_env,
        }
    }

    /// Asks for the deletion of `count` submitted responses not deleted yet, picked at random
    /// (counted already or not: a deletion of one not counted waits for it).
    async fn delete_some(&mut self, random: &mut Xorshift, count: usize) {
        let candidates: Vec<&Answer> = self
            .submitted
            .values()
            .filter(|a| !self.deleted.contains(&a.reference))
            .collect();
        let mut picked: BTreeMap<SurveyRef, Vec<Reference>> = BTreeMap::new();
        for _ in 0..count.min(candidates.len()) {
            let answer = candidates[random.next(candidates.len() as u64) as usize];
            picked
                .entry(answer.survey_ref())
                .or_default()
                .push(answer.reference);
        }
        for (survey, references) in picked {
            self.stores
                .operations
                .deletions
                .request(&survey, &references, "the crash test")
                .await
                .expect("a deletion queued");
            self.deleted.extend(references);
        }
    }

    /// Makes `overall` a segment question of every survey, and `drink` too, as an owner
    /// editing them would, while answers are being counted: their segments are built from
    /// the answers counted so far.
    async fn mark_segments(&self) {
        for survey in &self.surveys {
            let mut current = (*self
                .stores
                .catalog
                .surveys
                .get(&survey.tenant, &survey.slug)
                .await
                .expect("read")
                .expect("the survey"))
            .clone();
            for question in &mut current.questions {
                question.segment = true;
            }
            self.stores
                .catalog
                .surveys
                .save(&current)
                .await
                .expect("saved");
            self.stores
                .operations
                .segments
                .request(survey)
                .await
                .expect("queued");
        }
    }

    /// Makes `tenant` a tenant whose owner asked for a notice on each response; returns the
    /// owner's address (new on each run, as the test SMTP server is shared).
    async fn notices_wanted(&self, tenant: &str) -> String {
        let address = format!(
            "owner-{}@{tenant}.test",
            &uuid::Uuid::new_v4().simple().to_string()[..8]
        );
        let email = canvass::domain::account::Email::parse(&address).expect("an address");
        let tenant = canvass::domain::Tenant {
            slug: canvass::domain::TenantSlug::parse(tenant).expect("a slug"),
            name: tenant.to_owned(),
            subscription: Subscription::Premium,
            created: time::OffsetDateTime::now_utc(),
            owner: Some(email.clone()),
            time_zone: None,
            branding: Default::default(),
        };
        assert!(
            self.stores
                .catalog
                .tenants
                .create(&tenant)
                .await
                .expect("created")
        );
        self.stores
            .membership
            .members
            .change(&tenant, |members| {
                members.set_notify(&email, canvass::domain::member::Notify::Each)
            })
            .await
            .expect("saved")
            .expect("the owner is a member");
        address
    }

    /// The data directory.
    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// A worker process logging to a file of its own in the data directory's parent.
    fn worker(&self, logs: &Path, n: usize, env: &[(&str, &str)]) -> CanvassProcess {
        let log = File::create(logs.join(format!("worker-{n}.log"))).expect("a log file");
        let mut env = env.to_vec();
        env.push(("CANVASS_LOG", "canvass=info"));
        env.extend(
            self.storage_env
                .iter()
                .map(|(k, v)| (k.as_str(), v.as_str())),
        );
        CanvassProcess::worker_logging(self.path(), &env, log)
    }

    /// Messages still in any queue, held or not (deletions, recounts and builds included).
    pub async fn queued(&self) -> u64 {
        let deletions = self.stores.operations.deletions.queue().waiting().await;
        let builds = self.stores.operations.segments.queue().waiting().await;
        self.answers_queued().await + deletions.expect("length") + builds.expect("length")
    }

    /// Answers still queued, held or not.
    async fn answers_queued(&self) -> u64 {
        let mut waiting = 0;
        for (_, queue) in self.stores.answering.queues.all() {
            waiting += self
                .stores
                .answering
                .queues
                .length(queue)
                .await
                .expect("length");
        }
        waiting
    }

    /// Checks every segment of the survey: built, its summary that of exactly the answers not
    /// deleted that hold its option, its list every answer that holds it (deleted ones stay
    /// listed; readers leave them out), each once.
    async fn assert_segments_exact(&self, survey: &SurveyRef, doc: &SummaryDoc) {
        let wanted = canvass::domain::segment::segment_keys(
            &self
                .stores
                .catalog
                .surveys
                .get(&survey.tenant, &survey.slug)
                .await
                .expect("read")
                .expect("the survey"),
        );
        let kept: BTreeSet<&SegmentKey> = doc.segments.keys().collect();
        assert_eq!(
            kept,
            wanted.iter().collect::<BTreeSet<_>>(),
            "{survey}: segment questions"
        );
        for (question, segments) in &doc.segments {
            assert!(segments.built, "{survey}/{question}: not built");
            let mut expected: BTreeMap<String, (SurveySummary, BTreeSet<Reference>)> =
                BTreeMap::new();
            for answer in self
                .submitted
                .values()
                .filter(|a| &a.survey_ref() == survey)
            {
                for option in question.options_in(answer) {
                    let (summary, listed) = expected.entry(option).or_default();
                    listed.insert(answer.reference);
                    if !self.deleted.contains(&answer.reference) {
                        summary.add(answer);
                    }
                }
            }
            let options: Vec<&String> = segments.options.keys().collect();
            assert_eq!(
                options,
                expected.keys().collect::<Vec<_>>(),
                "{survey}/{question}"
            );
            for (option, (summary, listed)) in &expected {
                let what = format!("{survey}/{question}:{option}");
                let segment = SegmentId {
                    key: question.clone(),
                    option: option.clone(),
                };
                let view = doc.segment(survey, &segment).expect("a segment");
                assert_same_summary(&view.tally.summary, summary, &what);
                let list = ListView {
                    recent: &BTreeMap::new(),
                    ..view.list
                };
                let found = self
                    .stores
                    .answering
                    .lists
                    .references(&list, 0..list.len)
                    .await
                    .expect("listed");
                let distinct: BTreeSet<Reference> = found.iter().copied().collect();
                if found.len() != distinct.len() {
                    let entries = self
                        .stores
                        .answering
                        .lists
                        .entries(&list, 0..list.len)
                        .await
                        .expect("listed");
                    let mut seen: BTreeMap<Reference, Vec<u64>> = BTreeMap::new();
                    for (position, reference) in &entries {
                        seen.entry(*reference).or_default().push(*position);
                    }
                    seen.retain(|_, positions| positions.len() > 1);
                    panic!(
                        "{what}: listed twice: {seen:?}; before {} from {} since {} deleted {:?}",
                        view.tally.before,
                        view.question.from,
                        view.tally.since,
                        doc.deleted.len()
                    );
                }
                assert_eq!(&distinct, listed, "{what}: list");
            }
        }
    }

    /// Checks everything the workers made, exactly; then that reconcile finds nothing to do.
    pub async fn assert_exact(&self) {
        let stores = &self.stores;
        for survey in &self.surveys {
            let doc = crate::helpers::summary_doc(stores, survey).await;
            let name = survey.to_string();
            // The summary of exactly the answers not deleted, min and max included (every
            // recount has run).
            let mut expected = SurveySummary::default();
            let mut deleted = BTreeSet::new();
            for answer in self
                .submitted
                .values()
                .filter(|a| &a.survey_ref() == survey)
            {
                match self.deleted.contains(&answer.reference) {
                    true => deleted.insert(answer.reference),
                    false => {
                        expected.add(answer);
                        false
                    }
                };
            }
            assert_same_summary(&doc.summary, &expected, &name);
            // And against a tally made here by plain counting, not by the summary's own code.
            let counted: Vec<&Answer> = self
                .submitted
                .values()
                .filter(|a| &a.survey_ref() == survey && !self.deleted.contains(&a.reference))
                .collect();
            assert_tallied(&doc.summary, &counted, &name);
            self.assert_segments_exact(survey, &doc).await;
            assert_eq!(doc.deleted, deleted, "{name}: deleted");
            assert_eq!(doc.unrecounted, 0, "{name}: left to recount");
            let references: BTreeSet<Reference> = self
                .submitted
                .values()
                .filter(|a| &a.survey_ref() == survey)
                .map(|a| a.reference)
                .collect();
            assert_eq!(
                doc.list_len,
                doc.summary.total + deleted.len() as u64,
                "{name}: list length"
            );
            assert_eq!(doc.list_len, references.len() as u64, "{name}: list length");
            // Every position from the list chunks themselves (a worker killed after settling
            // leaves answers in `recent` until a later commit or reconcile drops them).
            let chunks_only = SummaryDoc {
                recent: BTreeMap::new(),
                ..doc.clone()
            };
            let listed = stores
                .answering
                .lists
                .references(&chunks_only.list_view(survey), 0..doc.list_len)
                .await
                .expect("listed");
            let distinct: BTreeSet<Reference> = listed.iter().copied().collect();
            assert_eq!(
                listed.len() as u64,
                doc.list_len,
                "{name}: holes in the list"
            );
            assert_eq!(
                distinct.len(),
                listed.len(),
                "{name}: a reference listed twice"
            );
            assert_eq!(
                distinct, references,
                "{name}: list differs from the answers"
            );
            let counted = stores
                .answering
                .counted
                .counted(survey, references.iter().copied())
                .await
                .expect("read");
            assert_eq!(counted, references, "{name}: counted index");
            let wanted: Vec<Reference> = references.iter().copied().collect();
            for (chunk, stored) in wanted.chunks(500).zip(
                join_all(
                    wanted
                        .chunks(500)
                        .map(|chunk| stores.answering.answers.get_many(survey, chunk)),
                )
                .await,
            ) {
                for (reference, stored) in chunk.iter().zip(stored.expect("read")) {
                    let kept = self.submitted.get(reference);
                    let wanted = kept.filter(|_| !self.deleted.contains(reference));
                    assert_eq!(stored.as_ref(), wanted, "{name}: stored answer {reference}");
                }
            }
        }
        let incoming = stores
            .operations
            .scan(keys::INCOMING, None)
            .await
            .expect("listed");
        assert!(
            incoming.keys.is_empty(),
            "incoming blobs left: {:?}",
            incoming.keys
        );
        let report = reconcile::run_locked(stores, Duration::ZERO, &|_| {})
            .await
            .expect("reconciled")
            .expect("not locked");
        assert_eq!(
            report.repaired, 0,
            "nothing was lost on the way: {report:?}"
        );
        assert!(report.failed.is_empty(), "{report:?}");
        for survey in &self.surveys {
            let doc = crate::helpers::summary_doc(stores, survey).await;
            assert!(
                doc.recent.is_empty(),
                "{survey}: recent left after reconcile"
            );
            assert_eq!(doc.summary.total + doc.deleted.len() as u64, doc.list_len);
        }
    }
}

fn assert_close(a: f64, b: f64, what: &str) {
    assert!(
        (a - b).abs() <= 1e-9 * (1.0 + a.abs().max(b.abs())),
        "{what}: {a} vs {b}"
    );
}

pub(crate) fn assert_same_summary(actual: &SurveySummary, expected: &SurveySummary, survey: &str) {
    assert_eq!(actual.total, expected.total, "{survey}: total");
    assert_eq!(
        actual.questions.len(),
        expected.questions.len(),
        "{survey}: questions"
    );
    for (id, want) in &expected.questions {
        let got = &actual.questions[id];
        let what = format!("{survey}/{id}");
        let (moments, want_moments) = match (got, want) {
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
                assert_eq!(ca, cb, "{what}: star counts");
                (a, b)
            }
            (
                QuestionSummary::Number {
                    moments: a,
                    histogram: ha,
                    values: va,
                },
                QuestionSummary::Number {
                    moments: b,
                    histogram: hb,
                    values: vb,
                },
            ) => {
                assert_eq!(ha, hb, "{what}: histogram");
                assert_eq!(va, vb, "{what}: counts of each value");
                (a, b)
            }
            _ => {
                assert_eq!(got, want, "{what}");
                continue;
            }
        };
        assert_eq!(
            (moments.count, moments.min, moments.max),
            (want_moments.count, want_moments.min, want_moments.max),
            "{what}"
        );
        assert_close(moments.mean, want_moments.mean, &format!("{what}: mean"));
        assert_close(
            moments.std_dev(),
            want_moments.std_dev(),
            &format!("{what}: standard deviation"),
        );
    }
}

/// Checks a summary against the answers it should count, tallied here by plain counting (a
/// count per star and option, sums and two-pass deviations of numbers), so that a mistake in
/// `SurveySummary::add` or its merge cannot hide behind an expectation made by the same code.
fn assert_tallied(summary: &SurveySummary, answers: &[&Answer], survey: &str) {
    assert_eq!(summary.total, answers.len() as u64, "{survey}: total");
    // Per question: numbers given, options picked, and texts written.
    let mut numbers: BTreeMap<&QuestionId, Vec<f64>> = BTreeMap::new();
    let mut picks: BTreeMap<&QuestionId, BTreeMap<String, u64>> = BTreeMap::new();
    let mut texts: BTreeMap<&QuestionId, u64> = BTreeMap::new();
    for answer in answers {
        for (question, value) in &answer.values {
            match value {
                AnswerValue::Stars(stars) => {
                    numbers.entry(question).or_default().push(f64::from(*stars))
                }
                AnswerValue::Number(n) => numbers.entry(question).or_default().push(*n),
                AnswerValue::Choice(option) => {
                    *picks
                        .entry(question)
                        .or_default()
                        .entry(option.clone())
                        .or_default() += 1;
                }
                AnswerValue::Text(_) => *texts.entry(question).or_default() += 1,
                other => panic!("{survey}: the crash test gives no {other:?}"),
            }
        }
    }
    for (question, given) in &numbers {
        let what = format!("{survey}/{question} (tallied)");
        let moments = match &summary.questions[*question] {
            QuestionSummary::Stars { moments, counts } => {
                for (star, count) in counts.iter().enumerate() {
                    let want = given.iter().filter(|&&g| g == (star + 1) as f64).count() as u64;
                    assert_eq!(*count, want, "{what}: {} stars", star + 1);
                }
                moments
            }
            QuestionSummary::Number { moments, .. } => moments,
            other => panic!("{what}: {other:?}"),
        };
        let n = given.len() as f64;
        let mean = given.iter().sum::<f64>() / n;
        let deviation = (given.iter().map(|g| (g - mean).powi(2)).sum::<f64>() / n).sqrt();
        let lowest = given.iter().copied().fold(f64::INFINITY, f64::min);
        let highest = given.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        assert_eq!(moments.count, given.len() as u64, "{what}: count");
        assert_eq!(
            (moments.min, moments.max),
            (lowest, highest),
            "{what}: min and max"
        );
        assert_close(moments.mean, mean, &format!("{what}: mean"));
        assert_close(
            moments.std_dev(),
            deviation,
            &format!("{what}: standard deviation"),
        );
    }
    for (question, options) in &picks {
        let QuestionSummary::Choice {
            answered,
            options: got,
            ..
        } = &summary.questions[*question]
        else {
            panic!("{survey}/{question}: not a choice summary");
        };
        assert_eq!(
            *answered,
            options.values().sum::<u64>(),
            "{survey}/{question}: answered"
        );
        let got: BTreeMap<String, u64> = got
            .iter()
            .filter(|(_, n)| **n > 0)
            .map(|(o, n)| (o.clone(), *n))
            .collect();
        assert_eq!(&got, options, "{survey}/{question}: picks (tallied)");
    }
    for (question, written) in &texts {
        let QuestionSummary::Text { answered, .. } = &summary.questions[*question] else {
            panic!("{survey}/{question}: not a text summary");
        };
        assert_eq!(answered, written, "{survey}/{question}: answered (tallied)");
    }
}

/// Redeliveries the workers logged, over every log in `logs`.
fn redeliveries(logs: &Path) -> usize {
    logged(logs, "received messages that were delivered before")
}

/// How often `line` was logged, over every log in `logs`.
fn logged(logs: &Path, line: &str) -> usize {
    std::fs::read_dir(logs)
        .expect("the log folder")
        .map(|entry| std::fs::read_to_string(entry.expect("an entry").path()).expect("a log"))
        .map(|log| log.matches(line).count())
        .sum()
}

#[tokio::test]
async fn workers_killed_at_random_moments_never_lose_or_double_count_an_answer() {
    const WORKERS: usize = 3;
    let mut backlog = Backlog::queue(4000, 0x9e37_79b9_7f4a_7c15).await;
    // The first tenant has a webhook endpoint: its deliveries are queued under the kills too.
    let (hook, delivered) = crate::webhooks::receiver(Vec::new()).await;
    let acme = canvass::domain::TenantSlug::parse("acme").expect("a slug");
    backlog
        .stores
        .operations
        .webhooks
        .add(&acme, &hook)
        .await
        .expect("an endpoint")
        .expect("room for it");
    // The second tenant's owner asked for a notice on each response: notices are queued
    // and sent under the kills too, through the test SMTP server.
    let mailbox = crate::mailbox::Mailbox::from_env();
    let noticed = backlog.notices_wanted("gold").await;
    let smtp = mailbox.smtp_url();
    let logs = tempfile::tempdir().expect("a log folder");
    let env = [
        ("CANVASS_WORKER_VISIBILITY_SECS", "2"),
        ("CANVASS_WORKER_MAX_DEQUEUE", "1000"),
        ("CANVASS_WORKER_BATCHES", "1"),
        // A kill every tenth of a second: without affinity, so every worker races on every
        // summary (kills while the shards are dealt are the next test's).
        ("CANVASS_SHARD_LEASE_SECS", "0"),
        ("CANVASS_WEBHOOK_ALLOWED_HOSTS", "127.0.0.1"),
        ("CANVASS_SMTP_URL", smtp.as_str()),
        ("CANVASS_PUBLIC_URL", "http://127.0.0.1:9"),
    ];
    let mut crew = Crew::start(&backlog, logs.path(), WORKERS, &env);
    let mut random = Xorshift(0x2545_f491_4f6c_dd1d);
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        crew.replace_one(&backlog, logs.path(), &env, &mut random, (20, 180))
            .await;
        let kills = crew.kills;
        // Owners delete responses while answers are still arriving, and mark segment
        // questions when some are counted: the builds run under the kills too.
        if kills.is_multiple_of(3) && backlog.deleted.len() < 200 {
            backlog.delete_some(&mut random, 10).await;
        }
        if kills == 8 {
            backlog.mark_segments().await;
        }
        // Kills stop once every answer is counted: recounts (a full pass over a survey's
        // answers, not resumed) and builds left then finish under running workers.
        if backlog.answers_queued().await == 0 || Instant::now() > deadline {
            break;
        }
    }
    wait_until_drained(&backlog, deadline).await;
    // Deliveries and notices go on beside counting: wait for the last ones before stopping
    // the workers.
    for queue in [
        backlog.stores.operations.webhooks.queue(),
        backlog.stores.panel.mail.queue(),
    ] {
        while queue.waiting().await.expect("a length") > 0 {
            assert!(
                Instant::now() < deadline + Duration::from_secs(60),
                "deliveries or notices still queued"
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
    let kills = crew.kills;
    drop(crew);

    // At least once: every answer of the tenant with the endpoint was delivered, each time
    // under one webhook-id; the other tenant's answers were not.
    let mut ids: BTreeMap<u64, BTreeSet<String>> = BTreeMap::new();
    for (webhook_id, _, _, body) in delivered.lock().expect("the log").iter() {
        let event: serde_json::Value = serde_json::from_str(body).expect("JSON");
        let reference = event["data"]["reference"].as_u64().expect("a reference");
        assert_eq!(event["data"]["tenant"], "acme", "{event}");
        ids.entry(reference).or_default().insert(webhook_id.clone());
    }
    let acme_answers: BTreeSet<u64> = backlog
        .submitted
        .values()
        .filter(|a| a.tenant == acme)
        .map(|a| a.reference.0)
        .collect();
    assert_eq!(
        ids.keys().copied().collect::<BTreeSet<u64>>(),
        acme_answers,
        "every answer of the endpoint's tenant delivered, and only those"
    );
    for (reference, seen) in &ids {
        assert_eq!(
            seen.len(),
            1,
            "answer {reference}: one webhook-id on every delivery"
        );
    }

    // At least once: the notices the owner received announce every answer to the tenant's
    // survey, none to another survey. A notice queued twice (its batch redelivered after a
    // kill) may announce some answers twice; a kill never loses one.
    let gold_answers = backlog
        .submitted
        .values()
        .filter(|a| a.tenant.as_str() == "gold")
        .count() as u64;
    let notices = mailbox.received(&noticed);
    let announced: u64 = notices
        .iter()
        .map(|notice| match notice.subject.as_str() {
            "A new response to launch" => 1,
            subject => subject
                .strip_suffix(" new responses to launch")
                .and_then(|n| n.parse().ok())
                .unwrap_or_else(|| panic!("an unexpected notice: {subject}")),
        })
        .sum();
    assert!(
        announced >= gold_answers,
        "{announced} answers announced in {} notices, of {gold_answers}",
        notices.len()
    );
    assert!(
        announced <= 2 * gold_answers,
        "{announced} answers announced of {gold_answers}: far more repeats than kills explain"
    );

    assert!(
        kills > 8,
        "the run should have killed workers mid-way, after segments were marked too, killed \
         {kills}"
    );
    assert!(
        redeliveries(logs.path()) > 0,
        "no message was ever delivered twice: the kills never interrupted a step"
    );
    assert!(
        backlog.deleted.len() >= 30,
        "deletions ran alongside: {}",
        backlog.deleted.len()
    );
    assert_eq!(
        logged(
            logs.path(),
            "a recount disagrees with the subtracted counts"
        ),
        0,
        "every deletion was subtracted exactly once"
    );
    backlog.assert_exact().await;
}

#[tokio::test]
async fn workers_killed_while_the_shards_are_dealt_never_lose_or_double_count_an_answer() {
    const WORKERS: usize = 3;
    let dir = tempfile::tempdir().expect("a temp dir");
    let options = local::Options::with(local::Durability::Full);
    let (storage, _) = local::open(dir.path(), options).await.expect("opens");
    // A backlog that takes several rounds of kills to drain even on a fast machine (6,000
    // answers drained within three on this one).
    let backlog = Backlog::queue_on(dir, storage, Vec::new(), 20_000, 0xaff1_0417, 4).await;
    let logs = tempfile::tempdir().expect("a log folder");
    let env = [
        ("CANVASS_WORKER_VISIBILITY_SECS", "2"),
        ("CANVASS_WORKER_MAX_DEQUEUE", "1000"),
        ("CANVASS_WORKER_BATCHES", "1"),
        ("CANVASS_QUEUE_SHARDS", "4"),
        ("CANVASS_SHARD_LEASE_SECS", "1"),
    ];
    let mut crew = Crew::start(&backlog, logs.path(), WORKERS, &env);
    let mut random = Xorshift(0x51ab_0b1e);
    let deadline = Instant::now() + Duration::from_secs(120);
    while backlog.answers_queued().await > 0 && Instant::now() < deadline {
        // A worker joins, so the shards are dealt again; one is killed while they are (before
        // the joiner's first heartbeats have settled who holds what), or just after.
        crew.workers
            .push(backlog.worker(logs.path(), crew.started, &env));
        crew.started += 1;
        tokio::time::sleep(Duration::from_millis(50 + random.next(400))).await;
        let victim = random.next(crew.workers.len() as u64) as usize;
        crew.workers.remove(victim).kill();
        crew.kills += 1;
        tokio::time::sleep(Duration::from_millis(random.next(250))).await;
    }
    wait_until_drained(&backlog, deadline + Duration::from_secs(30)).await;
    let kills = crew.kills;
    drop(crew);
    assert!(
        kills >= 5,
        "only {kills} kills before the backlog was drained"
    );
    assert!(
        logged(logs.path(), "this worker's answer shards changed") > kills,
        "the shards were dealt again and again"
    );
    backlog.assert_exact().await;
}

/// Worker processes on a backlog, killed and replaced one at a time, at random.
struct Crew {
    workers: Vec<CanvassProcess>,
    started: usize,
    kills: usize,
}

impl Crew {
    fn start(backlog: &Backlog, logs: &Path, size: usize, env: &[(&str, &str)]) -> Self {
        Self {
            workers: (0..size).map(|n| backlog.worker(logs, n, env)).collect(),
            started: size,
            kills: 0,
        }
    }

    /// Waits `pause` (a random part of it), then kills one worker (SIGKILL) and starts
    /// another in its place.
    async fn replace_one(
        &mut self,
        backlog: &Backlog,
        logs: &Path,
        env: &[(&str, &str)],
        random: &mut Xorshift,
        pause: (u64, u64),
    ) {
        tokio::time::sleep(Duration::from_millis(pause.0 + random.next(pause.1))).await;
        let victim = random.next(self.workers.len() as u64) as usize;
        self.workers.remove(victim).kill();
        self.kills += 1;
        self.workers.push(backlog.worker(logs, self.started, env));
        self.started += 1;
    }
}

async fn wait_until_drained(backlog: &Backlog, deadline: Instant) {
    loop {
        let waiting = backlog.queued().await;
        if waiting == 0 {
            return;
        }
        assert!(Instant::now() < deadline, "{waiting} messages still queued");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Until `waiting` says nothing is left (90 s at most), replaces each of `workers` that died
/// (none may stop on its own) with `start(n)`, numbering new ones from `next`; how many died.
pub(crate) async fn replace_the_dying(
    point: &str,
    workers: &mut [CanvassProcess],
    mut next: usize,
    start: impl Fn(usize) -> CanvassProcess,
    waiting: impl AsyncFn() -> u64,
) -> usize {
    let deadline = Instant::now() + Duration::from_secs(90);
    let mut crashes = 0;
    while waiting().await > 0 {
        assert!(
            Instant::now() < deadline,
            "{point}: the work was not done in time"
        );
        for worker in workers.iter_mut() {
            if let Some(status) = worker.exited() {
                assert!(!status.success(), "{point}: a worker stopped on its own");
                crashes += 1;
                *worker = start(next);
                next += 1;
            }
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    crashes
}

/// Drains a backlog with two workers that abort at `point` (the second time each reaches it),
/// starting a new worker for each that died, until the queues are empty.
async fn drain_crashing_at(point: &str) {
    let backlog = Backlog::queue(600, 0x1234_5678 + point.len() as u64).await;
    let logs = tempfile::tempdir().expect("a log folder");
    let crash_at = format!("{point}@2");
    let env = [
        ("CANVASS_WORKER_VISIBILITY_SECS", "1"),
        ("CANVASS_WORKER_MAX_DEQUEUE", "1000"),
        ("CANVASS_WORKER_BATCHES", "1"),
        (canvass::crash::VARIABLE, crash_at.as_str()),
    ];
    let mut workers: Vec<CanvassProcess> = (0..2)
        .map(|n| backlog.worker(logs.path(), n, &env))
        .collect();
    let start = |n| backlog.worker(logs.path(), n, &env);
    let crashes = replace_the_dying(point, &mut workers, 2, start, async || {
        backlog.queued().await
    })
    .await;
    drop(workers);

    assert!(crashes >= 3, "{point}: only {crashes} crashes at the point");
    assert!(redeliveries(logs.path()) > 0, "{point}: no redelivery seen");
    backlog.assert_exact().await;
}

#[tokio::test]
async fn a_worker_dying_right_after_its_summary_commit_loses_and_doubles_nothing() {
    drain_crashing_at("after-commit").await;
}

#[tokio::test]
async fn a_worker_dying_after_its_flush_before_any_list_write_loses_and_doubles_nothing() {
    drain_crashing_at("after-flush").await;
}

#[tokio::test]
async fn a_worker_dying_after_settling_before_its_deletes_loses_and_doubles_nothing() {
    drain_crashing_at("after-settle").await;
}

#[tokio::test]
async fn a_worker_dying_between_removing_incoming_blobs_and_deleting_messages_loses_nothing() {
    drain_crashing_at("before-delete").await;
}

/// An Azurite of a test's own (through `scripts/azurite`), so that no other test's messages
/// are in its queues; stopped when dropped.
pub(crate) struct OwnAzurite {
    pub(crate) connection: String,
    pid: std::path::PathBuf,
    _dir: tempfile::TempDir,
}

impl OwnAzurite {
    pub(crate) fn start() -> Self {
        let dir = tempfile::tempdir().expect("a temp dir");
        let (log, pid) = (dir.path().join("log"), dir.path().join("pid"));
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let started = std::process::Command::new(root.join("scripts/azurite"))
            .arg(&log)
            .arg(&pid)
            .current_dir(root)
            .output()
            .expect("scripts/azurite runs (scripts/test installs Azurite)");
        assert!(
            started.status.success(),
            "Azurite did not start: {}",
            String::from_utf8_lossy(&started.stderr)
        );
        let connection = String::from_utf8_lossy(&started.stdout).trim().to_owned();
        Self {
            connection,
            pid,
            _dir: dir,
        }
    }
}

impl Drop for OwnAzurite {
    fn drop(&mut self) {
        if let Ok(pid) = std::fs::read_to_string(&self.pid) {
            let _ = std::process::Command::new("kill").arg(pid.trim()).status();
        }
    }
}

#[tokio::test]
async fn workers_killed_at_random_moments_on_azurite_never_lose_or_double_count_an_answer() {
    const WORKERS: usize = 3;
    let azurite = OwnAzurite::start();
    let storage = canvass::storage::azure::storage(&azurite.connection)
        .await
        .expect("Azurite answers");
    let storage_env = vec![
        ("CANVASS_STORAGE".to_owned(), "azure".to_owned()),
        (
            "CANVASS_AZURE_CONNECTION_STRING".to_owned(),
            azurite.connection.clone(),
        ),
    ];
    let dir = tempfile::tempdir().expect("a temp dir");
    let mut backlog = Backlog::queue_on(dir, storage, storage_env, 600, 0x5eed_a2e0, 1).await;
    let logs = tempfile::tempdir().expect("a log folder");
    let env = [
        ("CANVASS_WORKER_VISIBILITY_SECS", "2"),
        ("CANVASS_WORKER_MAX_DEQUEUE", "1000"),
        ("CANVASS_WORKER_BATCHES", "1"),
        // Kills every few tenths of a second, without affinity (Azure's last-modified times
        // are whole seconds: leases that short would not hold there).
        ("CANVASS_SHARD_LEASE_SECS", "0"),
    ];
    let mut crew = Crew::start(&backlog, logs.path(), WORKERS, &env);
    let mut random = Xorshift(0x0bad_cafe_f00d);
    let deadline = Instant::now() + Duration::from_secs(180);
    loop {
        crew.replace_one(&backlog, logs.path(), &env, &mut random, (100, 300))
            .await;
        if crew.kills.is_multiple_of(4) && backlog.deleted.len() < 30 {
            backlog.delete_some(&mut random, 5).await;
        }
        if backlog.answers_queued().await == 0 || Instant::now() > deadline {
            break;
        }
    }
    wait_until_drained(&backlog, deadline).await;
    let kills = crew.kills;
    drop(crew);
    assert!(kills >= 3, "workers were killed mid-way: {kills}");
    assert!(
        redeliveries(logs.path()) > 0,
        "no message was ever delivered twice: the kills never interrupted a step"
    );
    backlog.assert_exact().await;
}
