//! Texts given in place per language: in a survey sent as JSON, any owner text may be an
//! object of language to text (`"text": {"en": "How was it?", "de": "Wie war es?"}`). Each is
//! replaced by its default language's text (the survey's first language, else English), and
//! the other languages' texts are kept by the field they were given at, for the check to file
//! under their text keys. A key no field takes (a misspelled `"reqired"`, a setting this
//! version does not have) is a problem at that key: nothing is saved, rather than the setting
//! silently doing nothing.

use std::collections::BTreeMap;

use serde::{Deserialize, Deserializer};
use serde_json::Value;

use super::{DefinitionErrors, SurveyInput};
use crate::domain::language::LanguageTag;

/// An owner text as the JSON API takes it (for the schema): a string in the survey's default
/// language, or an object of language tag to text.
#[derive(Deserialize, utoipa::ToSchema)]
#[serde(untagged)]
pub enum LocalizedText {
    /// The text in the survey's default language.
    Text(String),
    /// The text per language (`{"en": "How was it?", "de": "Wie war es?"}`); the default
    /// language's is required.
    PerLanguage(BTreeMap<String, String>),
}

/// A survey as the JSON API reads it: its texts may be given per language in place.
pub struct LocalizedInput(pub SurveyInput);

impl<'de> Deserialize<'de> for LocalizedInput {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let mut body = Value::deserialize(deserializer)?;
        let (localized, mut problems) = split(&mut body);
        let mut unknown = Vec::new();
        let mut input: SurveyInput =
            serde_ignored::deserialize(body, |path| unknown.push(field_of(&path)))
                .map_err(serde::de::Error::custom)?;
        for field in unknown {
            if !READ_ONLY.contains(&field.as_str()) {
                problems.insert(field, UNKNOWN.into());
            }
        }
        input.localized = localized;
        input.localized_problems = problems;
        Ok(Self(input))
    }
}

/// What a key no field takes is told.
const UNKNOWN: &str = "no such field: check its spelling (nothing was saved)";

/// The keys of a survey as the API sends it that are not part of a definition: a survey read
/// and sent back as it is may carry them, and they are left as they are.
const READ_ONLY: [&str; 8] = [
    "tenant",
    "slug",
    "id",
    "published",
    "state",
    "version",
    "created",
    "updated",
];

/// A key's place as the API's field names say it (`questions[0].reqired`).
fn field_of(path: &serde_ignored::Path<'_>) -> String {
    use serde_ignored::Path;
    match path {
        Path::Root => String::new(),
        Path::Seq { parent, index } => format!("{}[{index}]", field_of(parent)),
        Path::Map { parent, key } => match field_of(parent) {
            above if above.is_empty() => key.clone(),
            above => format!("{above}.{key}"),
        },
        Path::Some { parent }
        | Path::NewtypeStruct { parent }
        | Path::NewtypeVariant { parent } => field_of(parent),
    }
}

/// The fields of a question that hold owner texts: single texts, then lists of texts.
const QUESTION_TEXTS: [&str; 4] = ["text", "help", "min_label", "max_label"];
const QUESTION_LISTS: [&str; 3] = ["options", "rows", "columns"];

/// Replaces each text given per language in `body` by its default language's text; returns
/// the texts of the other languages by field, and what was wrong.
pub fn split(body: &mut Value) -> (BTreeMap<String, BTreeMap<String, String>>, DefinitionErrors) {
    let default = body
        .get("languages")
        .and_then(|languages| languages.get(0))
        .and_then(Value::as_str)
        .and_then(|tag| LanguageTag::parse(tag).ok())
        .unwrap_or_else(LanguageTag::english);
    let mut split = Split {
        default,
        found: BTreeMap::new(),
        problems: DefinitionErrors::new(),
    };
    for field in ["title", "description", "thank_you", "closed_message"] {
        split.text(body, field, field.to_owned());
    }
    split.questions(body, "questions");
    if let Some(quotas) = body.get_mut("quotas").and_then(Value::as_array_mut) {
        for (index, quota) in quotas.iter_mut().enumerate() {
            split.text(quota, "message", format!("quotas[{index}].message"));
        }
    }
    if let Some(pages) = body.get_mut("pages").and_then(Value::as_array_mut) {
        for (index, page) in pages.iter_mut().enumerate() {
            for field in ["title", "description"] {
                split.text(page, field, format!("pages[{index}].{field}"));
            }
            split.questions(page, &format!("pages[{index}].questions"));
        }
    }
    (split.found, split.problems)
}

