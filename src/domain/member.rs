//! Members of a tenant and their roles, and the invitations that make new members: the rules
//! (who may do what, the last owner stays, an invitation is used once and expires) as pure
//! operations on the tenant's member list.

use serde::{Deserialize, Serialize};
use time::{Duration, OffsetDateTime};

use super::account::Email;

/// Most members a tenant may have.
pub const MAX_MEMBERS: usize = 500;
/// Most invitations a tenant may have waiting at once.
pub const MAX_INVITATIONS: usize = 100;
/// How long an invitation link works.
pub const INVITATION_LIFETIME: Duration = Duration::days(7);

/// What a member may do; each role may do everything the one before it may.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// Reads summaries and responses and downloads them.
    Viewer,
    /// Also designs, publishes, closes and deletes surveys and responses; exports, webhooks,
    /// every API key.
    Editor,
    /// Also members, the plan, settings and the audit log.
    Owner,
}

impl Role {
    /// Every role, least first.
    pub const ALL: [Role; 3] = [Role::Viewer, Role::Editor, Role::Owner];

    /// Its name, as in forms, the API and the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Viewer => "viewer",
            Role::Editor => "editor",
            Role::Owner => "owner",
        }
    }

    /// The role a name means.
    pub fn parse(text: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|role| role.as_str() == text)
    }

    /// Its name, capitalised for pages.
    pub fn label(self) -> &'static str {
        match self {
            Role::Viewer => "Viewer",
            Role::Editor => "Editor",
            Role::Owner => "Owner",
        }
    }

    /// Its name with its article ("an editor"), for sentences.
    pub fn with_article(self) -> &'static str {
        match self {
            Role::Viewer => "a viewer",
            Role::Editor => "an editor",
            Role::Owner => "an owner",
        }
    }

    /// What it allows, in a sentence for pages.
    pub fn describe(self) -> &'static str {
        match self {
            Role::Viewer => "reads summaries and responses, downloads them",
            Role::Editor => {
                "also designs, publishes, closes and deletes surveys and responses; exports, \
                 webhooks, API keys"
            }
            Role::Owner => "also members, settings, the plan and the audit log",
        }
    }

    /// Whether this role may change surveys, responses, exports, webhooks and keys.
    pub fn can_edit(self) -> bool {
        self.allows(Role::Editor)
    }

    /// Whether this role may manage members and settings.
    pub fn can_manage(self) -> bool {
        self.allows(Role::Owner)
    }

    /// Whether this role allows what `needed` allows.
    pub fn allows(self, needed: Role) -> bool {
        self >= needed
    }
}

impl std::fmt::Display for Role {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// When a member is emailed about new responses.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Notify {
    /// Never.
    #[default]
    Off,
    /// On each response.
    Each,
    /// Once a day, a digest per survey.
    Daily,
}

impl Notify {
    /// Every choice, in the order pages offer them.
    pub const ALL: [Notify; 3] = [Notify::Off, Notify::Each, Notify::Daily];

    /// Its name, as in forms and the API.
    pub fn as_str(self) -> &'static str {
        match self {
            Notify::Off => "off",
            Notify::Each => "each",
            Notify::Daily => "daily",
        }
    }

    /// The choice a name means.
    pub fn parse(text: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|notify| notify.as_str() == text)
    }

    /// The choice in words, for pages.
    pub fn label(self) -> &'static str {
        match self {
            Notify::Off => "Never",
            Notify::Each => "On each new response",
            Notify::Daily => "A daily digest, per survey",
        }
    }
}

/// One member of a tenant.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Member {
    /// The address they sign in with.
    pub email: Email,
    /// What they may do.
    pub role: Role,
    /// When they joined.
    #[serde(with = "time::serde::rfc3339")]
    pub joined: OffsetDateTime,
    /// When they are emailed about new responses.
    #[serde(default)]
    pub notify: Notify,
}

