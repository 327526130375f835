//! Moving answers home under fire: `canvass worker` processes of a hosting region (moving
//! answers home) and of the home region (counting them) are killed with SIGKILL at random
//! moments, or abort at each point of the move on purpose. Afterwards every answer thanked in
//! the hosting region is counted exactly once at home (summary, list, stored copy), and
//! nothing of it is left in the hosting region.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use canvass::config::{BackendSettings, StorageSettings, StoreArgs};
use canvass::domain::{Answer, Reference, SurveyRef, SurveySummary};
use canvass::stores::{ListView, Stores};
use futures_util::future::join_all;

use crate::helpers::CanvassProcess;
use crate::worker_crash::{Xorshift, answer_for, assert_same_summary, questions};

/// A two-region installation with answers given in `eu` to a survey of a tenant at home in
/// `us`, waiting to move.
struct Moving {
    dir: tempfile::TempDir,
    file: PathBuf,
    us: Stores,
    eu: Stores,
    survey: SurveyRef,
    submitted: BTreeMap<Reference, Answer>,
}

async fn stores_of(file: &Path, region: &str) -> Stores {
    let mut storage = StorageSettings::local("unused");
    storage.regions_file = Some(file.to_owned());
    storage.region = Some(region.to_owned());
    canvass::startup::open_stores(&BackendSettings {
        storage,
        stores: StoreArgs::default(),
    })
    .await
    .expect("the region's stores open")
}

impl Moving {
    /// `answers` answers given in eu (one in 20 posted twice, one in 200 oversized).
    async fn given(answers: u64, seed: u64) -> Self {
        let dir = tempfile::tempdir().expect("a temp dir");
        let file = crate::regions::regions_file(dir.path());
        let us = stores_of(&file, "us").await;
        let eu = stores_of(&file, "eu").await;
        canvass::admin::create_tenant(&us, "acme", "Acme", canvass::domain::Subscription::Standard)
            .await
            .expect("a tenant at home");
        let mut survey = crate::helpers::survey("acme", "team", "Team", questions(false));
        survey.regions = vec![canvass::domain::region::RegionName::parse("eu").expect("a name")];
        us.catalog
            .surveys
            .save(&survey)
            .await
            .expect("saved at home");
        canvass::service::hosting::push(&canvass::service::App::new(us.clone()), &survey, None)
            .await
            .expect("pushed to eu");
        let survey_ref = survey.survey_ref();
        let mut random = Xorshift(seed);
        let (mut submitted, mut posts) = (BTreeMap::new(), Vec::new());
        for n in 0..answers {
            let reference = eu.answering.references.next().await.expect("a reference");
            let answer = answer_for(&survey_ref, reference.0, n);
            submitted.insert(answer.reference, answer.clone());
            if random.next(20) == 0 {
                posts.push(answer.clone());
            }
            posts.push(answer);
        }
        for chunk in posts.chunks(128) {
            let queued = chunk
                .iter()
                .map(|a| eu.answering.queues.submit_for_transfer(a));
            for outcome in join_all(queued).await {
                outcome.expect("thanked");
            }
        }
        Self {
            dir,
            file,
            us,
            eu,
            survey: survey_ref,
            submitted,
        }
    }

    /// A worker process of `region`, logging to `logs`.
    fn worker(&self, region: &str, logs: &Path, n: usize, env: &[(&str, &str)]) -> CanvassProcess {
        let log = std::fs::File::create(logs.join(format!("{region}-{n}.log"))).expect("a log");
        let file = self.file.display().to_string();
        let mut all = vec![
            ("CANVASS_REGIONS_FILE", file.as_str()),
            ("CANVASS_REGION", region),
            ("CANVASS_LOG", "warn"),
        ];
        all.extend_from_slice(env);
        CanvassProcess::worker_logging(self.dir.path(), &all, log)
    }

