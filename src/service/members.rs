//! Inviting someone to a tenant, with the audit entry it leaves: the same whether an owner
//! invites on the members page or the operator from the shell (`canvass member invite`).

use super::App;
use crate::domain::Tenant;
use crate::domain::account::Email;
use crate::domain::audit::AuditAction;
use crate::domain::member::{MemberError, Role};
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
    let invited = stores.invite(tenant, email, role, actor.name).await?;
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
