//! Mailings to participants, against a real SMTP server: invitations reach each participant
//! once, in their language, with a working personal link and one-click opt-out; reminders go
//! only to those invited who have not answered; bounces and busy servers are recorded and
//! retried; an opt-out stops the tenant's mail for every survey. The end of a message is held
//! until the send is recorded (so a killed worker never sends twice): shown over plain SMTP
//! and STARTTLS with AUTH. The site's template editor refuses and previews.

use std::time::Duration;

use canvass::domain::Email;
use canvass::domain::mailing::Filled;
use canvass::mail::{Outcome, Sender, letter};
use canvass::worker::mailer::MailerSettings;
use reqwest::Method;
use serde_json::{Value, json};

use crate::helpers::{TestApp, spawn_app, spawn_app_configured, test_settings, token_in};
use crate::owner::{Owner, value_of};
use crate::smtp_tls::Server;

/// The site's address as the operator configures it: links in email carry it.
const SITE: &str = "https://surveys.acme.test";

async fn app_mailing_through(server: &Server) -> TestApp {
    app_mailing_on(server, canvass::storage::memory::storage()).await
}

/// An app on `storage` that emails through `server`.
pub(crate) async fn app_mailing_on(server: &Server, storage: canvass::storage::Storage) -> TestApp {
    let mut settings = test_settings();
    settings.worker.smtp_url = Some(format!("smtp://{}", server.address));
    settings.public_url = Some(SITE.into());
    settings.worker.links_url = Some(SITE.into());
    spawn_app_configured(storage, settings).await
}

fn mailer(server: &Server) -> MailerSettings {
    MailerSettings {
        sender: Some(
            Sender::new(
                &format!("smtp://{}", server.address),
                "Acme <surveys@acme.test>",
            )
            .expect("a sender"),
        ),
        site: Some(SITE.into()),
        mailing_rate: None,
        pass_wait: Duration::ZERO,
        ..MailerSettings::default()
    }
}

/// The path of a link to the configured site.
pub(crate) fn path_of(link: &str) -> String {
    link.strip_prefix(SITE)
        .unwrap_or_else(|| panic!("{link} is a link to the configured site"))
        .to_owned()
}

/// Starts a mailing of `kind` and steps workers until it is done; returns it.
pub(crate) async fn mailing(
    app: &TestApp,
    key: &str,
    slug: &str,
    kind: &str,
    server: &Server,
) -> Value {
    let path = format!("/api/v1/surveys/{slug}/mailings");
    let (status, started) = app
        .api(Method::POST, &path, key, Some(json!({ "kind": kind })))
        .await;
    assert_eq!(status, 202, "{started}");
    assert_eq!(started["state"], "sending");
    let id = started["id"].as_str().expect("an id").to_owned();
    let stores = app.stores().await;
    let settings = mailer(server);
    let sender = settings.sender.clone().expect("a sender");
    let (_stop, stop) = tokio::sync::watch::channel(false);
    for _ in 0..20 {
        canvass::worker::mailings::step(&stores, &sender, &settings, &stop)
            .await
            .expect("a mailing step");
        let (status, mailing) = app
            .api(Method::GET, &format!("{path}/{id}"), key, None)
            .await;
        assert_eq!(status, 200, "{mailing}");
        if mailing["state"] == "finished" {
            return mailing;
        }
    }
    panic!("the mailing did not finish in 20 steps");
}

async fn participants(app: &TestApp, key: &str, slug: &str) -> Vec<Value> {
    let path = format!("/api/v1/surveys/{slug}/participants");
    let (status, page) = app.api(Method::GET, &path, key, None).await;
    assert_eq!(status, 200, "{page}");
    page["participants"].as_array().expect("a list").clone()
}

fn by_email<'a>(list: &'a [Value], email: &str) -> &'a Value {
    list.iter()
        .find(|p| p["email"] == email)
        .unwrap_or_else(|| panic!("{email} is listed"))
}

