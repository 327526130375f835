//! The owners' members page: who belongs with which role, the invitations waiting, inviting
//! someone (the link is shown to copy, and emailed when mail is set up), changing a role,
//! removing a member and withdrawing an invitation.

use std::sync::Arc;

use actix_web::{HttpRequest, web};
use askama::Template;
use time::OffsetDateTime;

use super::notice;
use super::session::{AtLeast, SignedIn};
use crate::domain::Tenant;
use crate::domain::account::Email;
use crate::domain::member::{Invitation, Member, MemberError, Role};
use crate::service::members;
use crate::web::forms::field;
use crate::web::roles::Owner;
use crate::web::tenant::survey_form::MemberForm;
use crate::web::{AppState, Reply, State, WebError, render, render_with_status};

#[derive(Template)]
#[template(path = "tenant/members.html")]
struct MembersPage {
    csrf: String,
    tenant: Arc<Tenant>,
    role: Role,
    me: String,
    members: Vec<Member>,
    invitations: Vec<Invitation>,
    roles: [Role; 3],
    /// A new invitation's link, shown once, and whether it was emailed.
    new_link: Option<(String, Email, bool)>,
    /// The invite form's address and role when it is shown again.
    email: String,
    invite_role: Role,
    error: Option<String>,
    notice: Option<String>,
}

impl MembersPage {
    /// Whether `member` is the tenant's only owner: they are offered no removal and no other
    /// role (a tenant never loses its last owner).
    fn is_last_owner(&self, member: &Member) -> bool {
        member.role == Role::Owner
            && self
                .members
                .iter()
                .filter(|m| m.role == Role::Owner)
                .count()
                == 1
    }
}

/// The page that asks before a member is removed.
#[derive(Template)]
#[template(path = "tenant/remove-member.html")]
struct RemovePage {
    csrf: String,
    role: Role,
    tenant: Arc<Tenant>,
    member: Member,
    /// Whether the member is the one asking (they would sign themselves out).
    me: bool,
}

/// Which member a link names.
#[derive(serde::Deserialize)]
pub struct Named {
    email: String,
}

/// `GET /tenant/members/remove?email=...`: asks first, saying what removing does.
pub async fn confirm_remove(
    state: State,
    signed_in: AtLeast<Owner>,
    query: web::Query<Named>,
) -> Reply {
    let email = Email::parse(&query.email).ok_or(WebError::NotFound)?;
    let member = match members::removable(&state.app, &signed_in.tenant, &email).await? {
        Ok(member) => member,
        Err(MemberError::LastOwner) => {
            return Ok(notice::redirect(
                &state,
                "/tenant/members",
                &format!(
                    "{} is the only owner, so they stay: make someone else an owner first.",
                    email.as_str()
                ),
            ));
        }
        Err(_) => return Err(WebError::NotFound),
    };
    render(&RemovePage {
        csrf: signed_in.session.csrf.clone(),
        role: signed_in.role,
        tenant: signed_in.tenant.clone(),
        me: member.email == signed_in.session.email,
        member,
    })
}

async fn page(state: &AppState, signed_in: &SignedIn) -> Result<MembersPage, WebError> {
    let members = members::read(&state.app, &signed_in.tenant).await?;
    let now = OffsetDateTime::now_utc();
    Ok(MembersPage {
        csrf: signed_in.session.csrf.clone(),
        tenant: signed_in.tenant.clone(),
        role: signed_in.role,
        me: signed_in.session.email.as_str().to_owned(),
        invitations: members.waiting(now).into_iter().cloned().collect(),
        members: members.members,
        roles: Role::ALL,
        new_link: None,
        email: String::new(),
        invite_role: Role::Viewer,
        error: None,
        notice: None,
    })
}

/// `GET /tenant/members`
pub async fn show(state: State, signed_in: AtLeast<Owner>, request: HttpRequest) -> Reply {
    let mut members = page(&state, &signed_in).await?;
    members.notice = notice::take(&request, &state);
    notice::render_once(&members, members.notice.is_some())
}

