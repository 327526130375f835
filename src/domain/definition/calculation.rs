//! Checking a definition's calculations: variables, questions' validations, options' scores
//! and correct answers, the quiz settings and the endings. Every expression must parse within
//! its bounds and read only what the survey has: questions (those before it, for a
//! validation), declared hidden fields, declared variables, and scores of scored questions.

use serde::Deserialize;

use super::{CONTROL, DefinitionErrors, Placed, SurveyInput};
use crate::domain::answer::has_control_characters;
use crate::domain::calculation::{
    Ending, MAX_ENDINGS, MAX_MESSAGE, MAX_VARIABLES, Scoring, Validation, Variable,
};
use crate::domain::expression::Expression;
use crate::domain::redirect;
use crate::domain::{Question, QuestionId, QuestionKind};

/// A variable as submitted.
#[derive(Clone, Debug, Default, Deserialize, utoipa::ToSchema)]
pub struct VariableInput {
    /// Its id: a lowercase letter, then at most 31 lowercase letters, digits or `_`.
    pub id: String,
    /// How it is computed (CEL; see docs/tenants.md).
    pub expression: String,
    /// Whether its values segment the results (at most 2 variables per survey; each
    /// divides answers into at most 50 values, the first seen).
    #[serde(default)]
    pub segment: bool,
}

/// A question's validation as submitted.
#[derive(Clone, Debug, Default, Deserialize, utoipa::ToSchema)]
pub struct ValidationInput {
    /// What must be true of the answers so far (CEL).
    pub expression: String,
    /// What the respondent reads when it is not (1 to 300 characters).
    pub message: String,
}

/// An ending as submitted.
#[derive(Clone, Debug, Default, Deserialize, utoipa::ToSchema)]
pub struct EndingInput {
    /// Its id: a lowercase letter, then at most 31 lowercase letters, digits or `_`.
    pub id: String,
    /// When it is the respondent's (CEL); absent: always (a last, default ending).
    #[serde(default, rename = "if")]
    pub when: Option<String>,
    /// What the respondent reads instead of the thank-you message (Markdown).
    #[serde(default)]
    pub text: Option<String>,
    /// Where the respondent is sent on instead of `redirects.complete` (https).
    #[serde(default)]
    pub redirect: Option<String>,
}

/// What a survey may read in one expression.
struct Known<'a> {
    /// The questions it may read.
    questions: &'a [Question],
    hidden: &'a [String],
    variables: &'a [String],
}

impl Known<'_> {
    /// The expression `source`, checked: it parses, and reads only what exists.
    fn expression(&self, source: &str) -> Result<Expression, String> {
        let expression = Expression::parse(source).map_err(|problem| problem.to_string())?;
        let names = expression.names();
        for id in &names.questions {
            if !self.questions.iter().any(|q| q.id.as_str() == id) {
                return Err(format!(
                    "it reads q.{id}, which is not a question it may read (a validation reads \
                     its own question and those before it)"
                ));
            }
        }
        for id in &names.scores {
            let scored = self
                .questions
                .iter()
                .any(|q| q.id.as_str() == id && !q.scoring.scores.is_empty());
            if !scored {
                return Err(format!(
                    "it reads s.{id}, which is not a question with scores"
                ));
            }
        }
        if let Some(name) = names.hidden.iter().find(|n| !self.hidden.contains(n)) {
            return Err(format!(
                "it reads h.{name}, which is not one of the survey's hidden_fields"
            ));
        }
        if let Some(id) = names.variables.iter().find(|v| !self.variables.contains(v)) {
            return Err(format!(
                "it reads v.{id}, which is not one of the survey's variables (a variable reads \
                 only those listed before it)"
            ));
        }
        Ok(expression)
    }
}

/// Most hidden fields, and most variables, whose values segment a survey's results.
const MAX_SEGMENT_VALUES_BY: usize = 2;

/// Whether `id` is a variable's or an ending's id.
fn valid_id(id: &str) -> bool {
    crate::domain::hidden::valid_name(id)
}

/// The survey's calculations, checked.
pub(super) struct Calculations {
    pub segment_hidden: Vec<String>,
    pub variables: Vec<crate::domain::calculation::Variable>,
    pub endings: Vec<Ending>,
}

