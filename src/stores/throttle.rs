//! Sign-in throttling, shared by every process. An attempt is claimed before its password is
//! checked, by counting it in a record that is only ever changed under If-Match, so attempts
//! sent at once, to one process or many, are counted one by one and no more than the limit
//! are ever checked.
//!
//! Records are kept per client address *and* account, so an attacker guessing one owner's
//! password locks out only their own address, never the owner; and per client address
//! across accounts, so one address cannot try many accounts. A client with no failures is
//! never refused, and a correct password clears that client's record for the account.

use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use time::OffsetDateTime;

use super::error::{decode, encode};
use super::{Context, StoreError};
use crate::storage::{BlobStore, Error, PutMode};

/// Failed sign-ins allowed per client address and account within a window.
pub const PER_ACCOUNT: u32 = 5;
/// Failed sign-ins allowed per client address, whatever the accounts, within a window.
pub const PER_CLIENT: u32 = 50;
/// How long failures are remembered, from the first one.
pub const WINDOW: Duration = Duration::from_secs(15 * 60);

/// The prefix of every throttle record.
pub const PREFIX: &str = "throttle/";

/// Attempts within the current window.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
struct Record {
    /// When the window began (Unix seconds).
    since: i64,
    /// Attempts counted in it.
    attempts: u32,
}

/// Whether an attempt may go ahead.
#[derive(Debug)]
pub enum Gate {
    /// It was counted; check the password, then report success with `SignInThrottle::passed`.
    Open(Claim),
    /// Too many attempts: try again after this long.
    Closed(Duration),
}

/// A counted attempt.
#[derive(Debug)]
pub struct Claim {
    account_key: String,
    client_key: String,
}

/// Reads and counts sign-in attempts.
#[derive(Clone, Debug)]
pub struct SignInThrottle {
    blobs: Arc<dyn BlobStore>,
}

fn key(kind: &str, parts: &[&str]) -> String {
    let mut hash = Sha256::new();
    for part in parts {
        hash.update(part.as_bytes());
        hash.update([0]);
    }
    let digest: String = hash
        .finalize()
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect();
    format!("{PREFIX}{kind}/{digest}.json")
}

impl SignInThrottle {
    pub(super) fn new(blobs: Arc<dyn BlobStore>) -> Self {
        Self { blobs }
    }

    /// Claims an attempt by `client` to sign in as `account` (as typed, lowercased): counts
    /// it, or says how long to wait.
    pub async fn claim(&self, client: &str, account: &str) -> Result<Gate, StoreError> {
        let claim = Claim {
            account_key: key("sign-in", &[client, account]),
            client_key: key("client", &[client]),
        };
        let now = OffsetDateTime::now_utc().unix_timestamp();
        for (key, limit) in [
            (&claim.account_key, PER_ACCOUNT),
            (&claim.client_key, PER_CLIENT),
        ] {
            if let Some(wait) = self.count(key, limit, now).await? {
                return Ok(Gate::Closed(wait));
            }
        }
        Ok(Gate::Open(claim))
    }

    /// The password was right: the client's failures for this account are forgotten, and
    /// this attempt no longer counts against the client (many people signing in from behind
    /// one address are never refused for succeeding).
    pub async fn passed(&self, claim: Claim) -> Result<(), StoreError> {
        match self.blobs.delete(&claim.account_key, None).await {
            Ok(()) | Err(Error::NotFound { .. }) => {}
            Err(error) => return Err(error).context(|| "clearing a sign-in record".into()),
        }
        self.uncount(&claim.client_key).await
    }

    /// Takes one attempt back from the record at `key`.
    async fn uncount(&self, key: &str) -> Result<(), StoreError> {
        loop {
            let (mut record, etag) = match self.blobs.get(key).await {
                Ok(blob) => (decode::<Record>(key, &blob.body)?, blob.meta.etag),
                Err(Error::NotFound { .. }) => return Ok(()),
                Err(error) => return Err(error).context(|| "reading a sign-in record".into()),
            };
            if record.attempts == 0 {
                return Ok(());
            }
            record.attempts -= 1;
            let body = encode(key, &record)?.into();
            match self.blobs.put(key, body, PutMode::Update(etag)).await {
                Ok(_) => return Ok(()),
                Err(Error::Precondition { .. }) => {}
                Err(error) => return Err(error).context(|| "counting a sign-in attempt".into()),
            }
        }
    }

    /// Counts one attempt in the record at `key` unless it already holds `limit`; returns how
    /// long to wait when it does.
    async fn count(&self, key: &str, limit: u32, now: i64) -> Result<Option<Duration>, StoreError> {
        let window = WINDOW.as_secs() as i64;
        loop {
            let (mut record, mode) = match self.blobs.get(key).await {
                Ok(blob) => (
                    decode::<Record>(key, &blob.body)?,
                    PutMode::Update(blob.meta.etag),
                ),
                Err(Error::NotFound { .. }) => (Record::default(), PutMode::Create),
                Err(error) => return Err(error).context(|| "reading a sign-in record".into()),
            };
            if now >= record.since + window {
                record = Record {
                    since: now,
                    attempts: 0,
                };
            }
            if record.attempts >= limit {
                let left = (record.since + window - now).max(1);
                return Ok(Some(Duration::from_secs(left as u64)));
            }
            record.attempts += 1;
            match self
                .blobs
                .put(key, encode(key, &record)?.into(), mode)
                .await
            {
                Ok(_) => return Ok(None),
                // Another attempt was counted meanwhile: count again on top of it.
                Err(Error::Precondition { .. } | Error::AlreadyExists { .. }) => {}
                Err(error) => return Err(error).context(|| "counting a sign-in attempt".into()),
            }
        }
    }
}

/// Whether a throttle record last written at `modified` is past any window, for clearing.
pub fn expired(modified: std::time::SystemTime) -> bool {
    modified.elapsed().is_ok_and(|age| age > WINDOW)
}
