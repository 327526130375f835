//! How the mailer runs (the sender, the site's address for links, digests, retries): the
//! settings the mail loop (`mail`) and the daily digests (`digests`) both read.

use std::time::Duration;

use crate::mail::Sender;

/// How the mailer runs.
#[derive(Clone, Debug)]
pub struct MailerSettings {
    /// The SMTP sender; `None` when the operator set up no mail (messages then wait queued).
    pub sender: Option<Sender>,
    /// The site's address for links in notices (`CANVASS_PUBLIC_URL`); without it no notice
    /// or digest is made, since a link must never guess the address.
    pub site: Option<String>,
    /// Messages sent side by side.
    pub concurrency: usize,
    /// How often a daily digest is made (a day; tests shorten it).
    pub digest_period: time::Duration,
    /// How often the mailer looks for digests that are due.
    pub digest_check: Duration,
    /// How much of each retry wait to wait (1 in service; tests shorten it).
    pub retry_scale: f64,
}

impl MailerSettings {
    /// The address links in notices lead to, when notices can be sent at all (a sender and
    /// a configured address).
    pub fn links(&self) -> Option<&str> {
        self.site.as_deref().filter(|_| self.sender.is_some())
    }
}

impl Default for MailerSettings {
    fn default() -> Self {
        Self {
            sender: None,
            site: None,
            concurrency: 4,
            digest_period: time::Duration::days(1),
            digest_check: Duration::from_secs(15 * 60),
            retry_scale: 1.0,
        }
    }
}
