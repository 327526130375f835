//! Sign-up, sign-in and sign-out of survey owners.

use std::collections::BTreeMap;

use actix_web::http::StatusCode;
use actix_web::http::header::LOCATION;
use actix_web::{HttpRequest, HttpResponse, web};
use askama::Template;
use time::OffsetDateTime;

use super::notice;
use super::session::{
    AtLeast, cleared_session_cookie, form_token_cookie, new_form_token, read_public_form,
    session_cookie, session_id,
};
use crate::domain::account::{Account, Email, hash_password, password_problem, verify_password};
use crate::domain::audit::AuditAction;
use crate::domain::member::Role;
use crate::domain::slug::slugify;
use crate::domain::{Subscription, Tenant, TenantSlug};
use crate::stores::throttle::Gate;
use crate::web::audit::record;
use crate::web::client;
use crate::web::forms::field;
use crate::web::roles::Viewer;
use crate::web::{AppState, WebError, render_with_status};

#[derive(Template)]
#[template(path = "tenant/sign-up.html")]
struct SignUpPage {
    csrf: String,
    /// The site's address, before `/s/{slug}` in survey links.
    site: String,
    name: String,
    slug: String,
    premium: bool,
    email: String,
    errors: BTreeMap<&'static str, String>,
    /// Where the organisation's data may live, as (label, that region's sign-up address,
    /// whether it is this one); empty without regions.
    regions: Vec<(String, String, bool)>,
}

/// The installation's regions as the sign-up page offers them.
fn region_choices(state: &AppState) -> Vec<(String, String, bool)> {
    let regions = &state.stores.regions;
    regions
        .all()
        .map(|region| {
            (
                region.label.clone(),
                format!("{}/tenant/sign-up", region.public_url),
                regions.is_here(&region.name),
            )
        })
        .collect()
}

#[derive(Template)]
#[template(path = "tenant/sign-in.html")]
struct SignInPage {
    csrf: String,
    email: String,
    error: Option<String>,
    /// The other regions, as (label, their sign-in address): an account lives in its
    /// organisation's home region and signs in there.
    elsewhere: Vec<(String, String)>,
}

/// The other regions' sign-in pages.
fn sign_in_elsewhere(state: &AppState) -> Vec<(String, String)> {
    region_choices(state)
        .into_iter()
        .filter(|(_, _, here)| !here)
        .map(|(label, url, _)| (label, url.replace("/tenant/sign-up", "/tenant/sign-in")))
        .collect()
}

pub(super) fn page_with_token(
    request: &HttpRequest,
    status: StatusCode,
    csrf: &str,
    template: &impl Template,
) -> Result<HttpResponse, WebError> {
    let mut response = render_with_status(status, template)?;
    response
        .add_cookie(&form_token_cookie(request, csrf))
        .map_err(|e| WebError::Internal(e.to_string()))?;
    Ok(response)
}

/// `GET /tenant/sign-up`
pub async fn sign_up_form(
    request: HttpRequest,
    state: web::Data<AppState>,
) -> Result<HttpResponse, WebError> {
    let csrf = new_form_token();
    let page = SignUpPage {
        csrf: csrf.clone(),
        site: state.site_url(&request),
        name: String::new(),
        slug: String::new(),
        premium: false,
        email: String::new(),
        errors: BTreeMap::new(),
        regions: region_choices(&state),
    };
    page_with_token(&request, StatusCode::OK, &csrf, &page)
}

