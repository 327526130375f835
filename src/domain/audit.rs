//! The audit log's entries: who did what to a tenant, and when.

use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

/// What was done.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "kebab-case")]
pub enum AuditAction {
    /// A member signed in.
    SignIn,
    /// A member set a new password through a reset link.
    PasswordReset,
    /// A member changed their password.
    PasswordChanged,
    /// Someone was invited.
    MemberInvited,
    /// An invitation was withdrawn.
    InvitationWithdrawn,
    /// An invitation was accepted.
    MemberJoined,
    /// A member's role changed.
    RoleChanged,
    /// A member was removed.
    MemberRemoved,
    /// A survey was made (or duplicated).
    SurveyCreated,
    /// A survey was published.
    SurveyPublished,
    /// A survey was closed or taken back to draft.
    SurveyUnpublished,
    /// A survey was deleted.
    SurveyDeleted,
    /// Responses were deleted.
    ResponsesDeleted,
    /// Responses were downloaded or exported.
    ResponsesExported,
    /// The tenant's settings changed.
    SettingsChanged,
    /// An API key was made.
    KeyCreated,
    /// An API key was revoked.
    KeyRevoked,
    /// A webhook was added.
    WebhookAdded,
    /// A webhook was removed.
    WebhookRemoved,
    /// A mailing to a survey's participants was started.
    MailingStarted,
}

impl AuditAction {
    /// Its name in the API.
    pub fn as_str(self) -> &'static str {
        match self {
            AuditAction::SignIn => "sign-in",
            AuditAction::PasswordReset => "password-reset",
            AuditAction::PasswordChanged => "password-changed",
            AuditAction::MemberInvited => "member-invited",
            AuditAction::InvitationWithdrawn => "invitation-withdrawn",
            AuditAction::MemberJoined => "member-joined",
            AuditAction::RoleChanged => "role-changed",
            AuditAction::MemberRemoved => "member-removed",
            AuditAction::SurveyCreated => "survey-created",
            AuditAction::SurveyPublished => "survey-published",
            AuditAction::SurveyUnpublished => "survey-unpublished",
            AuditAction::SurveyDeleted => "survey-deleted",
            AuditAction::ResponsesDeleted => "responses-deleted",
            AuditAction::ResponsesExported => "responses-exported",
            AuditAction::SettingsChanged => "settings-changed",
            AuditAction::KeyCreated => "key-created",
            AuditAction::KeyRevoked => "key-revoked",
            AuditAction::WebhookAdded => "webhook-added",
            AuditAction::WebhookRemoved => "webhook-removed",
            AuditAction::MailingStarted => "mailing-started",
        }
    }
}

/// One entry of a tenant's audit log.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct AuditEntry {
    /// When.
    #[schema(value_type = String, format = DateTime)]
    #[serde(with = "time::serde::rfc3339")]
    pub at: OffsetDateTime,
    /// Who: a member's address, an API key's label and maker, or "operator".
    pub actor: String,
    /// What.
    pub action: AuditAction,
    /// What it was done to (a survey, a member, a key), in words.
    pub detail: String,
}
