//! Summary statistics of a survey's answers: pure, exact and mergeable.
//!
//! A summary of some answers merged with a summary of other answers equals the summary of all
//! of them, whatever the grouping and order (counts, option counts and histograms exactly;
//! means and deviations up to floating-point rounding). That is what lets workers summarise
//! batches independently and merge them into the stored summary. Questions are keyed by their
//! stable id, so answers to older versions of a survey add up with newer ones.

mod histogram;
mod moments;
mod recent;
mod report;
mod values;
mod words;

pub use histogram::{Bin, CHART_BARS, Histogram, fold as fold_bins, median, nps_groups};
pub use moments::Moments;
pub use recent::{RECENT_TEXT_CHARS, RECENT_TEXTS, RecentText, RecentTexts};
pub use report::{
    DayCount, MatrixRow, OptionCount, QuestionReport, RankCount, Stats, SummaryReport, WordCount,
};
pub use values::ValueCounts;
pub use words::{CAPACITY as WORD_CAPACITY, WordSketch, words};

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::{Answer, AnswerValue, QuestionId};

/// The statistics of one question, by the kind of answer it takes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum QuestionSummary {
    /// Text answers: their most frequent words and the latest answers.
    Text {
        /// How many answered.
        answered: u64,
        /// Frequent words.
        words: WordSketch,
        /// The newest answers (absent from summaries made before they were kept).
        #[serde(default, skip_serializing_if = "RecentTexts::is_empty")]
        recent: RecentTexts,
    },
    /// Single or multiple choice: how often each option was picked.
    Choice {
        /// How many answered.
        answered: u64,
        /// Picks per option ("Other" among them).
        options: BTreeMap<String, u64>,
        /// The frequent words of what "Other" was said to mean.
        #[serde(default, skip_serializing_if = "WordSketch::is_empty")]
        other: WordSketch,
    },
    /// Star ratings: moments and the count of each rating.
    Stars {
        /// Count, mean, deviation, min, max.
        moments: Moments,
        /// How many gave 1, 2, 3, 4 and 5 stars.
        counts: [u64; 5],
    },
    /// Points on an NPS question or a scale: moments and the exact count of each point.
    Points {
        /// Count, mean, deviation, min, max.
        moments: Moments,
        /// How many picked each point, by point (0 to 10; a list, since JSON keys inside a
        /// tagged summary cannot be read back as numbers).
        counts: [u64; 11],
    },
    /// Rankings: for each option, the sum of the places it was given and how often it came
    /// first (its mean place is the sum over `answered`).
    Ranking {
        /// How many answered.
        answered: u64,
        /// Per option: `[sum of places (1 = first), times first]`.
        places: BTreeMap<String, [u64; 2]>,
    },
    /// A matrix: for each row, how often each column was picked.
    Matrix {
        /// How many answered (any row).
        answered: u64,
        /// Picks per column, per row.
        cells: BTreeMap<String, BTreeMap<String, u64>>,
    },
    /// Dates: how many gave each day.
    Dates {
        /// How many answered.
        answered: u64,
        /// Answers per day (`YYYY-MM-DD`).
        days: BTreeMap<String, u64>,
    },
    /// Files: how many were given, and their size together.
    Files {
        /// How many answered (a file each).
        answered: u64,
        /// The files' bytes together.
        bytes: u64,
    },
    /// Numbers: moments and a histogram.
    Number {
        /// Count, mean, deviation, min, max.
        moments: Moments,
        /// Counts over fixed bins.
        histogram: Histogram,
        /// Exact counts of whole numbers, while there are few distinct ones.
        #[serde(default)]
        values: ValueCounts,
    },
}

