//! Recalling earlier answers in a question's texts ("piping"): a question's text, help text
//! or option label may hold `{{q:ID}}`, shown as the respondent's answer to question `ID`, or
//! `{{q:ID|fallback text}}`, shown as the fallback when that question was not answered (not
//! shown, skipped, or hidden by logic). `{{p:NAME}}` (and `{{p:NAME|fallback}}`) shows a
//! participant answering through their personal link their `first_name`, `last_name` or
//! attribute `NAME`; anyone else sees the fallback. The respondent's answers come from the walk, which
//! holds only answers to questions they were shown, so a hidden question's answer can never
//! be recalled, whatever the browser sent.

use std::borrow::Cow;

use super::QuestionId;
use super::answer::has_control_characters;
use super::participant::{MAX_ATTRIBUTE_NAME, valid_attribute_name};

/// What starts a recall in a text.
pub const OPENING: &str = "{{q:";
/// What starts a recall of the participant's own details.
pub const PARTICIPANT_OPENING: &str = "{{p:";
/// What starts a recall of a hidden field's value, as the survey's address gave it.
pub const HIDDEN_OPENING: &str = "{{h:";
/// What starts a recall of one of the survey's variables, as computed from the answers so far.
pub const VARIABLE_OPENING: &str = "{{v:";
/// What ends it.
const CLOSING: &str = "}}";
/// Most recalls in one text.
pub const MAX_RECALLS_PER_TEXT: usize = 10;
/// Longest fallback text, in characters.
pub const MAX_FALLBACK: usize = 200;
/// Longest recalled answer shown, in characters (a long text answer is cut with "…").
pub const MAX_RECALLED: usize = 300;

/// One part of a text: words as written, or a recall of an earlier answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Piece<'a> {
    /// Words shown as they are.
    Text(&'a str),
    /// The answer to `question`, else `fallback` (blank when none was written).
    Recall {
        /// The question whose answer is shown.
        question: QuestionId,
        /// What is shown when it was not answered.
        fallback: &'a str,
    },
    /// The hidden field `name`'s value, else `fallback`.
    Hidden {
        /// The hidden field's name.
        name: &'a str,
        /// What is shown when the address gave no value.
        fallback: &'a str,
    },
    /// The variable `name`'s value for the answers so far, else `fallback`.
    Variable {
        /// The variable's id.
        name: &'a str,
        /// What is shown when it has no value.
        fallback: &'a str,
    },
    /// The participant's detail `name`, else `fallback`.
    Participant {
        /// `first_name`, `last_name` or an attribute's name.
        name: &'a str,
        /// What is shown to anyone else, or when they have no such detail.
        fallback: &'a str,
    },
}

/// Whether a text holds anything that starts a recall.
pub fn mentions_recall(text: &str) -> bool {
    text.contains(OPENING)
        || text.contains(PARTICIPANT_OPENING)
        || text.contains(HIDDEN_OPENING)
        || text.contains(VARIABLE_OPENING)
}

/// Which kind of recall an opening starts.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Answer,
    Participant,
    Hidden,
    Variable,
}

/// Where the next recall of any kind starts in `text`, and its kind.
fn next_opening(text: &str) -> Option<(usize, Kind)> {
    [
        (OPENING, Kind::Answer),
        (PARTICIPANT_OPENING, Kind::Participant),
        (HIDDEN_OPENING, Kind::Hidden),
        (VARIABLE_OPENING, Kind::Variable),
    ]
    .into_iter()
    .filter_map(|(opening, kind)| text.find(opening).map(|at| (at, kind)))
    .min_by_key(|(at, _)| *at)
}

