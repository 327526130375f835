//! Segments in the summary document: for each segment question, per option, the statistics of
//! the responses that hold it and where its answer list is. They are counted by the same
//! If-Match commit as the survey's own figures, so a segment is exact exactly when the survey
//! is.
//!
//! A question that becomes a segment question after answers were counted starts counting at
//! the list length of that moment (`from`); a build job (see `worker::segments`) counts the
//! answers before it, writes their list entries from position 0, and merges its figures in
//! with one commit. Until then the segment holds only the answers counted since (`built` is
//! false), and deletions wait: a deleted answer must not be subtracted from a segment that
//! does not count it yet.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::answer_list::ListView;
use super::error::decode;
use super::summaries::{DaySpan, SegmentQuestion, SegmentTally, SummaryDoc};
use super::work_queue::WorkQueue;
use super::{Context, StoreError, json_blob, keys};
use crate::domain::segment::SegmentKey;
use crate::domain::{
    Answer, Reference, SegmentId, SurveyId, SurveyRef, SurveySlug, SurveySummary, TenantSlug,
};
use crate::storage::{BlobStore, Error, Storage};

/// The queue of segment builds.
pub const SEGMENT_QUEUE: &str = "segments";

/// List entries a commit gave positions that may not be written yet.
#[derive(Debug, Default)]
pub struct Unsettled {
    /// In the survey's answer list, with their positions.
    pub answers: BTreeMap<Reference, u64>,
    /// In segment lists: each list (`keys::segment_list`) with its entries by position.
    pub segments: Vec<(String, BTreeMap<u64, Reference>)>,
}

impl Unsettled {
    /// Whether there is nothing to write.
    pub fn is_empty(&self) -> bool {
        self.answers.is_empty() && self.segments.is_empty()
    }
}

/// One segment as the summary and responses pages read it.
#[derive(Debug)]
pub struct SegmentView<'a> {
    /// Its question's segments.
    pub question: &'a SegmentQuestion,
    /// Its statistics, positions and days.
    pub tally: &'a SegmentTally,
    /// Its answer list.
    pub list: ListView<'a>,
}

static NO_TALLY: std::sync::LazyLock<SegmentTally> = std::sync::LazyLock::new(Default::default);

impl SummaryDoc {
    /// Counts `answer` (submitted on `day`) in each segment it is in, at the next position of
    /// that segment's list.
    pub(super) fn count_in_segments(&mut self, answer: &Answer, day: &str) {
        for (key, segments) in &mut self.segments {
            for option in key.options_in(answer) {
                // A value's segment is kept only for the first values seen.
                let full = segments.options.len() >= crate::domain::segment::MAX_VALUE_SEGMENTS;
                if key.takes_values_seen() && full && !segments.options.contains_key(&option) {
                    continue;
                }
                let tally = segments.options.entry(option).or_default();
                let position = segments.from + tally.since;
                tally.since += 1;
                tally.summary.add(answer);
                tally.recent.insert(answer.reference, position);
                DaySpan::place(&mut tally.days, day.to_owned(), position);
            }
        }
    }

    /// Takes a deleted answer out of each segment it is in (its list entry stays; readers
    /// leave deleted responses out).
    pub(super) fn uncount_in_segments(&mut self, answer: &Answer, day: &str) {
        for (key, segments) in &mut self.segments {
            for option in key.options_in(answer) {
                if let Some(tally) = segments.options.get_mut(&option) {
                    tally.summary.subtract(answer);
                    if let Some(span) = tally.days.get_mut(day) {
                        span.count = span.count.saturating_sub(1);
                    }
                }
            }
        }
    }

    pub(super) fn drop_settled_in_segments(&mut self, settled: &BTreeSet<Reference>) {
        for tally in self
            .segments
            .values_mut()
            .flat_map(|segments| segments.options.values_mut())
        {
            tally
                .recent
                .retain(|reference, _| !settled.contains(reference));
        }
    }

    /// Starts segments for the keys of `wanted` that have none; returns those that need a
    /// build (answers were counted before). Segments are never dropped here: a worker reading
    /// an older definition must not undo a newer one (see `sync_segments`).
    pub fn add_segments(&mut self, wanted: &[SegmentKey]) -> Vec<SegmentKey> {
        let mut unbuilt = Vec::new();
        for key in wanted {
            if !self.segments.contains_key(key) {
                let segments = SegmentQuestion::new(self.list_len);
                if !segments.built {
                    unbuilt.push(key.clone());
                }
                self.segments.insert(key.clone(), segments);
            }
        }
        unbuilt
    }

    /// Makes the segments those of `wanted`: starts the missing ones and drops those of
    /// questions no longer segment questions (or of languages no longer several). Whether
    /// anything changed.
    pub fn sync_segments(&mut self, wanted: &[SegmentKey]) -> bool {
        let before = self.segments.len();
        self.segments.retain(|key, _| wanted.contains(key));
        let kept = self.segments.len();
        self.add_segments(wanted);
        kept != before || self.segments.len() != kept
    }

