//! Recalling earlier answers, from definitions written as owners write them: which recalls
//! the definition check refuses (and says why), and, over random answers, that a recall shows
//! only the answer of a question the respondent was shown.

use proptest::prelude::*;
use serde_json::{Value, json};

use super::definition::{DefinitionErrors, SurveyInput};
use super::{RawAnswers, Survey, SurveySlug, TenantSlug, recall};

fn survey_of(definition: Value) -> Result<Survey, DefinitionErrors> {
    let input: SurveyInput = serde_json::from_value(definition).expect("the input shape");
    let checked = crate::domain::definition::checked::for_one_region(input.check(&[])?)?;
    Ok(Survey::draft(
        TenantSlug::parse("acme").expect("a slug"),
        SurveySlug::parse("recall").expect("a slug"),
        checked,
        time::OffsetDateTime::UNIX_EPOCH,
    ))
}

/// Two pages: a rating and a conditional reason on the first, `text` asked on the second;
/// `jump` (if any) ends the first page.
fn two_pages(text: &str, jump: Option<Value>) -> Value {
    let mut first = json!({"questions": [
        {"id": "stars", "text": "How was it?", "type": "five_stars"},
        {"id": "why", "text": "Why so low?", "type": "short_text",
         "show_if": {"question": "stars", "less_than": 3}}]});
    if let Some(jump) = jump {
        first["jumps"] = json!([jump]);
    }
    json!({"title": "T", "pages": [first, {"questions": [
        {"id": "more", "text": text, "type": "long_text"}]}]})
}

#[test]
fn a_recall_of_an_earlier_page_is_accepted_with_or_without_a_fallback() {
    let survey = survey_of(two_pages(
        "You gave {{q:stars}} stars, because {{q:why|you liked it}}: tell us more",
        None,
    ))
    .expect("valid");
    assert!(survey.questions[2].text.contains("{{q:stars}}"));
    let options = json!({"title": "T", "pages": [
        {"questions": [{"id": "drink", "text": "Drink?", "type": "single_choice", "options": ["Tea", "Coffee"]}]},
        {"questions": [{"id": "again", "text": "Again?", "type": "single_choice",
                        "help": "Think of your {{q:drink}}.",
                        "options": ["More {{q:drink}}", "Something else"]}]}]});
    survey_of(options).expect("help texts and options may recall");
}

#[test]
fn recalls_that_cannot_have_been_answered_are_refused_at_their_field() {
    let cases: [(&str, Value, &str, &str); 7] = [
        (
            "same page",
            json!({"title": "T", "questions": [
                {"id": "a", "text": "A?", "type": "short_text"},
                {"id": "b", "text": "After {{q:a}}?", "type": "short_text"}]}),
            "questions[1].text",
            "on the same page",
        ),
        (
            "later page",
            json!({"title": "T", "pages": [
                {"questions": [{"id": "a", "text": "Before {{q:b}}?", "type": "short_text"}]},
                {"questions": [{"id": "b", "text": "B?", "type": "short_text"}]}]}),
            "pages[0].questions[0].text",
            "comes after it",
        ),
        (
            "unknown",
            two_pages("{{q:nope}}", None),
            "pages[1].questions[0].text",
            "not a question of this survey",
        ),
        (
            "itself",
            two_pages("Again {{q:more}}", None),
            "pages[1].questions[0].text",
            "its own answer",
        ),
        (
            "passed over on every route",
            json!({"title": "T", "pages": [
                {"questions": [{"id": "a", "text": "A?", "type": "short_text"}],
                 "jumps": [{"if": {"any": [{"question": "a", "answered": true},
                                           {"question": "a", "answered": false}]}, "to": 2}]},
                {"questions": [{"id": "b", "text": "B?", "type": "short_text"}]},
                {"questions": [{"id": "c", "text": "You said {{q:b}}", "type": "short_text"}]}]}),
            "pages[2].questions[0].text",
            "no route through the survey shows",
        ),
        (
            "malformed",
            two_pages("You gave {{q:stars stars", None),
            "pages[1].questions[0].text",
            "not closed",
        ),
        (
            "a title",
            json!({"title": "Hello {{q:a}}", "questions": [{"id": "a", "text": "A?", "type": "short_text"}]}),
            "title",
            "only in a question's text, help text and options",
        ),
    ];
    for (case, definition, field, said) in cases {
        let errors = survey_of(definition).expect_err(case);
        let message = errors
            .get(field)
            .unwrap_or_else(|| panic!("{case}: nothing at {field}: {errors:?}"));
        assert!(message.contains(said), "{case}: {message}");
    }
}

#[test]
fn a_translation_recalls_only_what_its_default_text_recalls() {
    let mut definition = two_pages("You gave {{q:stars}} stars", None);
    definition["languages"] = json!(["en", "de"]);
    definition["translations"] = json!({"de": {"q:more:text": "Sie gaben {{q:why}}"}});
    let errors = survey_of(definition.clone()).expect_err("refused");
    assert!(
        errors["translations.de.q:more:text"].contains("which the default text does not"),
        "{errors:?}"
    );
    definition["translations"] =
        json!({"de": {"q:more:text": "Sie gaben {{q:stars|keine}} Sterne"}});
    survey_of(definition).expect("the same recall, with a fallback of its own");
}

fn raw(pairs: &[(&str, &str)]) -> RawAnswers {
    pairs.iter().copied().collect()
}

proptest! {
    /// Whatever a respondent posts, the second page shows the reason only when the question
    /// asking it was shown (a low rating), and the fallback otherwise: never the answer of a
    /// hidden question, never a marker.
    #[test]
    fn a_recall_never_shows_a_hidden_questions_answer(
        stars in prop_oneof![Just(""), Just("1"), Just("2"), Just("4"), Just("5"), Just("9")],
        why in "[a-z]{6,10}",
    ) {
        let text = "Because {{q:why|you liked it}}, you gave {{q:stars|no}} stars";
        let survey = survey_of(two_pages(text, None)).expect("valid");
        let posted = raw(&[("stars", stars), ("why", &why)]);
        let walk = survey.walk(&posted, Some(1));
        let shown = recall::render(
            &survey.questions[2].text,
            |id| walk.values.get(id).map(|value| value.to_text(|n| n.to_string())),
            |_| None,
        );
        let reason_shown = matches!(stars, "1" | "2");
        prop_assert_eq!(shown.contains(&why), reason_shown, "{}", shown);
        prop_assert!(!shown.contains("{{"), "{}", shown);
        if !reason_shown {
            prop_assert!(shown.starts_with("Because you liked it,"), "{}", shown);
        }
        if stars == "9" || stars.is_empty() {
            prop_assert!(shown.ends_with("you gave no stars"), "{}", shown);
        }
    }
}
