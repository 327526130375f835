//! Sessions of the tenant site: an encrypted cookie carrying a session id (HttpOnly,
//! SameSite=Lax, Secure over https), the `AtLeast<Role>` extractor that resolves the member's
//! tenant and role once per request and refuses a role below the route's, and CSRF checks (the session's token on signed-in forms; a double-submit
//! cookie on the sign-in and sign-up forms, which come before any session).

use std::future::Future;
use std::marker::PhantomData;
use std::pin::Pin;
use std::sync::Arc;

use actix_web::cookie::{Cookie, CookieJar, Key, SameSite, time::Duration as CookieDuration};
use actix_web::{FromRequest, HttpRequest, dev::Payload, web};
use subtle::ConstantTimeEq;

use crate::domain::Tenant;
use crate::domain::member::Role;
use crate::service::accounts::{SESSION_LIFETIME, Session};
use crate::web::forms::{field, read_form};
use crate::web::roles::{Needs, refusal};
use crate::web::{AppState, State, WebError};

/// The session cookie's name.
pub const SESSION_COOKIE: &str = "canvass_session";
/// The pre-session CSRF cookie's name.
pub const CSRF_COOKIE: &str = "canvass_csrf";

/// A signed-in member and their tenant, resolved once per request.
pub struct SignedIn {
    /// The member's tenant.
    pub tenant: Arc<Tenant>,
    /// The session (its CSRF token goes into every form).
    pub session: Session,
    /// The member's role now (read on each request, so a change applies at once).
    pub role: Role,
}

/// A signed-in member whose role is at least `R`'s: what every page past sign-in takes.
pub struct AtLeast<R: Needs>(SignedIn, PhantomData<R>);

impl<R: Needs> std::ops::Deref for AtLeast<R> {
    type Target = SignedIn;

    fn deref(&self) -> &SignedIn {
        &self.0
    }
}

impl SignedIn {
    /// Reads a posted form (within the body limits), refusing it unless it carries this
    /// session's CSRF token: how every state-changing tenant form is read.
    pub async fn checked_form(
        &self,
        payload: web::Payload,
        state: &AppState,
    ) -> Result<Vec<(String, String)>, WebError> {
        let form = read_form(payload, state).await?;
        self.check_csrf(field(&form, "csrf"))?;
        Ok(form)
    }

    /// The member as the use cases know them.
    pub fn actor(&self) -> crate::service::Actor<'_> {
        crate::service::Actor {
            tenant: &self.tenant.slug,
            name: self.session.email.as_str(),
        }
    }

    /// Refuses a state-changing form whose CSRF token is not this session's.
    pub fn check_csrf(&self, posted: Option<&str>) -> Result<(), WebError> {
        match posted {
            Some(token) if equal(token, &self.session.csrf) => Ok(()),
            _ => Err(csrf_refused()),
        }
    }
}

fn csrf_refused() -> WebError {
    WebError::Forbidden(
        "The form's security token is missing or out of date. Go back, reload the page and try \
         again."
            .into(),
    )
}

/// The encryption key of session cookies.
fn cookie_key(state: &AppState) -> Key {
    Key::from(state.app.session_key())
}

/// The cookie encrypted (and so tamper-proof) with the site's key: how every cookie that
/// carries something the site must trust is sent.
pub fn seal(state: &AppState, cookie: Cookie<'static>) -> Cookie<'static> {
    let name = cookie.name().to_owned();
    let mut jar = CookieJar::new();
    jar.private_mut(&cookie_key(state)).add(cookie);
    jar.get(&name)
        .cloned()
        .unwrap_or_else(|| Cookie::new(name, ""))
}

/// The value of the sealed cookie `name` the request carries, if it decrypts (a tampered
/// one does not).
pub fn unseal(request: &HttpRequest, state: &AppState, name: &str) -> Option<String> {
    let sent = request.cookie(name)?;
    let mut jar = CookieJar::new();
    jar.add_original(sent.into_owned());
    jar.private(&cookie_key(state))
        .get(name)
        .map(|cookie| cookie.value().to_owned())
}

/// Whether cookies get `Secure`: the request came over https, by the operator's rule on
/// which proxies to believe.
pub fn secure(request: &HttpRequest) -> bool {
    request
        .app_data::<State>()
        .is_some_and(|state| state.scheme(request) == "https")
}

/// The encrypted cookie that carries a new session's id.
pub fn session_cookie(
    request: &HttpRequest,
    state: &AppState,
    session: &Session,
) -> Cookie<'static> {
    let cookie = Cookie::build(SESSION_COOKIE, session.id.clone())
        .path("/")
        .http_only(true)
        .same_site(SameSite::Lax)
        .secure(secure(request))
        .max_age(CookieDuration::seconds(SESSION_LIFETIME.as_secs() as i64))
        .finish();
    seal(state, cookie)
}

