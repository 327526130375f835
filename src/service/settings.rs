//! A tenant's settings: the look of its public pages (accent colour, logo), its time zone,
//! its export database and its single sign-on, each change with its audit entry, and pushed
//! to the regions hosting its surveys.

use std::time::Duration;

use bytes::Bytes;
use sqlx::{Connection, PgConnection};

use super::{Actor, App};
use crate::domain::audit::AuditAction;
use crate::domain::{TenantSlug, Zone};
use crate::outbound::AllowedHosts;
use crate::sso::{Provider, SsoSettings};
use crate::stores::StoreError;
pub use crate::stores::tenant_settings::{TenantSettings, masked};

/// A tenant's logo as its public pages show it: kept at home, or copied to this region when
/// it hosts the tenant's surveys (`hosted`).
pub async fn logo(
    app: &App,
    tenant: &TenantSlug,
    hosted: bool,
) -> Result<Option<Bytes>, StoreError> {
    let stores = app.stores();
    match hosted {
        true => stores.residency.hosted.logo(tenant).await,
        false => stores.catalog.settings.logo(tenant).await,
    }
}

/// What the tenant has set (defaults if nothing).
pub async fn read(app: &App, tenant: &TenantSlug) -> Result<TenantSettings, StoreError> {
    app.stores().catalog.settings.get(tenant).await
}

/// Sets the time zone close dates are entered and shown in.
pub async fn set_zone(app: &App, actor: Actor<'_>, zone: Zone) -> Result<(), StoreError> {
    let zone = zone.to_string();
    app.stores()
        .catalog
        .tenants
        .change(actor.tenant, |tenant| {
            tenant.time_zone = Some(zone.clone());
        })
        .await?;
    super::hosting::refresh_tenant(app, actor.tenant).await?;
    let detail = format!("time zone {zone}");
    actor
        .record(app, AuditAction::SettingsChanged, detail)
        .await
}

/// What a branding change does to the logo.
#[derive(Debug)]
pub enum LogoChange {
    /// Keeps the one there is (or none).
    Keep,
    /// A new logo, already checked to be an image the pages can show.
    New(Bytes),
    /// No logo any more.
    Remove,
}

/// Sets the accent colour (already checked) and changes the logo. The logo is stored first:
/// a record naming it is written only once it is there.
pub async fn set_branding(
    app: &App,
    actor: Actor<'_>,
    accent: Option<String>,
    logo: LogoChange,
) -> Result<(), StoreError> {
    let stores = app.stores();
    let slug = actor.tenant;
    let store = &stores.catalog.settings;
    let logo = match logo {
        LogoChange::New(bytes) => Some(Some(store.set_logo(slug, bytes).await?)),
        LogoChange::Remove => Some(None),
        LogoChange::Keep => None,
    };
    stores
        .catalog
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
    super::hosting::refresh_tenant(app, slug).await?;
    actor
        .record(
            app,
            AuditAction::SettingsChanged,
            "the look of the public pages",
        )
        .await
}

/// Sets the tenant's own export database, once a connection to it works from here, or clears
/// it (`None`); why it is refused otherwise. A failed connection says only that it failed:
/// the network's answer would tell a tenant what the server can reach.
pub async fn set_export_database(
    app: &App,
    actor: Actor<'_>,
    allowed: &AllowedHosts,
    url: Option<String>,
) -> Result<Result<(), String>, StoreError> {
    if let Some(url) = &url {
        let problem = match crate::export::check_target(allowed, url) {
            Err(refused) => Some(format!("Canvass cannot use this database: {refused}.")),
            Ok(()) => connect(url).await.err(),
        };
        if let Some(problem) = problem {
            return Ok(Err(problem));
        }
    }
    app.stores()
        .catalog
        .settings
        .change(actor.tenant, |settings| {
            settings.export_database_url = url.clone();
        })
        .await?;
    actor
        .record(app, AuditAction::SettingsChanged, "the export database")
        .await?;
    Ok(Ok(()))
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

/// Sets the tenant's identity provider, once its discovery works from here, or removes it
/// (`None`); why it is refused otherwise. A blank client secret keeps the one saved (it is
/// never shown back).
pub async fn set_provider(
    app: &App,
    actor: Actor<'_>,
    allowed: &AllowedHosts,
    chosen: Option<SsoSettings>,
) -> Result<Result<(), String>, StoreError> {
    let store = &app.stores().catalog.settings;
    let chosen = match chosen {
        None => None,
        Some(mut settings) => {
            if settings.client_secret.is_empty() {
                let current = store.get(actor.tenant).await?.sso;
                settings.client_secret = current.map(|c| c.client_secret).unwrap_or_default();
            }
            if let Err(error) = Provider::discover(&settings, allowed).await {
                return Ok(Err(error.to_string()));
            }
            Some(settings)
        }
    };
    let detail = match &chosen {
        Some(settings) => format!(
            "single sign-on through {}{}",
            settings.issuer,
            if settings.required { ", required" } else { "" }
        ),
        None => "single sign-on removed".to_owned(),
    };
    store
        .change(actor.tenant, |settings| settings.sso = chosen.clone())
        .await?;
    actor
        .record(app, AuditAction::SettingsChanged, detail)
        .await?;
    Ok(Ok(()))
}