/// Reads a text into its pieces, or says what is wrong with a recall in it.
pub fn pieces(text: &str) -> Result<Vec<Piece<'_>>, String> {
    let mut pieces = Vec::new();
    let mut rest = text;
    while let Some((at, kind)) = next_opening(rest) {
        if at > 0 {
            pieces.push(Piece::Text(&rest[..at]));
        }
        // All openings are as long.
        let inside = &rest[at + OPENING.len()..];
        let end = inside.find(CLOSING).ok_or(
            "an earlier answer is recalled as {{q:ID}} or {{q:ID|fallback}}, a participant's \
             detail as {{p:NAME}}: this one is not closed with }}",
        )?;
        let (id, fallback) = inside[..end]
            .split_once('|')
            .unwrap_or((&inside[..end], ""));
        if mentions_recall(fallback) || fallback.chars().count() > MAX_FALLBACK {
            return Err(format!(
                "the fallback of a recall is at most {MAX_FALLBACK} characters and recalls \
                 nothing itself"
            ));
        }
        if has_control_characters(fallback) {
            return Err("remove the control characters from the recall's fallback".into());
        }
        rest = &inside[end + CLOSING.len()..];
        let name = id.trim();
        if kind == Kind::Hidden {
            if !super::hidden::valid_name(name) {
                return Err(format!(
                    "\"{name}\" in {{{{h:...}}}} is not a hidden field's name (a lowercase \
                     letter, then lowercase letters, digits or _)"
                ));
            }
            pieces.push(Piece::Hidden { name, fallback });
        } else if kind == Kind::Variable {
            if !super::hidden::valid_name(name) {
                return Err(format!(
                    "\"{name}\" in {{{{v:...}}}} is not a variable's id (a lowercase letter, \
                     then lowercase letters, digits or _)"
                ));
            }
            pieces.push(Piece::Variable { name, fallback });
        } else if kind == Kind::Participant {
            if !valid_attribute_name(name) {
                return Err(format!(
                    "\"{name}\" in {{{{p:...}}}} is not first_name, last_name or a participant's \
                     attribute name (1 to {MAX_ATTRIBUTE_NAME} letters, digits or _)"
                ));
            }
            pieces.push(Piece::Participant { name, fallback });
        } else {
            let question = QuestionId::parse(name).ok_or_else(|| {
                format!(
                    "\"{}\" in {{{{q:...}}}} is not a question id (1 to 32 lowercase letters and \
                 digits)",
                    id.trim()
                )
            })?;
            pieces.push(Piece::Recall { question, fallback });
        }
        let recalls = pieces
            .iter()
            .filter(|p| !matches!(p, Piece::Text(_)))
            .count();
        if recalls > MAX_RECALLS_PER_TEXT {
            return Err(format!(
                "a text recalls at most {MAX_RECALLS_PER_TEXT} earlier answers and details"
            ));
        }
    }
    if !rest.is_empty() {
        pieces.push(Piece::Text(rest));
    }
    Ok(pieces)
}

/// The questions a text recalls, in order (each once); what is wrong with a recall in it.
pub fn recalled(text: &str) -> Result<Vec<QuestionId>, String> {
    let mut ids: Vec<QuestionId> = Vec::new();
    for piece in pieces(text)? {
        if let Piece::Recall { question, .. } = piece
            && !ids.contains(&question)
        {
            ids.push(question);
        }
    }
    Ok(ids)
}

/// The hidden fields a text recalls, in order.
pub fn hidden_recalled(text: &str) -> Vec<&str> {
    pieces(text)
        .unwrap_or_default()
        .into_iter()
        .filter_map(|piece| match piece {
            Piece::Hidden { name, .. } => Some(name),
            _ => None,
        })
        .collect()
}

/// The variables a text recalls, in order.
pub fn variables_recalled(text: &str) -> Vec<&str> {
    pieces(text)
        .unwrap_or_default()
        .into_iter()
        .filter_map(|piece| match piece {
            Piece::Variable { name, .. } => Some(name),
            _ => None,
        })
        .collect()
}

/// The text as a respondent reads it: each recall replaced by `answer` of its question, or
/// by `theirs` of a participant's detail (cut to `MAX_RECALLED` characters), or its fallback
/// when there is none; a hidden field's recall is its fallback (see `render_with_hidden`).
/// Plain text: the page escapes it like any other. A text without recalls comes back as it
/// is.
pub fn render<'a>(
    text: &'a str,
    answer: impl Fn(&QuestionId) -> Option<String>,
    theirs: impl Fn(&str) -> Option<String>,
) -> Cow<'a, str> {
    render_with_hidden(
        text,
        answer,
        theirs,
        &super::hidden::HiddenValues::default(),
    )
}

/// `render`, with each hidden field's recall replaced by its value in `hidden`.
pub fn render_with_hidden<'a>(
    text: &'a str,
    answer: impl Fn(&QuestionId) -> Option<String>,
    theirs: impl Fn(&str) -> Option<String>,
    hidden: &super::hidden::HiddenValues,
) -> Cow<'a, str> {
    render_all(text, answer, theirs, hidden, |_| None)
}

