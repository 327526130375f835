//! A survey's quotas in the JSON API, with how many places each has taken.

use actix_web::{HttpResponse, web};
use serde::Serialize;
use utoipa::ToSchema;

use super::surveys::{SlugPath, find};
use super::{ApiCaller, ApiError};
use crate::domain::quota::WhenFull;
use crate::web::State;
use crate::web::roles::Viewer;

/// One quota and its places.
#[derive(Serialize, ToSchema)]
pub struct QuotaStatus {
    /// Its id.
    #[schema(value_type = String)]
    id: crate::domain::quota::QuotaId,
    /// Its name.
    name: String,
    /// How many answers it takes.
    limit: u32,
    /// How many places are taken (answers that met it and were kept).
    placed: u32,
    /// Whether every place is taken.
    full: bool,
    /// What happens to an answer that meets it once full.
    when_full: WhenFull,
}

/// `GET /api/v1/surveys/{slug}/quotas`
#[utoipa::path(get, path = "/api/v1/surveys/{slug}/quotas", operation_id = "get_quotas",
    summary = "Read a survey's quotas and how many places each has taken",
    tag = "responses", params(SlugPath),
    responses((status = 200, description = "The quotas, in the survey's order", body = Vec<QuotaStatus>)))]
pub async fn quotas(
    state: State,
    caller: ApiCaller<Viewer>,
    slug: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let survey = find(&state, &caller.tenant, &slug).await?;
    let places = crate::service::quotas::places_taken(&state.app, &survey).await?;
    let mut statuses = Vec::with_capacity(survey.quotas.len());
    for (quota, placed) in survey.quotas.iter().zip(places) {
        statuses.push(QuotaStatus {
            id: quota.id.clone(),
            name: quota.name.clone(),
            limit: quota.limit,
            placed,
            full: placed >= quota.limit,
            when_full: quota.full,
        });
    }
    Ok(HttpResponse::Ok().json(statuses))
}