struct Split {
    default: LanguageTag,
    found: BTreeMap<String, BTreeMap<String, String>>,
    problems: DefinitionErrors,
}

impl Split {
    fn questions(&mut self, parent: &mut Value, path: &str) {
        let field = path.rsplit('.').next().unwrap_or(path);
        let Some(questions) = parent.get_mut(field).and_then(Value::as_array_mut) else {
            return;
        };
        for (index, question) in questions.iter_mut().enumerate() {
            for field in QUESTION_TEXTS {
                self.text(question, field, format!("{path}[{index}].{field}"));
            }
            for field in QUESTION_LISTS {
                let Some(items) = question.get_mut(field).and_then(Value::as_array_mut) else {
                    continue;
                };
                for (at, item) in items.iter_mut().enumerate() {
                    self.value(item, format!("{path}[{index}].{field}[{at}]"));
                }
            }
        }
    }

    fn text(&mut self, parent: &mut Value, field: &str, path: String) {
        if let Some(value) = parent.get_mut(field) {
            self.value(value, path);
        }
    }

    /// A text given per language becomes its default language's text.
    fn value(&mut self, value: &mut Value, path: String) {
        let Value::Object(by_language) = value else {
            return;
        };
        let mut default_text = None;
        let mut others = BTreeMap::new();
        for (language, text) in by_language.iter() {
            let Some(text) = text.as_str() else {
                self.problems
                    .insert(path.clone(), "each language's text is a string".into());
                continue;
            };
            match LanguageTag::parse(language) {
                Ok(tag) if tag == self.default => default_text = Some(text.to_owned()),
                Ok(tag) => {
                    others.insert(tag.to_string(), text.to_owned());
                }
                Err(problem) => {
                    self.problems.insert(path.clone(), problem.to_string());
                }
            }
        }
        if default_text.is_none() {
            self.problems.insert(
                path.clone(),
                format!(
                    "give its {} text too: the survey's default language (its first)",
                    self.default
                ),
            );
        }
        // Stands in for the missing default text, so that only its absence is reported.
        let stand_in = default_text.or_else(|| others.values().next().cloned());
        *value = Value::String(stand_in.unwrap_or_default());
        if !others.is_empty() {
            self.found.insert(path, others);
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_text_per_language_leaves_its_default_in_place_and_the_rest_by_field() {
        let mut body = json!({
            "title": {"en": "Trip", "de": "Reise"},
            "languages": ["en", "de"],
            "questions": [{"text": {"de": "Wie?", "en": "How?"}, "options": ["A", {"en": "B", "DE": "Be"}]}],
            "pages": [{"title": {"de": "Seite"}, "questions": [{"text": "Plain"}]}],
        });
        let (found, problems) = split(&mut body);
        assert_eq!(body["title"], "Trip");
        assert_eq!(body["questions"][0]["text"], "How?");
        assert_eq!(body["questions"][0]["options"], json!(["A", "B"]));
        assert_eq!(found["title"]["de"], "Reise");
        assert_eq!(found["questions[0].options[1]"]["de"], "Be");
        assert_eq!(body["pages"][0]["title"], "Seite");
        assert!(
            problems["pages[0].title"].contains("give its en text too"),
            "{problems:?}"
        );
    }
}
