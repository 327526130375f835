//! LimeSurvey files written by hand to LimeSurvey's format (`tests/fixtures/limesurvey`), in
//! the layouts of LimeSurvey 3 and 6, read into definitions the survey check takes; and
//! hostile XML refused.

use serde_json::{Value, json};

use super::*;
use crate::domain::definition::localized::LocalizedInput;

const SIX: &str = include_str!("../../../tests/fixtures/limesurvey/coffee-ls6.lss");
const THREE: &str = include_str!("../../../tests/fixtures/limesurvey/trip-ls3.lss");

fn checked(definition: &Value) -> crate::domain::definition::Definition {
    let input: LocalizedInput = serde_json::from_value(definition.clone()).expect("the shape");
    input.0.check(&[]).expect("a valid definition")
}

#[test]
fn a_limesurvey_6_structure_imports_groups_types_languages_and_a_condition() {
    let imported = read(SIX.as_bytes()).expect("read");
    let d = &imported.definition;
    assert_eq!(
        d["title"],
        json!({"en": "Coffee habits", "de": "Kaffeegewohnheiten"})
    );
    assert_eq!(d["languages"], json!(["en", "de"]));
    let pages = d["pages"].as_array().expect("pages");
    assert_eq!(pages.len(), 2, "{d}");
    assert_eq!(
        pages[0]["title"],
        json!({"en": "About you", "de": "Über Sie"})
    );
    let first: Vec<&str> = pages[0]["questions"]
        .as_array()
        .expect("questions")
        .iter()
        .filter_map(|q| q["type"].as_str())
        .collect();
    assert_eq!(first, ["short_text", "numeric"]);
    assert_eq!(pages[0]["questions"][0]["text"]["en"], "Your name?");
    assert_eq!(pages[0]["questions"][0]["required"], true);
    assert_eq!(pages[0]["questions"][1]["help"]["de"], "In Jahren.");
    let second = &pages[1]["questions"];
    assert_eq!(second[0]["type"], "single_choice");
    assert_eq!(second[0]["other"], true);
    assert_eq!(
        second[0]["options"],
        json!([{"en": "Espresso", "de": "Espresso"}, {"en": "Filter coffee", "de": "Filterkaffee"}])
    );
    assert_eq!(second[1]["type"], "multiple_choice");
    assert_eq!(second[1]["options"][1]["en"], "Sugar & spice");
    assert_eq!(
        second[2]["show_if"],
        json!({"question": "kind", "equals": "Filter coffee"})
    );
    assert_eq!(second[3]["type"], "matrix");
    assert_eq!(second[3]["columns"][1]["de"], "Schlecht");
    // The equation is listed, by question, with its reason.
    assert_eq!(imported.skipped.len(), 1, "{:?}", imported.skipped);
    assert!(imported.skipped[0].reason.starts_with("score: an equation"));
    let definition = checked(d);
    assert_eq!(definition.questions.len(), 6);
    assert_eq!(definition.layout.len(), 2);
}

#[test]
fn a_limesurvey_3_structure_imports_its_rows_per_language() {
    let imported = read(THREE.as_bytes()).expect("read");
    let d = &imported.definition;
    assert_eq!(
        d["title"],
        json!({"en": "Last trip", "fr": "Dernier voyage"})
    );
    let questions = d["pages"][0]["questions"].as_array().expect("questions");
    let kinds: Vec<&str> = questions
        .iter()
        .filter_map(|q| q["type"].as_str())
        .collect();
    assert_eq!(kinds, ["dropdown", "date", "single_choice", "ranking"]);
    // The text display is the next question's help.
    assert_eq!(questions[0]["help"], "Think of your last trip.");
    assert_eq!(
        questions[0]["options"],
        json!([{"en": "Beach", "fr": "Plage"}, {"en": "Mountains", "fr": "Montagne"}])
    );
    assert_eq!(questions[0]["text"]["fr"], "Où êtes-vous allé ?");
    assert_eq!(
        questions[2]["show_if"],
        json!({"question": "where", "not_equals": "Mountains"})
    );
    assert_eq!(questions[3]["options"][1]["fr"], "Météo");
    let reasons: Vec<&str> = imported.skipped.iter().map(|s| s.reason.as_str()).collect();
    assert_eq!(reasons.len(), 1, "{reasons:?}");
    assert!(reasons[0].starts_with("contacts: multiple short text"));
    checked(d);
}

#[test]
fn hostile_xml_is_refused_without_expanding_anything() {
    let laughs = r#"<?xml version="1.0"?>
<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">]>
<document><LimeSurveyDocType>Survey</LimeSurveyDocType><x>&lol2;</x></document>"#;
    let error = read(laughs.as_bytes()).expect_err("refused").to_string();
    assert!(error.contains("DOCTYPE"), "{error}");
    let external = r#"<?xml version="1.0"?>
<!DOCTYPE d [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>
<document><LimeSurveyDocType>Survey</LimeSurveyDocType><x>&xxe;</x></document>"#;
    assert!(read(external.as_bytes()).is_err());
    // An entity named without a DOCTYPE is not expanded either.
    let named = "<document><LimeSurveyDocType>Survey&xxe;</LimeSurveyDocType></document>";
    let error = read(named.as_bytes()).expect_err("refused").to_string();
    assert!(error.contains("&xxe;"), "{error}");
    let other = "<document><LimeSurveyDocType>Label set</LimeSurveyDocType></document>";
    assert!(matches!(read(other.as_bytes()), Err(LssError::NotASurvey)));
    assert!(read(b"not xml <<<").is_err());
    let deep = format!("{}{}", "<a>".repeat(50), "</a>".repeat(50));
    assert!(matches!(read(deep.as_bytes()), Err(LssError::TooMuch(_))));
    let mut many =
        String::from("<document><LimeSurveyDocType>Survey</LimeSurveyDocType><questions><rows>");
    many.push_str(&"<row><qid>1</qid></row>".repeat(MAX_ROWS + 1));
    many.push_str("</rows></questions></document>");
    assert!(matches!(read(many.as_bytes()), Err(LssError::TooMuch(_))));
}

#[test]
fn html_becomes_plain_text() {
    assert_eq!(
        plain("<p>One&nbsp;<b>two</b></p><p>three &amp; <br/>four</p>"),
        "One two\nthree &\nfour"
    );
}
