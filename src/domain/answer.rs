//! Answers: what a respondent gave, checked against the survey they answered.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

use super::choice::OTHER;
use super::hidden::HiddenValues;
use super::problem::AnswerProblem;
use super::question::{MAX_LONG_TEXT, MAX_NUMBER, MAX_SHORT_TEXT};
use super::upload::FileAnswer;
use super::{QuestionId, QuestionKind, Reference, SurveyId, SurveyRef, SurveySlug, TenantSlug};

pub use super::answer_value::{AnswerValue, TEXT_SEPARATOR};

/// A respondent's complete, valid set of answers to one version of a survey.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(from = "StoredAnswer")]
pub struct Answer {
    /// The survey's owner.
    pub tenant: TenantSlug,
    /// The survey answered.
    pub survey: SurveySlug,
    /// The identity of the survey answered (empty for answers older than identities).
    #[serde(default)]
    pub survey_id: SurveyId,
    /// The version of the survey the respondent saw.
    pub survey_version: u32,
    /// The reference number shown to the respondent; unique across the service.
    pub reference: Reference,
    /// When the respondent submitted (only the day, at midnight UTC, for a survey whose
    /// answers are anonymous).
    #[schema(value_type = String, format = DateTime)]
    #[serde(with = "time::serde::rfc3339")]
    pub submitted_at: OffsetDateTime,
    /// Answers by stable question id; unanswered optional questions are absent.
    pub values: BTreeMap<QuestionId, AnswerValue>,
    /// Questions the respondent was not shown (their conditions did not hold, or a jump or
    /// a page's condition passed their page over); empty for surveys without logic.
    #[serde(default, skip_serializing_if = "BTreeSet::is_empty")]
    pub skipped: BTreeSet<QuestionId>,
    /// The survey's hidden fields as the respondent's address gave them (`{"pid": "abc"}`).
    #[serde(default, skip_serializing_if = "HiddenValues::is_empty")]
    pub hidden: HiddenValues,
    /// The orders drawn for the respondent: a question's id → its options as shown; `page:N`
    /// → that page's question ids as shown (see `order`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    #[schema(example = json!({"drink": ["Tea", "Coffee", "None of these"], "page:1": ["q2", "q1"]}))]
    pub order: super::order::Order,
    /// The language it was answered in (absent for answers given before languages were
    /// recorded: the survey's default).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<String>, example = "de")]
    pub language: Option<super::language::LanguageTag>,
    /// The quotas it met once they were full, of those that still count such answers (it is
    /// marked over them).
    #[serde(default, skip_serializing_if = "BTreeSet::is_empty")]
    #[schema(value_type = Vec<String>)]
    pub over_quota: BTreeSet<super::quota::QuotaId>,
    /// The survey's variables computed when it was sent, those that had a value.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    #[schema(value_type = Object, example = json!({"total": 7}))]
    pub variables: BTreeMap<String, serde_json::Value>,
    /// The sum of the points of the options picked (a survey with scores).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub score: Option<f64>,
    /// How many quiz questions were answered correctly (a survey with correct answers).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub correct: Option<u32>,
    /// The ending reached (a survey with endings).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ending: Option<String>,
    /// The participant who gave it through their personal link, when its survey's answers are
    /// not anonymous.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub participant: Option<Box<super::participant::Respondent>>,
    /// Whether it is a partial response: the answers so far of a respondent who has not sent
    /// them (a survey that keeps them; `submitted_at` is when they last left a page). Never
    /// counted, queued or summarised.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub partial: bool,
}

/// An answer as stored, read: as `Answer`, but answers stored before hidden fields existed
/// kept the questions not shown under `hidden`, now `skipped` (and `hidden` is the fields').
#[derive(Deserialize)]
struct StoredAnswer {
    tenant: TenantSlug,
    survey: SurveySlug,
    #[serde(default)]
    survey_id: SurveyId,
    survey_version: u32,
    reference: Reference,
    #[serde(with = "time::serde::rfc3339")]
    submitted_at: OffsetDateTime,
    values: BTreeMap<QuestionId, AnswerValue>,
    #[serde(default)]
    skipped: BTreeSet<QuestionId>,
    #[serde(default)]
    hidden: StoredHidden,
    #[serde(default)]
    order: super::order::Order,
    #[serde(default)]
    language: Option<super::language::LanguageTag>,
    #[serde(default)]
    over_quota: BTreeSet<super::quota::QuotaId>,
    #[serde(default)]
    variables: BTreeMap<String, serde_json::Value>,
    #[serde(default)]
    score: Option<f64>,
    #[serde(default)]
    correct: Option<u32>,
    #[serde(default)]
    ending: Option<String>,
    #[serde(default)]
    participant: Option<Box<super::participant::Respondent>>,
    #[serde(default)]
    partial: bool,
}

/// What an answer's `hidden` held: the hidden fields, or (stored before they existed) the
/// questions not shown.
#[derive(Deserialize)]
#[serde(untagged)]
enum StoredHidden {
    Fields(HiddenValues),
    Skipped(BTreeSet<QuestionId>),
}

