//! Which addresses outbound calls (webhooks, tenants' export databases, identity providers)
//! never reach unless the operator allows the host: every block of the IANA IPv4 and IPv6
//! Special-Purpose Address Registries that is not globally reachable, multicast, and the IPv6
//! forms that carry an IPv4 address inside them (mapped, compatible, 6to4, Teredo, NAT64),
//! judged by the address they carry or refused whole.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::sync::LazyLock;

use ipnet::{IpNet, Ipv6Net};

/// The IPv4 blocks refused: the registry's entries that are not globally reachable, and
/// multicast.
const IPV4: [&str; 16] = [
    "0.0.0.0/8",          // "this network"
    "10.0.0.0/8",         // private use
    "100.64.0.0/10",      // shared address space (carrier-grade NAT)
    "127.0.0.0/8",        // loopback
    "169.254.0.0/16",     // link local (cloud metadata services live here)
    "172.16.0.0/12",      // private use
    "192.0.0.0/24",       // IETF protocol assignments
    "192.0.2.0/24",       // documentation (TEST-NET-1)
    "192.88.99.0/24",     // 6to4 relay anycast (deprecated)
    "192.168.0.0/16",     // private use
    "198.18.0.0/15",      // benchmarking
    "198.51.100.0/24",    // documentation (TEST-NET-2)
    "203.0.113.0/24",     // documentation (TEST-NET-3)
    "224.0.0.0/4",        // multicast
    "240.0.0.0/4",        // reserved
    "255.255.255.255/32", // limited broadcast
];

/// The IPv6 blocks refused whole: the registry's entries that are not globally reachable,
/// multicast, and the deprecated forms.
const IPV6: [&str; 13] = [
    "::/96",          // unspecified, loopback and the deprecated IPv4-compatible form
    "64:ff9b:1::/48", // local-use IPv4/IPv6 translation
    "100::/64",       // discard-only
    "100:0:0:1::/64", // dummy prefix
    "2001::/23",      // IETF protocol assignments, Teredo (2001::/32) included
    "2001:db8::/32",  // documentation
    "2002::/16",      // 6to4: the IPv4 address it carries is reached by a relay
    "3fff::/20",      // documentation
    "5f00::/16",      // segment routing (SRv6) SIDs
    "fc00::/7",       // unique local
    "fe80::/10",      // link local
    "fec0::/10",      // site local (deprecated)
    "ff00::/8",       // multicast
];

/// IPv4/IPv6 translation (NAT64): an address here is judged by the IPv4 address it carries,
/// as an IPv4-mapped one (`::ffff:0:0/96`) is.
const NAT64: &str = "64:ff9b::/96";

/// The tables, parsed once (each entry is checked by a test).
static BLOCKS: LazyLock<(Vec<IpNet>, Ipv6Net)> = LazyLock::new(|| {
    let blocks = IPV4
        .iter()
        .chain(&IPV6)
        .filter_map(|block| block.parse().ok())
        .collect();
    (blocks, NAT64.parse().unwrap_or_default())
});

/// Whether an outbound call must not reach `address` unless its host is allowed.
pub fn is_internal(address: IpAddr) -> bool {
    match address {
        IpAddr::V4(v4) => v4_internal(v4),
        IpAddr::V6(v6) => {
            // Forms that stand for an IPv4 address are judged by it.
            if let Some(v4) = v6.to_ipv4_mapped().or_else(|| translated(v6)) {
                return v4_internal(v4);
            }
            listed(IpAddr::V6(v6))
        }
    }
}

fn v4_internal(v4: Ipv4Addr) -> bool {
    listed(IpAddr::V4(v4))
}

fn listed(address: IpAddr) -> bool {
    BLOCKS.0.iter().any(|block| block.contains(&address))
}

/// The IPv4 address a NAT64 address stands for.
fn translated(v6: Ipv6Addr) -> Option<Ipv4Addr> {
    BLOCKS.1.contains(&v6).then(|| {
        let [.., a, b, c, d] = v6.octets();
        Ipv4Addr::new(a, b, c, d)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_block_in_the_tables_is_well_formed() {
        for block in IPV4.iter().chain(&IPV6).chain([&NAT64]) {
            assert!(block.parse::<IpNet>().is_ok(), "{block}");
        }
        assert_eq!(
            BLOCKS.0.len(),
            IPV4.len() + IPV6.len(),
            "every block parsed"
        );
    }

    #[test]
    fn each_special_purpose_block_is_refused_at_its_edges_and_public_neighbours_are_not() {
        for block in IPV4.iter().chain(&IPV6) {
            let parsed: IpNet = block.parse().expect("a block");
            for address in [parsed.network(), parsed.broadcast()] {
                assert!(is_internal(address), "{address} in {block}");
            }
        }
        for public in [
            "8.8.8.8",
            "93.184.216.34",
            "198.17.255.255",
            "198.20.0.0",
            "192.31.196.1",
            "2606:4700:4700::1111",
            "2001:4860:4860::8888",
            "2003::1",
            "2620:4f:8000::1",
        ] {
            let address: IpAddr = public.parse().expect("an address");
            assert!(!is_internal(address), "{public} is public");
        }
    }

    #[test]
    fn ipv6_forms_of_internal_ipv4_addresses_are_refused() {
        for hidden in [
            "::ffff:127.0.0.1",
            "::ffff:10.0.0.1",
            "::127.0.0.1",
            "::7f00:1",
            "2002:7f00:1::",
            "2002:a00:1::1",
            "2001:0:4136:e378:8000:63bf:80ff:fffe",
            "64:ff9b::127.0.0.1",
            "64:ff9b::a9fe:a9fe",
        ] {
            let address: IpAddr = hidden.parse().expect("an address");
            assert!(is_internal(address), "{hidden}");
        }
        for public in ["::ffff:8.8.8.8", "64:ff9b::8.8.8.8"] {
            let address: IpAddr = public.parse().expect("an address");
            assert!(
                !is_internal(address),
                "{public} stands for a public address"
            );
        }
    }
}
