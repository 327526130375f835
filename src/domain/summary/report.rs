//! The summary as people and scripts read it: every question of the survey in order, with its
//! text, type and statistics. `canvass summary`, the JSON API and the tenant's summary page all
//! show this one shape.

use serde::Serialize;
use time::OffsetDateTime;

use super::{Bin, QuestionSummary, RecentText, SurveySummary};
use crate::domain::choice::OTHER;
use crate::domain::segment::SegmentReport;
use crate::domain::{Question, QuestionId, QuestionKind, Survey};

/// Most frequent words shown per text question.
pub const TOP_WORDS: usize = 10;

/// A survey's summary, ready to show.
#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
pub struct SummaryReport {
    /// The tenant's slug.
    pub tenant: String,
    /// The survey's slug.
    pub survey: String,
    /// The survey's title.
    pub title: String,
    /// Answers counted.
    pub total: u64,
    /// When answers were last merged in, if ever.
    #[schema(value_type = Option<String>, format = DateTime)]
    #[serde(with = "time::serde::rfc3339::option")]
    pub updated: Option<OffsetDateTime>,
    /// Every question, in the survey's order (then any removed ones that have answers).
    pub questions: Vec<QuestionReport>,
    /// Deleted responses whose traces remain in min and max and frequent words until the
    /// summary is recounted from the remaining answers (absent when there are none).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub recounting: Option<u64>,
    /// The segment this summary is of (absent when it is of every response).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub segment: Option<SegmentReport>,
    /// Every segment of the survey with its count (absent without segment questions).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub segments: Vec<SegmentReport>,
    /// How many counted responses reached each of the survey's endings, in its order (absent
    /// for a survey without endings).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub endings: Vec<EndingReport>,
    /// The loop item the loops' questions are shown for (absent: pooled over every item).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub item: Option<String>,
    /// Every item the survey's loops can go through, with how often it was answered (absent
    /// for a survey without loops).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub items: Vec<LoopItemReport>,
    /// How many partial responses it counts in besides the sent ones (`?partial=true` on a
    /// survey that keeps them; absent otherwise).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub partial: Option<u64>,
}

/// One item a loop can go through.
#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
pub struct LoopItemReport {
    /// Its key (as in `ID[item]`).
    pub key: String,
    /// The option it stands for, or its number.
    pub label: String,
    /// How many times its pages were answered (its most answered question's count).
    pub answered: u64,
}

/// One ending and how many counted responses reached it.
#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
pub struct EndingReport {
    /// The ending's id.
    pub id: String,
    /// How many counted responses reached it.
    pub count: u64,
}

/// One question's statistics.
#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
pub struct QuestionReport {
    /// Its stable id.
    pub id: String,
    /// Its text (a removed question's from the last version that had it), or `None` if it
    /// was removed and no kept version has it.
    pub text: Option<String>,
    /// Whether it was removed from the survey (its answers and statistics are kept).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub removed: bool,
    /// Its type's API name, or the kind of its answers if it was removed.
    #[serde(rename = "type")]
    pub kind: String,
    /// How many respondents were shown it (all of them, unless it has a condition or sits on
    /// a page that some respondents skip).
    pub shown: u64,
    /// How many answered it.
    pub answered: u64,
    /// The Net Promoter Score of an `nps` question: the share of promoters (9 and 10) minus
    /// the share of detractors (0 to 6), in percent, from -100 to 100 (`None` before answers).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nps: Option<f64>,
    /// The statistics for its type.
    #[serde(flatten)]
    pub stats: Stats,
}

