//! Each tenant's members and waiting invitations, one document per tenant changed under
//! If-Match (so "the last owner stays" holds across concurrent changes), and the links that
//! lead to an invitation, kept by the hash of their token.

use std::sync::Arc;
use std::time::Duration;

use moka::future::Cache;

use serde::{Deserialize, Serialize};

use super::error::decode;
use super::{Context, StoreError, json_blob, keys, tokens};
use crate::domain::member::{MemberError, Members};
use crate::domain::{Tenant, TenantSlug};
use crate::storage::{BlobStore, Error, PutMode};

/// Where an invitation link leads.
#[derive(Clone, Debug, Serialize, Deserialize)]
struct InvitationLink {
    tenant: TenantSlug,
}

/// How long the worker may use a tenant's members read earlier (to know whom to notify of
/// new responses): a changed setting applies within this time.
const NOTIFY_TTL: Duration = Duration::from_secs(5);

/// Reads and changes tenants' members.
#[derive(Clone, Debug)]
pub struct MemberStore {
    blobs: Arc<dyn BlobStore>,
    cached: Cache<TenantSlug, Arc<Members>>,
}

impl MemberStore {
    pub(super) fn new(blobs: Arc<dyn BlobStore>) -> Self {
        Self {
            blobs,
            cached: Cache::builder()
                .max_capacity(100_000)
                .time_to_live(NOTIFY_TTL)
                .build(),
        }
    }

    /// The tenant's members, read at most every few seconds (the worker asks for every batch
    /// it counts). Pages and sign-in read them fresh with `read`.
    pub async fn cached(&self, tenant: &Tenant) -> Result<Arc<Members>, StoreError> {
        let load = async { Ok::<_, StoreError>(Arc::new(self.read(tenant).await?)) };
        super::cached(&self.cached, "members", tenant.slug.clone(), load).await
    }

    /// The tenant's members. A tenant that never changed its members has its founder alone.
    pub async fn read(&self, tenant: &Tenant) -> Result<Members, StoreError> {
        let key = keys::members(&tenant.slug);
        match self.blobs.get(&key).await {
            Ok(blob) => Ok(founded(decode(&key, &blob.body)?, tenant)),
            Err(Error::NotFound { .. }) => Ok(founded(Members::default(), tenant)),
            Err(error) => Err(error).context(|| format!("reading the members of {}", tenant.slug)),
        }
    }

    /// Applies `change` to the tenant's members and saves them, unless the change is refused
    /// (then nothing is written and the reason is returned).
    pub async fn change<R>(
        &self,
        tenant: &Tenant,
        mut change: impl FnMut(&mut Members) -> Result<R, MemberError>,
    ) -> Result<Result<R, MemberError>, StoreError> {
        let key = keys::members(&tenant.slug);
        let mut refused = None;
        let done = json_blob::update(self.blobs.as_ref(), &key, |members: &mut Members| {
            *members = founded(std::mem::take(members), tenant);
            match change(members) {
                Ok(answer) => Some(answer),
                Err(reason) => {
                    refused = Some(reason);
                    None
                }
            }
        })
        .await?;
        self.cached.invalidate(&tenant.slug).await;
        Ok(match (done, refused) {
            (Some(answer), _) => Ok(answer),
            (None, Some(reason)) => Err(reason),
            (None, None) => Err(MemberError::NotMember),
        })
    }

    /// Stores the link of a new invitation (by its hash) to the tenant.
    pub async fn link_invitation(&self, hash: &str, tenant: &TenantSlug) -> Result<(), StoreError> {
        let key = keys::invitation(hash);
        let link = InvitationLink {
            tenant: tenant.clone(),
        };
        self.blobs
            .put(
                &key,
                super::error::encode(&key, &link)?.into(),
                PutMode::Overwrite,
            )
            .await
            .context(|| "storing an invitation link".into())?;
        Ok(())
    }

    /// The tenant an invitation link's token leads to, and the token's hash (the invitation's
    /// id); `None` for a token that leads nowhere. The invitation itself may still be gone:
    /// the tenant's members say.
    pub async fn invitation_of(
        &self,
        token: &str,
    ) -> Result<Option<(TenantSlug, String)>, StoreError> {
        if !tokens::well_formed(token) {
            return Ok(None);
        }
        let hash = tokens::hash(token);
        let key = keys::invitation(&hash);
        match self.blobs.get(&key).await {
            Ok(blob) => Ok(Some((
                decode::<InvitationLink>(&key, &blob.body)?.tenant,
                hash,
            ))),
            Err(Error::NotFound { .. }) => Ok(None),
            Err(error) => Err(error).context(|| "reading an invitation link".into()),
        }
    }

    /// Forgets a used or withdrawn invitation's link.
    pub async fn unlink_invitation(&self, hash: &str) -> Result<(), StoreError> {
        match self.blobs.delete(&keys::invitation(hash), None).await {
            Ok(()) | Err(Error::NotFound { .. }) => Ok(()),
            Err(error) => Err(error).context(|| "removing an invitation link".into()),
        }
    }
}

/// The members as stored, or the founder alone where none are (a tenant always keeps an
/// owner once it has one, so an empty list means nobody changed it yet).
fn founded(members: Members, tenant: &Tenant) -> Members {
    if members.members.is_empty() {
        Members {
            invitations: members.invitations,
            ..Members::founded_by(tenant.owner.as_ref(), tenant.created)
        }
    } else {
        members
    }
}
