//! Pages of a survey's responses, newest first: one summary read, one or two answer-list
//! chunks and the page's answers, whatever the survey's size.

use std::collections::BTreeMap;

use super::{ListView, StoreError, Stores, SummaryDoc};
use crate::domain::{Answer, Reference, SegmentId, SurveyRef};

/// Responses per page.
pub const PER_PAGE: u64 = 25;

/// Submission days, from and to (both included, UTC).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DateRange {
    /// The first day.
    pub from: time::Date,
    /// The last day.
    pub to: time::Date,
}

impl DateRange {
    /// The range a query asks for with `from` and `to` (`YYYY-MM-DD`, either may be left out
    /// or empty): `None` when both are; why not, when a day is not a date or `from` is after
    /// `to`.
    pub fn parse(from: Option<&str>, to: Option<&str>) -> Result<Option<Self>, String> {
        let day = |name: &str, text: Option<&str>| match text.map(str::trim) {
            None | Some("") => Ok(None),
            Some(text) => crate::domain::answer::date(text)
                .map(Some)
                .ok_or_else(|| format!("\"{name}\" must be a date, YYYY-MM-DD")),
        };
        let (from, to) = (day("from", from)?, day("to", to)?);
        if from.is_none() && to.is_none() {
            return Ok(None);
        }
        let range = DateRange {
            from: from.unwrap_or(time::Date::MIN),
            to: to.unwrap_or(time::Date::MAX),
        };
        if range.from > range.to {
            return Err("\"from\" is after \"to\"".into());
        }
        Ok(Some(range))
    }

    fn holds(&self, answer: &Answer) -> bool {
        let day = answer.submitted_at.to_offset(time::UtcOffset::UTC).date();
        (self.from..=self.to).contains(&day)
    }
}

/// Where the responses submitted within `range` lie in an answer list, from its days alone:
/// the positions from the first to the last of its days (answers of other days, counted a
/// little earlier or later, may lie between near the ends), and how many there are. Positions
/// before `days_from` (answers counted before days were kept, until a recount covers them) are
/// always included, uncounted: `exact` says whether there are none. Positions are those the
/// days hold (where entries are written); `ListView::seen` turns them into readers' ones.
pub fn window(
    days: &std::collections::BTreeMap<String, crate::stores::DaySpan>,
    days_from: u64,
    list_len: u64,
    range: &DateRange,
) -> Window {
    let (from, to) = (range.from.to_string(), range.to.to_string());
    let mut count = 0;
    let mut span: Option<(u64, u64)> = None;
    // Day keys are `YYYY-MM-DD`, so their string order is their date order.
    for day in days.range(from..=to).map(|(_, day)| day) {
        if day.count == 0 {
            continue;
        }
        count += day.count;
        span = Some(match span {
            None => (day.first, day.last),
            Some((first, last)) => (first.min(day.first), last.max(day.last)),
        });
    }
    let unknown = days_from.min(list_len);
    let positions = match span {
        Some((_, last)) if unknown > 0 => 0..last + 1,
        Some((first, last)) => first..last + 1,
        None => 0..unknown,
    };
    Window {
        positions,
        count,
        exact: unknown == 0,
    }
}

/// See `window`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Window {
    /// The list positions to look through.
    pub positions: std::ops::Range<u64>,
    /// Responses known to be within the range.
    pub count: u64,
    /// Whether `count` is every one of them.
    pub exact: bool,
}

/// One page of responses.
#[derive(Debug)]
pub struct ResponsePage {
    /// Responses counted in all (within the date range, if one was asked for).
    pub total: u64,
    /// Whether `total` is exact (see `window`).
    pub exact: bool,
    /// This page's number, from 1.
    pub page: u64,
    /// How many pages there are (at least 1).
    pub pages: u64,
    /// The responses, newest first.
    pub responses: Vec<Answer>,
    /// Each response's number in its list (the survey's or the segment's), newest first
    /// (`response_at` takes a number in the survey's): deleted responses keep their numbers,
    /// so the others keep theirs.
    pub numbers: Vec<u64>,
}