/// Per-type statistics.
#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
#[serde(untagged)]
pub enum Stats {
    /// Choice questions: each option with its count, in the survey's order.
    Options {
        /// Options and counts.
        options: Vec<OptionCount>,
        /// The frequent words of what "Other" was said to mean (none without "Other").
        #[serde(skip_serializing_if = "Vec::is_empty")]
        other_words: Vec<WordCount>,
    },
    /// Ratings and numbers.
    Numbers {
        /// Mean (`None` with no answers).
        mean: Option<f64>,
        /// Population standard deviation.
        std_dev: Option<f64>,
        /// Smallest answer.
        min: Option<f64>,
        /// Largest answer.
        max: Option<f64>,
        /// Counts per bin (per star for ratings).
        histogram: Vec<Bin>,
    },
    /// A matrix: each row with the count of each column, in the survey's order.
    Matrix {
        /// Rows and their columns' counts.
        rows: Vec<MatrixRow>,
    },
    /// Rankings: each option's mean place and first places, best mean place first.
    Ranking {
        /// Options with their places.
        ranking: Vec<RankCount>,
    },
    /// Files: how many were given, and their size together.
    Files {
        /// Files given (one per answer).
        files: u64,
        /// Their bytes together.
        bytes: u64,
    },
    /// Dates: how many gave each day, in date order.
    Dates {
        /// Days and counts.
        days: Vec<DayCount>,
    },
    /// Text questions: the most frequent words and the latest answers.
    Words {
        /// Words and counts, most frequent first.
        top_words: Vec<WordCount>,
        /// The newest answers, newest first.
        latest: Vec<RecentText>,
    },
}

/// An option and how often it was picked.
#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
pub struct OptionCount {
    /// The option's text.
    pub option: String,
    /// Picks.
    pub count: u64,
}

/// A row of a matrix question and how often each column was picked in it.
#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
pub struct MatrixRow {
    /// The row's text.
    pub row: String,
    /// Each column with its count.
    pub columns: Vec<OptionCount>,
}

/// An option of a ranking question and the places it was given.
#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
pub struct RankCount {
    /// The option's text.
    pub option: String,
    /// Its mean place (1 = first), `None` before answers.
    pub mean_place: Option<f64>,
    /// How often it was put first.
    pub first: u64,
}

/// A day and how many gave it.
#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
pub struct DayCount {
    /// The day, `YYYY-MM-DD`.
    pub day: String,
    /// Answers.
    pub count: u64,
}

/// A frequent word.
#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
pub struct WordCount {
    /// The word.
    pub word: String,
    /// How often it appeared (a lower bound once the sketch is full).
    pub count: u64,
}

impl SummaryReport {
    /// The report of `summary` for `survey`.
    pub fn new(survey: &Survey, summary: &SurveySummary, updated: Option<OffsetDateTime>) -> Self {
        Self::of_item(survey, summary, updated, None)
    }

    /// The report of `summary` for `survey`, its loops' questions for one item only (`item`:
    /// its key) or pooled over every item (`None`).
    pub fn of_item(
        survey: &Survey,
        summary: &SurveySummary,
        updated: Option<OffsetDateTime>,
        item: Option<&str>,
    ) -> Self {
        let mut questions: Vec<QuestionReport> = survey
            .questions
            .iter()
            .map(|question| match survey.loop_of(&question.id) {
                // A loop's question is counted over the times it was answered.
                Some(_) => {
                    let id = match item {
                        Some(key) => question.id.for_item(key),
                        None => question.id.clone(),
                    };
                    let stats = summary.questions.get(&id);
                    let answered = stats.map_or(0, QuestionSummary::answered);
                    question_report(Some(question), &question.id, stats, answered)
                }
                None => question_report(
                    Some(question),
                    &question.id,
                    summary.questions.get(&question.id),
                    summary.shown(&question.id),
                ),
            })
            .collect();
        questions.extend(
            summary
                .questions
                .iter()
                .filter(|(id, _)| !id.is_looped() && survey.question(id).is_none())
                .map(|(id, stats)| question_report(None, id, Some(stats), summary.shown(id))),
        );
        let items = survey
            .loops()
            .filter_map(|(_, looped)| {
                let source = survey.question(looped.source()?)?;
                Some(crate::domain::looping::possible_items(looped, source))
            })
            .flatten()
            .fold(Vec::<LoopItemReport>::new(), |mut items, (key, label)| {
                if !items.iter().any(|had| had.key == key) {
                    let answered = summary
                        .questions
                        .iter()
                        .filter(|(id, _)| id.looped().is_some_and(|(_, k)| k == key))
                        .map(|(_, stats)| stats.answered())
                        .max()
                        .unwrap_or(0);
                    items.push(LoopItemReport {
                        key,
                        label,
                        answered,
                    });
                }
                items
            });
        Self {
            tenant: survey.tenant.to_string(),
            survey: survey.slug.to_string(),
            title: survey.title.clone(),
            total: summary.total,
            updated,
            questions,
            recounting: None,
            segment: None,
            segments: Vec::new(),
            item: item.map(str::to_owned),
            items,
            partial: None,
            // Each of the survey's endings, then any removed one that was reached.
            endings: survey
                .endings
                .iter()
                .map(|e| e.id.clone())
                .chain(
                    summary
                        .endings
                        .keys()
                        .filter(|id| survey.ending(id).is_none())
                        .cloned(),
                )
                .map(|id| EndingReport {
                    count: summary.endings.get(&id).copied().unwrap_or(0),
                    id,
                })
                .collect(),
        }
    }

