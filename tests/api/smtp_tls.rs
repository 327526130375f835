//! Email over STARTTLS and implicit TLS with AUTH, against a real TLS-enabled SMTP server of
//! the test's own (aiosmtpd, `tests/smtp/server.py`, with a certificate made by `openssl` for
//! 127.0.0.1), and the mailer's answer to refusals: a 4xx is tried again later, a 5xx never.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use canvass::domain::account::Email;
use canvass::mail::{Mail, Sender};
use canvass::stores::mail::MailMessage;
use canvass::worker::mail::step;
use canvass::worker::mailer::MailerSettings;

use crate::helpers::spawn_app;
use crate::mailbox::Mailbox;

/// A running server, stopped when dropped.
pub(crate) struct Server {
    child: Child,
    pub(crate) address: String,
    dir: tempfile::TempDir,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Server {
    /// Starts `tests/smtp/server.py` in `mode` (`plain`, `starttls`, `tls`) with a new
    /// self-signed certificate for 127.0.0.1.
    pub(crate) fn start(mode: &str) -> Self {
        let dir = tempfile::tempdir().expect("a temp dir");
        // A certificate authority of the test's own, and the server's certificate from it.
        let path = |name: &str| dir.path().join(name);
        let openssl = |args: &[&str]| {
            let made = Command::new("openssl")
                .args(args)
                .current_dir(dir.path())
                .output()
                .expect("openssl runs (it makes the test server's certificate)");
            assert!(
                made.status.success(),
                "{}",
                String::from_utf8_lossy(&made.stderr)
            );
        };
        openssl(&[
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-days",
            "2",
            "-subj",
            "/CN=Canvass test CA",
            "-keyout",
            "ca-key.pem",
            "-out",
            "ca.pem",
        ]);
        openssl(&[
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-days",
            "2",
            "-subj",
            "/CN=127.0.0.1",
            "-CA",
            "ca.pem",
            "-CAkey",
            "ca-key.pem",
            "-addext",
            "subjectAltName=IP:127.0.0.1",
            "-addext",
            "basicConstraints=critical,CA:FALSE",
            "-keyout",
            "key.pem",
            "-out",
            "cert.pem",
        ]);
        let (cert, key) = (path("cert.pem"), path("key.pem"));
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/smtp/server.py");
        let mut child = Command::new("/usr/bin/python3")
            .args(["-W", "ignore"])
            .arg(script)
            .arg(dir.path().join("mail"))
            .arg(mode)
            .arg(&cert)
            .arg(&key)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("python3 with aiosmtpd runs (scripts/test installs it)");
        let stdout = child.stdout.take().expect("stdout");
        let line = BufReader::new(stdout)
            .lines()
            .next()
            .expect("the server says where it listens")
            .expect("a line");
        let address = line
            .strip_prefix("listening on ")
            .unwrap_or_else(|| panic!("the server said {line:?}"))
            .to_owned();
        Self {
            child,
            address,
            dir,
        }
    }

    pub(crate) fn mailbox(&self) -> Mailbox {
        Mailbox::at(&self.address, self.dir.path().join("mail"))
    }

    pub(crate) fn ca(&self) -> Vec<u8> {
        std::fs::read(self.dir.path().join("ca.pem")).expect("the certificate authority")
    }
}

fn mail(to: &str) -> Mail {
    canvass::mail::reset_message(
        &Email::parse(to).expect("an address"),
        "https://surveys.acme.test/tenant/reset-password/x",
    )
}

async fn sent(sender: &Sender, to: &str) -> Result<(), canvass::mail::MailError> {
    sender.send(&mail(to)).await
}

#[tokio::test]
async fn mail_goes_over_starttls_with_auth_and_is_refused_without_trust_or_tls() {
    let server = Server::start("starttls");
    let url = |credentials: &str| format!("smtp://{credentials}@{}?tls=required", server.address);
    let from = "Canvass <canvass@acme.test>";
    let sender =
        Sender::trusting(&url("canvass:secret"), from, Some(&server.ca())).expect("a sender");
    sent(&sender, "kim@acme.test")
        .await
        .expect("sent over STARTTLS");
    let received = server.mailbox().wait_for("kim@acme.test", 1).await;
    assert_eq!(received[0].subject, "Set a new Canvass password");

    // The server's certificate is not one the system trusts: without the CA, no connection.
    let untrusting = Sender::new(&url("canvass:secret"), from).expect("a sender");
    let refused = sent(&untrusting, "lee@acme.test")
        .await
        .expect_err("not trusted");
    assert!(refused.to_string().contains("certificate"), "{refused}");
    // Plain text to a server that requires STARTTLS sends nothing.
    let plain =
        Sender::new(&format!("smtp://canvass:secret@{}", server.address), from).expect("a sender");
    assert!(sent(&plain, "lee@acme.test").await.is_err());
    // A wrong password is refused by the server, and mail waits for the operator to fix it.
    let wrong =
        Sender::trusting(&url("canvass:wrong"), from, Some(&server.ca())).expect("a sender");
    let refused = tokio::time::timeout(Duration::from_secs(30), sent(&wrong, "lee@acme.test"))
        .await
        .expect("an answer within 30 s")
        .expect_err("a wrong password");
    assert!(refused.to_string().contains("535"), "{refused}");
    assert!(!refused.is_permanent(), "{refused}");
    assert!(server.mailbox().received("lee@acme.test").is_empty());
}

#[tokio::test]
async fn mail_goes_over_implicit_tls_with_auth() {
    let server = Server::start("tls");
    let url = format!("smtps://canvass:secret@{}", server.address);
    let sender = Sender::trusting(&url, "canvass@acme.test", Some(&server.ca())).expect("a sender");
    sent(&sender, "ada@acme.test").await.expect("sent over TLS");
    assert_eq!(server.mailbox().wait_for("ada@acme.test", 1).await.len(), 1);
}

#[tokio::test]
async fn a_4xx_reply_is_tried_again_later_and_a_5xx_never() {
    let server = Server::start("plain");
    let app = spawn_app().await;
    let stores = app.stores().await;
    let settings = MailerSettings {
        sender: Some(
            Sender::new(&format!("smtp://{}", server.address), "canvass@acme.test")
                .expect("a sender"),
        ),
        site: Some("https://surveys.acme.test".into()),
        retry_scale: 0.0,
        ..MailerSettings::default()
    };
    for to in [
        "busy-kim@acme.test",
        "refused-lee@acme.test",
        "ada@acme.test",
    ] {
        stores.panel.mail.send(&mail(to)).await.expect("queued");
    }
    let sender = settings.sender.clone().expect("a sender");
    assert_eq!(
        step(&stores.panel, &sender, &settings)
            .await
            .expect("a step"),
        3
    );
    tokio::time::sleep(Duration::from_millis(20)).await;
    // Only the busy one is left, with its attempt counted; the refused one is not retried.
    let left = stores
        .panel
        .mail
        .queue()
        .receive_many::<MailMessage>(8, Duration::from_millis(10))
        .await
        .expect("a receive");
    let left: Vec<(String, u32)> = left
        .into_iter()
        .map(|(_, content)| {
            let message = content.expect("readable");
            (message.mail.to.as_str().to_owned(), message.attempts)
        })
        .collect();
    assert_eq!(left, [("busy-kim@acme.test".to_owned(), 1)]);
    assert_eq!(server.mailbox().wait_for("ada@acme.test", 1).await.len(), 1);
}
