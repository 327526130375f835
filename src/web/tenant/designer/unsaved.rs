//! What a designer form holds that is not saved yet, in words: shown after a structural
//! button (add, move, duplicate, remove) on the page without JavaScript, where those buttons
//! change the form only and the owner must press Save.

use super::SurveyFields;
use super::block::QuestionEdit;

/// One of the survey's own fields, read from a form.
type Field = fn(&SurveyFields) -> &str;

/// The changes of the posted `fields` and `questions` against the saved ones, in the form's
/// order: `["the title", "question 2 (new)", "question 3 (changed)", "“Why?” (removed)"]`.
pub(super) fn unsaved(
    saved_fields: &SurveyFields,
    saved: &[QuestionEdit],
    fields: &SurveyFields,
    questions: &[QuestionEdit],
) -> Vec<String> {
    let mut changes = Vec::new();
    let texts: [(&str, Field); 8] = [
        ("the title", |f| &f.title),
        ("the introduction", |f| &f.description),
        ("the thank-you message", |f| &f.thank_you),
        ("the closing time", |f| &f.closes_at),
        ("the response limit", |f| &f.response_limit),
        ("the closed message", |f| &f.closed_message),
        ("the regions", |f| &f.regions),
        ("where answers are kept", |f| &f.residency),
    ];
    for (name, of) in texts {
        if of(saved_fields).trim() != of(fields).trim() {
            changes.push(name.to_owned());
        }
    }
    // Moved: its place among the questions both versions hold changed (a question removed or
    // added before it moves nothing).
    let both = |list: &[QuestionEdit], other: &[QuestionEdit]| -> Vec<String> {
        list.iter()
            .filter(|q| q.is_kept() && !q.id.is_empty())
            .filter(|q| other.iter().any(|o| o.id == q.id && o.is_kept()))
            .map(|q| q.id.clone())
            .collect()
    };
    let (order_saved, order_posted) = (both(saved, questions), both(questions, saved));
    let place = |order: &[String], id: &str| order.iter().position(|o| o == id);
    for question in questions.iter().filter(|q| q.is_kept()) {
        let number = question.index + 1;
        let was = saved
            .iter()
            .find(|q| !question.id.is_empty() && q.id == question.id);
        match was {
            None => changes.push(format!("question {number} (new)")),
            Some(was) if !same_content(was, question) => {
                changes.push(format!("question {number} (changed)"));
            }
            Some(was) if place(&order_saved, &was.id) != place(&order_posted, &was.id) => {
                changes.push(format!("question {number} (moved)"));
            }
            Some(_) => {}
        }
    }
    for was in saved {
        if !questions.iter().any(|q| q.id == was.id && q.is_kept()) {
            let text: String = was.text.trim().chars().take(60).collect();
            changes.push(format!("\u{201c}{text}\u{201d} (removed)"));
        }
    }
    changes
}

/// Whether two blocks hold the same question, wherever they stand.
pub(super) fn same_content(a: &QuestionEdit, b: &QuestionEdit) -> bool {
    let mut moved = b.clone();
    moved.index = a.index;
    meaning(a) == meaning(&moved)
}

/// A block without what its fields say nothing by: a rule's test and value while it tests no
/// question, and a jump's target while there is no jump (their selects always hold one).
fn meaning(block: &QuestionEdit) -> QuestionEdit {
    let mut block = block.clone();
    let logic = &mut block.logic;
    for rule in [&mut logic.show, &mut logic.jump] {
        if rule.question.is_empty() {
            rule.test.clear();
            rule.value.clear();
        }
    }
    if logic.jump.question.is_empty() {
        logic.jump_to.clear();
    }
    block
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block(index: usize, id: &str, text: &str) -> QuestionEdit {
        let mut block = QuestionEdit::blank(index);
        block.id = id.into();
        block.text = text.into();
        block
    }

    #[test]
    fn each_unsaved_change_is_named_in_the_forms_order() {
        let saved = vec![
            block(0, "a", "Name?"),
            block(1, "b", "Why?"),
            block(2, "c", "When?"),
        ];
        let saved_fields = SurveyFields {
            title: "Lunch".into(),
            ..SurveyFields::default()
        };
        let fields = SurveyFields {
            title: "Lunch, again".into(),
            ..SurveyFields::default()
        };
        // "When?" moved up and edited, "Why?" removed, a new question added.
        let posted = vec![
            block(0, "a", "Name?"),
            block(1, "c", "When exactly?"),
            block(2, "", "Anything else?"),
        ];
        assert_eq!(
            unsaved(&saved_fields, &saved, &fields, &posted),
            [
                "the title",
                "question 2 (changed)",
                "question 3 (new)",
                "\u{201c}Why?\u{201d} (removed)"
            ]
        );
        assert!(unsaved(&saved_fields, &saved, &saved_fields, &saved).is_empty());
        let swapped = vec![
            block(0, "b", "Why?"),
            block(1, "a", "Name?"),
            block(2, "c", "When?"),
        ];
        assert_eq!(
            unsaved(&saved_fields, &saved, &saved_fields, &swapped),
            ["question 1 (moved)", "question 2 (moved)"]
        );
    }
}
