//! Questions and their types. Each question has a stable id that never changes when its text
//! is edited, so answers and summaries stay attached to it.

use serde::{Deserialize, Serialize};

use super::logic::Condition;
use super::upload::FileKind;

/// Longest answer to a short-text question, in characters.
pub const MAX_SHORT_TEXT: usize = 500;
/// Longest answer to a long-text question, in characters.
pub const MAX_LONG_TEXT: usize = 100_000;
/// Most characters of text in one response, over all its text answers: a few long answers,
/// not a way to fill the disk (one response is stored, queued and summarised as one unit).
pub const MAX_RESPONSE_TEXT: usize = 200_000;
/// Largest magnitude of a numeric answer or bound: far beyond any count, amount or measure a
/// survey asks for, and small enough that every statistic of any number of such answers is a
/// finite number (squared deviations stay below 1e50).
pub const MAX_NUMBER: f64 = 1e15;

/// A question's stable id: 1-32 lowercase letters and digits. A question repeated by a loop
/// (see `looping`) is answered once per item under its id and the item's key in brackets,
/// `ID[item]`; a survey's own questions never have such an id (the definition's check refuses
/// it).
#[derive(
    Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, utoipa::ToSchema,
)]
#[serde(try_from = "String", into = "String")]
#[schema(pattern = "^[a-z0-9]+(\\[[a-z0-9_]+\\])?$", max_length = 60)]
pub struct QuestionId(String);

/// Longest plain question id.
const MAX_QUESTION_ID: usize = 32;
/// Longest key of a loop's item (the part in brackets of `ID[item]`; see `looping`).
pub const MAX_ITEM_KEY: usize = 24;

/// Whether `text` can be a loop item's key: 1 to `MAX_ITEM_KEY` lowercase letters, digits
/// and underscores.
pub fn is_item_key(text: &str) -> bool {
    (1..=MAX_ITEM_KEY).contains(&text.len())
        && text
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
}

impl QuestionId {
    /// Checks an id: a plain one, or a loop's `ID[item]` (see `is_item_key`).
    pub fn parse(text: &str) -> Option<Self> {
        let plain = |id: &str| {
            (1..=MAX_QUESTION_ID).contains(&id.len())
                && id
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
        };
        let ok = match text.strip_suffix(']').and_then(|t| t.split_once('[')) {
            Some((id, item)) => plain(id) && is_item_key(item),
            None => plain(text),
        };
        ok.then(|| Self(text.to_owned()))
    }

    /// The id.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Of a loop's answer (`ID[item]`): the question repeated and the item's key.
    pub fn looped(&self) -> Option<(QuestionId, &str)> {
        let (id, item) = self.0.strip_suffix(']')?.split_once('[')?;
        Some((QuestionId(id.to_owned()), item))
    }

    /// Whether it names a loop's answer rather than a question.
    pub fn is_looped(&self) -> bool {
        self.0.ends_with(']')
    }

    /// The id of this question's answer for one item of a loop.
    pub fn for_item(&self, item: &str) -> QuestionId {
        QuestionId(format!("{}[{item}]", self.0))
    }

    /// A fresh random id of `len` lowercase hex digits.
    fn random(len: usize) -> Self {
        Self(uuid::Uuid::new_v4().simple().to_string()[..len].to_owned())
    }
}

impl TryFrom<String> for QuestionId {
    type Error = String;

    fn try_from(text: String) -> Result<Self, String> {
        Self::parse(&text).ok_or_else(|| format!("{text:?} is not a question id"))
    }
}

impl From<QuestionId> for String {
    fn from(id: QuestionId) -> String {
        id.0
    }
}

impl std::fmt::Display for QuestionId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl QuestionId {
    /// A fresh random id: `q` and 11 hex digits, so it starts with a letter and an
    /// expression can name it as `q.ID`.
    pub fn generate() -> Self {
        Self(format!("q{}", &Self::random(11).0))
    }
}

