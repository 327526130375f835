//! Members' accounts and sessions: signing up (the owner and the tenant, all or nothing),
//! signing in (throttled, single sign-on enforced), invitations accepted, passwords changed
//! and reset, and the session that says who is signed in. The sites read forms and set
//! cookies; what is checked, written and audited is here.

use std::sync::Arc;
use std::time::Duration;

use time::OffsetDateTime;

use super::{Actor, App, StoreError};
use crate::domain::account::{Account, Email, hash_password, password_problem, verify_password};
use crate::domain::audit::AuditAction;
use crate::domain::member::{Invitation, Member, Notify, Role};
use crate::domain::{Tenant, TenantSlug};
use crate::sso::SsoSettings;
use crate::storage::ETag;
use crate::stores::membership::Joined as Stored;
use crate::stores::throttle::Gate;
pub use crate::stores::{SESSION_LIFETIME, Session};

/// How an account's use case fails.
#[derive(Debug, thiserror::Error)]
pub enum AccountError {
    /// Storage failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The blocking pool that hashes passwords failed, or the hash did.
    #[error("hashing a password failed: {0}")]
    Hashing(String),
}

/// A sign-up whose account was made but whose tenant never was (the process died between the
/// two writes) gives its address back after this long.
const ABANDONED_AFTER: time::Duration = time::Duration::minutes(10);

/// An argon2id hash of a password nobody has, checked when an address has no account.
const DUMMY_HASH: &str = "$argon2id$v=19$m=19456,t=2,p=1$c29tZXNhbHRzb21lc2FsdA$7m5m9Kx9P0M6pW6rW9Lk6XhYcJ1oN3R0d3F3b1l1a0k";

/// The argon2id hash of a password, made on the blocking pool (it takes tens of
/// milliseconds of CPU).
async fn hashed(password: String) -> Result<String, AccountError> {
    tokio::task::spawn_blocking(move || hash_password(&password))
        .await
        .map_err(|e| AccountError::Hashing(e.to_string()))?
        .map_err(AccountError::Hashing)
}

/// Whether a password matches a stored hash, checked on the blocking pool.
async fn verified(password: String, hash: String) -> Result<bool, AccountError> {
    tokio::task::spawn_blocking(move || verify_password(&password, &hash))
        .await
        .map_err(|e| AccountError::Hashing(e.to_string()))
}

/// Whether this address has an account (here, in any tenant).
pub async fn has_account(app: &App, email: &Email) -> Result<bool, StoreError> {
    Ok(app.stores().membership.accounts.get(email).await?.is_some())
}

/// Whether a tenant has this address, here or (as far as the other regions answer now) in
/// another region: for suggesting an address, which the sign-up checks again.
pub async fn address_taken(app: &App, slug: &TenantSlug) -> Result<bool, StoreError> {
    Ok(app.stores().catalog.tenants.get(slug).await?.is_some()
        || super::tenants::taken_elsewhere(app, slug)
            .await
            .unwrap_or(false))
}

/// How a sign-up ended.
#[derive(Debug)]
pub enum SignedUp {
    /// The owner's account, and their tenant, made.
    Done(Account),
    /// The address has an account already.
    EmailTaken,
    /// Another tenant has the address.
    SlugTaken,
    /// Another region could not be asked whether the address is free: nothing was made.
    Unchecked,
}

/// Makes the owner's account and the tenant, all or nothing. An address is one across
/// regions: every other region is asked first, before anything is claimed here. Then the
/// owner's address is claimed (create-only), the tenant's slug second, and a taken slug gives
/// the address back, so no tenant is ever left without an owner and no sign-up holds a slug it
/// did not get.
pub async fn sign_up(
    app: &App,
    email: &Email,
    password: String,
    tenant: &Tenant,
) -> Result<SignedUp, AccountError> {
    match super::tenants::taken_elsewhere(app, &tenant.slug).await {
        Ok(false) => {}
        Ok(true) => return Ok(SignedUp::SlugTaken),
        Err(error) => {
            tracing::warn!(error = %crate::telemetry::error_chain(&error), "a region could not say whether an address is free");
            return Ok(SignedUp::Unchecked);
        }
    }
    let stores = app.stores();
    let account = Account {
        email: email.clone(),
        tenant: tenant.slug.clone(),
        password_hash: hashed(password).await?,
        created: OffsetDateTime::now_utc(),
        password_set: None,
    };
    let accounts = &stores.membership.accounts;
    let claimed = match accounts.create(&account, None).await? {
        Some(etag) => etag,
        None => match abandoned(app, email).await? {
            Some(old) => match accounts.create(&account, Some(&old)).await? {
                Some(etag) => etag,
                None => return Ok(SignedUp::EmailTaken),
            },
            None => return Ok(SignedUp::EmailTaken),
        },
    };
    if stores.catalog.tenants.create(tenant).await? {
        Ok(SignedUp::Done(account))
    } else {
        accounts.remove(email, &claimed).await?;
        Ok(SignedUp::SlugTaken)
    }
}

