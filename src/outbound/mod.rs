//! The one home of the rules for requests the server makes to addresses tenants name (webhook
//! endpoints, identity providers, export databases): which addresses are internal (the IANA
//! special-purpose registries, `addresses`), which hosts the operator allows (`hosts`), which
//! URLs may be named (`endpoint`), and requests made by them (`pinned`): https to public
//! addresses only, unless the operator allows the host. The host's address is resolved once,
//! checked, and the connection made to that address alone, so a name cannot be made to point
//! elsewhere between the check and the connection; redirects are never followed. It sits at the
//! ground of the house: it imports nothing of the service.

mod addresses;
mod endpoint;
mod hosts;

pub use addresses::is_internal;
pub use endpoint::{MAX_URL, Target, UrlProblem, check_url, forbidden};
pub use hosts::AllowedHosts;

use std::time::Duration;

/// A client that reaches one checked URL's host at its checked address.
pub struct Pinned {
    /// The client, bound to the address.
    pub client: reqwest::Client,
    /// The checked URL.
    pub url: url::Url,
}

/// Checks `url` by the rules above, resolves its host and makes a client for it; or why not.
pub async fn pinned(
    url: &str,
    allowed: &AllowedHosts,
    timeout: Duration,
) -> Result<Pinned, String> {
    let target = check_url(url, |host| allowed.allows(host)).map_err(|e| e.to_string())?;
    let address = tokio::net::lookup_host((target.host.as_str(), target.port))
        .await
        .map_err(|error| format!("{} cannot be resolved: {error}", target.host))?
        .next()
        .ok_or_else(|| format!("{} has no address", target.host))?;
    if !target.allowed && forbidden(address.ip()) {
        return Err(format!(
            "{} resolves to {}, an internal address this server does not send to",
            target.host,
            address.ip()
        ));
    }
    let client = reqwest::Client::builder()
        .timeout(timeout)
        .redirect(reqwest::redirect::Policy::none())
        .resolve(&target.host, address)
        .build()
        .map_err(|error| error.to_string())?;
    Ok(Pinned {
        client,
        url: target.url,
    })
}
