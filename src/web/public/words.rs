//! What is wrong with an answer, in the respondent's language: each problem the domain finds
//! is one message of the site's message files, its fields the message's arguments.

use fluent_templates::fluent_bundle::FluentValue;

use crate::domain::logic::{Condition, Test};
use crate::domain::upload::FileKind;
use crate::domain::{AnswerProblem, AnswerValue, QuestionId, QuestionKind, Survey, recall};
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
        AnswerProblem::FileKind { allowed } => {
            words.s("problem-file-kind", "kinds", &file_kinds(words, allowed))
        }
        AnswerProblem::FileTooLarge { limit } => {
            words.s("problem-file-too-large", "limit", &megabytes(words, *limit))
        }
        AnswerProblem::FileUnknown => words.t("problem-file-unknown"),
        AnswerProblem::Refused { message } => message.clone(),
    }
}

/// The kinds of file a question takes, in words ("an image, a PDF").
pub fn file_kinds(words: &Words, kinds: &[FileKind]) -> String {
    kinds
        .iter()
        .map(|kind| match kind {
            FileKind::Image => words.t("file-kind-image"),
            FileKind::Pdf => words.t("file-kind-pdf"),
            FileKind::Office => words.t("file-kind-office"),
        })
        .collect::<Vec<_>>()
        .join(&words.t("recall-separator"))
}

/// A size in mebibytes, to a tenth, as the page's language writes numbers.
pub fn megabytes(words: &Words, bytes: u64) -> String {
    let tenths = (bytes as f64 / (1024.0 * 1024.0) * 10.0).ceil();
    words.number(tenths / 10.0)
}

/// What a number question accepts, in words (`A whole number from 0 to 120.`); `None` when
/// it accepts any number.
pub fn number_range(
    words: &Words,
    min: Option<f64>,
    max: Option<f64>,
    whole: bool,
) -> Option<String> {
    let whole = Some(("whole", if whole { "yes" } else { "no" }));
    match (min, max) {
        (Some(min), Some(max)) => Some(words.numbers(
            "form-number-between",
            [Some(("min", min)), Some(("max", max))],
            whole,
        )),
        (Some(min), None) => {
            Some(words.numbers("form-number-at-least", [Some(("min", min)), None], whole))
        }
        (None, Some(max)) => {
            Some(words.numbers("form-number-at-most", [Some(("max", max)), None], whole))
        }
        (None, None) if whole == Some(("whole", "yes")) => Some(words.t("form-whole-number")),
        (None, None) => None,
    }
}

/// When to answer a question under a condition on its own page, in words
/// (`Answer this if your answer to "Drink?" is "Tea".`). `name` words a question tested,
/// `value` a value tested (an option's label in the page's language).
pub fn condition_hint(
    words: &Words,
    condition: &Condition,
    name: &dyn Fn(&QuestionId) -> String,
    value: &dyn Fn(&QuestionId, &str) -> String,
) -> String {
    words.s(
        "form-condition",
        "condition",
        &described(words, condition, name, value),
    )
}

fn described(
    words: &Words,
    condition: &Condition,
    name: &dyn Fn(&QuestionId) -> String,
    value: &dyn Fn(&QuestionId, &str) -> String,
) -> String {
    let group = |list: &[Condition], joint: &'static str| {
        let parts: Vec<String> = list
            .iter()
            .map(|c| described(words, c, name, value))
            .collect();
        match parts.as_slice() {
            [one] => one.clone(),
            _ => format!("({})", parts.join(&format!(" {} ", words.t(joint)))),
        }
    };
    // A hidden field is named as it is, and its values are not options.
    let (question, test, tested_of) = match condition {
        Condition::All { all } => return group(all, "condition-and"),
        Condition::Any { any } => return group(any, "condition-or"),
        Condition::Rule(rule) => (name(&rule.question), &rule.test, Some(&rule.question)),
        Condition::Hidden(rule) => (rule.hidden.clone(), &rule.test, None),
        // An owner's expression is shown as written: it is already the rule's words.
        Condition::Expression(rule) => return rule.expression.to_string(),
    };
    let question = FluentValue::from(question);
    let said = |id: &str, tested: String| {
        words.with(
            id,
            &[
                ("question", question.clone()),
                ("value", FluentValue::from(tested)),
            ],
        )
    };
    let label = |tested: &str| match tested_of {
        Some(id) => value(id, tested),
        None => tested.to_owned(),
    };
    match test {
        Test::Equals(tested) => said("condition-is", label(tested)),
        Test::NotEquals(tested) => said("condition-is-not", label(tested)),
        Test::AnyOf(tested) => {
            let labels: Vec<String> = tested.iter().map(|t| label(t)).collect();
            said("condition-one-of", labels.join("\", \""))
        }
        Test::GreaterThan(bound) => said("condition-above", bound.to_string()),
        Test::LessThan(bound) => said("condition-below", bound.to_string()),
        Test::Answered(true) => said("condition-answered", String::new()),
        Test::Answered(false) => said("condition-not-answered", String::new()),
        Test::Contains(part) => said("condition-contains", part.clone()),
    }
}

