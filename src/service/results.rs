//! Reading a survey's results: its summary (whole, or one segment's), its state now, its
//! responses a page at a time or found by their words, one response, and what waits to be
//! counted. Answers kept in the region that answers a survey are read there.

use std::collections::BTreeSet;

use super::App;
use crate::domain::segment::SegmentReport;
use crate::domain::summary::SummaryReport;
use crate::domain::{Answer, Reference, SegmentId, Subscription, Survey, SurveyState};
use crate::stores::StoreError;
pub use crate::stores::deletions::DeletionRecord;
pub use crate::stores::responses::{
    DateRange, Filter, MAX_SEARCH_CHARS, PER_PAGE, ResponsePage, Standing,
};

/// `survey`'s summary, or the summary of one of its segments; its loops' questions pooled, or
/// for one item (checked with `Survey::item_asked`).
pub async fn summary(
    app: &App,
    survey: &Survey,
    segment: Option<&SegmentId>,
    item: Option<&str>,
) -> Result<SummaryReport, StoreError> {
    app.stores().summary_report(survey, segment, item).await
}

/// As `summary`, with the partial responses of a survey that keeps them counted in when
/// `partial` asks for them.
pub async fn summary_with_partial(
    app: &App,
    survey: &Survey,
    segment: Option<&SegmentId>,
    item: Option<&str>,
    partial: bool,
) -> Result<SummaryReport, StoreError> {
    let stores = app.stores();
    stores
        .summary_report_with(survey, segment, item, partial)
        .await
}

/// The partial responses of a survey that keeps them (none for one that does not).
pub async fn partials(app: &App, survey: &Survey) -> Result<Vec<Answer>, StoreError> {
    match survey.keep_partial {
        true => {
            app.stores()
                .answering
                .partials
                .list(&survey.survey_ref())
                .await
        }
        false => Ok(Vec::new()),
    }
}

/// The state `survey` is in now (a response limit counts its counted answers).
pub async fn state_now(app: &App, survey: &Survey) -> Result<SurveyState, StoreError> {
    app.stores().survey_state(survey).await
}

/// How many answers to `survey` are counted.
pub async fn counted(app: &App, survey: &Survey) -> Result<u64, StoreError> {
    let results = app.stores().results_of(survey).await?;
    let read = results
        .answering
        .summaries
        .read(&survey.survey_ref())
        .await?;
    Ok(read.doc.summary.total)
}

/// How many answers wait to be counted on the queues `survey`'s answers go to (a tenant's
/// subscription picks them): at home, or in the region they stay in.
pub async fn waiting(
    app: &App,
    survey: &Survey,
    subscription: Subscription,
) -> Result<u64, StoreError> {
    let results = app.stores().results_of(survey).await?;
    results.answering.queues.waiting(subscription).await
}

/// Page `page` (from 1) of `survey`'s counted responses, newest first, within `filter`.
pub async fn page(
    app: &App,
    survey: &Survey,
    page: u64,
    filter: &Filter,
) -> Result<ResponsePage, StoreError> {
    let results = app.stores().results_of(survey).await?;
    results
        .response_page(&survey.survey_ref(), page, filter)
        .await
}

/// What a page of responses asks for.
#[derive(Debug)]
pub enum Asked<'a> {
    /// Page `page` (from 1) within the filter.
    Page(u64, &'a Filter),
    /// The responses whose words match, newest first, from before this number if given.
    Words(&'a str, Option<u64>),
}

/// How far a search of responses went.
pub struct Searched {
    /// The numbers of the newest and oldest response searched (`None` when none was).
    pub range: Option<(u64, u64)>,
    /// Where a search of older responses starts, if there are any.
    pub older: Option<u64>,
}

/// A page of responses as the site shows it.
pub struct Listing {
    /// The responses found.
    pub found: ResponsePage,
    /// For a search: the numbers of the newest and oldest response searched, and where a
    /// search of older ones starts.
    pub searched: Option<Searched>,
    /// The survey's segments, for the picker.
    pub segments: Vec<SegmentReport>,
    /// The deletions asked for, oldest first.
    pub deletions: Vec<DeletionRecord>,
    /// Deletions asked for and not yet applied by a worker (seconds, usually): their rows are
    /// left out of `found` now, and the count without a filter goes down by them at once.
    pub pending: BTreeSet<Reference>,
}

/// A page of `survey`'s responses, from one read of its summary (for the page and the segment
/// picker alike), without those whose deletion is pending.
pub async fn listing(app: &App, survey: &Survey, asked: Asked<'_>) -> Result<Listing, StoreError> {
    let results = app.stores().results_of(survey).await?;
    let at = survey.survey_ref();
    let doc = results.answering.summaries.read(&at).await?.doc;
    let (mut found, searched) = match asked {
        Asked::Words(text, before) => {
            let hits = results.search_responses(&at, &doc, text, before).await?;
            let found = ResponsePage {
                total: hits.responses.len() as u64,
                exact: true,
                page: 1,
                pages: 1,
                responses: hits.responses,
                numbers: hits.numbers,
            };
            (
                found,
                Some(Searched {
                    range: hits.searched,
                    older: hits.older,
                }),
            )
        }
        Asked::Page(page, filter) => {
            let found = results.response_page_in(&at, &doc, page, filter).await?;
            (found, None)
        }
    };
    let segments = results.segment_reports_in(survey, &doc).await?;
    let deletions = results.operations.deletions.records(&at).await?;
    let pending: BTreeSet<Reference> = deletions
        .iter()
        .map(|record| record.reference)
        .filter(|reference| !doc.deleted.contains(reference))
        .collect();
    let (numbers, responses) = found
        .numbers
        .iter()
        .zip(found.responses)
        .filter(|(_, answer)| !pending.contains(&answer.reference))
        .map(|(n, answer)| (*n, answer))
        .unzip();
    (found.numbers, found.responses) = (numbers, responses);
    Ok(Listing {
        found,
        searched,
        segments,
        deletions,
        pending,
    })
}

/// The `n`th of `survey`'s counted responses (from 1, oldest first), with how many there are.
pub async fn response_at(
    app: &App,
    survey: &Survey,
    n: u64,
) -> Result<Option<(Answer, u64)>, StoreError> {
    let results = app.stores().results_of(survey).await?;
    results.response_at(&survey.survey_ref(), n).await
}

/// `survey`'s counted response with this reference.
pub async fn response(
    app: &App,
    survey: &Survey,
    reference: Reference,
) -> Result<Option<Answer>, StoreError> {
    let results = app.stores().results_of(survey).await?;
    results
        .answering
        .answers
        .get(&survey.survey_ref(), reference)
        .await
}
