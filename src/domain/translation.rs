//! A survey's texts in its other languages: each owner text has a key (`title`,
//! `q:overall:text`, `q:drink:option:2`, `page:1:title`), and a translation gives some of them
//! in one language. What is not translated is shown in the default language, text by text;
//! answers keep the default language's option labels, so every language pools into one summary.

use std::collections::BTreeMap;

use super::answer::has_control_characters;
use super::language::LanguageTag;
use super::logic::PageLayout;
use super::question::{Question, QuestionKind};

/// Longest translated text.
pub const MAX_TRANSLATED_TEXT: usize = 2_000;

/// What is wrong, by field (the definition's errors).
type Problems = BTreeMap<String, String>;

/// Per language (never the default), the translated texts by key.
pub type Translations = BTreeMap<LanguageTag, BTreeMap<String, String>>;

/// Every owner text of a survey, by key, in the order a translator reads them, with its text
/// in the default language.
pub fn owner_texts(
    title: &str,
    description: Option<&str>,
    questions: &[Question],
    layout: &[PageLayout],
    thank_you: Option<&str>,
    closed_message: Option<&str>,
) -> Vec<(String, String)> {
    let mut texts = vec![("title".to_owned(), title.to_owned())];
    let optional = |texts: &mut Vec<(String, String)>, key: String, text: Option<&str>| {
        if let Some(text) = text.filter(|t| !t.is_empty()) {
            texts.push((key, text.to_owned()));
        }
    };
    optional(&mut texts, "description".into(), description);
    for (index, page) in layout.iter().enumerate() {
        optional(
            &mut texts,
            format!("page:{index}:title"),
            page.title.as_deref(),
        );
        optional(
            &mut texts,
            format!("page:{index}:description"),
            page.description.as_deref(),
        );
    }
    for question in questions {
        let id = &question.id;
        texts.push((format!("q:{id}:text"), question.text.clone()));
        let listed = |texts: &mut Vec<(String, String)>, part: &str, items: &[String]| {
            for (at, item) in items.iter().enumerate() {
                texts.push((format!("q:{id}:{part}:{at}"), item.clone()));
            }
        };
        match &question.kind {
            QuestionKind::Matrix { rows, columns } => {
                listed(&mut texts, "row", rows);
                listed(&mut texts, "column", columns);
            }
            QuestionKind::Scale {
                min_label,
                max_label,
                ..
            } => {
                optional(
                    &mut texts,
                    format!("q:{id}:min_label"),
                    min_label.as_deref(),
                );
                optional(
                    &mut texts,
                    format!("q:{id}:max_label"),
                    max_label.as_deref(),
                );
            }
            kind => listed(&mut texts, "option", kind.options()),
        }
    }
    optional(&mut texts, "thank_you".into(), thank_you);
    optional(&mut texts, "closed_message".into(), closed_message);
    texts
}

/// Checks translations sent for a survey offered in `languages` (its default first) whose
/// texts are `texts` (from `owner_texts`): each language one of the others, each key one of
/// its texts, each text at most 2,000 characters without control characters. Blank texts are
/// dropped (shown in the default language). What is wrong goes to `errors` by field
/// (`translations.de.q:overall:text`).
pub fn check(
    sent: &BTreeMap<String, BTreeMap<String, String>>,
    languages: &[LanguageTag],
    texts: &[(String, String)],
    errors: &mut Problems,
) -> Translations {
    let mut kept = Translations::new();
    for (language, given) in sent {
        let field = format!("translations.{language}");
        let tag = match LanguageTag::parse(language) {
            Ok(tag) => tag,
            Err(problem) => {
                errors.insert(field, problem.to_string());
                continue;
            }
        };
        match languages.iter().position(|offered| *offered == tag) {
            Some(0) => {
                errors.insert(
                    field,
                    format!(
                        "{tag} is the survey's default language: its texts are the survey's own"
                    ),
                );
                continue;
            }
            None => {
                errors.insert(
                    field,
                    format!(
                        "{tag} is not one of the survey's languages: add it to languages first"
                    ),
                );
                continue;
            }
            Some(_) => {}
        }
        let mut texts_of_language = BTreeMap::new();
        for (key, text) in given {
            let field = format!("translations.{tag}.{key}");
            if !texts.iter().any(|(known, _)| known == key) {
                errors.insert(field, "the survey has no text by this key".into());
                continue;
            }
            let text = text.trim();
            if text.chars().count() > MAX_TRANSLATED_TEXT {
                errors.insert(
                    field,
                    format!("a translated text is at most {MAX_TRANSLATED_TEXT} characters"),
                );
            } else if has_control_characters(text) {
                errors.insert(field, "remove the control characters".into());
            } else if !text.is_empty() {
                texts_of_language.insert(key.clone(), text.to_owned());
            }
        }
        if !texts_of_language.is_empty() {
            kept.insert(tag, texts_of_language);
        }
    }
    kept
}