impl Default for StoredHidden {
    fn default() -> Self {
        Self::Fields(HiddenValues::default())
    }
}

impl From<StoredAnswer> for Answer {
    fn from(stored: StoredAnswer) -> Self {
        let (mut skipped, hidden) = (stored.skipped, HiddenValues::default());
        let hidden = match stored.hidden {
            StoredHidden::Fields(fields) => fields,
            StoredHidden::Skipped(old) => {
                skipped.extend(old);
                hidden
            }
        };
        Answer {
            tenant: stored.tenant,
            survey: stored.survey,
            survey_id: stored.survey_id,
            survey_version: stored.survey_version,
            reference: stored.reference,
            submitted_at: stored.submitted_at,
            values: stored.values,
            skipped,
            hidden,
            order: stored.order,
            language: stored.language,
            over_quota: stored.over_quota,
            variables: stored.variables,
            score: stored.score,
            correct: stored.correct,
            ending: stored.ending,
            participant: stored.participant,
            partial: stored.partial,
        }
    }
}

impl Answer {
    /// Answer `reference` to `survey` of `tenant`, given at `submitted_at`, holding `values`
    /// and nothing more: no skips, hidden fields, drawn orders, language, quotas, outcome or
    /// participant; no survey identity, version 1. What the demo's samples, the benchmarks
    /// and tests start from before setting what they need.
    pub fn new(
        tenant: TenantSlug,
        survey: SurveySlug,
        reference: Reference,
        submitted_at: OffsetDateTime,
        values: BTreeMap<QuestionId, AnswerValue>,
    ) -> Self {
        Self {
            tenant,
            survey,
            survey_id: SurveyId::default(),
            survey_version: 1,
            reference,
            submitted_at,
            values,
            skipped: BTreeSet::new(),
            hidden: HiddenValues::default(),
            order: Default::default(),
            language: None,
            over_quota: BTreeSet::new(),
            variables: BTreeMap::new(),
            score: None,
            correct: None,
            ending: None,
            participant: None,
            partial: false,
        }
    }

    /// Its file answer to `question`, if it has one.
    pub fn file(&self, question: &str) -> Option<&crate::domain::upload::FileAnswer> {
        self.values.iter().find_map(|(id, value)| match value {
            AnswerValue::File(file) if id.as_str() == question => Some(file),
            _ => None,
        })
    }

    /// Whether any text the respondent wrote (a text answer, or what "Other" means) holds
    /// `needle`, which is given in lower case; case is ignored.
    pub fn mentions(&self, needle: &str) -> bool {
        self.values.values().any(|value| match value {
            AnswerValue::Text(text) | AnswerValue::Other { text, .. } => {
                text.to_lowercase().contains(needle)
            }
            _ => false,
        })
    }

    /// Where the answered survey's data is filed.
    pub fn survey_ref(&self) -> SurveyRef {
        SurveyRef {
            tenant: self.tenant.clone(),
            slug: self.survey.clone(),
            id: self.survey_id.clone(),
        }
    }
}

/// The raw values a form posted, by question id (several for a multiple choice).
#[derive(Clone, Debug, Default)]
pub struct RawAnswers(HashMap<String, Vec<String>>, HiddenValues);

impl RawAnswers {
    /// The hidden fields' values the respondent's address gave, which conditions may test.
    pub fn hidden(&self) -> &HiddenValues {
        &self.1
    }

    /// Sets the hidden fields' values (read and checked from the address or the form).
    pub fn set_hidden(&mut self, hidden: HiddenValues) {
        self.1 = hidden;
    }

    /// Records one posted value for a question.
    pub fn push(&mut self, question: &str, value: String) {
        self.0.entry(question.to_owned()).or_default().push(value);
    }

    /// Takes out every value posted under a field name (`q-` taken off).
    pub fn take(&mut self, name: &str) -> Vec<String> {
        self.0.remove(name).unwrap_or_default()
    }

    /// How many names it has values for.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether it has no values.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Every question id posted, with its values as posted.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &[String])> {
        self.0
            .iter()
            .map(|(id, values)| (id.as_str(), values.as_slice()))
    }

    /// The values posted for a question as posted, blanks and all (a ranking's places are
    /// its values in order, and an empty place is still a place).
    pub fn raw_values(&self, question: &QuestionId) -> &[String] {
        self.0.get(question.as_str()).map_or(&[], Vec::as_slice)
    }

    /// The first non-blank value posted under a field name (`q-` taken off), if any.
    pub fn first(&self, name: &str) -> Option<&str> {
        self.0
            .get(name)?
            .iter()
            .map(|value| value.trim())
            .find(|value| !value.is_empty())
    }

    /// The values posted for a question, blank ones left out.
    pub fn values(&self, question: &QuestionId) -> Vec<&str> {
        self.0
            .get(question.as_str())
            .map(|values| {
                values
                    .iter()
                    .map(|value| value.trim())
                    .filter(|value| !value.is_empty())
                    .collect()
            })
            .unwrap_or_default()
    }
}

