//! API keys: create (shown once), list and revoke. A key acts with its maker's role; viewers
//! see and revoke their own keys, editors and owners every key of the tenant.

use std::sync::Arc;

use actix_web::{HttpRequest, web};
use askama::Template;

use super::notice;
use super::session::{AtLeast, SignedIn};
use crate::domain::Tenant;
use crate::domain::member::Role;
use crate::service::api_keys::{self, ApiKeyRecord};
use crate::web::forms::field;
use crate::web::roles::Viewer;
use crate::web::tenant::survey_form::MemberForm;
use crate::web::{AppState, Reply, State, WebError, render};

#[derive(Template)]
#[template(path = "tenant/api-keys.html")]
struct KeysPage {
    csrf: String,
    tenant: Arc<Tenant>,
    role: Role,
    keys: Vec<ApiKeyRecord>,
    new_key: Option<String>,
    notice: Option<String>,
}

/// The keys this member may see and revoke: their own, or every key for editors and owners.
async fn visible_keys(
    state: &AppState,
    signed_in: &SignedIn,
) -> Result<Vec<ApiKeyRecord>, WebError> {
    let mut keys = api_keys::list(&state.app, &signed_in.tenant.slug).await?;
    if !signed_in.role.allows(Role::Editor) {
        keys.retain(|key| key.member.as_ref() == Some(&signed_in.session.email));
    }
    Ok(keys)
}

async fn page(
    state: &AppState,
    signed_in: &SignedIn,
    new_key: Option<String>,
) -> Result<KeysPage, WebError> {
    Ok(KeysPage {
        csrf: signed_in.session.csrf.clone(),
        tenant: signed_in.tenant.clone(),
        role: signed_in.role,
        keys: visible_keys(state, signed_in).await?,
        new_key,
        notice: None,
    })
}

/// `GET /tenant/api-keys`
pub async fn show(state: State, signed_in: AtLeast<Viewer>, request: HttpRequest) -> Reply {
    let mut keys = page(&state, &signed_in, None).await?;
    keys.notice = notice::take(&request, &state);
    notice::render_once(&keys, keys.notice.is_some())
}

/// `POST /tenant/api-keys`: makes a key and shows it once.
pub async fn create(state: State, posted: MemberForm<Viewer>) -> Reply {
    let MemberForm { signed_in, form } = posted;
    let label = field(&form, "label").unwrap_or("").trim();
    let label = if label.is_empty() {
        "unnamed key"
    } else {
        label
    };
    let member = (&signed_in.session.email, signed_in.role);
    let (key, _) = api_keys::create(&state.app, signed_in.actor(), member, label).await?;
    render(&page(&state, &signed_in, Some(key)).await?)
}

#[derive(Template)]
#[template(path = "tenant/revoke.html")]
struct RevokePage {
    csrf: String,
    role: Role,
    key: ApiKeyRecord,
}

/// The key with this id that this member may revoke, or 404.
async fn own_key(
    state: &AppState,
    signed_in: &SignedIn,
    id: &str,
) -> Result<ApiKeyRecord, WebError> {
    visible_keys(state, signed_in)
        .await?
        .into_iter()
        .find(|key| key.id == id)
        .ok_or(WebError::NotFound)
}

/// `GET /tenant/api-keys/{id}/revoke`: asks first.
pub async fn confirm_revoke(
    state: State,
    signed_in: AtLeast<Viewer>,
    id: web::Path<String>,
) -> Reply {
    let key = own_key(&state, &signed_in, &id).await?;
    render(&RevokePage {
        csrf: signed_in.session.csrf.clone(),
        role: signed_in.role,
        key,
    })
}

/// `POST /tenant/api-keys/{id}/revoke`
pub async fn revoke(state: State, posted: MemberForm<Viewer>, id: web::Path<String>) -> Reply {
    let signed_in = posted.signed_in;
    let key = own_key(&state, &signed_in, &id).await?;
    if !api_keys::revoke(&state.app, signed_in.actor(), &key).await? {
        return Err(WebError::NotFound);
    }
    Ok(notice::redirect(
        &state,
        "/tenant/api-keys",
        &format!(
            "Key \"{}\" revoked: programs using it can no longer reach the API.",
            key.label
        ),
    ))
}