    /// Whether a segment question still waits for its build.
    pub fn segments_building(&self) -> bool {
        self.segments.values().any(|segments| !segments.built)
    }

    /// The list entries of answers `wanted` selects that may not be written yet: in the
    /// survey's list and in its segments' lists.
    pub fn unsettled(&self, survey: &SurveyRef, wanted: impl Fn(&Reference) -> bool) -> Unsettled {
        let answers = self
            .recent
            .iter()
            .filter(|(reference, _)| wanted(reference))
            .map(|(&reference, &position)| (reference, position))
            .collect();
        let mut segments = Vec::new();
        for segment in self.segments.values() {
            for (option, tally) in &segment.options {
                let entries: BTreeMap<u64, Reference> = tally
                    .recent
                    .iter()
                    .filter(|(reference, _)| wanted(reference))
                    .map(|(&reference, &position)| (position, reference))
                    .collect();
                if !entries.is_empty() {
                    segments.push((keys::segment_list(survey, &segment.lists, option), entries));
                }
            }
        }
        Unsettled { answers, segments }
    }

    /// One segment: its statistics and its list (empty for an option nobody picked yet);
    /// `None` if its question is not a segment question here.
    pub fn segment(&self, survey: &SurveyRef, segment: &SegmentId) -> Option<SegmentView<'_>> {
        let question = self.segments.get(&segment.key)?;
        let tally = question
            .options
            .get(&segment.option)
            .unwrap_or_else(|| &*NO_TALLY);
        let before = if question.built { tally.before } else { 0 };
        Some(SegmentView {
            question,
            tally,
            list: ListView {
                list: keys::segment_list(survey, &question.lists, &segment.option),
                len: before + tally.since,
                before_gap: before,
                gap: question.from.saturating_sub(before),
                recent: &tally.recent,
            },
        })
    }
}

/// A survey's request for its segments to be made to match its definition and built.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SegmentJob {
    /// The survey's owner.
    pub tenant: TenantSlug,
    /// The survey.
    pub survey: SurveySlug,
    /// The survey's identity.
    pub survey_id: SurveyId,
}

impl SegmentJob {
    /// The survey it is about.
    pub fn survey(&self) -> SurveyRef {
        SurveyRef {
            tenant: self.tenant.clone(),
            slug: self.survey.clone(),
            id: self.survey_id.clone(),
        }
    }
}

/// How far the build of one question's segments has come, with what it has summed so far:
/// written as it goes, so the pages can show its progress and a build cut short resumes.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct BuildState {
    /// The segments it builds (`SegmentQuestion::lists`).
    pub lists: String,
    /// Answers looked at: list positions below this.
    pub done: u64,
    /// Answers to look at (the question's `from`).
    pub of: u64,
    /// What they add to each option's segment.
    pub options: BTreeMap<String, BuiltOption>,
}

/// What a build adds to one segment.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct BuiltOption {
    /// Entries written to its list, from position 0.
    pub count: u64,
    /// Their statistics.
    pub summary: SurveySummary,
    /// Their days.
    pub days: BTreeMap<String, DaySpan>,
}

/// The segment build queue and the builds' progress.
#[derive(Clone, Debug)]
pub struct SegmentStore {
    blobs: Arc<dyn BlobStore>,
    queue: WorkQueue,
}

impl SegmentStore {
    /// Creates the queue if missing; called once at start-up.
    pub(super) async fn create(storage: &Storage) -> Result<Self, StoreError> {
        Ok(Self {
            blobs: storage.blobs.clone(),
            queue: WorkQueue::create(storage, SEGMENT_QUEUE).await?,
        })
    }

    /// The build queue.
    pub fn queue(&self) -> &WorkQueue {
        &self.queue
    }

    /// Asks a worker to bring the survey's segments in line with its definition and build any
    /// that need it (asking twice is harmless).
    pub async fn request(&self, survey: &SurveyRef) -> Result<(), StoreError> {
        self.queue
            .send(&SegmentJob {
                tenant: survey.tenant.clone(),
                survey: survey.slug.clone(),
                survey_id: survey.id.clone(),
            })
            .await
    }

    /// The state of each build of the survey's segments (by question).
    pub async fn progress(
        &self,
        survey: &SurveyRef,
    ) -> Result<BTreeMap<SegmentKey, BuildState>, StoreError> {
        let key = keys::segment_builds(survey);
        match self.blobs.get(&key).await {
            Ok(blob) => decode(&key, &blob.body),
            Err(Error::NotFound { .. }) => Ok(BTreeMap::new()),
            Err(error) => Err(error).context(|| format!("reading {key}")),
        }
    }