/// `POST /tenant/members/invite`: invites an address with a role and shows the link once.
pub async fn invite(state: State, posted: MemberForm<Owner>, request: HttpRequest) -> Reply {
    let MemberForm { signed_in, form } = posted;
    let email_text = field(&form, "email").unwrap_or("").trim().to_owned();
    let role = field(&form, "role").and_then(Role::parse);
    let mut members = page(&state, &signed_in).await?;
    members.email = email_text.clone();
    members.invite_role = role.unwrap_or(Role::Viewer);
    let (Some(email), Some(role)) = (Email::parse(&email_text), role) else {
        members.error = Some(match role {
            None => "Choose a role: viewer, editor or owner.".into(),
            Some(_) => "Enter an email address like name@example.com.".into(),
        });
        return render_with_status(actix_web::http::StatusCode::UNPROCESSABLE_ENTITY, &members);
    };
    match members::invite(
        &state.app,
        signed_in.actor(),
        &signed_in.tenant,
        &email,
        role,
    )
    .await?
    {
        Ok(token) => {
            // Emailed links lead only to the configured address; a link shown here to the
            // owner may follow the address their own browser reached.
            let mail_site = state.mail_links();
            let site = mail_site.map_or_else(|| state.site_url(&request), str::to_owned);
            let link = crate::links::invitation(&site, &token);
            let mailed = mail_site.is_some();
            if mailed {
                let to = (&email, role);
                members::mail_invitation(
                    &state.app,
                    signed_in.actor(),
                    &signed_in.tenant,
                    to,
                    &link,
                )
                .await?;
            }
            let mut members = page(&state, &signed_in).await?;
            members.new_link = Some((link, email, mailed));
            render_with_status(actix_web::http::StatusCode::OK, &members)
        }
        Err(reason) => {
            members.error = Some(reason.to_string());
            render_with_status(actix_web::http::StatusCode::UNPROCESSABLE_ENTITY, &members)
        }
    }
}

/// The member a posted form names, as an address.
fn named(form: &[(String, String)]) -> Result<Email, WebError> {
    field(form, "email")
        .and_then(Email::parse)
        .ok_or_else(|| WebError::BadRequest("The form names no member.".into()))
}

/// `POST /tenant/members/role`: gives a member another role (the last owner keeps theirs).
pub async fn set_role(state: State, posted: MemberForm<Owner>) -> Reply {
    let MemberForm { signed_in, form } = posted;
    let email = named(&form)?;
    let role = field(&form, "role")
        .and_then(Role::parse)
        .ok_or_else(|| WebError::BadRequest("Choose a role: viewer, editor or owner.".into()))?;
    let changed = members::set_role(
        &state.app,
        signed_in.actor(),
        &signed_in.tenant,
        &email,
        role,
    )
    .await?;
    let left_owners = changed.is_ok() && email == signed_in.session.email && role != Role::Owner;
    let text = match changed {
        Ok(()) => format!("{} is now {}.", email.as_str(), role.with_article()),
        Err(reason) => reason.to_string(),
    };
    // Stepping down from owner leaves this page behind.
    let back = if left_owners {
        "/tenant"
    } else {
        "/tenant/members"
    };
    Ok(notice::redirect(&state, back, &text))
}

/// `POST /tenant/members/remove`: removes a member (the last owner stays); their sessions,
/// keys and account go with the membership.
pub async fn remove(state: State, posted: MemberForm<Owner>) -> Reply {
    let MemberForm { signed_in, form } = posted;
    let email = named(&form)?;
    let removed = members::remove(&state.app, signed_in.actor(), &signed_in.tenant, &email).await?;
    let left = removed.is_ok() && email == signed_in.session.email;
    let text = match removed {
        Ok(_) => format!(
            "{} was removed: their sessions and API keys no longer work.",
            email.as_str()
        ),
        Err(reason) => reason.to_string(),
    };
    let back = if left {
        "/tenant/sign-in"
    } else {
        "/tenant/members"
    };
    Ok(notice::redirect(&state, back, &text))
}

/// `POST /tenant/members/invitations/{id}/withdraw`: the invitation's link stops working.
pub async fn withdraw(state: State, posted: MemberForm<Owner>, id: web::Path<String>) -> Reply {
    let signed_in = posted.signed_in;
    let invitation = members::withdraw(&state.app, signed_in.actor(), &signed_in.tenant, &id)
        .await?
        .ok_or(WebError::NotFound)?;
    Ok(notice::redirect(
        &state,
        "/tenant/members",
        &format!(
            "The invitation of {} was withdrawn: its link no longer works.",
            invitation.email.as_str()
        ),
    ))
}
