//! Parses a standard Azure Storage connection string into endpoints and a credential.
//!
//! The official SDK crates take only URLs (no connection strings, no shared keys), so this
//! small parser is ours. It accepts the forms the Azure portal and Azurite hand out: an account
//! name and key with a protocol and endpoint suffix, explicit `BlobEndpoint`/`QueueEndpoint`,
//! a `SharedAccessSignature` instead of a key, and `UseDevelopmentStorage=true`.

use std::fmt;

use base64::Engine;
use base64::engine::general_purpose::STANDARD;

/// The account name and key Azurite always accepts (published in Microsoft's docs).
const DEVELOPMENT_ACCOUNT: &str = "devstoreaccount1";
const DEVELOPMENT_KEY: &str =
    "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==";

/// A connection string that cannot be used, and why.
#[derive(Debug, thiserror::Error)]
#[error("CANVASS_AZURE_CONNECTION_STRING: {0}")]
pub struct ConnectionStringError(String);

/// How requests prove they may touch the account.
#[derive(Clone, PartialEq, Eq)]
pub enum Credential {
    /// The account key: Canvass signs short-lived account SAS tokens with it.
    AccountKey {
        /// The storage account's name.
        account: String,
        /// The decoded key.
        key: Vec<u8>,
    },
    /// A SAS token given by the operator, used as is.
    SharedAccessSignature(String),
}

impl fmt::Debug for Credential {
    // Never print a key or a token: this ends up in logs.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::AccountKey { account, .. } => write!(f, "AccountKey({account}, ***)"),
            Self::SharedAccessSignature(_) => f.write_str("SharedAccessSignature(***)"),
        }
    }
}

/// Where the account's services are and how to sign for them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConnectionString {
    /// The blob service's base URL, e.g. `http://127.0.0.1:10000/devstoreaccount1`.
    pub blob_endpoint: String,
    /// The queue service's base URL.
    pub queue_endpoint: String,
    /// The credential.
    pub credential: Credential,
}

impl ConnectionString {
    /// Parses `Key=Value;Key=Value` pairs.
    pub fn parse(text: &str) -> Result<Self, ConnectionStringError> {
        let mut pairs = Vec::new();
        for part in text
            .split(';')
            .map(str::trim)
            .filter(|part| !part.is_empty())
        {
            let (key, value) = part.split_once('=').ok_or_else(|| {
                ConnectionStringError(format!("{part:?} is not a Key=Value pair"))
            })?;
            pairs.push((key.trim().to_ascii_lowercase(), value.trim().to_owned()));
        }
        let get = |name: &str| {
            pairs
                .iter()
                .find(|(key, _)| key == name)
                .map(|(_, value)| value.clone())
        };

        if get("usedevelopmentstorage").is_some_and(|value| value.eq_ignore_ascii_case("true")) {
            return Ok(Self {
                blob_endpoint: format!("http://127.0.0.1:10000/{DEVELOPMENT_ACCOUNT}"),
                queue_endpoint: format!("http://127.0.0.1:10001/{DEVELOPMENT_ACCOUNT}"),
                credential: Credential::AccountKey {
                    account: DEVELOPMENT_ACCOUNT.into(),
                    key: decode_key(DEVELOPMENT_KEY)?,
                },
            });
        }

        let account = get("accountname");
        let protocol = get("defaultendpointsprotocol").unwrap_or_else(|| "https".into());
        let suffix = get("endpointsuffix").unwrap_or_else(|| "core.windows.net".into());
        let endpoint = |explicit: Option<String>, service: &str| match (explicit, &account) {
            (Some(url), _) => Ok(url.trim_end_matches('/').to_owned()),
            (None, Some(account)) => Ok(format!("{protocol}://{account}.{service}.{suffix}")),
            (None, None) => Err(ConnectionStringError(format!(
                "give AccountName or {}Endpoint",
                capitalised(service)
            ))),
        };
        let blob_endpoint = endpoint(get("blobendpoint"), "blob")?;
        let queue_endpoint = endpoint(get("queueendpoint"), "queue")?;

        let credential = match (get("accountkey"), get("sharedaccesssignature"), account) {
            (Some(key), _, Some(account)) => Credential::AccountKey {
                account,
                key: decode_key(&key)?,
            },
            (Some(_), _, None) => {
                return Err(ConnectionStringError("AccountKey needs AccountName".into()));
            }
            (None, Some(token), _) => {
                Credential::SharedAccessSignature(token.trim_start_matches('?').to_owned())
            }
            (None, None, _) => {
                return Err(ConnectionStringError(
                    "give AccountKey or SharedAccessSignature".into(),
                ));
            }
        };
        for url in [&blob_endpoint, &queue_endpoint] {
            if !(url.starts_with("http://") || url.starts_with("https://")) {
                return Err(ConnectionStringError(format!(
                    "{url:?} is not an http(s) endpoint"
                )));
            }
        }
        Ok(Self {
            blob_endpoint,
            queue_endpoint,
            credential,
        })
    }
}

