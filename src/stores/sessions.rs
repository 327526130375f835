//! Signed-in sessions, one blob each, so signing out (deleting it) ends the session for every
//! process at once. The cookie only carries the session's random id, encrypted.

use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

use super::error::{decode, encode};
use super::{Context, StoreError, keys, tokens};
use crate::domain::TenantSlug;
use crate::domain::account::Email;
use crate::storage::{BlobStore, Error, ListRequest, PutMode};

/// How long a session lasts after sign-in.
pub const SESSION_LIFETIME: Duration = Duration::from_secs(12 * 3600);

/// A signed-in owner.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Session {
    /// The random id the cookie carries.
    pub id: String,
    /// The tenant signed in to.
    pub tenant: TenantSlug,
    /// Who signed in.
    pub email: Email,
    /// The token every state-changing form of this session must carry.
    pub csrf: String,
    /// When it stops being valid.
    #[serde(with = "time::serde::rfc3339")]
    pub expires: OffsetDateTime,
}

fn random_token() -> String {
    format!(
        "{}{}",
        uuid::Uuid::new_v4().simple(),
        uuid::Uuid::new_v4().simple()
    )
}

/// Starts, reads and ends sessions.
#[derive(Clone, Debug)]
pub struct SessionStore {
    blobs: Arc<dyn BlobStore>,
}

impl SessionStore {
    pub(super) fn new(blobs: Arc<dyn BlobStore>) -> Self {
        Self { blobs }
    }

    /// Starts a session for a signed-in owner.
    pub async fn start(&self, tenant: TenantSlug, email: Email) -> Result<Session, StoreError> {
        let session = Session {
            id: random_token(),
            tenant,
            email,
            csrf: random_token(),
            expires: OffsetDateTime::now_utc() + SESSION_LIFETIME,
        };
        // The marker first: a session is never live without one, so ending all of a member's
        // sessions finds every one.
        let marker = format!(
            "{}{}",
            keys::sessions_of(&tokens::hash(session.email.as_str())),
            session.id
        );
        self.blobs
            .put(&marker, Vec::new().into(), PutMode::Overwrite)
            .await
            .context(|| "marking a session".into())?;
        let key = keys::session(&session.id);
        self.blobs
            .put(&key, encode(&key, &session)?.into(), PutMode::Create)
            .await
            .context(|| "starting a session".into())?;
        Ok(session)
    }

    /// Ends every session of a member but `keep` (after a password reset, or when they leave
    /// the tenant).
    pub async fn end_all_of(&self, email: &Email, keep: Option<&str>) -> Result<(), StoreError> {
        let prefix = keys::sessions_of(&tokens::hash(email.as_str()));
        let mut request = ListRequest::new(prefix.clone(), 0);
        loop {
            let page = self
                .blobs
                .list(&request)
                .await
                .context(|| "listing a member's sessions".into())?;
            for item in &page.items {
                let id = &item.key[prefix.len()..];
                if Some(id) != keep {
                    self.end(id).await?;
                    match self.blobs.delete(&item.key, None).await {
                        Ok(()) | Err(Error::NotFound { .. }) => {}
                        Err(error) => {
                            return Err(error).context(|| "unmarking a session".into());
                        }
                    }
                }
            }
            match page.continuation {
                Some(next) => request.continuation = Some(next),
                None => return Ok(()),
            }
        }
    }

    /// The session with this id, unless it ended or expired.
    pub async fn get(&self, id: &str) -> Result<Option<Session>, StoreError> {
        if id.is_empty() || !id.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Ok(None);
        }
        let key = keys::session(id);
        match self.blobs.get(&key).await {
            Ok(blob) => {
                let session: Session = decode(&key, &blob.body)?;
                Ok((session.expires > OffsetDateTime::now_utc()).then_some(session))
            }
            Err(Error::NotFound { .. }) => Ok(None),
            Err(error) => Err(error).context(|| "reading a session".into()),
        }
    }

    /// Ends a session; already ended is fine.
    pub async fn end(&self, id: &str) -> Result<(), StoreError> {
        match self.blobs.delete(&keys::session(id), None).await {
            Ok(()) | Err(Error::NotFound { .. }) => Ok(()),
            Err(error) => Err(error).context(|| "ending a session".into()),
        }
    }
}
