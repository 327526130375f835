//! The designer's structural buttons (add a question of a type at any place, remove and undo,
//! move by a place or by dragging, duplicate, show a new type's fields), applied to the
//! question blocks without saving, and where each leaves the owner: a control of the question
//! acted on, which the page scrolls to and focuses.

use super::block::QuestionEdit;

/// One structural button, with the block it acts on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Edit {
    Add,
    /// A blank question of a type, put before block `at` (at the end when `at` is the count).
    Insert(usize, &'static str),
    /// Marks a block removed: it stays, collapsed with an Undo button, until the form is saved.
    Remove(usize),
    /// Takes a removed block back.
    Restore(usize),
    /// Moves a block to another place (a drag and drop).
    Move(usize, usize),
    /// Adds the recall of an earlier question's answer (`{{q:ID}}`, by the id's place among
    /// the blocks) to the end of block `.0`'s text.
    Recall(usize, usize),
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
    /// The Undo button of a removed block.
    Undo,
}

impl Edit {
    /// The button's value (`up-3`) read back, if it names a block of `count` that it can act
    /// on; `None` for anything else (saving).
    pub(super) fn parse(action: &str, count: usize) -> Option<Self> {
        if action == "add" {
            return Some(Self::Add);
        }
        if let Some(rest) = action.strip_prefix("add-") {
            let (at, kind) = rest.split_once('-')?;
            let at: usize = at.parse().ok().filter(|at| *at <= count)?;
            let kind = super::TYPES.iter().find(|(name, _)| *name == kind)?.0;
            return Some(Self::Insert(at, kind));
        }
        if let Some(rest) = action.strip_prefix("recall-") {
            let (to, from) = rest.split_once('-')?;
            let to: usize = to.parse().ok().filter(|i| *i < count)?;
            let from: usize = from.parse().ok().filter(|i| *i < to)?;
            return Some(Self::Recall(to, from));
        }
        if let Some(rest) = action.strip_prefix("move-") {
            let (from, to) = rest.split_once('-')?;
            let from: usize = from.parse().ok().filter(|i| *i < count)?;
            let to: usize = to.parse().ok().filter(|i| *i < count && *i != from)?;
            return Some(Self::Move(from, to));
        }
        let (name, index) = action.rsplit_once('-')?;
        let index: usize = index.parse().ok().filter(|i| *i < count)?;
        match name {
            "remove" => Some(Self::Remove(index)),
            "restore" => Some(Self::Restore(index)),
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
                questions.push(QuestionEdit::fresh(questions.len()));
                "Question added"
            }
            Self::Insert(at, kind) => {
                let mut blank = QuestionEdit::fresh(at);
                kind.clone_into(&mut blank.kind);
                questions.insert(at, blank);
                "Question added"
            }
            Self::Remove(i) => {
                questions[i].removed = true;
                "Question removed (Undo takes it back until you save)"
            }
            Self::Restore(i) => {
                questions[i].removed = false;
                "Question taken back"
            }
            Self::Move(from, to) => {
                let moved = questions.remove(from);
                questions.insert(to, moved);
                "Question moved"
            }
            Self::Recall(to, from) => {
                // Only a saved question has an id to recall; the picker offers no other.
                let id = questions[from].id.clone();
                if id.is_empty() {
                    return "Save the earlier question first: a recall needs its id";
                }
                let text = &mut questions[to].text;
                if !text.is_empty() && !text.ends_with(' ') {
                    text.push(' ');
                }
                text.push_str(&format!("{{{{q:{id}}}}}"));
                "Earlier answer inserted"
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
            Self::Insert(at, _) => (Some(at), Control::Text),
            Self::Remove(i) => (Some(i), Control::Undo),
            Self::Restore(i) | Self::Move(_, i) | Self::Recall(i, _) => (Some(i), Control::Text),
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
            Control::Undo => "undo",
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
        assert_eq!(Edit::parse("add-3-nps", 3), Some(Edit::Insert(3, "nps")));
        assert_eq!(
            Edit::parse("add-0-matrix", 3),
            Some(Edit::Insert(0, "matrix"))
        );
        assert_eq!(Edit::parse("restore-1", 3), Some(Edit::Restore(1)));
        assert_eq!(Edit::parse("move-0-2", 3), Some(Edit::Move(0, 2)));
        assert_eq!(Edit::parse("recall-2-0", 3), Some(Edit::Recall(2, 0)));
        assert_eq!(
            Edit::parse("recall-0-0", 3),
            None,
            "only an earlier question"
        );
        for other in [
            "save",
            "",
            "up-",
            "up-x",
            "sideways-1",
            "remove--1",
            "add-4-nps",
            "add-1-essay",
            "add-1",
            "move-1-1",
            "move-0-3",
            "move-x-1",
        ] {
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
        assert!(
            questions[1].new && questions[1].id != questions[0].id,
            "a copy is a new question, with an id of its own"
        );
        assert_eq!(Edit::Duplicate(0).lands_at(3), (Some(1), Control::Text));

        Edit::Remove(1).apply(&mut questions);
        assert!(questions[1].removed, "kept, marked, until a save");
        assert_eq!(questions.len(), 4);
        assert_eq!(Edit::Remove(1).lands_at(4), (Some(1), Control::Undo));
        Edit::Restore(1).apply(&mut questions);
        assert!(!questions[1].removed, "Undo takes it back");

        Edit::Insert(1, "nps").apply(&mut questions);
        assert_eq!(
            (questions[1].kind.as_str(), questions[1].is_blank()),
            ("nps", true)
        );
        assert_eq!(Edit::Insert(1, "nps").anchor(5), "#q1-text");
        Edit::Move(0, 4).apply(&mut questions);
        assert_eq!(questions[4].text, "Question 0", "dropped at its new place");
        assert_eq!(Edit::Move(0, 4).anchor(5), "#q4-text");
        let mut recalling = blocks(3);
        Edit::Recall(2, 0).apply(&mut recalling);
        assert_eq!(recalling[2].text, "Question 2 {{q:id0}}");
        recalling[0].id.clear();
        Edit::Recall(1, 0).apply(&mut recalling);
        assert_eq!(
            recalling[1].text, "Question 1",
            "an unsaved question has no id to recall"
        );
        assert_eq!(Edit::Add.anchor(4), "#q4-text");
        assert_eq!(Edit::Up(2).anchor(3), "#q1-up");
        assert_eq!(Edit::Retype(2).anchor(3), "#q2-type");
        assert_eq!(Edit::Remove(0).anchor(1), "#q0-undo");
    }

    proptest! {
        /// Any run of edits keeps the blocks numbered 0..n in order, never loses a question
        /// it did not remove, and lands on a block that exists.
        #[test]
        fn edits_keep_the_blocks_whole(actions in prop::collection::vec((0usize..9, 0usize..8, 0usize..8), 0..30)) {
            let mut questions = blocks(4);
            for (kind, index, other) in actions {
                let count = questions.len();
                let action = match kind {
                    0 => "add".to_owned(),
                    1 => format!("remove-{index}"),
                    2 => format!("up-{index}"),
                    3 => format!("down-{index}"),
                    4 => format!("duplicate-{index}"),
                    5 => format!("add-{index}-scale"),
                    6 => format!("restore-{index}"),
                    7 => format!("move-{index}-{other}"),
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
                if let (Edit::Up(i) | Edit::Down(i) | Edit::Duplicate(i) | Edit::Retype(i) | Edit::Move(i, _), Some(at)) =
                    (edit, landed)
                {
                    prop_assert_eq!(&questions[at].text, &before[i]);
                }
                match edit {
                    Edit::Up(i) => prop_assert_eq!(&questions[i - 1].text, &before[i]),
                    Edit::Down(i) => prop_assert_eq!(&questions[i + 1].text, &before[i]),
                    Edit::Remove(i) => prop_assert!(questions.len() == count && questions[i].removed
                        && texts(&questions) == before.iter().map(String::as_str).collect::<Vec<_>>()),
                    Edit::Restore(i) => prop_assert!(!questions[i].removed),
                    Edit::Insert(at, kind) => prop_assert!(questions.len() == count + 1
                        && questions[at].is_blank() && questions[at].kind == kind),
                    Edit::Recall(to, _) => prop_assert!(questions[to].text.starts_with(&before[to])),
                    Edit::Move(_, _) => {
                        let mut now: Vec<&str> = texts(&questions);
                        let mut was: Vec<&str> = before.iter().map(String::as_str).collect();
                        now.sort_unstable();
                        was.sort_unstable();
                        prop_assert_eq!(now, was, "a move loses and adds nothing");
                    }
                    Edit::Duplicate(i) => prop_assert_eq!(&questions[i + 1].text, &before[i]),
                    Edit::Add => prop_assert!(questions.last().is_some_and(QuestionEdit::is_blank)),
                    Edit::Retype(_) => prop_assert_eq!(texts(&questions), before.iter().map(String::as_str).collect::<Vec<_>>()),
                }
            }
        }
    }
}