/// `render_with_hidden`, with each variable's recall replaced by `variable` of its id.
pub fn render_all<'a>(
    text: &'a str,
    answer: impl Fn(&QuestionId) -> Option<String>,
    theirs: impl Fn(&str) -> Option<String>,
    hidden: &super::hidden::HiddenValues,
    variable: impl Fn(&str) -> Option<String>,
) -> Cow<'a, str> {
    replaced(text, |piece| match piece {
        Piece::Variable { name, fallback } => match variable(name) {
            Some(value) if !value.trim().is_empty() => Cow::Owned(cut(&value).into_owned()),
            _ => Cow::Borrowed(*fallback),
        },
        Piece::Hidden { name, fallback } => match hidden.get(name) {
            Some(value) => Cow::Owned(cut(value).into_owned()),
            None => Cow::Borrowed(*fallback),
        },
        Piece::Text(words) => Cow::Borrowed(*words),
        Piece::Recall { question, fallback } => match answer(question) {
            Some(given) if !given.trim().is_empty() => Cow::Owned(cut(&given).into_owned()),
            _ => Cow::Borrowed(*fallback),
        },
        Piece::Participant { name, fallback } => match theirs(name) {
            Some(detail) if !detail.trim().is_empty() => Cow::Owned(cut(&detail).into_owned()),
            _ => Cow::Borrowed(*fallback),
        },
    })
}

/// `text` with each of its pieces written as `write` says; a text without recalls (or, as
/// checked definitions never hold, with a broken one) comes back as it is.
fn replaced<'a>(text: &'a str, write: impl Fn(&Piece<'a>) -> Cow<'a, str>) -> Cow<'a, str> {
    if !mentions_recall(text) {
        return Cow::Borrowed(text);
    }
    let Ok(pieces) = pieces(text) else {
        return Cow::Borrowed(text);
    };
    let mut shown = String::with_capacity(text.len());
    for piece in &pieces {
        shown.push_str(&write(piece));
    }
    Cow::Owned(shown)
}

/// Longest label a recall is shown as to the owner, in characters.
pub const MAX_LABEL: usize = 40;

/// A text as its owner reads it outside the form (summaries, responses, download headers):
/// each recall of an answer as the recalled question's `label` in brackets (`[Rating]`, cut to
/// `MAX_LABEL` characters; its id when `label` knows none), each recall of a participant's
/// detail as the detail's name (`[first_name]`). A text without recalls comes back as it is.
pub fn labelled<'a>(text: &'a str, label: impl Fn(&QuestionId) -> Option<String>) -> Cow<'a, str> {
    replaced(text, |piece| match piece {
        Piece::Text(words) => Cow::Borrowed(*words),
        Piece::Recall { question, .. } => {
            let named = label(question).unwrap_or_else(|| question.to_string());
            let named = match named.char_indices().nth(MAX_LABEL) {
                None => named,
                Some((at, _)) => format!("{}…", named[..at].trim_end()),
            };
            Cow::Owned(format!("[{named}]"))
        }
        Piece::Participant { name, .. }
        | Piece::Hidden { name, .. }
        | Piece::Variable { name, .. } => Cow::Owned(format!("[{name}]")),
    })
}

/// The label a recall of a question with `text` reads as in `labelled`: the text with its own
/// recalls as their fallbacks (a label, not a chain of them), trimmed; `None` when blank.
pub fn label_of(text: &str) -> Option<String> {
    let label = render(text, |_| None, |_| None);
    Some(label.trim().to_owned()).filter(|label| !label.is_empty())
}