impl QuestionSummary {
    /// The summary of one value of `answer`.
    pub fn of(value: &AnswerValue, answer: &Answer) -> Self {
        match value {
            AnswerValue::Text(text) => {
                let mut words = WordSketch::default();
                words.add_text(text);
                QuestionSummary::Text {
                    answered: 1,
                    words,
                    recent: RecentTexts::of(answer.reference, answer.submitted_at, text),
                }
            }
            AnswerValue::Choice(option) => QuestionSummary::Choice {
                answered: 1,
                options: BTreeMap::from([(option.clone(), 1)]),
                other: WordSketch::default(),
            },
            AnswerValue::Choices(options) => QuestionSummary::Choice {
                answered: 1,
                options: options.iter().map(|option| (option.clone(), 1)).collect(),
                other: WordSketch::default(),
            },
            AnswerValue::Other { picked, text } => {
                let mut other = WordSketch::default();
                other.add_text(text);
                let mut options: BTreeMap<String, u64> =
                    picked.iter().map(|option| (option.clone(), 1)).collect();
                options.insert(super::choice::OTHER.to_owned(), 1);
                QuestionSummary::Choice {
                    answered: 1,
                    options,
                    other,
                }
            }
            AnswerValue::Stars(stars) => {
                let mut counts = [0; 5];
                counts[usize::from(stars.clamp(&1, &5) - 1)] = 1;
                QuestionSummary::Stars {
                    moments: Moments::of(f64::from(*stars)),
                    counts,
                }
            }
            AnswerValue::Point(point) => {
                let mut counts = [0; 11];
                counts[usize::from((*point).min(10))] = 1;
                QuestionSummary::Points {
                    moments: Moments::of(f64::from(*point)),
                    counts,
                }
            }
            AnswerValue::Ranking(order) => QuestionSummary::Ranking {
                answered: 1,
                places: order
                    .iter()
                    .enumerate()
                    .map(|(place, option)| {
                        (option.clone(), [place as u64 + 1, u64::from(place == 0)])
                    })
                    .collect(),
            },
            AnswerValue::Matrix(picked) => QuestionSummary::Matrix {
                answered: 1,
                cells: picked
                    .iter()
                    .map(|(row, column)| (row.clone(), BTreeMap::from([(column.clone(), 1)])))
                    .collect(),
            },
            AnswerValue::File(file) => QuestionSummary::Files {
                answered: 1,
                bytes: file.bytes,
            },
            AnswerValue::Date(day) => QuestionSummary::Dates {
                answered: 1,
                days: BTreeMap::from([(day.clone(), 1)]),
            },
            AnswerValue::Number(number) => {
                let number = summarisable(*number);
                let mut histogram = Histogram::default();
                histogram.add(number);
                QuestionSummary::Number {
                    moments: Moments::of(number),
                    histogram,
                    values: ValueCounts::of(number),
                }
            }
        }
    }

    /// Whether every number in it is finite.
    pub fn is_finite(&self) -> bool {
        match self {
            QuestionSummary::Stars { moments, .. }
            | QuestionSummary::Number { moments, .. }
            | QuestionSummary::Points { moments, .. } => moments.is_finite(),
            QuestionSummary::Text { .. }
            | QuestionSummary::Choice { .. }
            | QuestionSummary::Dates { .. }
            | QuestionSummary::Ranking { .. }
            | QuestionSummary::Matrix { .. }
            | QuestionSummary::Files { .. } => true,
        }
    }

    /// How many answered the question.
    pub fn answered(&self) -> u64 {
        match self {
            QuestionSummary::Text { answered, .. }
            | QuestionSummary::Choice { answered, .. }
            | QuestionSummary::Dates { answered, .. }
            | QuestionSummary::Ranking { answered, .. }
            | QuestionSummary::Matrix { answered, .. }
            | QuestionSummary::Files { answered, .. } => *answered,
            QuestionSummary::Stars { moments, .. }
            | QuestionSummary::Number { moments, .. }
            | QuestionSummary::Points { moments, .. } => moments.count,
        }
    }