    /// Messages still waiting in either region: to move, or to count.
    async fn waiting(&self) -> u64 {
        let transfer = canvass::stores::transfer_queue(&self.survey.tenant);
        let mut waiting = self
            .eu
            .operations
            .queue_length(&transfer)
            .await
            .expect("a length");
        for (role, queue) in self.us.queues() {
            if role == "standard" || role == "premium" {
                waiting += self
                    .us
                    .operations
                    .queue_length(&queue)
                    .await
                    .expect("a length");
            }
        }
        waiting
    }

    /// Every answer counted once at home, listed once, stored as given; nothing left in eu.
    async fn assert_exact(&self) {
        let doc = crate::helpers::summary_doc(&self.us, &self.survey).await;
        let mut expected = SurveySummary::default();
        for answer in self.submitted.values() {
            expected.add(answer);
        }
        assert_same_summary(&doc.summary, &expected, "team at home");
        assert_eq!(doc.list_len, self.submitted.len() as u64, "list length");
        let chunks_only = canvass::stores::SummaryDoc {
            recent: BTreeMap::new(),
            ..doc.clone()
        };
        let view: ListView = chunks_only.list_view(&self.survey);
        let listed = self
            .us
            .answering
            .lists
            .references(&view, 0..doc.list_len)
            .await
            .expect("listed");
        let distinct: BTreeSet<Reference> = listed.iter().copied().collect();
        let given: BTreeSet<Reference> = self.submitted.keys().copied().collect();
        assert_eq!(distinct, given, "every answer listed once at home");
        for (reference, answer) in &self.submitted {
            let stored = self
                .us
                .answering
                .answers
                .get(&self.survey, *reference)
                .await
                .expect("read")
                .expect("stored at home");
            assert_eq!(&stored, answer, "answer {reference} as given");
        }
        for prefix in ["answers/", canvass::stores::keys::INCOMING] {
            let left = self.eu.operations.scan(prefix, None).await.expect("listed");
            assert!(left.keys.is_empty(), "eu still holds {:?}", left.keys);
        }
        assert_eq!(self.waiting().await, 0, "messages still waiting");
        let report = canvass::worker::reconcile::run_locked(&self.us, Duration::ZERO, &|_| {})
            .await
            .expect("reconciled")
            .expect("not locked");
        assert_eq!(
            report.repaired, 0,
            "nothing was lost on the way: {report:?}"
        );
    }
}

#[tokio::test]
async fn workers_of_both_regions_killed_at_random_never_lose_or_double_an_answer() {
    let moving = Moving::given(3_000, 0x5eed_0033).await;
    let logs = tempfile::tempdir().expect("a log folder");
    let env = [
        ("CANVASS_WORKER_VISIBILITY_SECS", "1"),
        ("CANVASS_WORKER_MAX_DEQUEUE", "1000"),
        ("CANVASS_WORKER_BATCHES", "1"),
        // A kill every few hundredths of a second: without affinity, whose leases would keep a
        // dead worker's shards that long (kills while shards are dealt: worker_crash.rs).
        ("CANVASS_SHARD_LEASE_SECS", "0"),
    ];
    let mut random = Xorshift(0xdead_beef);
    let mut started = 0;
    let mut workers: Vec<(&str, CanvassProcess)> = ["eu", "eu", "us", "us"]
        .into_iter()
        .map(|region| {
            started += 1;
            (region, moving.worker(region, logs.path(), started, &env))
        })
        .collect();
    let deadline = Instant::now() + Duration::from_secs(120);
    let mut kills = 0;
    while moving.waiting().await > 0 {
        assert!(
            Instant::now() < deadline,
            "the answers did not all arrive home"
        );
        tokio::time::sleep(Duration::from_millis(20 + random.next(100))).await;
        let victim = random.next(workers.len() as u64) as usize;
        let (region, _) = workers[victim];
        started += 1;
        let fresh = moving.worker(region, logs.path(), started, &env);
        let (_, killed) = std::mem::replace(&mut workers[victim], (region, fresh));
        killed.kill();
        kills += 1;
    }
    drop(workers);
    assert!(kills >= 5, "only {kills} kills");
    moving.assert_exact().await;
}