/// A cookie that removes the session cookie.
pub fn cleared_session_cookie() -> Cookie<'static> {
    let mut cookie = Cookie::build(SESSION_COOKIE, "")
        .path("/")
        .http_only(true)
        .finish();
    cookie.make_removal();
    cookie
}

/// The session id a request's cookie carries, if the cookie decrypts (a tampered one does not).
pub fn session_id(request: &HttpRequest, state: &AppState) -> Option<String> {
    unseal(request, state, SESSION_COOKIE)
}

impl<R: Needs + 'static> FromRequest for AtLeast<R> {
    type Error = WebError;
    type Future = Pin<Box<dyn Future<Output = Result<Self, WebError>>>>;

    fn from_request(request: &HttpRequest, _: &mut Payload) -> Self::Future {
        let state = request.app_data::<State>().cloned();
        let id = state.as_ref().and_then(|state| session_id(request, state));
        Box::pin(async move {
            let (Some(state), Some(id)) = (state, id) else {
                return Err(WebError::SignInRequired);
            };
            let signed_in = signed_in(&state, &id)
                .await?
                .ok_or(WebError::SignInRequired)?;
            if !signed_in.role.allows(R::ROLE) {
                return Err(WebError::Forbidden(refusal(signed_in.role, R::ROLE)));
            }
            Ok(AtLeast(signed_in, PhantomData))
        })
    }
}

/// The member signed in with this session, if the session is live and they are still a
/// member of its tenant (a removed member's sessions end with their membership).
pub async fn signed_in(state: &AppState, id: &str) -> Result<Option<SignedIn>, WebError> {
    let found = crate::service::accounts::signed_in(&state.app, id).await?;
    Ok(found.map(|(tenant, session, role)| SignedIn {
        tenant,
        session,
        role,
    }))
}

/// A fresh token for the double-submit cookie of a pre-session form.
pub fn new_form_token() -> String {
    uuid::Uuid::new_v4().simple().to_string()
}

/// The double-submit cookie carrying `token`.
pub fn form_token_cookie(request: &HttpRequest, token: &str) -> Cookie<'static> {
    Cookie::build(CSRF_COOKIE, token.to_owned())
        .path("/tenant")
        .http_only(true)
        .same_site(SameSite::Lax)
        .secure(secure(request))
        .finish()
}

/// A posted pre-session form (sign-up, sign-in, invitations, password resets), read within the
/// body limits and refused unless it carries the token of the cookie set with the form.
pub struct PublicForm(pub Vec<(String, String)>);

impl FromRequest for PublicForm {
    type Error = WebError;
    type Future = Pin<Box<dyn Future<Output = Result<Self, WebError>>>>;

    fn from_request(request: &HttpRequest, payload: &mut Payload) -> Self::Future {
        let body = web::Payload::from_request(request, payload);
        let state = request.app_data::<State>().cloned();
        let request = request.clone();
        Box::pin(async move {
            let body = body
                .await
                .map_err(|_| WebError::BadRequest("This form could not be read.".into()))?;
            let state = state.ok_or_else(|| WebError::Internal("no application state".into()))?;
            let form = read_form(body, &state).await?;
            check_form_token(&request, field(&form, "csrf"))?;
            Ok(Self(form))
        })
    }
}

/// Refuses a pre-session form unless its token matches the cookie set with the form.
fn check_form_token(request: &HttpRequest, posted: Option<&str>) -> Result<(), WebError> {
    let cookie = request.cookie(CSRF_COOKIE);
    match (cookie, posted) {
        (Some(cookie), Some(posted)) if !posted.is_empty() && equal(cookie.value(), posted) => {
            Ok(())
        }
        _ => Err(csrf_refused()),
    }
}

/// Whether two secrets are equal, compared in constant time.
fn equal(a: &str, b: &str) -> bool {
    a.as_bytes().ct_eq(b.as_bytes()).into()
}