/// `POST /tenant/sign-up`: creates the tenant and its owner, then signs in.
pub async fn sign_up(
    request: HttpRequest,
    state: web::Data<AppState>,
    payload: web::Payload,
) -> Result<HttpResponse, WebError> {
    let form = read_public_form(&request, payload, &state).await?;
    let get = |name| field(&form, name).unwrap_or("").trim().to_owned();
    let (name, email_text, password) = (
        get("name"),
        get("email"),
        field(&form, "password").unwrap_or("").to_owned(),
    );
    let suggest = field(&form, "action") == Some("suggest");
    let slug_text = match get("slug") {
        slug if slug.is_empty() || suggest => slugify(&name).unwrap_or_default(),
        slug => slug,
    };
    let mut errors = BTreeMap::new();
    if name.is_empty() || name.chars().count() > 100 {
        errors.insert(
            "name",
            "Give your organisation's name (up to 100 characters).".to_owned(),
        );
    }
    let slug = TenantSlug::parse(&slug_text);
    if slug.is_err() {
        errors.insert(
            "slug",
            "Use lowercase letters, digits and single dashes.".to_owned(),
        );
    }
    let email = Email::parse(&email_text);
    // "Make it from the name" only fills the address: the fields below it are not checked yet.
    if !suggest {
        match &email {
            None => {
                errors.insert(
                    "email",
                    "Enter an email address like name@example.com.".to_owned(),
                );
            }
            Some(email) if state.stores.accounts.get(email).await?.is_some() => {
                errors.insert(
                    "email",
                    "This address already has an account: sign in instead.".to_owned(),
                );
            }
            Some(_) => {}
        }
        if let Some(problem) = password_problem(&password, &email_text) {
            errors.insert("password", problem);
        }
    }
    let premium = field(&form, "plan") == Some("premium");
    if suggest {
        // (without JavaScript): the form again with the address filled in; without a name
        // there is no address to complain about.
        if name.is_empty() {
            errors.remove("slug");
        }
        if slug.is_ok() && taken(&state, &slug_text).await? {
            errors.insert("slug", TAKEN.to_owned());
        }
    } else if let (true, Ok(slug), Some(email)) = (errors.is_empty(), &slug, &email) {
        let subscription = if premium {
            Subscription::Premium
        } else {
            Subscription::Standard
        };
        let tenant = Tenant {
            slug: slug.clone(),
            name: name.clone(),
            subscription,
            created: OffsetDateTime::now_utc(),
            owner: Some(email.clone()),
            time_zone: None,
            branding: Default::default(),
        };
        // An address is one across regions: every other region is asked first, before
        // anything is claimed here.
        let created = match crate::service::tenants::taken_elsewhere(&state.app, slug).await {
            Ok(false) => create_owner_and_tenant(&state, email, password, &tenant).await?,
            Ok(true) => Created::SlugTaken,
            Err(error) => {
                tracing::warn!(error = %crate::telemetry::error_chain(&error), "a region could not say whether an address is free");
                Created::Unchecked
            }
        };
        match created {
            Created::Done(account) => return start_session(&request, &state, account, None).await,
            Created::Unchecked => {
                errors.insert("slug", UNCHECKED.to_owned());
            }
            Created::EmailTaken => {
                errors.insert(
                    "email",
                    "This address already has an account: sign in instead.".to_owned(),
                );
            }
            Created::SlugTaken => {
                errors.insert("slug", TAKEN.to_owned());
            }
        }
    }
    let csrf = new_form_token();
    let page = SignUpPage {
        csrf: csrf.clone(),
        site: state.site_url(&request),
        name,
        slug: slug_text,
        premium,
        email: email_text,
        errors,
        regions: region_choices(&state),
    };
    let status = match suggest && page.errors.is_empty() {
        true => StatusCode::OK,
        false => StatusCode::UNPROCESSABLE_ENTITY,
    };
    page_with_token(&request, status, &csrf, &page)
}

const TAKEN: &str = "This address is taken: choose another.";
const UNCHECKED: &str = "Whether this address is free could not be checked in every region just now: \
                         nothing was created. Please try again in a minute.";

/// Whether a tenant has this address already.
async fn taken(state: &AppState, slug: &str) -> Result<bool, WebError> {
    Ok(match TenantSlug::parse(slug) {
        Ok(slug) => {
            state.stores.tenants.get(&slug).await?.is_some()
                // A suggestion only: a region out of reach is asked again at the sign-up.
                || crate::service::tenants::taken_elsewhere(&state.app, &slug)
                    .await
                    .unwrap_or(false)
        }
        Err(_) => false,
    })
}

/// The organisation name typed so far.
#[derive(serde::Deserialize)]
pub struct AddressQuery {
    name: String,
}

/// `GET /tenant/sign-up/address?name=Café`: the survey address the sign-up would make from
/// the name, as JSON (`{"slug": "cafe", "url": ".../s/cafe", "taken": false}`), for the sign-up
/// page's script to show as the owner types. (Which addresses exist is public anyway: each
/// tenant's survey list is.)
pub async fn address(
    request: HttpRequest,
    state: web::Data<AppState>,
    query: web::Query<AddressQuery>,
) -> Result<HttpResponse, WebError> {
    let name: String = query.name.chars().take(100).collect();
    let slug = slugify(&name).unwrap_or_default();
    let taken = taken(&state, &slug).await?;
    Ok(HttpResponse::Ok().json(serde_json::json!({
        "slug": slug,
        "url": format!("{}/s/{slug}", state.site_url(&request)),
        "taken": taken,
    })))
}

