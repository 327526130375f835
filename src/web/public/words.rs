//! What is wrong with an answer, in the respondent's language: each problem the domain finds
//! is one message of the site's message files, its fields the message's arguments.

use fluent_templates::fluent_bundle::FluentValue;

use crate::domain::AnswerProblem;
use crate::i18n::Words;

/// The problem in words.
pub fn problem(words: &Words, problem: &AnswerProblem) -> String {
    let number = |n: f64| FluentValue::from(n);
    let text = |t: &str| FluentValue::from(t.to_owned());
    match problem {
        AnswerProblem::Required => words.t("problem-required"),
        AnswerProblem::OneOnly => words.t("problem-one-only"),
        AnswerProblem::ControlCharacters => words.t("problem-control-characters"),
        AnswerProblem::TooLong { limit, length } => words.with(
            "problem-too-long",
            &[
                ("limit", number(*limit as f64)),
                ("length", number(*length as f64)),
            ],
        ),
        AnswerProblem::ResponseTooLong { total, most } => words.with(
            "problem-response-too-long",
            &[
                ("total", number(*total as f64)),
                ("most", number(*most as f64)),
            ],
        ),
        AnswerProblem::UnknownColumn { row } => words.s("problem-unknown-column", "row", row),
        AnswerProblem::EveryRow => words.t("problem-every-row"),
        AnswerProblem::OtherBlank => words.t("problem-other-blank"),
        AnswerProblem::OtherTooLong { limit } => words.n("problem-other-too-long", "limit", *limit),
        AnswerProblem::UnknownOption => words.t("problem-unknown-option"),
        AnswerProblem::NotAnOption { value } => words.s("problem-not-an-option", "value", value),
        AnswerProblem::Stars => words.t("problem-stars"),
        AnswerProblem::Ranking { count } => words.n("problem-ranking", "count", *count),
        AnswerProblem::Point { from, to } => words.n2("problem-point", "from", *from, "to", *to),
        AnswerProblem::Date => words.t("problem-date"),
        AnswerProblem::DateTooEarly { earliest } => {
            words.with("problem-date-too-early", &[("date", text(earliest))])
        }
        AnswerProblem::DateTooLate { latest } => {
            words.with("problem-date-too-late", &[("date", text(latest))])
        }
        AnswerProblem::Number => words.t("problem-number"),
        AnswerProblem::NumberHuge => words.t("problem-number-huge"),
        AnswerProblem::WholeNumber => words.t("problem-whole-number"),
        AnswerProblem::NumberBetween { min, max } => {
            words.n2("problem-number-between", "min", *min, "max", *max)
        }
        AnswerProblem::NumberAtLeast { min } => words.n("problem-number-at-least", "min", *min),
        AnswerProblem::NumberAtMost { max } => words.n("problem-number-at-most", "max", *max),
    }
}

/// What a number question accepts, in words (`A whole number from 0 to 120.`); `None` when
/// it accepts any number.
pub fn number_range(
    words: &Words,
    min: Option<f64>,
    max: Option<f64>,
    whole: bool,
) -> Option<String> {
    let whole = FluentValue::from(if whole { "yes" } else { "no" });
    let n = |v: f64| FluentValue::from(v);
    match (min, max) {
        (Some(min), Some(max)) => Some(words.with(
            "form-number-between",
            &[("whole", whole), ("min", n(min)), ("max", n(max))],
        )),
        (Some(min), None) => {
            Some(words.with("form-number-at-least", &[("whole", whole), ("min", n(min))]))
        }
        (None, Some(max)) => {
            Some(words.with("form-number-at-most", &[("whole", whole), ("max", n(max))]))
        }
        (None, None) if matches!(whole, FluentValue::String(ref s) if s == "yes") => {
            Some(words.t("form-whole-number"))
        }
        (None, None) => None,
    }
}