/// Most responses one text search reads, newest first: a search costs at most this many
/// answer reads whatever the survey's size, and "search older" goes on where it stopped.
pub const SEARCH_SPAN: u64 = 1_000;

/// Longest text searched for, in characters.
pub const MAX_SEARCH_CHARS: usize = 100;

/// Responses read per round of a search.
const SEARCH_ROUND: u64 = 100;

/// What one text search found.
#[derive(Debug)]
pub struct SearchPage {
    /// Matching responses, newest first (at most a page).
    pub responses: Vec<Answer>,
    /// Each one's number in the survey's list.
    pub numbers: Vec<u64>,
    /// The numbers of the newest and oldest response searched (`None` when none was).
    pub searched: Option<(u64, u64)>,
    /// Where a search of older responses starts, if there are any.
    pub older: Option<u64>,
}

/// The positions of page `page` (from 1) in a list of `total`, newest first: page 1 ends at
/// the last position.
pub fn page_positions(total: u64, page: u64, per_page: u64) -> std::ops::Range<u64> {
    let end = total.saturating_sub((page.max(1) - 1) * per_page);
    end.saturating_sub(per_page)..end
}

/// Which responses a page lists.
#[derive(Clone, Debug, Default)]
pub struct Filter {
    /// Only those submitted on these days.
    pub range: Option<DateRange>,
    /// Only those in this segment.
    pub segment: Option<SegmentId>,
}

impl Stores {
    /// Page `page` (from 1) of the survey's responses, newest first, optionally only those of
    /// one segment and submitted within a date range: one summary read, then one or two list
    /// chunks and the page's answers, whatever the survey's size. Pages are ranges of list
    /// positions, so a page holding deleted responses, or (filtered by date) answers of
    /// neighbouring days, is shorter than the rest. A segment whose question is not a segment
    /// question in the summary yet has no responses.
    pub async fn response_page(
        &self,
        survey: &SurveyRef,
        page: u64,
        filter: &Filter,
    ) -> Result<ResponsePage, StoreError> {
        let doc = self.answering.summaries.read(survey).await?.doc;
        self.response_page_in(survey, &doc, page, filter).await
    }

    /// As `response_page`, with the summary document already read.
    pub async fn response_page_in(
        &self,
        survey: &SurveyRef,
        doc: &SummaryDoc,
        page: u64,
        filter: &Filter,
    ) -> Result<ResponsePage, StoreError> {
        let empty = BTreeMap::new();
        let (list, days, days_from, responses) = match &filter.segment {
            None => (
                doc.list_view(survey),
                &doc.days,
                doc.days_from,
                doc.responses(),
            ),
            Some(segment) => match doc.segment(survey, segment) {
                Some(view) => (view.list, &view.tally.days, 0, view.tally.summary.total),
                None => (
                    ListView {
                        len: 0,
                        ..doc.list_view(survey)
                    },
                    &empty,
                    0,
                    0,
                ),
            },
        };
        let (positions, total, exact) = match &filter.range {
            None => (0..list.len, responses, true),
            Some(range) => {
                let window = window(days, days_from, list.len, range);
                let positions = &window.positions;
                let seen = if positions.is_empty() {
                    0..0
                } else {
                    list.seen(positions.start)..list.seen(positions.end - 1) + 1
                };
                (seen, window.count, window.exact)
            }
        };
        let length = positions.end - positions.start;
        let pages = length.div_ceil(PER_PAGE).max(1);
        let page = page.clamp(1, pages);
        let on_page = page_positions(length, page, PER_PAGE);
        let on_page = positions.start + on_page.start..positions.start + on_page.end;
        let (mut numbers, mut responses) = (Vec::new(), Vec::new());
        let range = filter.range.as_ref();
        for (position, answer) in self.listed(survey, doc, &list, on_page).await? {
            if let Some(answer) = answer.filter(|a| range.is_none_or(|range| range.holds(a))) {
                numbers.push(list.len - position);
                responses.push(answer);
            }
        }
        Ok(ResponsePage {
            total,
            exact,
            page,
            pages,
            responses,
            numbers,
        })
    }