impl<'a> FromIterator<(&'a str, &'a str)> for RawAnswers {
    fn from_iter<I: IntoIterator<Item = (&'a str, &'a str)>>(pairs: I) -> Self {
        let mut raw = RawAnswers::default();
        for (question, value) in pairs {
            raw.push(question, value.to_owned());
        }
        raw
    }
}

fn single<'a>(posted: &[&'a str]) -> Result<&'a str, AnswerProblem> {
    match posted {
        [one] => Ok(one),
        _ => Err(AnswerProblem::OneOnly),
    }
}

/// Whether a text holds control characters other than tab, line feed and carriage return
/// (invisible, never typed on purpose, and NUL cannot be stored in PostgreSQL at all), or the
/// bidirectional embeddings, overrides and isolates (U+202A to U+202E, U+2066 to U+2069),
/// which can make a text shown to others read differently from what it holds. The plain
/// direction marks (U+200E, U+200F) stay: right-to-left writing uses them.
pub fn has_control_characters(text: &str) -> bool {
    text.chars().any(|c| {
        (c.is_control() && !matches!(c, '\t' | '\n' | '\r'))
            || matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
    })
}

fn text(posted: &[&str], limit: usize) -> Result<AnswerValue, AnswerProblem> {
    let text = single(posted)?;
    if has_control_characters(text) {
        return Err(AnswerProblem::ControlCharacters);
    }
    let length = text.chars().count();
    if length > limit {
        return Err(AnswerProblem::TooLong { limit, length });
    }
    Ok(AnswerValue::Text(text.to_owned()))
}

/// A date written `YYYY-MM-DD` (as date inputs send it), between the years 1 and 9999.
pub fn date(text: &str) -> Option<time::Date> {
    let format = time::macros::format_description!("[year]-[month]-[day]");
    time::Date::parse(text.trim(), &format)
        .ok()
        .filter(|d| (1..=9999).contains(&d.year()))
}

/// The answer a form gives to one shown question: `None` when it is not answered (an error
/// if it is required). Each kind reads its own fields: `q-ID`, a matrix's `q-ID.N`, and the
/// text beside "Other" in `q-ID.other`.
pub(super) fn answer_to(
    question: &super::Question,
    raw: &RawAnswers,
) -> Result<Option<AnswerValue>, AnswerProblem> {
    if let QuestionKind::Matrix { rows, columns } = &question.kind {
        return matrix_answer(raw, &question.id, rows, columns, question.required);
    }
    let mut posted = raw.values(&question.id);
    let other = question
        .kind
        .has_other()
        .then(|| raw.first(&format!("{}.other", question.id)))
        .flatten();
    // Text beside "Other" picks it, unless a single choice picked a listed option.
    let single = matches!(question.kind, QuestionKind::SingleChoice { .. });
    if other.is_some() && !posted.contains(&OTHER) && (posted.is_empty() || !single) {
        posted.push(OTHER);
    }
    if posted.is_empty() {
        return if question.required {
            Err(AnswerProblem::Required)
        } else {
            Ok(None)
        };
    }
    if posted.contains(&OTHER) && question.kind.has_other() {
        other_answer(&question.kind, &posted, other).map(Some)
    } else {
        parse(&question.kind, &posted).map(Some)
    }
}

/// A matrix's rows as posted (`q-ID.N` for row N): each a listed column; all rows when the
/// question is required; `None` when no row is answered and none is needed.
fn matrix_answer(
    raw: &RawAnswers,
    id: &QuestionId,
    rows: &[String],
    columns: &[String],
    required: bool,
) -> Result<Option<AnswerValue>, AnswerProblem> {
    let mut picked = BTreeMap::new();
    for (index, row) in rows.iter().enumerate() {
        let Some(column) = raw.first(&format!("{id}.{index}")) else {
            continue;
        };
        let Some(column) = columns.iter().find(|c| c.as_str() == column) else {
            return Err(AnswerProblem::UnknownColumn { row: row.clone() });
        };
        picked.insert(row.clone(), column.clone());
    }
    if required && picked.len() < rows.len() {
        return Err(if picked.is_empty() {
            AnswerProblem::Required
        } else {
            AnswerProblem::EveryRow
        });
    }
    Ok((!picked.is_empty()).then_some(AnswerValue::Matrix(picked)))
}

/// "Other" picked on a choice question that offers it: the text is needed, and on a multiple
/// choice the listed options ticked with it are kept.
fn other_answer(
    kind: &QuestionKind,
    posted: &[&str],
    text: Option<&str>,
) -> Result<AnswerValue, AnswerProblem> {
    let Some(text) = text else {
        return Err(AnswerProblem::OtherBlank);
    };
    if has_control_characters(text) || text.chars().count() > MAX_SHORT_TEXT {
        return Err(AnswerProblem::OtherTooLong {
            limit: MAX_SHORT_TEXT,
        });
    }
    let picked = match kind {
        QuestionKind::MultipleChoice { .. } => {
            let listed: Vec<&str> = posted.iter().copied().filter(|p| *p != OTHER).collect();
            match parse(kind, &listed)? {
                AnswerValue::Choices(ticked) => ticked,
                _ => Vec::new(),
            }
        }
        _ if posted.len() > 1 => return Err(AnswerProblem::OneOnly),
        _ => Vec::new(),
    };
    Ok(AnswerValue::Other {
        picked,
        text: text.to_owned(),
    })
}

