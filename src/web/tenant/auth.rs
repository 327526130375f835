//! Sign-up, sign-in and sign-out of survey owners.

use std::collections::BTreeMap;

use actix_web::http::StatusCode;
use actix_web::http::header::LOCATION;
use actix_web::{HttpRequest, HttpResponse, web};
use askama::Template;
use time::OffsetDateTime;

use super::notice;
use super::session::{
    PublicForm, cleared_session_cookie, form_token_cookie, new_form_token, session_cookie,
    session_id,
};
use crate::domain::account::{Account, Email, password_problem};
use crate::domain::slug::slugify;
use crate::domain::{Subscription, Tenant, TenantSlug};
use crate::service::accounts::{self, SignIn, SignedUp};
use crate::web::client;
use crate::web::forms::field;
use crate::web::roles::Viewer;
use crate::web::tenant::survey_form::MemberForm;
use crate::web::{AppState, Reply, State, WebError, render_with_status};

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
    let regions = state.app.regions();
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
) -> Reply {
    let mut response = render_with_status(status, template)?;
    response
        .add_cookie(&form_token_cookie(request, csrf))
        .map_err(|e| WebError::Internal(e.to_string()))?;
    Ok(response)
}

/// `GET /tenant/sign-up`
pub async fn sign_up_form(request: HttpRequest, state: State) -> Reply {
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
pub async fn sign_up(request: HttpRequest, state: State, PublicForm(form): PublicForm) -> Reply {
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
            Some(email) if accounts::has_account(&state.app, email).await? => {
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
        let created = accounts::sign_up(&state.app, email, password, &tenant).await?;
        match created {
            SignedUp::Done(account) => {
                return start_session(&request, &state, account, None).await;
            }
            SignedUp::Unchecked => {
                errors.insert("slug", UNCHECKED.to_owned());
            }
            SignedUp::EmailTaken => {
                errors.insert(
                    "email",
                    "This address already has an account: sign in instead.".to_owned(),
                );
            }
            SignedUp::SlugTaken => {
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

/// Whether a tenant has this address already (a suggestion: the sign-up asks again).
async fn taken(state: &AppState, slug: &str) -> Result<bool, WebError> {
    Ok(match TenantSlug::parse(slug) {
        Ok(slug) => accounts::address_taken(&state.app, &slug).await?,
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
pub async fn address(request: HttpRequest, state: State, query: web::Query<AddressQuery>) -> Reply {
    let name: String = query.name.chars().take(100).collect();
    let slug = slugify(&name).unwrap_or_default();
    let taken = taken(&state, &slug).await?;
    Ok(HttpResponse::Ok().json(serde_json::json!({
        "slug": slug,
        "url": format!("{}/s/{slug}", state.site_url(&request)),
        "taken": taken,
    })))
}

/// Starts a session for the account and goes to the dashboard, showing `welcome` there if
/// given.
pub(super) async fn start_session(
    request: &HttpRequest,
    state: &AppState,
    account: Account,
    welcome: Option<&str>,
) -> Reply {
    let session = accounts::start_session(&state.app, account).await?;
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
pub async fn sign_in_form(request: HttpRequest, state: State) -> Reply {
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
pub async fn sign_in(request: HttpRequest, state: State, PublicForm(form): PublicForm) -> Reply {
    let email_text = field(&form, "email").unwrap_or("").trim().to_owned();
    let password = field(&form, "password").unwrap_or("").to_owned();
    let client = client::of_request(&request, &state);
    let (status, error) =
        match accounts::sign_in(&state.app, &client, &email_text, password).await? {
            SignIn::Done(account) => return start_session(&request, &state, account, None).await,
            SignIn::Throttled(wait) => {
                return Err(WebError::TooManyRequests(format!(
                    "Too many failed sign-ins from your connection. Please wait {} minutes and try \
                 again.",
                    wait.as_secs().div_ceil(60)
                )));
            }
            SignIn::ProviderRequired => (StatusCode::FORBIDDEN, SSO_REQUIRED),
            SignIn::Refused => (
                StatusCode::UNAUTHORIZED,
                "The email address or the password is not right.",
            ),
        };
    let csrf = new_form_token();
    let page = SignInPage {
        csrf: csrf.clone(),
        email: email_text,
        error: Some(error.into()),
        elsewhere: sign_in_elsewhere(&state),
    };
    page_with_token(&request, status, &csrf, &page)
}

/// Why a password is refused where the tenant requires single sign-on.
pub(super) const SSO_REQUIRED: &str = "Your organisation signs in through its own identity \
     provider: use \"Sign in with single sign-on\" below.";

/// `POST /tenant/sign-out`: ends the session everywhere and clears the cookie.
pub async fn sign_out(
    request: HttpRequest,
    state: State,
    // Signed in, and the form's CSRF token checked: nothing else of it is needed.
    _posted: MemberForm<Viewer>,
) -> Reply {
    if let Some(id) = session_id(&request, &state) {
        accounts::end_session(&state.app, &id).await?;
    }
    Ok(HttpResponse::SeeOther()
        .insert_header((LOCATION, "/tenant/sign-in"))
        .cookie(cleared_session_cookie())
        .finish())
}
