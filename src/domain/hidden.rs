//! Hidden fields: values a survey's address carries (`/s/TENANT/SURVEY?pid=abc&source=mail`),
//! such as a panel's respondent id, kept through every page and stored with the response. A
//! survey declares their names; the address may carry no others, and each value is bounded in
//! length and characters, so nothing unbounded or unprintable is stored or put in a link.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// Most hidden fields one survey declares.
pub const MAX_HIDDEN_FIELDS: usize = 20;
/// Longest name, in characters (`[a-z][a-z0-9_]{0,31}`).
pub const MAX_NAME: usize = 32;
/// Longest value, in characters: a panel's ids and codes are far shorter.
pub const MAX_VALUE: usize = 200;

/// Names the survey's address uses for itself, which a hidden field may not take.
const RESERVED: [&str; 5] = ["lang", "page", "sig", "participant", "resume"];

/// Whether `name` is a hidden field's name: a lowercase letter, then at most 31 lowercase
/// letters, digits or `_`.
pub fn valid_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|first| first.is_ascii_lowercase())
        && name.len() <= MAX_NAME
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
}

/// What is wrong with a survey's list of hidden field names, at the index of the first wrong
/// one (`None` for the list itself).
pub fn names_problem(names: &[String]) -> Option<(Option<usize>, String)> {
    if names.len() > MAX_HIDDEN_FIELDS {
        return Some((
            None,
            format!("a survey has at most {MAX_HIDDEN_FIELDS} hidden fields"),
        ));
    }
    for (at, name) in names.iter().enumerate() {
        let problem = if !valid_name(name) {
            format!(
                "{name:?} is not a hidden field's name: a lowercase letter, then at most {} \
                 lowercase letters, digits or _",
                MAX_NAME - 1
            )
        } else if RESERVED.contains(&name.as_str()) {
            format!(
                "\"{name}\" is a name the survey's address uses itself: choose another (not {})",
                RESERVED.join(", ")
            )
        } else if names[..at].contains(name) {
            format!("\"{name}\" is named twice")
        } else {
            continue;
        };
        return Some((Some(at), problem));
    }
    None
}

/// Why a value of a hidden field in an address was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ValueProblem {
    /// Longer than `MAX_VALUE` characters.
    #[error("the value of \"{0}\" is longer than {MAX_VALUE} characters")]
    TooLong(String),
    /// Holds a control or invisible formatting character.
    #[error("the value of \"{0}\" holds a control or invisible formatting character")]
    Unprintable(String),
}

/// Whether a character may not stand in a value: control characters, and the invisible ones
/// that reorder or hide text (bidirectional overrides, zero-width characters).
fn unprintable(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{feff}')
}

/// The hidden fields' values of one respondent, by name. Only declared names are ever kept.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(transparent)]
#[schema(value_type = BTreeMap<String, String>, example = json!({"pid": "5f3a9c", "source": "mail"}))]
pub struct HiddenValues(BTreeMap<String, String>);

impl HiddenValues {
    /// The values of the `declared` fields among `pairs` (an address's query or a form's
    /// fields, names as given): the first non-blank value of each, trimmed. Other names are
    /// left alone (they are the address's own, or nothing of the survey's).
    pub fn read<'a>(
        declared: &[String],
        pairs: impl IntoIterator<Item = (&'a str, &'a str)>,
    ) -> Result<Self, ValueProblem> {
        let mut values = BTreeMap::new();
        if declared.is_empty() {
            return Ok(Self(values));
        }
        for (name, value) in pairs {
            let value = value.trim();
            if value.is_empty() || values.contains_key(name) {
                continue;
            }
            let Some(name) = declared.iter().find(|d| d.as_str() == name) else {
                continue;
            };
            if value.chars().count() > MAX_VALUE {
                return Err(ValueProblem::TooLong(name.clone()));
            }
            if value.chars().any(unprintable) {
                return Err(ValueProblem::Unprintable(name.clone()));
            }
            values.insert(name.clone(), value.to_owned());
        }
        Ok(Self(values))
    }

    /// The value of field `name`, if the respondent's address gave one.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.0.get(name).map(String::as_str)
    }

    /// Whether none was given.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Each name and value, by name.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> {
        self.0
            .iter()
            .map(|(name, value)| (name.as_str(), value.as_str()))
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn names(list: &[&str]) -> Vec<String> {
        list.iter().map(|name| (*name).to_owned()).collect()
    }

    #[test]
    fn names_are_short_lowercase_and_not_the_addresss_own() {
        assert!(valid_name("pid") && valid_name("utm_source") && valid_name("a1"));
        for bad in [
            "",
            "Pid",
            "1pid",
            "p-id",
            "p.id",
            "é",
            &"a".repeat(MAX_NAME + 1),
        ] {
            assert!(!valid_name(bad), "{bad}");
        }
        assert_eq!(names_problem(&names(&["pid", "source"])), None);
        let (at, said) = names_problem(&names(&["pid", "lang"])).expect("reserved");
        assert_eq!(at, Some(1));
        assert!(said.contains("uses itself"), "{said}");
        let (at, said) = names_problem(&names(&["pid", "pid"])).expect("twice");
        assert_eq!((at, said.contains("twice")), (Some(1), true));
        let many: Vec<String> = (0..=MAX_HIDDEN_FIELDS).map(|n| format!("f{n}")).collect();
        assert_eq!(names_problem(&many).map(|(at, _)| at), Some(None));
    }

    #[test]
    fn only_declared_names_are_read_each_bounded() {
        let declared = names(&["pid", "source"]);
        let read = HiddenValues::read(
            &declared,
            [
                ("pid", " abc "),
                ("other", "x"),
                ("source", ""),
                ("pid", "second"),
            ],
        )
        .expect("read");
        assert_eq!(read.iter().collect::<Vec<_>>(), [("pid", "abc")]);
        let long = "x".repeat(MAX_VALUE + 1);
        assert_eq!(
            HiddenValues::read(&declared, [("pid", long.as_str())]),
            Err(ValueProblem::TooLong("pid".into()))
        );
        for bad in ["a\u{0}b", "a\nb", "a\u{202e}b", "a\u{200b}b"] {
            assert_eq!(
                HiddenValues::read(&declared, [("source", bad)]),
                Err(ValueProblem::Unprintable("source".into())),
                "{bad:?}"
            );
        }
        assert!(
            HiddenValues::read(&[], [("pid", "abc")])
                .expect("none")
                .is_empty()
        );
    }

    proptest! {
        /// Whatever an address carries, what is kept is declared, bounded and printable.
        #[test]
        fn what_is_kept_is_declared_bounded_and_printable(
            pairs in proptest::collection::vec(("[a-z]{1,3}", "\\PC{0,250}"), 0..8),
        ) {
            let declared = names(&["a", "ab", "abc"]);
            let given: Vec<(&str, &str)> =
                pairs.iter().map(|(n, v)| (n.as_str(), v.as_str())).collect();
            if let Ok(kept) = HiddenValues::read(&declared, given) {
                for (name, value) in kept.iter() {
                    prop_assert!(declared.iter().any(|d| d == name));
                    prop_assert!(!value.is_empty() && value.chars().count() <= MAX_VALUE);
                    prop_assert!(!value.chars().any(unprintable));
                }
            }
        }
    }
}
