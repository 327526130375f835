//! Email, against the real SMTP server `scripts/test` starts: invitations and password resets
//! arrive and work, new responses are announced to members who asked (each, or a daily
//! digest), and a message the server cannot take is retried later.

use std::time::Duration;

use canvass::mail::Sender;
use canvass::stores::Stores;
use canvass::worker::mail::step;
use canvass::worker::mailer::MailerSettings;
use canvass::worker::{Worker, WorkerSettings};
use serde_json::json;

use crate::helpers::{TestApp, spawn_app_configured, test_settings};
use crate::mailbox::{Mailbox, link_in};
use crate::owner::Owner;

/// A fresh address, so tests sharing the one mailbox never read each other's mail.
fn address(who: &str) -> String {
    format!(
        "{who}-{}@acme.test",
        &uuid::Uuid::new_v4().simple().to_string()[..8]
    )
}

/// The site's address as the operator configures it (`CANVASS_PUBLIC_URL`): links in email
/// carry it, whatever address a request came to.
const SITE: &str = "https://surveys.acme.test";

/// An app whose site emails through the test server (workers are stepped by the test), with
/// the site's address configured, or not.
async fn app_with_mail_at(mailbox: &Mailbox, site: Option<&str>) -> TestApp {
    let mut settings = test_settings();
    settings.worker.smtp_url = Some(mailbox.smtp_url());
    settings.public_url = site.map(str::to_owned);
    settings.worker.links_url = site.map(str::to_owned);
    spawn_app_configured(canvass::storage::memory::storage(), settings).await
}

async fn app_with_mail(mailbox: &Mailbox) -> TestApp {
    app_with_mail_at(mailbox, Some(SITE)).await
}

/// The path of a link to the configured site, to follow it on the test's own address.
fn path_of(link: &str) -> &str {
    link.strip_prefix(SITE)
        .expect("a link to the configured site")
}

fn mailer(mailbox: &Mailbox, site: &str) -> MailerSettings {
    MailerSettings {
        sender: Some(
            Sender::new(&mailbox.smtp_url(), "Canvass <canvass@acme.test>").expect("a sender"),
        ),
        site: Some(site.to_owned()),
        retry_scale: 0.0,
        ..MailerSettings::default()
    }
}

/// Sends everything queued; fails if the queue does not empty (a server that refuses every
/// message would otherwise be retried for ever here, its waits scaled to nothing).
async fn send_all(stores: &Stores, settings: &MailerSettings) {
    let sender = settings.sender.clone().expect("a sender");
    for _ in 0..100 {
        if step(&stores.panel, &sender, settings)
            .await
            .expect("a mail step")
            == 0
        {
            return;
        }
    }
    panic!("the mail queue did not empty: is the test SMTP server running?");
}

