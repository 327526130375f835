//! The designer's structural buttons (add, remove, move, duplicate, show a new type's fields),
//! applied to the question blocks without saving, and where each leaves the owner: a control
//! of the question acted on, which the page scrolls to and focuses.

use super::block::QuestionEdit;

/// One structural button, with the block it acts on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Edit {
    Add,
    Remove(usize),
    Up(usize),
    Down(usize),
    Duplicate(usize),
    /// Shows the fields of the type just picked (the page's script does it without a post).
    Retype(usize),
}

/// The control of a block that gets focus after an edit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Control {
    Text,
    Type,
    Up,
    Down,
    /// The "Add a question" button (after the last question was removed).
    Add,
}

impl Edit {
    /// The button's value (`up-3`) read back, if it names a block of `count` that it can act
    /// on; `None` for anything else (saving).
    pub(super) fn parse(action: &str, count: usize) -> Option<Self> {
        if action == "add" {
            return Some(Self::Add);
        }
        let (name, index) = action.rsplit_once('-')?;
        let index: usize = index.parse().ok().filter(|i| *i < count)?;
        match name {
            "remove" => Some(Self::Remove(index)),
            "up" if index > 0 => Some(Self::Up(index)),
            "down" if index + 1 < count => Some(Self::Down(index)),
            "duplicate" => Some(Self::Duplicate(index)),
            "type" => Some(Self::Retype(index)),
            _ => None,
        }
    }

