//! The HTTP side: routes, pages and the one place errors become responses.

mod api;
pub mod assets;
mod branding;
pub mod client;
mod download;
pub(crate) mod error;
pub mod files;
mod forms;
pub mod funnel;
pub mod headers;
pub mod health;
mod home;
pub mod limits;
mod public;
mod render;
pub mod request_log;
pub mod roles;
pub mod route_table;
mod tenant;
mod upload;

pub use error::{Reply, WebError};
pub use render::{render, render_with_status};

use actix_web::web::{self, ServiceConfig};

/// Where `serve` listens when `CANVASS_LISTEN` is not set.
pub const DEFAULT_LISTEN: &str = "127.0.0.1:8080";
/// Default body limit: room for a 100,000-character answer even fully percent-encoded.
pub const DEFAULT_MAX_BODY_BYTES: usize = 2 * 1024 * 1024;
/// Default largest upload (a question's own limit is 10 MiB unless its owner sets another).
pub const DEFAULT_UPLOAD_MAX_BYTES: u64 = 25 * 1024 * 1024;
/// Default number of uploads a process reads at once.
pub const DEFAULT_UPLOAD_CONCURRENCY: usize = 4;
/// Default time a request body may take to arrive.
pub const DEFAULT_BODY_TIMEOUT_SECS: u64 = 30;

/// How the web side is set up; `config` fills it from the operator's settings.
#[derive(Clone, Debug)]
pub struct WebSettings {
    /// Largest request body accepted.
    pub max_body_bytes: usize,
    /// Largest file uploaded.
    pub upload_max_bytes: u64,
    /// Uploads read at once.
    pub upload_concurrency: usize,
    /// Longest wait for a request body to arrive.
    pub body_timeout: std::time::Duration,
    /// Proxies whose `X-Forwarded-For` is believed.
    pub trusted_proxies: Vec<ipnet::IpNet>,
    /// Hosts a tenant's own export database may be on.
    pub export_hosts: crate::outbound::AllowedHosts,
    /// Hosts webhooks may reach over plain http and on any address.
    pub webhook_hosts: crate::outbound::AllowedHosts,
    /// Whether the operator set up a server-wide export database.
    pub server_exports: bool,
    /// The site's address as respondents reach it, if the operator set it.
    pub public_url: Option<String>,
    /// Whether email is set up (`CANVASS_SMTP_URL`): invitations and reset links are emailed.
    pub mail: bool,
    /// Hosts identity providers may be on over plain http and on any address.
    pub sso_hosts: crate::outbound::AllowedHosts,
}

impl Default for WebSettings {
    fn default() -> Self {
        Self {
            max_body_bytes: DEFAULT_MAX_BODY_BYTES,
            upload_max_bytes: DEFAULT_UPLOAD_MAX_BYTES,
            upload_concurrency: DEFAULT_UPLOAD_CONCURRENCY,
            body_timeout: std::time::Duration::from_secs(DEFAULT_BODY_TIMEOUT_SECS),
            trusted_proxies: Vec::new(),
            export_hosts: crate::outbound::AllowedHosts::default(),
            webhook_hosts: crate::outbound::AllowedHosts::default(),
            server_exports: false,
            public_url: None,
            mail: false,
            sso_hosts: crate::outbound::AllowedHosts::default(),
        }
    }
}

/// What every handler can reach, as actix hands it to a handler.
pub type State = actix_web::web::Data<AppState>;

/// What every handler can reach.
pub struct AppState {
    /// The application's use cases.
    pub app: crate::service::App,
    /// How the operator set the web side up.
    pub settings: WebSettings,
    /// Whether this process should get new requests (`/readyz`).
    pub readiness: std::sync::Arc<health::Readiness>,
    /// What anonymous clients may make the site store, per client.
    pub client_limits: std::sync::Arc<limits::ClientLimits>,
    /// Drop-off counts not yet merged into storage.
    pub funnel: std::sync::Arc<funnel::FunnelCounter>,
    /// The largest file a respondent may upload, and the uploads read at once.
    pub uploads: public::UploadLimits,
}

