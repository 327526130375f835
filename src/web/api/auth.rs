//! Resolves the calling tenant and role from the request's API key, once per request, and
//! refuses a role below the route's (`ApiCaller<Editor>`). A key has the role of the member
//! who made it, read on each call, and dies with their membership.

use std::future::Future;
use std::marker::PhantomData;
use std::pin::Pin;
use std::sync::Arc;

use actix_web::{FromRequest, HttpRequest, dev::Payload, http::header};

use super::ApiError;
use crate::domain::Tenant;
use crate::web::State;
use crate::web::roles::{Needs, refusal};

/// The tenant whose API key the request carries, and who is acting.
pub struct ApiCaller<R: Needs> {
    /// The key's tenant.
    pub tenant: Arc<Tenant>,
    /// Who acts, for the audit log: the key's label and maker.
    pub actor: String,
    role: PhantomData<R>,
}

impl<R: Needs> ApiCaller<R> {
    /// The key as the use cases know it.
    pub fn actor(&self) -> crate::service::Actor<'_> {
        crate::service::Actor {
            tenant: &self.tenant.slug,
            name: &self.actor,
        }
    }
}

impl<R: Needs + 'static> FromRequest for ApiCaller<R> {
    type Error = ApiError;
    type Future = Pin<Box<dyn Future<Output = Result<Self, ApiError>>>>;

    fn from_request(request: &HttpRequest, _: &mut Payload) -> Self::Future {
        let state = request.app_data::<State>().cloned();
        let key = request
            .headers()
            .get(header::AUTHORIZATION)
            .and_then(|value| value.to_str().ok())
            .and_then(|value| value.strip_prefix("Bearer "))
            .map(|key| key.trim().to_owned());
        Box::pin(async move {
            let (Some(state), Some(key)) = (state, key) else {
                return Err(ApiError::Unauthorized);
            };
            let holder = crate::service::api_keys::holder(&state.app, &key)
                .await?
                .ok_or(ApiError::Unauthorized)?;
            let (tenant, role, actor) = (holder.tenant, holder.role, holder.actor);
            if !role.allows(R::ROLE) {
                return Err(ApiError::Forbidden(refusal(role, R::ROLE)));
            }
            Ok(ApiCaller {
                tenant,
                actor,
                role: PhantomData,
            })
        })
    }
}