fn parse(kind: &QuestionKind, posted: &[&str]) -> Result<AnswerValue, AnswerProblem> {
    match kind {
        QuestionKind::File { accept, max_bytes } => {
            let file = FileAnswer::from_field(single(posted)?).ok_or(AnswerProblem::FileUnknown)?;
            if !accept.contains(&file.kind) {
                return Err(AnswerProblem::FileKind {
                    allowed: accept.clone(),
                });
            }
            if file.bytes > *max_bytes {
                return Err(AnswerProblem::FileTooLarge { limit: *max_bytes });
            }
            Ok(AnswerValue::File(file))
        }
        QuestionKind::ShortText => text(posted, MAX_SHORT_TEXT),
        QuestionKind::LongText => text(posted, MAX_LONG_TEXT),
        QuestionKind::SingleChoice { options, .. } | QuestionKind::Dropdown { options } => {
            let picked = single(posted)?;
            options
                .iter()
                .find(|option| option.as_str() == picked)
                .map(|option| AnswerValue::Choice(option.clone()))
                .ok_or(AnswerProblem::UnknownOption)
        }
        QuestionKind::MultipleChoice { options, .. } => {
            if let Some(unknown) = posted.iter().find(|p| !options.iter().any(|o| o == *p)) {
                return Err(AnswerProblem::NotAnOption {
                    value: (*unknown).to_owned(),
                });
            }
            let ticked = options
                .iter()
                .filter(|option| posted.contains(&option.as_str()))
                .cloned()
                .collect();
            Ok(AnswerValue::Choices(ticked))
        }
        QuestionKind::FiveStars => match single(posted)?.parse::<u8>() {
            Ok(stars @ 1..=5) => Ok(AnswerValue::Stars(stars)),
            _ => Err(AnswerProblem::Stars),
        },
        // Read by `matrix_answer` (its fields are per row); never reached.
        QuestionKind::Matrix { .. } => Err(AnswerProblem::EveryRow),
        QuestionKind::Ranking { options } => {
            // One select per place, in order: each option once, every place filled.
            let mut seen = std::collections::HashSet::new();
            let complete = posted.len() == options.len()
                && posted
                    .iter()
                    .all(|p| options.iter().any(|o| o == p) && seen.insert(*p));
            if complete {
                Ok(AnswerValue::Ranking(
                    posted.iter().map(|p| (*p).to_owned()).collect(),
                ))
            } else {
                Err(AnswerProblem::Ranking {
                    count: options.len(),
                })
            }
        }
        QuestionKind::Nps | QuestionKind::Scale { .. } => {
            let points = kind.points().unwrap_or(0..=0);
            match single(posted)?.parse::<u8>() {
                Ok(point) if points.contains(&point) => Ok(AnswerValue::Point(point)),
                _ => Err(AnswerProblem::Point {
                    from: *points.start(),
                    to: *points.end(),
                }),
            }
        }
        QuestionKind::Date { earliest, latest } => {
            let text = single(posted)?;
            let Some(date) = date(text) else {
                return Err(AnswerProblem::Date);
            };
            // Dates of one form (YYYY-MM-DD) compare in order as text.
            let date = date.to_string();
            match (earliest, latest) {
                (Some(first), _) if date < *first => Err(AnswerProblem::DateTooEarly {
                    earliest: first.clone(),
                }),
                (_, Some(last)) if date > *last => Err(AnswerProblem::DateTooLate {
                    latest: last.clone(),
                }),
                _ => Ok(AnswerValue::Date(date)),
            }
        }
        QuestionKind::Numeric { min, max, integer } => {
            let number = single(posted)?
                .parse::<f64>()
                .ok()
                .filter(|n| n.is_finite())
                .ok_or(AnswerProblem::Number)?;
            if number.abs() > MAX_NUMBER {
                return Err(AnswerProblem::NumberHuge);
            }
            if *integer && number.fract() != 0.0 {
                return Err(AnswerProblem::WholeNumber);
            }
            match (min, max) {
                (Some(min), Some(max)) if number < *min || number > *max => {
                    Err(AnswerProblem::NumberBetween {
                        min: *min,
                        max: *max,
                    })
                }
                (Some(min), _) if number < *min => Err(AnswerProblem::NumberAtLeast { min: *min }),
                (_, Some(max)) if number > *max => Err(AnswerProblem::NumberAtMost { max: *max }),
                _ => Ok(AnswerValue::Number(number)),
            }
        }
    }
}

