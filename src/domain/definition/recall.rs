//! Checking a definition's recalls of earlier answers (`{{q:ID}}`): only a question's text,
//! help text and options may recall, each recall well formed, and only of a question some
//! route shows on an earlier page. Each problem is reported at its field, naming the
//! questions it concerns.

use super::logic::short;
use super::{DefinitionErrors, Placed, SurveyInput};
use crate::domain::logic::{PageLayout, PageReach};
use crate::domain::recall;
use crate::domain::{Question, QuestionKind};

/// Where recalls may not stand, and why.
const NOT_HERE: &str =
    "earlier answers can be recalled only in a question's text, help text and options";

/// Checks every text of the definition for recalls; problems go to `errors`.
pub(super) fn check(
    input: &SurveyInput,
    placed: &[Placed<'_>],
    questions: &[Question],
    layout: &[PageLayout],
    errors: &mut DefinitionErrors,
) {
    for (field, text) in [
        ("title", Some(input.title.as_str())),
        ("description", input.description.as_deref()),
        ("thank_you", input.thank_you.as_deref()),
        ("closed_message", input.closed_message.as_deref()),
    ] {
        if text.is_some_and(recall::mentions_recall) {
            errors.insert(field.into(), NOT_HERE.into());
        }
    }
    for (index, quota) in input.quotas.iter().flatten().enumerate() {
        if quota
            .message
            .as_deref()
            .is_some_and(recall::mentions_recall)
        {
            errors.insert(format!("quotas[{index}].message"), NOT_HERE.into());
        }
    }
    for (index, page) in input.pages.iter().flatten().enumerate() {
        for (field, text) in [("title", &page.title), ("description", &page.description)] {
            if text.as_deref().is_some_and(recall::mentions_recall) {
                errors.insert(format!("pages[{index}].{field}"), NOT_HERE.into());
            }
        }
    }
    let routes = Routes::of(questions, layout);
    for (index, (question, item)) in questions.iter().zip(placed).enumerate() {
        for (field, text) in texts_of(question) {
            if !recall::mentions_recall(text) {
                continue;
            }
            let undeclared = |name: &&str| !input.hidden_fields.iter().any(|h| h == name);
            let problem = match recall::recalled(text) {
                Err(problem) => Some(problem),
                Ok(ids) => ids
                    .iter()
                    .find_map(|id| routes.problem(index, id.as_str(), questions))
                    .or_else(|| {
                        let name = recall::hidden_recalled(text).into_iter().find(undeclared)?;
                        Some(format!(
                            "it recalls the hidden field \"{name}\", which the survey does not \
                             declare in hidden_fields"
                        ))
                    })
                    .or_else(|| {
                        let unknown =
                            |name: &&str| !input.variables.iter().any(|v| v.id.trim() == *name);
                        let name = recall::variables_recalled(text).into_iter().find(unknown)?;
                        Some(format!(
                            "it recalls the variable \"{name}\", which is not one of the \
                             survey's variables"
                        ))
                    }),
            };
            if let Some(problem) = problem {
                errors.insert(
                    format!("{}.{field}", item.path),
                    format!(
                        "question {} (\"{}\"): {problem}",
                        index + 1,
                        short(&question.text)
                    ),
                );
            }
        }
    }
}

/// A question's texts that may recall, by the field they were sent as.
fn texts_of(question: &Question) -> Vec<(&'static str, &str)> {
    let mut texts = vec![("text", question.text.as_str())];
    texts.extend(question.help.as_deref().map(|help| ("help", help)));
    match &question.kind {
        QuestionKind::Matrix { rows, columns } => {
            texts.extend(rows.iter().map(|row| ("rows", row.as_str())));
            texts.extend(columns.iter().map(|column| ("columns", column.as_str())));
        }
        QuestionKind::Scale {
            min_label,
            max_label,
            ..
        } => {
            texts.extend(min_label.as_deref().map(|label| ("min_label", label)));
            texts.extend(max_label.as_deref().map(|label| ("max_label", label)));
        }
        kind => texts.extend(kind.options().iter().map(|o| ("options", o.as_str()))),
    }
    texts
}

/// Each question's page, and which pages may come before which.
struct Routes {
    page_of: Vec<usize>,
    reach: PageReach,
}

impl Routes {
    fn of(questions: &[Question], layout: &[PageLayout]) -> Self {
        let page_of = (0..questions.len())
            .map(|at| {
                layout
                    .iter()
                    .rposition(|page| page.start <= at)
                    .unwrap_or(0)
            })
            .collect();
        let pages = match layout.is_empty() {
            true => vec![PageLayout::default()],
            false => layout.to_vec(),
        };
        Self {
            page_of,
            reach: PageReach::of(&pages),
        }
    }

    /// What is wrong with question `index` recalling the answer to question `id`, if anything.
    fn problem(&self, index: usize, id: &str, questions: &[Question]) -> Option<String> {
        let Some(recalled) = questions.iter().position(|q| q.id.as_str() == id) else {
            return Some(format!(
                "it recalls \"{id}\", which is not a question of this survey"
            ));
        };
        let (here, there) = (self.page_of[index], self.page_of[recalled]);
        let number = recalled + 1;
        if recalled == index {
            return Some("a question cannot recall its own answer".into());
        }
        if there == here {
            return Some(format!(
                "it recalls the answer to question {number}, on the same page: only answers \
                 given on earlier pages can be recalled"
            ));
        }
        if there > here {
            return Some(format!(
                "it recalls the answer to question {number}, which comes after it: only \
                 answers given on earlier pages can be recalled"
            ));
        }
        let never_shown = questions[recalled]
            .show_if
            .as_ref()
            .is_some_and(|condition| condition.never_holds());
        if never_shown || !self.reach.may_precede(there, here) {
            return Some(format!(
                "it recalls the answer to question {number}, which no route through the \
                 survey shows before this question"
            ));
        }
        None
    }
}
