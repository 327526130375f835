//! A form posted to one of the signed-in member's surveys (`/tenant/surveys/{slug}/...`), as
//! one extractor: the member (with at least the route's role), the form read within the body
//! limits with this session's CSRF token checked, then the survey (404 for another tenant's
//! slug), in that order. What every survey form's handler would otherwise open with.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use actix_web::{FromRequest, HttpRequest, dev::Payload, web};

use super::own_survey;
use super::session::AtLeast;
use crate::domain::Survey;
use crate::web::roles::Needs;
use crate::web::{AppState, WebError};

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
        let member = AtLeast::<R>::from_request(request, payload);
        let body = web::Payload::from_request(request, payload);
        let state = request.app_data::<web::Data<AppState>>().cloned();
        let slug = request.match_info().get("slug").map(str::to_owned);
        Box::pin(async move {
            let signed_in = member.await?;
            let body = body
                .await
                .map_err(|_| WebError::BadRequest("This form could not be read.".into()))?;
            let state = state.ok_or_else(|| WebError::Internal("no application state".into()))?;
            let form = signed_in.checked_form(body, &state).await?;
            let survey = own_survey(&state, &signed_in, slug.as_deref().unwrap_or("")).await?;
            Ok(Self {
                signed_in,
                survey,
                form,
            })
        })
    }
}