    /// Adds another summary of the same question. A question's kind never changes under one
    /// id; should two kinds ever meet, the other summary is ignored rather than mixed in.
    pub fn merge(&mut self, other: &QuestionSummary) {
        use QuestionSummary as Q;
        match (self, other) {
            (
                Q::Text {
                    answered,
                    words,
                    recent,
                },
                Q::Text {
                    answered: a,
                    words: w,
                    recent: r,
                },
            ) => {
                *answered += a;
                words.merge(w);
                recent.merge(r);
            }
            (
                Q::Choice {
                    answered,
                    options,
                    other,
                },
                Q::Choice {
                    answered: a,
                    options: o,
                    other: w,
                },
            ) => {
                *answered += a;
                other.merge(w);
                for (option, count) in o {
                    *options.entry(option.clone()).or_default() += count;
                }
            }
            (
                Q::Stars { moments, counts },
                Q::Stars {
                    moments: m,
                    counts: c,
                },
            ) => {
                moments.merge(m);
                for (mine, theirs) in counts.iter_mut().zip(c) {
                    *mine += theirs;
                }
            }
            (
                Q::Points { moments, counts },
                Q::Points {
                    moments: m,
                    counts: c,
                },
            ) => {
                moments.merge(m);
                for (mine, theirs) in counts.iter_mut().zip(c) {
                    *mine += theirs;
                }
            }
            (
                Q::Matrix { answered, cells },
                Q::Matrix {
                    answered: a,
                    cells: c,
                },
            ) => {
                *answered += a;
                for (row, columns) in c {
                    let mine = cells.entry(row.clone()).or_default();
                    for (column, count) in columns {
                        *mine.entry(column.clone()).or_default() += count;
                    }
                }
            }
            (
                Q::Ranking { answered, places },
                Q::Ranking {
                    answered: a,
                    places: p,
                },
            ) => {
                *answered += a;
                for (option, [sum, firsts]) in p {
                    let mine = places.entry(option.clone()).or_default();
                    mine[0] += sum;
                    mine[1] += firsts;
                }
            }
            (
                Q::Dates { answered, days },
                Q::Dates {
                    answered: a,
                    days: d,
                },
            ) => {
                *answered += a;
                for (day, count) in d {
                    *days.entry(day.clone()).or_default() += count;
                }
            }
            (
                Q::Number {
                    moments,
                    histogram,
                    values,
                },
                Q::Number {
                    moments: m,
                    histogram: h,
                    values: v,
                },
            ) => {
                moments.merge(m);
                histogram.merge(h);
                values.merge(v);
            }
            (
                Q::Files { answered, bytes },
                Q::Files {
                    answered: a,
                    bytes: b,
                },
            ) => {
                *answered += a;
                *bytes += b;
            }
            _ => {}
        }
    }
}

impl QuestionSummary {
    /// Takes out the summary of some of the answers it counts (deleted responses). Counts,
    /// histograms, means and deviations come out exactly (up to rounding); what a summary
    /// cannot give back (min and max, the frequent-words sketches) stays until the summary is
    /// recounted from the remaining answers, and latest answers lose the ones taken out.
    pub fn remove(&mut self, part: &QuestionSummary) {
        use QuestionSummary as Q;
        match (self, part) {
            (
                Q::Text {
                    answered, recent, ..
                },
                Q::Text {
                    answered: a,
                    recent: r,
                    ..
                },
            ) => {
                *answered = answered.saturating_sub(*a);
                recent.remove(r);
            }
            (
                Q::Choice {
                    answered, options, ..
                },
                Q::Choice {
                    answered: a,
                    options: o,
                    ..
                },
            ) => {
                *answered = answered.saturating_sub(*a);
                take(options, o);
            }
            (
                Q::Stars { moments, counts },
                Q::Stars {
                    moments: m,
                    counts: c,
                },
            ) => {
                moments.remove(m);
                for (mine, theirs) in counts.iter_mut().zip(c) {
                    *mine = mine.saturating_sub(*theirs);
                }
            }
            (
                Q::Points { moments, counts },
                Q::Points {
                    moments: m,
                    counts: c,
                },
            ) => {
                moments.remove(m);
                for (mine, theirs) in counts.iter_mut().zip(c) {
                    *mine = mine.saturating_sub(*theirs);
                }
            }
            (
                Q::Matrix { answered, cells },
                Q::Matrix {
                    answered: a,
                    cells: c,
                },
            ) => {
                *answered = answered.saturating_sub(*a);
                for (row, columns) in c {
                    if let Some(mine) = cells.get_mut(row) {
                        take(mine, columns);
                    }
                }
                cells.retain(|_, columns| !columns.is_empty());
            }
            (
                Q::Ranking { answered, places },
                Q::Ranking {
                    answered: a,
                    places: p,
                },
            ) => {
                *answered = answered.saturating_sub(*a);
                for (option, [sum, firsts]) in p {
                    if let Some(mine) = places.get_mut(option) {
                        mine[0] = mine[0].saturating_sub(*sum);
                        mine[1] = mine[1].saturating_sub(*firsts);
                    }
                }
                places.retain(|_, [sum, _]| *sum > 0);
            }
            (
                Q::Dates { answered, days },
                Q::Dates {
                    answered: a,
                    days: d,
                },
            ) => {
                *answered = answered.saturating_sub(*a);
                take(days, d);
            }
            (
                Q::Number {
                    moments,
                    histogram,
                    values,
                },
                Q::Number {
                    moments: m,
                    histogram: h,
                    values: v,
                },
            ) => {
                moments.remove(m);
                histogram.remove(h);
                values.remove(v);
            }
            (
                Q::Files { answered, bytes },
                Q::Files {
                    answered: a,
                    bytes: b,
                },
            ) => {
                *answered = answered.saturating_sub(*a);
                *bytes = bytes.saturating_sub(*b);
            }
            _ => {}
        }
    }
}

