//! Calculations and scoring: a survey's variables, questions' validations, options' scores and
//! correct answers (a quiz), and endings chosen by an expression. All of it is computed on the
//! server from the answers, so a respondent cannot set a variable, a score or an ending.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::expression::Expression;

/// Most variables of one survey.
pub const MAX_VARIABLES: usize = 20;
/// Most endings of one survey.
pub const MAX_ENDINGS: usize = 10;
/// Longest validation message, in characters.
pub const MAX_MESSAGE: usize = 300;

/// A value computed from the answers when a response is sent: `{"id": "total", "expression":
/// "q.a + q.b"}`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Variable {
    /// Its id (`[a-z][a-z0-9_]{0,31}`): `v.ID` in expressions, `{{v:ID}}` in texts.
    pub id: String,
    /// How it is computed (it may read variables listed before it).
    pub expression: Expression,
    /// Whether its values segment the results (a band such as "10 to 19").
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub segment: bool,
}

/// A check on a question's answer beyond its type's: `{"expression": "q.a + q.b == 100",
/// "message": "The shares add up to 100"}`. It is tested when the question is answered; the
/// answer is refused with the message when the expression is not true.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Validation {
    /// What must be true.
    pub expression: Expression,
    /// What the respondent reads when it is not (at most 300 characters).
    pub message: String,
}

/// A question's points and correct answers (choice questions).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Scoring {
    /// Points for each option, in the options' order (as many as there are options).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub scores: Vec<f64>,
    /// The correct options (by their text): answered correctly when exactly these are picked.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub correct: Vec<String>,
}

impl Scoring {
    /// Whether it gives nothing.
    pub fn is_empty(&self) -> bool {
        self.scores.is_empty() && self.correct.is_empty()
    }
}

/// What the thank-you page shows of a quiz.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Quiz {
    /// Show the respondent their score and how many answers were correct.
    #[serde(default)]
    pub show_score: bool,
    /// Show each quiz question with the respondent's answer and the correct one.
    #[serde(default)]
    pub show_answers: bool,
}

impl Quiz {
    /// Whether it shows nothing.
    pub fn is_off(&self) -> bool {
        !self.show_score && !self.show_answers
    }
}

/// A thank-you text (and redirect) chosen by an expression: the first ending whose `if`
/// holds is the respondent's; one without `if` always holds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Ending {
    /// Its id (`[a-z][a-z0-9_]{0,31}`), stored with each response that reached it.
    pub id: String,
    /// When it is the respondent's.
    #[serde(default, rename = "if", skip_serializing_if = "Option::is_none")]
    pub when: Option<Expression>,
    /// What the respondent reads (Markdown; it may recall `{{v:ID}}`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// Where the respondent is sent on instead of `redirects.complete` (https).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub redirect: Option<String>,
}

/// What was computed for one response.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Outcome {
    /// The variables that have a value.
    pub variables: BTreeMap<String, serde_json::Value>,
    /// The sum of the points of the options picked (when any question has scores).
    pub score: Option<f64>,
    /// How many quiz questions were answered correctly (when any has correct answers).
    pub correct: Option<u32>,
    /// The ending reached (when the survey has endings and one held).
    pub ending: Option<String>,
}
