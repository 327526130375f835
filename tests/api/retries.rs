//! Nothing written before an answer's queue write turns its retry away: a personal link's
//! claim and its quota places outlive a failed queue write (a full disk) and a process killed
//! between the writes without refusing the same form sent again, which is then counted once;
//! forms of one link sent at once through two processes give one answer and one place.

use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use reqwest::Method;
use serde_json::{Value, json};

use crate::faults::FullDisk;
use crate::helpers::{CanvassProcess, TestApp, drain, spawn_app_with, tenant_with_key, token_in};
use crate::owner::value_of;

/// A survey by invitation with a quota of `limit` tea drinkers.
fn tea(slug: &str, anonymous: bool, limit: usize) -> Value {
    json!({
        "title": slug, "access": "invitation", "anonymous": anonymous,
        "questions": [{"id": "drink", "text": "What do you drink?", "type": "single_choice",
                       "options": ["Tea", "Coffee"], "required": true}],
        "quotas": [{"id": "tea", "name": "Tea drinkers", "limit": limit,
                    "when": {"question": "drink", "equals": "Tea"}}]
    })
}

/// The personal links of `emails`, added to the survey at `api` (a base address).
async fn links(
    client: &reqwest::Client,
    api: &str,
    key: &str,
    slug: &str,
    emails: &[&str],
) -> Vec<String> {
    let list: Vec<Value> = emails.iter().map(|email| json!({"email": email})).collect();
    let added: Value = client
        .post(format!("{api}/api/v1/surveys/{slug}/participants"))
        .bearer_auth(key)
        .json(&json!({"participants": list}))
        .send()
        .await
        .expect("answered")
        .json()
        .await
        .expect("JSON");
    added["participants"]
        .as_array()
        .unwrap_or_else(|| panic!("participants: {added}"))
        .iter()
        .map(|one| {
            let link = one["link"].as_str().expect("a link");
            // Their path: the test sends it to whichever process it likes.
            link.splitn(4, '/')
                .nth(3)
                .map(|path| format!("/{path}"))
                .expect("a path")
        })
        .collect()
}

/// A link's form, read at `base`: its token and participant fields (or its status).
async fn open(client: &reqwest::Client, base: &str, link: &str) -> Result<[String; 2], u16> {
    let response = client
        .get(format!("{base}{link}"))
        .send()
        .await
        .expect("answered");
    let status = response.status().as_u16();
    if status != 200 {
        return Err(status);
    }
    let page = response.text().await.expect("a page");
    Ok([token_in(&page), value_of(&page, "participant")])
}

/// A client that shows redirects rather than following them, as the tests' app client does.
fn client() -> reqwest::Client {
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .expect("a client")
}

/// Sends a link's form at `base` with this drink: the status (0: no answer at all).
async fn send(
    client: &reqwest::Client,
    base: &str,
    slug: &str,
    form: &[String; 2],
    drink: &str,
) -> u16 {
    let fields = [
        ("token", form[0].as_str()),
        ("participant", form[1].as_str()),
        ("q-drink", drink),
    ];
    client
        .post(format!("{base}/s/acme/{slug}"))
        .form(&fields)
        .send()
        .await
        .map_or(0, |response| response.status().as_u16())
}

/// The survey's total and its quota's places, read over the API at `base`.
async fn counted(client: &reqwest::Client, base: &str, key: &str, slug: &str) -> (Value, Value) {
    let read = |path: String| {
        let request = client
            .get(format!("{base}/api/v1/surveys/{slug}{path}"))
            .bearer_auth(key);
        async move {
            let response = request.send().await.expect("answered");
            response.json::<Value>().await.expect("JSON")
        }
    };
    let summary = read("/summary".into()).await;
    let quotas = read("/quotas".into()).await;
    (summary["total"].clone(), quotas[0]["placed"].clone())
}

async fn publish(app: &TestApp, key: &str, slug: &str) {
    let (status, body) = app
        .api(
            Method::POST,
            &format!("/api/v1/surveys/{slug}/publish"),
            key,
            None,
        )
        .await;
    assert_eq!(status, 200, "{body}");
}