/// Takes counts out of a map of counts, dropping those that reach zero.
fn take(counts: &mut BTreeMap<String, u64>, part: &BTreeMap<String, u64>) {
    for (key, count) in part {
        if let Some(mine) = counts.get_mut(key) {
            *mine = mine.saturating_sub(*count);
            if *mine == 0 {
                counts.remove(key);
            }
        }
    }
}

/// A numeric answer as statistics take it: within the accepted range. Answers are checked
/// against that range when given; ones stored before it existed are counted at its edge, so
/// no stored answer can make a statistic infinite.
fn summarisable(number: f64) -> f64 {
    use crate::domain::question::MAX_NUMBER;
    if number.is_nan() {
        0.0
    } else {
        number.clamp(-MAX_NUMBER, MAX_NUMBER)
    }
}

/// The statistics of a survey's answers.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SurveySummary {
    /// Answers counted.
    pub total: u64,
    /// Per question, by stable id.
    pub questions: BTreeMap<QuestionId, QuestionSummary>,
    /// Per question, how many counted answers were given without it being shown (display
    /// logic): it was shown to `total` minus that many.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub hidden: BTreeMap<QuestionId, u64>,
    /// How many counted answers reached each ending, by the ending's id.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub endings: BTreeMap<String, u64>,
}

impl SurveySummary {
    /// Counts one answer.
    pub fn add(&mut self, answer: &Answer) {
        let mut one = SurveySummary {
            total: 1,
            questions: BTreeMap::new(),
            hidden: answer.skipped.iter().map(|q| (q.clone(), 1)).collect(),
            endings: answer.ending.iter().map(|e| (e.clone(), 1)).collect(),
        };
        for (question, value) in &answer.values {
            let summary = QuestionSummary::of(value, answer);
            // A loop's answers are counted per item (`ID[item]`) and pooled under the
            // question's own id.
            if let Some((pooled, _)) = question.looped() {
                match one.questions.get_mut(&pooled) {
                    Some(mine) => mine.merge(&summary),
                    None => {
                        one.questions.insert(pooled, summary.clone());
                    }
                }
            }
            one.questions.insert(question.clone(), summary);
        }
        self.merge(&one);
    }

    /// Takes out one counted answer (a deleted response); see `QuestionSummary::remove` for
    /// what comes out exactly.
    pub fn subtract(&mut self, answer: &Answer) {
        let mut one = SurveySummary::default();
        one.add(answer);
        self.total = self.total.saturating_sub(one.total);
        for (question, count) in &one.hidden {
            if let Some(mine) = self.hidden.get_mut(question) {
                *mine = mine.saturating_sub(*count);
                if *mine == 0 {
                    self.hidden.remove(question);
                }
            }
        }
        for ending in one.endings.keys() {
            if let Some(mine) = self.endings.get_mut(ending) {
                *mine = mine.saturating_sub(1);
                if *mine == 0 {
                    self.endings.remove(ending);
                }
            }
        }
        for (question, part) in &one.questions {
            if let Some(mine) = self.questions.get_mut(question) {
                mine.remove(part);
                if mine.answered() == 0 {
                    self.questions.remove(question);
                }
            }
        }
    }

    /// How many counted answers were given with the question shown.
    pub fn shown(&self, question: &QuestionId) -> u64 {
        self.total
            .saturating_sub(self.hidden.get(question).copied().unwrap_or(0))
    }

    /// Whether every number in it is finite (a summary that is not must never be stored).
    pub fn is_finite(&self) -> bool {
        self.questions.values().all(QuestionSummary::is_finite)
    }

    /// Adds the summary of other, disjoint answers.
    pub fn merge(&mut self, other: &SurveySummary) {
        self.total += other.total;
        for (question, count) in &other.hidden {
            *self.hidden.entry(question.clone()).or_default() += count;
        }
        for (ending, count) in &other.endings {
            *self.endings.entry(ending.clone()).or_default() += count;
        }
        for (question, summary) in &other.questions {
            match self.questions.get_mut(question) {
                Some(mine) => mine.merge(summary),
                None => {
                    self.questions.insert(question.clone(), summary.clone());
                }
            }
        }
    }
}

#[cfg(test)]
mod tests;
