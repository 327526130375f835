//! `GET /api/v1/audit`: the tenant's audit log, newest first, a page at a time (owners' keys).

use actix_web::{HttpResponse, web};
use serde::Deserialize;
use utoipa::IntoParams;

use super::{ApiCaller, ApiError};
use crate::service::audit::AuditPage;
use crate::web::State;
use crate::web::roles::Owner;

/// Longest page token accepted (tokens the API hands out are far shorter).
pub const MAX_PAGE_TOKEN: usize = 1024;

/// Which page.
#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct AuditQuery {
    /// The `next` token of the page before; none for the newest entries.
    page: Option<String>,
}

/// `GET /api/v1/audit?page=TOKEN`: `{"entries": [...], "next": TOKEN or null}`, 50 entries a
/// page, newest first.
#[utoipa::path(get, path = "/api/v1/audit", operation_id = "list_audit_entries",
    summary = "Read the audit log, newest first", tag = "audit", params(AuditQuery),
    responses((status = 200, description = "A page of the audit log, newest first", body = AuditPage)))]
pub async fn list(
    state: State,
    caller: ApiCaller<Owner>,
    query: web::Query<AuditQuery>,
) -> Result<HttpResponse, ApiError> {
    let page = checked_token(query.into_inner().page).map_err(ApiError::BadRequest)?;
    let page = crate::service::audit::page(&state.app, &caller.tenant.slug, page).await?;
    Ok(HttpResponse::Ok().json(page))
}

/// A page token as given, refused when longer than any the API hands out.
pub fn checked_token(token: Option<String>) -> Result<Option<String>, String> {
    match token {
        Some(token) if token.len() > MAX_PAGE_TOKEN => Err(format!(
            "the page token is over {MAX_PAGE_TOKEN} characters"
        )),
        Some(token) if token.is_empty() => Ok(None),
        token => Ok(token),
    }
}
