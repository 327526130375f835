//! Where respondents stop: the drop-off counts a site's pages make in memory, merged into the
//! storage of the region serving them, and read back added up over every region serving a
//! survey.

use super::App;
use crate::domain::funnel::Funnel;
use crate::domain::region::RegionName;
use crate::domain::{Survey, SurveyRef};
use crate::stores::StoreError;

/// Adds `counts` to the stored counts of `survey`, if this region still serves it: whether
/// they were merged (a survey no longer served here drops them).
pub async fn merge(app: &App, survey: &SurveyRef, counts: &Funnel) -> Result<bool, StoreError> {
    let stores = app.stores();
    match stores.served_here(survey).await? {
        Some(_) => stores
            .answering
            .funnels
            .add(survey, counts)
            .await
            .map(|()| true),
        None => Ok(false),
    }
}

/// A survey's stored counts, added up over the regions whose sites show its pages; the
/// regions that could not be read in time are named.
pub async fn stored(app: &App, survey: &Survey) -> Result<(Funnel, Vec<RegionName>), StoreError> {
    app.stores().funnel_of(survey).await
}

/// How many of a survey's responses were sent and counted.
pub async fn sent(app: &App, survey: &Survey) -> Result<u64, StoreError> {
    Ok(app.stores().summary_report(survey, None, None).await?.total)
}
