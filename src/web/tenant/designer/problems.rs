//! A failed save's messages as a list the owner can act on: each names the question by its
//! number and text and links to the field that is wrong, in the order of the form.

use std::collections::BTreeMap;

use super::block::QuestionEdit;

/// One wrong field.
pub(super) struct Problem {
    /// The field's element (`#q2-options`).
    pub(super) href: String,
    /// What it is, for people: `Question 3, "How many?"` or `Title`.
    pub(super) label: String,
    pub(super) message: String,
}

/// The survey's own fields, with their element ids and names, in the form's order; those
/// before the questions come first.
const SURVEY_FIELDS: [(&str, &str, &str); 15] = [
    ("title", "title", "Title"),
    ("description", "description", "Introduction"),
    ("questions", "add", "Questions"),
    (
        "randomize_pages",
        "shuffle_from",
        "Pages shown in a random order",
    ),
    ("resume_days", "resume_days", "Keep saved answers for"),
    ("hidden_fields", "hidden_fields", "Values the link carries"),
    (
        "segment_hidden",
        "segment_hidden",
        "Divide the results by the link's",
    ),
    (
        "redirects.complete",
        "redirect_complete",
        "Once answered, send them to",
    ),
    (
        "redirects.screened_out",
        "redirect_screened_out",
        "Screened out, send them to",
    ),
    (
        "redirects.closed",
        "redirect_closed",
        "Once closed, send them to",
    ),
    ("variables", "variables", "Calculations"),
    ("thank_you", "thank_you", "Thank-you message"),
    ("closes_at", "closes_at", "Close on"),
    ("response_limit", "response_limit", "Response limit"),
    ("closed_message", "closed_message", "Message once closed"),
];

/// The element of a question's field, by the name the checks use.
fn element(field: &str) -> &'static str {
    match field {
        "type" => "type",
        "help" => "help",
        "options" | "columns" => "options",
        "rows" => "rows",
        "other" => "other",
        "segment" => "segment",
        "randomize_options" => "randomize",
        "fixed_last" => "fixed-last",
        "min" => "min",
        "max" => "max",
        "points" => "points",
        "min_label" => "min-label",
        "max_label" => "max-label",
        "earliest" => "earliest",
        "accept" => "accept",
        "max_bytes" => "max-mb",
        "latest" => "latest",
        "show_if" => "if-question",
        "scores" => "scores",
        "correct" => "correct",
        "validate.expression" => "validate",
        "validate.message" => "validate-message",
        "pages" => "jump-question",
        _ => "text",
    }
}

/// `questions[3].options` → (3, `options`).
pub(super) fn question_field(key: &str) -> Option<(usize, &str)> {
    let (index, rest) = key.strip_prefix("questions[")?.split_once(']')?;
    Some((index.parse().ok()?, rest.strip_prefix('.').unwrap_or("")))
}

/// The errors of a failed save, in the order of the form.
/// A message from the definition check in owners' words: each question it names by id
/// (`"a4137881ac75"`, or `question 3 ("a4137881ac75")`) is named by its number and text.
pub(super) fn named(message: &str, questions: &[QuestionEdit]) -> String {
    let mut message = message.to_owned();
    for q in questions.iter().filter(|q| !q.id.is_empty()) {
        let text: String = q.text.trim().chars().take(60).collect();
        let name = match text.is_empty() {
            true => format!("question {}", q.index + 1),
            false => format!("question {}, \u{201c}{text}\u{201d}", q.index + 1),
        };
        let quoted = format!("\"{}\"", q.id);
        for position in 0..=questions.len() {
            message = message.replace(&format!("question {position} ({quoted})"), &name);
        }
        message = message.replace(&quoted, &name);
    }
    message
}