/// Moves a backlog home with eu workers that abort at `point` (the second time each reaches
/// it), restarted as they die, while a us worker counts.
async fn move_crashing_at(point: &str) {
    let moving = Moving::given(600, 0x1234 + point.len() as u64).await;
    let logs = tempfile::tempdir().expect("a log folder");
    let crash_at = format!("{point}@2");
    let env = [
        ("CANVASS_WORKER_VISIBILITY_SECS", "1"),
        ("CANVASS_WORKER_MAX_DEQUEUE", "1000"),
        (canvass::crash::VARIABLE, crash_at.as_str()),
    ];
    let counting = moving.worker("us", logs.path(), 0, &env[..2]);
    let mut movers: Vec<CanvassProcess> = (1..=2)
        .map(|n| moving.worker("eu", logs.path(), n, &env))
        .collect();
    let start = |n| moving.worker("eu", logs.path(), n, &env);
    let crashes =
        crate::worker_crash::replace_the_dying(point, &mut movers, 3, start, async || {
            moving.waiting().await
        })
        .await;
    drop(movers);
    drop(counting);
    assert!(crashes >= 3, "{point}: only {crashes} crashes at the point");
    moving.assert_exact().await;
}

#[tokio::test]
async fn a_mover_dying_after_storing_answers_at_home_before_queueing_them_loses_nothing() {
    move_crashing_at("after-move-store").await;
}

#[tokio::test]
async fn a_mover_dying_after_queueing_answers_at_home_before_deleting_them_doubles_nothing() {
    move_crashing_at("after-move-queue").await;
}

#[tokio::test]
async fn a_hosting_region_reports_what_waits_to_move_home_in_its_metrics() {
    let moving = Moving::given(40, 7).await;
    let port = crate::operations::free_port();
    let listen = format!("127.0.0.1:{port}");
    let file = moving.file.display().to_string();
    let _server = CanvassProcess::serve(
        moving.dir.path(),
        &[
            ("CANVASS_REGIONS_FILE", file.as_str()),
            ("CANVASS_REGION", "eu"),
            ("CANVASS_NO_WORKER", "true"),
            ("CANVASS_DEMO", "false"),
            ("CANVASS_METRICS_LISTEN", listen.as_str()),
        ],
    );
    let text = crate::operations::scrape(port).await;
    // 40 answers, two in 40 posted twice (one in 20 by the seed's draw): at least 40 messages.
    let waiting: f64 = text
        .lines()
        .find(|line| line.starts_with("canvass_transfer_waiting{"))
        .and_then(|line| line.rsplit_once(' '))
        .and_then(|(_, value)| value.parse().ok())
        .unwrap_or_else(|| panic!("no transfer gauge in:\n{text}"));
    let posts = moving.waiting().await;
    assert!(
        waiting >= 40.0 && waiting == posts as f64,
        "{waiting} waiting, {posts} posted"
    );
    assert!(
        text.contains(r#"canvass_transfer_waiting{region="eu"}"#),
        "labelled with its region:\n{text}"
    );
    assert!(
        text.lines()
            .filter(|line| line.starts_with("canvass_queue_length{"))
            .all(|line| line.contains(r#"region="eu""#)),
        "every series carries the region"
    );
}

#[tokio::test]
async fn while_workers_are_paused_no_answer_moves_home_and_once_released_they_all_do() {
    let moving = Moving::given(40, 11).await;
    let transfer = canvass::stores::transfer_queue(&moving.survey.tenant);
    let queue_length = async || {
        moving
            .eu
            .operations
            .queue_length(&transfer)
            .await
            .expect("a length")
    };
    assert!(queue_length().await >= 40);
    // The hosting region's own pause holds its worker.
    crate::pause::held_until_released(
        &moving.eu,
        canvass::worker::WorkerSettings::default(),
        "moving answers home",
        async || queue_length().await == 0,
    )
    .await;
    crate::helpers::settle(&moving.us).await;
    moving.assert_exact().await;
}
