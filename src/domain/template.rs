//! Survey templates: the gallery's ready surveys for common needs (satisfaction, NPS, event
//! feedback, a research questionnaire...), each written once with every text in the site's
//! eight languages, and turned into a definition in the one language an owner picks. The
//! surveys are data, one file each in `survey-templates/`, compiled in.

use std::sync::LazyLock;

use serde::Deserialize;
use serde_json::Value;

use super::definition::{Definition, SurveyInput};
use super::language::LanguageTag;

/// The languages every template is written in: the site's own eight, English first.
pub const LANGUAGES: [&str; 8] = ["en", "de", "fr", "es", "pt", "pl", "ja", "ar"];

/// The templates' files, in the gallery's order.
const SOURCES: [&str; 12] = [
    include_str!("../../survey-templates/customer-satisfaction.json"),
    include_str!("../../survey-templates/nps.json"),
    include_str!("../../survey-templates/event-feedback.json"),
    include_str!("../../survey-templates/course-evaluation.json"),
    include_str!("../../survey-templates/employee-engagement.json"),
    include_str!("../../survey-templates/product-market-fit.json"),
    include_str!("../../survey-templates/market-research.json"),
    include_str!("../../survey-templates/registration.json"),
    include_str!("../../survey-templates/feedback-360.json"),
    include_str!("../../survey-templates/website-feedback.json"),
    include_str!("../../survey-templates/knowledge-check.json"),
    include_str!("../../survey-templates/research-questionnaire.json"),
];

/// One ready survey. Its texts are objects of language to text wherever they appear (titles,
/// questions, options, even the option a condition tests), so that one file serves every
/// language and a translation cannot fall out of step with the question it belongs to.
#[derive(Debug, Deserialize)]
pub struct Template {
    /// Its stable id (`nps`), as the API and the gallery's addresses name it.
    pub id: String,
    /// Its name, per language.
    title: Value,
    /// What it is for, per language.
    description: Value,
    /// The survey as the JSON API takes it, its texts per language.
    survey: Value,
}

static TEMPLATES: LazyLock<Vec<Template>> = LazyLock::new(|| {
    SOURCES
        .iter()
        // The files are part of the program and every one is read by the tests below.
        .map(|source| serde_json::from_str(source).expect("a template file is valid JSON"))
        .collect()
});

/// Every template, in the gallery's order.
pub fn all() -> &'static [Template] {
    &TEMPLATES
}

/// The template with this id.
pub fn find(id: &str) -> Option<&'static Template> {
    all().iter().find(|template| template.id == id)
}

/// The template language for a tag (`de`, `de-AT` and `DE` are all German): one of
/// `LANGUAGES`, or `None` for a language no template is written in.
pub fn language(tag: &str) -> Option<&'static str> {
    let tag = LanguageTag::parse(tag).ok()?;
    let primary = tag.to_string();
    let primary = primary.split('-').next().unwrap_or_default();
    LANGUAGES.iter().copied().find(|known| *known == primary)
}

impl Template {
    /// Its name in `language` (one of `LANGUAGES`).
    pub fn title(&self, language: &str) -> String {
        text_of(&in_language(&self.title, language))
    }

    /// What it is for, in `language`.
    pub fn description(&self, language: &str) -> String {
        text_of(&in_language(&self.description, language))
    }

    /// The survey in `language` only, as an owner would send it: ready for the same checks
    /// as any definition.
    pub fn input(&self, language: &str) -> SurveyInput {
        let mut survey = in_language(&self.survey, language);
        if let Value::Object(fields) = &mut survey {
            fields.insert("languages".into(), Value::from(vec![language]));
        }
        // Every template in every language is read and checked by the tests below.
        serde_json::from_value(survey).expect("a template reads as a survey definition")
    }

    /// Its checked definition in `language`, to show what it asks.
    pub fn definition(&self, language: &str) -> Definition {
        self.input(language)
            .check(&[])
            .unwrap_or_else(|problems| panic!("template {} is not valid: {problems:?}", self.id))
    }
}