/// An invitation waiting to be accepted. Its link carries a random token; only the token's
/// SHA-256 (`id`) is kept.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Invitation {
    /// The SHA-256 of the link's token, hex.
    pub id: String,
    /// Who is invited.
    pub email: Email,
    /// The role they will have.
    pub role: Role,
    /// Who invited them (a member's address, or "operator").
    pub invited_by: String,
    /// When the link stops working.
    #[serde(with = "time::serde::rfc3339")]
    pub expires: OffsetDateTime,
}

impl Invitation {
    /// A short, public name for it in pages and URLs (not enough to accept it).
    pub fn short_id(&self) -> &str {
        &self.id[..self.id.len().min(12)]
    }
}

/// Why a change to the members was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MemberError {
    /// The change would leave the tenant without an owner.
    #[error("A tenant needs at least one owner: make another member an owner first.")]
    LastOwner,
    /// Nobody with that address is a member.
    #[error("Nobody with that address is a member.")]
    NotMember,
    /// The address is a member already.
    #[error("{0} is a member already.")]
    AlreadyMember(String),
    /// The invitation was used, withdrawn or has expired.
    #[error("This invitation was used, withdrawn or has expired: ask for a new one.")]
    NoInvitation,
    /// The tenant has as many members, or invitations, as it may.
    #[error("{0}")]
    Full(String),
}

/// A tenant's members and waiting invitations: one document, changed as a whole, so the
/// rules below hold across concurrent changes.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Members {
    /// Who belongs, in the order they joined.
    #[serde(default)]
    pub members: Vec<Member>,
    /// Invitations not yet accepted (expired ones are dropped on the next change).
    #[serde(default)]
    pub invitations: Vec<Invitation>,
}

impl Members {
    /// The members of a tenant that has never changed them: its owner alone, if it has one.
    pub fn founded_by(owner: Option<&Email>, since: OffsetDateTime) -> Self {
        Self {
            members: owner
                .map(|email| Member {
                    email: email.clone(),
                    role: Role::Owner,
                    joined: since,
                    notify: Notify::Off,
                })
                .into_iter()
                .collect(),
            invitations: Vec::new(),
        }
    }

    /// The member with this address.
    pub fn get(&self, email: &Email) -> Option<&Member> {
        self.members.iter().find(|member| &member.email == email)
    }

    /// The role of the member with this address.
    pub fn role_of(&self, email: &Email) -> Option<Role> {
        self.get(email).map(|member| member.role)
    }

    fn owners(&self) -> usize {
        self.members
            .iter()
            .filter(|member| member.role == Role::Owner)
            .count()
    }

    fn index_of(&self, email: &Email) -> Result<usize, MemberError> {
        self.members
            .iter()
            .position(|member| &member.email == email)
            .ok_or(MemberError::NotMember)
    }

    /// Gives a member another role; the last owner keeps theirs.
    pub fn set_role(&mut self, email: &Email, role: Role) -> Result<(), MemberError> {
        let at = self.index_of(email)?;
        if self.members[at].role == Role::Owner && role != Role::Owner && self.owners() == 1 {
            return Err(MemberError::LastOwner);
        }
        self.members[at].role = role;
        Ok(())
    }

    /// Sets when a member is emailed about new responses.
    pub fn set_notify(&mut self, email: &Email, notify: Notify) -> Result<(), MemberError> {
        let at = self.index_of(email)?;
        self.members[at].notify = notify;
        Ok(())
    }

    /// Removes a member; the last owner stays.
    pub fn remove(&mut self, email: &Email) -> Result<Member, MemberError> {
        let at = self.index_of(email)?;
        if self.members[at].role == Role::Owner && self.owners() == 1 {
            return Err(MemberError::LastOwner);
        }
        Ok(self.members.remove(at))
    }

