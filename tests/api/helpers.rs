//! Starting the application for a test and talking to it over HTTP.

use canvass::config::{ServeSettings, StorageSettings};
use canvass::domain::definition::Definition;
use canvass::domain::{
    Answer, AnswerValue, Question, QuestionId, QuestionKind, Reference, Subscription, Survey,
    SurveyRef, SurveySlug, Tenant, TenantSlug,
};
use canvass::startup::Application;
use canvass::storage::{self, Storage};
use canvass::stores::{StoreSettings, Stores};
use canvass::worker::{Worker, WorkerSettings};
use time::OffsetDateTime;

/// A running application on a random port, with its own storage.
pub struct TestApp {
    /// `http://127.0.0.1:PORT`
    pub address: String,
    /// The storage behind it, for inspecting what requests did.
    pub storage: Storage,
    /// A client that does not follow redirects, so tests see them.
    pub client: reqwest::Client,
    /// Stops the server.
    server: actix_web::dev::ServerHandle,
}

/// Logs go to the test output only when `TEST_LOG` is set.
fn init_logs() {
    if std::env::var_os("TEST_LOG").is_some() {
        canvass::telemetry::init(&canvass::telemetry::LogSettings {
            filter: "debug".into(),
            log_format: canvass::telemetry::LogFormat::Text,
        });
    }
}

/// The settings every test app starts with: defaults on a random port.
pub fn test_settings() -> ServeSettings {
    let mut settings = ServeSettings::with_storage(StorageSettings::local("unused"));
    settings.listen = "127.0.0.1:0".into();
    // Tests step workers themselves, so they can look at queues in between.
    settings.no_worker = true;
    // Tests count answers exactly: the demo survey starts without sample responses.
    settings.demo_responses = 0;
    settings
}

/// Starts the application on the in-memory adapter.
pub async fn spawn_app() -> TestApp {
    spawn_app_with(storage::memory::storage()).await
}

/// Starts the application on the given storage.
pub async fn spawn_app_with(storage: Storage) -> TestApp {
    spawn_app_configured(storage, test_settings()).await
}

/// Starts the application on the given storage and settings.
pub async fn spawn_app_configured(storage: Storage, settings: ServeSettings) -> TestApp {
    init_logs();
    let application = Application::build_with_storage(&settings, storage.clone())
        .await
        .expect("the application builds");
    let address = format!("http://127.0.0.1:{}", application.port());
    let server = application.server_handle();
    tokio::spawn(application.run_until_stopped());
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        // No idle connections: one reused just as the server's keep-alive (5 s) closes it
        // fails the request (seen after a 5 s wait in a test).
        .pool_max_idle_per_host(0)
        .build()
        .expect("a client builds");
    TestApp {
        address,
        storage,
        client,
        server,
    }
}

/// The value of the form's hidden submission token.
/// The HTML of the page at `base` + `path` (a survey's form, say), from a served process or a
/// test app alike.
pub async fn page_at(client: &reqwest::Client, base: &str, path: &str) -> String {
    client
        .get(format!("{base}{path}"))
        .send()
        .await
        .expect("answered")
        .text()
        .await
        .expect("a page")
}

