//! The summary report of a survey, or of one of its segments, as the site and the API show it:
//! one summary read (and, while a segment is being built, one read of the build's progress).

use crate::domain::segment::{BuildReport, SegmentKey, SegmentReport, segment_keys};
use crate::domain::summary::SummaryReport;
use crate::domain::{SegmentId, Survey, SurveySummary};

use super::{StoreError, Stores, SummaryDoc};

impl Stores {
    /// The report of every response of the survey, or of those in `segment` (checked against
    /// the survey beforehand), with every segment listed; its loops' questions for one `item`
    /// (checked too), or pooled.
    pub async fn summary_report(
        &self,
        survey: &Survey,
        segment: Option<&SegmentId>,
        item: Option<&str>,
    ) -> Result<SummaryReport, StoreError> {
        self.summary_report_with(survey, segment, item, false).await
    }

    /// As `summary_report`, with the survey's partial responses counted in too when
    /// `partial` asks for them (a survey that keeps them; every response, not a segment's).
    pub async fn summary_report_with(
        &self,
        survey: &Survey,
        segment: Option<&SegmentId>,
        item: Option<&str>,
        partial: bool,
    ) -> Result<SummaryReport, StoreError> {
        let at = survey.survey_ref();
        let results = self.results_of(survey).await?;
        let doc = results.answering.summaries.read(&at).await?.doc;
        // Definitions live at home, wherever the answers are.
        let known = self.catalog.surveys.known_questions(survey).await?;
        let segments = results.segment_reports_in(survey, &doc).await?;
        let empty = SurveySummary::default();
        let summary = match segment {
            None => &doc.summary,
            Some(segment) => doc
                .segment(&at, segment)
                .map_or(&empty, |view| &view.tally.summary),
        };
        // Partial responses are summed on request, never stored in the summary.
        let mut with_partials;
        let (summary, partials) = match partial && survey.keep_partial && segment.is_none() {
            false => (summary, None),
            true => {
                let partials = self.answering.partials.list(&at).await?;
                with_partials = summary.clone();
                for answer in &partials {
                    with_partials.add(answer);
                }
                (&with_partials, Some(partials.len() as u64))
            }
        };
        let shown = segment.and_then(|segment| {
            let id = segment.to_string();
            segments.iter().find(|report| report.id == id).cloned()
        });
        let mut report = SummaryReport::of_item(survey, summary, doc.updated, item)
            .with_removed(&known)
            .with_unrecounted(doc.unrecounted)
            .with_segments(shown, segments);
        report.partial = partials;
        Ok(report)
    }
}

impl Stores {
    /// Every segment of the survey with its count, from its summary document (and, while a
    /// build runs, one read of the builds' progress).
    pub async fn segment_reports_in(
        &self,
        survey: &Survey,
        doc: &SummaryDoc,
    ) -> Result<Vec<SegmentReport>, StoreError> {
        let progress = if doc.segments_building() {
            self.operations
                .segments
                .progress(&survey.survey_ref())
                .await?
        } else {
            Default::default()
        };
        Ok(segment_reports(survey, doc, |question| {
            progress.get(question).map(|p| BuildReport {
                done: p.done,
                of: p.of,
            })
        }))
    }
}

/// Every segment of the survey's segment questions, in the survey's order, then of its
/// languages, with its count from `doc` (segments the worker has not started yet count none
/// and are not complete); `build` gives a running build's progress.
pub fn segment_reports(
    survey: &Survey,
    doc: &SummaryDoc,
    build: impl Fn(&SegmentKey) -> Option<BuildReport>,
) -> Vec<SegmentReport> {
    let mut reports = Vec::new();
    for key in segment_keys(survey) {
        let kept = doc.segments.get(&key);
        let seen = kept
            .into_iter()
            .flat_map(|segments| segments.options.keys());
        let Some((named, options)) = key.segments_in(survey, seen) else {
            continue;
        };
        let complete = kept.is_some_and(|segments| segments.built);
        for option in options {
            let total = kept
                .and_then(|segments| segments.options.get(&option))
                .map_or(0, |tally| tally.summary.total);
            reports.push(SegmentReport {
                id: SegmentId {
                    key: key.clone(),
                    option: option.clone(),
                }
                .to_string(),
                question: key.to_string(),
                question_text: named.clone(),
                option,
                total,
                complete,
                build: if complete { None } else { build(&key) },
            });
        }
    }
    reports
}