#[tokio::test]
async fn an_invitation_and_a_forgotten_password_arrive_by_email_and_work() {
    let mailbox = Mailbox::from_env();
    let app = app_with_mail(&mailbox).await;
    let stores = app.stores().await;
    let settings = mailer(&mailbox, SITE);
    let (owner_address, editor_address) = (address("owner"), address("editor"));
    let owner = Owner::signed_up(&app, "Acme", "acme", &owner_address).await;
    let csrf = owner.csrf("/tenant/members").await;
    let invited = owner
        .post(
            "/tenant/members/invite",
            &[
                ("csrf", &csrf),
                ("email", &editor_address),
                ("role", "editor"),
            ],
        )
        .await
        .text()
        .await
        .expect("a page");
    assert!(invited.contains("We emailed"), "{invited}");
    send_all(&stores, &settings).await;
    let mail = mailbox.wait_for(&editor_address, 1).await;
    assert_eq!(mail[0].subject, "Join Acme on Canvass");
    assert!(
        mail[0]
            .body
            .contains(&format!("{owner_address} invited you to Acme"))
    );
    let link = link_in(&mail[0].body, SITE);
    let editor = Owner::joined(&app.address, path_of(&link)).await;
    assert_eq!(editor.get("/tenant/surveys/new").await.status(), 200);

    // "Forgot your password?" answers the same for every address, and mails only members.
    let nobody = address("nobody");
    let mut pages = Vec::new();
    for email in [&editor_address, &nobody] {
        let stranger = Owner::at(&app.address);
        let csrf = stranger.csrf("/tenant/forgot-password").await;
        let answer = stranger
            .post(
                "/tenant/forgot-password",
                &[("csrf", &csrf), ("email", email)],
            )
            .await;
        assert_eq!(answer.status(), 200);
        let page = answer
            .text()
            .await
            .expect("a page")
            .replace(email.as_str(), "ADDRESS");
        let page: String = page
            .lines()
            .filter(|line| !line.contains("name=\"csrf\""))
            .collect();
        pages.push(page);
    }
    assert_eq!(
        pages[0], pages[1],
        "the answer does not tell whether an address has an account"
    );
    send_all(&stores, &settings).await;
    let mail = mailbox.wait_for(&editor_address, 2).await;
    let reset = mail
        .iter()
        .find(|m| m.subject == "Set a new Canvass password")
        .expect("a reset message");
    assert!(mailbox.received(&nobody).is_empty());
    let link = link_in(&reset.body, SITE);
    let path = path_of(&link);
    let resetting = Owner::at(&app.address);
    let csrf = resetting.csrf(path).await;
    let done = resetting
        .post(
            path,
            &[("csrf", &csrf), ("password", "a new password for me")],
        )
        .await;
    assert_eq!(done.status(), 303);
    assert_eq!(resetting.get("/tenant").await.status(), 200);
    let old_session = editor.get("/tenant").await;
    assert_eq!(old_session.headers()["location"], "/tenant/sign-in");
    assert_eq!(Owner::at(&app.address).get(path).await.status(), 410);
}

#[tokio::test]
async fn a_reset_link_in_email_never_follows_the_host_a_request_names() {
    let mailbox = Mailbox::from_env();
    let app = app_with_mail(&mailbox).await;
    let stores = app.stores().await;
    let owner_address = address("owner");
    Owner::signed_up(&app, "Acme", "acme", &owner_address).await;
    let forger = Owner::sending(
        &app.address,
        &[
            ("host", "attacker.example"),
            ("x-forwarded-host", "attacker.example"),
            ("x-forwarded-proto", "https://evil.example/?"),
            ("forwarded", "host=attacker.example;proto=https"),
        ],
    );
    let csrf = forger.csrf("/tenant/forgot-password").await;
    let sent = forger
        .post(
            "/tenant/forgot-password",
            &[("csrf", &csrf), ("email", &owner_address)],
        )
        .await;
    assert_eq!(sent.status(), 200);
    send_all(&stores, &mailer(&mailbox, SITE)).await;
    let mail = mailbox.wait_for(&owner_address, 1).await;
    assert!(
        mail[0]
            .body
            .contains(&format!("{SITE}/tenant/reset-password/")),
        "{}",
        mail[0].body
    );
    assert!(!mail[0].body.contains("attacker"), "{}", mail[0].body);
    assert!(!mail[0].body.contains("evil"), "{}", mail[0].body);
}

