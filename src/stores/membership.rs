//! Membership changes that span several stores: inviting (the invitation and its link),
//! joining (the account and the membership), and removing a member (membership, sessions,
//! keys, account). Each is ordered so that a crash part-way leaves nothing that works
//! without the rest.

use time::OffsetDateTime;

use super::{Membership, StoreError, tokens};
use crate::domain::Tenant;
use crate::domain::account::{Account, Email};
use crate::domain::member::{INVITATION_LIFETIME, Invitation, Member, MemberError, Role};

/// How accepting an invitation ended.
#[derive(Debug)]
pub enum Joined {
    /// The new member, signed up.
    Member(Member, Account),
    /// The address has an account already (with this or another tenant).
    AddressTaken,
    /// The membership was refused (invitation used, withdrawn or expired).
    Refused(MemberError),
}

impl Membership {
    /// Invites `email` to the tenant as `role`; returns the link's token (shown or mailed
    /// once, never stored).
    pub async fn invite(
        &self,
        tenant: &Tenant,
        email: &Email,
        role: Role,
        invited_by: &str,
    ) -> Result<Result<(String, Invitation), MemberError>, StoreError> {
        let (token, hash) = tokens::new_token("making an invitation")?;
        let invitation = Invitation {
            id: hash.clone(),
            email: email.clone(),
            role,
            invited_by: invited_by.to_owned(),
            expires: OffsetDateTime::now_utc() + INVITATION_LIFETIME,
        };
        // The link first: without its invitation it leads nowhere.
        self.members.link_invitation(&hash, &tenant.slug).await?;
        let now = OffsetDateTime::now_utc();
        let invited = self
            .members
            .change(tenant, |members| members.invite(invitation.clone(), now))
            .await?;
        if invited.is_err() {
            self.members.unlink_invitation(&hash).await?;
        }
        Ok(invited.map(|()| (token, invitation)))
    }

    /// Accepts the invitation `id` of the tenant with an account whose password hash is
    /// given: the account is claimed first (create-only), then the invitation is used in the
    /// same write that adds the member, so it works once; a refused membership gives the
    /// address back.
    pub async fn join(
        &self,
        tenant: &Tenant,
        id: &str,
        email: &Email,
        password_hash: String,
        replacing: Option<&crate::storage::ETag>,
    ) -> Result<Joined, StoreError> {
        let account = Account {
            email: email.clone(),
            tenant: tenant.slug.clone(),
            password_hash,
            created: OffsetDateTime::now_utc(),
            password_set: None,
        };
        let Some(claimed) = self.accounts.create(&account, replacing).await? else {
            return Ok(Joined::AddressTaken);
        };
        let now = OffsetDateTime::now_utc();
        match self
            .members
            .change(tenant, |members| members.accept(id, now))
            .await?
        {
            Ok(member) => {
                self.members.unlink_invitation(id).await?;
                Ok(Joined::Member(member, account))
            }
            Err(reason) => {
                self.accounts.remove(email, &claimed).await?;
                Ok(Joined::Refused(reason))
            }
        }
    }

    /// Removes a member: the membership first (which alone ends their access), then their
    /// sessions, their API keys and their account, so the address is free again.
    pub async fn remove_member(
        &self,
        tenant: &Tenant,
        email: &Email,
    ) -> Result<Result<Member, MemberError>, StoreError> {
        let removed = self
            .members
            .change(tenant, |members| members.remove(email))
            .await?;
        if removed.is_ok() {
            self.sessions.end_all_of(email, None).await?;
            self.api_keys.revoke_all_of(&tenant.slug, email).await?;
            let account = self.accounts.get(email).await?;
            if account.is_some_and(|account| account.tenant == tenant.slug) {
                self.accounts.remove_any(email).await?;
            }
        }
        Ok(removed)
    }
}