impl AppState {
    /// The address links in email lead to: the operator's `CANVASS_PUBLIC_URL`, and only
    /// when email is set up. Never taken from a request's headers, which a client chooses:
    /// without it, email that carries links (resets, invitations) is not sent.
    pub fn mail_links(&self) -> Option<&str> {
        self.settings
            .public_url
            .as_deref()
            .filter(|_| self.settings.mail)
    }

    /// Whether invitations and reset links are emailed (email is set up and the site's
    /// address is configured).
    pub fn mail_enabled(&self) -> bool {
        self.mail_links().is_some()
    }

    /// The web side of the application `app`.
    pub fn new(app: crate::service::App, settings: WebSettings) -> Self {
        Self {
            app,
            readiness: std::sync::Arc::default(),
            client_limits: std::sync::Arc::default(),
            funnel: std::sync::Arc::default(),
            uploads: public::UploadLimits::new(
                settings.upload_max_bytes,
                settings.upload_concurrency,
            ),
            settings,
        }
    }

    /// The site's address as respondents reach it: the operator's setting, else the scheme and
    /// `Host` of this request (what the owner's browser reached).
    pub fn site_url(&self, request: &actix_web::HttpRequest) -> String {
        if let Some(url) = &self.settings.public_url {
            return url.clone();
        }
        let host = request
            .headers()
            .get(actix_web::http::header::HOST)
            .and_then(|h| h.to_str().ok())
            .filter(|h| {
                h.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"-.:[]".contains(&b))
            })
            .unwrap_or("localhost");
        format!("{}://{host}", self.scheme(request))
    }

    /// The scheme the client used, believing only trusted proxies' headers.
    pub fn scheme(&self, request: &actix_web::HttpRequest) -> &'static str {
        client::scheme(request, &self.settings.trusted_proxies)
    }

    /// A survey's public address, as owners share it.
    pub fn survey_url(
        &self,
        request: &actix_web::HttpRequest,
        tenant: &crate::domain::TenantSlug,
        survey: &crate::domain::SurveySlug,
    ) -> String {
        format!("{}/s/{tenant}/{survey}", self.site_url(request))
    }

    /// A survey's public address as owners share it: in the first region hosting it, when
    /// that is not this one.
    pub fn survey_address(
        &self,
        request: &actix_web::HttpRequest,
        survey: &crate::domain::Survey,
    ) -> String {
        match crate::service::finding::answered_elsewhere(&self.app, survey) {
            Some(region) => format!("{region}/s/{}/{}", survey.tenant, survey.slug),
            None => self.survey_url(request, &survey.tenant, &survey.slug),
        }
    }
}

/// Every route of the tenant site and of the API, as their tables mount them (the role and
/// cross-tenant walks of the tests read this).
pub fn mounted_routes() -> Vec<route_table::Mounted> {
    tenant::mounted().chain(api::mounted()).collect()
}

/// Mounts every route of the application.
pub fn routes(config: &mut ServiceConfig) {
    // A malformed query (`?page=` with no number) or path (`/responses/abc`) gets the site's
    // own 400 page, not a raw text body; the API's scope answers in JSON instead.
    // The parser's own words ("invalid digit found in string") go to the log, not the page.
    fn unreadable(error: impl std::fmt::Display) -> actix_web::Error {
        tracing::debug!(%error, "an unreadable address");
        WebError::BadRequest(
            "Part of this address is not right (a page number, say). Check the link you \
             followed, or start again from the home page."
                .into(),
        )
        .into()
    }
    let query = web::QueryConfig::default().error_handler(|error, _| unreadable(error));
    let path = web::PathConfig::default().error_handler(|error, _| unreadable(error));
    // Routes are tried in turn, each a pattern match: respondents' pages, the busiest, come
    // first (no other route starts with `/s`, so none is shadowed).
    config
        .app_data(query)
        .app_data(path)
        .configure(public::routes)
        .route("/", web::get().to(home::show))
        .route("/healthz", web::get().to(health::check))
        .route("/readyz", web::get().to(health::ready))
        .route("/static/{file}", web::get().to(assets::serve))
        .route("/files/{token}", web::get().to(files::download))
        .configure(branding::routes)
        .configure(api::routes)
        .configure(tenant::routes)
        .default_service(web::to(error::not_found));
}
