//! The tenant's settings page: its time zone, the look of its public pages (accent colour and
//! logo, checked before they are kept), and its own PostgreSQL database for exports, where the operator
//! allows one (`outbound::AllowedHosts`), checked by connecting before it is saved, and only ever
//! shown back with its password masked. A failed connection says only that it failed: the
//! network's answer would tell a tenant what the server can reach.

use std::sync::Arc;
use std::time::Duration;

use actix_web::http::StatusCode;
use actix_web::http::header::LOCATION;
use actix_web::{HttpRequest, HttpResponse, web};
use askama::Template;
use sqlx::{Connection, PgConnection};

use super::session::{AtLeast, SignedIn};
use crate::domain::audit::AuditAction;
use crate::domain::member::Role;
use crate::web::roles::Owner;
use crate::web::upload;

use crate::domain::branding::{self, BrandingError, MAX_LOGO_BYTES, logo_type};
use crate::domain::{Tenant, Zone};
use crate::sso::{Provider, SsoSettings};
use crate::stores::tenant_settings::masked;
use crate::web::forms::field;
use crate::web::{AppState, WebError, render, render_with_status};

#[derive(Template)]
#[template(path = "tenant/settings.html")]
pub(super) struct SettingsPage {
    csrf: String,
    role: Role,
    tenant: Arc<Tenant>,
    current: Option<String>,
    error: Option<String>,
    saved: bool,
    /// Whether the operator set up a server-wide export database.
    server_exports: bool,
    /// Whether tenants may set their own, and where.
    own_allowed: Option<String>,
    /// Every time zone's name, for the picker, and the tenant's.
    zones: &'static [String],
    zone: String,
    /// What is wrong with the time zone, the colour or the logo sent.
    zone_error: Option<String>,
    accent_error: Option<String>,
    /// The colour sent, shown again when it was refused (so it can be corrected, not retyped).
    accent_sent: Option<String>,
    logo_error: Option<String>,
    /// The tenant's identity provider (its secret never shown), what is wrong with one sent,
    /// and the address to register with the provider.
    sso: Option<SsoSettings>,
    pub(super) sso_error: Option<String>,
    pub(super) sso_redirect: String,
}

pub(super) async fn page(state: &AppState, signed_in: &SignedIn) -> Result<SettingsPage, WebError> {
    let settings = state
        .stores
        .tenant_settings
        .get(&signed_in.tenant.slug)
        .await?;
    Ok(SettingsPage {
        csrf: signed_in.session.csrf.clone(),
        role: signed_in.role,
        tenant: signed_in.tenant.clone(),
        current: settings.export_database_url.as_deref().map(masked),
        error: None,
        saved: false,
        server_exports: state.server_exports,
        own_allowed: state
            .export_hosts
            .any()
            .then(|| state.export_hosts.to_string()),
        zones: Zone::names(),
        zone: signed_in.tenant.zone().to_string(),
        zone_error: None,
        accent_error: None,
        accent_sent: None,
        logo_error: None,
        sso: settings.sso.map(|sso| SsoSettings {
            client_secret: String::new(),
            ..sso
        }),
        sso_error: None,
        sso_redirect: String::new(),
    })
}

fn saved() -> HttpResponse {
    HttpResponse::SeeOther()
        .insert_header((LOCATION, "/tenant/settings?saved=1"))
        .finish()
}

/// `POST /tenant/settings/zone`: the time zone close dates are entered and shown in.
pub async fn save_zone(
    state: web::Data<AppState>,
    signed_in: AtLeast<Owner>,
    payload: web::Payload,
) -> Result<HttpResponse, WebError> {
    let form = signed_in.checked_form(payload, &state).await?;
    let Some(zone) = Zone::named(field(&form, "time_zone").unwrap_or("")) else {
        let mut settings = page(&state, &signed_in).await?;
        settings.zone_error = Some("Pick a time zone from the list.".into());
        return render_with_status(StatusCode::UNPROCESSABLE_ENTITY, &settings);
    };
    let zone = zone.to_string();
    state
        .stores
        .tenants
        .change(&signed_in.tenant.slug, |tenant| {
            tenant.time_zone = Some(zone.clone());
        })
        .await?;
    crate::service::hosting::refresh_tenant(&state.app, &signed_in.tenant.slug).await?;
    signed_in
        .record(
            &state,
            AuditAction::SettingsChanged,
            format!("time zone {zone}"),
        )
        .await?;
    Ok(saved())
}

/// Most fields of a branding form (it has four).
const MAX_FIELDS: usize = 8;