#[cfg(test)]
impl Answer {
    /// Answer `reference` to survey `s` of tenant `acme`, given at the epoch, with no values:
    /// what tests of answers start from before setting what they look at.
    pub(crate) fn sample(reference: u64) -> Self {
        Answer::new(
            TenantSlug::parse("acme").expect("a slug"),
            SurveySlug::parse("s").expect("a slug"),
            Reference(reference),
            time::OffsetDateTime::UNIX_EPOCH,
            BTreeMap::new(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::Survey;

    #[test]
    fn a_file_answer_is_its_reference_within_its_questions_kinds_and_size() {
        use crate::domain::upload::{FileAnswer, FileKind};
        let kind = QuestionKind::File {
            accept: vec![FileKind::Image],
            max_bytes: 1000,
        };
        let file = |kind: FileKind, bytes: u64| FileAnswer {
            id: "0123456789abcdef".into(),
            name: "photo.png".into(),
            kind,
            mime: "image/png".into(),
            bytes,
        };
        let posted = |file: &FileAnswer| parse(&kind, &[file.to_field().as_str()]);
        let largest = file(FileKind::Image, 1000);
        assert_eq!(posted(&largest), Ok(AnswerValue::File(largest.clone())));
        let empty = file(FileKind::Image, 0);
        assert_eq!(posted(&empty), Ok(AnswerValue::File(empty.clone())));
        assert_eq!(
            posted(&file(FileKind::Image, 1001)),
            Err(AnswerProblem::FileTooLarge { limit: 1000 })
        );
        assert_eq!(
            posted(&file(FileKind::Pdf, 10)),
            Err(AnswerProblem::FileKind {
                allowed: vec![FileKind::Image]
            })
        );
        assert_eq!(
            parse(&kind, &["not a reference"]),
            Err(AnswerProblem::FileUnknown)
        );
        assert_eq!(
            parse(
                &kind,
                &[largest.to_field().as_str(), largest.to_field().as_str()]
            ),
            Err(AnswerProblem::OneOnly)
        );
    }

    #[test]
    fn an_answer_is_one_line_of_text_with_one_separator_rule() {
        let shown = |value: AnswerValue| value.to_text(|n| format!("{n}"));
        assert_eq!(
            shown(AnswerValue::Choices(vec!["Tea, hot".into(), "Cake".into()])),
            "Tea, hot; Cake"
        );
        assert_eq!(
            shown(AnswerValue::Ranking(vec!["A".into(), "B".into()])),
            "A > B"
        );
        let matrix = [("Food", "Good"), ("Service", "Poor")]
            .map(|(r, c)| (r.to_owned(), c.to_owned()))
            .into_iter()
            .collect();
        assert_eq!(
            shown(AnswerValue::Matrix(matrix)),
            "Food: Good; Service: Poor"
        );
        assert_eq!(
            shown(AnswerValue::Other {
                picked: vec!["Tea".into()],
                text: "Mate".into()
            }),
            "Tea; Other: Mate"
        );
        assert_eq!(
            shown(AnswerValue::Other {
                picked: Vec::new(),
                text: String::new()
            }),
            "Other"
        );
        assert_eq!(shown(AnswerValue::Number(2.5)), "2.5");
        assert_eq!(shown(AnswerValue::Stars(4)), "4");
        assert_eq!(shown(AnswerValue::Date("2026-11-25".into())), "2026-11-25");
    }
    use crate::domain::Question;
    use crate::domain::definition::Definition;

    #[test]
    fn a_search_finds_written_texts_in_any_case_and_nothing_else() {
        let id = |text: &str| QuestionId::parse(text).expect("an id");
        let answer = Answer::new(
            TenantSlug::parse("acme").expect("a slug"),
            SurveySlug::parse("visit").expect("a slug"),
            Reference(1),
            time::OffsetDateTime::UNIX_EPOCH,
            [
                (id("say"), AnswerValue::Text("Lovely Coffee".into())),
                (id("drink"), AnswerValue::Choice("Tea".into())),
                (
                    id("extras"),
                    AnswerValue::Other {
                        picked: vec!["Milk".into()],
                        text: "oat milk please".into(),
                    },
                ),
            ]
            .into(),
        );
        assert!(answer.mentions("lovely coffee"));
        assert!(
            answer.mentions("oat"),
            "what Other means is written text too"
        );
        assert!(
            !answer.mentions("tea"),
            "a picked option is not written text"
        );
        assert!(!answer.mentions("milk please!"));
    }

    #[test]
    fn bidirectional_overrides_count_as_invisible_controls_but_direction_marks_do_not() {
        for hostile in ["Pay\u{202E}gpj.exe", "a\u{2066}b", "\u{202A}x", "nul\0"] {
            assert!(has_control_characters(hostile), "{hostile:?}");
        }
        for fine in ["مرحبا\u{200F} ok", "tab\tand\nlines", "Café ☕"] {
            assert!(!has_control_characters(fine), "{fine:?}");
        }
    }

    fn question(id: &str, required: bool, kind: QuestionKind) -> Question {
        let text = format!("Question {id}");
        Question {
            required,
            ..Question::new(QuestionId::parse(id).expect("an id"), text, kind)
        }
    }

    fn survey() -> Survey {
        let options = vec!["Red".to_string(), "Green".into(), "Blue".into()];
        Survey::draft(
            TenantSlug::parse("acme").expect("a slug"),
            SurveySlug::parse("colours").expect("a slug"),
            crate::domain::definition::checked::for_one_region(Definition {
                title: "Colours".into(),
                description: None,
                questions: vec![
                    question("short", true, QuestionKind::ShortText),
                    question("long", false, QuestionKind::LongText),
                    question(
                        "one",
                        false,
                        QuestionKind::SingleChoice {
                            options: options.clone(),
                            other: false,
                        },
                    ),
                    question(
                        "many",
                        false,
                        QuestionKind::MultipleChoice {
                            options,
                            other: false,
                        },
                    ),
                    question("stars", false, QuestionKind::FiveStars),
                    question(
                        "age",
                        false,
                        QuestionKind::Numeric {
                            min: Some(0.0),
                            max: Some(130.0),
                            integer: true,
                        },
                    ),
                    question(
                        "ratio",
                        false,
                        QuestionKind::Numeric {
                            min: None,
                            max: Some(1.0),
                            integer: false,
                        },
                    ),
                ],
                ..Definition::default()
            })
            .expect("checked"),
            OffsetDateTime::UNIX_EPOCH,
        )
        .published()
    }

    fn raw(pairs: &[(&str, &str)]) -> RawAnswers {
        pairs.iter().copied().collect()
    }

    #[test]
    fn an_address_fills_in_only_valid_answers_to_known_questions() {
        let survey = survey();
        let given = [
            ("one", "Green"),
            ("many", "Red"),
            ("many", "Blue"),
            ("age", "200"),
            ("stars", "x"),
            ("nope", "1"),
            ("Bad Id", "1"),
            ("ratio", "0.5"),
        ];
        let kept = survey.prefill(given.into_iter());
        let mut filled: Vec<(&str, Vec<String>)> = kept
            .iter()
            .map(|(id, values)| (id, values.to_vec()))
            .collect();
        filled.sort();
        assert_eq!(
            filled,
            [
                ("many", vec!["Red".to_owned(), "Blue".to_owned()]),
                ("one", vec!["Green".to_owned()]),
                ("ratio", vec!["0.5".to_owned()]),
            ]
        );
        assert!(survey.prefill(std::iter::empty()).iter().next().is_none());
        assert!(
            kept.hidden().is_empty(),
            "an address's answers carry no hidden values"
        );
    }

    fn id(text: &str) -> QuestionId {
        QuestionId::parse(text).expect("an id")
    }

    #[test]
    fn a_complete_valid_form_gives_typed_answers() {
        let values = survey()
            .validate(&raw(&[
                ("short", "  Ada  "),
                ("long", "Line one\nLine two"),
                ("one", "Green"),
                ("many", "Blue"),
                ("many", "Red"),
                ("stars", "4"),
                ("age", "36"),
                ("ratio", "0.25"),
            ]))
            .expect("valid");

        assert_eq!(values[&id("short")], AnswerValue::Text("Ada".into()));
        assert_eq!(values[&id("one")], AnswerValue::Choice("Green".into()));
        assert_eq!(
            values[&id("many")],
            AnswerValue::Choices(vec!["Red".into(), "Blue".into()]),
            "ticked options keep the survey's order"
        );
        assert_eq!(values[&id("stars")], AnswerValue::Stars(4));
        assert_eq!(values[&id("age")], AnswerValue::Number(36.0));
        assert_eq!(values[&id("ratio")], AnswerValue::Number(0.25));
    }

    #[test]
    fn unanswered_optional_questions_are_left_out() {
        let values = survey()
            .validate(&raw(&[("short", "x"), ("long", "   ")]))
            .expect("valid");
        assert_eq!(values.len(), 1);
    }

    #[test]
    fn each_wrong_answer_gets_its_own_message() {
        let long = "x".repeat(MAX_SHORT_TEXT + 1);
        for (pairs, question, expected) in [
            (vec![], "short", AnswerProblem::Required),
            (vec![("short", "   ")], "short", AnswerProblem::Required),
            (
                vec![("short", long.as_str())],
                "short",
                AnswerProblem::TooLong {
                    limit: 500,
                    length: 501,
                },
            ),
            (vec![("one", "Purple")], "one", AnswerProblem::UnknownOption),
            (
                vec![("one", "Red"), ("one", "Blue")],
                "one",
                AnswerProblem::OneOnly,
            ),
            (
                vec![("many", "Red"), ("many", "Pink")],
                "many",
                AnswerProblem::NotAnOption {
                    value: "Pink".into(),
                },
            ),
            (vec![("stars", "6")], "stars", AnswerProblem::Stars),
            (vec![("stars", "0")], "stars", AnswerProblem::Stars),
            (vec![("stars", "four")], "stars", AnswerProblem::Stars),
            (vec![("age", "abc")], "age", AnswerProblem::Number),
            (vec![("age", "NaN")], "age", AnswerProblem::Number),
            (vec![("age", "inf")], "age", AnswerProblem::Number),
            (vec![("age", "36.5")], "age", AnswerProblem::WholeNumber),
            (
                vec![("age", "131")],
                "age",
                AnswerProblem::NumberBetween {
                    min: 0.0,
                    max: 130.0,
                },
            ),
            (
                vec![("age", "-1")],
                "age",
                AnswerProblem::NumberBetween {
                    min: 0.0,
                    max: 130.0,
                },
            ),
            (
                vec![("ratio", "2")],
                "ratio",
                AnswerProblem::NumberAtMost { max: 1.0 },
            ),
            (
                vec![("short", "a\u{0}b")],
                "short",
                AnswerProblem::ControlCharacters,
            ),
            (
                vec![("long", "bell\u{7}")],
                "long",
                AnswerProblem::ControlCharacters,
            ),
            (
                vec![("short", "esc\u{1b}[0m")],
                "short",
                AnswerProblem::ControlCharacters,
            ),
            (
                vec![("ratio", "-1e200")],
                "ratio",
                AnswerProblem::NumberHuge,
            ),
            (
                vec![("ratio", "-1000000000000001")],
                "ratio",
                AnswerProblem::NumberHuge,
            ),
        ] {
            let errors = survey().validate(&raw(&pairs)).expect_err("invalid");
            assert_eq!(
                errors.get(&id(question)),
                Some(&expected),
                "case {pairs:?}: {errors:?}"
            );
        }
    }

    #[test]
    fn a_response_whose_texts_add_up_past_the_limit_is_refused_at_its_longest() {
        let mut survey = survey();
        for id in ["l1", "l2", "l3"] {
            survey
                .questions
                .push(question(id, false, QuestionKind::LongText));
        }
        let near = "x".repeat(MAX_LONG_TEXT);
        let fits = raw(&[("short", "x"), ("l1", &near), ("l2", &near[..99_990])]);
        assert!(
            survey.validate(&fits).is_ok(),
            "200,000 characters in all fit"
        );

        let over = raw(&[("short", "x"), ("l1", &near), ("l2", &near), ("l3", "y")]);
        let errors = survey.validate(&over).expect_err("refused");

        assert_eq!(errors.len(), 1, "{errors:?}");
        let (question, problem) = errors.iter().next().expect("one error");
        assert!(["l1", "l2"].contains(&question.as_str()));
        assert_eq!(
            *problem,
            AnswerProblem::ResponseTooLong {
                total: 200_002,
                most: 200_000
            }
        );
    }

    #[test]
    fn tabs_and_line_breaks_are_kept_in_texts() {
        let values = survey()
            .validate(&raw(&[("short", "x"), ("long", "a\tb\r\nc")]))
            .expect("valid");
        assert_eq!(values[&id("long")], AnswerValue::Text("a\tb\r\nc".into()));
    }

    #[test]
    fn numbers_up_to_the_limit_are_accepted() {
        for text in ["-1e15", "-1000000000000000", "0.000001"] {
            let values = survey()
                .validate(&raw(&[("short", "x"), ("ratio", text)]))
                .expect("valid");
            assert!(values.contains_key(&id("ratio")), "case {text}");
        }
    }

    #[test]
    fn a_long_text_of_one_hundred_thousand_characters_is_accepted() {
        let text = "é".repeat(MAX_LONG_TEXT);
        let values = survey()
            .validate(&raw(&[("short", "x"), ("long", &text)]))
            .expect("valid");
        assert_eq!(values[&id("long")], AnswerValue::Text(text));
    }

    #[test]
    fn answers_round_trip_through_json() {
        let answer = Answer {
            survey_id: SurveyId::generate(),
            survey_version: 3,
            skipped: BTreeSet::from([id("many")]),
            ..Answer::new(
                TenantSlug::parse("acme").expect("a slug"),
                SurveySlug::parse("colours").expect("a slug"),
                Reference(1234),
                OffsetDateTime::UNIX_EPOCH,
                BTreeMap::from([
                    (id("one"), AnswerValue::Choice("Red".into())),
                    (id("stars"), AnswerValue::Stars(5)),
                ]),
            )
        };
        let json = serde_json::to_string(&answer).expect("serialises");
        assert!(!json.contains("participant"), "left out when none: {json}");
        let back: Answer = serde_json::from_str(&json).expect("deserialises");
        assert_eq!(back, answer);
        let named = Answer {
            participant: Some(Box::new(crate::domain::participant::Respondent::ann())),
            ..answer
        };
        let json = serde_json::to_string(&named).expect("serialises");
        let back: Answer = serde_json::from_str(&json).expect("deserialises");
        assert_eq!(back, named);
        // With hidden fields' values; and as stored before they existed, when `hidden` held
        // the questions not shown.
        let names = vec!["pid".to_owned()];
        let panel = Answer {
            hidden: HiddenValues::read(&names, [("pid", "P1")]).expect("a value"),
            ..named
        };
        let json = serde_json::to_string(&panel).expect("serialises");
        assert!(json.contains(r#""hidden":{"pid":"P1"}"#), "{json}");
        assert!(json.contains(r#""skipped":["many"]"#), "{json}");
        let back: Answer = serde_json::from_str(&json).expect("deserialises");
        assert_eq!(back, panel);
        let old = json
            .replace(r#""skipped":["many"],"#, "")
            .replace(r#""hidden":{"pid":"P1"}"#, r#""hidden":["many"]"#);
        let back: Answer = serde_json::from_str(&old).expect("an old answer reads");
        assert_eq!(back.skipped, BTreeSet::from([id("many")]));
        assert!(back.hidden.is_empty());
    }

    fn asked(kind: QuestionKind, required: bool) -> Question {
        question("q", required, kind)
    }

    fn strings(items: &[&str]) -> Vec<String> {
        items.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn each_new_type_reads_its_own_fields_and_refuses_what_does_not_fit() {
        let choice = |other| QuestionKind::SingleChoice {
            options: strings(&["A", "B"]),
            other,
        };
        let many = QuestionKind::MultipleChoice {
            options: strings(&["A", "B"]),
            other: true,
        };
        let ranking = QuestionKind::Ranking {
            options: strings(&["A", "B", "C"]),
        };
        let matrix = QuestionKind::Matrix {
            rows: strings(&["R1", "R2"]),
            columns: strings(&["X", "Y"]),
        };
        let scale = QuestionKind::Scale {
            points: 5,
            min_label: None,
            max_label: None,
        };
        let date = QuestionKind::Date {
            earliest: Some("2026-01-01".into()),
            latest: Some("2026-12-31".into()),
        };
        let other = |picked: &[&str], text: &str| AnswerValue::Other {
            picked: strings(picked),
            text: text.into(),
        };
        // The kind, whether required, the fields posted, and the answer (or a refusal).
        type Case<'a> = (
            QuestionKind,
            bool,
            Vec<(&'a str, &'a str)>,
            Result<Option<AnswerValue>, ()>,
        );
        let cases: Vec<Case> = vec![
            // "Other": its text is needed; writing it picks it; a listed pick wins on a single.
            (choice(true), false, vec![("q", "Other")], Err(())),
            (
                choice(true),
                false,
                vec![("q.other", "Bike")],
                Ok(Some(other(&[], "Bike"))),
            ),
            (
                choice(true),
                false,
                vec![("q", "A"), ("q.other", "x")],
                Ok(Some(AnswerValue::Choice("A".into()))),
            ),
            (choice(false), false, vec![("q", "Other")], Err(())),
            (choice(false), false, vec![("q.other", "Bike")], Ok(None)),
            (
                many.clone(),
                false,
                vec![("q", "B"), ("q.other", "Bike")],
                Ok(Some(other(&["B"], "Bike"))),
            ),
            (
                many,
                false,
                vec![("q", "Z"), ("q", "Other"), ("q.other", "x")],
                Err(()),
            ),
            // Rankings: every option once.
            (
                ranking.clone(),
                true,
                vec![("q", "C"), ("q", "A"), ("q", "B")],
                Ok(Some(AnswerValue::Ranking(strings(&["C", "A", "B"])))),
            ),
            (
                ranking.clone(),
                true,
                vec![("q", "C"), ("q", "C"), ("q", "B")],
                Err(()),
            ),
            (
                ranking.clone(),
                true,
                vec![("q", "C"), ("q", ""), ("q", "B")],
                Err(()),
            ),
            (ranking.clone(), true, vec![], Err(())),
            (ranking, false, vec![], Ok(None)),
            // Matrices: a listed column per row; every row when required.
            (
                matrix.clone(),
                true,
                vec![("q.0", "X"), ("q.1", "Y")],
                Ok(Some(AnswerValue::Matrix(BTreeMap::from([
                    ("R1".into(), "X".into()),
                    ("R2".into(), "Y".into()),
                ])))),
            ),
            (matrix.clone(), true, vec![("q.0", "X")], Err(())),
            (
                matrix.clone(),
                false,
                vec![("q.1", "Y")],
                Ok(Some(AnswerValue::Matrix(BTreeMap::from([(
                    "R2".into(),
                    "Y".into(),
                )])))),
            ),
            (matrix.clone(), false, vec![("q.1", "Z")], Err(())),
            (matrix, false, vec![("q.7", "X")], Ok(None)),
            // Points and dates at and past their edges.
            (
                QuestionKind::Nps,
                true,
                vec![("q", "0")],
                Ok(Some(AnswerValue::Point(0))),
            ),
            (
                QuestionKind::Nps,
                true,
                vec![("q", "10")],
                Ok(Some(AnswerValue::Point(10))),
            ),
            (QuestionKind::Nps, true, vec![("q", "11")], Err(())),
            (QuestionKind::Nps, true, vec![("q", "-1")], Err(())),
            (scale.clone(), true, vec![("q", "0")], Err(())),
            (
                scale,
                true,
                vec![("q", "5")],
                Ok(Some(AnswerValue::Point(5))),
            ),
            (
                date.clone(),
                true,
                vec![("q", "2026-01-01")],
                Ok(Some(AnswerValue::Date("2026-01-01".into()))),
            ),
            (date.clone(), true, vec![("q", "2025-12-31")], Err(())),
            (date.clone(), true, vec![("q", "2026-02-30")], Err(())),
            (date, true, vec![("q", "99999-01-01")], Err(())),
        ];
        for (kind, required, posted, expected) in cases {
            let question = asked(kind, required);
            let got = answer_to(&question, &raw(&posted)).map_err(|_| ());
            assert_eq!(got, expected, "{} with {posted:?}", question.kind.name());
        }
    }
}