    /// The answers at `positions` of a list, newest first, with their positions: deleted ones
    /// left out, and `None` for one whose answer cannot be found.
    async fn listed(
        &self,
        survey: &SurveyRef,
        doc: &SummaryDoc,
        list: &ListView<'_>,
        positions: std::ops::Range<u64>,
    ) -> Result<Vec<(u64, Option<Answer>)>, StoreError> {
        let mut entries: Vec<(u64, Reference)> = self
            .answering
            .lists
            .entries(list, positions)
            .await?
            .into_iter()
            .filter(|(_, reference)| !doc.deleted.contains(reference))
            .collect();
        entries.reverse();
        let references: Vec<Reference> = entries.iter().map(|(_, r)| *r).collect();
        let answers = self.answering.answers.get_many(survey, &references).await?;
        Ok(entries
            .into_iter()
            .map(|(position, _)| position)
            .zip(answers)
            .collect())
    }

    /// Up to a page of responses whose written text holds `text` (any case), newest first,
    /// reading at most `SEARCH_SPAN` responses from list position `before` (exclusive; the
    /// newest when `None`) back.
    pub async fn search_responses(
        &self,
        survey: &SurveyRef,
        doc: &SummaryDoc,
        text: &str,
        before: Option<u64>,
    ) -> Result<SearchPage, StoreError> {
        let list = doc.list_view(survey);
        let needle = text.to_lowercase();
        let end = before.unwrap_or(list.len).min(list.len);
        let start = end.saturating_sub(SEARCH_SPAN);
        let (mut responses, mut numbers) = (Vec::new(), Vec::new());
        let mut high = end;
        'rounds: while high > start {
            let low = high.saturating_sub(SEARCH_ROUND).max(start);
            for (position, answer) in self.listed(survey, doc, &list, low..high).await? {
                if let Some(answer) = answer.filter(|a| a.mentions(&needle)) {
                    numbers.push(list.len - position);
                    responses.push(answer);
                    if responses.len() as u64 == PER_PAGE {
                        high = position;
                        break 'rounds;
                    }
                }
            }
            high = low;
        }
        Ok(SearchPage {
            responses,
            numbers,
            searched: (high < end).then(|| (list.len - (end - 1), list.len - high)),
            older: (high > 0).then_some(high),
        })
    }

    /// The `n`th newest response (from 1) with the count of responses, for a viewer that
    /// steps through them one by one.
    pub async fn response_at(
        &self,
        survey: &SurveyRef,
        n: u64,
    ) -> Result<Option<(Answer, u64)>, StoreError> {
        let doc = self.answering.summaries.read(survey).await?.doc;
        let total = doc.list_len;
        if n == 0 || n > total {
            return Ok(None);
        }
        let position = total - n;
        let found = self
            .answering
            .lists
            .references(&doc.list_view(survey), position..position + 1)
            .await?;
        let Some(reference) = found.first().filter(|r| !doc.deleted.contains(r)) else {
            return Ok(None);
        };
        Ok(self
            .answering
            .answers
            .get(survey, *reference)
            .await?
            .map(|answer| (answer, total)))
    }
}

/// Where a response stands, for a request to delete it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Standing {
    /// Counted: it can be deleted.
    Counted,
    /// Submitted, not counted yet: it can be deleted once it is.
    Waiting,
    /// Deleted already, or never given to this survey.
    Gone,
}