/// What kind of answer a question takes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum QuestionKind {
    /// One line of text.
    ShortText,
    /// Free text, up to `MAX_LONG_TEXT` characters.
    LongText,
    /// Exactly one of the options.
    SingleChoice {
        /// The options, in display order.
        options: Vec<String>,
        /// Whether "Other, please specify" is offered after them.
        #[serde(default, skip_serializing_if = "is_false")]
        other: bool,
    },
    /// Any number of the options.
    MultipleChoice {
        /// The options, in display order.
        options: Vec<String>,
        /// Whether "Other, please specify" is offered after them.
        #[serde(default, skip_serializing_if = "is_false")]
        other: bool,
    },
    /// A rating from 1 to 5 stars.
    FiveStars,
    /// One of the options, shown as a drop-down list (for long lists).
    Dropdown {
        /// The options, in display order.
        options: Vec<String>,
    },
    /// How likely the respondent is to recommend something, from 0 to 10 (Net Promoter Score).
    Nps,
    /// A point on a rating scale from 1 to `points` (3 to 10), e.g. a Likert scale.
    Scale {
        /// How many points the scale has.
        points: u8,
        /// What the lowest point means ("Strongly disagree").
        #[serde(default, skip_serializing_if = "Option::is_none")]
        min_label: Option<String>,
        /// What the highest point means ("Strongly agree").
        #[serde(default, skip_serializing_if = "Option::is_none")]
        max_label: Option<String>,
    },
    /// A calendar date, optionally within bounds (`YYYY-MM-DD`).
    Date {
        /// The earliest date accepted.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        earliest: Option<String>,
        /// The latest date accepted.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        latest: Option<String>,
    },
    /// A grid: one column picked for each row (e.g. rows of statements, columns of agreement).
    Matrix {
        /// The rows, in display order.
        rows: Vec<String>,
        /// The columns each row picks from, in display order.
        columns: Vec<String>,
    },
    /// The options put in order of preference, each once.
    Ranking {
        /// The options, in display order.
        options: Vec<String>,
    },
    /// A file the respondent uploads (kept in blob storage; the answer holds its reference).
    File {
        /// The kinds it takes (`image`, `pdf`, `office`), told from the file's content.
        accept: Vec<FileKind>,
        /// The largest file it takes, in bytes (the operator's limit applies too).
        max_bytes: u64,
    },
    /// A number, optionally bounded and whole.
    Numeric {
        /// Smallest accepted value.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        min: Option<f64>,
        /// Largest accepted value.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        max: Option<f64>,
        /// Only whole numbers.
        #[serde(default)]
        integer: bool,
    },
}

/// Most rows of a matrix question.
pub const MAX_ROWS: usize = 20;
/// Most columns of a matrix question.
pub const MAX_COLUMNS: usize = 10;

/// Most options of a ranking question: more is a chore to put in order.
pub const MAX_RANKED: usize = 10;

fn is_false(value: &bool) -> bool {
    !value
}

/// Every type's name, as in the API.
pub const TYPE_NAMES: [&str; 13] = [
    "short_text",
    "long_text",
    "single_choice",
    "multiple_choice",
    "dropdown",
    "ranking",
    "matrix",
    "five_stars",
    "nps",
    "scale",
    "numeric",
    "date",
    "file",
];

/// The schema of a question's `type` as clients send it: one of `TYPE_NAMES`.
pub struct TypeName;

impl utoipa::PartialSchema for TypeName {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        utoipa::openapi::schema::ObjectBuilder::new()
            .schema_type(utoipa::openapi::schema::Type::String)
            .enum_values(Some(TYPE_NAMES))
            .description(Some("The question's type."))
            .into()
    }
}

impl utoipa::ToSchema for TypeName {
    fn name() -> std::borrow::Cow<'static, str> {
        "QuestionType".into()
    }
}

impl QuestionKind {
    /// The type's name, as in the API.
    pub fn name(&self) -> &'static str {
        match self {
            QuestionKind::ShortText => "short_text",
            QuestionKind::LongText => "long_text",
            QuestionKind::SingleChoice { .. } => "single_choice",
            QuestionKind::MultipleChoice { .. } => "multiple_choice",
            QuestionKind::FiveStars => "five_stars",
            QuestionKind::Numeric { .. } => "numeric",
            QuestionKind::Dropdown { .. } => "dropdown",
            QuestionKind::Nps => "nps",
            QuestionKind::Scale { .. } => "scale",
            QuestionKind::Date { .. } => "date",
            QuestionKind::Ranking { .. } => "ranking",
            QuestionKind::Matrix { .. } => "matrix",
            QuestionKind::File { .. } => "file",
        }
    }

    /// Whether a question of this type can take over the answers given to one of type
    /// `was` (so it may keep its id and its statistics): the same type, short and long text
    /// (both answered with a text), or a single choice and a drop-down list when neither
    /// offers "Other" (both answered with one of the options).
    pub fn takes_answers_of(&self, was: &QuestionKind) -> bool {
        carries_over(was.name(), was.has_other(), self.name(), self.has_other())
    }

    /// Whether a choice question offers "Other, please specify".
    pub fn has_other(&self) -> bool {
        matches!(
            self,
            QuestionKind::SingleChoice { other: true, .. }
                | QuestionKind::MultipleChoice { other: true, .. }
        )
    }

    /// The points a respondent may pick on an NPS question or a scale, lowest first.
    pub fn points(&self) -> Option<std::ops::RangeInclusive<u8>> {
        match self {
            QuestionKind::Nps => Some(0..=10),
            QuestionKind::Scale { points, .. } => Some(1..=*points),
            _ => None,
        }
    }

    /// The options of a choice question; empty for the others.
    pub fn options(&self) -> &[String] {
        match self {
            QuestionKind::SingleChoice { options, .. }
            | QuestionKind::MultipleChoice { options, .. }
            | QuestionKind::Dropdown { options }
            | QuestionKind::Ranking { options } => options,
            _ => &[],
        }
    }
}

/// Whether answers to a question of type `from` (offering "Other" or not) read as answers to
/// one of type `to`: see `QuestionKind::takes_answers_of`.
pub fn carries_over(from: &str, from_other: bool, to: &str, to_other: bool) -> bool {
    const FAMILIES: [[&str; 2]; 2] = [["short_text", "long_text"], ["single_choice", "dropdown"]];
    from == to
        || (!from_other
            && !to_other
            && FAMILIES
                .iter()
                .any(|family| family.contains(&from) && family.contains(&to)))
}

