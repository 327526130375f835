//! The tenant's settings page: its time zone, the look of its public pages (accent colour and
//! logo, checked before they are kept), and its own PostgreSQL database for exports, where the operator
//! allows one (`outbound::AllowedHosts`), checked by connecting before it is saved, and only ever
//! shown back with its password masked. A failed connection says only that it failed: the
//! network's answer would tell a tenant what the server can reach.

use std::sync::Arc;

use actix_web::http::StatusCode;
use actix_web::http::header::LOCATION;
use actix_web::{HttpRequest, HttpResponse, web};
use askama::Template;

use super::session::{AtLeast, SignedIn};
use crate::domain::member::Role;
use crate::web::roles::Owner;
use crate::web::upload;

use crate::domain::branding::{self, BrandingError, MAX_LOGO_BYTES, logo_type};
use crate::domain::{Tenant, Zone};
use crate::service::settings::{self as service, LogoChange, masked};
use crate::sso::SsoSettings;
use crate::web::forms::field;
use crate::web::tenant::survey_form::MemberForm;
use crate::web::{AppState, Reply, State, WebError, render, render_with_status};

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
    let settings = service::read(&state.app, &signed_in.tenant.slug).await?;
    Ok(SettingsPage {
        csrf: signed_in.session.csrf.clone(),
        role: signed_in.role,
        tenant: signed_in.tenant.clone(),
        current: settings.export_database_url.as_deref().map(masked),
        error: None,
        saved: false,
        server_exports: state.settings.server_exports,
        own_allowed: state
            .settings
            .export_hosts
            .any()
            .then(|| state.settings.export_hosts.to_string()),
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
pub async fn save_zone(state: State, posted: MemberForm<Owner>) -> Reply {
    let MemberForm { signed_in, form } = posted;
    let Some(zone) = Zone::named(field(&form, "time_zone").unwrap_or("")) else {
        let mut settings = page(&state, &signed_in).await?;
        settings.zone_error = Some("Pick a time zone from the list.".into());
        return render_with_status(StatusCode::UNPROCESSABLE_ENTITY, &settings);
    };
    service::set_zone(&state.app, signed_in.actor(), zone).await?;
    Ok(saved())
}

/// Most fields of a branding form (it has four).
const MAX_FIELDS: usize = 8;

/// `POST /tenant/settings/branding` (multipart): the accent colour, and a new logo or none.
pub async fn save_branding(
    state: State,
    signed_in: AtLeast<Owner>,
    request: HttpRequest,
    payload: web::Payload,
) -> Reply {
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
    let logo = match logo {
        Some(Ok(bytes)) => LogoChange::New(bytes),
        _ if remove => LogoChange::Remove,
        _ => LogoChange::Keep,
    };
    service::set_branding(&state.app, signed_in.actor(), accent, logo).await?;
    Ok(saved())
}

/// Whether the settings were just saved.
#[derive(serde::Deserialize)]
pub struct SavedQuery {
    saved: Option<String>,
}

/// `GET /tenant/settings`
pub async fn show(
    state: State,
    signed_in: AtLeast<Owner>,
    request: actix_web::HttpRequest,
    query: web::Query<SavedQuery>,
) -> Reply {
    let mut settings = page(&state, &signed_in).await?;
    settings.saved = query.saved.is_some();
    settings.sso_redirect = super::sso::callback_url(&state, &request);
    render(&settings)
}

/// `POST /tenant/settings`: sets (after a successful connection) or clears the database.
pub async fn save(state: State, posted: MemberForm<Owner>) -> Reply {
    let MemberForm { signed_in, form } = posted;
    let url = field(&form, "export_database_url")
        .unwrap_or("")
        .trim()
        .to_owned();
    let url = (field(&form, "action") != Some("clear") && !url.is_empty()).then_some(url);
    let set = service::set_export_database(
        &state.app,
        signed_in.actor(),
        &state.settings.export_hosts,
        url,
    );
    if let Err(problem) = set.await? {
        let mut settings = page(&state, &signed_in).await?;
        settings.error = Some(problem);
        return render_with_status(StatusCode::UNPROCESSABLE_ENTITY, &settings);
    }
    Ok(saved())
}

/// `POST /tenant/settings/sso`: sets (after discovery works) or removes the provider.
pub async fn save_sso(request: HttpRequest, state: State, posted: MemberForm<Owner>) -> Reply {
    let MemberForm { signed_in, form } = posted;
    let chosen = (field(&form, "action") != Some("remove")).then(|| {
        let text = |name| field(&form, name).unwrap_or("").trim().to_owned();
        SsoSettings {
            issuer: text("issuer"),
            client_id: text("client_id"),
            client_secret: text("client_secret"),
            required: field(&form, "required") == Some("on"),
        }
    });
    let set = service::set_provider(
        &state.app,
        signed_in.actor(),
        &state.settings.sso_hosts,
        chosen,
    );
    if let Err(error) = set.await? {
        let mut page = page(&state, &signed_in).await?;
        page.sso_error = Some(error);
        page.sso_redirect = super::sso::callback_url(&state, &request);
        return render_with_status(StatusCode::UNPROCESSABLE_ENTITY, &page);
    }
    Ok(HttpResponse::SeeOther()
        .insert_header((LOCATION, "/tenant/settings?saved=1#sso-title"))
        .finish())
}