pub fn token_in(html: &str) -> String {
    let start = html
        .find(r#"name="token" value=""#)
        .expect("the form has a token")
        + r#"name="token" value=""#.len();
    let end = html[start..].find('"').expect("the token ends") + start;
    html[start..end].to_owned()
}

/// The reference a thank-you link (`.../thanks/{reference}?sig=..`) names.
pub fn reference_in(location: &str) -> u64 {
    location
        .split('?')
        .next()
        .and_then(|path| path.rsplit('/').next())
        .and_then(|reference| reference.parse().ok())
        .unwrap_or_else(|| panic!("{location} is not a thank-you link"))
}

/// A question for test surveys.
pub fn question(id: &str, required: bool, kind: QuestionKind) -> Question {
    Question {
        randomize_options: false,
        fixed_last: 0,
        validate: None,
        scoring: Default::default(),
        id: QuestionId::parse(id).expect("an id"),
        text: format!("Question {id}?"),
        help: None,
        required,
        kind,
        show_if: None,
        segment: false,
    }
}

/// A published survey of the tenant with the given questions.
pub fn survey(tenant: &str, slug: &str, title: &str, questions: Vec<Question>) -> Survey {
    let definition = Definition {
        title: title.into(),
        questions,
        ..Definition::default()
    };
    Survey::draft(
        TenantSlug::parse(tenant).expect("a slug"),
        SurveySlug::parse(slug).expect("a slug"),
        canvass::domain::definition::checked::for_one_region(definition).expect("checked"),
        OffsetDateTime::now_utc(),
    )
    .published()
}

/// An export job as it stands now.
pub async fn export_job(
    stores: &Stores,
    job: &canvass::stores::exports::ExportJob,
) -> canvass::stores::exports::ExportJob {
    stores
        .operations
        .exports
        .get(&job.tenant, &job.id)
        .await
        .expect("the job reads")
        .expect("the job exists")
}

/// Asserts that an export job ran and failed, saying `reason`.
pub async fn assert_export_failed(
    stores: &Stores,
    job: &canvass::stores::exports::ExportJob,
    reason: &str,
) {
    let job = export_job(stores, job).await;
    assert_eq!(
        job.status,
        canvass::stores::exports::ExportStatus::Failed,
        "the export ran: {job:?}"
    );
    assert!(
        job.error.as_deref().is_some_and(|e| e.contains(reason)),
        "{job:?}"
    );
}

/// A worker over `stores` that hides messages for `visibility`.
pub fn worker(stores: &Stores, visibility: std::time::Duration) -> Worker {
    let settings = WorkerSettings {
        visibility,
        ..WorkerSettings::default()
    };
    Worker::new(stores.clone(), settings)
}

/// Counts what is queued with a worker that could email (its notices are queued, never
/// sent: the SMTP server it names is never reached).
pub async fn drain_mailing(stores: &Stores) {
    let mailer = canvass::worker::mailer::MailerSettings {
        sender: Some(
            canvass::mail::Sender::new("smtp://127.0.0.1:9", "Canvass <canvass@acme.test>")
                .expect("a sender"),
        ),
        site: Some("https://surveys.acme.test".into()),
        ..Default::default()
    };
    let settings = canvass::worker::WorkerSettings {
        mailer,
        ..canvass::worker::WorkerSettings::default()
    };
    let mut worker = canvass::worker::Worker::new(stores.clone(), settings);
    while let canvass::worker::StepOutcome::BatchDone { .. } = worker.step().await.expect("a step")
    {
    }
}

/// Counts every queued answer with one worker (answers only: deletions and exports wait).
pub async fn drain(stores: &Stores) {
    let mut worker = worker(stores, std::time::Duration::from_secs(60));
    while let canvass::worker::StepOutcome::BatchDone { .. } = worker.step().await.expect("a step")
    {
    }
}

/// Steps a worker until every queue, deletions, recounts and segment builds included, is
/// empty.
pub async fn settle(stores: &Stores) {
    use canvass::worker::StepOutcome;
    let mut worker = worker(stores, std::time::Duration::from_secs(60));
    let (_running, stop) = tokio::sync::watch::channel(false);
    loop {
        // Builds first, as a worker's build task would run them meanwhile.
        while canvass::worker::segments::step(stores, std::time::Duration::from_secs(60), &stop)
            .await
            .expect("a build step")
        {}
        match worker.step().await.expect("a step") {
            StepOutcome::Paused => panic!("paused"),
            StepOutcome::QueuesEmpty => {}
            _ => continue,
        }
        if stores
            .operations
            .segments
            .queue()
            .waiting()
            .await
            .expect("a count")
            == 0
        {
            return;
        }
    }
}

/// The ids of a survey's questions as the API shows it, in order.
pub fn ids(survey: &serde_json::Value) -> Vec<String> {
    survey["questions"]
        .as_array()
        .expect("questions")
        .iter()
        .map(|q| q["id"].as_str().expect("an id").to_owned())
        .collect()
}

/// Where the demo survey of these stores is filed (its identity is made when it is seeded).
pub async fn demo_survey(stores: &Stores) -> SurveyRef {
    filed_survey(stores, "demo", "customer-satisfaction").await
}

/// Where the survey `slug` of `tenant` is filed (it must exist).
pub async fn filed_survey(stores: &Stores, tenant: &str, slug: &str) -> SurveyRef {
    let tenant = TenantSlug::parse(tenant).expect("a slug");
    let slug = SurveySlug::parse(slug).expect("a slug");
    stores
        .catalog
        .surveys
        .get(&tenant, &slug)
        .await
        .expect("the survey reads")
        .expect("the survey exists")
        .survey_ref()
}

/// A valid answer to the demo survey (filed as `demo`), varied by `n`.
pub fn demo_answer(demo: &SurveyRef, reference: u64, n: u64) -> Answer {
    let mut values = std::collections::BTreeMap::new();
    let id = |text: &str| QuestionId::parse(text).expect("an id");
    let drinks = [
        "Espresso",
        "Flat white",
        "Filter coffee",
        "Tea",
        "Something else",
    ];
    values.insert(id("overall"), AnswerValue::Stars((1 + n % 5) as u8));
    values.insert(
        id("drink"),
        AnswerValue::Choice(drinks[(n % 5) as usize].into()),
    );
    if n.is_multiple_of(3) {
        values.insert(id("wait"), AnswerValue::Number((n % 17) as f64));
    }
    if n.is_multiple_of(4) {
        values.insert(
            id("comments"),
            AnswerValue::Text(format!("coffee number {}", n % 7)),
        );
    }
    Answer {
        tenant: demo.tenant.clone(),
        survey: demo.slug.clone(),
        survey_id: demo.id.clone(),
        survey_version: 1,
        reference: Reference(reference),
        submitted_at: OffsetDateTime::now_utc(),
        values,
        skipped: Default::default(),
        hidden: Default::default(),
        order: Default::default(),
        language: None,
        over_quota: Default::default(),
        variables: Default::default(),
        score: None,
        correct: None,
        ending: None,
        participant: None,
        partial: false,
    }
}

impl TestApp {
    /// Stops the server gracefully and lets go of its storage.
    pub async fn stop(self) {
        self.server.stop(true).await;
    }

    /// Typed stores over the app's storage, for arranging data (own caches, so arrange first).
    pub async fn stores(&self) -> Stores {
        Stores::open(self.storage.clone(), &StoreSettings::default())
            .await
            .expect("the stores open")
    }

    /// Creates a tenant and its surveys directly in storage.
    pub async fn add_tenant(&self, slug: &str, subscription: Subscription, surveys: &[Survey]) {
        let stores = self.stores().await;
        let tenant = Tenant {
            slug: TenantSlug::parse(slug).expect("a slug"),
            name: format!("Tenant {slug}"),
            subscription,
            created: OffsetDateTime::now_utc(),
            owner: None,
            time_zone: None,
            branding: Default::default(),
        };
        assert!(
            stores
                .catalog
                .tenants
                .create(&tenant)
                .await
                .expect("created")
        );
        for survey in surveys {
            stores.catalog.surveys.save(survey).await.expect("saved");
        }
    }

    /// A new API key of an existing tenant.
    pub async fn api_key(&self, tenant: &str) -> String {
        let tenant = TenantSlug::parse(tenant).expect("a slug");
        let (key, _) = self
            .stores()
            .await
            .membership
            .api_keys
            .create(&tenant, "test", None)
            .await
            .expect("a key");
        key
    }

    /// A new tenant made as an operator does, and its first API key.
    pub async fn api_tenant(&self, tenant: &str) -> String {
        canvass::admin::create_tenant(
            &self.stores().await,
            tenant,
            &format!("Tenant {tenant}"),
            Subscription::Standard,
        )
        .await
        .expect("created")
    }

    /// Calls the JSON API with a key and an optional JSON body: the status and the JSON
    /// answer (`null` if it is not JSON).
    pub async fn api(
        &self,
        method: reqwest::Method,
        path: &str,
        key: &str,
        body: Option<serde_json::Value>,
    ) -> (u16, serde_json::Value) {
        let mut request = self
            .client
            .request(method, format!("{}{path}", self.address))
            .bearer_auth(key);
        if let Some(body) = body {
            request = request.json(&body);
        }
        let response = request.send().await.expect("answered");
        let status = response.status().as_u16();
        let text = response.text().await.expect("a body");
        (status, serde_json::from_str(&text).unwrap_or_default())
    }

    /// Creates a survey over the API (201); returns it as the API shows it.
    pub async fn create_survey(
        &self,
        key: &str,
        definition: serde_json::Value,
    ) -> serde_json::Value {
        let (status, created) = self
            .api(
                reqwest::Method::POST,
                "/api/v1/surveys",
                key,
                Some(definition),
            )
            .await;
        assert_eq!(status, 201, "{created}");
        created
    }

    /// Creates and publishes a survey over the API; returns it as the API shows it.
    pub async fn published_survey(
        &self,
        key: &str,
        definition: serde_json::Value,
    ) -> serde_json::Value {
        let slug = self.create_survey(key, definition).await["slug"]
            .as_str()
            .expect("a slug")
            .to_owned();
        let (status, survey) = self
            .api(
                reqwest::Method::POST,
                &format!("/api/v1/surveys/{slug}/publish"),
                key,
                None,
            )
            .await;
        assert_eq!(status, 200, "{survey}");
        survey
    }

    /// The newest responses of survey `slug` once every queued answer is counted, as the
    /// API lists them.
    pub async fn counted_responses(&self, key: &str, slug: &str) -> serde_json::Value {
        drain(&self.stores().await).await;
        let path = format!("/api/v1/surveys/{slug}/responses");
        let (status, list) = self.api(reqwest::Method::GET, &path, key, None).await;
        assert_eq!(status, 200, "{list}");
        list["responses"].clone()
    }

    /// The CSV download of survey `slug`'s responses, with the ids row, without a BOM.
    pub async fn responses_csv(&self, key: &str, slug: &str) -> String {
        let path = format!("/api/v1/surveys/{slug}/responses.csv?ids=true&bom=false");
        let response = self
            .client
            .get(format!("{}{path}", self.address))
            .bearer_auth(key)
            .send()
            .await
            .expect("answered");
        assert_eq!(response.status(), 200, "{path}");
        response.text().await.expect("a body")
    }

    /// GETs a path on the app.
    pub async fn get(&self, path: &str) -> reqwest::Response {
        self.client
            .get(format!("{}{path}", self.address))
            .send()
            .await
            .expect("the request is answered")
    }

    /// GETs a survey form and returns its HTML.
    pub async fn form(&self, tenant: &str, survey: &str) -> String {
        let response = self.get(&format!("/s/{tenant}/{survey}")).await;
        assert_eq!(
            response.status(),
            200,
            "the form of {tenant}/{survey} is served"
        );
        response.text().await.expect("a body")
    }

    /// POSTs a raw body to a survey.
    pub async fn post_raw(&self, tenant: &str, survey: &str, body: Vec<u8>) -> reqwest::Response {
        self.client
            .post(format!("{}/s/{tenant}/{survey}", self.address))
            .header("content-type", "application/x-www-form-urlencoded")
            .body(body)
            .send()
            .await
            .expect("the request is answered")
    }

    /// POSTs answers (`q-` fields and the token) to a survey.
    pub async fn submit(
        &self,
        tenant: &str,
        survey: &str,
        token: &str,
        answers: &[(&str, &str)],
    ) -> reqwest::Response {
        let mut pairs = vec![("token".to_owned(), token.to_owned())];
        pairs.extend(
            answers
                .iter()
                .map(|(q, v)| (format!("q-{q}"), (*v).to_owned())),
        );
        self.client
            .post(format!("{}/s/{tenant}/{survey}", self.address))
            .form(&pairs)
            .send()
            .await
            .expect("the request is answered")
    }

    /// Fetches a fresh form and submits answers with its token.
    pub async fn answer(
        &self,
        tenant: &str,
        survey: &str,
        answers: &[(&str, &str)],
    ) -> reqwest::Response {
        let token = token_in(&self.form(tenant, survey).await);
        self.submit(tenant, survey, &token, answers).await
    }
}

/// Answers the demo survey of the server at `address` as a browser does (the form, then the
/// post): `stars` for the rating, tea to drink. The reference it was thanked with.
pub async fn answer_demo(client: &reqwest::Client, address: &str, stars: &str) -> u64 {
    let url = format!("{address}/s/demo/customer-satisfaction");
    let form = client.get(&url).send().await.expect("the form");
    assert_eq!(form.status(), 200);
    let token = token_in(&form.text().await.expect("a body"));
    let posted = client
        .post(&url)
        .form(&[
            ("token", token.as_str()),
            ("q-overall", stars),
            ("q-drink", "Tea"),
        ])
        .send()
        .await
        .expect("answered");
    assert_eq!(posted.status(), 303, "thanked");
    reference_in(posted.headers()["location"].to_str().expect("ascii"))
}

/// The shard lease of the processes tests start: a worker started after another was killed
/// takes its shards within seconds, not the default 45 s.
pub const TEST_SHARD_LEASE_SECS: &str = "1";

/// A `canvass` process started from the built binary, killed when dropped.
pub struct CanvassProcess {
    child: std::process::Child,
    /// `http://127.0.0.1:PORT` for `serve`; empty for other commands.
    pub address: String,
    /// What `serve` printed after its address, as it prints it.
    printed: std::sync::Arc<std::sync::Mutex<Vec<String>>>,
}

impl CanvassProcess {
    /// Starts `canvass serve` on a random port over the data dir, with extra environment.
    pub fn serve(data_dir: &std::path::Path, env: &[(&str, &str)]) -> Self {
        Self::serve_logging(data_dir, env, std::process::Stdio::inherit())
    }

    /// As `serve`, with its log (stderr) written to `log`.
    pub fn serve_logging(
        data_dir: &std::path::Path,
        env: &[(&str, &str)],
        log: impl Into<std::process::Stdio>,
    ) -> Self {
        use std::io::{BufRead, BufReader};
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_canvass"))
            .arg("serve")
            .env("CANVASS_LISTEN", "127.0.0.1:0")
            .env("CANVASS_DATA_DIR", data_dir)
            .env("CANVASS_LOG", "warn")
            // Tests count answers exactly: no sample responses unless a test asks for them.
            .env("CANVASS_DEMO_RESPONSES", "0")
            .env("CANVASS_SHARD_LEASE_SECS", TEST_SHARD_LEASE_SECS)
            .envs(env.iter().copied())
            .stdout(std::process::Stdio::piped())
            .stderr(log)
            .spawn()
            .expect("canvass serve starts");
        let stdout = child.stdout.take().expect("stdout is piped");
        let mut lines = BufReader::new(stdout).lines();
        let address = loop {
            let line = lines
                .next()
                .expect("canvass serve printed its address")
                .expect("stdout is readable");
            if let Some(rest) = line.strip_prefix("Canvass is running at ") {
                break rest.split('/').take(3).collect::<Vec<_>>().join("/");
            }
        };
        // Keep draining stdout so the process never blocks on a full pipe.
        let printed = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let keep = printed.clone();
        std::thread::spawn(move || {
            for line in lines.map_while(Result::ok) {
                keep.lock().expect("not poisoned").push(line);
            }
        });
        Self {
            child,
            address,
            printed,
        }
    }
}

impl CanvassProcess {
    /// The process's id.
    pub fn id(&self) -> u32 {
        self.child.id()
    }

    /// The lines `serve` printed after its address, once `until` holds for them (or after
    /// 30 s, with whatever it printed).
    pub async fn printed(&self, until: impl Fn(&[String]) -> bool) -> Vec<String> {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
        loop {
            let lines = self.printed.lock().expect("not poisoned").clone();
            if until(&lines) || std::time::Instant::now() > deadline {
                return lines;
            }
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
    }

    /// Starts `canvass worker` over the data dir, with extra environment.
    pub fn worker(data_dir: &std::path::Path, env: &[(&str, &str)]) -> Self {
        Self::worker_logging(data_dir, env, std::process::Stdio::inherit())
    }

    /// As `worker`, with its log (stderr) written to `log`.
    pub fn worker_logging(
        data_dir: &std::path::Path,
        env: &[(&str, &str)],
        log: impl Into<std::process::Stdio>,
    ) -> Self {
        let child = std::process::Command::new(env!("CARGO_BIN_EXE_canvass"))
            .arg("worker")
            .env("CANVASS_DATA_DIR", data_dir)
            .env("CANVASS_LOG", "error")
            .env("CANVASS_SHARD_LEASE_SECS", TEST_SHARD_LEASE_SECS)
            .envs(env.iter().copied())
            .stdout(std::process::Stdio::null())
            .stderr(log)
            .spawn()
            .expect("canvass worker starts");
        Self {
            child,
            printed: Default::default(),
            address: String::new(),
        }
    }

    /// Asks the process to stop with SIGTERM and waits for its exit status.
    pub fn terminate(mut self) -> std::process::ExitStatus {
        self.send_sigterm();
        self.child.wait().expect("the process exits")
    }

    /// Sends SIGTERM and returns at once.
    pub fn send_sigterm(&self) {
        let pid = self.child.id().to_string();
        let sent = std::process::Command::new("kill")
            .args(["-TERM", &pid])
            .status();
        assert!(
            sent.is_ok_and(|status| status.success()),
            "SIGTERM was sent"
        );
    }

    /// Waits for the process to exit (after `send_sigterm`).
    pub fn wait(mut self) -> std::process::ExitStatus {
        self.child.wait().expect("the process exits")
    }

    /// How the process ended, if it has.
    pub fn exited(&mut self) -> Option<std::process::ExitStatus> {
        self.child
            .try_wait()
            .expect("the process can be waited for")
    }

    /// Stops the process with SIGKILL, as a crash would.
    pub fn kill(mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for CanvassProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Makes a standard tenant in the data dir as an operator does (`canvass tenant create`);
/// returns the API key it prints.
pub fn tenant_with_key(data_dir: &std::path::Path, slug: &str, name: &str) -> String {
    let made = std::process::Command::new(env!("CARGO_BIN_EXE_canvass"))
        .args([
            "tenant", "create", "--slug", slug, "--name", name, "--plan", "standard",
        ])
        .env("CANVASS_DATA_DIR", data_dir)
        .env("CANVASS_LOG", "warn")
        .output()
        .expect("canvass tenant create runs");
    assert!(
        made.status.success(),
        "{}",
        String::from_utf8_lossy(&made.stderr)
    );
    String::from_utf8_lossy(&made.stdout)
        .lines()
        .last()
        .expect("the key is printed")
        .trim()
        .to_owned()
}

/// The summary document of `survey` as stored (what the worker committed last).
pub async fn summary_doc(
    stores: &canvass::stores::Stores,
    survey: &canvass::domain::SurveyRef,
) -> canvass::stores::SummaryDoc {
    stores
        .answering
        .summaries
        .read(survey)
        .await
        .expect("read")
        .doc
}
