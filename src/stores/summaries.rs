//! A survey's summary document: the statistics, the length of the answer list, and the
//! references counted but not yet written to the list and the counted index. It is the commit
//! point of the worker's protocol, always written under If-Match.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;
use std::time::Duration;

use moka::future::Cache;

use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

use super::answer_list::ListView;
use super::error::{decode, encode};
use super::{Context, StoreError, Stores, keys};
use crate::domain::segment::SegmentKey;
use crate::domain::{Reference, Survey, SurveyRef, SurveyState, SurveySummary};
use crate::storage::{BlobStore, ETag, Error, PutMode};

impl Stores {
    /// The survey's state now: from its dates and, if it has a response limit, its counted
    /// total (read at most once a second; no read at all without a limit).
    pub async fn survey_state(&self, survey: &Survey) -> Result<SurveyState, StoreError> {
        let counted = match survey.response_limit {
            Some(_) if survey.published => {
                let results = self.results_of(survey).await?;
                results
                    .answering
                    .summaries
                    .counted(&survey.survey_ref())
                    .await?
            }
            _ => 0,
        };
        Ok(survey.state(OffsetDateTime::now_utc(), counted))
    }

    /// The state now of a survey hosted here for a tenant of another region: its response
    /// limit is checked against its total at home (as last read from there) plus everything
    /// of its tenant waiting here to move home, so it never closes late for answers given
    /// here; answers given meanwhile in other regions show once they are counted at home and
    /// read again (see docs/operators.md, "Regions").
    pub async fn hosted_survey_state(&self, survey: &Survey) -> Result<SurveyState, StoreError> {
        // Answers that stay here are counted here: the limit holds exactly, as at home.
        if survey.residency == crate::domain::region::Residency::Region {
            return self.survey_state(survey).await;
        }
        let counted = match survey.response_limit {
            Some(_) if survey.published => {
                let home = self
                    .residency
                    .hosted
                    .home_count(&survey.tenant, &survey.slug)
                    .await?;
                let (waiting, _) = self
                    .answering
                    .queues
                    .transfer_backlog(&survey.tenant)
                    .await?;
                home.at_least() + waiting
            }
            _ => 0,
        };
        Ok(survey.state(OffsetDateTime::now_utc(), counted))
    }
}

/// What the summary blob of a survey holds (a new survey's has `days_from` 0: every answer
/// is in `days`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SummaryDoc {
    /// The statistics of every counted answer.
    pub summary: SurveySummary,
    /// How many positions of the answer list are committed (= answers counted).
    pub list_len: u64,
    /// Counted answers whose list entry and counted-index bit may not be written yet, with the
    /// list position each was given.
    #[serde(default)]
    pub recent: BTreeMap<Reference, u64>,
    /// When answers were last merged in.
    #[serde(default, with = "time::serde::rfc3339::option")]
    pub updated: Option<OffsetDateTime>,
    /// Counted responses since deleted: taken out of `summary` (and so out of the total) by
    /// the commit that added them here, which makes a deletion apply once. Lists, downloads
    /// and exports leave them out.
    #[serde(default, skip_serializing_if = "BTreeSet::is_empty")]
    pub deleted: BTreeSet<Reference>,
    /// Deletions whose traces remain in what subtraction cannot take back (min and max,
    /// frequent words): a recount from the remaining answers clears it.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub unrecounted: u64,
    /// Per submission day (UTC, `YYYY-MM-DD`): how many responses were submitted that day and
    /// the span of list positions they occupy, for date filters.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub days: BTreeMap<String, DaySpan>,
    /// The list position from which every answer is in `days`: 0, or for a summary written
    /// before days were kept, the list length when they started (a recount makes it 0).
    #[serde(default = "days_unknown")]
    pub days_from: u64,
    /// The segments of each segment question (and of the languages): their statistics and
    /// answer lists.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub segments: BTreeMap<SegmentKey, SegmentQuestion>,
}

pub(super) fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// `days_from` of a summary written before days were kept: the next commit sets it.
fn days_unknown() -> u64 {
    u64::MAX
}

/// The responses of one submission day: how many, and the list positions of the first and
/// last of them (others may lie between: answers are listed in the order they are counted).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DaySpan {
    /// Responses submitted that day and not deleted.
    pub count: u64,
    /// The smallest list position of one of them.
    pub first: u64,
    /// The largest list position of one of them.
    pub last: u64,
}

impl DaySpan {
    /// Counts one more response of a day at list position `position` in `days`.
    pub fn place(days: &mut BTreeMap<String, DaySpan>, day: String, position: u64) {
        let span = days.entry(day).or_insert(DaySpan {
            count: 0,
            first: position,
            last: position,
        });
        span.count += 1;
        span.first = span.first.min(position);
        span.last = span.last.max(position);
    }

    /// Adds the responses of `other`, day by day, to `days`.
    pub fn merge_all(days: &mut BTreeMap<String, DaySpan>, other: &BTreeMap<String, DaySpan>) {
        for (day, span) in other {
            days.entry(day.clone())
                .and_modify(|kept| {
                    kept.count += span.count;
                    kept.first = kept.first.min(span.first);
                    kept.last = kept.last.max(span.last);
                })
                .or_insert(*span);
        }
    }
}

