//! Slugs: the short, URL-safe names of tenants and surveys, checked once at the edge.

use std::fmt;

use serde::{Deserialize, Serialize};

/// Longest slug accepted.
pub const MAX_SLUG_LEN: usize = 60;

/// Why a string is not a slug.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0:?} is not a valid name: use 1-60 lowercase letters, digits and single dashes")]
pub struct SlugError(pub String);

fn is_slug(text: &str) -> bool {
    let bytes = text.as_bytes();
    (1..=MAX_SLUG_LEN).contains(&bytes.len())
        && bytes
            .iter()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || *b == b'-')
        && bytes.first() != Some(&b'-')
        && bytes.last() != Some(&b'-')
        && !text.contains("--")
}

/// Turns a title into a slug: lowercase ASCII letters and digits joined by single dashes.
/// Returns `None` when the title has no letter or digit to keep.
pub fn slugify(title: &str) -> Option<String> {
    // Letters of other scripts and accents become their closest ASCII ("Café" → "cafe")
    // rather than being dropped.
    let ascii = deunicode::deunicode(title);
    let mut slug = String::new();
    for word in ascii
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|word| !word.is_empty())
    {
        let room = MAX_SLUG_LEN.saturating_sub(slug.len() + usize::from(!slug.is_empty()));
        if room == 0 {
            break;
        }
        if !slug.is_empty() {
            slug.push('-');
        }
        slug.extend(word.chars().take(room).map(|c| c.to_ascii_lowercase()));
    }
    (!slug.is_empty()).then_some(slug)
}

macro_rules! slug_type {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, utoipa::ToSchema)]
        #[serde(try_from = "String", into = "String")]
        #[schema(pattern = "^[a-z0-9]+(-[a-z0-9]+)*$", max_length = 60)]
        pub struct $name(String);

        impl $name {
            /// Checks a slug.
            pub fn parse(text: &str) -> Result<Self, SlugError> {
                if is_slug(text) {
                    Ok(Self(text.to_owned()))
                } else {
                    Err(SlugError(text.to_owned()))
                }
            }

            /// The slug.
            pub fn as_str(&self) -> &str {
                &self.0
            }
        }

        impl TryFrom<String> for $name {
            type Error = SlugError;

            fn try_from(text: String) -> Result<Self, SlugError> {
                Self::parse(&text)
            }
        }

        impl From<$name> for String {
            fn from(slug: $name) -> String {
                slug.0
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }
    };
}

slug_type!(
    /// A tenant's slug, as in `/s/{tenant}`.
    TenantSlug
);
slug_type!(
    /// A survey's slug, unique within its tenant, as in `/s/{tenant}/{survey}`.
    SurveySlug
);

impl SurveySlug {
    /// The slug for a title, made unique with a numeric suffix when `taken` says so.
    pub fn for_title(title: &str, taken: impl Fn(&str) -> bool) -> SurveySlug {
        let base = slugify(title).unwrap_or_else(|| "survey".to_owned());
        let mut candidate = base.clone();
        let mut n = 2;
        while taken(&candidate) {
            let suffix = format!("-{n}");
            let keep = base.len().min(MAX_SLUG_LEN - suffix.len());
            candidate = format!("{}{suffix}", base[..keep].trim_end_matches('-'));
            n += 1;
        }
        SurveySlug(candidate)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn names_in_any_script_become_readable_addresses() {
        for (name, slug) in [
            ("Café", "cafe"),
            ("Bean There Café", "bean-there-cafe"),
            ("Zürich Ölmühle", "zurich-olmuhle"),
            ("Crème brûlée & co.", "creme-brulee-co"),
            ("Αθήνα", "athena"),
        ] {
            assert_eq!(slugify(name).as_deref(), Some(slug), "{name}");
        }
    }

    #[test]
    fn slugs_accept_lowercase_words_joined_by_dashes() {
        for (text, ok) in [
            ("acme", true),
            ("acme-2", true),
            ("a", true),
            ("", false),
            ("Acme", false),
            ("-acme", false),
            ("acme-", false),
            ("ac--me", false),
            ("ac me", false),
            ("acmé", false),
            ("../etc", false),
        ] {
            assert_eq!(TenantSlug::parse(text).is_ok(), ok, "case {text:?}");
        }
        assert!(TenantSlug::parse(&"a".repeat(61)).is_err());
    }

    #[test]
    fn titles_become_slugs() {
        for (title, slug) in [
            (
                "Customer Satisfaction 2026",
                Some("customer-satisfaction-2026"),
            ),
            ("  What's new?! ", Some("what-s-new")),
            ("Café au lait", Some("cafe-au-lait")),
            ("<script>alert(1)</script>", Some("script-alert-1-script")),
            ("???", None),
        ] {
            assert_eq!(slugify(title).as_deref(), slug, "case {title:?}");
        }
    }

    #[test]
    fn a_taken_slug_gets_a_numeric_suffix() {
        let taken = ["team-survey", "team-survey-2"];
        let slug = SurveySlug::for_title("Team survey", |s| taken.contains(&s));
        assert_eq!(slug.as_str(), "team-survey-3");
        assert_eq!(SurveySlug::for_title("!!!", |_| false).as_str(), "survey");
    }

    proptest! {
        #[test]
        fn parsing_never_panics_and_slugify_always_parses(text in "\\PC{0,80}") {
            let _ = TenantSlug::parse(&text);
            if let Some(slug) = slugify(&text) {
                prop_assert!(SurveySlug::parse(&slug).is_ok(), "{slug:?}");
            }
            // Every candidate taken until the seventh: suffixes on any title still parse.
            let unique = SurveySlug::for_title(&text, |s| !s.ends_with("-7"));
            prop_assert!(SurveySlug::parse(unique.as_str()).is_ok());
            prop_assert!(unique.as_str().ends_with("-7"));
        }
    }
}
