//! Anonymous answers. A survey by invitation whose answers are anonymous keeps nothing that
//! ties an answer to its participant: every stored blob outside the participants' own folder,
//! every queue message (the raw queue file, deleted messages' leftovers included), the answers
//! over the API and the CSV and XLSX downloads are searched for each participant's email,
//! names, attribute, id and personal link, and hold none of them. The participants' folder in
//! turn holds no answer's reference, text or time of opening or answering. The choice is made
//! before publishing and cannot change after. A named survey's answers, in turn, carry who
//! gave them into the downloads, and its texts recall each participant's details.

use std::io::Cursor;

use calamine::{Reader, Xlsx};
use reqwest::Method;
use serde_json::{Value, json};

use crate::helpers::{TestApp, drain, token_in};
use crate::mailings::{app_mailing_on, mailing, path_of};
use crate::owner::{Owner, value_of};
use crate::smtp_tls::Server;

/// People whose every detail is a word found nowhere else.
const PEOPLE: [(&str, &str, &str, &str); 3] = [
    (
        "annabel.q@acme.test",
        "Annabel",
        "Quixotova",
        "Skunkworks7731",
    ),
    (
        "bertrand.z@acme.test",
        "Bertrand",
        "Zwielichter",
        "Lighthouse5519",
    ),
    (
        "cosima.v@acme.test",
        "Cosima",
        "Vantablackson",
        "Orchard2284",
    ),
];

fn definition(anonymous: bool) -> Value {
    json!({"title": "Pulse", "access": "invitation", "anonymous": anonymous,
           "questions": [
               {"id": "stars", "text": "How was it?", "type": "five_stars", "required": true},
               {"id": "why", "text": "Why?", "type": "long_text"}]})
}

/// Everything a participant could be recognised by.
fn needles(listed: &[Value]) -> Vec<String> {
    let mut needles: Vec<String> = PEOPLE
        .iter()
        .flat_map(|(email, first, last, team)| [*email, *first, *last, *team])
        .map(str::to_owned)
        .collect();
    for participant in listed {
        needles.push(participant["id"].as_str().expect("an id").to_owned());
        let link = participant["link"].as_str().expect("a link");
        let secret = link.rsplit('/').next().expect("a secret");
        needles.push(secret.to_owned());
    }
    needles
}

fn holds(haystack: &[u8], needle: &str) -> bool {
    let needle = needle.as_bytes();
    haystack
        .windows(needle.len())
        .any(|window| window == needle)
}

/// Adds participants to the survey: the API's status and answer.
async fn add(app: &TestApp, key: &str, list: Value) -> (u16, Value) {
    let path = "/api/v1/surveys/pulse/participants";
    app.api(Method::POST, path, key, Some(list)).await
}

async fn listed(app: &TestApp, key: &str) -> Vec<Value> {
    let (status, page) = app
        .api(Method::GET, "/api/v1/surveys/pulse/participants", key, None)
        .await;
    assert_eq!(status, 200, "{page}");
    page["participants"].as_array().expect("a list").clone()
}

/// Adds `PEOPLE` to the survey "pulse".
async fn add_people(app: &TestApp, key: &str) {
    let people: Vec<Value> = PEOPLE
        .iter()
        .map(|(email, first, last, team)| {
            json!({"email": email, "first_name": first, "last_name": last,
                   "attributes": {"team": team}})
        })
        .collect();
    let (status, added) = add(app, key, json!({ "participants": people })).await;
    assert_eq!(status, 201, "{added}");
}

/// Answers through a personal link: the status of the post.
async fn answer_through(app: &TestApp, link: &str, stars: &str, why: &str) -> (u16, String) {
    let form = app.get(&path_of(link)).await;
    assert_eq!(form.status(), 200);
    let form = form.text().await.expect("a page");
    let fields = [
        ("token", token_in(&form)),
        ("participant", value_of(&form, "participant")),
        ("q-stars", stars.to_owned()),
        ("q-why", why.to_owned()),
    ];
    let posted = || {
        app.client
            .post(format!("{}/s/acme/pulse", app.address))
            .form(&fields)
            .send()
    };
    let status = posted().await.expect("answered").status().as_u16();
    // Sent again (a double click): their link answered, and the claim cannot say with which
    // answer, so it is refused rather than taken twice.
    let again = posted().await.expect("answered");
    (
        status,
        format!("{} {}", again.status(), again.text().await.expect("a page")),
    )
}

