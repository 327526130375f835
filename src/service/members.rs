//! A tenant's members: inviting someone (the same whether an owner invites on the members
//! page or the operator from the shell, `canvass member invite`), changing a member's role,
//! removing a member, withdrawing an invitation, each with the audit entry it leaves.

use super::App;
use crate::domain::Tenant;
use crate::domain::account::Email;
use crate::domain::audit::AuditAction;
use crate::domain::member::{Invitation, Member, MemberError, Members, Role};
use crate::stores::StoreError;

use super::Actor;

/// Invites `email` to the actor's tenant as `role`; the link's token (shown or mailed once,
/// never stored), or why the invitation is refused (already a member, too many waiting, ...).
pub async fn invite(
    app: &App,
    actor: Actor<'_>,
    tenant: &Tenant,
    email: &Email,
    role: Role,
) -> Result<Result<String, MemberError>, StoreError> {
    let stores = app.stores();
    let invited = stores
        .membership
        .invite(tenant, email, role, actor.name)
        .await?;
    let Ok((token, _)) = invited else {
        return Ok(invited.map(|(token, _)| token));
    };
    actor
        .record(
            app,
            AuditAction::MemberInvited,
            format!("{} as {role}", email.as_str()),
        )
        .await?;
    Ok(Ok(token))
}

/// The tenant's members and waiting invitations.
pub async fn read(app: &App, tenant: &Tenant) -> Result<Members, StoreError> {
    app.stores().membership.members.read(tenant).await
}

/// Emails an invitation's link (made by `invite`) to the invited address.
pub async fn mail_invitation(
    app: &App,
    actor: Actor<'_>,
    tenant: &Tenant,
    (email, role): (&Email, Role),
    link: &str,
) -> Result<(), StoreError> {
    let mail = crate::mail::invitation_message(email, &tenant.name, role, actor.name, link);
    app.stores().panel.mail.send(&mail).await
}

/// The member that removing `email` would remove, or why it may not (nobody by that address,
/// or the tenant's only owner): what the page asks about before it removes.
pub async fn removable(
    app: &App,
    tenant: &Tenant,
    email: &Email,
) -> Result<Result<Member, MemberError>, StoreError> {
    Ok(read(app, tenant).await?.remove(email))
}

/// Gives a member another role (the last owner keeps theirs), audited.
pub async fn set_role(
    app: &App,
    actor: Actor<'_>,
    tenant: &Tenant,
    email: &Email,
    role: Role,
) -> Result<Result<(), MemberError>, StoreError> {
    let changed = app
        .stores()
        .membership
        .members
        .change(tenant, |members| members.set_role(email, role))
        .await?;
    if changed.is_ok() {
        let detail = format!("{} is now {role}", email.as_str());
        actor.record(app, AuditAction::RoleChanged, detail).await?;
    }
    Ok(changed)
}

/// Removes a member (the last owner stays), audited: their sessions, API keys and account go
/// with the membership.
pub async fn remove(
    app: &App,
    actor: Actor<'_>,
    tenant: &Tenant,
    email: &Email,
) -> Result<Result<Member, MemberError>, StoreError> {
    let removed = app.stores().membership.remove_member(tenant, email).await?;
    if let Ok(member) = &removed {
        let detail = format!("{} ({})", member.email.as_str(), member.role);
        actor
            .record(app, AuditAction::MemberRemoved, detail)
            .await?;
    }
    Ok(removed)
}

/// Withdraws the waiting invitation `id`, audited: its link stops working. `None` if there is
/// no such invitation.
pub async fn withdraw(
    app: &App,
    actor: Actor<'_>,
    tenant: &Tenant,
    id: &str,
) -> Result<Option<Invitation>, StoreError> {
    let stores = app.stores();
    let withdrawn = stores
        .membership
        .members
        .change(tenant, |members| {
            members.withdraw(id).ok_or(MemberError::NoInvitation)
        })
        .await?;
    let Ok(invitation) = withdrawn else {
        return Ok(None);
    };
    stores
        .membership
        .members
        .unlink_invitation(&invitation.id)
        .await?;
    let detail = format!("{} as {}", invitation.email.as_str(), invitation.role);
    actor
        .record(app, AuditAction::InvitationWithdrawn, detail)
        .await?;
    Ok(Some(invitation))
}
