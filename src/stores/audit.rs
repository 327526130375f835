//! Tenants' audit logs: one blob per entry, keyed so that listing a tenant's prefix reads the
//! newest first, a page at a time.

use std::sync::Arc;

use futures_util::{StreamExt, TryStreamExt, stream};

use super::error::{decode, encode};
use super::{Context, StoreError, keys};
use crate::domain::TenantSlug;
use crate::domain::audit::AuditEntry;
use crate::storage::{BlobStore, Error, ListRequest, PutMode};

/// Entries on one page.
pub const AUDIT_PAGE: usize = 50;

/// One page of a tenant's audit log (as `GET /api/v1/audit` shows it).
#[derive(Debug, Default, serde::Serialize, utoipa::ToSchema)]
pub struct AuditPage {
    /// The entries, newest first.
    pub entries: Vec<AuditEntry>,
    /// The token of the next (older) page, or null on the last page.
    pub next: Option<String>,
}

/// Writes and reads audit logs.
#[derive(Clone, Debug)]
pub struct AuditLog {
    blobs: Arc<dyn BlobStore>,
}

impl AuditLog {
    pub(super) fn new(blobs: Arc<dyn BlobStore>) -> Self {
        Self { blobs }
    }

    /// Adds an entry to the tenant's log.
    pub async fn record(&self, tenant: &TenantSlug, entry: &AuditEntry) -> Result<(), StoreError> {
        // Newest first in key order: the time counted down from the largest, then a random
        // part so two entries in one nanosecond do not collide.
        let nanos = u64::try_from(entry.at.unix_timestamp_nanos()).unwrap_or(0);
        let key = format!(
            "{}{:020}-{}.json",
            keys::audit_of(tenant),
            u64::MAX - nanos,
            &uuid::Uuid::new_v4().simple().to_string()[..8]
        );
        self.blobs
            .put(&key, encode(&key, entry)?.into(), PutMode::Create)
            .await
            .context(|| format!("recording in the audit log of {tenant}"))?;
        Ok(())
    }

    /// A page of the tenant's log, newest first: the first page, or the one `page` (a token
    /// from the page before) names.
    pub async fn page(
        &self,
        tenant: &TenantSlug,
        page: Option<String>,
    ) -> Result<AuditPage, StoreError> {
        let request = ListRequest {
            prefix: keys::audit_of(tenant),
            continuation: page,
            page_size: AUDIT_PAGE,
        };
        let listed = self
            .blobs
            .list(&request)
            .await
            .context(|| format!("listing the audit log of {tenant}"))?;
        let entries = stream::iter(listed.items)
            .map(|item| async move {
                match self.blobs.get(&item.key).await {
                    Ok(blob) => decode::<AuditEntry>(&item.key, &blob.body).map(Some),
                    Err(Error::NotFound { .. }) => Ok(None),
                    Err(error) => Err(error).context(|| "reading an audit entry".into()),
                }
            })
            .buffered(16)
            .try_filter_map(|entry| async move { Ok(entry) })
            .try_collect()
            .await?;
        Ok(AuditPage {
            entries,
            next: listed.continuation,
        })
    }
}
