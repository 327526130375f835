//! The real SMTP server `scripts/test` starts (aiosmtpd), as tests see it: its address, and
//! the messages it received, read from its maildir. Without it the email tests fail loudly.

use std::path::PathBuf;
use std::time::{Duration, Instant};

/// One received message.
#[derive(Debug, Clone)]
pub struct Received {
    /// The subject line.
    pub subject: String,
    /// The body, decoded.
    pub body: String,
}

/// The test SMTP server.
pub struct Mailbox {
    address: String,
    dir: PathBuf,
}

impl Mailbox {
    /// The server `scripts/test` started.
    pub fn from_env() -> Self {
        let address = std::env::var("CANVASS_TEST_SMTP").expect(
            "CANVASS_TEST_SMTP names the test SMTP server: run the tests with scripts/test",
        );
        let dir = std::env::var("CANVASS_TEST_MAILDIR")
            .expect("CANVASS_TEST_MAILDIR names the test SMTP server's maildir: run scripts/test");
        Self {
            address,
            dir: PathBuf::from(dir),
        }
    }

    /// A server of a test's own at `address`, keeping what it receives in `dir`.
    pub fn at(address: &str, dir: PathBuf) -> Self {
        Self {
            address: address.to_owned(),
            dir,
        }
    }

    /// The `CANVASS_SMTP_URL` that reaches it.
    pub fn smtp_url(&self) -> String {
        format!("smtp://{}", self.address)
    }

    /// Every message received so far for `to`.
    pub fn received(&self, to: &str) -> Vec<Received> {
        let mut found = Vec::new();
        for folder in ["new", "cur"] {
            let Ok(entries) = std::fs::read_dir(self.dir.join(folder)) else {
                continue;
            };
            for entry in entries.flatten() {
                let text = std::fs::read_to_string(entry.path()).unwrap_or_default();
                if let Some(message) = parse(&text).filter(|(rcpt, _)| rcpt == to) {
                    found.push(message.1);
                }
            }
        }
        found
    }

    /// Waits (up to 20 s) until `to` has received `count` messages; returns them.
    pub async fn wait_for(&self, to: &str, count: usize) -> Vec<Received> {
        let start = Instant::now();
        loop {
            let received = self.received(to);
            if received.len() >= count {
                return received;
            }
            assert!(
                start.elapsed() < Duration::from_secs(20),
                "{to} received {} messages, not {count}: {received:?}",
                received.len()
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}

/// The recipient (aiosmtpd's `X-RcptTo`) and the message of a stored mail.
fn parse(text: &str) -> Option<(String, Received)> {
    let (head, body) = text
        .split_once("\n\n")
        .or_else(|| text.split_once("\r\n\r\n"))?;
    // Folded header lines continue with whitespace.
    let unfolded = head
        .replace("\r\n", "\n")
        .replace("\n ", " ")
        .replace("\n\t", " ");
    let header = |name: &str| {
        unfolded.lines().find_map(|line| {
            let (key, value) = line.split_once(':')?;
            key.eq_ignore_ascii_case(name)
                .then(|| value.trim().to_owned())
        })
    };
    let quoted = header("Content-Transfer-Encoding")
        .is_some_and(|encoding| encoding.eq_ignore_ascii_case("quoted-printable"));
    let body = body.replace("\r\n", "\n");
    let body = if quoted { unquote(&body) } else { body };
    Some((
        header("X-RcptTo")?,
        Received {
            subject: decode_words(&header("Subject")?),
            body,
        },
    ))
}

/// A header with its RFC 2047 encoded words (`=?utf-8?b?...?=`, as mail with non-ASCII
/// subjects carries them) decoded; words of other encodings stay as they are.
fn decode_words(header: &str) -> String {
    use base64::Engine;
    header
        .split_whitespace()
        .map(|word| {
            let inner = word.strip_prefix("=?").and_then(|w| w.strip_suffix("?="));
            let Some(inner) = inner else {
                return word.to_owned();
            };
            match inner.splitn(3, '?').collect::<Vec<_>>().as_slice() {
                [charset, "b" | "B", text] if charset.eq_ignore_ascii_case("utf-8") => {
                    base64::engine::general_purpose::STANDARD
                        .decode(text)
                        .ok()
                        .and_then(|bytes| String::from_utf8(bytes).ok())
                        .unwrap_or_else(|| word.to_owned())
                }
                [charset, "q" | "Q", text] if charset.eq_ignore_ascii_case("utf-8") => {
                    unquote(&text.replace('_', " "))
                }
                _ => word.to_owned(),
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// Decodes quoted-printable: soft line breaks and `=XX` bytes.
fn unquote(text: &str) -> String {
    let joined = text.replace("=\n", "");
    let bytes = joined.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'='
            && i + 2 < bytes.len()
            && let Ok(byte) = u8::from_str_radix(&joined[i + 1..i + 3], 16)
        {
            out.push(byte);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The first address on `page` that starts with `start`.
pub fn link_in(body: &str, start: &str) -> String {
    let at = body
        .find(start)
        .unwrap_or_else(|| panic!("no {start} in {body}"));
    body[at..]
        .split_whitespace()
        .next()
        .expect("a link")
        .to_owned()
}

/// A mailing's letter as a mail client reads it: its parts decoded, its headers kept.
#[derive(Debug, Clone)]
pub struct Letter {
    pub subject: String,
    pub text: String,
    pub html: String,
    pub list_unsubscribe: String,
    pub list_unsubscribe_post: String,
    pub message_id: String,
}

impl Mailbox {
    /// Every letter received for `to`, parsed by a mail library.
    pub fn letters(&self, to: &str) -> Vec<Letter> {
        let mut found = Vec::new();
        for folder in ["new", "cur"] {
            let Ok(entries) = std::fs::read_dir(self.dir.join(folder)) else {
                continue;
            };
            for entry in entries.flatten() {
                let bytes = std::fs::read(entry.path()).unwrap_or_default();
                let Ok(mail) = mailparse::parse_mail(&bytes) else {
                    continue;
                };
                use mailparse::MailHeaderMap;
                let header = |name: &str| mail.headers.get_first_value(name).unwrap_or_default();
                if header("X-RcptTo") != to {
                    continue;
                }
                let part = |kind: &str| {
                    mail.subparts
                        .iter()
                        .find(|part| part.ctype.mimetype == kind)
                        .and_then(|part| part.get_body().ok())
                        .unwrap_or_default()
                };
                found.push(Letter {
                    subject: header("Subject"),
                    text: part("text/plain"),
                    html: part("text/html"),
                    list_unsubscribe: header("List-Unsubscribe"),
                    list_unsubscribe_post: header("List-Unsubscribe-Post"),
                    message_id: header("Message-ID"),
                });
            }
        }
        found
    }

    /// How many messages each recipient received.
    pub fn counts(&self) -> std::collections::BTreeMap<String, usize> {
        let mut counts = std::collections::BTreeMap::new();
        for folder in ["new", "cur"] {
            let Ok(entries) = std::fs::read_dir(self.dir.join(folder)) else {
                continue;
            };
            for entry in entries.flatten() {
                let text = std::fs::read_to_string(entry.path()).unwrap_or_default();
                if let Some((to, _)) = parse(&text) {
                    *counts.entry(to).or_default() += 1;
                }
            }
        }
        counts
    }
}
