//! Webhooks, the pure part: endpoint secrets and signatures by the Standard Webhooks scheme
//! (<https://www.standardwebhooks.com>) and the retry schedule. Which URLs and addresses a
//! delivery may go to is the outbound module's rule, shared with exports and single sign-on.
//!
//! A delivery carries `webhook-id` (the same on every attempt, so a receiver can drop
//! repeats), `webhook-timestamp` (seconds since the epoch, of this attempt) and
//! `webhook-signature`: `v1,` and the base64 HMAC-SHA256 of `id.timestamp.body` under the
//! endpoint's secret (`whsec_` and 24 random bytes in base64).

use std::time::Duration;

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use hmac::{Hmac, Mac};
use sha2::Sha256;

/// How long a delivery is retried before it is given up, and an endpoint that fails every
/// delivery for this long is disabled.
pub const GIVE_UP_AFTER: Duration = Duration::from_secs(24 * 60 * 60);

/// The longest wait between two attempts.
const LONGEST_WAIT: Duration = Duration::from_secs(5 * 60 * 60);

/// An endpoint's signing secret, as shown to its owner once.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    /// A secret of 24 bytes from `random`.
    pub fn from_bytes(random: [u8; 24]) -> Self {
        Self(format!("whsec_{}", STANDARD.encode(random)))
    }

    /// A secret as stored; `None` if it is not one.
    pub fn parse(text: &str) -> Option<Self> {
        let key = text.strip_prefix("whsec_")?;
        STANDARD.decode(key).ok().filter(|k| !k.is_empty())?;
        Some(Self(text.to_owned()))
    }

    /// The text shown to the owner (and stored).
    pub fn as_str(&self) -> &str {
        &self.0
    }

    fn key(&self) -> Vec<u8> {
        // Checked when made or parsed.
        STANDARD
            .decode(self.0.trim_start_matches("whsec_"))
            .unwrap_or_default()
    }

    /// The `webhook-signature` of a delivery.
    pub fn sign(&self, id: &str, timestamp: i64, body: &[u8]) -> String {
        let mut mac =
            Hmac::<Sha256>::new_from_slice(&self.key()).expect("HMAC takes keys of any length");
        mac.update(id.as_bytes());
        mac.update(b".");
        mac.update(timestamp.to_string().as_bytes());
        mac.update(b".");
        mac.update(body);
        format!("v1,{}", STANDARD.encode(mac.finalize().into_bytes()))
    }
}

/// How long to wait after failed attempt `attempt` (from 1): 5 s, then four times longer each
/// time, at most 5 hours (so about 14 attempts fit in the 24 hours).
pub fn retry_delay(attempt: u32) -> Duration {
    let factor = 4u64.saturating_pow(attempt.saturating_sub(1).min(20));
    Duration::from_secs(5u64.saturating_mul(factor)).min(LONGEST_WAIT)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signatures_follow_the_standard_webhooks_example() {
        // The example in the Standard Webhooks specification.
        let secret = Secret::parse("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw").expect("a secret");
        assert_eq!(
            secret.sign(
                "msg_p5jXN8AQM9LWM0D4loKWxJek",
                1614265330,
                br#"{"test": 2432232314}"#
            ),
            "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
        );
        assert!(Secret::parse("MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw").is_none());
        assert!(Secret::parse("whsec_!!").is_none());
        let made = Secret::from_bytes([7; 24]);
        assert_eq!(Secret::parse(made.as_str()), Some(made));
    }

    #[test]
    fn retries_wait_longer_each_time_up_to_five_hours() {
        let waits: Vec<u64> = (1..=8).map(|n| retry_delay(n).as_secs()).collect();
        assert_eq!(waits, [5, 20, 80, 320, 1280, 5120, 18000, 18000]);
        assert_eq!(retry_delay(u32::MAX), LONGEST_WAIT);
    }
}
