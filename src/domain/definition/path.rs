//! Where in a definition a problem is, as a typed position: the checks name fields the way the
//! JSON API does (`pages[1].questions[0].options`), and the designer, which shows every
//! question in one list, moves a position from a page's question to the list's block without
//! taking strings apart by hand.

use std::fmt;

/// A field of a definition.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FieldPath {
    /// `questions[index]`, then `rest` (empty, or `.text`, `.options`, ...).
    Question {
        /// The question's place among all questions (or among the form's blocks).
        index: usize,
        /// What follows, from its dot.
        rest: String,
    },
    /// `pages[page].questions[index]`, then `rest`.
    PageQuestion {
        /// The page's place.
        page: usize,
        /// The question's place on its page.
        index: usize,
        /// What follows, from its dot.
        rest: String,
    },
    /// `pages[page]`, then `rest` (a page's own field: its jumps, its condition).
    Page {
        /// The page's place.
        page: usize,
        /// What follows, from its dot.
        rest: String,
    },
    /// Any other field (`title`, `description`, ...).
    Other(String),
}

/// `name[N]` at the start of `text`: N and what follows.
fn indexed<'a>(text: &'a str, name: &str) -> Option<(usize, &'a str)> {
    let rest = text.strip_prefix(name)?.strip_prefix('[')?;
    let (number, rest) = rest.split_once(']')?;
    Some((number.parse().ok()?, rest))
}

impl FieldPath {
    /// Reads a field name as the checks write it.
    pub fn parse(text: &str) -> Self {
        if let Some((index, rest)) = indexed(text, "questions") {
            return Self::Question {
                index,
                rest: rest.to_owned(),
            };
        }
        if let Some((page, rest)) = indexed(text, "pages") {
            return match rest.strip_prefix('.').and_then(|r| indexed(r, "questions")) {
                Some((index, rest)) => Self::PageQuestion {
                    page,
                    index,
                    rest: rest.to_owned(),
                },
                None => Self::Page {
                    page,
                    rest: rest.to_owned(),
                },
            };
        }
        Self::Other(text.to_owned())
    }

    /// The same field with questions counted over every page (`page_sizes`: each page's
    /// number of questions); a page's own field is shown at its first question, as `pages`.
    pub fn flattened(self, page_sizes: &[usize]) -> Self {
        let before = |page: usize| page_sizes.iter().take(page).sum::<usize>();
        match self {
            Self::PageQuestion { page, index, rest } => Self::Question {
                index: before(page) + index,
                rest,
            },
            Self::Page { page, .. } => Self::Question {
                index: before(page),
                rest: ".pages".into(),
            },
            other => other,
        }
    }

    /// The same field with a question's place mapped through `kept` (the form's block of
    /// each question that was kept, in order); a place past it stays.
    pub fn renumbered(self, kept: &[usize]) -> Self {
        match self {
            Self::Question { index, rest } => Self::Question {
                index: kept.get(index).copied().unwrap_or(index),
                rest,
            },
            other => other,
        }
    }
}

impl fmt::Display for FieldPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Question { index, rest } => write!(f, "questions[{index}]{rest}"),
            Self::PageQuestion { page, index, rest } => {
                write!(f, "pages[{page}].questions[{index}]{rest}")
            }
            Self::Page { page, rest } => write!(f, "pages[{page}]{rest}"),
            Self::Other(text) => f.write_str(text),
        }
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    #[test]
    fn a_page_question_becomes_its_place_in_the_list_and_then_its_block() {
        let sizes = [2, 3, 1];
        let field = FieldPath::parse("pages[1].questions[2].options").flattened(&sizes);
        assert_eq!(field.to_string(), "questions[4].options");
        assert_eq!(
            field.renumbered(&[0, 1, 3, 5, 6, 7]).to_string(),
            "questions[6].options"
        );
        assert_eq!(
            FieldPath::parse("pages[2].jumps[0]")
                .flattened(&sizes)
                .to_string(),
            "questions[5].pages"
        );
        assert_eq!(
            FieldPath::parse("title")
                .flattened(&sizes)
                .renumbered(&[])
                .to_string(),
            "title"
        );
        assert_eq!(
            FieldPath::parse("questions[9]")
                .renumbered(&[0, 2])
                .to_string(),
            "questions[9]"
        );
        assert_eq!(
            FieldPath::parse("pages[x].title"),
            FieldPath::Other("pages[x].title".into())
        );
    }

    proptest! {
        #[test]
        fn every_field_name_reads_back_as_written(
            page in 0usize..60,
            index in 0usize..120,
            rest in prop::sample::select(vec!["", ".text", ".options", ".show_if.value"]),
            kind in 0u8..4,
        ) {
            let text = match kind {
                0 => format!("questions[{index}]{rest}"),
                1 => format!("pages[{page}].questions[{index}]{rest}"),
                2 => format!("pages[{page}]{rest}"),
                _ => format!("title{rest}"),
            };
            prop_assert_eq!(FieldPath::parse(&text).to_string(), text);
        }

        #[test]
        fn flattening_counts_the_questions_of_the_pages_before(
            sizes in prop::collection::vec(0usize..10, 1..8),
            page_pick in 0usize..8,
            index in 0usize..10,
        ) {
            let page = page_pick % sizes.len();
            let flat = FieldPath::PageQuestion { page, index, rest: String::new() }.flattened(&sizes);
            let before: usize = sizes[..page].iter().sum();
            prop_assert_eq!(flat, FieldPath::Question { index: before + index, rest: String::new() });
        }
    }
}