    /// Names the segment it is of, and lists every segment.
    pub fn with_segments(
        mut self,
        segment: Option<SegmentReport>,
        segments: Vec<SegmentReport>,
    ) -> Self {
        self.segment = segment;
        self.segments = segments;
        self
    }

    /// Says that `deleted` deleted responses still show in what subtraction cannot take back.
    pub fn with_unrecounted(mut self, deleted: u64) -> Self {
        self.recounting = (deleted > 0).then_some(deleted);
        self
    }

    /// Names removed questions by their text in the versions they were answered in (`known`:
    /// every question any kept version had).
    pub fn with_removed(mut self, known: &[Question]) -> Self {
        for report in self.questions.iter_mut().filter(|q| q.removed) {
            if let Some(question) = known.iter().find(|q| q.id.as_str() == report.id) {
                report.text = Some(question.text.clone());
            }
        }
        self
    }
}

fn question_report(
    question: Option<&Question>,
    id: &QuestionId,
    summary: Option<&QuestionSummary>,
    shown: u64,
) -> QuestionReport {
    let kind = match (question, summary) {
        (Some(question), _) => question.kind.name().to_owned(),
        (None, Some(summary)) => summary_kind(summary).to_owned(),
        (None, None) => "unknown".to_owned(),
    };
    let options = question.map(|q| q.kind.options()).unwrap_or_default();
    let stats = match summary {
        Some(QuestionSummary::Choice {
            options: counts,
            other,
            ..
        }) => {
            let mut listed: Vec<OptionCount> = options
                .iter()
                .map(|option| OptionCount {
                    option: option.clone(),
                    count: counts.get(option).copied().unwrap_or(0),
                })
                .collect();
            listed.extend(
                counts
                    .iter()
                    .filter(|(o, _)| !options.contains(o))
                    .map(|(o, c)| OptionCount {
                        option: o.clone(),
                        count: *c,
                    }),
            );
            // "Other" right after the listed options, even before anyone chose it.
            if question.is_some_and(|q| q.kind.has_other()) && !counts.contains_key(OTHER) {
                listed.push(OptionCount {
                    option: OTHER.to_owned(),
                    count: 0,
                });
            }
            Stats::Options {
                options: listed,
                other_words: other
                    .top(TOP_WORDS)
                    .into_iter()
                    .map(|(word, count)| WordCount { word, count })
                    .collect(),
            }
        }
        Some(QuestionSummary::Stars { moments, counts }) => numbers(
            moments,
            (1..=5)
                .zip(counts)
                .map(|(stars, count)| Bin {
                    lower: f64::from(stars),
                    upper: f64::from(stars + 1),
                    count: *count,
                    label: format!("{stars} star{}", if stars == 1 { "" } else { "s" }),
                })
                .collect(),
        ),
        Some(QuestionSummary::Number {
            moments,
            histogram,
            values,
        }) => {
            let whole = matches!(
                question.map(|q| &q.kind),
                Some(QuestionKind::Numeric { integer: true, .. })
            );
            // A whole-number question with known bounds a hundred apart or less: a bar for
            // every value; otherwise the fixed bins, named by what they hold.
            let exact = match question.map(|q| &q.kind) {
                Some(QuestionKind::Numeric {
                    min: Some(min),
                    max: Some(max),
                    integer: true,
                }) => values.exact(*min, *max),
                _ => None,
            };
            let bins = match exact {
                Some(exact) => exact
                    .into_iter()
                    .map(|(value, count)| Bin {
                        lower: value as f64,
                        upper: value as f64 + 1.0,
                        count,
                        label: value.to_string(),
                    })
                    .collect(),
                None => histogram
                    .bins()
                    .into_iter()
                    .map(|bin| Bin {
                        label: bin_label(bin.lower, bin.upper, whole),
                        ..bin
                    })
                    .collect(),
            };
            numbers(moments, bins)
        }
        Some(QuestionSummary::Points { moments, counts }) => {
            // Every point of the question's scale, counted or not (those it no longer has,
            // if its scale changed, too).
            let mut points: std::collections::BTreeSet<u8> = question
                .and_then(|q| q.kind.points())
                .map(|range| range.collect())
                .unwrap_or_default();
            points
                .extend((0..=10u8).filter(|&p| counts.get(usize::from(p)).is_some_and(|&c| c > 0)));
            numbers(
                moments,
                points
                    .into_iter()
                    .map(|point| Bin {
                        lower: f64::from(point),
                        upper: f64::from(point) + 1.0,
                        count: counts.get(usize::from(point)).copied().unwrap_or(0),
                        label: point.to_string(),
                    })
                    .collect(),
            )
        }
        Some(QuestionSummary::Matrix { cells, .. }) => Stats::Matrix {
            rows: matrix_rows(question, cells),
        },
        Some(QuestionSummary::Ranking { answered, places }) => Stats::Ranking {
            ranking: ranking(options, places, *answered),
        },
        Some(QuestionSummary::Files { answered, bytes }) => Stats::Files {
            files: *answered,
            bytes: *bytes,
        },
        Some(QuestionSummary::Dates { days, .. }) => Stats::Dates {
            days: days
                .iter()
                .map(|(day, count)| DayCount {
                    day: day.clone(),
                    count: *count,
                })
                .collect(),
        },
        Some(QuestionSummary::Text { words, recent, .. }) => Stats::Words {
            top_words: words
                .top(TOP_WORDS)
                .into_iter()
                .map(|(word, count)| WordCount { word, count })
                .collect(),
            latest: recent.iter().cloned().collect(),
        },
        None => empty(question, options),
    };
    QuestionReport {
        id: id.to_string(),
        text: question.map(|q| q.text.clone()),
        removed: question.is_none(),
        nps: match summary {
            Some(QuestionSummary::Points { counts, moments }) if kind == "nps" => {
                net_promoter_score(counts, moments.count)
            }
            _ => None,
        },
        kind,
        shown,
        answered: summary.map_or(0, QuestionSummary::answered),
        stats,
    }
}