/// One question of a survey.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Question {
    /// Its stable id.
    pub id: QuestionId,
    /// What is asked.
    pub text: String,
    /// What helps to answer it, shown under it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub help: Option<String>,
    /// Whether an answer is needed.
    #[serde(default)]
    pub required: bool,
    /// Its type and type-specific settings.
    #[serde(flatten)]
    pub kind: QuestionKind,
    /// Shown only to respondents whose earlier answers meet this (always shown without one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub show_if: Option<Condition>,
    /// Whether its options segment the results (choice-type questions only; see `segment`).
    #[serde(default, skip_serializing_if = "is_false")]
    pub segment: bool,
    /// Whether each respondent sees its options in an order drawn for them (a single choice,
    /// multiple choice or drop-down; see `order`).
    #[serde(default, skip_serializing_if = "is_false")]
    pub randomize_options: bool,
    /// How many of its last options stay last when they are drawn ("None of these").
    #[serde(default, skip_serializing_if = "is_zero")]
    pub fixed_last: usize,
    /// A check on its answer beyond its type's, with the message shown when it fails.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub validate: Option<super::calculation::Validation>,
    /// Its options' points and correct answers (choice questions).
    #[serde(
        flatten,
        default,
        skip_serializing_if = "super::calculation::Scoring::is_empty"
    )]
    pub scoring: super::calculation::Scoring,
}

impl Question {
    /// Question `id` asking `text`, of `kind`, and nothing more: optional, always shown, no
    /// segment, its options in their order, no check beyond its type's, no points. What the
    /// demo, the benchmarks and tests start from before setting what they need.
    pub fn new(id: QuestionId, text: impl Into<String>, kind: QuestionKind) -> Self {
        Self {
            id,
            text: text.into(),
            help: None,
            required: false,
            kind,
            show_if: None,
            segment: false,
            randomize_options: false,
            fixed_last: 0,
            validate: None,
            scoring: Default::default(),
        }
    }
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn type_names_lists_every_type_once() {
        let kinds = [
            QuestionKind::ShortText,
            QuestionKind::LongText,
            QuestionKind::SingleChoice {
                options: vec![],
                other: false,
            },
            QuestionKind::MultipleChoice {
                options: vec![],
                other: false,
            },
            QuestionKind::Dropdown { options: vec![] },
            QuestionKind::Ranking { options: vec![] },
            QuestionKind::Matrix {
                rows: vec![],
                columns: vec![],
            },
            QuestionKind::FiveStars,
            QuestionKind::Nps,
            QuestionKind::Scale {
                points: 5,
                min_label: None,
                max_label: None,
            },
            QuestionKind::Numeric {
                min: None,
                max: None,
                integer: false,
            },
            QuestionKind::Date {
                earliest: None,
                latest: None,
            },
            QuestionKind::File {
                accept: vec![],
                max_bytes: 1,
            },
        ];
        let names: Vec<&str> = kinds.iter().map(QuestionKind::name).collect();
        assert_eq!(names, TYPE_NAMES);
    }

    #[test]
    fn questions_serialise_with_their_type_beside_their_fields() {
        let kind = QuestionKind::SingleChoice {
            options: vec!["A".into(), "B".into()],
            other: false,
        };
        let question = Question {
            required: true,
            ..Question::new(QuestionId::parse("q1").expect("an id"), "Pick one", kind)
        };

        let json = serde_json::to_value(&question).expect("serialises");

        assert_eq!(
            json,
            serde_json::json!({"id": "q1", "text": "Pick one", "required": true,
                               "type": "single_choice", "options": ["A", "B"]})
        );
        let back: Question = serde_json::from_value(json).expect("deserialises");
        assert_eq!(back, question);
    }

    #[test]
    fn a_type_takes_over_only_answers_of_the_same_kind() {
        for (from, from_other, to, to_other, carried) in [
            ("short_text", false, "long_text", false, true),
            ("long_text", false, "short_text", false, true),
            ("single_choice", false, "dropdown", false, true),
            ("dropdown", false, "single_choice", false, true),
            ("single_choice", true, "dropdown", false, false),
            ("dropdown", false, "single_choice", true, false),
            ("single_choice", true, "single_choice", true, true),
            ("short_text", false, "numeric", false, false),
            ("single_choice", false, "multiple_choice", false, false),
            ("five_stars", false, "scale", false, false),
        ] {
            assert_eq!(
                carries_over(from, from_other, to, to_other),
                carried,
                "{from} ({from_other}) to {to} ({to_other})"
            );
        }
    }

    #[test]
    fn generated_ids_are_valid_and_distinct() {
        let a = QuestionId::generate();
        let b = QuestionId::generate();
        assert!(QuestionId::parse(a.as_str()).is_some());
        assert_ne!(a, b);
        // They start with a letter, so expressions name them as `q.ID`.
        assert!(a.as_str().starts_with('q') && a.as_str().len() == 12);
    }
}