    /// Adds an invitation, replacing any earlier one to the same address; expired ones go.
    pub fn invite(
        &mut self,
        invitation: Invitation,
        now: OffsetDateTime,
    ) -> Result<(), MemberError> {
        if self.get(&invitation.email).is_some() {
            return Err(MemberError::AlreadyMember(
                invitation.email.as_str().to_owned(),
            ));
        }
        self.invitations
            .retain(|waiting| waiting.expires > now && waiting.email != invitation.email);
        if self.invitations.len() >= MAX_INVITATIONS {
            return Err(MemberError::Full(format!(
                "At most {MAX_INVITATIONS} invitations may wait at once: withdraw some first."
            )));
        }
        if self.members.len() + self.invitations.len() >= MAX_MEMBERS {
            return Err(MemberError::Full(format!(
                "A tenant has at most {MAX_MEMBERS} members (invitations included)."
            )));
        }
        self.invitations.push(invitation);
        Ok(())
    }

    /// The live invitation with this id.
    pub fn invitation(&self, id: &str, now: OffsetDateTime) -> Option<&Invitation> {
        self.invitations
            .iter()
            .find(|invitation| invitation.id == id && invitation.expires > now)
    }

    /// Uses an invitation: it goes, and its address joins with its role. Used once only.
    pub fn accept(&mut self, id: &str, now: OffsetDateTime) -> Result<Member, MemberError> {
        let invitation = self
            .invitation(id, now)
            .cloned()
            .ok_or(MemberError::NoInvitation)?;
        if self.get(&invitation.email).is_some() {
            return Err(MemberError::AlreadyMember(
                invitation.email.as_str().to_owned(),
            ));
        }
        self.invitations.retain(|waiting| waiting.id != id);
        let member = Member {
            email: invitation.email,
            role: invitation.role,
            joined: now,
            notify: Notify::Off,
        };
        self.members.push(member.clone());
        Ok(member)
    }

    /// Withdraws an invitation, named by its short id.
    pub fn withdraw(&mut self, short_id: &str) -> Option<Invitation> {
        let at = self
            .invitations
            .iter()
            .position(|invitation| invitation.short_id() == short_id)?;
        Some(self.invitations.remove(at))
    }