/// The ETag of the address's account if it belongs to a sign-up (or an acceptance of an
/// invitation) that never finished.
async fn abandoned(app: &App, email: &Email) -> Result<Option<ETag>, StoreError> {
    let Some((account, etag)) = app
        .stores()
        .membership
        .accounts
        .get_versioned(email)
        .await?
    else {
        return Ok(None);
    };
    let old = OffsetDateTime::now_utc() - account.created > ABANDONED_AFTER;
    let memberless = member_account(app, account).await?.is_none();
    Ok((old && memberless).then_some(etag))
}

/// The account, if its address is a member of the tenant it names: an account whose sign-up
/// never finished, or whose member was removed, is not.
async fn member_account(app: &App, account: Account) -> Result<Option<Account>, StoreError> {
    Ok(role_of(app, &account).await?.map(|_| account))
}

/// The role of the account's address in the tenant it names, if it is a member.
async fn role_of(app: &App, account: &Account) -> Result<Option<Role>, StoreError> {
    let stores = app.stores();
    let Some(tenant) = stores.catalog.tenants.get(&account.tenant).await? else {
        return Ok(None);
    };
    Ok(stores
        .membership
        .members
        .read(&tenant)
        .await?
        .role_of(&account.email))
}

/// How a sign-in with a password ended.
#[derive(Debug)]
pub enum SignIn {
    /// Too many failed attempts from this client: try again after this long.
    Throttled(Duration),
    /// The address or the password is not right (which one is not said).
    Refused,
    /// The password is right, but the member's tenant has them sign in through its provider.
    ProviderRequired,
    /// Signed in (and audited): start a session for this account.
    Done(Account),
}

/// Signs in with a password. Each attempt is claimed from the shared throttle (per client
/// and account, and per client) before the password is checked, and an address without an
/// account costs the time of a check too, so timing does not tell.
pub async fn sign_in(
    app: &App,
    client: &str,
    email_text: &str,
    password: String,
) -> Result<SignIn, AccountError> {
    let stores = app.stores();
    let claim = match stores
        .membership
        .sign_ins
        .claim(client, &email_text.to_lowercase())
        .await?
    {
        Gate::Open(claim) => claim,
        Gate::Closed(wait) => return Ok(SignIn::Throttled(wait)),
    };
    let account = match Email::parse(email_text) {
        Some(email) => stores.membership.accounts.get(&email).await?,
        None => None,
    };
    let account = match account {
        Some(account) => member_account(app, account).await?,
        None => None,
    };
    let hash = account
        .as_ref()
        .map(|a| a.password_hash.clone())
        .unwrap_or_else(|| DUMMY_HASH.to_owned());
    let matches = verified(password, hash).await?;
    let Some(account) = account.filter(|_| matches) else {
        return Ok(SignIn::Refused);
    };
    stores.membership.sign_ins.passed(claim).await?;
    if let Some(role) = role_of(app, &account).await?
        && provider_required(app, &account.tenant, role).await?
    {
        return Ok(SignIn::ProviderRequired);
    }
    account_actor(&account)
        .record(app, AuditAction::SignIn, "with a password")
        .await?;
    Ok(SignIn::Done(account))
}

/// The account as the audit log names it.
fn account_actor(account: &Account) -> Actor<'_> {
    Actor {
        tenant: &account.tenant,
        name: account.email.as_str(),
    }
}

/// The tenant's identity provider, if it signs in through one.
pub async fn provider(app: &App, tenant: &TenantSlug) -> Result<Option<SsoSettings>, StoreError> {
    Ok(app.stores().catalog.settings.get(tenant).await?.sso)
}

/// Whether a member of this role must sign in to the tenant through its provider.
pub async fn provider_required(
    app: &App,
    tenant: &TenantSlug,
    role: Role,
) -> Result<bool, StoreError> {
    Ok(provider(app, tenant)
        .await?
        .is_some_and(|sso| sso.binds(role)))
}

