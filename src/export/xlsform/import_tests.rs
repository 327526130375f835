//! Reading XLSForms: a form written by hand as the XLSForm documentation describes it, and a
//! survey carried to XLSForm and back keeping its questions, options, conditions and
//! translations.

use serde_json::json;

use super::*;
use crate::domain::Survey;
use crate::domain::definition::SurveyInput;
use crate::domain::definition::checked::for_one_region;
use crate::domain::definition::localized::LocalizedInput;
use crate::export::xlsform::XlsForm;

/// A workbook of these sheets (each a header row, then rows).
/// A sheet's rows written a row a line, cells between `|` (trimmed): the table as it reads.
fn table<'a>(rows: &[&'a str]) -> Vec<Vec<&'a str>> {
    rows.iter()
        .map(|row| row.split('|').map(str::trim).collect())
        .collect()
}

fn workbook(sheets: &[(&str, Vec<Vec<&str>>)]) -> Vec<u8> {
    let mut book = rust_xlsxwriter::Workbook::new();
    for (name, rows) in sheets {
        let sheet = book.add_worksheet();
        sheet.set_name(*name).expect("a name");
        for (r, row) in rows.iter().enumerate() {
            for (c, cell) in row.iter().enumerate() {
                sheet
                    .write_string(r as u32, c as u16, *cell)
                    .expect("written");
            }
        }
    }
    book.save_to_buffer().expect("a workbook")
}

/// What a form left out: each row and reason.
fn reasons(imported: &Imported) -> Vec<(usize, &str)> {
    imported
        .skipped
        .iter()
        .map(|s| (s.row, s.reason.as_str()))
        .collect()
}

fn checked(definition: serde_json::Value) -> Survey {
    let input: LocalizedInput = serde_json::from_value(definition).expect("the shape");
    let input: SurveyInput = input.0;
    let definition = input
        .check(&[])
        .and_then(for_one_region)
        .unwrap_or_else(|errors| panic!("a valid definition: {errors:?}"));
    Survey::draft(
        crate::domain::TenantSlug::parse("acme").expect("a slug"),
        crate::domain::SurveySlug::parse("form").expect("a slug"),
        definition,
        time::OffsetDateTime::UNIX_EPOCH,
    )
}

#[test]
fn a_form_written_as_the_documentation_describes_reads_with_what_it_cannot_carry_listed() {
    let bytes = workbook(&[
        (
            "survey",
            table(&[
                "type | name | label::English (en) | label::French (fr) | hint | required | relevant | constraint",
                "text | Name | Your name | Votre nom |  | yes |  | ",
                "integer | age | Your age | Votre âge | In years |  |  | . >= 18 and . <= 120",
                "select_one yes_no | likes_pizza | Do you like pizza? | Aimez-vous la pizza ? |  | yes |  | ",
                "select_multiple toppings | favorite_topping | Favourite toppings | Garnitures |  |  | ${likes_pizza} = 'yes' | ",
                "begin_group | details | Details | Détails |  |  | ${age} > 30 | ",
                "note | n1 | Tell us more. | Dites-nous en plus. |  |  |  | ",
                "text | why | Why, ${Name}? | Pourquoi, ${Name} ? |  |  | not(selected(${favorite_topping}, 'cheese')) | ",
                "geopoint | where | Where? | Où ? |  |  |  | ",
                "calculate | double |  |  |  |  |  | ",
                "end_group |  |  |  |  |  |  | ",
                "begin_repeat | kids | Children | Enfants |  |  |  | ",
                "text | kid | Name | Nom |  |  |  | ",
                "end_repeat |  |  |  |  |  |  | ",
            ]),
        ),
        (
            "choices",
            table(&[
                "list_name | name | label::English (en) | label::French (fr)",
                "yes_no | yes | Yes | Oui",
                "yes_no | no | No | Non",
                "toppings | cheese | Cheese | Fromage",
                "toppings | ham | Ham | Jambon",
            ]),
        ),
        (
            "settings",
            table(&["form_title | default_language", "Pizza | English (en)"]),
        ),
    ]);
    let imported = read(&bytes).expect("read");
    let reasons = reasons(&imported);
    assert_eq!(reasons.len(), 3, "{reasons:?}");
    assert!(
        reasons[0].0 == 9 && reasons[0].1.contains("geopoint"),
        "{reasons:?}"
    );
    assert!(
        reasons[1].0 == 10 && reasons[1].1.contains("XPath"),
        "{reasons:?}"
    );
    assert!(
        reasons[2].0 == 12 && reasons[2].1.contains("repeat"),
        "{reasons:?}"
    );
    let survey = checked(imported.definition);
    assert_eq!(survey.title, "Pizza");
    let ids: Vec<&str> = survey.questions.iter().map(|q| q.id.as_str()).collect();
    assert_eq!(ids, ["name", "age", "likespizza", "favoritetopping", "why"]);
    assert_eq!(survey.languages.len(), 2);
    assert_eq!(survey.text_in("fr", "q:name:text", "?"), "Votre nom");
    assert_eq!(survey.questions[1].help.as_deref(), Some("In years"));
    assert_eq!(
        survey.questions[1].kind,
        crate::domain::QuestionKind::Numeric {
            min: Some(18.0),
            max: Some(120.0),
            integer: true
        }
    );
    assert_eq!(survey.questions[4].help.as_deref(), Some("Tell us more."));
    assert_eq!(survey.questions[4].text, "Why, {{q:name}}?");
    // Conditions by the options' texts; "not selected" is "not ticked, or not answered".
    let shown = serde_json::to_value(&survey.questions[3].show_if).expect("json");
    assert_eq!(shown, json!({"question": "likespizza", "equals": "Yes"}));
    let shown = serde_json::to_value(&survey.questions[4].show_if).expect("json");
    assert_eq!(
        shown,
        json!({"any": [{"question": "favoritetopping", "not_equals": "Cheese"},
                       {"question": "favoritetopping", "answered": false}]})
    );
    assert_eq!(survey.layout.len(), 2, "the group is a page of its own");
}