/// The text by `key` in `language`: its translation, else `default` (never a blank).
pub fn text_in<'a>(
    translations: &'a Translations,
    language: &str,
    key: &str,
    default: &'a str,
) -> &'a str {
    translations
        .iter()
        .find(|(tag, _)| tag.as_str() == language)
        .and_then(|(_, texts)| texts.get(key))
        .map_or(default, String::as_str)
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::domain::QuestionId;

    fn question(id: &str, kind: QuestionKind) -> Question {
        Question {
            id: QuestionId::parse(id).expect("an id"),
            text: format!("Question {id}?"),
            required: false,
            kind,
            show_if: None,
            segment: false,
        }
    }

    fn sample() -> Vec<(String, String)> {
        let questions = [
            question(
                "drink",
                QuestionKind::SingleChoice {
                    options: vec!["Tea".into(), "Coffee".into()],
                    other: false,
                },
            ),
            question(
                "grid",
                QuestionKind::Matrix {
                    rows: vec!["Food".into()],
                    columns: vec!["Good".into(), "Poor".into()],
                },
            ),
        ];
        owner_texts(
            "Lunch",
            Some("Tell us"),
            &questions,
            &[],
            Some("Thanks!"),
            None,
        )
    }

    #[test]
    fn every_owner_text_has_a_key() {
        let keys: Vec<String> = sample().into_iter().map(|(key, _)| key).collect();
        assert_eq!(
            keys,
            [
                "title",
                "description",
                "q:drink:text",
                "q:drink:option:0",
                "q:drink:option:1",
                "q:grid:text",
                "q:grid:row:0",
                "q:grid:column:0",
                "q:grid:column:1",
                "thank_you",
            ]
        );
    }

    #[test]
    fn translations_name_only_other_languages_and_known_texts() {
        let languages = ["en", "de"].map(|t| LanguageTag::parse(t).expect("a tag"));
        let sent: BTreeMap<String, BTreeMap<String, String>> = [
            (
                "de",
                vec![
                    ("title", " Mittag "),
                    ("q:nope:text", "x"),
                    ("description", " "),
                ],
            ),
            ("en", vec![("title", "Lunch")]),
            ("fr", vec![("title", "Déjeuner")]),
        ]
        .into_iter()
        .map(|(language, texts)| {
            let texts = texts
                .into_iter()
                .map(|(k, t)| (k.to_owned(), t.to_owned()))
                .collect();
            (language.to_owned(), texts)
        })
        .collect();
        let mut errors = Problems::new();
        let kept = check(&sent, &languages, &sample(), &mut errors);
        assert_eq!(kept.len(), 1);
        let german = &kept[&languages[1]];
        assert_eq!(german.get("title").map(String::as_str), Some("Mittag"));
        assert!(
            !german.contains_key("description"),
            "a blank is no translation"
        );
        assert!(errors["translations.de.q:nope:text"].contains("no text by this key"));
        assert!(errors["translations.en"].contains("default language"));
        assert!(errors["translations.fr"].contains("not one of the survey's languages"));
    }

    proptest! {
        /// For any subset of translated texts, every text shown is the chosen language's
        /// translation or the default's, and never blank.
        #[test]
        fn a_text_is_its_translation_or_the_default_and_never_blank(
            translated in proptest::collection::vec(any::<bool>(), 10),
            words in proptest::collection::vec("[a-zA-Z ]{0,12}", 10),
            language in prop::sample::select(vec!["en", "de", "ar"]),
        ) {
            let languages = ["en", "de", "ar"].map(|t| LanguageTag::parse(t).expect("a tag"));
            let texts = sample();
            let given: BTreeMap<String, String> = texts
                .iter()
                .zip(translated.iter().zip(&words))
                .filter(|(_, (yes, _))| **yes)
                .map(|((key, _), (_, word))| (key.clone(), word.clone()))
                .collect();
            let sent = BTreeMap::from([("de".to_owned(), given.clone())]);
            let mut errors = Problems::new();
            let kept = check(&sent, &languages, &texts, &mut errors);
            prop_assert!(errors.is_empty(), "{errors:?}");
            for (key, default) in &texts {
                let shown = text_in(&kept, language, key, default);
                prop_assert!(!shown.trim().is_empty());
                let translation = given.get(key).map(|t| t.trim()).filter(|t| !t.is_empty());
                match (language, translation) {
                    ("de", Some(translated)) => prop_assert_eq!(shown, translated),
                    _ => prop_assert_eq!(shown, default.as_str()),
                }
            }
        }
    }
}