pub(super) fn problems(
    errors: &BTreeMap<String, String>,
    questions: &[QuestionEdit],
) -> Vec<Problem> {
    // (place in the form, problem): survey fields by their rank, questions between.
    let mut found: Vec<((usize, usize), Problem)> = errors
        .iter()
        .map(|(key, message)| {
            let message = named(message, questions);
            if let Some((index, field)) = question_field(key) {
                let text: String = questions
                    .get(index)
                    .map(|q| q.text.trim().chars().take(60).collect())
                    .unwrap_or_default();
                let label = if text.is_empty() {
                    format!("Question {}", index + 1)
                } else {
                    format!("Question {}, \u{201c}{text}\u{201d}", index + 1)
                };
                let href = format!("#q{index}-{}", element(field));
                return (
                    (2, index),
                    Problem {
                        href,
                        label,
                        message,
                    },
                );
            }
            // A page's field (`pages[2].loop`): the block that starts the page.
            if let Some((page, field)) = key
                .strip_prefix("pages[")
                .and_then(|k| k.split_once(']'))
                .and_then(|(at, rest)| Some((at.parse::<usize>().ok()?, rest)))
            {
                let starts = questions
                    .iter()
                    .filter(|q| q.index == 0 || q.logic.page_break)
                    .nth(page);
                if let Some(block) = starts {
                    let element = match field.starts_with(".loop") {
                        true => "repeat",
                        false => "jump-question",
                    };
                    let problem = Problem {
                        href: format!("#q{}-{element}", block.index),
                        label: format!("Page {} (from question {})", page + 1, block.index + 1),
                        message,
                    };
                    return ((2, block.index), problem);
                }
            }
            // An ending's field (`ending1.if`): its row's element.
            if let Some((at, part)) = key.strip_prefix("ending").and_then(|k| k.split_once('.'))
                && let Ok(at) = at.parse::<usize>()
            {
                let problem = Problem {
                    href: format!("#ending{at}-{part}"),
                    label: format!("Ending {}", at + 1),
                    message,
                };
                return ((3, 7 + at), problem);
            }
            let rank = SURVEY_FIELDS.iter().position(|(name, ..)| *name == key);
            let (_, id, name) = rank.map_or(("", "title", "Survey"), |r| SURVEY_FIELDS[r]);
            // The questions sit between the introduction and the thank-you message.
            let place = match rank {
                Some(r) if r < 2 => (r, 0),
                Some(r) => (3, r),
                None => (4, 0),
            };
            let href = format!("#{id}");
            let label = name.to_owned();
            (
                place,
                Problem {
                    href,
                    label,
                    message,
                },
            )
        })
        .collect();
    found.sort_by_key(|(place, _)| *place);
    found.into_iter().map(|(_, problem)| problem).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_name_questions_by_number_and_text_never_by_id() {
        let mut questions: Vec<QuestionEdit> = (0..3).map(QuestionEdit::blank).collect();
        questions[1].id = "a4137881ac75".into();
        questions[1].text = "Did you like it?".into();
        questions[2].id = "untitled".into();
        assert_eq!(
            named(
                "it refers to question 2 (\"a4137881ac75\"), which does not come before it",
                &questions
            ),
            "it refers to question 2, \u{201c}Did you like it?\u{201d}, which does not come before it"
        );
        assert_eq!(
            named("a rule on \"untitled\" has exactly one test", &questions),
            "a rule on question 3 has exactly one test"
        );
        assert_eq!(named("Enter a number.", &questions), "Enter a number.");
    }

    #[test]
    fn each_problem_names_its_question_and_links_to_its_field() {
        let mut questions: Vec<QuestionEdit> = (0..12).map(QuestionEdit::blank).collect();
        questions[2].text = "What did you order?".into();
        let errors: BTreeMap<String, String> = [
            ("questions[10].max", "Enter a number."),
            (
                "questions[2].options",
                "a choice question needs 2 to 50 options",
            ),
            ("response_limit", "Enter a whole number."),
            ("title", "a survey needs a title"),
            ("questions[2].show_if", "Enter a number."),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect();
        let listed: Vec<(String, String)> = problems(&errors, &questions)
            .into_iter()
            .map(|p| (p.href, p.label))
            .collect();
        let expected = [
            ("#title", "Title"),
            (
                "#q2-options",
                "Question 3, \u{201c}What did you order?\u{201d}",
            ),
            (
                "#q2-if-question",
                "Question 3, \u{201c}What did you order?\u{201d}",
            ),
            ("#q10-max", "Question 11"),
            ("#response_limit", "Response limit"),
        ];
        assert_eq!(
            listed,
            expected.map(|(h, l)| (h.to_owned(), l.to_owned())).to_vec()
        );
    }

    #[test]
    fn question_keys_are_read_back() {
        assert_eq!(question_field("questions[3].options"), Some((3, "options")));
        assert_eq!(question_field("questions[3]"), Some((3, "")));
        assert_eq!(question_field("title"), None);
        assert_eq!(question_field("questions[x].text"), None);
    }
}