impl Stores {
    /// Where each response stands: one summary read, a counted-index read per block of
    /// references not in the summary's `recent` map, and an answer read per uncounted one.
    pub async fn standing(
        &self,
        survey: &SurveyRef,
        references: &[Reference],
    ) -> Result<Vec<Standing>, StoreError> {
        let doc = self.answering.summaries.read(survey).await?.doc;
        let uncounted = self
            .answering
            .counted
            .uncounted(survey, &doc.recent, references.iter().copied())
            .await?;
        let mut standings = Vec::with_capacity(references.len());
        for reference in references {
            standings.push(if doc.deleted.contains(reference) {
                Standing::Gone
            } else if !uncounted.contains(reference) {
                Standing::Counted
            } else if self
                .answering
                .answers
                .get(survey, *reference)
                .await?
                .is_some()
            {
                Standing::Waiting
            } else {
                Standing::Gone
            });
        }
        Ok(standings)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stores::SummaryDoc;

    fn doc(days: &[(&str, u64, u64, u64)], list_len: u64, days_from: u64) -> SummaryDoc {
        SummaryDoc {
            days: days
                .iter()
                .map(|&(day, count, first, last)| {
                    (
                        day.to_owned(),
                        crate::stores::DaySpan { count, first, last },
                    )
                })
                .collect(),
            list_len,
            days_from,
            ..SummaryDoc::default()
        }
    }

    fn range(from: &str, to: &str) -> DateRange {
        let day = |text| crate::domain::answer::date(text).expect("a date");
        DateRange {
            from: day(from),
            to: day(to),
        }
    }

    #[test]
    fn a_date_window_spans_its_days_positions_and_counts_them() {
        // Three days; an answer of the 2nd was counted after the first of the 3rd.
        let doc = doc(
            &[
                ("2026-03-01", 4, 0, 3),
                ("2026-03-02", 3, 4, 8),
                ("2026-03-03", 2, 7, 9),
            ],
            10,
            0,
        );
        let one = window(
            &doc.days,
            doc.days_from,
            doc.list_len,
            &range("2026-03-02", "2026-03-02"),
        );
        assert_eq!((one.positions, one.count, one.exact), (4..9, 3, true));
        let two = window(
            &doc.days,
            doc.days_from,
            doc.list_len,
            &range("2026-03-01", "2026-03-02"),
        );
        assert_eq!((two.positions, two.count), (0..9, 7));
        let none = window(
            &doc.days,
            doc.days_from,
            doc.list_len,
            &range("2026-04-01", "2026-04-30"),
        );
        assert_eq!((none.positions, none.count), (0..0, 0));
    }

    #[test]
    fn answers_counted_before_days_were_kept_are_looked_through_uncounted() {
        let doc = doc(&[("2026-03-02", 2, 6, 7)], 8, 6);
        let found = window(
            &doc.days,
            doc.days_from,
            doc.list_len,
            &range("2026-03-02", "2026-03-02"),
        );
        assert_eq!(
            (found.positions, found.count, found.exact),
            (0..8, 2, false)
        );
        let old = window(
            &doc.days,
            doc.days_from,
            doc.list_len,
            &range("2025-01-01", "2025-01-31"),
        );
        assert_eq!((old.positions, old.count, old.exact), (0..6, 0, false));
    }

    #[test]
    fn date_ranges_are_read_from_a_query() {
        assert_eq!(DateRange::parse(None, Some("")), Ok(None));
        let both = DateRange::parse(Some("2026-03-01"), Some("2026-03-31")).expect("valid");
        assert_eq!(both, Some(range("2026-03-01", "2026-03-31")));
        let open = DateRange::parse(Some("2026-03-01"), None)
            .expect("valid")
            .expect("a range");
        assert_eq!(open.to, time::Date::MAX);
        assert!(DateRange::parse(Some("March"), None).is_err());
        assert!(DateRange::parse(Some("2026-03-02"), Some("2026-03-01")).is_err());
    }

    #[test]
    fn pages_count_back_from_the_newest() {
        assert_eq!(page_positions(60, 1, 25), 35..60);
        assert_eq!(page_positions(60, 2, 25), 10..35);
        assert_eq!(page_positions(60, 3, 25), 0..10);
        assert_eq!(page_positions(0, 1, 25), 0..0);
        assert_eq!(page_positions(10, 9, 25), 0..0);
    }
}