/// The member of `tenant` whom its identity provider signed in as `email`, audited; `None` if
/// the address is not a member there.
pub async fn signed_in_by_provider(
    app: &App,
    tenant: &TenantSlug,
    email: &Email,
) -> Result<Option<Account>, StoreError> {
    let account = match app.stores().membership.accounts.get(email).await? {
        Some(account) if account.tenant == *tenant => member_account(app, account).await?,
        _ => None,
    };
    if let Some(account) = &account {
        account_actor(account)
            .record(app, AuditAction::SignIn, "through single sign-on")
            .await?;
    }
    Ok(account)
}

/// Starts a session for the account.
pub async fn start_session(app: &App, account: Account) -> Result<Session, StoreError> {
    app.stores()
        .membership
        .sessions
        .start(account.tenant, account.email)
        .await
}

/// Ends a session (signing out).
pub async fn end_session(app: &App, id: &str) -> Result<(), StoreError> {
    app.stores().membership.sessions.end(id).await
}

/// Who is signed in with this session: their tenant, the session and their role now, if the
/// session is live and they are still a member (a removed member's sessions end with their
/// membership).
pub async fn signed_in(
    app: &App,
    id: &str,
) -> Result<Option<(Arc<Tenant>, Session, Role)>, StoreError> {
    let stores = app.stores();
    let Some(session) = stores.membership.sessions.get(id).await? else {
        return Ok(None);
    };
    let Some(tenant) = stores.catalog.tenants.get(&session.tenant).await? else {
        return Ok(None);
    };
    let role = stores
        .membership
        .members
        .read(&tenant)
        .await?
        .role_of(&session.email);
    Ok(role.map(|role| (tenant, session, role)))
}

/// Emails a link to set a new password to `email_text` if it is a member's address, with
/// links on `site`; says nothing either way (the page never tells whether it is).
pub async fn send_reset_link(app: &App, email_text: &str, site: &str) -> Result<(), StoreError> {
    let stores = app.stores();
    if let Some(email) = Email::parse(email_text)
        && let Some(account) = stores.membership.accounts.get(&email).await?
        && member_account(app, account).await?.is_some()
    {
        let token = stores.membership.accounts.reset_link(&email).await?;
        let link = crate::links::password_reset(site, &token);
        stores
            .panel
            .mail
            .send(&crate::mail::reset_message(&email, &link))
            .await?;
    }
    Ok(())
}

/// Whose password a reset link sets, if it is unused and in time.
pub async fn reset_email(app: &App, token: &str) -> Result<Option<Email>, StoreError> {
    app.stores().membership.accounts.reset_email(token).await
}

/// How setting a new password from a reset link ended.
#[derive(Debug)]
pub enum Reset {
    /// The link was used or has expired.
    Expired,
    /// The password is refused, for this reason; the link still works.
    Weak(Email, String),
    /// Set (and audited), every session of the member signed out: start a new one.
    Done(Account),
}

/// Sets a new password from a reset link. The link is used up before the password takes
/// effect, so of two racing posts one sets it.
pub async fn reset_password(
    app: &App,
    token: &str,
    password: String,
) -> Result<Reset, AccountError> {
    let stores = app.stores();
    let accounts = &stores.membership.accounts;
    let Some(email) = accounts.reset_email(token).await? else {
        return Ok(Reset::Expired);
    };
    if let Some(problem) = password_problem(&password, email.as_str()) {
        return Ok(Reset::Weak(email, problem));
    }
    let password_hash = hashed(password).await?;
    if accounts.use_reset(token).await? != Some(email.clone())
        || !accounts.set_password(&email, &password_hash).await?
    {
        return Ok(Reset::Expired);
    }
    stores.membership.sessions.end_all_of(&email, None).await?;
    let Some(account) = accounts.get(&email).await? else {
        return Ok(Reset::Expired);
    };
    account_actor(&account)
        .record(
            app,
            AuditAction::PasswordReset,
            "every other session was signed out",
        )
        .await?;
    Ok(Reset::Done(account))
}

/// How changing a password ended.
#[derive(Debug)]
pub enum PasswordChange {
    /// Set (and audited), and every other session of the member signed out.
    Done,
    /// Refused, for this reason (the current password is wrong, or the new one too weak).
    Refused(String),
    /// The member's account is gone (they were removed meanwhile).
    NoAccount,
}