/// Every row and column of the matrix (the survey's, then any others answered) with counts.
fn matrix_rows(
    question: Option<&Question>,
    cells: &std::collections::BTreeMap<String, std::collections::BTreeMap<String, u64>>,
) -> Vec<MatrixRow> {
    let (rows, columns): (Vec<String>, Vec<String>) = match question.map(|q| &q.kind) {
        Some(QuestionKind::Matrix { rows, columns }) => (rows.clone(), columns.clone()),
        _ => (Vec::new(), Vec::new()),
    };
    let extra_rows = cells.keys().filter(|r| !rows.contains(r)).cloned();
    let all_rows: Vec<String> = rows.iter().cloned().chain(extra_rows).collect();
    let mut all_columns = columns;
    for counts in cells.values() {
        for column in counts.keys() {
            if !all_columns.contains(column) {
                all_columns.push(column.clone());
            }
        }
    }
    all_rows
        .into_iter()
        .map(|row| MatrixRow {
            columns: all_columns
                .iter()
                .map(|column| OptionCount {
                    option: column.clone(),
                    count: cells
                        .get(&row)
                        .and_then(|counts| counts.get(column))
                        .copied()
                        .unwrap_or(0),
                })
                .collect(),
            row,
        })
        .collect()
}

/// Every option (the survey's, then any others answered) with its mean place and first
/// places, best mean place first; options without places keep the survey's order at the end.
fn ranking(
    options: &[String],
    places: &std::collections::BTreeMap<String, [u64; 2]>,
    answered: u64,
) -> Vec<RankCount> {
    let others = places.keys().filter(|o| !options.contains(o)).cloned();
    let mut ranking: Vec<RankCount> = options
        .iter()
        .cloned()
        .chain(others)
        .map(|option| {
            let [sum, first] = places.get(&option).copied().unwrap_or_default();
            RankCount {
                mean_place: (answered > 0 && sum > 0).then(|| sum as f64 / answered as f64),
                option,
                first,
            }
        })
        .collect();
    // A stable sort: ties and unplaced options keep their order.
    ranking.sort_by(|a, b| match (a.mean_place, b.mean_place) {
        (Some(x), Some(y)) => x.total_cmp(&y),
        (Some(_), None) => std::cmp::Ordering::Less,
        (None, Some(_)) => std::cmp::Ordering::Greater,
        (None, None) => std::cmp::Ordering::Equal,
    });
    ranking
}