    /// Records how far the build of `key`'s segments has come.
    pub async fn report(
        &self,
        survey: &SurveyRef,
        key: &SegmentKey,
        state: &BuildState,
    ) -> Result<(), StoreError> {
        json_blob::update(
            self.blobs.as_ref(),
            &keys::segment_builds(survey),
            |all: &mut BTreeMap<SegmentKey, BuildState>| {
                all.insert(key.clone(), state.clone());
                Some(())
            },
        )
        .await?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::AnswerValue;

    fn id(text: &str) -> crate::domain::QuestionId {
        crate::domain::QuestionId::parse(text).expect("an id")
    }

    fn key(text: &str) -> SegmentKey {
        SegmentKey::parse(text).expect("a key")
    }

    fn answer(reference: u64, place: &str) -> Answer {
        Answer {
            values: [(id("place"), AnswerValue::Choice(place.into()))].into(),
            ..Answer::sample(reference)
        }
    }

    fn survey() -> SurveyRef {
        SurveyRef {
            tenant: TenantSlug::parse("acme").expect("a slug"),
            slug: SurveySlug::parse("s").expect("a slug"),
            id: SurveyId::default(),
        }
    }

    #[test]
    fn a_segment_started_after_answers_counts_new_ones_past_a_gap_until_built() {
        let mut doc = SummaryDoc::default();
        for (position, place) in ["Beach", "Hills", "Beach"].into_iter().enumerate() {
            doc.count(&answer(position as u64 + 1, place), position as u64);
            doc.list_len += 1;
        }
        assert_eq!(doc.add_segments(&[key("place")]), [key("place")]);
        doc.count(&answer(4, "Beach"), 3);
        doc.recent.insert(Reference(4), 3);
        doc.list_len += 1;
        let beach = SegmentId::parse("place:Beach").expect("valid");
        let view = doc.segment(&survey(), &beach).expect("a segment");
        assert!(!view.question.built);
        assert_eq!(view.tally.summary.total, 1, "only the answer since");
        assert_eq!((view.list.len, view.list.stored(0)), (1, 3));
        assert_eq!(view.tally.recent[&Reference(4)], 3);

        // The build's figures merged in: the two earlier Beach answers at positions 0 and 1.
        let segments = doc.segments.get_mut(&key("place")).expect("there");
        segments.built = true;
        segments.options.get_mut("Beach").expect("there").before = 2;
        let view = doc.segment(&survey(), &beach).expect("a segment");
        assert_eq!(view.list.len, 3);
        assert_eq!(
            (0..3).map(|p| view.list.stored(p)).collect::<Vec<_>>(),
            [0, 1, 3]
        );

        let unsettled = doc.unsettled(&survey(), |r| *r == Reference(4));
        assert_eq!(unsettled.answers[&Reference(4)], 3);
        assert_eq!(unsettled.segments.len(), 1);
        doc.drop_settled(&BTreeSet::from([Reference(4)]));
        assert!(doc.unsettled(&survey(), |_| true).is_empty());

        doc.uncount(&answer(4, "Beach"));
        let view = doc.segment(&survey(), &beach).expect("a segment");
        assert_eq!(view.tally.summary.total, 0);
        assert_eq!(view.tally.days.values().map(|d| d.count).sum::<u64>(), 0);
    }

    #[test]
    fn a_hidden_fields_values_make_at_most_fifty_segments_the_first_seen() {
        let mut doc = SummaryDoc::default();
        doc.add_segments(&[key("@hidden.source")]);
        let sourced = |reference: u64, source: &str| {
            let mut answer = Answer::sample(reference);
            answer.hidden = crate::domain::hidden::HiddenValues::read(
                &["source".to_owned()],
                [("source", source)],
            )
            .expect("a value");
            answer
        };
        let max = crate::domain::segment::MAX_VALUE_SEGMENTS as u64;
        for n in 0..max + 10 {
            doc.count(&sourced(n + 1, &format!("s{n}")), n);
            doc.list_len += 1;
        }
        // A value already kept still counts after the cap.
        doc.count(&sourced(max + 11, "s0"), max + 10);
        let options = &doc.segments[&key("@hidden.source")].options;
        assert_eq!(options.len() as u64, max);
        assert!(options.contains_key("s0") && !options.contains_key(&format!("s{max}")));
        assert_eq!(options["s0"].summary.total, 2);
    }

    #[test]
    fn segments_follow_the_definition_and_start_built_on_an_empty_survey() {
        let mut doc = SummaryDoc::default();
        assert!(doc.add_segments(&[key("place")]).is_empty());
        assert!(doc.segments[&key("place")].built);
        assert!(!doc.sync_segments(&[key("place")]));
        assert!(doc.sync_segments(&[]));
        assert!(doc.segments.is_empty());
        let unknown = SegmentId::parse("place:Beach").expect("valid");
        assert!(doc.segment(&survey(), &unknown).is_none());
    }
}