/// An answer cut to `MAX_RECALLED` characters.
fn cut(text: &str) -> Cow<'_, str> {
    match text.char_indices().nth(MAX_RECALLED) {
        None => Cow::Borrowed(text),
        Some((at, _)) => Cow::Owned(format!("{}…", text[..at].trim_end())),
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn id(text: &str) -> QuestionId {
        QuestionId::parse(text).expect("an id")
    }

    #[test]
    fn the_owner_reads_a_recall_as_the_recalled_questions_label() {
        let label = |q: &QuestionId| match q.as_str() {
            "rating" => Some("Rating".to_owned()),
            "long" => Some("How would you rate the evening session overall?".to_owned()),
            _ => None,
        };
        assert_eq!(
            labelled("Why {{q:rating|that}}, {{p:first_name|friend}}?", label),
            "Why [Rating], [first_name]?"
        );
        assert_eq!(
            labelled("After {{q:long}}", label),
            "After [How would you rate the evening session o…]"
        );
        assert_eq!(labelled("{{q:gone}}", label), "[gone]");
        assert!(matches!(labelled("No recall", label), Cow::Borrowed(_)));
    }

    #[test]
    fn a_recall_is_the_answer_else_its_fallback_else_nothing() {
        let answers = |q: &QuestionId| (q.as_str() == "stars").then(|| "2".to_owned());
        assert_eq!(
            render("You gave {{q:stars}} stars: why?", answers, |_| None),
            "You gave 2 stars: why?"
        );
        assert_eq!(
            render("Hello {{q:name|there}}, and {{q:city}}.", answers, |_| None),
            "Hello there, and ."
        );
        assert_eq!(
            render("No recall {{here}}", answers, |_| None),
            "No recall {{here}}"
        );
        let long = "x".repeat(MAX_RECALLED + 50);
        let shown = render("{{q:note}}", |_| Some(long.clone()), |_| None);
        assert_eq!(shown.chars().count(), MAX_RECALLED + 1);
        assert!(shown.ends_with('…'));
    }

    #[test]
    fn a_participants_detail_is_theirs_else_the_fallback() {
        let theirs = |name: &str| match name {
            "first_name" => Some("Ann".to_owned()),
            "team" => Some("Sales".to_owned()),
            _ => None,
        };
        let text = "Hi {{p:first_name|there}}: how is {{p:team|your team}} after {{q:trip}}?";
        assert_eq!(
            render(text, |_| Some("Rome".to_owned()), theirs),
            "Hi Ann: how is Sales after Rome?"
        );
        assert_eq!(
            render(text, |_| None, |_| None),
            "Hi there: how is your team after ?"
        );
        assert_eq!(recalled(text).expect("read"), [id("trip")]);
        for (bad, said) in [
            ("{{p:first name}}", "not first_name"),
            ("{{p:}}", "not first_name"),
            ("{{p:team|{{p:x}}}}", "recalls nothing itself"),
            ("{{p:team", "not closed"),
        ] {
            let problem = pieces(bad).expect_err(bad);
            assert!(problem.contains(said), "{bad}: {problem}");
        }
        let many = "{{p:a}}{{q:b}}".repeat(MAX_RECALLS_PER_TEXT / 2 + 1);
        assert!(pieces(&many).is_err());
    }

    #[test]
    fn a_hidden_field_is_its_value_else_the_fallback() {
        let names = vec!["pid".to_owned()];
        let given =
            super::super::hidden::HiddenValues::read(&names, [("pid", "P-77")]).expect("a value");
        let text = "Your id: {{h:pid|unknown}}, source {{h:source|none}}.";
        assert_eq!(
            render_with_hidden(text, |_| None, |_| None, &given),
            "Your id: P-77, source none."
        );
        assert_eq!(
            render(text, |_| None, |_| None),
            "Your id: unknown, source none."
        );
        assert_eq!(hidden_recalled(text), ["pid", "source"]);
        assert_eq!(labelled(text, |_| None), "Your id: [pid], source [source].");
        assert!(
            pieces("{{h:Pid}}")
                .expect_err("bad name")
                .contains("hidden field")
        );
    }

    #[test]
    fn malformed_recalls_are_named() {
        for (text, said) in [
            ("Why {{q:stars?", "not closed"),
            ("Why {{q:Stars}}?", "is not a question id"),
            ("Why {{q:}}?", "is not a question id"),
            ("{{q:a|{{q:b}}}}", "recalls nothing itself"),
            ("{{q:a|\u{7}}}", "control characters"),
        ] {
            let problem = pieces(text).expect_err(text);
            assert!(problem.contains(said), "{text}: {problem}");
        }
        let many = "{{q:a}}".repeat(MAX_RECALLS_PER_TEXT + 1);
        assert!(pieces(&many).is_err());
        assert_eq!(
            recalled("{{q:a}} {{q:b|x}} {{q:a}}").expect("read"),
            [id("a"), id("b")]
        );
    }

    proptest! {
        /// Every recall of a text reads as one bracketed label, whatever surrounds it, and
        /// nothing else of the text changes.
        #[test]
        fn a_labelled_text_shows_each_recall_as_its_label(
            words in proptest::collection::vec("[a-z ,.?]{0,12}", 1..6),
            ids in proptest::collection::vec("[a-z][a-z0-9]{0,7}", 0..5),
        ) {
            let mut text = words[0].clone();
            let mut expected = words[0].clone();
            for (at, id) in ids.iter().enumerate() {
                let after = words.get(at + 1).cloned().unwrap_or_default();
                text.push_str(&format!("{{{{q:{id}}}}}{after}"));
                expected.push_str(&format!("[{}]{after}", id.to_uppercase()));
            }
            let shown = labelled(&text, |q| Some(q.as_str().to_uppercase()));
            prop_assert_eq!(shown.as_ref(), expected.as_str());
            prop_assert!(!shown.contains("{{"));
        }

        /// Rendering never panics, and never leaves a well-formed recall in place.
        #[test]
        fn a_rendered_text_keeps_no_recall(
            words in "[a-z {}|:]{0,40}",
            answer in proptest::option::of("[a-zA-Z0-9 {}]{0,20}"),
        ) {
            let text = format!("{words}{{{{q:q1|fallback}}}}{words}");
            let shown = render(&text, |_| answer.clone(), |_| None);
            let well_formed = pieces(&text).is_ok();
            if well_formed {
                prop_assert!(!shown.contains("{{q:q1"), "{}", shown);
            }
        }
    }
}
