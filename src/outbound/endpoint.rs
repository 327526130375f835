//! The rule for a URL a tenant names for the server to call (a webhook endpoint, an identity
//! provider): an absolute https URL without credentials, and no internal address, unless the
//! operator allows its host; nothing is resolved here (a name's addresses are checked at each
//! request, by `forbidden`, in `pinned`).

use std::net::IpAddr;

/// Longest URL a tenant may name.
pub const MAX_URL: usize = 2_000;

/// Whether an address is one no delivery may reach unless the operator allows its host:
/// loopback, private, link-local (cloud metadata services among them), shared (carrier-grade
/// NAT), unspecified, multicast, broadcast and documentation ranges, and IPv6's unique-local
/// and link-local ones (an IPv4 address inside IPv6 is judged as IPv4).
pub fn forbidden(address: IpAddr) -> bool {
    super::is_internal(address)
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
mod tests {
    use super::*;

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