/// Checks the questions' scores and correct answers (`questions` aligned with `placed`).
pub(super) fn check_scoring(
    placed: &[Placed<'_>],
    questions: &mut [Question],
    errors: &mut DefinitionErrors,
) {
    for (item, question) in placed.iter().zip(questions.iter_mut()) {
        let (scores, correct) = (&item.input.scores, &item.input.correct);
        if scores.is_empty() && correct.is_empty() {
            continue;
        }
        let choice = matches!(
            question.kind,
            QuestionKind::SingleChoice { .. }
                | QuestionKind::MultipleChoice { .. }
                | QuestionKind::Dropdown { .. }
        );
        if !choice {
            errors.insert(
                format!("{}.scores", item.path),
                "only a single choice, multiple choice or drop-down question has scores or \
                 correct answers"
                    .into(),
            );
            continue;
        }
        let options = question.kind.options();
        if !scores.is_empty() && scores.len() != options.len() {
            errors.insert(
                format!("{}.scores", item.path),
                format!(
                    "give one score per option, in the options' order: {} here",
                    options.len()
                ),
            );
            continue;
        }
        if scores.iter().any(|s| !s.is_finite() || s.abs() > 1e6) {
            errors.insert(
                format!("{}.scores", item.path),
                "a score is a number from -1,000,000 to 1,000,000".into(),
            );
            continue;
        }
        if let Some(unknown) = correct.iter().find(|c| !options.contains(c)) {
            errors.insert(
                format!("{}.correct", item.path),
                format!("\"{unknown}\" is not one of its options"),
            );
            continue;
        }
        let single = !matches!(question.kind, QuestionKind::MultipleChoice { .. });
        if single && correct.len() > 1 {
            errors.insert(
                format!("{}.correct", item.path),
                "a question with one answer has one correct option".into(),
            );
            continue;
        }
        question.scoring = Scoring {
            scores: scores.clone(),
            correct: correct.clone(),
        };
    }
}

/// Checks the variables, validations and endings (after the questions and their scores).
pub(super) fn check(
    input: &SurveyInput,
    placed: &[Placed<'_>],
    questions: &mut [Question],
    errors: &mut DefinitionErrors,
) -> Calculations {
    if input.variables.len() > MAX_VARIABLES {
        errors.insert(
            "variables".into(),
            format!("a survey has at most {MAX_VARIABLES} variables"),
        );
    }
    let mut variables: Vec<Variable> = Vec::new();
    let mut declared: Vec<String> = Vec::new();
    for (at, sent) in input.variables.iter().enumerate().take(MAX_VARIABLES) {
        let id = sent.id.trim();
        let field = format!("variables[{at}]");
        if !valid_id(id) {
            errors.insert(
                format!("{field}.id"),
                "a variable's id is a lowercase letter, then at most 31 lowercase letters, \
                 digits or _"
                    .into(),
            );
            continue;
        }
        if declared.iter().any(|d| d == id) {
            errors.insert(
                format!("{field}.id"),
                format!("two variables are called {id}"),
            );
            continue;
        }
        let known = Known {
            questions,
            hidden: &input.hidden_fields,
            variables: &declared,
        };
        match known.expression(&sent.expression) {
            Ok(expression) => variables.push(Variable {
                id: id.to_owned(),
                expression,
                segment: sent.segment,
            }),
            Err(problem) => {
                errors.insert(format!("{field}.expression"), format!("{id}: {problem}"));
            }
        }
        declared.push(id.to_owned());
    }
    if variables.iter().filter(|v| v.segment).count() > MAX_SEGMENT_VALUES_BY {
        errors.insert(
            "variables".into(),
            format!("at most {MAX_SEGMENT_VALUES_BY} variables segment the results"),
        );
    }
    if input.segment_hidden.len() > MAX_SEGMENT_VALUES_BY {
        errors.insert(
            "segment_hidden".into(),
            format!("at most {MAX_SEGMENT_VALUES_BY} hidden fields segment the results"),
        );
    }
    if let Some(name) = input
        .segment_hidden
        .iter()
        .find(|name| !input.hidden_fields.contains(name))
    {
        errors.insert(
            "segment_hidden".into(),
            format!("\"{name}\" is not one of the survey's hidden_fields"),
        );
    }
    for index in 0..questions.len() {
        let Some(sent) = &placed[index].input.validate else {
            continue;
        };
        let field = format!("{}.validate", placed[index].path);
        let message = sent.message.trim();
        if message.is_empty() || message.chars().count() > MAX_MESSAGE {
            errors.insert(
                format!("{field}.message"),
                format!("a validation needs a message of 1 to {MAX_MESSAGE} characters"),
            );
            continue;
        }
        if has_control_characters(message) {
            errors.insert(format!("{field}.message"), CONTROL.into());
            continue;
        }
        let known = Known {
            questions: &questions[..=index],
            hidden: &input.hidden_fields,
            variables: &declared,
        };
        match known.expression(&sent.expression) {
            Ok(expression) => {
                questions[index].validate = Some(Validation {
                    expression,
                    message: message.to_owned(),
                });
            }
            Err(problem) => {
                errors.insert(format!("{field}.expression"), problem);
            }
        }
    }
    let endings = endings(input, questions, &declared, errors);
    Calculations {
        segment_hidden: input.segment_hidden.clone(),
        variables,
        endings,
    }
}

fn endings(
    input: &SurveyInput,
    questions: &[Question],
    declared: &[String],
    errors: &mut DefinitionErrors,
) -> Vec<Ending> {
    if input.endings.len() > MAX_ENDINGS {
        errors.insert(
            "endings".into(),
            format!("a survey has at most {MAX_ENDINGS} endings"),
        );
    }
    let known = Known {
        questions,
        hidden: &input.hidden_fields,
        variables: declared,
    };
    let mut endings: Vec<Ending> = Vec::new();
    for (at, sent) in input.endings.iter().enumerate().take(MAX_ENDINGS) {
        let field = format!("endings[{at}]");
        let id = sent.id.trim();
        if !valid_id(id) || endings.iter().any(|e| e.id == id) {
            errors.insert(
                format!("{field}.id"),
                "an ending's id is its own: a lowercase letter, then at most 31 lowercase \
                 letters, digits or _"
                    .into(),
            );
            continue;
        }
        let when = match sent.when.as_deref().map(str::trim) {
            None | Some("") => None,
            Some(source) => match known.expression(source) {
                Ok(expression) => Some(expression),
                Err(problem) => {
                    errors.insert(format!("{field}.if"), problem);
                    continue;
                }
            },
        };
        let text = sent
            .text
            .as_deref()
            .map(str::trim)
            .filter(|t| !t.is_empty());
        if text.is_some_and(|t| t.chars().count() > super::MAX_MESSAGE as usize) {
            errors.insert(
                format!("{field}.text"),
                "an ending's text is at most 2,000 characters".into(),
            );
            continue;
        }
        if text.is_some_and(crate::domain::recall::mentions_recall) {
            errors.insert(
                format!("{field}.text"),
                "an ending's text recalls nothing: quiz.show_score shows the respondent's \
                 score beside it"
                    .into(),
            );
            continue;
        }
        if text.is_some_and(has_control_characters) {
            errors.insert(format!("{field}.text"), CONTROL.into());
            continue;
        }
        let address = sent
            .redirect
            .as_deref()
            .map(str::trim)
            .filter(|t| !t.is_empty());
        if let Some(address) = address {
            let exists = |id: &QuestionId| questions.iter().any(|q| q.id == *id);
            if let Some(problem) = redirect::problem(address, &input.hidden_fields, exists) {
                errors.insert(format!("{field}.redirect"), problem);
                continue;
            }
        }
        endings.push(Ending {
            id: id.to_owned(),
            when,
            text: text.map(str::to_owned),
            redirect: address.map(str::to_owned),
        });
    }
    endings
}

/// Reads a condition `{"expression": SOURCE}` that may read `questions` (those before it),
/// the hidden fields and the variables.
pub(super) fn condition_expression(
    source: &serde_json::Value,
    questions: &[Question],
    hidden: &[String],
    variables: &[String],
) -> Result<Expression, String> {
    let serde_json::Value::String(source) = source else {
        return Err("an expression condition is {\"expression\": \"...\"}".into());
    };
    let known = Known {
        questions,
        hidden,
        variables,
    };
    known.expression(source)
}