    /// Applies it and renumbers the blocks; says what was done.
    pub(super) fn apply(self, questions: &mut Vec<QuestionEdit>) -> &'static str {
        let done = match self {
            Self::Add => {
                questions.push(QuestionEdit::blank(questions.len()));
                "Question added"
            }
            Self::Remove(i) => {
                questions.remove(i);
                "Question removed"
            }
            Self::Up(i) => {
                questions.swap(i, i - 1);
                "Question moved up"
            }
            Self::Down(i) => {
                questions.swap(i, i + 1);
                "Question moved down"
            }
            Self::Duplicate(i) => {
                let copy = questions[i].duplicate();
                questions.insert(i + 1, copy);
                "Question duplicated"
            }
            Self::Retype(_) => "Showing the fields of the new type",
        };
        for (i, question) in questions.iter_mut().enumerate() {
            question.index = i;
        }
        done
    }

    /// Where the owner lands once it is applied to `count` blocks: the block acted on (or the
    /// one now in its place) and its control to focus; block `None` when none is left.
    pub(super) fn lands_at(self, count: usize) -> (Option<usize>, Control) {
        match self {
            Self::Add => (Some(count), Control::Text),
            Self::Remove(_) if count <= 1 => (None, Control::Add),
            Self::Remove(i) => (Some(i.min(count - 2)), Control::Text),
            // A move keeps focus on the same button, to press it again, unless it is now
            // disabled at the end of the list.
            Self::Up(i) => (
                Some(i - 1),
                if i == 1 { Control::Down } else { Control::Up },
            ),
            Self::Down(i) => (
                Some(i + 1),
                if i + 2 == count {
                    Control::Up
                } else {
                    Control::Down
                },
            ),
            Self::Duplicate(i) => (Some(i + 1), Control::Text),
            Self::Retype(i) => (Some(i), Control::Type),
        }
    }

    /// The fragment of the page to show after it: the control to focus (`#q3-up`, or
    /// `#add`). Browsers scroll to a fragment and focus it when it can take focus, so this
    /// works without any script (and the designer's script focuses the same control).
    pub(super) fn anchor(self, count: usize) -> String {
        let (block, control) = self.lands_at(count);
        let name = match control {
            Control::Text => "text",
            Control::Type => "type",
            Control::Up => "up",
            Control::Down => "down",
            Control::Add => return "#add".into(),
        };
        format!("#q{}-{name}", block.unwrap_or_default())
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn blocks(count: usize) -> Vec<QuestionEdit> {
        (0..count)
            .map(|i| {
                let mut block = QuestionEdit::blank(i);
                block.text = format!("Question {i}");
                block.id = format!("id{i}");
                block
            })
            .collect()
    }

    fn texts(blocks: &[QuestionEdit]) -> Vec<&str> {
        blocks.iter().map(|b| b.text.as_str()).collect()
    }

    #[test]
    fn buttons_are_read_only_where_they_can_act() {
        assert_eq!(Edit::parse("add", 0), Some(Edit::Add));
        assert_eq!(Edit::parse("up-2", 3), Some(Edit::Up(2)));
        assert_eq!(Edit::parse("up-0", 3), None);
        assert_eq!(Edit::parse("down-2", 3), None);
        assert_eq!(Edit::parse("remove-3", 3), None);
        assert_eq!(Edit::parse("duplicate-1", 3), Some(Edit::Duplicate(1)));
        assert_eq!(Edit::parse("type-0", 1), Some(Edit::Retype(0)));
        for other in ["save", "", "up-", "up-x", "sideways-1", "remove--1"] {
            assert_eq!(Edit::parse(other, 3), None, "{other}");
        }
    }

    #[test]
    fn each_edit_lands_on_the_question_acted_on() {
        let mut questions = blocks(3);
        Edit::Up(2).apply(&mut questions);
        assert_eq!(
            texts(&questions),
            ["Question 0", "Question 2", "Question 1"]
        );
        assert_eq!(Edit::Up(2).lands_at(3), (Some(1), Control::Up));
        assert_eq!(Edit::Up(1).lands_at(3), (Some(0), Control::Down));
        assert_eq!(Edit::Down(1).lands_at(3), (Some(2), Control::Up));
        assert_eq!(Edit::Down(0).lands_at(3), (Some(1), Control::Down));

        Edit::Duplicate(0).apply(&mut questions);
        assert_eq!(questions[1].text, "Question 0");
        assert!(questions[1].id.is_empty(), "a copy is a new question");
        assert_eq!(Edit::Duplicate(0).lands_at(3), (Some(1), Control::Text));

        assert_eq!(Edit::Remove(3).lands_at(4), (Some(2), Control::Text));
        assert_eq!(Edit::Remove(1).lands_at(4), (Some(1), Control::Text));
        assert_eq!(Edit::Remove(0).lands_at(1), (None, Control::Add));
        assert_eq!(Edit::Add.anchor(4), "#q4-text");
        assert_eq!(Edit::Up(2).anchor(3), "#q1-up");
        assert_eq!(Edit::Retype(2).anchor(3), "#q2-type");
        assert_eq!(Edit::Remove(0).anchor(1), "#add");
    }

    proptest! {
        /// Any run of edits keeps the blocks numbered 0..n in order, never loses a question
        /// it did not remove, and lands on a block that exists.
        #[test]
        fn edits_keep_the_blocks_whole(actions in prop::collection::vec((0usize..6, 0usize..8), 0..30)) {
            let mut questions = blocks(4);
            for (kind, index) in actions {
                let count = questions.len();
                let action = match kind {
                    0 => "add".to_owned(),
                    1 => format!("remove-{index}"),
                    2 => format!("up-{index}"),
                    3 => format!("down-{index}"),
                    4 => format!("duplicate-{index}"),
                    _ => format!("type-{index}"),
                };
                let Some(edit) = Edit::parse(&action, count) else { continue };
                let before: Vec<String> = questions.iter().map(|q| q.text.clone()).collect();
                edit.apply(&mut questions);
                prop_assert!(questions.iter().enumerate().all(|(i, q)| q.index == i));
                let (landed, _) = edit.lands_at(count);
                prop_assert_eq!(landed.is_some(), !questions.is_empty());
                prop_assert!(landed.is_none_or(|l| l < questions.len()));
                // A move, a copy or a new type lands on the question acted on.
                if let (Edit::Up(i) | Edit::Down(i) | Edit::Duplicate(i) | Edit::Retype(i), Some(at)) =
                    (edit, landed)
                {
                    prop_assert_eq!(&questions[at].text, &before[i]);
                }
                match edit {
                    Edit::Up(i) => prop_assert_eq!(&questions[i - 1].text, &before[i]),
                    Edit::Down(i) => prop_assert_eq!(&questions[i + 1].text, &before[i]),
                    Edit::Remove(i) => prop_assert!(questions.len() == count - 1
                        && texts(&questions).iter().zip(before.iter().enumerate().filter(|(k, _)| *k != i))
                            .all(|(now, (_, was))| now == was)),
                    Edit::Duplicate(i) => prop_assert_eq!(&questions[i + 1].text, &before[i]),
                    Edit::Add => prop_assert!(questions.last().is_some_and(QuestionEdit::is_blank)),
                    Edit::Retype(_) => prop_assert_eq!(texts(&questions), before.iter().map(String::as_str).collect::<Vec<_>>()),
                }
            }
        }
    }
}
