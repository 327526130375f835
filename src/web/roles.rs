//! The role a route needs, as a type: a handler names it in its extractor
//! (`AtLeast<Editor>` on the tenant site, `ApiCaller<Editor>` in the API), so no handler can
//! reach a tenant without saying what it needs, and the check lives in the extractors only.

use crate::domain::member::Role;

/// A role a route needs.
pub trait Needs {
    /// The least role that may use the route.
    const ROLE: Role;
}

/// Any member: reading.
pub enum Viewer {}
/// Editors and owners: changing surveys, responses, exports, webhooks and keys.
pub enum Editor {}
/// Owners: members, settings, the audit log.
pub enum Owner {}

impl Needs for Viewer {
    const ROLE: Role = Role::Viewer;
}
impl Needs for Editor {
    const ROLE: Role = Role::Editor;
}
impl Needs for Owner {
    const ROLE: Role = Role::Owner;
}

/// Why a member is refused, in words for a page or a JSON error.
pub fn refusal(role: Role, needed: Role) -> String {
    let who = match needed {
        Role::Owner => "an owner",
        Role::Editor => "an editor or an owner",
        Role::Viewer => "a member",
    };
    format!(
        "Only {who} of the tenant may do this, and your role is {role}. Ask an owner if you need it."
    )
}