#[tokio::test]
async fn without_the_site_address_no_email_carrying_a_link_is_sent() {
    let mailbox = Mailbox::from_env();
    let app = app_with_mail_at(&mailbox, None).await;
    let stores = app.stores().await;
    let owner_address = address("owner");
    let owner = Owner::signed_up(&app, "Acme", "acme", &owner_address).await;
    let stranger = Owner::at(&app.address);
    let page = stranger.page("/tenant/forgot-password").await;
    assert!(page.contains("does not send email"), "{page}");
    assert!(
        !page.contains(r#"name="email""#),
        "no form to ask for a link: {page}"
    );
    // An invitation is shown to the owner to pass on, not emailed.
    let csrf = owner.csrf("/tenant/members").await;
    let invited = owner
        .post(
            "/tenant/members/invite",
            &[
                ("csrf", &csrf),
                ("email", &address("editor")),
                ("role", "editor"),
            ],
        )
        .await
        .text()
        .await
        .expect("a page");
    assert!(invited.contains("shown only this once"), "{invited}");
    assert_eq!(
        stores.panel.mail.queue().waiting().await.expect("a count"),
        0,
        "nothing was queued to be emailed"
    );
}

#[tokio::test]
async fn new_responses_are_emailed_to_members_who_asked_on_each_or_daily() {
    let mailbox = Mailbox::from_env();
    let app = app_with_mail(&mailbox).await;
    let stores = app.stores().await;
    let settings = mailer(&mailbox, "https://surveys.example.com");
    let (owner_address, viewer_address, quiet_address) =
        (address("owner"), address("viewer"), address("quiet"));
    let owner = Owner::signed_up(&app, "Acme", "acme", &owner_address).await;
    let viewer_link = owner.invite(&viewer_address, "viewer").await;
    let viewer = Owner::joined(&app.address, &viewer_link).await;
    let quiet_link = owner.invite(&quiet_address, "viewer").await;
    let _quiet = Owner::joined(&app.address, &quiet_link).await;
    owner.notify("each").await;
    viewer.notify("daily").await;
    assert!(
        owner
            .page("/tenant/account")
            .await
            .contains(r#"value="each" checked"#)
    );
    let key = owner.api_key("setup").await;
    let survey = app
        .published_survey(
            &key,
            json!({"title": "Team day", "questions": [{"text": "Name?", "type": "short_text"}]}),
        )
        .await;
    let (slug, question) = (
        survey["slug"].as_str().expect("a slug").to_owned(),
        crate::helpers::ids(&survey)[0].clone(),
    );
    let digest = MailerSettings {
        digest_period: time::Duration::ZERO,
        ..settings.clone()
    };
    // The first digest pass only takes the counts.
    canvass::worker::digests::send_due(&stores, &digest)
        .await
        .expect("digests");
    for name in ["Ada", "Bo"] {
        let answered = app.answer("acme", &slug, &[(&question, name)]).await;
        assert_eq!(answered.status(), 303);
    }
    let mut worker = Worker::new(
        stores.clone(),
        WorkerSettings {
            mailer: settings.clone(),
            ..WorkerSettings::default()
        },
    );
    while let canvass::worker::StepOutcome::BatchDone { .. } = worker.step().await.expect("a step")
    {
    }
    send_all(&stores, &settings).await;
    let each = mailbox.wait_for(&owner_address, 1).await;
    let announced: u64 = each
        .iter()
        .map(|m| match m.subject.as_str() {
            "A new response to Team day" => 1,
            "2 new responses to Team day" => 2,
            other => panic!("unexpected {other}"),
        })
        .sum();
    assert_eq!(announced, 2);
    assert!(each[0].body.contains(&format!(
        "https://surveys.example.com/tenant/surveys/{slug}/responses"
    )));
    // The viewers got their invitations only: the digest waits for its day.
    let about_responses = |to: &str| {
        mailbox
            .received(to)
            .into_iter()
            .filter(|m| m.subject.contains("Team day"))
            .collect::<Vec<_>>()
    };
    assert!(about_responses(&viewer_address).is_empty());

    let queued = canvass::worker::digests::send_due(&stores, &digest)
        .await
        .expect("digests");
    assert_eq!(
        queued, 1,
        "one digest: one daily member, one survey with news"
    );
    send_all(&stores, &settings).await;
    mailbox.wait_for(&viewer_address, 2).await;
    let daily = about_responses(&viewer_address);
    assert_eq!(daily.len(), 1);
    assert_eq!(
        daily[0].subject,
        "Daily digest: 2 new responses to Team day"
    );
    // Nothing new since: no digest.
    assert_eq!(
        canvass::worker::digests::send_due(&stores, &digest)
            .await
            .expect("digests"),
        0
    );
    // A day has not passed in service settings: nothing is due.
    assert_eq!(
        canvass::worker::digests::send_due(&stores, &settings)
            .await
            .expect("digests"),
        0
    );
    assert!(about_responses(&quiet_address).is_empty());
}

#[tokio::test]
async fn a_message_the_server_cannot_take_is_retried_later_and_then_sent() {
    let mailbox = Mailbox::from_env();
    let app = app_with_mail(&mailbox).await;
    let stores = app.stores().await;
    // A local port nobody listens on: the first attempt cannot connect.
    let closed = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a port");
        listener.local_addr().expect("an address").port()
    };
    let down = MailerSettings {
        sender: Some(
            Sender::new(&format!("smtp://127.0.0.1:{closed}"), "canvass@acme.test")
                .expect("a sender"),
        ),
        retry_scale: 0.0,
        ..MailerSettings::default()
    };
    let to = address("patient");
    let mail = canvass::mail::reset_message(
        &canvass::domain::account::Email::parse(&to).expect("an address"),
        "https://surveys.example.com/tenant/reset-password/x",
    );
    stores.panel.mail.send(&mail).await.expect("queued");
    let sender = down.sender.clone().expect("a sender");
    assert_eq!(
        step(&stores.panel, &sender, &down).await.expect("a step"),
        1
    );
    // Still queued, with the failed attempt counted (its wait scaled to nothing here).
    let (message, content) = stores
        .panel
        .mail
        .queue()
        .receive::<canvass::stores::mail::MailMessage>(Duration::from_millis(10))
        .await
        .expect("a receive")
        .expect("the message is back");
    assert_eq!(content.expect("readable").attempts, 1);
    drop(message);
    tokio::time::sleep(Duration::from_millis(20)).await;
    send_all(&stores, &mailer(&mailbox, &app.address)).await;
    let received = mailbox.wait_for(&to, 1).await;
    assert_eq!(received[0].subject, "Set a new Canvass password");
    assert_eq!(
        stores.panel.mail.queue().waiting().await.expect("a count"),
        0
    );
}

#[tokio::test]
async fn a_respondent_gets_their_resume_link_by_email_in_their_language() {
    let mailbox = Mailbox::from_env();
    let app = app_with_mail(&mailbox).await;
    let stores = app.stores().await;
    let key = app.api_tenant("acme").await;
    app.published_survey(
        &key,
        json!({"title": {"en": "Long one", "de": "Lang"}, "languages": ["en", "de"],
               "save_and_resume": true,
               "pages": [{"questions": [{"id": "a", "text": "A?", "type": "short_text"}]},
                         {"questions": [{"id": "b", "text": "B?", "type": "short_text"}]}]}),
    )
    .await;
    let form = app
        .get("/s/acme/long-one?lang=de")
        .await
        .text()
        .await
        .expect("a body");
    let saved = app
        .client
        .post(format!("{}/s/acme/long-one?lang=de", app.address))
        .form(&[
            ("token", crate::helpers::token_in(&form).as_str()),
            ("page", "0"),
            ("nav", "save"),
            ("q-a", "Anfang"),
        ])
        .send()
        .await
        .expect("answered");
    assert_eq!(saved.status(), 303);
    let saved = saved.headers()["location"]
        .to_str()
        .expect("ascii")
        .to_owned();
    let page = app.get(&saved).await.text().await.expect("a body");
    assert!(page.contains("Link per E-Mail senden"), "{page}");
    let action = format!("{}/email?lang=de", saved.split('?').next().expect("a path"));

    // A wrong address is refused beside the field, and nothing is sent.
    let refused = app
        .client
        .post(format!("{}{action}", app.address))
        .form(&[("email", "not an address")])
        .send()
        .await
        .expect("answered");
    assert_eq!(refused.status(), 422);
    assert!(
        refused
            .text()
            .await
            .expect("a body")
            .contains("Bitte geben Sie eine E-Mail-Adresse ein")
    );

    let to = address("respondent");
    let sent = app
        .client
        .post(format!("{}{action}", app.address))
        .form(&[("email", to.as_str())])
        .send()
        .await
        .expect("answered");
    assert_eq!(sent.status(), 303);
    let confirmed = app
        .get(sent.headers()["location"].to_str().expect("ascii"))
        .await
        .text()
        .await
        .expect("a body");
    assert!(
        confirmed.contains("Der Link ist an die angegebene Adresse unterwegs."),
        "{confirmed}"
    );
    send_all(&stores, &mailer(&mailbox, SITE)).await;
    let mail = mailbox.wait_for(&to, 1).await;
    assert_eq!(mail[0].subject, "„Lang“ fortsetzen");
    assert!(
        mail[0].body.contains("Der Link funktioniert bis zum "),
        "{}",
        mail[0].body
    );
    let link = link_in(&mail[0].body, SITE);
    let resumed = app.get(path_of(&link)).await;
    assert_eq!(resumed.status(), 200);
    assert!(
        resumed
            .text()
            .await
            .expect("a body")
            .contains(r#"value="Anfang""#)
    );
}

#[tokio::test]
async fn resume_links_are_emailed_to_an_address_a_few_times_and_from_a_client_or_survey_a_bounded_number()
 {
    let mailbox = Mailbox::from_env();
    let mut settings = test_settings();
    settings.worker.smtp_url = Some(mailbox.smtp_url());
    settings.public_url = Some(SITE.to_owned());
    settings.worker.links_url = Some(SITE.to_owned());
    // Behind the operator's proxy, so each test client is told apart by its forwarded address.
    settings.trusted_proxies =
        canvass::config::TrustedProxies(vec!["127.0.0.1/32".parse().expect("a range")]);
    let app = spawn_app_configured(canvass::storage::memory::storage(), settings).await;
    let key = app.api_tenant("acme").await;
    app.published_survey(
        &key,
        json!({"title": "Long one", "save_and_resume": true,
               "pages": [{"questions": [{"id": "a", "text": "A?", "type": "short_text"}]},
                         {"questions": [{"id": "b", "text": "B?", "type": "short_text"}]}]}),
    )
    .await;
    let form = app.form("acme", "long-one").await;
    let saved = app
        .client
        .post(format!("{}/s/acme/long-one", app.address))
        .form(&[
            ("token", crate::helpers::token_in(&form).as_str()),
            ("page", "0"),
            ("nav", "save"),
        ])
        .send()
        .await
        .expect("answered");
    assert_eq!(saved.status(), 303);
    let saved = saved.headers()["location"].to_str().expect("ascii");
    let action = format!(
        "{}{}/email",
        app.address,
        saved.split('?').next().expect("a path")
    );
    let email = |client: String, to: String| {
        app.client
            .post(&action)
            .header("x-forwarded-for", client)
            .form(&[("email", to)])
            .send()
    };
    let status = |response: reqwest::Result<reqwest::Response>| {
        response.expect("answered").status().as_u16()
    };

    // One client: a few strangers, then it waits.
    for n in 0..5 {
        let sent = email("203.0.113.1".into(), format!("stranger{n}@example.com")).await;
        assert_eq!(status(sent), 303, "mail {n}");
    }
    let refused = email("203.0.113.1".into(), "stranger5@example.com".into()).await;
    assert_eq!(status(refused), 429, "the sixth from one client");
    // One address: a few, whoever asks.
    for n in 0..3 {
        let sent = email(format!("198.51.100.{n}"), "victim@example.com".into()).await;
        assert_eq!(status(sent), 303, "to the victim {n}");
    }
    let refused = email("198.51.100.9".into(), "Victim@Example.com".into()).await;
    assert_eq!(
        status(refused),
        429,
        "the fourth to one address, however written"
    );
    // One survey: a bounded number in all, however many clients and addresses ask.
    let mut sent = 8;
    'clients: for client in 0..100u32 {
        for n in 0..5 {
            let to = format!("person{client}-{n}@example.com");
            let status = status(email(format!("10.0.{}.{}", client / 250, client % 250), to).await);
            if status == 429 {
                break 'clients;
            }
            assert_eq!(status, 303);
            sent += 1;
        }
    }
    assert_eq!(
        sent,
        canvass::web::limits::RESUME_MAILS_PER_SURVEY.0,
        "the survey's mails"
    );
}