/// A date as the page's language writes one (`14 July 2026`, `14. Juli 2026`).
pub fn date(words: &Words, date: time::Date) -> String {
    words.with(
        "recall-date",
        &[
            ("day", FluentValue::from(f64::from(date.day()))),
            (
                "month",
                FluentValue::from(f64::from(u8::from(date.month()))),
            ),
            // A year is not a quantity: never grouped (`2026`, not `2,026`).
            ("year", FluentValue::from(date.year().to_string())),
        ],
    )
}

/// An earlier answer as a question recalling it shows it, in the respondent's language: an
/// option by its label there, numbers and dates as the language writes them, several parts
/// joined by the language's separator.
pub fn recalled(words: &Words, survey: &Survey, id: &QuestionId, value: &AnswerValue) -> String {
    let kind = survey.question(id).map(|q| &q.kind);
    // A label in the page's language; a label that itself recalls shows its fallbacks.
    let label = |part: &str, items: &[String], item: &str| -> String {
        let shown = match items.iter().position(|listed| listed == item) {
            Some(at) => survey.text_in(words.lang(), format_args!("q:{id}:{part}:{at}"), item),
            None => item,
        };
        recall::render(shown, |_| None, |_| None).into_owned()
    };
    let options = kind.map_or(&[][..], QuestionKind::options);
    let option = |item: &str| label("option", options, item);
    let joined = |parts: Vec<String>| parts.join(&words.t("recall-separator"));
    match value {
        AnswerValue::Text(text) => text.clone(),
        AnswerValue::File(file) => file.name.clone(),
        AnswerValue::Choice(picked) => option(picked),
        AnswerValue::Choices(picked) | AnswerValue::Ranking(picked) => {
            joined(picked.iter().map(|item| option(item)).collect())
        }
        AnswerValue::Other { picked, text } => {
            let mut parts: Vec<String> = picked.iter().map(|item| option(item)).collect();
            parts.push(text.clone());
            joined(parts)
        }
        AnswerValue::Stars(n) | AnswerValue::Point(n) => words.number(f64::from(*n)),
        AnswerValue::Number(n) => words.number(*n),
        AnswerValue::Date(day) => {
            crate::domain::answer::date(day).map_or_else(|| day.clone(), |d| date(words, d))
        }
        AnswerValue::Matrix(picked) => {
            let (rows, columns) = match kind {
                Some(QuestionKind::Matrix { rows, columns }) => (&rows[..], &columns[..]),
                _ => (&[][..], &[][..]),
            };
            joined(
                picked
                    .iter()
                    .map(|(row, column)| {
                        format!(
                            "{}: {}",
                            label("row", rows, row),
                            label("column", columns, column)
                        )
                    })
                    .collect(),
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_condition_is_put_in_the_pages_language() {
        let condition: Condition = serde_json::from_value(serde_json::json!({"any": [
            {"question": "drink", "equals": "Tea"},
            {"question": "age", "greater_than": 17},
        ]}))
        .expect("a condition");
        let name = |id: &QuestionId| format!("[{id}]");
        let value = |_: &QuestionId, tested: &str| tested.to_uppercase();
        assert_eq!(
            condition_hint(&Words::default(), &condition, &name, &value),
            "Answer this if ([drink] is \"TEA\" or [age] is above 17)."
        );
        assert_eq!(
            condition_hint(&Words::for_tag("de"), &condition, &name, &value),
            "Beantworten Sie diese Frage, wenn ([drink] „TEA“ ist oder [age] über 17 liegt)."
        );
    }
}
