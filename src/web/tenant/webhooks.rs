//! The tenant's webhooks: add an endpoint (its secret shown once), see each one's state and
//! latest deliveries, send a test event, remove one.

use std::sync::Arc;

use actix_web::{HttpRequest, web};
use askama::Template;

use super::notice;
use super::session::{AtLeast, SignedIn};
use crate::domain::Tenant;
use crate::domain::member::Role;
use crate::service::webhooks::{self as service, Refusal};
use crate::service::webhooks::{DeliveryRecord, Endpoint, MAX_ENDPOINTS};
use crate::web::forms::field;
use crate::web::roles::Editor;
use crate::web::tenant::survey_form::MemberForm;
use crate::web::{AppState, Reply, State, WebError, render};

/// An endpoint with its latest deliveries.
struct EndpointView {
    endpoint: Endpoint,
    deliveries: Vec<DeliveryRecord>,
}

#[derive(Template)]
#[template(path = "tenant/webhooks.html")]
struct WebhooksPage {
    csrf: String,
    role: Role,
    tenant: Arc<Tenant>,
    endpoints: Vec<EndpointView>,
    /// A new endpoint's URL and secret, shown once.
    created: Option<(String, String)>,
    notice: Option<String>,
    /// The URL typed and why it was refused.
    refused: Option<(String, String)>,
}

async fn page(state: &AppState, signed_in: &SignedIn) -> Result<WebhooksPage, WebError> {
    let tenant = &signed_in.tenant.slug;
    let endpoints = service::with_deliveries(&state.app, tenant)
        .await?
        .into_iter()
        .map(|(endpoint, deliveries)| EndpointView {
            endpoint,
            deliveries,
        })
        .collect();
    Ok(WebhooksPage {
        csrf: signed_in.session.csrf.clone(),
        role: signed_in.role,
        tenant: signed_in.tenant.clone(),
        endpoints,
        created: None,
        notice: None,
        refused: None,
    })
}

/// `GET /tenant/webhooks`
pub async fn show(state: State, signed_in: AtLeast<Editor>, request: HttpRequest) -> Reply {
    let mut shown = page(&state, &signed_in).await?;
    shown.notice = notice::take(&request, &state);
    notice::render_once(&shown, shown.notice.is_some())
}

/// `POST /tenant/webhooks`: adds an endpoint and shows its secret once.
pub async fn create(state: State, posted: MemberForm<Editor>) -> Reply {
    let MemberForm { signed_in, form } = posted;
    let typed = field(&form, "url").unwrap_or("").trim().to_owned();
    let added = service::add(
        &state.app,
        signed_in.actor(),
        &state.settings.webhook_hosts,
        &typed,
    )
    .await?;
    let mut shown = page(&state, &signed_in).await?;
    match added {
        Ok((endpoint, secret)) => {
            shown.created = Some((endpoint.url, secret.as_str().to_owned()));
            render(&shown)
        }
        Err(refusal) => {
            let problem = match refusal {
                Refusal::Address(problem) => problem,
                Refusal::TooMany => format!(
                    "You have {MAX_ENDPOINTS} webhooks, the most there can be: remove one first."
                ),
            };
            shown.refused = Some((typed, problem));
            crate::web::render_with_status(
                actix_web::http::StatusCode::UNPROCESSABLE_ENTITY,
                &shown,
            )
        }
    }
}

/// `POST /tenant/webhooks/{id}/test`: queues a test event.
pub async fn test(state: State, posted: MemberForm<Editor>, id: web::Path<String>) -> Reply {
    let signed_in = posted.signed_in;
    service::send_test(&state.app, signed_in.actor(), &id)
        .await?
        .ok_or(WebError::NotFound)?;
    Ok(notice::redirect(
        &state,
        "/tenant/webhooks",
        "Test event queued: it shows in the endpoint's deliveries in a moment.",
    ))
}

/// `POST /tenant/webhooks/{id}/remove`
pub async fn remove(state: State, posted: MemberForm<Editor>, id: web::Path<String>) -> Reply {
    let signed_in = posted.signed_in;
    if !service::remove(&state.app, signed_in.actor(), &id).await? {
        return Err(WebError::NotFound);
    }
    Ok(notice::redirect(
        &state,
        "/tenant/webhooks",
        "Webhook removed: nothing more is sent to it.",
    ))
}