#[tokio::test]
async fn a_failed_queue_write_turns_no_retry_of_a_personal_link_away_named_or_anonymous() {
    let (storage, disk) = FullDisk::around(&canvass::storage::memory::storage());
    let app = spawn_app_with(storage).await;
    let key = app.api_tenant("acme").await;
    let client = &app.client;
    for (slug, anonymous) in [("named", false), ("unnamed", true)] {
        app.create_survey(&key, tea(slug, anonymous, 1)).await;
        let people = links(
            client,
            &app.address,
            &key,
            slug,
            &["ann@example.com", "bob@example.com"],
        )
        .await;
        publish(&app, &key, slug).await;
        let first = open(client, &app.address, &people[0])
            .await
            .expect("a form");

        disk.full.store(true, Ordering::SeqCst);
        let refused = send(client, &app.address, slug, &first, "Tea").await;
        disk.full.store(false, Ordering::SeqCst);

        assert_eq!(refused, 503, "{slug}: the full disk is said");
        assert_eq!(
            counted(client, &app.address, &key, slug).await.1,
            0,
            "{slug}: place given back"
        );
        // The link opens again, on the same answer, and the same form is taken.
        let reopened = open(client, &app.address, &people[0])
            .await
            .expect("not turned away");
        assert_eq!(reopened[0], first[0], "{slug}: the form of the same answer");
        assert_eq!(
            send(client, &app.address, slug, &first, "Tea").await,
            303,
            "{slug}"
        );
        // Now it answered, and its place is the quota's one: another tea drinker is ended.
        assert_eq!(
            open(client, &app.address, &people[0]).await,
            Err(410),
            "{slug}"
        );
        let bob = open(client, &app.address, &people[1])
            .await
            .expect("a form");
        let ended = send(client, &app.address, slug, &bob, "Tea").await;
        assert_eq!(ended, 200, "{slug}: the full quota's page");
        drain(&app.stores().await).await;
        assert_eq!(
            counted(client, &app.address, &key, slug).await,
            (json!(1), json!(1)),
            "{slug}"
        );
    }

    // An open survey's send that could not be queued gives its place back too.
    let mut open_survey = tea("open", false, 1);
    open_survey["access"] = json!("open");
    app.published_survey(&key, open_survey).await;
    let token = token_in(&app.form("acme", "open").await);
    disk.full.store(true, Ordering::SeqCst);
    assert_eq!(
        app.submit("acme", "open", &token, &[("drink", "Tea")])
            .await
            .status(),
        503
    );
    disk.full.store(false, Ordering::SeqCst);
    assert_eq!(counted(client, &app.address, &key, "open").await.1, 0);
    let fresh = token_in(&app.form("acme", "open").await);
    assert_eq!(
        app.submit("acme", "open", &fresh, &[("drink", "Tea")])
            .await
            .status(),
        303
    );
}

#[tokio::test]
async fn a_serve_killed_between_the_answers_writes_turns_no_retry_away() {
    let client = client();
    // Where the process dies, and whether the survey's answers are anonymous.
    let cases = [
        ("after-claim", false),
        ("after-claim", true),
        ("after-places", true),
        ("after-queue", false),
        ("after-queue", true),
    ];
    for (at, anonymous) in cases {
        let dir = tempfile::tempdir().expect("a temp dir");
        let key = tenant_with_key(dir.path(), "acme", "Acme");
        let env = [("CANVASS_DEMO", "false"), (canvass::crash::VARIABLE, at)];
        let dying = CanvassProcess::serve(dir.path(), &env);
        let base = dying.address.clone();
        let created = client
            .post(format!("{base}/api/v1/surveys"))
            .bearer_auth(&key)
            .json(&tea("pulse", anonymous, 5))
            .send()
            .await
            .expect("answered");
        assert_eq!(created.status(), 201);
        let people = links(&client, &base, &key, "pulse", &["ann@example.com"]).await;
        let published = client
            .post(format!("{base}/api/v1/surveys/pulse/publish"))
            .bearer_auth(&key)
            .send()
            .await
            .expect("answered");
        assert_eq!(published.status(), 200);
        let form = open(&client, &base, &people[0]).await.expect("a form");

        assert_eq!(
            send(&client, &base, "pulse", &form, "Tea").await,
            0,
            "{at}: no answer, it died"
        );
        drop(dying);

        let serve = CanvassProcess::serve(dir.path(), &[("CANVASS_DEMO", "false")]);
        let base = serve.address.clone();
        let reopened = open(&client, &base, &people[0])
            .await
            .expect("{at}: not turned away");
        assert_eq!(reopened[0], form[0], "{at}: the form of the same answer");
        assert_eq!(
            send(&client, &base, "pulse", &form, "Tea").await,
            303,
            "{at}, anonymous {anonymous}"
        );
        assert_eq!(open(&client, &base, &people[0]).await, Err(410), "{at}");
        let deadline = Instant::now() + Duration::from_secs(20);
        let mut seen = counted(&client, &base, &key, "pulse").await;
        while seen.0 != json!(1) && Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(100)).await;
            seen = counted(&client, &base, &key, "pulse").await;
        }
        assert_eq!(
            seen,
            (json!(1), json!(1)),
            "{at}, anonymous {anonymous}: once, one place"
        );
    }
}

