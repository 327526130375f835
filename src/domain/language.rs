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
pub enum LanguageTagError {
    /// A language's English name where its tag belongs (`French`).
    #[error("{0:?} is a language's name, not its tag: use {1}")]
    Name(String, String),
    /// Not a tag, or one whose language ISO 639 does not know.
    #[error("{0:?} is not a language tag: use one such as en, de, fr, pt-BR or ar")]
    Unknown(String),
}

impl LanguageTag {
    /// Checks and canonicalizes a tag: well formed (BCP 47, read by `unic-langid`), and its
    /// language one that ISO 639 knows (so `French` or `xx` is refused, not offered to
    /// respondents as a language nobody reads).
    pub fn parse(text: &str) -> Result<Self, LanguageTagError> {
        let text = text.trim();
        let refused = || match named(text) {
            Some(tag) => LanguageTagError::Name(text.to_owned(), tag),
            None => LanguageTagError::Unknown(text.to_owned()),
        };
        if text.is_empty() || text.len() > 35 {
            return Err(refused());
        }
        let tag: unic_langid::LanguageIdentifier = text.parse().map_err(|_| refused())?;
        // "und" (undetermined) names no language a respondent could read.
        if tag.language.is_empty() || known(tag.language.as_str()).is_none() {
            return Err(refused());
        }
        Ok(Self(tag.to_string()))
    }

    /// The language's name in English (`German`), for a tag ISO 639 knows.
    pub fn english_name(&self) -> Option<&'static str> {
        known(self.primary()).map(|language| language.to_name())
    }

    /// The language's name in itself (`Deutsch`), where ISO 639's list of autonyms has it.
    pub fn autonym(&self) -> Option<&'static str> {
        known(self.primary()).and_then(|language| language.to_autonym())
    }

    /// The primary language subtag (`pt` of `pt-BR`).
    fn primary(&self) -> &str {
        self.0.split('-').next().unwrap_or(&self.0)
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

/// A language a survey may be offered in, as the languages picker lists it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KnownLanguage {
    /// Its tag (`de`).
    pub tag: &'static str,
    /// Its name in English (`German`).
    pub english: &'static str,
    /// Its name in itself (`Deutsch`), where known.
    pub autonym: Option<&'static str>,
}

/// Every language ISO 639-1 has a two-letter tag for (about 180), by English name: the list
/// owners pick a survey's languages from (any other valid tag can still be typed).
pub fn known_languages() -> &'static [KnownLanguage] {
    &KNOWN
}

/// `known_languages`, listed once.
static KNOWN: std::sync::LazyLock<Vec<KnownLanguage>> = std::sync::LazyLock::new(|| {
    let mut known: Vec<KnownLanguage> = isolang::languages()
        .filter_map(|language| {
            Some(KnownLanguage {
                tag: language.to_639_1()?,
                english: language.to_name(),
                autonym: language.to_autonym(),
            })
        })
        .collect();
    known.sort_by(|a, b| a.english.cmp(b.english));
    known
});

/// The ISO 639 language of a primary subtag (two letters: 639-1; three: 639-3).
fn known(primary: &str) -> Option<isolang::Language> {
    match primary.len() {
        2 => isolang::Language::from_639_1(primary),
        3 => isolang::Language::from_639_3(primary),
        _ => None,
    }
}

/// The tag of a language named in English (`french` → `fr`), for a clearer refusal.
fn named(text: &str) -> Option<String> {
    let text = text.to_owned();
    let language =
        isolang::Language::match_names(move |name| name.eq_ignore_ascii_case(&text)).next()?;
    Some(
        language
            .to_639_1()
            .unwrap_or(language.to_639_3())
            .to_owned(),
    )
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
            "xx",
            "qqq-DE",
        ] {
            assert!(LanguageTag::parse(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn a_languages_name_is_refused_with_its_tag() {
        assert_eq!(
            LanguageTag::parse("French").map_err(|e| e.to_string()),
            Err(r#""French" is a language's name, not its tag: use fr"#.into())
        );
        assert_eq!(
            LanguageTag::parse("hawaiian").map_err(|e| e.to_string()),
            Err(r#""hawaiian" is a language's name, not its tag: use haw"#.into())
        );
    }

    #[test]
    fn the_picker_lists_each_two_letter_language_once_by_english_name() {
        let known = known_languages();
        assert!(known.len() > 150, "{}", known.len());
        assert!(
            known
                .windows(2)
                .all(|pair| pair[0].english <= pair[1].english)
        );
        let tags: std::collections::HashSet<_> = known.iter().map(|k| k.tag).collect();
        assert_eq!(tags.len(), known.len());
        for shipped in ["en", "de", "fr", "es", "pt", "pl", "ja", "ar"] {
            assert!(tags.contains(shipped), "{shipped}");
            assert!(LanguageTag::parse(shipped).is_ok());
        }
    }

    #[test]
    fn a_known_tag_has_its_names() {
        let tag = LanguageTag::parse("pt-BR").expect("a tag");
        assert_eq!(tag.english_name(), Some("Portuguese"));
        assert_eq!(tag.autonym(), Some("português"));
        let swahili = LanguageTag::parse("sw").expect("a tag");
        assert_eq!(swahili.english_name(), Some("Swahili"));
    }
}