/// How a sign-up ended.
enum Created {
    Done(Account),
    EmailTaken,
    SlugTaken,
    /// Another region could not be asked whether the address is free.
    Unchecked,
}

/// A sign-up whose account was made but whose tenant never was (the process died between the
/// two writes) gives its address back after this long.
const ABANDONED_AFTER: time::Duration = time::Duration::minutes(10);

/// Makes the owner's account and then the tenant, all or nothing: the address is claimed
/// first (create-only), the tenant's slug second, and a taken slug gives the address back, so
/// no tenant is ever left without an owner and no sign-up holds a slug it did not get.
async fn create_owner_and_tenant(
    state: &AppState,
    email: &Email,
    password: String,
    tenant: &Tenant,
) -> Result<Created, WebError> {
    let password_hash = hashed(password).await?;
    let account = Account {
        email: email.clone(),
        tenant: tenant.slug.clone(),
        password_hash,
        created: OffsetDateTime::now_utc(),
        password_set: None,
    };
    let accounts = &state.stores.accounts;
    let claimed = match accounts.create(&account, None).await? {
        Some(etag) => etag,
        None => match abandoned(state, email).await? {
            Some(old) => match accounts.create(&account, Some(&old)).await? {
                Some(etag) => etag,
                None => return Ok(Created::EmailTaken),
            },
            None => return Ok(Created::EmailTaken),
        },
    };
    if state.stores.tenants.create(tenant).await? {
        Ok(Created::Done(account))
    } else {
        accounts.remove(email, &claimed).await?;
        Ok(Created::SlugTaken)
    }
}

/// The ETag of the address's account if it belongs to a sign-up that never finished.
pub(super) async fn abandoned(
    state: &AppState,
    email: &Email,
) -> Result<Option<crate::storage::ETag>, WebError> {
    let Some((account, etag)) = state.stores.accounts.get_versioned(email).await? else {
        return Ok(None);
    };
    let old = OffsetDateTime::now_utc() - account.created > ABANDONED_AFTER;
    let memberless = member_account(state, account).await?.is_none();
    Ok((old && memberless).then_some(etag))
}

/// Starts a session for the account and goes to the dashboard, showing `welcome` there if
/// given.
pub(super) async fn start_session(
    request: &HttpRequest,
    state: &AppState,
    account: Account,
    welcome: Option<&str>,
) -> Result<HttpResponse, WebError> {
    let session = state
        .stores
        .sessions
        .start(account.tenant, account.email)
        .await?;
    let mut response = match welcome {
        Some(text) => notice::redirect(state, "/tenant", text),
        None => HttpResponse::SeeOther()
            .insert_header((LOCATION, "/tenant"))
            .finish(),
    };
    response
        .add_cookie(&session_cookie(request, state, &session))
        .map_err(|e| WebError::Internal(e.to_string()))?;
    Ok(response)
}

/// `GET /tenant/sign-in`
pub async fn sign_in_form(
    request: HttpRequest,
    state: web::Data<AppState>,
) -> Result<HttpResponse, WebError> {
    let csrf = new_form_token();
    let page = SignInPage {
        csrf: csrf.clone(),
        email: String::new(),
        error: None,
        elsewhere: sign_in_elsewhere(&state),
    };
    page_with_token(&request, StatusCode::OK, &csrf, &page)
}

