//! Webhooks, the pure part: endpoint secrets and signatures by the Standard Webhooks scheme
//! (<https://www.standardwebhooks.com>), the retry schedule, and which addresses a delivery
//! may never go to.
//!
//! A delivery carries `webhook-id` (the same on every attempt, so a receiver can drop
//! repeats), `webhook-timestamp` (seconds since the epoch, of this attempt) and
//! `webhook-signature`: `v1,` and the base64 HMAC-SHA256 of `id.timestamp.body` under the
//! endpoint's secret (`whsec_` and 24 random bytes in base64).

use std::net::IpAddr;
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

/// Most characters of an endpoint's URL.
pub const MAX_URL: usize = 2_000;

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

/// Whether an address is one no delivery may reach unless the operator allows its host:
/// loopback, private, link-local (cloud metadata services among them), shared (carrier-grade
/// NAT), unspecified, multicast, broadcast and documentation ranges, and IPv6's unique-local
/// and link-local ones (an IPv4 address inside IPv6 is judged as IPv4).
pub fn forbidden(address: IpAddr) -> bool {
    crate::address_policy::is_internal(address)
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

    #[test]
    fn internal_addresses_are_forbidden_and_public_ones_are_not() {
        for (address, refused) in [
            ("127.0.0.1", true),
            ("10.1.2.3", true),
            ("172.16.0.1", true),
            ("192.168.1.1", true),
            ("169.254.169.254", true),
            ("100.64.0.1", true),
            ("0.0.0.0", true),
            ("224.0.0.1", true),
            ("255.255.255.255", true),
            ("::1", true),
            ("::", true),
            ("fc00::1", true),
            ("fd12:3456::1", true),
            ("fe80::1", true),
            ("::ffff:127.0.0.1", true),
            ("::ffff:10.0.0.1", true),
            ("93.184.216.34", false),
            ("8.8.8.8", false),
            ("2606:4700:4700::1111", false),
            ("::ffff:8.8.8.8", false),
        ] {
            let parsed: IpAddr = address.parse().expect("an address");
            assert_eq!(forbidden(parsed), refused, "case {address}");
        }
    }
}

/// An endpoint URL that passed `check_url`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Target {
    /// The URL.
    pub url: url::Url,
    /// Its host, lowercased (an IPv6 address without brackets).
    pub host: String,
    /// Its port.
    pub port: u16,
    /// Whether the operator allows the host (plain http and any address).
    pub allowed: bool,
}

/// Why an endpoint URL is refused, in words for its owner.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum UrlProblem {
    /// Longer than `MAX_URL`.
    #[error("the URL is longer than {MAX_URL} characters")]
    TooLong,
    /// Not an absolute http(s) URL with a host.
    #[error("this is not a URL like https://example.com/hooks/canvass")]
    NotAUrl,
    /// Plain http to a host the operator does not allow.
    #[error("use https (plain http only reaches hosts this server's operator allows)")]
    PlainHttp,
    /// A user name or password in the URL.
    #[error("the URL must not carry a user name or password")]
    Credentials,
    /// An internal address the operator does not allow.
    #[error("{0} is an internal address this server does not send to")]
    Internal(String),
}

/// Checks an endpoint URL by the rules above; nothing is resolved or connected (a name's
/// addresses are checked at each delivery, by `forbidden`).
pub fn check_url(text: &str, allowed: impl Fn(&str) -> bool) -> Result<Target, UrlProblem> {
    if text.chars().count() > MAX_URL {
        return Err(UrlProblem::TooLong);
    }
    let url = url::Url::parse(text.trim()).map_err(|_| UrlProblem::NotAUrl)?;
    if !url.username().is_empty() || url.password().is_some() {
        return Err(UrlProblem::Credentials);
    }
    let (host, literal) = match url.host() {
        Some(url::Host::Domain(name)) => (name.to_ascii_lowercase(), None),
        Some(url::Host::Ipv4(address)) => (address.to_string(), Some(IpAddr::V4(address))),
        Some(url::Host::Ipv6(address)) => (address.to_string(), Some(IpAddr::V6(address))),
        None => return Err(UrlProblem::NotAUrl),
    };
    let allowed = allowed(&host);
    match url.scheme() {
        "https" => {}
        "http" if allowed => {}
        "http" => return Err(UrlProblem::PlainHttp),
        _ => return Err(UrlProblem::NotAUrl),
    }
    if let Some(address) = literal.filter(|a| forbidden(*a) && !allowed) {
        return Err(UrlProblem::Internal(address.to_string()));
    }
    let port = url.port_or_known_default().ok_or(UrlProblem::NotAUrl)?;
    Ok(Target {
        url,
        host,
        port,
        allowed,
    })
}

#[cfg(test)]
mod url_tests {
    use super::*;

    #[test]
    fn endpoints_need_https_a_host_and_no_internal_address_unless_allowed() {
        let allowed = |host: &str| host == "127.0.0.1" || host == "hooks.internal";
        for (url, ok) in [
            ("https://example.com/hooks", true),
            ("https://EXAMPLE.com:8443/hooks?x=1", true),
            ("http://example.com/hooks", false),
            ("http://127.0.0.1:9000/hook", true),
            ("http://hooks.internal/hook", true),
            ("https://10.0.0.5/hook", false),
            ("https://169.254.169.254/latest/meta-data", false),
            ("https://[::1]/hook", false),
            ("https://user:pw@example.com/hook", false),
            ("ftp://example.com/hook", false),
            ("not a url", false),
            ("", false),
            ("https://", false),
        ] {
            assert_eq!(check_url(url, allowed).is_ok(), ok, "case {url}");
        }
        let target = check_url("https://Example.com/h", allowed).expect("valid");
        assert_eq!(
            (target.host.as_str(), target.port, target.allowed),
            ("example.com", 443, false)
        );
        assert_eq!(
            check_url("https://10.0.0.5/hook", allowed),
            Err(UrlProblem::Internal("10.0.0.5".into()))
        );
        let long = format!("https://example.com/{}", "a".repeat(MAX_URL));
        assert_eq!(check_url(&long, allowed), Err(UrlProblem::TooLong));
    }
}