/// The submission day of an answer, as `days` keys it.
pub fn day_of(answer: &crate::domain::Answer) -> String {
    let day = answer.submitted_at.to_offset(time::UtcOffset::UTC).date();
    format!(
        "{:04}-{:02}-{:02}",
        day.year(),
        day.month() as u8,
        day.day()
    )
}

impl SummaryDoc {
    /// Responses counted and not deleted: the length of the answer list without deletions.
    pub fn responses(&self) -> u64 {
        self.list_len.saturating_sub(self.deleted.len() as u64)
    }

    /// Counts `answer` at list position `position`: its statistics, its day, and the same in
    /// each segment it is in.
    pub fn count(&mut self, answer: &crate::domain::Answer, position: u64) {
        self.summary.add(answer);
        if self.days_from == days_unknown() {
            self.days_from = position;
        }
        let day = day_of(answer);
        self.count_in_segments(answer, &day);
        DaySpan::place(&mut self.days, day, position);
    }

    /// Takes a deleted answer out of its statistics and its day's count, here and in each
    /// segment it is in.
    pub fn uncount(&mut self, answer: &crate::domain::Answer) {
        self.summary.subtract(answer);
        let day = day_of(answer);
        self.uncount_in_segments(answer, &day);
        if let Some(span) = self.days.get_mut(&day) {
            span.count = span.count.saturating_sub(1);
        }
    }

    /// The survey's answer list.
    pub fn list_view(&self, survey: &SurveyRef) -> ListView<'_> {
        ListView {
            list: keys::answer_list(survey),
            len: self.list_len,
            before_gap: self.list_len,
            gap: 0,
            recent: &self.recent,
        }
    }

    /// Drops answers whose list entries are written from `recent`, here and in the segments.
    pub fn drop_settled(&mut self, settled: &BTreeSet<Reference>) {
        self.recent
            .retain(|reference, _| !settled.contains(reference));
        self.drop_settled_in_segments(settled);
    }
}

/// The segments of one segment question.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SegmentQuestion {
    /// Names the folder of its answer lists: new each time the question becomes a segment
    /// question, so a list never holds entries of an earlier time.
    pub lists: String,
    /// The survey's list length when it became a segment question: answers counted from then
    /// on are counted here as they come.
    pub from: u64,
    /// Whether the answers counted before `from` are counted here too.
    pub built: bool,
    /// Each option's segment (an option nobody has picked has none yet).
    #[serde(default)]
    pub options: BTreeMap<String, SegmentTally>,
}

/// One segment: the responses that hold one option of a segment question.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SegmentTally {
    /// Their statistics (`total` is how many there are).
    pub summary: SurveySummary,
    /// Entries the build wrote, at list positions from 0.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub before: u64,
    /// Entries counted since `from`, at list positions from `from`.
    #[serde(default)]
    pub since: u64,
    /// Counted responses whose list entry may not be written yet, with its list position.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub recent: BTreeMap<Reference, u64>,
    /// Per submission day: count and span of list positions (as the survey's `days`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub days: BTreeMap<String, DaySpan>,
}

impl SegmentQuestion {
    /// A question made a segment question when the survey's list is `list_len` long.
    pub(super) fn new(list_len: u64) -> Self {
        Self {
            lists: uuid::Uuid::new_v4().simple().to_string()[..12].to_owned(),
            from: list_len,
            built: list_len == 0,
            options: BTreeMap::new(),
        }
    }
}

/// A summary document as read, with the ETag to write it back under.
#[derive(Clone, Debug, Default)]
pub struct Versioned {
    /// The document (empty if the survey has none yet).
    pub doc: SummaryDoc,
    /// Its ETag; `None` if it does not exist yet.
    pub etag: Option<ETag>,
}

/// How long a counted total read for a response limit is used before it is read again: a
/// survey at its limit closes within this (answers sent meanwhile are kept and counted).
const COUNTED_TTL: Duration = Duration::from_secs(1);

/// Reads and conditionally writes summary documents.
#[derive(Clone, Debug)]
pub struct SummaryStore {
    blobs: Arc<dyn BlobStore>,
    counted: Cache<SurveyRef, u64>,
}

impl SummaryStore {
    pub(super) fn new(blobs: Arc<dyn BlobStore>) -> Self {
        Self {
            blobs,
            counted: Cache::builder()
                .max_capacity(100_000)
                .time_to_live(COUNTED_TTL)
                .build(),
        }
    }

    /// How many answers of the survey are counted, read at most once a second per survey
    /// (for response limits, checked on every form shown and sent).
    pub async fn counted(&self, survey: &SurveyRef) -> Result<u64, StoreError> {
        super::cached(&self.counted, "counted", survey.clone(), self.total(survey)).await
    }