async fn download(app: &TestApp, key: &str, path: &str) -> bytes::Bytes {
    let response = app
        .client
        .get(format!("{}{path}", app.address))
        .bearer_auth(key)
        .send()
        .await
        .expect("answered");
    assert_eq!(response.status(), 200, "{path}");
    response.bytes().await.expect("a body")
}

#[tokio::test]
async fn nothing_stored_or_exported_ties_an_anonymous_answer_to_its_participant() {
    let dir = tempfile::tempdir().expect("a folder");
    let storage = canvass::storage::local::storage(dir.path())
        .await
        .expect("opens");
    let server = Server::start("plain");
    let app = app_mailing_on(&server, storage).await;
    let owner = Owner::signed_up(&app, "Acme", "acme", "owner@acme.test").await;
    let key = owner.api_key("anonymity").await;
    let created = app.create_survey(&key, definition(false)).await;
    assert_eq!(created["anonymous"], false);
    // A draft may change its mind.
    let put = |anonymous: bool| {
        app.api(
            Method::PUT,
            "/api/v1/surveys/pulse",
            &key,
            Some(definition(anonymous)),
        )
    };
    let (status, changed) = put(true).await;
    assert_eq!(status, 200, "{changed}");
    assert_eq!(changed["anonymous"], true);
    add_people(&app, &key).await;
    // Nobody is invited to a draft (that is also what fixes the choice before anyone is).
    let (status, refused) = app
        .api(
            Method::POST,
            "/api/v1/surveys/pulse/mailings",
            &key,
            Some(json!({"kind": "invitation"})),
        )
        .await;
    assert_eq!(status, 409, "{refused}");
    assert!(
        refused["error"]
            .as_str()
            .expect("a reason")
            .contains("publish the survey first"),
        "{refused}"
    );
    let (status, _) = app
        .api(Method::POST, "/api/v1/surveys/pulse/publish", &key, None)
        .await;
    assert_eq!(status, 200);

    // Published, with nobody having answered: the choice is still open (issue 46, item E).
    let (status, changed) = put(false).await;
    assert_eq!(status, 200, "{changed}");
    assert_eq!(changed["anonymous"], false);
    let (status, changed) = put(true).await;
    assert_eq!(status, 200, "{changed}");
    assert_eq!(changed["anonymous"], true);

    let sent = mailing(&app, &key, "pulse", "invitation", &server).await;
    assert_eq!(sent["sent"], 3, "{sent}");
    let everyone = listed(&app, &key).await;
    let link_of = |email: &str| -> String {
        let found = everyone
            .iter()
            .find(|p| p["email"] == email)
            .unwrap_or_else(|| panic!("{email} is listed"));
        found["link"].as_str().expect("a link").to_owned()
    };
    let (first, again) = answer_through(&app, &link_of(PEOPLE[0].0), "5", "Loved the tea").await;
    assert_eq!(first, 303);
    assert!(
        again.starts_with("410") && again.contains("already"),
        "{again}"
    );
    let (second, _) = answer_through(&app, &link_of(PEOPLE[1].0), "2", "Too loud").await;
    assert_eq!(second, 303);

    // Once answered, it cannot be loosened, over the API or on the site.
    let (status, refused) = put(false).await;
    assert_eq!(status, 422, "{refused}");
    assert!(
        refused["fields"]["anonymous"]
            .as_str()
            .expect("a reason")
            .contains("chosen before the first answer"),
        "{refused}"
    );
    let page = "/tenant/surveys/pulse/participants";
    let csrf = owner.csrf(page).await;
    assert!(owner.page(page).await.contains("Answers are anonymous"));
    let saved = owner
        .post(
            "/tenant/surveys/pulse/participants/access",
            &[("csrf", &csrf), ("access", "invitation")],
        )
        .await;
    assert_eq!(saved.status(), 303);
    let (_, survey) = app
        .api(Method::GET, "/api/v1/surveys/pulse", &key, None)
        .await;
    assert_eq!(
        survey["anonymous"], true,
        "the site's form leaves it as it was"
    );
    // Cosima only opens hers; the form tells her that her answers are anonymous.
    let opened = app.get(&path_of(&link_of(PEOPLE[2].0))).await;
    assert_eq!(opened.status(), 200);
    let form = opened.text().await.expect("a page");
    assert!(
        form.contains(r#"<p class="anonymous-note">Your answers are anonymous"#),
        "{form}"
    );

    // Completion is tracked, without times.
    let everyone = listed(&app, &key).await;
    let status_of = |email: &str| {
        let found = everyone
            .iter()
            .find(|p| p["email"] == email)
            .expect("listed");
        (
            found["status"].as_str().expect("a status").to_owned(),
            found["started"].clone(),
            found["finished"].clone(),
        )
    };
    assert_eq!(
        status_of(PEOPLE[0].0),
        ("finished".into(), Value::Null, Value::Null)
    );
    assert_eq!(status_of(PEOPLE[2].0).0, "started");
    assert!(
        owner
            .page(&format!(
                "{page}/{}",
                everyone[0]["id"].as_str().expect("id")
            ))
            .await
            .contains("Time not kept (anonymous)")
    );

    // Searched while the answers wait in the queue, and once they are written and counted.
    let needles = needles(&everyone);
    search_queue_file(dir.path(), &needles);
    let stores = app.stores().await;
    drain(&stores).await;
    search_queue_file(dir.path(), &needles);

    let (status, answers) = app
        .api(Method::GET, "/api/v1/surveys/pulse/responses", &key, None)
        .await;
    assert_eq!(status, 200, "{answers}");
    let listed_answers = answers["responses"].as_array().expect("answers");
    assert_eq!(listed_answers.len(), 2, "{answers}");
    for answer in listed_answers {
        let at = answer["submitted_at"].as_str().expect("a time");
        assert!(at.ends_with("T00:00:00Z"), "only the day is kept: {at}");
        assert!(answer.get("participant").is_none(), "{answer}");
    }
    let mut exported = vec![answers.to_string().into_bytes()];
    let csv = download(&app, &key, "/api/v1/surveys/pulse/responses.csv").await;
    assert!(holds(&csv, "Loved the tea"), "the answers are in it");
    assert!(!holds(&csv, "Participant"), "no participant columns");
    exported.push(csv.to_vec());
    let xlsx = download(&app, &key, "/api/v1/surveys/pulse/responses.xlsx").await;
    let mut workbook = Xlsx::new(Cursor::new(xlsx.to_vec())).expect("an XLSX workbook");
    let sheet = workbook.worksheet_range("Responses").expect("the sheet");
    let cells: String = sheet
        .rows()
        .flat_map(|row| row.iter().map(|cell| format!("{cell}\t")))
        .collect();
    assert!(cells.contains("Too loud"), "{cells}");
    exported.push(cells.into_bytes());
    for (at, export) in exported.iter().enumerate() {
        for needle in &needles {
            assert!(!holds(export, needle), "export {at} holds {needle}");
        }
    }

    // Every blob: outside the participants' folder, nothing of a participant; inside it,
    // nothing of an answer.
    let mut searched = 0;
    let mut theirs = 0;
    let mut continuation = None;
    loop {
        let mut request = canvass::storage::ListRequest::new("", 0);
        request.continuation = continuation;
        let page = app.storage.blobs.list(&request).await.expect("a page");
        for item in &page.items {
            let body = app.storage.blobs.get(&item.key).await.expect("a blob").body;
            if item.key.starts_with("participants/") {
                theirs += 1;
                for text in ["Loved the tea", "Too loud"] {
                    assert!(!holds(&body, text), "{} holds an answer", item.key);
                }
                if item.key.contains("/answered/") {
                    assert!(body.is_empty(), "{} names an answer", item.key);
                }
                if item.key.contains("/people/") {
                    let person: Value = serde_json::from_slice(&body).expect("a participant");
                    for moment in ["started", "finished"] {
                        let kept = &person[moment];
                        assert!(kept.is_null() || *kept == true, "{person}");
                    }
                }
                continue;
            }
            searched += 1;
            for needle in &needles {
                let key = item.key.as_bytes();
                assert!(
                    !holds(&body, needle) && !holds(key, needle),
                    "{} holds {needle}",
                    item.key
                );
            }
        }
        match page.continuation {
            Some(next) => continuation = Some(next),
            None => break,
        }
    }
    assert!(searched > 20, "answers, summaries and the rest: {searched}");
    assert!(
        theirs >= 3 * 4,
        "the participants and their claims: {theirs}"
    );
}

/// The raw queue file (with its write-ahead log) holds no participant's detail: not in a
/// message waiting, nor in what deleted ones left.
fn search_queue_file(dir: &std::path::Path, needles: &[String]) {
    let mut read = 0;
    for entry in std::fs::read_dir(dir).expect("the data folder") {
        let path = entry.expect("an entry").path();
        let name = path
            .file_name()
            .expect("a name")
            .to_string_lossy()
            .into_owned();
        if !name.starts_with(canvass::storage::local::QUEUE_FILE) {
            continue;
        }
        let bytes = std::fs::read(&path).expect("readable");
        read += bytes.len();
        for needle in needles {
            assert!(!holds(&bytes, needle), "{name} holds {needle}");
        }
    }
    assert!(read > 0, "the queue file was read");
}

#[tokio::test]
async fn a_named_surveys_answers_carry_their_participant_into_downloads_and_texts() {
    let app = crate::helpers::spawn_app().await;
    let key = app.api_tenant("acme").await;
    let text = "How was the week in {{p:team|your team}}, {{p:first_name|friend}}?";
    let mut definition = json!({"title": "Pulse", "access": "invitation",
           "questions": [{"id": "stars", "text": text, "type": "five_stars", "required": true}]});
    app.published_survey(&key, definition.clone()).await;
    let (status, added) = add(
        &app,
        &key,
        json!({"participants": [
                {"email": "ann@acme.test", "first_name": "Ann", "attributes": {"team": "Sales"}},
                {"email": "bob@acme.test", "attributes": {"site": "Leeds"}}]}),
    )
    .await;
    assert_eq!(status, 201, "{added}");
    // Each team is a segment.
    definition["segment_attributes"] = json!(["team"]);
    let (status, changed) = app
        .api(
            Method::PUT,
            "/api/v1/surveys/pulse",
            &key,
            Some(definition.clone()),
        )
        .await;
    assert_eq!(status, 200, "{changed}");
    assert_eq!(changed["segment_attributes"], json!(["team"]));
    let path = |at: usize| {
        let link = added["participants"][at]["link"].as_str().expect("a link");
        link.strip_prefix(&app.address)
            .expect("the app's")
            .to_owned()
    };
    // Their texts recall their own details, else the fallbacks.
    let ann = app.get(&path(0)).await.text().await.expect("a page");
    assert!(ann.contains("How was the week in Sales, Ann?"), "{ann}");
    let bob = app.get(&path(1)).await.text().await.expect("a page");
    assert!(
        bob.contains("How was the week in your team, friend?"),
        "{bob}"
    );
    let sent = app
        .client
        .post(format!("{}/s/acme/pulse", app.address))
        .form(&[
            ("token", token_in(&ann)),
            ("participant", value_of(&ann, "participant")),
            ("q-stars", "4".to_owned()),
        ])
        .send()
        .await
        .expect("answered");
    assert_eq!(sent.status(), 303);
    drain(&app.stores().await).await;

    let (_, answers) = app
        .api(Method::GET, "/api/v1/surveys/pulse/responses", &key, None)
        .await;
    let who = &answers["responses"][0]["participant"];
    assert_eq!(who["email"], "ann@acme.test", "{answers}");
    assert_eq!(who["id"], added["participants"][0]["id"]);
    assert_eq!(who["attributes"]["team"], "Sales");
    let csv = download(
        &app,
        &key,
        "/api/v1/surveys/pulse/responses.csv?ids=true&bom=false",
    )
    .await;
    let csv = String::from_utf8(csv.to_vec()).expect("UTF-8");
    let lines: Vec<&str> = csv.lines().collect();
    assert!(
        lines[0].starts_with(
            "Reference,Submitted (UTC),Survey version,Participant,First name,Last name,site,team,"
        ),
        "{csv}"
    );
    assert!(lines[1].contains(",participant,participant.first_name,participant.last_name,participant.site,participant.team,"), "{csv}");
    assert!(lines[2].contains(",ann@acme.test,Ann,,,Sales,4"), "{csv}");
    let summary = "/api/v1/surveys/pulse/summary?segment=@participant.team:Sales";
    let (status, sales) = app.api(Method::GET, summary, &key, None).await;
    assert_eq!(status, 200, "{sales}");
    assert_eq!(sales["total"], 1, "{sales}");
    assert_eq!(sales["segment"]["id"], "@participant.team:Sales");
    assert_eq!(sales["segment"]["question_text"], "Participants' team");
    let summary = "/api/v1/surveys/pulse/summary?segment=@participant.site:Leeds";
    let (status, _) = app.api(Method::GET, summary, &key, None).await;
    assert_eq!(status, 400, "site does not divide the answers");

    // A segment's values are bounded: an attribute with more cannot become one, and a list
    // that would pass the bound for one is refused.
    let coded = |attribute: &str, from: usize| -> Value {
        let list: Vec<Value> = (from..from + 51)
            .map(|n| json!({"email": format!("c{n}@acme.test"), "attributes": {attribute: format!("v{n}")}}))
            .collect();
        json!({ "participants": list })
    };
    let (status, _) = add(&app, &key, coded("code", 0)).await;
    assert_eq!(status, 201);
    definition["segment_attributes"] = json!(["team", "code"]);
    let (status, refused) = app
        .api(
            Method::PUT,
            "/api/v1/surveys/pulse",
            &key,
            Some(definition.clone()),
        )
        .await;
    assert_eq!(status, 422, "{refused}");
    assert!(
        refused["fields"]["segment_attributes"]
            .as_str()
            .expect("a reason")
            .contains("code takes more than 50 different values"),
        "{refused}"
    );
    let (status, refused) = add(&app, &key, coded("team", 100)).await;
    assert_eq!(status, 422, "{refused}");
    assert!(
        refused["error"]
            .as_str()
            .expect("a reason")
            .contains("divided by team, which can take at most 50 different values"),
        "{refused}"
    );

    // Every attribute name is a column: their number is bounded.
    let many: Vec<Value> = (0..3)
        .map(|n| {
            let attributes: serde_json::Map<String, Value> =
                (0..20).map(|a| (format!("a{n}_{a}"), json!("x"))).collect();
            json!({"email": format!("many{n}@acme.test"), "attributes": attributes})
        })
        .collect();
    let (status, refused) = add(&app, &key, json!({ "participants": many })).await;
    assert_eq!(status, 422, "{refused}");
    assert!(
        refused["error"]
            .as_str()
            .expect("a reason")
            .contains("at most 50 attribute names"),
        "{refused}"
    );
}

#[tokio::test]
async fn publishing_for_known_people_asks_about_anonymity_which_stays_open_until_an_answer() {
    // Links to the site's configured address, as the mailing tests' (`path_of`) are.
    let mut settings = crate::helpers::test_settings();
    settings.public_url = Some("https://surveys.acme.test".into());
    let app =
        crate::helpers::spawn_app_configured(canvass::storage::memory::storage(), settings).await;
    let owner = Owner::signed_up(&app, "Acme", "acme", "owner@acme.test").await;
    let key = owner.api_key("publish").await;
    app.create_survey(&key, definition(false)).await;
    let people = json!({"participants": [{"email": "ann@acme.test"}, {"email": "bob@acme.test"}]});
    let (status, added) = add(&app, &key, people).await;
    assert_eq!(status, 201, "{added}");
    let csrf = owner.csrf("/tenant/surveys/pulse").await;
    let published = || async {
        let (_, survey) = app
            .api(Method::GET, "/api/v1/surveys/pulse", &key, None)
            .await;
        (survey["published"].clone(), survey["anonymous"].clone())
    };

    // Publish asks first, and only a clear choice is taken.
    let asked = owner
        .post("/tenant/surveys/pulse/publish", &[("csrf", &csrf)])
        .await;
    assert_eq!(asked.status(), 200);
    let page = asked.text().await.expect("a page");
    assert!(page.contains("Are the answers to"), "{page}");
    assert_eq!(published().await, (json!(false), json!(false)), "not yet");
    let unclear = owner
        .post(
            "/tenant/surveys/pulse/publish",
            &[("csrf", &csrf), ("anonymous", "maybe")],
        )
        .await;
    assert_eq!(unclear.status(), 422);
    let chose = owner
        .post(
            "/tenant/surveys/pulse/publish",
            &[("csrf", &csrf), ("anonymous", "no")],
        )
        .await;
    assert_eq!(chose.status(), 303);
    assert_eq!(published().await, (json!(true), json!(false)));

    // Ann opens her link; then the owner makes the answers anonymous, and her opening loses
    // its time.
    let listed = listed(&app, &key).await;
    let ann = listed
        .iter()
        .find(|p| p["email"] == "ann@acme.test")
        .expect("Ann");
    assert_eq!(
        app.get(&path_of(ann["link"].as_str().expect("a link")))
            .await
            .status(),
        200
    );
    let timed = listed_one(&app, &key, "ann@acme.test").await;
    assert!(timed["started"].is_string(), "{timed}");
    let page = "/tenant/surveys/pulse/participants";
    let made = owner
        .post(
            &format!("{page}/access"),
            &[
                ("csrf", &csrf),
                ("access", "invitation"),
                ("anonymous", "yes"),
            ],
        )
        .await;
    assert_eq!(made.status(), 303);
    assert_eq!(published().await, (json!(true), json!(true)));
    let untimed = listed_one(&app, &key, "ann@acme.test").await;
    assert_eq!(untimed["status"], "started", "{untimed}");
    assert!(untimed["started"].is_null(), "{untimed}");

    // Once she has answered, it is fixed: the site's form leaves it, the API refuses it, and
    // publishing again asks nothing.
    let (status, _) =
        answer_through(&app, ann["link"].as_str().expect("a link"), "4", "Fine").await;
    assert_eq!(status, 303);
    assert!(owner.page(page).await.contains("stays so"));
    let (status, refused) = app
        .api(
            Method::PUT,
            "/api/v1/surveys/pulse",
            &key,
            Some(definition(false)),
        )
        .await;
    assert_eq!(status, 422, "{refused}");
    let unpublished = owner
        .post("/tenant/surveys/pulse/unpublish", &[("csrf", &csrf)])
        .await;
    assert_eq!(unpublished.status(), 303);
    let again = owner
        .post("/tenant/surveys/pulse/publish", &[("csrf", &csrf)])
        .await;
    assert_eq!(again.status(), 303, "published at once");
    assert_eq!(published().await, (json!(true), json!(true)));
}

/// One participant as the API lists them.
async fn listed_one(app: &TestApp, key: &str, email: &str) -> Value {
    listed(app, key)
        .await
        .into_iter()
        .find(|p| p["email"] == email)
        .unwrap_or_else(|| panic!("{email} is listed"))
}

#[tokio::test]
async fn an_anonymous_surveys_export_rows_and_mail_name_no_participant() {
    let mut settings = crate::helpers::test_settings();
    settings.public_url = Some("https://surveys.acme.test".into());
    settings.worker.smtp_url = Some("smtp://127.0.0.1:9".into());
    let app =
        crate::helpers::spawn_app_configured(canvass::storage::memory::storage(), settings).await;
    let owner = Owner::signed_up(&app, "Acme", "acme", "owner@acme.test").await;
    // The owner asked for an email on each new response.
    owner.notify("each").await;
    let key = owner.api_key("anonymity").await;
    app.create_survey(&key, definition(true)).await;
    add_people(&app, &key).await;
    let (status, _) = app
        .api(Method::POST, "/api/v1/surveys/pulse/publish", &key, None)
        .await;
    assert_eq!(status, 200);
    let everyone = listed(&app, &key).await;
    for (participant, stars) in everyone.iter().zip(["5", "3"]) {
        let link = participant["link"].as_str().expect("a link");
        let (status, _) = answer_through(&app, link, stars, "Lovely tea").await;
        assert_eq!(status, 303);
    }
    // Counted by a worker that could email the owner: no notice of these answers is queued.
    let stores = app.stores().await;
    crate::helpers::drain_mailing(&stores).await;
    let (_, summary) = app
        .api(Method::GET, "/api/v1/surveys/pulse/summary", &key, None)
        .await;
    assert_eq!(summary["total"], 2, "{summary}");
    let mail = stores.panel.mail.queue().name().clone();
    assert_eq!(
        stores
            .operations
            .queue_length(&mail)
            .await
            .expect("a length"),
        0
    );

    // Exported into PostgreSQL: no row holds anything a participant could be known by.
    let database = crate::export::TestDatabase::create().await;
    let (status, job) = app
        .api(Method::POST, "/api/v1/surveys/pulse/exports", &key, None)
        .await;
    assert_eq!(status, 202, "{job}");
    crate::export::work(&app, &database.url).await;
    let rows: Vec<String> = sqlx::query_scalar(
        "select row_to_json(r)::text from canvass.response r \
         union all select row_to_json(a)::text from canvass.answer a",
    )
    .fetch_all(&mut database.connect().await)
    .await
    .expect("read");
    assert!(rows.len() >= 2, "{rows:?}");
    assert!(
        rows.iter().any(|row| row.contains("Lovely tea")),
        "the answers are there: {rows:?}"
    );
    for needle in needles(&everyone) {
        for row in &rows {
            assert!(!row.contains(&needle), "{needle} in {row}");
        }
    }
}