#[tokio::test]
async fn invitations_reach_each_once_reminders_only_those_who_have_not_answered() {
    let server = Server::start("plain");
    let mailbox = server.mailbox();
    let app = app_mailing_through(&server).await;
    let owner = Owner::signed_up(&app, "Acme", "acme", "owner@acme.test").await;
    let key = owner.api_key("mailings").await;
    app.published_survey(
        &key,
        json!({"title": "Visit", "access": "invitation", "languages": ["en", "de"],
               "questions": [{"id": "stars", "text": "How was it?", "type": "five_stars",
                              "required": true}]}),
    )
    .await;
    // A German invitation, saved on the site.
    let page = "/tenant/surveys/visit/mailings?language=de";
    let csrf = owner.csrf(page).await;
    let saved = owner
        .post(
            "/tenant/surveys/visit/mailings/template",
            &[
                ("csrf", &csrf),
                ("kind", "invitation"),
                ("language", "de"),
                ("subject", "Einladung: {{survey}}"),
                ("body", "Hallo {{first_name}},\n\n[Zur Umfrage]({{link}})"),
                ("do", "save"),
            ],
        )
        .await;
    assert_eq!(saved.status(), 303);
    let (status, added) = app
        .api(
            Method::POST,
            "/api/v1/surveys/visit/participants",
            &key,
            Some(json!({"participants": [
                {"email": "ann@acme.test", "first_name": "Ann", "language": "de"},
                {"email": "bob@acme.test", "first_name": "Bob <b>"},
                {"email": "eve@acme.test"},
                {"email": "refused-cy@acme.test"},
                {"email": "busy-dan@acme.test"}]})),
        )
        .await;
    assert_eq!(status, 201, "{added}");
    let link_of = |email: &str| {
        by_email(added["participants"].as_array().expect("a list"), email)["link"]
            .as_str()
            .expect("a link")
            .to_owned()
    };

    let done = mailing(&app, &key, "visit", "invitation", &server).await;
    assert_eq!(done["sent"], 3, "{done}");
    assert_eq!(done["bounced"], 1, "{done}");
    assert_eq!(
        done["deferred"], 1,
        "the busy one, after every pass: {done}"
    );
    assert_eq!(done["pass"], 4, "{done}");
    for email in ["ann@acme.test", "bob@acme.test", "eve@acme.test"] {
        assert_eq!(mailbox.wait_for(email, 1).await.len(), 1, "{email}");
    }
    let ann = mailbox.letters("ann@acme.test").remove(0);
    assert_eq!(ann.subject, "Einladung: Visit");
    assert!(ann.text.contains("Hallo Ann,"), "{}", ann.text);
    assert!(ann.text.contains(&link_of("ann@acme.test")), "{}", ann.text);
    assert!(
        ann.text
            .contains("You get this message because Acme added your address"),
        "the organisation by its name, not its slug: {}",
        ann.text
    );
    assert!(
        ann.html
            .contains(&format!(r#"href="{}""#, link_of("ann@acme.test"))),
        "{}",
        ann.html
    );
    let opt_out = format!("{}/opt-out", link_of("ann@acme.test"));
    assert_eq!(ann.list_unsubscribe, format!("<{opt_out}>"));
    assert_eq!(ann.list_unsubscribe_post, "List-Unsubscribe=One-Click");
    assert!(ann.message_id.contains(done["id"].as_str().expect("an id")));
    // The built-in English one, the name escaped in HTML and kept as typed in text.
    let bob = mailbox.letters("bob@acme.test").remove(0);
    assert_eq!(bob.subject, "You are invited: Visit");
    assert!(bob.text.contains("Hello Bob <b>,"), "{}", bob.text);
    assert!(bob.html.contains("Bob &lt;b&gt;"), "{}", bob.html);
    assert!(!bob.html.contains("<b>"), "{}", bob.html);
    // The plain-text part reads as the HTML one does: no Markdown marks.
    assert!(
        bob.text.contains("You are invited to answer Visit.")
            && bob
                .text
                .contains(&format!("Answer the survey: {}", link_of("bob@acme.test")))
            && !bob.text.contains("**")
            && !bob.text.contains("]("),
        "{}",
        bob.text
    );

    let list = participants(&app, &key, "visit").await;
    assert_eq!(by_email(&list, "ann@acme.test")["status"], "invited");
    assert!(by_email(&list, "ann@acme.test")["invited"].is_string());
    assert_eq!(by_email(&list, "refused-cy@acme.test")["status"], "bounced");
    assert_eq!(by_email(&list, "busy-dan@acme.test")["status"], "added");

    // Bob answers through his link; Ann opts out with one click, as a mail client does.
    let bob_form = app
        .get(&path_of(&link_of("bob@acme.test")))
        .await
        .text()
        .await
        .expect("a page");
    let answered = app
        .client
        .post(format!("{}/s/acme/visit", app.address))
        .form(&[
            ("token", token_in(&bob_form)),
            ("participant", value_of(&bob_form, "participant")),
            ("q-stars", "5".into()),
        ])
        .send()
        .await
        .expect("answered");
    assert_eq!(answered.status(), 303);
    let asked = app.get(&path_of(&opt_out)).await;
    assert_eq!(asked.status(), 200);
    let asked = asked.text().await.expect("a page");
    assert!(
        asked.contains("Keine E-Mails mehr von Acme?"),
        "in Ann's language"
    );
    let one_click = app
        .client
        .post(format!("{}{}", app.address, path_of(&opt_out)))
        .header("Content-Type", "application/x-www-form-urlencoded")
        .body("List-Unsubscribe=One-Click")
        .send()
        .await
        .expect("opted out");
    assert_eq!(one_click.status(), 200);
    let done_page = app
        .get(&path_of(&opt_out))
        .await
        .text()
        .await
        .expect("a page");
    assert!(done_page.contains("Sie erhalten keine E-Mails mehr von Acme"));
    assert!(!done_page.contains("<button"), "nothing left to ask");

    let reminded = mailing(&app, &key, "visit", "reminder", &server).await;
    assert_eq!(reminded["sent"], 1, "only Eve: {reminded}");
    assert_eq!(mailbox.wait_for("eve@acme.test", 2).await.len(), 2);
    assert_eq!(mailbox.letters("eve@acme.test")[1..].len(), 1);
    assert!(
        mailbox
            .letters("eve@acme.test")
            .iter()
            .any(|letter| letter.subject == "A reminder: Visit")
    );

    // A new participant: the next invitation reaches only them (and tries the busy one).
    app.api(
        Method::POST,
        "/api/v1/surveys/visit/participants",
        &key,
        Some(json!({"participants": [{"email": "fay@acme.test"}]})),
    )
    .await;
    let again = mailing(&app, &key, "visit", "invitation", &server).await;
    assert_eq!(again["sent"], 1, "{again}");
    assert_eq!(mailbox.wait_for("fay@acme.test", 1).await.len(), 1);
    tokio::time::sleep(Duration::from_millis(200)).await;
    let counts = mailbox.counts();
    assert_eq!(counts.get("ann@acme.test"), Some(&1), "{counts:?}");
    assert_eq!(counts.get("bob@acme.test"), Some(&1), "{counts:?}");
    assert_eq!(counts.get("eve@acme.test"), Some(&2), "{counts:?}");
    assert_eq!(counts.get("refused-cy@acme.test"), None, "{counts:?}");

    let (_, listed) = app
        .api(Method::GET, "/api/v1/surveys/visit/mailings", &key, None)
        .await;
    assert_eq!(listed["mailings"].as_array().expect("a list").len(), 3);
    assert_eq!(
        listed["totals"],
        json!({"participants": 6, "invited": 4, "started": 1, "finished": 1,
               "opted_out": 1, "bounced": 1}),
        "{listed}"
    );
    let list = participants(&app, &key, "visit").await;
    assert_eq!(by_email(&list, "ann@acme.test")["status"], "opted_out");
    assert_eq!(by_email(&list, "bob@acme.test")["status"], "finished");
    assert_eq!(by_email(&list, "eve@acme.test")["reminded"], 1);

    // Ann's opt-out holds for the tenant's other surveys.
    app.published_survey(
        &key,
        json!({"title": "Canteen", "access": "invitation",
               "questions": [{"id": "stars", "text": "How was it?", "type": "five_stars"}]}),
    )
    .await;
    app.api(
        Method::POST,
        "/api/v1/surveys/canteen/participants",
        &key,
        Some(json!({"participants": [{"email": "ann@acme.test"}, {"email": "gus@acme.test"}]})),
    )
    .await;
    let canteen = mailing(&app, &key, "canteen", "invitation", &server).await;
    assert_eq!(canteen["sent"], 1, "{canteen}");
    assert_eq!(mailbox.wait_for("gus@acme.test", 1).await.len(), 1);
    assert_eq!(mailbox.counts().get("ann@acme.test"), Some(&1));
    let list = participants(&app, &key, "canteen").await;
    assert_eq!(by_email(&list, "ann@acme.test")["status"], "opted_out");
}

/// An open survey "visit" of one question.
async fn open_survey(app: &TestApp, key: &str) {
    app.published_survey(
        key,
        json!({"title": "Visit", "questions": [{"text": "How was it?", "type": "five_stars"}]}),
    )
    .await;
}

async fn start_mailing(app: &TestApp, key: &str, kind: &str) -> (u16, Value) {
    let body = json!({ "kind": kind });
    app.api(
        Method::POST,
        "/api/v1/surveys/visit/mailings",
        key,
        Some(body),
    )
    .await
}

#[tokio::test]
async fn a_mailing_is_refused_clearly_without_mail_participants_or_while_one_is_sent() {
    let app = spawn_app().await;
    let key = app.api_tenant("acme").await;
    open_survey(&app, &key).await;
    let start = |kind: &'static str| start_mailing(&app, &key, kind);
    let (status, refused) = start("invitation").await;
    assert_eq!(status, 409, "{refused}");
    assert!(
        refused["error"]
            .as_str()
            .expect("a reason")
            .contains("CANVASS_SMTP_URL"),
        "{refused}"
    );
    let (status, refused) = start("newsletter").await;
    assert_eq!(status, 400, "{refused}");

    let server = Server::start("plain");
    let app = app_mailing_through(&server).await;
    let key = app.api_tenant("acme").await;
    open_survey(&app, &key).await;
    let start = |kind: &'static str| start_mailing(&app, &key, kind);
    let (status, refused) = start("invitation").await;
    assert_eq!(status, 409, "{refused}");
    assert!(
        refused["error"]
            .as_str()
            .expect("a reason")
            .contains("no participants")
    );
    app.api(
        Method::POST,
        "/api/v1/surveys/visit/participants",
        &key,
        Some(json!({"participants": [{"email": "ann@acme.test"}]})),
    )
    .await;
    let (status, started) = start("invitation").await;
    assert_eq!(status, 202, "{started}");
    let (status, busy) = start("reminder").await;
    assert_eq!(status, 409, "{busy}");
    assert!(
        busy["error"]
            .as_str()
            .expect("a reason")
            .contains("being sent")
    );
    let (status, _) = app
        .api(
            Method::GET,
            "/api/v1/surveys/visit/mailings/0123",
            &key,
            None,
        )
        .await;
    assert_eq!(status, 404);
}

#[tokio::test]
async fn the_template_editor_refuses_a_template_without_the_link_and_previews_one() {
    let app = spawn_app().await;
    let owner = Owner::signed_up(&app, "Acme", "acme", "owner@acme.test").await;
    let key = owner.api_key("mailings").await;
    open_survey(&app, &key).await;
    app.api(
        Method::POST,
        "/api/v1/surveys/visit/participants",
        &key,
        Some(json!({"participants": [{"email": "ann@acme.test", "first_name": "*Ann*"}]})),
    )
    .await;
    let page = owner.page("/tenant/surveys/visit/mailings").await;
    assert!(
        page.contains("Email is not set up on this server"),
        "{page}"
    );
    assert!(
        page.contains("You are invited: {{survey}}"),
        "the built-in template"
    );
    let csrf = owner.csrf("/tenant/surveys/visit/mailings").await;
    let post = |body: &'static str, action: &'static str| {
        let form: Vec<(String, String)> = vec![
            ("csrf".into(), csrf.clone()),
            ("kind".into(), "reminder".into()),
            ("language".into(), "en".into()),
            ("subject".into(), "Still time, {{name}}".into()),
            ("body".into(), body.into()),
            ("do".into(), action.into()),
        ];
        let owner = &owner;
        async move {
            owner
                .post_owned("/tenant/surveys/visit/mailings/template", &form)
                .await
        }
    };
    let refused = post("Answer, please.", "save").await;
    assert_eq!(refused.status(), 422);
    let refused = refused.text().await.expect("a page");
    assert!(refused.contains("must hold {{link}}"), "{refused}");
    assert!(
        refused.contains("Answer, please."),
        "what was typed is kept"
    );
    let previewed = post("Hello {{name}}: [answer]({{link}})", "preview").await;
    assert_eq!(previewed.status(), 200);
    let previewed = previewed.text().await.expect("a page");
    assert!(previewed.contains("Still time, *Ann*"), "{previewed}");
    assert!(
        previewed.contains("Hello *Ann*: <a href=\"http://localhost:8080/s/acme/visit/p/"),
        "the name escaped, not emphasis; the link made: {previewed}"
    );
    let saved = post("Hello {{name}}: [answer]({{link}})", "save").await;
    assert_eq!(saved.status(), 303);
    let page = owner.page("/tenant/surveys/visit/mailings").await;
    assert!(
        page.contains("Hello {{name}}: [answer]({{link}})"),
        "{page}"
    );
}

/// A letter for the lane tests.
fn test_letter(sender: &Sender, to: &str) -> lettre::Message {
    let filled = Filled {
        subject: "Hello".into(),
        text: "Answer: https://surveys.acme.test/s/acme/visit/p/x".into(),
        markdown: "Answer: <https://surveys.acme.test/s/acme/visit/p/x>".into(),
    };
    let to = Email::parse(to).expect("an address");
    let letter = letter(
        &to,
        &filled,
        "Acme",
        "https://surveys.acme.test/s/acme/visit/p/x/opt-out",
        format!("<{}@acme.test>", uuid::Uuid::new_v4().simple()),
    );
    sender.letter(&letter).expect("a message")
}

/// The end of a message waits for the record: the server has nothing until the record says
/// yes, and nothing at all when it says no or fails.
async fn the_end_waits_for_the_record(server: &Server, sender: &Sender) {
    let mailbox = server.mailbox();
    let mut lane = sender.lane();
    let held = test_letter(sender, "held@acme.test");
    let record = async {
        tokio::time::sleep(Duration::from_millis(300)).await;
        // All of it but its end is with the server by now, and it delivered nothing.
        assert!(mailbox.received("held@acme.test").is_empty());
        Ok::<bool, String>(true)
    };
    let sent = lane.send_once(&held, record).await.expect("reached");
    assert!(matches!(sent, Outcome::Sent), "{sent:?}");
    assert_eq!(mailbox.wait_for("held@acme.test", 1).await.len(), 1);

    let declined = test_letter(sender, "declined@acme.test");
    let outcome = lane
        .send_once(&declined, async { Ok::<bool, String>(false) })
        .await
        .expect("reached");
    assert!(matches!(outcome, Outcome::Declined), "{outcome:?}");
    let failed = test_letter(sender, "failed@acme.test");
    let outcome = lane
        .send_once(&failed, async { Err::<bool, String>("storage".into()) })
        .await
        .expect("reached");
    assert!(matches!(outcome, Outcome::NotRecorded(_)), "{outcome:?}");
    // The lane connects again and goes on.
    let after = test_letter(sender, "after@acme.test");
    let outcome = lane
        .send_once(&after, async { Ok::<bool, String>(true) })
        .await
        .expect("reached");
    assert!(matches!(outcome, Outcome::Sent), "{outcome:?}");
    assert_eq!(mailbox.wait_for("after@acme.test", 1).await.len(), 1);
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(mailbox.received("declined@acme.test").is_empty());
    assert!(mailbox.received("failed@acme.test").is_empty());
    // A recipient refused before the record: nothing recorded, refused for good.
    let refused = test_letter(sender, "refused-lee@acme.test");
    let outcome = lane
        .send_once(&refused, async { Ok::<bool, String>(true) })
        .await
        .expect("reached");
    assert!(
        matches!(
            outcome,
            Outcome::Refused {
                permanent: true,
                recorded: false,
                ..
            }
        ),
        "{outcome:?}"
    );
    lane.close().await;
}

#[tokio::test]
async fn the_end_of_a_message_waits_for_its_record_over_plain_smtp() {
    let server = Server::start("plain");
    let sender =
        Sender::new(&format!("smtp://{}", server.address), "surveys@acme.test").expect("a sender");
    the_end_waits_for_the_record(&server, &sender).await;
}

#[tokio::test]
async fn the_end_of_a_message_waits_for_its_record_over_starttls_with_auth() {
    let server = Server::start("starttls");
    let url = format!("smtp://canvass:secret@{}?tls=required", server.address);
    let sender = Sender::trusting(&url, "surveys@acme.test", Some(&server.ca())).expect("a sender");
    the_end_waits_for_the_record(&server, &sender).await;
}

#[tokio::test]
async fn without_a_template_of_their_own_participants_get_the_built_in_one_in_their_language() {
    let server = Server::start("plain");
    let mailbox = server.mailbox();
    let app = app_mailing_through(&server).await;
    let owner = Owner::signed_up(&app, "Acme", "acme", "owner@acme.test").await;
    let key = owner.api_key("mailings").await;
    app.published_survey(
        &key,
        json!({"title": "Visite", "access": "invitation", "languages": ["en", "fr", "ja"],
               "questions": [{"id": "stars", "text": "How was it?", "type": "five_stars"}]}),
    )
    .await;
    let (status, added) = app
        .api(
            Method::POST,
            "/api/v1/surveys/visite/participants",
            &key,
            Some(json!({"participants": [
                {"email": "zoe@acme.test", "first_name": "Zoé", "language": "fr"},
                {"email": "kei@acme.test", "first_name": "Kei", "language": "ja"},
                {"email": "ann@acme.test", "first_name": "Ann"}]})),
        )
        .await;
    assert_eq!(status, 201, "{added}");
    let done = mailing(&app, &key, "visite", "invitation", &server).await;
    assert_eq!(done["sent"], 3, "{done}");
    let letter = |email: &str| mailbox.letters(email).remove(0);
    for email in ["zoe@acme.test", "kei@acme.test", "ann@acme.test"] {
        assert_eq!(mailbox.wait_for(email, 1).await.len(), 1, "{email}");
    }
    let zoe = letter("zoe@acme.test");
    assert_eq!(zoe.subject, "Invitation : Visite");
    assert!(zoe.text.starts_with("Bonjour Zoé,"), "{}", zoe.text);
    assert!(zoe.text.contains("Répondre à l'enquête: "), "{}", zoe.text);
    assert!(!zoe.text.contains("**"), "{}", zoe.text);
    let kei = letter("kei@acme.test");
    assert_eq!(kei.subject, "ご招待：Visite");
    assert!(
        kei.html.contains("アンケートに回答する</a>"),
        "{}",
        kei.html
    );
    let ann = letter("ann@acme.test");
    assert_eq!(
        ann.subject, "You are invited: Visite",
        "the survey's default language"
    );
}

#[tokio::test]
async fn while_workers_are_paused_no_invitation_is_sent_and_once_released_it_is() {
    let server = Server::start("plain");
    let mailbox = server.mailbox();
    let app = app_mailing_through(&server).await;
    let key = app.api_tenant("acme").await;
    open_survey(&app, &key).await;
    let (status, added) = app
        .api(
            Method::POST,
            "/api/v1/surveys/visit/participants",
            &key,
            Some(json!({"participants": [{"email": "held@acme.test"}]})),
        )
        .await;
    assert_eq!(status, 201, "{added}");
    let (status, started) = start_mailing(&app, &key, "invitation").await;
    assert_eq!(status, 202, "{started}");
    let stores = app.stores().await;
    let settings = canvass::worker::WorkerSettings {
        mailer: mailer(&server),
        ..Default::default()
    };
    crate::pause::held_until_released(&stores, settings, "a mailing", async || {
        !mailbox.received("held@acme.test").is_empty()
    })
    .await;
    assert_eq!(mailbox.received("held@acme.test").len(), 1, "invited once");
}