    /// How many answers of the survey its stored summary counts, read now.
    pub async fn total(&self, survey: &SurveyRef) -> Result<u64, StoreError> {
        Ok(self.read(survey).await?.doc.summary.total)
    }

    /// The survey's summary document and its ETag.
    pub async fn read(&self, survey: &SurveyRef) -> Result<Versioned, StoreError> {
        let key = keys::summary(survey);
        match self.blobs.get(&key).await {
            Ok(blob) => Ok(Versioned {
                doc: decode(&key, &blob.body)?,
                etag: Some(blob.meta.etag),
            }),
            Err(Error::NotFound { .. }) => Ok(Versioned::default()),
            Err(error) => Err(error).context(|| format!("reading the summary {key}")),
        }
    }

    /// The ETag of the survey's summary blob, whatever it holds (`None` if there is none): a
    /// rebuild replaces a damaged summary under this.
    pub async fn etag(&self, survey: &SurveyRef) -> Result<Option<ETag>, StoreError> {
        let key = keys::summary(survey);
        match self.blobs.get(&key).await {
            Ok(blob) => Ok(Some(blob.meta.etag)),
            Err(Error::NotFound { .. }) => Ok(None),
            Err(error) => Err(error).context(|| format!("reading the summary {key}")),
        }
    }

    /// Writes the document if it is still the version read; `Ok(false)` if someone else wrote
    /// it first (re-read and try again).
    pub async fn write(
        &self,
        survey: &SurveyRef,
        doc: &SummaryDoc,
        read: Option<&ETag>,
    ) -> Result<bool, StoreError> {
        let key = keys::summary(survey);
        // serde_json would write a NaN or an infinity as `null`, which no reader could take
        // back: such a summary is refused here, and the merge that made it fails on its own.
        if !doc.summary.is_finite() {
            return Err(StoreError::Refused {
                key,
                reason: "a summary may hold finite numbers only",
            });
        }
        let mode = match read {
            Some(etag) => PutMode::Update(etag.clone()),
            None => PutMode::Create,
        };
        match self.blobs.put(&key, encode(&key, doc)?.into(), mode).await {
            Ok(_) => Ok(true),
            Err(Error::Precondition { .. } | Error::AlreadyExists { .. }) => Ok(false),
            Err(error) => Err(error).context(|| format!("writing the summary {key}")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::Answer;

    fn submitted(reference: u64, at: &str) -> Answer {
        Answer {
            submitted_at: OffsetDateTime::parse(at, &time::format_description::well_known::Rfc3339)
                .expect("a time"),
            ..Answer::sample(reference)
        }
    }

    #[test]
    fn days_count_answers_by_their_utc_day_and_span_their_positions() {
        let mut doc = SummaryDoc::default();
        // 23:30 at UTC-2 is the next day in UTC.
        doc.count(&submitted(1, "2026-03-01T10:00:00Z"), 0);
        doc.count(&submitted(2, "2026-03-01T23:30:00-02:00"), 1);
        doc.count(&submitted(3, "2026-03-01T23:59:59Z"), 2);
        assert_eq!(doc.days_from, 0, "a new survey has every answer in days");
        assert_eq!(
            doc.days["2026-03-01"],
            DaySpan {
                count: 2,
                first: 0,
                last: 2
            }
        );
        assert_eq!(doc.days["2026-03-02"].count, 1);
        doc.uncount(&submitted(3, "2026-03-01T23:59:59Z"));
        assert_eq!(doc.days["2026-03-01"].count, 1);
        assert_eq!(doc.summary.total, 2);
    }

    proptest::proptest! {
        /// A build's day spans merged into the live ones equal the spans of all positions
        /// placed in one go, whatever the order and the split.
        #[test]
        fn day_spans_merge_like_placing_everything_at_once(
            placed in proptest::collection::vec((0u8..3, 0u64..10_000), 0..60),
            split in 0usize..60,
        ) {
            let day = |d: u8| format!("2026-03-0{}", d + 1);
            let mut all = BTreeMap::new();
            let (mut first, mut second) = (BTreeMap::new(), BTreeMap::new());
            for (i, (d, position)) in placed.iter().enumerate() {
                DaySpan::place(&mut all, day(*d), *position);
                let part = if i < split { &mut first } else { &mut second };
                DaySpan::place(part, day(*d), *position);
            }
            DaySpan::merge_all(&mut second, &first);
            proptest::prop_assert_eq!(second, all);
        }
    }

    #[test]
    fn a_summary_written_before_days_were_kept_starts_them_at_its_next_answer() {
        let old: SummaryDoc =
            serde_json::from_value(serde_json::json!({"summary": {"total": 5, "questions": {}},
                "list_len": 5}))
            .expect("an old summary reads");
        assert_eq!(old.days_from, u64::MAX);
        let mut doc = old;
        doc.count(&submitted(9, "2026-03-01T10:00:00Z"), 5);
        doc.count(&submitted(10, "2026-03-01T11:00:00Z"), 6);
        assert_eq!(
            doc.days_from, 5,
            "answers before position 5 have unknown days"
        );
    }
}