/// `POST /tenant/settings/branding` (multipart): the accent colour, and a new logo or none.
pub async fn save_branding(
    state: web::Data<AppState>,
    signed_in: AtLeast<Owner>,
    request: HttpRequest,
    payload: web::Payload,
) -> Result<HttpResponse, WebError> {
    let sent = upload::read(&request, payload, "logo", MAX_LOGO_BYTES, MAX_FIELDS).await?;
    let csrf = sent.field("csrf").map(str::to_owned);
    let accent = sent.field("accent").unwrap_or_default().to_owned();
    let remove = sent.field("remove_logo").is_some();
    let logo = sent.file.map(|file| match file {
        Ok(bytes) => logo_type(&bytes).map(|_| bytes),
        Err(upload::TooLarge) => Err(BrandingError::TooLarge),
    });
    signed_in.check_csrf(csrf.as_deref())?;
    let mut settings = page(&state, &signed_in).await?;
    let accent = match accent.trim() {
        "" => None,
        colour => match branding::accent(colour) {
            Ok(colour) => Some(colour),
            Err(error) => {
                settings.accent_error = Some(format!("This colour cannot be used: {error}."));
                settings.accent_sent = Some(colour.chars().take(32).collect());
                None
            }
        },
    };
    if let Some(Err(error)) = &logo {
        settings.logo_error = Some(format!("This file cannot be used: {error}."));
    }
    if settings.accent_error.is_some() || settings.logo_error.is_some() {
        return render_with_status(StatusCode::UNPROCESSABLE_ENTITY, &settings);
    }
    let slug = &signed_in.tenant.slug;
    let store = &state.stores.tenant_settings;
    // The logo is stored first: a record naming it is written only once it is there.
    let logo = match logo {
        Some(Ok(bytes)) => Some(Some(store.set_logo(slug, bytes).await?)),
        _ if remove => Some(None),
        _ => None,
    };
    state
        .stores
        .tenants
        .change(slug, |tenant| {
            tenant.branding.accent = accent.clone();
            if let Some(logo) = &logo {
                tenant.branding.logo = logo.clone();
            }
        })
        .await?;
    if logo == Some(None) {
        store.remove_logo(slug).await?;
    }
    crate::service::hosting::refresh_tenant(&state.app, slug).await?;
    signed_in
        .record(
            &state,
            AuditAction::SettingsChanged,
            "the look of the public pages",
        )
        .await?;
    Ok(saved())
}

/// Whether the settings were just saved.
#[derive(serde::Deserialize)]
pub struct SavedQuery {
    saved: Option<String>,
}

/// `GET /tenant/settings`
pub async fn show(
    state: web::Data<AppState>,
    signed_in: AtLeast<Owner>,
    request: actix_web::HttpRequest,
    query: web::Query<SavedQuery>,
) -> Result<HttpResponse, WebError> {
    let mut settings = page(&state, &signed_in).await?;
    settings.saved = query.saved.is_some();
    settings.sso_redirect = super::sso::callback_url(&state, &request);
    render(&settings)
}

/// `POST /tenant/settings`: sets (after a successful connection) or clears the database.
pub async fn save(
    state: web::Data<AppState>,
    signed_in: AtLeast<Owner>,
    payload: web::Payload,
) -> Result<HttpResponse, WebError> {
    let form = signed_in.checked_form(payload, &state).await?;
    let url = field(&form, "export_database_url")
        .unwrap_or("")
        .trim()
        .to_owned();
    let export_database_url = if field(&form, "action") == Some("clear") || url.is_empty() {
        None
    } else {
        let problem = match crate::export::check_target(&state.export_hosts, &url) {
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
        .change(&signed_in.tenant.slug, |settings| {
            settings.export_database_url = export_database_url.clone();
        })
        .await?;
    signed_in
        .record(&state, AuditAction::SettingsChanged, "the export database")
        .await?;
    Ok(saved())
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

/// `POST /tenant/settings/sso`: sets (after discovery works) or removes the provider.
pub async fn save_sso(
    request: HttpRequest,
    state: web::Data<AppState>,
    signed_in: AtLeast<Owner>,
    payload: web::Payload,
) -> Result<HttpResponse, WebError> {
    let form = signed_in.checked_form(payload, &state).await?;
    let slug = &signed_in.tenant.slug;
    let current = super::sso::settings_of(&state, slug).await?;
    let chosen = if field(&form, "action") == Some("remove") {
        None
    } else {
        let text = |name| field(&form, name).unwrap_or("").trim().to_owned();
        // A blank secret keeps the one saved (it is never shown back).
        let secret = match text("client_secret") {
            typed if typed.is_empty() => current
                .as_ref()
                .map(|c| c.client_secret.clone())
                .unwrap_or_default(),
            typed => typed,
        };
        let settings = SsoSettings {
            issuer: text("issuer"),
            client_id: text("client_id"),
            client_secret: secret,
            required: field(&form, "required") == Some("on"),
        };
        if let Err(error) = Provider::discover(&settings, &state.sso_hosts).await {
            let mut page = page(&state, &signed_in).await?;
            page.sso_error = Some(error.to_string());
            page.sso_redirect = super::sso::callback_url(&state, &request);
            return render_with_status(StatusCode::UNPROCESSABLE_ENTITY, &page);
        }
        Some(settings)
    };
    let detail = match &chosen {
        Some(settings) => format!(
            "single sign-on through {}{}",
            settings.issuer,
            if settings.required { ", required" } else { "" }
        ),
        None => "single sign-on removed".to_owned(),
    };
    state
        .stores
        .tenant_settings
        .change(slug, |settings| settings.sso = chosen.clone())
        .await?;
    signed_in
        .record(&state, AuditAction::SettingsChanged, detail)
        .await?;
    Ok(HttpResponse::SeeOther()
        .insert_header((LOCATION, "/tenant/settings?saved=1#sso-title"))
        .finish())
}
