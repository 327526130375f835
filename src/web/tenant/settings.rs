//! The tenant's settings page: its own PostgreSQL database for exports, checked by connecting
//! before it is saved, and only ever shown back with its password masked.

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
    let form = read_form(payload, state.max_body_bytes).await?;
    signed_in.check_csrf(field(&form, "csrf"))?;
    let url = field(&form, "export_database_url")
        .unwrap_or("")
        .trim()
        .to_owned();
    let export_database_url = if field(&form, "action") == Some("clear") || url.is_empty() {
        None
    } else {
        let connected =
            tokio::time::timeout(Duration::from_secs(5), PgConnection::connect(&url)).await;
        let problem = match connected {
            Ok(Ok(connection)) => {
                let _ = connection.close().await;
                None
            }
            // The reason, never the URL: it holds a password.
            Ok(Err(error)) => Some(format!(
                "Canvass could not connect to this database: {}",
                reason(&error)
            )),
            Err(_) => {
                Some("Canvass could not connect to this database within 5 seconds.".to_owned())
            }
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

/// A connection failure in words, without echoing the URL.
fn reason(error: &sqlx::Error) -> String {
    match error {
        sqlx::Error::Configuration(_) => "this is not a valid postgres:// URL".into(),
        sqlx::Error::Database(error) => error.message().to_owned(),
        sqlx::Error::Io(error) => error.to_string(),
        sqlx::Error::Tls(_) => "the TLS handshake failed".into(),
        _ => "the connection failed".into(),
    }
}
