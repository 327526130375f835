//! Resolves the calling tenant from its API key, once per request.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use actix_web::{FromRequest, HttpRequest, dev::Payload, http::header, web};

use super::ApiError;
use crate::domain::Tenant;
use crate::web::AppState;

/// The tenant whose API key the request carries.
pub struct ApiTenant(pub Arc<Tenant>);

impl FromRequest for ApiTenant {
    type Error = ApiError;
    type Future = Pin<Box<dyn Future<Output = Result<Self, ApiError>>>>;

    fn from_request(request: &HttpRequest, _: &mut Payload) -> Self::Future {
        let state = request.app_data::<web::Data<AppState>>().cloned();
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
            let slug = state
                .stores
                .api_keys
                .tenant_of(&key)
                .await?
                .ok_or(ApiError::Unauthorized)?;
            let tenant = state
                .stores
                .tenants
                .get(&slug)
                .await?
                .ok_or(ApiError::Unauthorized)?;
            Ok(ApiTenant(tenant))
        })
    }
}
