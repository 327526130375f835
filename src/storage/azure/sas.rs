//! Signs every request with an account SAS token, appended to its URL by a pipeline policy.
//!
//! The official SDK authenticates only with Entra ID tokens over https; it has no shared-key
//! signing, which Azurite and most self-hosted set-ups use. An account SAS is the smallest
//! thing the SDK accepts that a key can produce: an HMAC-SHA256 over a short string. Tokens are
//! made for an hour and renewed well before they run out, so a long-running process never holds
//! a stale one.

use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use async_trait::async_trait;
use azure_core::http::policies::{Policy, PolicyResult};
use azure_core::http::{Context, Request};
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use hmac::{Hmac, Mac};
use sha2::Sha256;
use time::OffsetDateTime;
use time::macros::format_description;

use super::connection::Credential;

/// The SAS version signed; the string-to-sign below is the one this version defines.
const SAS_VERSION: &str = "2022-11-02";
/// How long a minted token lasts.
const LIFETIME: Duration = Duration::from_secs(60 * 60);
/// Mint a new token when the current one has less than this left.
const RENEW_BEFORE: Duration = Duration::from_secs(15 * 60);

/// An account SAS: blob and queue services, every resource type, the permissions the ports use.
pub fn account_sas(account: &str, key: &[u8], expiry: OffsetDateTime) -> String {
    let expiry = expiry
        .format(format_description!(
            "[year]-[month]-[day]T[hour]:[minute]:[second]Z"
        ))
        .unwrap_or_default();
    let (permissions, services, resource_types, protocols) =
        ("rwdlacup", "bq", "sco", "https,http");
    let string_to_sign = format!(
        "{account}\n{permissions}\n{services}\n{resource_types}\n\n{expiry}\n\n{protocols}\n{SAS_VERSION}\n\n"
    );
    let signature = match Hmac::<Sha256>::new_from_slice(key) {
        Ok(mut mac) => {
            mac.update(string_to_sign.as_bytes());
            STANDARD.encode(mac.finalize().into_bytes())
        }
        // HMAC takes keys of any length; this arm cannot run.
        Err(_) => String::new(),
    };
    // Encoding string pairs cannot fail.
    serde_urlencoded::to_string([
        ("sv", SAS_VERSION),
        ("ss", services),
        ("srt", resource_types),
        ("sp", permissions),
        ("se", &expiry),
        ("spr", protocols),
        ("sig", &signature),
    ])
    .unwrap_or_default()
}

#[derive(Debug)]
struct Minted {
    token: String,
    renew_at: SystemTime,
}

/// A per-call policy that appends the SAS to every request's query string.
#[derive(Debug)]
pub struct SasPolicy {
    credential: Credential,
    minted: Mutex<Option<Minted>>,
}

impl SasPolicy {
    /// A policy signing with this credential.
    pub fn new(credential: Credential) -> Arc<Self> {
        Arc::new(Self {
            credential,
            minted: Mutex::new(None),
        })
    }

    fn token(&self) -> String {
        match &self.credential {
            Credential::SharedAccessSignature(token) => token.clone(),
            Credential::AccountKey { account, key } => {
                let now = SystemTime::now();
                // Minting is a few microseconds of work under the lock; a poisoned lock only
                // means another thread panicked while minting, and the slot is still valid.
                let mut minted = self.minted.lock().unwrap_or_else(|p| p.into_inner());
                match minted.as_ref() {
                    Some(current) if current.renew_at > now => current.token.clone(),
                    _ => {
                        let expiry = OffsetDateTime::from(now + LIFETIME);
                        let token = account_sas(account, key, expiry);
                        *minted = Some(Minted {
                            token: token.clone(),
                            renew_at: now + LIFETIME - RENEW_BEFORE,
                        });
                        token
                    }
                }
            }
        }
    }
}

#[async_trait]
impl Policy for SasPolicy {
    async fn send(
        &self,
        ctx: &Context,
        request: &mut Request,
        next: &[Arc<dyn Policy>],
    ) -> PolicyResult {
        let token = self.token();
        let url = request.url_mut();
        let query = match url.query() {
            Some(existing) if !existing.is_empty() => format!("{existing}&{token}"),
            _ => token,
        };
        url.set_query(Some(&query));
        next[0].send(ctx, request, &next[1..]).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_signature_is_an_hmac_over_the_documented_string() {
        let expiry = OffsetDateTime::from_unix_timestamp(1_800_000_000).expect("a time");
        let token = account_sas("devstoreaccount1", b"key", expiry);

        let expected_string = "devstoreaccount1\nrwdlacup\nbq\nsco\n\n2027-01-15T08:00:00Z\n\nhttps,http\n2022-11-02\n\n";
        let mut mac = Hmac::<Sha256>::new_from_slice(b"key").expect("a key");
        mac.update(expected_string.as_bytes());
        let signature = STANDARD.encode(mac.finalize().into_bytes());
        let pairs: Vec<(String, String)> =
            azure_core::http::Url::parse(&format!("http://x/?{token}"))
                .expect("a url")
                .query_pairs()
                .into_owned()
                .collect();
        assert!(pairs.contains(&("sig".into(), signature)));
        assert!(pairs.contains(&("se".into(), "2027-01-15T08:00:00Z".into())));
        assert!(pairs.contains(&("sv".into(), SAS_VERSION.into())));
    }

    #[test]
    fn a_minted_token_is_reused_until_it_nears_expiry() {
        let policy = SasPolicy::new(Credential::AccountKey {
            account: "a".into(),
            key: b"k".to_vec(),
        });
        let first = policy.token();
        assert_eq!(policy.token(), first);
        if let Some(minted) = policy.minted.lock().expect("not poisoned").as_mut() {
            minted.renew_at = SystemTime::UNIX_EPOCH;
        }
        // A new token is minted; within the same second it may sign identically, so compare
        // the renewal time rather than the text.
        policy.token();
        let renew_at = policy
            .minted
            .lock()
            .expect("not poisoned")
            .as_ref()
            .map(|m| m.renew_at);
        assert!(renew_at.is_some_and(|at| at > SystemTime::now()));
    }
}
