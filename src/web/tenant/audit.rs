//! The owners' audit log page: who did what and when, newest first, 50 entries a page.

use std::sync::Arc;

use actix_web::web;
use askama::Template;
use serde::Deserialize;

use super::session::AtLeast;
use crate::domain::audit::AuditEntry;
use crate::domain::member::Role;
use crate::domain::{Tenant, Zone};
use crate::web::api::checked_token;
use crate::web::roles::Owner;
use crate::web::{Reply, State, WebError, render};

#[derive(Template)]
#[template(path = "tenant/audit.html")]
struct AuditPage {
    csrf: String,
    role: Role,
    tenant: Arc<Tenant>,
    /// Entries with their time in the tenant's zone.
    entries: Vec<(String, AuditEntry)>,
    /// The token of the next (older) page.
    next: Option<String>,
    /// Whether this is a later page (so "Newest" is offered).
    later: bool,
}

/// Which page.
#[derive(Deserialize)]
pub struct AuditQuery {
    page: Option<String>,
}

/// `GET /tenant/audit?page=TOKEN`
pub async fn show(state: State, signed_in: AtLeast<Owner>, query: web::Query<AuditQuery>) -> Reply {
    let token = checked_token(query.into_inner().page).map_err(WebError::BadRequest)?;
    let later = token.is_some();
    let page = crate::service::audit::page(&state.app, &signed_in.tenant.slug, token).await?;
    let zone: Zone = signed_in.tenant.zone();
    render(&AuditPage {
        csrf: signed_in.session.csrf.clone(),
        role: signed_in.role,
        tenant: signed_in.tenant.clone(),
        entries: page
            .entries
            .into_iter()
            .map(|entry| (zone.stamp(entry.at), entry))
            .collect(),
        next: page.next,
        later,
    })
}
