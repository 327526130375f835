//! One question's answer, as stored and exported: the value alone, apart from the response it
//! belongs to (see `answer`), so that what reads values (expressions, conditions) needs
//! nothing else.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::upload::FileAnswer;

/// One question's answer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum AnswerValue {
    /// A short or long text.
    Text(String),
    /// The option picked in a single-choice question.
    Choice(String),
    /// The options ticked in a multiple-choice question, in the survey's option order.
    Choices(Vec<String>),
    /// A rating from 1 to 5.
    Stars(u8),
    /// A number.
    Number(f64),
    /// The point picked on an NPS question (0 to 10) or a scale (1 to its points).
    Point(u8),
    /// A calendar date, `YYYY-MM-DD`.
    Date(String),
    /// The column picked in each row answered of a matrix question.
    Matrix(BTreeMap<String, String>),
    /// The options of a ranking question, most preferred first.
    Ranking(Vec<String>),
    /// A file uploaded: its reference and what it is (its bytes are stored apart).
    File(FileAnswer),
    /// "Other, please specify" on a choice question: the listed options also ticked (none
    /// for a single choice), and what the respondent wrote.
    Other {
        /// Listed options ticked besides "Other", in the survey's order.
        picked: Vec<String>,
        /// What "Other" means.
        text: String,
    },
}

/// Between the parts of one answer written as text (ticked options, a matrix's rows): a
/// semicolon, since option labels may hold commas.
pub const TEXT_SEPARATOR: &str = "; ";

impl AnswerValue {
    /// The answer as one line of text, as every list and download writes it: options joined by
    /// `TEXT_SEPARATOR`, a ranking's options by " > ", a matrix's rows as "row: column", and
    /// "Other" with what the respondent wrote. Numbers are written as `number` says.
    pub fn to_text(&self, number: impl Fn(f64) -> String) -> String {
        match self {
            AnswerValue::Text(text) | AnswerValue::Choice(text) | AnswerValue::Date(text) => {
                text.clone()
            }
            AnswerValue::Choices(options) => options.join(TEXT_SEPARATOR),
            AnswerValue::Stars(n) | AnswerValue::Point(n) => n.to_string(),
            AnswerValue::Number(n) => number(*n),
            AnswerValue::Ranking(order) => order.join(" > "),
            AnswerValue::File(file) => file.name.clone(),
            AnswerValue::Matrix(picked) => picked
                .iter()
                .map(|(row, column)| format!("{row}: {column}"))
                .collect::<Vec<_>>()
                .join(TEXT_SEPARATOR),
            AnswerValue::Other { picked, text } => {
                let other = match text.is_empty() {
                    true => super::choice::OTHER.to_owned(),
                    false => format!("{}: {text}", super::choice::OTHER),
                };
                let mut parts = picked.clone();
                parts.push(other);
                parts.join(TEXT_SEPARATOR)
            }
        }
    }
}
