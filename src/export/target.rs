//! Where a tenant's own export database may be. A tenant types a URL and Canvass connects to
//! it, so the URL is a way to make the server open connections: it may name only a host the
//! operator lists in `CANVASS_EXPORT_ALLOWED_HOSTS` (by default none, and then tenants cannot
//! set their own database at all), never a Unix socket, and must carry its own user and
//! password (so no password of the operator's, from a `.pgpass` file or the environment, is
//! ever used for it). Loopback and private addresses are reachable only when listed.

use url::{Host, Url};

use crate::outbound::AllowedHosts;

/// Why a tenant's database URL is refused, in words for the tenant.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TargetProblem {
    /// The operator allows no tenant databases.
    #[error(
        "this server's operator has not allowed tenants to set their own export database; \
         ask your administrator"
    )]
    Disabled,
    /// Not a PostgreSQL URL of the form Canvass takes.
    #[error("this is not a database URL like postgres://user:password@host:5432/database")]
    NotAUrl,
    /// The URL has no user name or no password.
    #[error("the URL must name its user and password, like postgres://user:password@host/db")]
    NoCredentials,
    /// A connection parameter Canvass does not pass on.
    #[error("the URL's parameter {0:?} is not accepted (only sslmode and application_name)")]
    Parameter(String),
    /// The host is not one the operator allows.
    #[error("{host} is not a host this server may connect to (allowed: {allowed})")]
    NotAllowed {
        /// The host named.
        host: String,
        /// The hosts allowed.
        allowed: String,
    },
}

/// Query parameters passed on to the database; any other could read local files or change
/// where the connection goes.
const PARAMETERS: [&str; 2] = ["sslmode", "application_name"];

/// Checks a tenant's database URL by the rule above against the operator's `hosts`; nothing
/// is resolved or connected.
pub fn check_target(hosts: &AllowedHosts, text: &str) -> Result<(), TargetProblem> {
    if !hosts.any() {
        return Err(TargetProblem::Disabled);
    }
    let url = Url::parse(text).map_err(|_| TargetProblem::NotAUrl)?;
    if !matches!(url.scheme(), "postgres" | "postgresql") {
        return Err(TargetProblem::NotAUrl);
    }
    if url.username().is_empty() || url.password().is_none_or(str::is_empty) {
        return Err(TargetProblem::NoCredentials);
    }
    if let Some((key, _)) = url
        .query_pairs()
        .find(|(key, _)| !PARAMETERS.contains(&key.as_ref()))
    {
        return Err(TargetProblem::Parameter(key.into_owned()));
    }
    let host = match url.host() {
        Some(Host::Domain(name)) if !name.contains(['%', '/']) => name.to_ascii_lowercase(),
        Some(Host::Ipv4(address)) => address.to_string(),
        Some(Host::Ipv6(address)) => address.to_string(),
        _ => return Err(TargetProblem::NotAUrl),
    };
    if hosts.allows(&host) {
        Ok(())
    } else {
        Err(TargetProblem::NotAllowed {
            host,
            allowed: hosts.to_string(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_listed_hosts_with_credentials_and_plain_parameters_pass() {
        let allowed = AllowedHosts::parse("db.example.com, 10.1.2.3 [::1]");
        for (url, ok) in [
            ("postgres://ada:pw@db.example.com:5432/x", true),
            ("postgresql://ada:pw@DB.Example.com/x?sslmode=require", true),
            ("postgres://ada:pw@10.1.2.3/x", true),
            ("postgres://ada:pw@[::1]:5432/x", true),
            ("postgres://ada:pw@[0:0:0:0:0:0:0:1]/x", true),
            ("postgres://ada:pw@127.0.0.1/x", false),
            ("postgres://ada:pw@localhost/x", false),
            ("postgres://ada:pw@169.254.169.254/x", false),
            ("postgres://ada:pw@db.example.com.evil.test/x", false),
            ("postgres://ada@db.example.com/x", false),
            ("postgres://:pw@db.example.com/x", false),
            (
                "postgres://ada:pw@db.example.com/x?host=/var/run/postgresql",
                false,
            ),
            (
                "postgres://ada:pw@db.example.com/x?hostaddr=127.0.0.1",
                false,
            ),
            (
                "postgres://ada:pw@db.example.com/x?sslrootcert=/etc/shadow",
                false,
            ),
            ("postgres://ada:pw@%2Fvar%2Frun%2Fpostgresql/x", false),
            ("postgres:///x", false),
            ("mysql://ada:pw@db.example.com/x", false),
            ("not a url", false),
        ] {
            assert_eq!(
                check_target(&allowed, url).is_ok(),
                ok,
                "case {url}: {:?}",
                check_target(&allowed, url)
            );
        }
    }

    #[test]
    fn by_default_no_tenant_database_is_allowed() {
        let none = AllowedHosts::parse("");
        assert!(!none.any());
        assert_eq!(
            check_target(&none, "postgres://ada:pw@db.example.com/x"),
            Err(TargetProblem::Disabled)
        );
    }

    #[test]
    fn a_refusal_names_the_host_and_what_is_allowed() {
        let allowed = AllowedHosts::parse("db.example.com");
        let problem =
            check_target(&allowed, "postgres://ada:pw@127.0.0.1:5432/x").expect_err("refused");
        assert_eq!(
            problem.to_string(),
            "127.0.0.1 is not a host this server may connect to (allowed: db.example.com)"
        );
    }
}