fn text_of(value: &Value) -> String {
    value.as_str().unwrap_or_default().to_owned()
}

/// `value` with every text given per language replaced by its text in `language` (English
/// where one lacks it).
fn in_language(value: &Value, language: &str) -> Value {
    match value {
        Value::Object(fields) if per_language(fields) => fields
            .get(language)
            .or_else(|| fields.get("en"))
            .cloned()
            .unwrap_or(Value::Null),
        Value::Object(fields) => Value::Object(
            fields
                .iter()
                .map(|(key, value)| (key.clone(), in_language(value, language)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(
            items
                .iter()
                .map(|item| in_language(item, language))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// Whether an object is one text per language (its keys all template languages, English
/// among them).
fn per_language(fields: &serde_json::Map<String, Value>) -> bool {
    fields.contains_key("en") && fields.keys().all(|key| LANGUAGES.contains(&key.as_str()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every object of texts in `value` gives all eight languages, each a non-blank string.
    fn complete(value: &Value, path: &str) -> Vec<String> {
        match value {
            Value::Object(fields) if per_language(fields) => LANGUAGES
                .iter()
                .filter(|language| {
                    fields
                        .get(**language)
                        .and_then(Value::as_str)
                        .is_none_or(|text| text.trim().is_empty())
                })
                .map(|language| format!("{path}: no {language} text"))
                .collect(),
            Value::Object(fields) => fields
                .iter()
                .flat_map(|(key, value)| complete(value, &format!("{path}.{key}")))
                .collect(),
            Value::Array(items) => items
                .iter()
                .enumerate()
                .flat_map(|(at, item)| complete(item, &format!("{path}[{at}]")))
                .collect(),
            _ => Vec::new(),
        }
    }

    #[test]
    fn there_are_twelve_templates_with_distinct_ids() {
        let ids: std::collections::BTreeSet<_> = all().iter().map(|t| t.id.as_str()).collect();
        assert_eq!(all().len(), 12);
        assert_eq!(ids.len(), 12, "ids are unique");
        assert!(find("nps").is_some());
        assert!(find("no-such-template").is_none());
    }

    #[test]
    fn every_text_of_every_template_is_in_all_eight_languages() {
        for template in all() {
            for (name, value) in [
                ("title", &template.title),
                ("description", &template.description),
                ("survey", &template.survey),
            ] {
                let gaps = complete(value, &format!("{}.{name}", template.id));
                assert!(gaps.is_empty(), "{gaps:#?}");
            }
        }
    }

    #[test]
    fn every_template_checks_cleanly_in_every_language() {
        for template in all() {
            for language in LANGUAGES {
                let input = template.input(language);
                let definition = input.check(&[]).unwrap_or_else(|problems| {
                    panic!("{} in {language}: {problems:?}", template.id)
                });
                assert!(!definition.questions.is_empty());
                assert_eq!(definition.languages[0].to_string(), language);
                assert!(!template.title(language).is_empty());
                assert!(!template.description(language).is_empty());
                // Nothing English is left in another language's survey (the quiz's "100 °C"
                // is the same everywhere, so compare the question texts only).
                if language != "en" {
                    let english = template.definition("en");
                    for (ours, theirs) in definition.questions.iter().zip(&english.questions) {
                        assert_ne!(ours.text, theirs.text, "{} {language}", template.id);
                    }
                }
            }
        }
    }

    #[test]
    fn a_condition_tests_the_option_in_the_surveys_own_language() {
        let research = find("research-questionnaire").expect("the template");
        let german = research.definition("de");
        let jump = &german.layout[0].jumps[0];
        let text = serde_json::to_string(&jump.condition).expect("JSON");
        assert!(text.contains("\"Nein\""), "{text}");
    }

    #[test]
    fn languages_are_read_from_tags() {
        assert_eq!(language("de"), Some("de"));
        assert_eq!(language("DE-at"), Some("de"));
        assert_eq!(language("pt-BR"), Some("pt"));
        assert_eq!(language("sv"), None, "no template is in Swedish");
        assert_eq!(language("French"), None);
    }
}
