//! Per-tenant API keys. A key is shown once when made; only its SHA-256 is stored (a key has
//! 256 random bits, so a fast hash is as good as a slow one here), under which its tenant is
//! found. Each tenant also has a list of its keys for the UI, without the hashes' preimages.

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

use super::error::{decode, encode};
use super::{Context, StoreError, keys, tokens};
use crate::domain::TenantSlug;
use crate::domain::account::Email;
use crate::storage::{BlobStore, Error, ListRequest, PutMode};

/// What is stored about a key.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ApiKeyRecord {
    /// A short id to name it by in the UI.
    pub id: String,
    /// The tenant it acts for.
    pub tenant: TenantSlug,
    /// What the owner called it.
    pub label: String,
    /// When it was made.
    #[serde(with = "time::serde::rfc3339")]
    pub created: OffsetDateTime,
    /// The SHA-256 of the key, hex.
    pub hash: String,
    /// The member who made it: the key has their role and dies with them. `None` for keys an
    /// operator made (`canvass tenant create`) or made before members existed: those act as
    /// an owner.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub member: Option<Email>,
}

/// Makes, finds, lists and revokes API keys.
#[derive(Clone, Debug)]
pub struct ApiKeyStore {
    blobs: Arc<dyn BlobStore>,
}

impl ApiKeyStore {
    pub(super) fn new(blobs: Arc<dyn BlobStore>) -> Self {
        Self { blobs }
    }

    /// Makes a key for the tenant, acting for `member`; returns the key itself (shown once)
    /// and its record.
    pub async fn create(
        &self,
        tenant: &TenantSlug,
        label: &str,
        member: Option<&Email>,
    ) -> Result<(String, ApiKeyRecord), StoreError> {
        let (secret, _) = tokens::new_token("making an API key")?;
        let key = format!("cnv_{secret}");
        let record = ApiKeyRecord {
            id: uuid::Uuid::new_v4().simple().to_string()[..8].to_owned(),
            tenant: tenant.clone(),
            label: label.trim().chars().take(100).collect(),
            created: OffsetDateTime::now_utc(),
            hash: tokens::hash(&key),
            member: member.cloned(),
        };
        let by_hash = keys::api_key(&record.hash);
        self.blobs
            .put(&by_hash, encode(&by_hash, &record)?.into(), PutMode::Create)
            .await
            .context(|| "storing an API key".into())?;
        let listed = format!("{}{}.json", keys::api_keys_of(tenant), record.id);
        self.blobs
            .put(&listed, encode(&listed, &record)?.into(), PutMode::Create)
            .await
            .context(|| "listing an API key".into())?;
        Ok((key, record))
    }

    /// The record of a presented key, if it is a live key.
    pub async fn find(&self, key: &str) -> Result<Option<ApiKeyRecord>, StoreError> {
        if !key.starts_with("cnv_") || key.len() != 68 {
            return Ok(None);
        }
        let by_hash = keys::api_key(&tokens::hash(key));
        match self.blobs.get(&by_hash).await {
            Ok(blob) => Ok(Some(decode::<ApiKeyRecord>(&by_hash, &blob.body)?)),
            Err(Error::NotFound { .. }) => Ok(None),
            Err(error) => Err(error).context(|| "looking up an API key".into()),
        }
    }

    /// Revokes every key a member made (when they leave the tenant).
    pub async fn revoke_all_of(
        &self,
        tenant: &TenantSlug,
        member: &Email,
    ) -> Result<(), StoreError> {
        for key in self.list(tenant).await? {
            if key.member.as_ref() == Some(member) {
                self.revoke(tenant, &key.id).await?;
            }
        }
        Ok(())
    }

    /// The tenant's keys, oldest first.
    pub async fn list(&self, tenant: &TenantSlug) -> Result<Vec<ApiKeyRecord>, StoreError> {
        let prefix = keys::api_keys_of(tenant);
        let page = self
            .blobs
            .list(&ListRequest::new(prefix, 0))
            .await
            .context(|| format!("listing the API keys of {tenant}"))?;
        let mut records = Vec::new();
        for item in page.items {
            match self.blobs.get(&item.key).await {
                Ok(blob) => records.push(decode::<ApiKeyRecord>(&item.key, &blob.body)?),
                Err(Error::NotFound { .. }) => {}
                Err(error) => return Err(error).context(|| "reading an API key".into()),
            }
        }
        records.sort_by_key(|record| record.created);
        Ok(records)
    }

    /// Revokes one of the tenant's keys; `Ok(false)` if it has no such key.
    pub async fn revoke(&self, tenant: &TenantSlug, id: &str) -> Result<bool, StoreError> {
        // Ids are short and alphanumeric; anything else names no key (and builds no blob key).
        if id.is_empty() || id.len() > 64 || !id.bytes().all(|b| b.is_ascii_alphanumeric()) {
            return Ok(false);
        }
        let listed = format!("{}{id}.json", keys::api_keys_of(tenant));
        let record: ApiKeyRecord = match self.blobs.get(&listed).await {
            Ok(blob) => decode(&listed, &blob.body)?,
            Err(Error::NotFound { .. }) => return Ok(false),
            Err(error) => return Err(error).context(|| "reading an API key".into()),
        };
        for key in [keys::api_key(&record.hash), listed] {
            match self.blobs.delete(&key, None).await {
                Ok(()) | Err(Error::NotFound { .. }) => {}
                Err(error) => return Err(error).context(|| "revoking an API key".into()),
            }
        }
        Ok(true)
    }
}