#[test]
fn a_survey_carried_to_xlsform_and_back_keeps_its_questions_options_conditions_and_languages() {
    let original = checked(json!({
        "title": "Field visit",
        "languages": ["en", "de"],
        "hidden_fields": ["enumerator"],
        "pages": [
            {"title": "Household", "questions": [
                {"id": "first", "text": {"en": "First visit?", "de": "Erster Besuch?"},
                 "type": "single_choice", "required": true,
                 "options": [{"en": "Yes", "de": "Ja"}, {"en": "No", "de": "Nein"}]},
                {"id": "people", "text": "How many people?", "type": "numeric",
                 "integer": true, "min": 1, "max": 30, "help": "Count children too."},
                {"id": "water", "text": "Water sources", "type": "multiple_choice",
                 "options": ["Tap", "Well", "River"], "other": true}]},
            {"title": "Views", "show_if": {"question": "people", "greater_than": 2},
             "questions": [
                {"id": "why", "text": "Why, {{h:enumerator}}?", "type": "long_text",
                 "show_if": {"question": "water", "equals": "River"}},
                {"id": "moved", "text": "Moved in", "type": "date", "earliest": "2000-01-01"},
                {"id": "rating", "text": "Your rating", "type": "five_stars"},
                {"id": "nps", "text": "Recommend?", "type": "nps"},
                {"id": "agree", "text": "Improved.", "type": "scale", "points": 7},
                {"id": "region", "text": "Region", "type": "dropdown", "options": ["North", "South"]},
                {"id": "rank", "text": "Most important?", "type": "ranking",
                 "options": ["Water", "Roads"]},
                {"id": "grid", "text": "How is each?", "type": "matrix",
                 "rows": ["Roads", "Clinics"], "columns": ["Poor", "Good"]},
                {"id": "photo", "text": "A photo", "type": "file"}]},
            {"title": "Each source", "loop": {"over": "water"}, "questions": [
                {"id": "distance", "text": "How far?", "type": "numeric"}]},
            {"title": "Each person", "loop": {"times": "people", "pages": 2}, "questions": [
                {"id": "age", "text": "Age?", "type": "numeric"}]},
            {"title": "Their work", "questions": [
                {"id": "work", "text": "Work?", "type": "short_text"}]}
        ]
    }));
    let bytes = XlsForm::of(&original).to_xlsx().expect("written");
    let imported = read(&bytes).expect("read");
    assert!(imported.skipped.is_empty(), "{:?}", imported.skipped);
    let back = checked(imported.definition);
    let shape = |survey: &Survey| -> Vec<serde_json::Value> {
        survey
            .questions
            .iter()
            .map(|q| {
                json!({"id": q.id, "text": q.text, "help": q.help, "required": q.required,
                       "kind": q.kind, "show_if": q.show_if})
            })
            .collect()
    };
    assert_eq!(shape(&back), shape(&original));
    assert_eq!(back.hidden_fields, original.hidden_fields);
    assert_eq!(back.languages, original.languages);
    assert_eq!(back.translations, original.translations);
    assert_eq!(back.layout.len(), 5);
    assert_eq!(back.layout[1].show_if, original.layout[1].show_if);
    // The loops: over the sources ticked, and a run of two pages per person.
    let loops = |survey: &Survey| -> Vec<Option<crate::domain::looping::Loop>> {
        survey.layout.iter().map(|p| p.repeat.clone()).collect()
    };
    assert_eq!(loops(&back), loops(&original));
    assert_eq!(back.layout[4].title.as_deref(), Some("Their work"));
}

#[test]
fn constraints_beyond_bounds_and_calculations_read_as_cel_where_their_xpath_maps() {
    let bytes = workbook(&[
        (
            "survey",
            table(&[
                "type | name | label | constraint | constraint_message | calculation",
                "integer | age | Age | . >= 18 and . <= 120 |  | ",
                "integer | kids | Children | . <= ${age} div 2 | Fewer than half your age | ",
                "select_multiple toppings | top | Toppings |  |  | ",
                "text | nick | Nickname | string-length(.) < 20 and not(selected(${top}, 'ham')) |  | ",
                "calculate | double_age |  |  |  | ${age} * 2 + 1",
                "calculate | weird |  |  |  | count-selected(${top})",
            ]),
        ),
        (
            "choices",
            table(&[
                "list_name | name | label",
                "toppings | cheese | Cheese",
                "toppings | ham | Ham",
            ]),
        ),
    ]);
    let imported = read(&bytes).expect("read");
    let reasons = reasons(&imported);
    assert_eq!(reasons.len(), 1, "{reasons:?}");
    assert!(
        reasons[0].0 == 7 && reasons[0].1.contains("count-selected"),
        "{reasons:?}"
    );
    let d = &imported.definition;
    assert_eq!(
        d["questions"][1]["validate"],
        json!({"expression": "q.kids <= q.age / 2.0", "message": "Fewer than half your age"})
    );
    assert_eq!(
        d["questions"][3]["validate"]["expression"],
        "double(size(q.nick)) < 20.0 && !((\"Ham\" in q.top))"
    );
    assert_eq!(
        d["variables"],
        json!([{"id": "double_age", "expression": "q.age * 2.0 + 1.0"}])
    );
    // And the survey check takes them.
    let survey = checked(imported.definition);
    assert_eq!(survey.variables.len(), 1);
    assert!(survey.questions[1].validate.is_some());
}
