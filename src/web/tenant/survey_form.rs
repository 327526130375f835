//! What a signed-in member's request opens with, each as one extractor: the member (with at
//! least the route's role), then for a form the fields read within the body limits with this
//! session's CSRF token checked, and for a page of one of their surveys
//! (`/tenant/surveys/{slug}/...`) then the survey (404 for another tenant's slug), in that
//! order. What every such handler would otherwise open with.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use actix_web::{FromRequest, HttpRequest, dev::Payload, web};

use super::own_survey;
use super::session::AtLeast;
use crate::domain::Survey;
use crate::web::roles::Needs;
use crate::web::upload::{self, Upload};
use crate::web::{State, WebError};

/// The member and their survey named by the route's `{slug}` (the body left unread).
pub struct OwnSurvey<R: Needs> {
    /// The member, at least of role `R`.
    pub signed_in: AtLeast<R>,
    /// The survey the route names, of the member's tenant.
    pub survey: Arc<Survey>,
}

impl<R: Needs + 'static> FromRequest for OwnSurvey<R> {
    type Error = WebError;
    type Future = Pin<Box<dyn Future<Output = Result<Self, WebError>>>>;

    fn from_request(request: &HttpRequest, payload: &mut Payload) -> Self::Future {
        let member = AtLeast::<R>::from_request(request, payload);
        let state = request.app_data::<State>().cloned();
        let slug = request.match_info().get("slug").map(str::to_owned);
        Box::pin(async move {
            let signed_in = member.await?;
            let state = state.ok_or_else(|| WebError::Internal("no application state".into()))?;
            let survey = own_survey(&state, &signed_in, slug.as_deref().unwrap_or("")).await?;
            Ok(Self { signed_in, survey })
        })
    }
}

/// The member, their survey named by the route's `{slug}`, and the fields they posted.
pub struct SurveyForm<R: Needs> {
    /// The member, at least of role `R`.
    pub signed_in: AtLeast<R>,
    /// The survey the route names, of the member's tenant.
    pub survey: Arc<Survey>,
    /// The posted fields, in order (their CSRF token checked).
    pub form: Vec<(String, String)>,
}

impl<R: Needs> SurveyForm<R> {
    /// The member, the survey and the form, to take apart in one line.
    pub fn parts(self) -> (AtLeast<R>, Arc<Survey>, Vec<(String, String)>) {
        (self.signed_in, self.survey, self.form)
    }
}

impl<R: Needs + 'static> FromRequest for SurveyForm<R> {
    type Error = WebError;
    type Future = Pin<Box<dyn Future<Output = Result<Self, WebError>>>>;

    fn from_request(request: &HttpRequest, payload: &mut Payload) -> Self::Future {
        let posted = MemberForm::<R>::from_request(request, payload);
        let state = request.app_data::<State>().cloned();
        let slug = request.match_info().get("slug").map(str::to_owned);
        Box::pin(async move {
            let MemberForm { signed_in, form } = posted.await?;
            let state = state.ok_or_else(|| WebError::Internal("no application state".into()))?;
            let survey = own_survey(&state, &signed_in, slug.as_deref().unwrap_or("")).await?;
            Ok(Self {
                signed_in,
                survey,
                form,
            })
        })
    }
}

/// The member and the fields they posted (their CSRF token checked), for a form that is not
/// about one survey (members, keys, webhooks, settings, the account).
pub struct MemberForm<R: Needs> {
    /// The member, at least of role `R`.
    pub signed_in: AtLeast<R>,
    /// The posted fields, in order.
    pub form: Vec<(String, String)>,
}

impl<R: Needs + 'static> FromRequest for MemberForm<R> {
    type Error = WebError;
    type Future = Pin<Box<dyn Future<Output = Result<Self, WebError>>>>;

    fn from_request(request: &HttpRequest, payload: &mut Payload) -> Self::Future {
        let opened = member_and_body::<R>(request, payload);
        Box::pin(async move {
            let (signed_in, body, state) = opened.await?;
            let form = signed_in.checked_form(body, &state).await?;
            Ok(Self { signed_in, form })
        })
    }
}

/// A spreadsheet a member uploads to one of their surveys: a multipart form with the file in
/// its `sheet` field (at most `MAX` bytes), the form's CSRF token checked, and the survey.
pub struct SurveySheet<R: Needs, const MAX: usize> {
    /// The member, at least of role `R`.
    pub signed_in: AtLeast<R>,
    /// The survey the route names, of the member's tenant.
    pub survey: Arc<Survey>,
    /// The form's fields and its file.
    pub sent: Upload,
}

impl<R: Needs + 'static, const MAX: usize> FromRequest for SurveySheet<R, MAX> {
    type Error = WebError;
    type Future = Pin<Box<dyn Future<Output = Result<Self, WebError>>>>;

    fn from_request(request: &HttpRequest, payload: &mut Payload) -> Self::Future {
        let posted = MemberSheet::<R, MAX>::from_request(request, payload);
        let state = request.app_data::<State>().cloned();
        let slug = request.match_info().get("slug").map(str::to_owned);
        Box::pin(async move {
            let MemberSheet { signed_in, sent } = posted.await?;
            let state = state.ok_or_else(|| WebError::Internal("no application state".into()))?;
            let survey = own_survey(&state, &signed_in, slug.as_deref().unwrap_or("")).await?;
            Ok(Self {
                signed_in,
                survey,
                sent,
            })
        })
    }
}

/// A spreadsheet a member uploads for their tenant (not one survey): a multipart form with the
/// file in its `sheet` field (at most `MAX` bytes), the form's CSRF token checked.
pub struct MemberSheet<R: Needs, const MAX: usize> {
    /// The member, at least of role `R`.
    pub signed_in: AtLeast<R>,
    /// The form's fields and its file.
    pub sent: Upload,
}

impl<R: Needs + 'static, const MAX: usize> FromRequest for MemberSheet<R, MAX> {
    type Error = WebError;
    type Future = Pin<Box<dyn Future<Output = Result<Self, WebError>>>>;

    fn from_request(request: &HttpRequest, payload: &mut Payload) -> Self::Future {
        let opened = member_and_body::<R>(request, payload);
        let request = request.clone();
        Box::pin(async move {
            let (signed_in, body, _) = opened.await?;
            let sent = upload::read(&request, body, "sheet", MAX, 4).await?;
            signed_in.check_csrf(sent.field("csrf"))?;
            Ok(Self { signed_in, sent })
        })
    }
}

/// The member (at least of role `R`), the request's body and the application: what each of
/// these extractors starts from.
fn member_and_body<R: Needs + 'static>(
    request: &HttpRequest,
    payload: &mut Payload,
) -> impl Future<Output = Result<(AtLeast<R>, web::Payload, State), WebError>> + use<R> {
    let member = AtLeast::<R>::from_request(request, payload);
    let body = web::Payload::from_request(request, payload);
    let state = request.app_data::<State>().cloned();
    async move {
        let signed_in = member.await?;
        let body = body
            .await
            .map_err(|_| WebError::BadRequest("This form could not be read.".into()))?;
        let state = state.ok_or_else(|| WebError::Internal("no application state".into()))?;
        Ok((signed_in, body, state))
    }
}