/// `POST /tenant/sign-in`: each attempt is claimed from the shared throttle (per client address
/// and account, and per client address) before its password is checked.
pub async fn sign_in(
    request: HttpRequest,
    state: web::Data<AppState>,
    payload: web::Payload,
) -> Result<HttpResponse, WebError> {
    let form = read_public_form(&request, payload, &state).await?;
    let email_text = field(&form, "email").unwrap_or("").trim().to_owned();
    let password = field(&form, "password").unwrap_or("").to_owned();
    let client = client::of_request(&request, &state);
    let claim = match state
        .stores
        .sign_ins
        .claim(&client, &email_text.to_lowercase())
        .await?
    {
        Gate::Open(claim) => claim,
        Gate::Closed(wait) => {
            return Err(WebError::TooManyRequests(format!(
                "Too many failed sign-ins from your connection. Please wait {} minutes and try \
                 again.",
                wait.as_secs().div_ceil(60)
            )));
        }
    };
    let account = match Email::parse(&email_text) {
        Some(email) => state.stores.accounts.get(&email).await?,
        None => None,
    };
    // An account whose sign-up (or acceptance of an invitation) never finished, or whose
    // member was removed, is not a member of the tenant it names.
    let account = match account {
        Some(account) => member_account(&state, account).await?,
        None => None,
    };
    // Without an account, still spend the time of a check, so timing does not tell.
    let hash = account
        .as_ref()
        .map(|a| a.password_hash.clone())
        .unwrap_or_else(|| DUMMY_HASH.to_owned());
    let matches = verified(password, hash).await?;
    match account {
        Some(account) if matches => {
            state.stores.sign_ins.passed(claim).await?;
            if let Some(role) = member_role(&state, &account).await?
                && sso_required(&state, &account.tenant, role).await?
            {
                let csrf = new_form_token();
                let page = SignInPage {
                    csrf: csrf.clone(),
                    email: email_text,
                    error: Some(SSO_REQUIRED.into()),
                    elsewhere: sign_in_elsewhere(&state),
                };
                return page_with_token(&request, StatusCode::FORBIDDEN, &csrf, &page);
            }
            record::<WebError>(
                &state,
                &account.tenant,
                account.email.as_str(),
                AuditAction::SignIn,
                "with a password",
            )
            .await?;
            start_session(&request, &state, account, None).await
        }
        _ => {
            let csrf = new_form_token();
            let page = SignInPage {
                csrf: csrf.clone(),
                email: email_text,
                error: Some("The email address or the password is not right.".into()),
                elsewhere: sign_in_elsewhere(&state),
            };
            page_with_token(&request, StatusCode::UNAUTHORIZED, &csrf, &page)
        }
    }
}

/// The account, if its address is a member of the tenant it names.
pub(super) async fn member_account(
    state: &AppState,
    account: Account,
) -> Result<Option<Account>, WebError> {
    let Some(tenant) = state.stores.tenants.get(&account.tenant).await? else {
        return Ok(None);
    };
    let members = state.stores.members.read(&tenant).await?;
    Ok(members.get(&account.email).is_some().then_some(account))
}

/// The role of the account's address in the tenant it names, if it is a member.
async fn member_role(state: &AppState, account: &Account) -> Result<Option<Role>, WebError> {
    let Some(tenant) = state.stores.tenants.get(&account.tenant).await? else {
        return Ok(None);
    };
    Ok(state
        .stores
        .members
        .read(&tenant)
        .await?
        .role_of(&account.email))
}

/// Why a password is refused where the tenant requires single sign-on.
pub(super) const SSO_REQUIRED: &str = "Your organisation signs in through its own identity \
     provider: use \"Sign in with single sign-on\" below.";

/// Whether a member of this role must sign in to the tenant through its provider.
pub(super) async fn sso_required(
    state: &AppState,
    tenant: &crate::domain::TenantSlug,
    role: Role,
) -> Result<bool, WebError> {
    let settings = state.stores.tenant_settings.get(tenant).await?;
    Ok(settings.sso.is_some_and(|sso| sso.binds(role)))
}

/// The argon2id hash of a password, made on the blocking pool (it takes tens of
/// milliseconds of CPU).
pub(super) async fn hashed(password: String) -> Result<String, WebError> {
    web::block(move || hash_password(&password))
        .await
        .map_err(|e| WebError::Internal(e.to_string()))?
        .map_err(WebError::Internal)
}

/// Whether a password matches a stored hash, checked on the blocking pool.
pub(super) async fn verified(password: String, hash: String) -> Result<bool, WebError> {
    web::block(move || verify_password(&password, &hash))
        .await
        .map_err(|e| WebError::Internal(e.to_string()))
}

/// An argon2id hash of a password nobody has, checked when an address has no account.
const DUMMY_HASH: &str = "$argon2id$v=19$m=19456,t=2,p=1$c29tZXNhbHRzb21lc2FsdA$7m5m9Kx9P0M6pW6rW9Lk6XhYcJ1oN3R0d3F3b1l1a0k";

/// `POST /tenant/sign-out`: ends the session everywhere and clears the cookie.
pub async fn sign_out(
    request: HttpRequest,
    state: web::Data<AppState>,
    signed_in: AtLeast<Viewer>,
    payload: web::Payload,
) -> Result<HttpResponse, WebError> {
    signed_in.checked_form(payload, &state).await?;
    if let Some(id) = session_id(&request, &state) {
        state.stores.sessions.end(&id).await?;
    }
    Ok(HttpResponse::SeeOther()
        .insert_header((LOCATION, "/tenant/sign-in"))
        .cookie(cleared_session_cookie())
        .finish())
}
