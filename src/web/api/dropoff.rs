//! A survey's drop-off counts in the JSON API: how many opened it, left its first page,
//! reached each later page, and sent it.

use actix_web::{HttpResponse, web};
use serde::Serialize;
use utoipa::ToSchema;

use super::surveys::{SlugPath, find};
use super::{ApiCaller, ApiError};
use crate::web::State;
use crate::web::roles::Viewer;

/// A later page's count.
#[derive(Serialize, ToSchema)]
pub struct PageReached {
    /// The page, from 1.
    page: usize,
    /// Respondents shown it after leaving an earlier page.
    reached: u64,
}

/// Where respondents stop.
#[derive(Serialize, ToSchema)]
pub struct Dropoff {
    /// Times the first page was shown (each view; a reload counts again).
    opened: u64,
    /// Respondents who left the first page with Next (0 for a survey of one page).
    started: u64,
    /// Each later page (2 and on) of a survey of several pages; of a survey shown one
    /// question per screen, each later screen.
    pages: Vec<PageReached>,
    /// Responses counted (exact: the summary's total).
    sent: u64,
    /// Regions whose counts could not be read just now (left out of the figures).
    unread_regions: Vec<String>,
}

/// `GET /api/v1/surveys/{slug}/dropoff`
#[utoipa::path(get, path = "/api/v1/surveys/{slug}/dropoff", operation_id = "get_dropoff",
    summary = "Read where respondents stop: opened, left page 1, reached each page, sent",
    tag = "responses", params(SlugPath),
    responses((status = 200, description = "The drop-off counts", body = Dropoff)))]
pub async fn dropoff(
    state: State,
    caller: ApiCaller<Viewer>,
    slug: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let survey = find(&state, &caller.tenant, &slug).await?;
    let (funnel, unread) = state.funnel.read(&state.app, &survey).await?;
    let sent = crate::service::dropoff::sent(&state.app, &survey).await?;
    let pages = (1..survey.steps().len())
        .map(|page| PageReached {
            page: page + 1,
            reached: funnel.reached.get(&page).copied().unwrap_or(0),
        })
        .collect();
    Ok(HttpResponse::Ok().json(Dropoff {
        opened: funnel.opened,
        started: funnel.started,
        pages,
        sent,
        unread_regions: unread.iter().map(ToString::to_string).collect(),
    }))
}
