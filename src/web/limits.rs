//! Limits on what an anonymous client may make the site store or send: saving answers to
//! continue later (and emailing its link, also bounded per address and per survey, so no
//! stranger is flooded), and uploading files. Counted per client address (by the
//! operator's proxy rule) in each process with governor's token buckets; several processes
//! behind a balancer each allow this much. Limits that must hold across processes (sign-ins,
//! quotas) are counted in storage instead.

use std::num::NonZeroU32;
use std::time::Duration;

use governor::clock::{Clock, DefaultClock};
use governor::{DefaultKeyedRateLimiter, Quota};

/// Saves of progress (or emails of its link) a client may make at once, and how fast that
/// allowance comes back.
pub const SAVES: (u32, Duration) = (20, Duration::from_secs(10 * 60));
/// Emails of resume links a client may have sent at once, and how fast that allowance comes
/// back (on top of its saves).
pub const RESUME_MAILS: (u32, Duration) = (5, Duration::from_secs(60 * 60));
/// Emails of resume links one address may be sent, whoever asks, and how fast that allowance
/// comes back: a stranger's address gets a few, not a flood.
pub const RESUME_MAILS_PER_ADDRESS: (u32, Duration) = (3, Duration::from_secs(60 * 60));
/// Emails of resume links one survey may send, and how fast that allowance comes back.
pub const RESUME_MAILS_PER_SURVEY: (u32, Duration) = (300, Duration::from_secs(60 * 60));
/// Files a client may upload at once, and how fast that allowance comes back.
pub const UPLOADS: (u32, Duration) = (30, Duration::from_secs(10 * 60));
/// Mebibytes of files a client may upload at once, and how fast that allowance comes back.
pub const UPLOAD_MIB: (u32, Duration) = (200, Duration::from_secs(60 * 60));

/// Clients remembered before those back to a full allowance are forgotten.
const REMEMBERED: usize = 100_000;

/// One allowance per client: `burst` at once, coming back in full over `period`.
#[derive(Debug)]
pub struct ClientLimit {
    limiter: DefaultKeyedRateLimiter<String>,
    burst: u32,
}

impl ClientLimit {
    /// `burst` at once, one more every `period / burst`.
    pub fn new((burst, period): (u32, Duration)) -> Self {
        let burst = burst.max(1);
        let each = period / burst;
        let quota = Quota::with_period(each.max(Duration::from_millis(1)))
            .unwrap_or_else(|| Quota::per_second(NonZeroU32::MIN))
            .allow_burst(NonZeroU32::new(burst).unwrap_or(NonZeroU32::MIN));
        Self {
            limiter: DefaultKeyedRateLimiter::keyed(quota),
            burst,
        }
    }

    /// Takes `n` from `client`'s allowance, or says how long until it has them (`None`: more
    /// than it ever has at once).
    pub fn take(&self, client: &str, n: u32) -> Result<(), Option<Duration>> {
        if self.limiter.len() > REMEMBERED {
            self.limiter.retain_recent();
        }
        let Some(n) = NonZeroU32::new(n) else {
            return Ok(());
        };
        if n.get() > self.burst {
            return Err(None);
        }
        match self.limiter.check_key_n(&client.to_owned(), n) {
            Ok(Ok(())) => Ok(()),
            Ok(Err(not_until)) => Err(Some(
                not_until.wait_time_from(DefaultClock::default().now()),
            )),
            Err(_) => Err(None),
        }
    }
}

/// Every limit on anonymous clients.
#[derive(Debug)]
pub struct ClientLimits {
    /// Saves of progress and emails of resume links.
    pub saves: ClientLimit,
    /// Emails of resume links, by client.
    pub resume_mails: ClientLimit,
    /// Emails of resume links, by address (lowercase).
    pub resume_mails_per_address: ClientLimit,
    /// Emails of resume links, by survey.
    pub resume_mails_per_survey: ClientLimit,
    /// Files uploaded.
    pub uploads: ClientLimit,
    /// Mebibytes uploaded (a started mebibyte counts whole).
    pub upload_mib: ClientLimit,
}

impl Default for ClientLimits {
    fn default() -> Self {
        Self {
            saves: ClientLimit::new(SAVES),
            resume_mails: ClientLimit::new(RESUME_MAILS),
            resume_mails_per_address: ClientLimit::new(RESUME_MAILS_PER_ADDRESS),
            resume_mails_per_survey: ClientLimit::new(RESUME_MAILS_PER_SURVEY),
            uploads: ClientLimit::new(UPLOADS),
            upload_mib: ClientLimit::new(UPLOAD_MIB),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_client_gets_its_allowance_then_waits_and_others_are_not_held() {
        let limit = ClientLimit::new((3, Duration::from_secs(60)));
        for _ in 0..3 {
            assert_eq!(limit.take("10.0.0.1", 1), Ok(()));
        }
        let wait = limit.take("10.0.0.1", 1).expect_err("over the allowance");
        assert!(
            wait.is_some_and(|wait| wait <= Duration::from_secs(20)),
            "{wait:?}"
        );
        assert_eq!(
            limit.take("10.0.0.2", 2),
            Ok(()),
            "another client has its own"
        );
        assert_eq!(
            limit.take("10.0.0.2", 4),
            Err(None),
            "more than ever at once"
        );
        assert_eq!(limit.take("10.0.0.3", 0), Ok(()));
    }
}
