//! Which address a request comes from, for logs and throttling. `X-Forwarded-For` is believed
//! only from proxies the operator lists (`CANVASS_TRUSTED_PROXIES`): the address is the
//! nearest one, reading the header from the right, that is not such a proxy. Anyone else's
//! header is ignored, so a client cannot pick the address it is logged or throttled under.

use std::net::IpAddr;

use actix_web::HttpRequest;
use actix_web::dev::ServiceRequest;
use ipnet::IpNet;

use super::AppState;

/// The client's address given the connection's peer, its `X-Forwarded-For` header values
/// (in order) and the trusted proxies.
pub fn client_address<'a>(
    peer: IpAddr,
    forwarded_for: impl DoubleEndedIterator<Item = &'a str>,
    trusted: &[IpNet],
) -> IpAddr {
    let is_trusted = |address: &IpAddr| trusted.iter().any(|net| net.contains(address));
    if !is_trusted(&peer) {
        return peer;
    }
    let mut client = peer;
    // Each proxy appends the address it received from: read from the nearest hop outwards.
    for hop in forwarded_for.rev().flat_map(|value| value.rsplit(',')) {
        match hop.trim().parse::<IpAddr>() {
            Ok(address) => {
                client = address;
                if !is_trusted(&address) {
                    break;
                }
            }
            // A hop that is not an address cannot be vouched for: stop at the last good one.
            Err(_) => break,
        }
    }
    client
}

/// The scheme the client used: what a trusted proxy says (`Forwarded: proto=`,
/// `X-Forwarded-Proto`), else this connection's own. A client's own scheme headers are
/// ignored, as its `X-Forwarded-For` is, so it cannot have a cookie marked `Secure` (or a link
/// made) on its word.
pub fn scheme(request: &HttpRequest, trusted: &[IpNet]) -> &'static str {
    let own = match request.app_config().secure() {
        true => "https",
        false => "http",
    };
    let from_proxy = request
        .peer_addr()
        .is_some_and(|peer| trusted.iter().any(|net| net.contains(&peer.ip())));
    match (from_proxy, request.connection_info().scheme()) {
        (true, "https") => "https",
        (true, "http") => "http",
        _ => own,
    }
}

/// Parses the operator's list: addresses or CIDR ranges, separated by commas or spaces.
pub fn parse_trusted(list: &str) -> Result<Vec<IpNet>, String> {
    list.split([',', ' '])
        .map(str::trim)
        .filter(|item| !item.is_empty())
        .map(|item| {
            item.parse::<IpNet>()
                .or_else(|_| item.parse::<IpAddr>().map(IpNet::from))
                .map_err(|_| format!("{item:?} is not an IP address or CIDR range"))
        })
        .collect()
}

fn of(
    peer: Option<std::net::SocketAddr>,
    headers: &actix_web::http::header::HeaderMap,
    trusted: &[IpNet],
) -> String {
    let Some(peer) = peer else {
        return String::new();
    };
    let forwarded = headers
        .get_all("x-forwarded-for")
        .filter_map(|value| value.to_str().ok());
    // `get_all` does not run backwards; the few values a request has are collected first.
    let forwarded: Vec<&str> = forwarded.collect();
    client_address(peer.ip(), forwarded.into_iter(), trusted).to_string()
}

/// The client address of a request, by the operator's rule.
pub fn of_request(request: &HttpRequest, state: &AppState) -> String {
    of(
        request.peer_addr(),
        request.headers(),
        &state.settings.trusted_proxies,
    )
}

/// The client address of a request entering the middleware, by the operator's rule.
pub fn of_service_request(request: &ServiceRequest) -> String {
    let trusted = request
        .app_data::<actix_web::web::Data<AppState>>()
        .map(|state| state.settings.trusted_proxies.clone())
        .unwrap_or_default();
    of(request.peer_addr(), request.headers(), &trusted)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(text: &str) -> IpAddr {
        text.parse().expect("an address")
    }

    #[test]
    fn the_header_counts_only_when_the_peer_is_a_trusted_proxy() {
        let trusted = parse_trusted("10.0.0.0/8, 192.168.1.1").expect("a list");
        for (peer, header, expected) in [
            ("203.0.113.9", vec!["1.2.3.4"], "203.0.113.9"),
            ("10.0.0.5", vec!["1.2.3.4"], "1.2.3.4"),
            ("10.0.0.5", vec!["6.6.6.6, 1.2.3.4"], "1.2.3.4"),
            ("10.0.0.5", vec!["6.6.6.6, 1.2.3.4, 10.0.0.7"], "1.2.3.4"),
            (
                "10.0.0.5",
                vec!["6.6.6.6", "1.2.3.4, 192.168.1.1"],
                "1.2.3.4",
            ),
            ("10.0.0.5", vec![], "10.0.0.5"),
            ("10.0.0.5", vec!["garbage, 1.2.3.4"], "1.2.3.4"),
            ("10.0.0.5", vec!["1.2.3.4, garbage"], "10.0.0.5"),
            ("10.0.0.5", vec!["10.0.0.6, 10.0.0.7"], "10.0.0.6"),
            ("10.0.0.5", vec!["2001:db8::1"], "2001:db8::1"),
        ] {
            assert_eq!(
                client_address(ip(peer), header.iter().copied(), &trusted),
                ip(expected),
                "case {peer} {header:?}"
            );
        }
    }

    #[test]
    fn nobody_is_trusted_by_default_and_bad_entries_are_refused() {
        assert!(parse_trusted("").expect("empty").is_empty());
        assert_eq!(
            client_address(ip("127.0.0.1"), ["1.2.3.4"].into_iter(), &[]),
            ip("127.0.0.1")
        );
        assert!(parse_trusted("10.0.0.0/33").is_err());
        assert!(parse_trusted("proxy.internal").is_err());
        assert_eq!(parse_trusted("::1 127.0.0.1").expect("a list").len(), 2);
    }
}
