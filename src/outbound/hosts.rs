//! The hosts an operator lets tenants' outbound requests reach (`CANVASS_EXPORT_ALLOWED_HOSTS`,
//! `CANVASS_WEBHOOK_ALLOWED_HOSTS`, `CANVASS_SSO_ALLOWED_HOSTS`): names or addresses, each
//! matched exactly (an address in any of its spellings).

use std::fmt;
use std::net::IpAddr;

/// Hosts the operator allows, whatever their address.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AllowedHosts(Vec<String>);

impl AllowedHosts {
    /// The operator's list: host names or IP addresses, separated by commas or spaces.
    pub fn parse(list: &str) -> Self {
        let hosts = list
            .split([',', ' '])
            .map(|host| host.trim().trim_start_matches('[').trim_end_matches(']'))
            .filter(|host| !host.is_empty())
            .map(str::to_ascii_lowercase)
            .collect();
        Self(hosts)
    }

    /// Whether the list names any host at all.
    pub fn any(&self) -> bool {
        !self.0.is_empty()
    }

    /// Whether the list names `host` (a name, or an address in any of its spellings).
    pub fn allows(&self, host: &str) -> bool {
        let address = host.parse::<IpAddr>().ok();
        self.0
            .iter()
            .any(|allowed| match (address, allowed.parse::<IpAddr>()) {
                (Some(address), Ok(listed)) => address == listed,
                _ => allowed == host,
            })
    }
}

impl fmt::Display for AllowedHosts {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_match_exactly_and_addresses_in_any_spelling() {
        let allowed = AllowedHosts::parse("db.example.com, 10.1.2.3 [::1]");
        assert!(allowed.any());
        for (host, ok) in [
            ("db.example.com", true),
            ("10.1.2.3", true),
            ("::1", true),
            ("0:0:0:0:0:0:0:1", true),
            ("example.com", false),
            ("db.example.com.evil.test", false),
            ("127.0.0.1", false),
        ] {
            assert_eq!(allowed.allows(host), ok, "case {host}");
        }
        assert!(!AllowedHosts::parse(" , ").any());
        assert_eq!(allowed.to_string(), "db.example.com, 10.1.2.3, ::1");
    }
}
