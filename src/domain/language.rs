//! The languages a survey is offered in: BCP 47 tags (`en`, `de`, `pt-BR`), its default
//! first.

use std::fmt;

use serde::{Deserialize, Serialize};

/// Most languages one survey is offered in.
pub const MAX_LANGUAGES: usize = 20;

/// A language tag, in its canonical form (`pt-BR`, not `pt-br`).
#[derive(
    Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, utoipa::ToSchema,
)]
#[serde(try_from = "String", into = "String")]
#[schema(example = "de", max_length = 35)]
pub struct LanguageTag(String);

/// Why a string is not a language tag.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0:?} is not a language tag: use one such as en, de, fr, pt-BR or ar")]
pub struct LanguageTagError(pub String);

impl LanguageTag {
    /// Checks and canonicalizes a tag.
    pub fn parse(text: &str) -> Result<Self, LanguageTagError> {
        let text = text.trim();
        let refused = || LanguageTagError(text.to_owned());
        if text.is_empty() || text.len() > 35 {
            return Err(refused());
        }
        let tag: unic_langid::LanguageIdentifier = text.parse().map_err(|_| refused())?;
        // "und" (undetermined) names no language a respondent could read.
        if tag.language.is_empty() {
            return Err(refused());
        }
        Ok(Self(tag.to_string()))
    }

    /// English, the language of a survey that names none.
    pub fn english() -> Self {
        Self("en".to_owned())
    }

    /// The tag.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl TryFrom<String> for LanguageTag {
    type Error = LanguageTagError;
    fn try_from(text: String) -> Result<Self, Self::Error> {
        Self::parse(&text)
    }
}

impl From<LanguageTag> for String {
    fn from(tag: LanguageTag) -> Self {
        tag.0
    }
}

impl fmt::Display for LanguageTag {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tag_is_checked_and_written_canonically() {
        assert_eq!(
            LanguageTag::parse(" pt-br ").map(String::from),
            Ok("pt-BR".into())
        );
        assert_eq!(LanguageTag::parse("AR").map(String::from), Ok("ar".into()));
        for bad in [
            "",
            "und",
            "english please",
            "e",
            "x-private-only-0123456789-0123456789",
        ] {
            assert!(LanguageTag::parse(bad).is_err(), "{bad:?}");
        }
    }
}
