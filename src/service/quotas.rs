//! A survey's quotas as its owners read them: the places each has taken, counted where its
//! places are kept (with its answers), whichever regions answer it.

use super::App;
use crate::domain::Survey;
use crate::domain::quota::QuotaId;
use crate::stores::StoreError;

/// How many places each of `survey`'s quotas has taken, in its order.
pub async fn places_taken(app: &App, survey: &Survey) -> Result<Vec<u32>, StoreError> {
    if survey.quotas.is_empty() {
        return Ok(Vec::new());
    }
    let kept = app.stores().quota_places(survey, None).await?;
    let filed = survey.survey_ref();
    let mut places = Vec::with_capacity(survey.quotas.len());
    for quota in &survey.quotas {
        places.push(kept.placed(&filed, &quota.id).await?);
    }
    Ok(places)
}

/// How many places `quota` of `survey` has taken.
pub async fn placed(app: &App, survey: &Survey, quota: &QuotaId) -> Result<u32, StoreError> {
    let kept = app.stores().quota_places(survey, None).await?;
    kept.placed(&survey.survey_ref(), quota).await
}
