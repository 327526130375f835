//! Where respondents stop, on the summary page: the survey's drop-off counts (opened, left
//! page 1, reached each later page, sent) as a bar chart that is also a data table, each step
//! with its share of those who opened it.

use super::charts::BarChart;
use crate::domain::Survey;
use crate::domain::funnel::steps;
use crate::web::{AppState, WebError};

/// The drop-off section of a summary.
pub(super) struct Dropoff {
    /// A bar per step, its share of the openings.
    pub(super) chart: BarChart,
    /// Times the first page was shown.
    pub(super) opened: u64,
    /// Regions whose counts could not be read just now.
    pub(super) unread: Vec<String>,
}

/// The drop-off of `survey`, whose counted responses are `sent`.
pub(super) async fn dropoff(
    state: &AppState,
    survey: &Survey,
    sent: u64,
) -> Result<Dropoff, WebError> {
    let (funnel, unread) = state.funnel.read(&state.app, survey).await?;
    let items = steps(&funnel, survey.steps().len(), sent)
        .into_iter()
        .map(|step| (step.label, step.count))
        .collect();
    Ok(Dropoff {
        chart: BarChart::new(items, funnel.opened),
        opened: funnel.opened,
        unread: unread.iter().map(ToString::to_string).collect(),
    })
}