fn decode_key(key: &str) -> Result<Vec<u8>, ConnectionStringError> {
    STANDARD
        .decode(key)
        .map_err(|_| ConnectionStringError("AccountKey is not base64".into()))
}

fn capitalised(service: &str) -> String {
    let mut chars = service.chars();
    chars
        .next()
        .map(|first| first.to_ascii_uppercase().to_string() + chars.as_str())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    const AZURITE: &str = "DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;\
        AccountKey=Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==;\
        BlobEndpoint=http://127.0.0.1:10000/devstoreaccount1;QueueEndpoint=http://127.0.0.1:10001/devstoreaccount1;";

    #[test]
    fn the_azurite_development_string_parses_unchanged() {
        let parsed = ConnectionString::parse(AZURITE).expect("parses");
        assert_eq!(
            parsed.blob_endpoint,
            "http://127.0.0.1:10000/devstoreaccount1"
        );
        assert_eq!(
            parsed.queue_endpoint,
            "http://127.0.0.1:10001/devstoreaccount1"
        );
        assert!(matches!(
            parsed.credential,
            Credential::AccountKey { ref account, ref key } if account == "devstoreaccount1" && key.len() == 64
        ));
        assert_eq!(
            ConnectionString::parse("UseDevelopmentStorage=true").expect("parses"),
            parsed
        );
    }

    #[test]
    fn a_cloud_string_builds_endpoints_from_the_account_and_suffix() {
        let parsed = ConnectionString::parse(
            "DefaultEndpointsProtocol=https;AccountName=acme;AccountKey=AAAA;EndpointSuffix=core.windows.net",
        )
        .expect("parses");
        assert_eq!(parsed.blob_endpoint, "https://acme.blob.core.windows.net");
        assert_eq!(parsed.queue_endpoint, "https://acme.queue.core.windows.net");
    }

    #[test]
    fn a_sas_string_keeps_the_token() {
        let parsed = ConnectionString::parse(
            "BlobEndpoint=https://acme.blob.core.windows.net/;QueueEndpoint=https://acme.queue.core.windows.net/;SharedAccessSignature=sv=2022-11-02&sig=abc%3D",
        )
        .expect("parses");
        assert_eq!(parsed.blob_endpoint, "https://acme.blob.core.windows.net");
        assert_eq!(
            parsed.credential,
            Credential::SharedAccessSignature("sv=2022-11-02&sig=abc%3D".into())
        );
    }

    #[test]
    fn unusable_strings_say_what_is_missing() {
        for (text, needle) in [
            ("AccountName=acme", "AccountKey or SharedAccessSignature"),
            (
                "AccountKey=AAAA;BlobEndpoint=http://x;QueueEndpoint=http://y",
                "needs AccountName",
            ),
            ("AccountName=acme;AccountKey=not base64!", "not base64"),
            ("garbage", "not a Key=Value pair"),
            ("SharedAccessSignature=sig=1", "AccountName or BlobEndpoint"),
        ] {
            let error = ConnectionString::parse(text).expect_err(text).to_string();
            assert!(error.contains(needle), "{text}: {error}");
        }
    }

    #[test]
    fn debug_output_hides_the_key() {
        let parsed = ConnectionString::parse(AZURITE).expect("parses");
        assert!(!format!("{parsed:?}").contains("Eby8"));
    }
}