    /// The invitations still live, soonest to expire first.
    pub fn waiting(&self, now: OffsetDateTime) -> Vec<&Invitation> {
        let mut live: Vec<_> = self
            .invitations
            .iter()
            .filter(|invitation| invitation.expires > now)
            .collect();
        live.sort_by_key(|invitation| invitation.expires);
        live
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn email(n: usize) -> Email {
        Email::parse(&format!("m{n}@example.com")).expect("an address")
    }

    fn now() -> OffsetDateTime {
        OffsetDateTime::from_unix_timestamp(1_800_000_000).expect("a time")
    }

    fn invitation(n: usize, role: Role) -> Invitation {
        Invitation {
            id: format!("{n:064x}"),
            email: email(n),
            role,
            invited_by: "m0@example.com".into(),
            expires: now() + INVITATION_LIFETIME,
        }
    }

    #[test]
    fn roles_are_ordered_and_each_allows_the_ones_below() {
        assert!(Role::Owner.allows(Role::Editor));
        assert!(Role::Editor.allows(Role::Viewer));
        assert!(Role::Editor.allows(Role::Editor));
        assert!(!Role::Viewer.allows(Role::Editor));
        assert!(!Role::Editor.allows(Role::Owner));
        for role in Role::ALL {
            assert_eq!(Role::parse(role.as_str()), Some(role));
        }
        assert_eq!(Role::parse("admin"), None);
    }

    #[test]
    fn the_last_owner_can_be_neither_demoted_nor_removed() {
        let mut members = Members::founded_by(Some(&email(0)), now());
        assert_eq!(
            members.set_role(&email(0), Role::Editor),
            Err(MemberError::LastOwner)
        );
        assert_eq!(members.remove(&email(0)), Err(MemberError::LastOwner));
        members.invite(invitation(1, Role::Owner), now()).unwrap();
        members
            .accept(&invitation(1, Role::Owner).id, now())
            .unwrap();
        assert_eq!(members.set_role(&email(0), Role::Viewer), Ok(()));
        assert_eq!(members.remove(&email(1)), Err(MemberError::LastOwner));
        assert!(members.remove(&email(0)).is_ok());
    }

    #[test]
    fn an_invitation_is_used_once_and_not_after_it_expires() {
        let mut members = Members::founded_by(Some(&email(0)), now());
        let editor = invitation(1, Role::Editor);
        members.invite(editor.clone(), now()).unwrap();
        let late = editor.expires + Duration::seconds(1);
        assert_eq!(
            members.clone().accept(&editor.id, late),
            Err(MemberError::NoInvitation)
        );
        let member = members.accept(&editor.id, now()).unwrap();
        assert_eq!(member.role, Role::Editor);
        assert_eq!(
            members.accept(&editor.id, now()),
            Err(MemberError::NoInvitation)
        );
        assert_eq!(
            members.invite(invitation(1, Role::Viewer), now()),
            Err(MemberError::AlreadyMember("m1@example.com".into()))
        );
    }

    #[test]
    fn inviting_an_address_again_replaces_its_invitation_and_withdrawing_ends_it() {
        let mut members = Members::founded_by(Some(&email(0)), now());
        members.invite(invitation(1, Role::Editor), now()).unwrap();
        let mut again = invitation(1, Role::Viewer);
        again.id = format!("{:064x}", 99);
        members.invite(again.clone(), now()).unwrap();
        assert_eq!(members.waiting(now()), vec![&again]);
        assert_eq!(
            members.withdraw(again.short_id()).map(|i| i.role),
            Some(Role::Viewer)
        );
        assert_eq!(
            members.accept(&again.id, now()),
            Err(MemberError::NoInvitation)
        );
    }

    #[test]
    fn invitations_are_limited() {
        let mut members = Members::founded_by(Some(&email(0)), now());
        for n in 1..=MAX_INVITATIONS {
            members.invite(invitation(n, Role::Viewer), now()).unwrap();
        }
        assert!(matches!(
            members.invite(invitation(MAX_INVITATIONS + 1, Role::Viewer), now()),
            Err(MemberError::Full(_))
        ));
        // Expired ones make room.
        let later = now() + INVITATION_LIFETIME;
        assert!(
            members
                .invite(invitation(MAX_INVITATIONS + 1, Role::Viewer), later)
                .is_ok()
        );
    }

    #[derive(Clone, Debug)]
    enum Change {
        Invite(usize, Role),
        Accept(usize),
        SetRole(usize, Role),
        Remove(usize),
    }

    fn role() -> impl Strategy<Value = Role> {
        prop_oneof![Just(Role::Viewer), Just(Role::Editor), Just(Role::Owner)]
    }

    fn change() -> impl Strategy<Value = Change> {
        prop_oneof![
            (0..6usize, role()).prop_map(|(n, r)| Change::Invite(n, r)),
            (0..6usize).prop_map(Change::Accept),
            (0..6usize, role()).prop_map(|(n, r)| Change::SetRole(n, r)),
            (0..6usize).prop_map(Change::Remove),
        ]
    }

    proptest! {
        /// Whatever owners do, in any order, the tenant keeps an owner, nobody is a member
        /// twice, and a refused change leaves the members as they were.
        #[test]
        fn no_sequence_of_changes_leaves_a_tenant_without_an_owner(
            changes in proptest::collection::vec(change(), 0..40)
        ) {
            let mut members = Members::founded_by(Some(&email(0)), now());
            for change in changes {
                let before = members.clone();
                let result = match change {
                    Change::Invite(n, role) => members.invite(invitation(n, role), now()),
                    Change::Accept(n) => members.accept(&invitation(n, Role::Viewer).id, now()).map(|_| ()),
                    Change::SetRole(n, role) => members.set_role(&email(n), role),
                    Change::Remove(n) => members.remove(&email(n)).map(|_| ()),
                };
                if result.is_err() {
                    prop_assert_eq!(&members, &before);
                }
                prop_assert!(members.owners() >= 1);
                let mut addresses: Vec<_> = members.members.iter().map(|m| m.email.as_str()).collect();
                addresses.sort();
                let count = addresses.len();
                addresses.dedup();
                prop_assert_eq!(addresses.len(), count);
            }
        }
    }
}
