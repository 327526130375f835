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
    /// Most messages a mailing sends a second (`CANVASS_MAILING_RATE`); `None`: as fast as
    /// the server takes them.
    pub mailing_rate: Option<u32>,
    /// Connections a mailing sends over side by side.
    pub mailing_lanes: usize,
    /// How long a mailing's message stays hidden while a worker sends it (renewed after
    /// each page; a killed worker's mailing goes on after it).
    pub mailing_visibility: Duration,
    /// How long a mailing waits before another pass to those the server could not take.
    pub pass_wait: Duration,
}

/// Messages a mailing sends a second, by default.
pub const DEFAULT_MAILING_RATE: u32 = 20;

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
            mailing_rate: Some(DEFAULT_MAILING_RATE),
            mailing_lanes: 4,
            mailing_visibility: Duration::from_secs(60),
            pass_wait: Duration::from_secs(10 * 60),
        }
    }
}
