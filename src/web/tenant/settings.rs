//! The tenant's settings page: its own PostgreSQL database for exports, where the operator
//! allows one (`export::AllowedHosts`), checked by connecting before it is saved, and only ever
//! shown back with its password masked. A failed connection says only that it failed: the
//! network's answer would tell a tenant what the server can reach.

use std::sync::Arc;
use std::time::Duration;

use actix_web::http::StatusCode;
use actix_web::http::header::LOCATION;
use actix_web::{HttpResponse, web};
use askama::Template;
use sqlx::{Connection, PgConnection};

use super::session::SignedIn;
use crate::domain::Tenant;
use crate::stores::tenant_settings::{TenantSettings, masked};
use crate::web::forms::{field, read_form};
use crate::web::{AppState, WebError, render, render_with_status};

#[derive(Template)]
#[template(path = "tenant/settings.html")]
struct SettingsPage {
    csrf: String,
    tenant: Arc<Tenant>,
    current: Option<String>,
    error: Option<String>,
    saved: bool,
    /// Whether the operator set up a server-wide export database.
    server_exports: bool,
    /// Whether tenants may set their own, and where.
    own_allowed: Option<String>,
}

async fn page(state: &AppState, signed_in: &SignedIn) -> Result<SettingsPage, WebError> {
    let settings = state
        .stores
        .tenant_settings
        .get(&signed_in.tenant.slug)
        .await?;
    Ok(SettingsPage {
        csrf: signed_in.session.csrf.clone(),
        tenant: signed_in.tenant.clone(),
        current: settings.export_database_url.as_deref().map(masked),
        error: None,
        saved: false,
        server_exports: state.server_exports,
        own_allowed: state
            .export_hosts
            .any()
            .then(|| state.export_hosts.to_string()),
    })
}

/// Whether the settings were just saved.
#[derive(serde::Deserialize)]
pub struct SavedQuery {
    saved: Option<String>,
}

/// `GET /tenant/settings`
pub async fn show(
    state: web::Data<AppState>,
    signed_in: SignedIn,
    query: web::Query<SavedQuery>,
) -> Result<HttpResponse, WebError> {
    let mut settings = page(&state, &signed_in).await?;
    settings.saved = query.saved.is_some();
    render(&settings)
}

/// `POST /tenant/settings`: sets (after a successful connection) or clears the database.
pub async fn save(
    state: web::Data<AppState>,
    signed_in: SignedIn,
    payload: web::Payload,
) -> Result<HttpResponse, WebError> {
    let form = read_form(payload, &state).await?;
    signed_in.check_csrf(field(&form, "csrf"))?;
    let url = field(&form, "export_database_url")
        .unwrap_or("")
        .trim()
        .to_owned();
    let export_database_url = if field(&form, "action") == Some("clear") || url.is_empty() {
        None
    } else {
        let problem = match state.export_hosts.check(&url) {
            Err(refused) => Some(format!("Canvass cannot use this database: {refused}.")),
            Ok(()) => connect(&url).await.err(),
        };
        if let Some(problem) = problem {
            let mut settings = page(&state, &signed_in).await?;
            settings.error = Some(problem);
            return render_with_status(StatusCode::UNPROCESSABLE_ENTITY, &settings);
        }
        Some(url)
    };
    state
        .stores
        .tenant_settings
        .set(
            &signed_in.tenant.slug,
            &TenantSettings {
                export_database_url,
            },
        )
        .await?;
    Ok(HttpResponse::SeeOther()
        .insert_header((LOCATION, "/tenant/settings?saved=1"))
        .finish())
}

/// Connects once, within 5 seconds; the reason of a failure goes to the log only.
async fn connect(url: &str) -> Result<(), String> {
    let failed = || "Canvass could not connect to this database.".to_owned();
    match tokio::time::timeout(Duration::from_secs(5), PgConnection::connect(url)).await {
        Ok(Ok(connection)) => {
            let _ = connection.close().await;
            Ok(())
        }
        Ok(Err(error)) => {
            tracing::info!(%error, "a tenant's export database could not be reached");
            Err(failed())
        }
        Err(_) => Err(failed()),
    }
}