/// One send of a form, timed from the test's start.
#[derive(Debug)]
struct Sent {
    process: usize,
    started: Duration,
    ended: Duration,
    status: u16,
}

#[tokio::test]
async fn forms_of_one_link_sent_at_once_through_two_processes_give_one_answer_and_one_place() {
    const PEOPLE: usize = 6;
    const FORMS: usize = 4;
    let dir = tempfile::tempdir().expect("a temp dir");
    let key = tenant_with_key(dir.path(), "acme", "Acme");
    let processes: Vec<CanvassProcess> = (0..2)
        .map(|_| CanvassProcess::serve(dir.path(), &[("CANVASS_DEMO", "false")]))
        .collect();
    let bases: Vec<String> = processes.iter().map(|p| p.address.clone()).collect();
    let client = client();
    let created = client
        .post(format!("{}/api/v1/surveys", bases[0]))
        .bearer_auth(&key)
        .json(&tea("pulse", false, 10 * PEOPLE))
        .send()
        .await
        .expect("answered");
    assert_eq!(created.status(), 201);
    let emails: Vec<String> = (0..PEOPLE).map(|n| format!("p{n}@example.com")).collect();
    let emails: Vec<&str> = emails.iter().map(String::as_str).collect();
    let people = links(&client, &bases[0], &key, "pulse", &emails).await;
    let published = client
        .post(format!("{}/api/v1/surveys/pulse/publish", bases[0]))
        .bearer_auth(&key)
        .send()
        .await
        .expect("answered");
    assert_eq!(published.status(), 200);

    let start = Instant::now();
    let mut overlapped = 0;
    for link in &people {
        // Several forms of one link (another tab, another device), sent at the same moment
        // through both processes.
        let mut forms = Vec::new();
        for n in 0..FORMS {
            forms.push((
                n % 2,
                open(&client, &bases[n % 2], link).await.expect("a form"),
            ));
        }
        let sends = forms.iter().map(|(process, form)| {
            let (client, base) = (client.clone(), bases[*process].clone());
            async move {
                let started = start.elapsed();
                let status = send(&client, &base, "pulse", form, "Tea").await;
                Sent {
                    process: *process,
                    started,
                    ended: start.elapsed(),
                    status,
                }
            }
        });
        let sent = futures_util::future::join_all(sends).await;
        let thanked = sent.iter().filter(|one| one.status == 303).count();
        assert_eq!(thanked, 1, "one answer per link: {sent:?}");
        assert!(
            sent.iter().all(|one| matches!(one.status, 303 | 410)),
            "{sent:?}"
        );
        let across = sent.iter().any(|a| {
            sent.iter()
                .any(|b| a.process != b.process && a.started < b.ended && b.started < a.ended)
        });
        overlapped += usize::from(across);
    }
    assert!(overlapped > 0, "no two processes were ever sending at once");

    let deadline = Instant::now() + Duration::from_secs(20);
    let mut seen = counted(&client, &bases[0], &key, "pulse").await;
    while seen.0 != json!(PEOPLE) && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(100)).await;
        seen = counted(&client, &bases[0], &key, "pulse").await;
    }
    assert_eq!(
        seen,
        (json!(PEOPLE), json!(PEOPLE)),
        "one answer and one place per link"
    );
}