/// What a bin `[lower, upper)` holds: for whole numbers the first and last whole number in
/// it ("2 to 4", or "7" alone), for other numbers its edges ("0.2 to under 0.5").
fn bin_label(lower: f64, upper: f64, whole: bool) -> String {
    let plain = |value: f64| {
        if value.fract() == 0.0 && value.abs() < 1e15 {
            format!("{}", value as i64)
        } else {
            format!("{value}")
        }
    };
    if whole {
        let (first, last) = (lower.ceil(), upper.ceil() - 1.0);
        if first >= last {
            plain(first)
        } else {
            format!("{} to {}", plain(first), plain(last))
        }
    } else {
        format!("{} to under {}", plain(lower), plain(upper))
    }
}

/// Promoters (9, 10) minus detractors (0 to 6), in percent of everyone who answered.
fn net_promoter_score(counts: &[u64; 11], answered: u64) -> Option<f64> {
    if answered == 0 {
        return None;
    }
    let share = |range: std::ops::RangeInclusive<u8>| {
        range
            .map(|p| counts.get(usize::from(p)).copied().unwrap_or(0))
            .sum::<u64>() as f64
    };
    Some((share(9..=10) - share(0..=6)) * 100.0 / answered as f64)
}

fn numbers(moments: &super::Moments, histogram: Vec<Bin>) -> Stats {
    let some = |value: f64| (moments.count > 0).then_some(value);
    Stats::Numbers {
        mean: some(moments.mean),
        std_dev: some(moments.std_dev()),
        min: some(moments.min),
        max: some(moments.max),
        histogram,
    }
}

/// The statistics of a question nobody answered yet, in its type's shape.
fn empty(question: Option<&Question>, options: &[String]) -> Stats {
    use crate::domain::QuestionKind as K;
    match question.map(|q| &q.kind) {
        Some(K::SingleChoice { .. } | K::MultipleChoice { .. } | K::Dropdown { .. }) => {
            let other = question
                .is_some_and(|q| q.kind.has_other())
                .then(|| OTHER.to_owned());
            Stats::Options {
                options: options
                    .iter()
                    .cloned()
                    .chain(other)
                    .map(|option| OptionCount { option, count: 0 })
                    .collect(),
                other_words: Vec::new(),
            }
        }
        Some(K::FiveStars | K::Numeric { .. }) => numbers(&super::Moments::default(), Vec::new()),
        Some(kind @ (K::Nps | K::Scale { .. })) => numbers(
            &super::Moments::default(),
            kind.points()
                .unwrap_or(0..=0)
                .map(|point| Bin {
                    lower: f64::from(point),
                    upper: f64::from(point) + 1.0,
                    count: 0,
                    label: point.to_string(),
                })
                .collect(),
        ),
        Some(K::Date { .. }) => Stats::Dates { days: Vec::new() },
        Some(K::File { .. }) => Stats::Files { files: 0, bytes: 0 },
        Some(K::Matrix { .. }) => Stats::Matrix {
            rows: matrix_rows(question, &Default::default()),
        },
        Some(K::Ranking { .. }) => Stats::Ranking {
            ranking: ranking(options, &Default::default(), 0),
        },
        _ => Stats::Words {
            top_words: Vec::new(),
            latest: Vec::new(),
        },
    }
}

fn summary_kind(summary: &QuestionSummary) -> &'static str {
    match summary {
        QuestionSummary::Text { .. } => "text",
        QuestionSummary::Choice { .. } => "choice",
        QuestionSummary::Stars { .. } => "five_stars",
        QuestionSummary::Number { .. } => "numeric",
        QuestionSummary::Points { .. } => "points",
        QuestionSummary::Dates { .. } => "date",
        QuestionSummary::Ranking { .. } => "ranking",
        QuestionSummary::Matrix { .. } => "matrix",
        QuestionSummary::Files { .. } => "file",
    }
}