/// Changes a signed-in member's password, given their current one, and signs out every
/// other session of theirs.
pub async fn change_password(
    app: &App,
    actor: Actor<'_>,
    session: &Session,
    current: String,
    new: String,
) -> Result<PasswordChange, AccountError> {
    let stores = app.stores();
    let email = &session.email;
    let Some(account) = stores.membership.accounts.get(email).await? else {
        return Ok(PasswordChange::NoAccount);
    };
    let problem = match verified(current, account.password_hash).await? {
        false => Some("Your current password is not right.".to_owned()),
        true => password_problem(&new, email.as_str()),
    };
    if let Some(problem) = problem {
        return Ok(PasswordChange::Refused(problem));
    }
    stores
        .membership
        .accounts
        .set_password(email, &hashed(new).await?)
        .await?;
    stores
        .membership
        .sessions
        .end_all_of(email, Some(&session.id))
        .await?;
    actor
        .record(
            app,
            AuditAction::PasswordChanged,
            "every other session was signed out",
        )
        .await?;
    Ok(PasswordChange::Done)
}

/// How a member hears of new responses.
pub async fn notify_of(app: &App, tenant: &Tenant, email: &Email) -> Result<Notify, StoreError> {
    let members = app.stores().membership.members.read(tenant).await?;
    Ok(members.get(email).map(|m| m.notify).unwrap_or_default())
}

/// Sets how a member hears of new responses; `false` if they are no longer a member.
pub async fn set_notify(
    app: &App,
    tenant: &Tenant,
    email: &Email,
    notify: Notify,
) -> Result<bool, StoreError> {
    let changed = app
        .stores()
        .membership
        .members
        .change(tenant, |members| members.set_notify(email, notify))
        .await?;
    Ok(changed.is_ok())
}

/// The tenant and the live invitation an invitation link's token leads to.
pub async fn invitation(
    app: &App,
    token: &str,
) -> Result<Option<(Arc<Tenant>, Invitation)>, StoreError> {
    let stores = app.stores();
    let Some((slug, id)) = stores.membership.members.invitation_of(token).await? else {
        return Ok(None);
    };
    let Some(tenant) = stores.catalog.tenants.get(&slug).await? else {
        return Ok(None);
    };
    let members = stores.membership.members.read(&tenant).await?;
    let live = members.invitation(&id, OffsetDateTime::now_utc()).cloned();
    Ok(live.map(|invitation| (tenant, invitation)))
}

/// How accepting an invitation ended.
#[derive(Debug)]
pub enum Joined {
    /// The new member (audited), with their account: start a session.
    Member(Member, Account),
    /// The address has an account already (with this or another tenant).
    AddressTaken,
    /// The invitation was used, withdrawn or has expired meanwhile.
    Refused,
    /// The password is refused, for this reason.
    Weak(String),
}

/// Accepts an invitation with a password: the account is claimed first, then the invitation used in the write that adds the member, so
/// it works once. An address left by a sign-up that never finished is taken over.
pub async fn join(
    app: &App,
    tenant: &Tenant,
    invitation: &Invitation,
    password: String,
) -> Result<Joined, AccountError> {
    let stores = app.stores();
    let email = &invitation.email;
    if let Some(problem) = password_problem(&password, email.as_str()) {
        return Ok(Joined::Weak(problem));
    }
    let password_hash = hashed(password).await?;
    let mut joined = stores
        .membership
        .join(tenant, &invitation.id, email, password_hash.clone(), None)
        .await?;
    if matches!(joined, Stored::AddressTaken)
        && let Some(old) = abandoned(app, email).await?
    {
        joined = stores
            .membership
            .join(tenant, &invitation.id, email, password_hash, Some(&old))
            .await?;
    }
    Ok(joined_audited(app, invitation, joined, "").await?)
}

/// Accepts an invitation for the address the tenant's identity provider signed in: a member
/// who signs in that way has no password here.
pub async fn join_through_provider(
    app: &App,
    tenant: &Tenant,
    invitation: &Invitation,
) -> Result<Joined, StoreError> {
    let joined = app
        .stores()
        .membership
        .join(
            tenant,
            &invitation.id,
            &invitation.email,
            String::new(),
            None,
        )
        .await?;
    joined_audited(app, invitation, joined, " through single sign-on").await
}

/// The end of accepting an invitation, with the audit entry of a member who joined.
async fn joined_audited(
    app: &App,
    invitation: &Invitation,
    joined: Stored,
    how: &str,
) -> Result<Joined, StoreError> {
    Ok(match joined {
        Stored::Member(member, account) => {
            account_actor(&account)
                .record(
                    app,
                    AuditAction::MemberJoined,
                    format!(
                        "as {}{how}, invited by {}",
                        member.role, invitation.invited_by
                    ),
                )
                .await?;
            Joined::Member(member, account)
        }
        Stored::AddressTaken => Joined::AddressTaken,
        Stored::Refused(_) => Joined::Refused,
    })
}
