//! Loops from definitions written as owners write them: how a survey unrolls for the answers
//! posted, what the checks refuse, how answers are pooled, and (a property) that a loop's
//! answers always belong to items the respondent chose.

use std::collections::BTreeSet;

use proptest::prelude::*;
use serde_json::{Value, json};

use super::flow_tests::{id, raw, survey_of};
use super::looping::{MAX_ITERATIONS, option_keys};
use super::summary::{SummaryReport, SurveySummary};
use super::{AnswerValue, RawAnswers, Survey};

const DRINKS: [&str; 4] = ["Tea", "Coffee", "Hot chocolate", "Water"];

/// Drinks chosen, then a page for each drink, then a last page.
fn drinks() -> Survey {
    survey_of(json!({"title": "Drinks", "pages": [
        {"questions": [
            {"id": "drinks", "text": "Which do you drink?", "type": "multiple_choice",
             "options": DRINKS, "other": true}]},
        {"title": "About {{loop}}", "loop": {"over": "drinks"}, "questions": [
            {"id": "often", "text": "How many cups of {{loop}} a day?", "type": "numeric",
             "required": true, "validate": {"expression": "q.often < 20.0",
             "message": "Fewer than 20 cups"}},
            {"id": "why", "text": "Why so many?", "type": "short_text",
             "show_if": {"question": "often", "greater_than": 5}}]},
        {"questions": [
            {"id": "end", "text": "Anything else?", "type": "short_text"}]}
    ]}))
    .expect("valid")
}

#[test]
fn option_keys_are_words_and_stay_unique() {
    let keys = option_keys(&[
        "Hot chocolate".into(),
        "hot  CHOCOLATE!".into(),
        "¿Qué?".into(),
        "Other".into(),
        "An option whose words run on past the longest key".into(),
    ]);
    assert_eq!(
        keys,
        [
            "hot_chocolate",
            "o2",
            "qu",
            "o4",
            "an_option_whose_words_ru"
        ]
    );
    for key in &keys {
        assert!(super::looping::is_item_key(key), "{key}");
    }
}

#[test]
fn a_loop_repeats_its_page_for_each_option_chosen_in_order() {
    let survey = drinks();
    let unrolled = survey
        .unrolled(&raw(&[("drinks", "Water"), ("drinks", "Tea")]))
        .expect("a survey with loops unrolls");
    let ids: Vec<&str> = unrolled.questions.iter().map(|q| q.id.as_str()).collect();
    assert_eq!(
        ids,
        [
            "drinks",
            "often[tea]",
            "why[tea]",
            "often[water]",
            "why[water]",
            "end"
        ]
    );
    assert_eq!(unrolled.layout.len(), 4);
    let origins: Vec<Option<usize>> = unrolled.layout.iter().map(|p| p.origin).collect();
    assert_eq!(origins, [Some(0), Some(1), Some(1), Some(2)]);
    assert_eq!(unrolled.loop_label(1, "en").as_deref(), Some("Tea"));
    assert_eq!(unrolled.loop_label(2, "en").as_deref(), Some("Water"));
    // A condition on a question of the loop tests the same time round.
    let why = unrolled.question(&id("why[water]")).expect("a copy");
    let rules = why.show_if.as_ref().expect("a condition").rules();
    assert_eq!(rules[0].question, id("often[water]"));
}

#[test]
fn answers_are_kept_per_item_checked_per_item_and_only_for_items_chosen() {
    let survey = drinks();
    let posted = raw(&[
        ("drinks", "Tea"),
        ("drinks", "Water"),
        ("often[tea]", "3"),
        ("often[water]", "8"),
        ("why[water]", "Thirsty"),
        // Not chosen: never kept, whatever the form sends.
        ("often[coffee]", "2"),
    ]);
    let unrolled = survey.unrolled(&posted).expect("unrolled");
    let values = unrolled.validate(&posted).expect("valid");
    assert_eq!(
        values.get(&id("often[tea]")),
        Some(&AnswerValue::Number(3.0))
    );
    assert_eq!(
        values.get(&id("why[water]")),
        Some(&AnswerValue::Text("Thirsty".into()))
    );
    assert!(!values.contains_key(&id("often[coffee]")));
    // The owner's rule reads the current item's answer as `q.often`.
    let too_many = raw(&[("drinks", "Tea"), ("often[tea]", "25")]);
    let unrolled = survey.unrolled(&too_many).expect("unrolled");
    let errors = unrolled.validate(&too_many).expect_err("refused");
    assert!(errors.contains_key(&id("often[tea]")), "{errors:?}");
}

#[test]
fn other_is_an_item_and_nothing_chosen_skips_the_loop() {
    let survey = drinks();
    let posted = raw(&[("drinks", "Other"), ("drinks.other", "Mate")]);
    let unrolled = survey.unrolled(&posted).expect("unrolled");
    assert_eq!(unrolled.layout.len(), 3);
    assert_eq!(unrolled.loop_label(1, "en").as_deref(), Some("Mate"));
    assert!(unrolled.question(&id("often[other]")).is_some());
    let none = survey.unrolled(&raw(&[])).expect("unrolled");
    assert_eq!(
        none.layout.len(),
        2,
        "no time round: the loop's page is not shown"
    );
    let walk = none.walk(&raw(&[("end", "no")]), None);
    assert_eq!(walk.route, [0, 1]);
}

#[test]
fn a_number_repeats_a_run_of_pages_at_most_fifty_times_and_jumps_follow() {
    let survey = survey_of(json!({"title": "Household", "pages": [
        {"questions": [{"id": "people", "text": "How many live with you?", "type": "numeric"}],
         "jumps": [{"if": {"question": "people", "equals": "0"}, "to": 3}]},
        {"loop": {"times": "people", "pages": 2}, "title": "Person {{loop}}", "questions": [
            {"id": "age", "text": "Age of person {{loop}}?", "type": "numeric"}]},
        {"questions": [{"id": "works", "text": "Do they work?", "type": "short_text"}]},
        {"questions": [{"id": "end", "text": "Thanks?", "type": "short_text"}]}
    ]}))
    .expect("valid");
    let two = survey
        .unrolled(&raw(&[("people", "2.7")]))
        .expect("unrolled");
    let ids: Vec<&str> = two.questions.iter().map(|q| q.id.as_str()).collect();
    assert_eq!(
        ids,
        ["people", "age[1]", "works[1]", "age[2]", "works[2]", "end"]
    );
    // The jump past the loop still lands on the last page.
    assert_eq!(
        two.layout[0].jumps[0].to,
        crate::domain::Target::Page(5),
        "{:?}",
        two.layout[0].jumps
    );
    let many = survey
        .unrolled(&raw(&[("people", "1000")]))
        .expect("unrolled");
    assert_eq!(many.layout.len(), 2 + 2 * MAX_ITERATIONS);
}

#[test]
fn the_checks_refuse_loops_that_cannot_run() {
    let refused = |pages: Value, field: &str| {
        let errors = survey_of(json!({"title": "T", "pages": pages})).expect_err("refused");
        assert!(errors.contains_key(field), "{errors:?}");
    };
    let choice = json!({"id": "pick", "text": "Pick", "type": "multiple_choice",
                        "options": ["A", "B"]});
    let text = json!({"id": "name", "text": "Name", "type": "short_text"});
    // Over a question on its own page, or a later one.
    refused(
        json!([{"questions": [text]}, {"loop": {"over": "pick"}, "questions": [choice]}]),
        "pages[1].loop",
    );
    // `over` a text.
    refused(
        json!([{"questions": [text]}, {"loop": {"over": "name"}, "questions": [choice]}]),
        "pages[1].loop",
    );
    // More pages than there are.
    refused(
        json!([{"questions": [choice]}, {"loop": {"over": "pick", "pages": 3},
               "questions": [text]}]),
        "pages[1].loop",
    );
    // A jump from a page of the loop.
    refused(
        json!([{"questions": [choice]}, {"loop": {"over": "pick"}, "questions": [text],
               "jumps": [{"if": {"question": "name", "answered": true}, "to": "end"}]}]),
        "pages[1].loop",
    );
    // A quota on a question the loop repeats.
    let errors = survey_of(json!({"title": "T", "pages": [
        {"questions": [choice]},
        {"loop": {"over": "pick"}, "questions": [text]}],
        "quotas": [{"name": "Ann", "limit": 3, "when": {"question": "name", "equals": "Ann"}}]}))
    .expect_err("refused");
    assert!(
        errors.keys().any(|k| k.starts_with("quotas[0]")),
        "{errors:?}"
    );
    // A question id of a loop's answer is not a question's.
    let errors = survey_of(json!({"title": "T", "questions": [
        {"id": "a[b]", "text": "A", "type": "short_text"}]}))
    .expect_err("refused");
    assert!(errors.contains_key("questions[0].id"), "{errors:?}");
}

#[test]
fn the_summary_pools_a_loops_answers_and_shows_each_item() {
    let survey = drinks();
    let posted = raw(&[
        ("drinks", "Tea"),
        ("drinks", "Water"),
        ("often[tea]", "3"),
        ("often[water]", "1"),
    ]);
    let unrolled = survey.unrolled(&posted).expect("unrolled");
    let values = unrolled.validate(&posted).expect("valid");
    let answer = crate::domain::Answer {
        values,
        ..crate::domain::Answer::sample(1)
    };
    let mut summary = SurveySummary::default();
    summary.add(&answer);
    let pooled = SummaryReport::new(&survey, &summary, None);
    let often = |report: &SummaryReport| {
        report
            .questions
            .iter()
            .find(|q| q.id == "often")
            .map(|q| q.answered)
    };
    assert_eq!(often(&pooled), Some(2));
    assert!(
        pooled.questions.iter().all(|q| !q.id.contains('[')),
        "items are not removed questions"
    );
    let keys: Vec<&str> = pooled.items.iter().map(|i| i.key.as_str()).collect();
    assert_eq!(keys, ["tea", "coffee", "hot_chocolate", "water", "other"]);
    let tea = SummaryReport::of_item(&survey, &summary, None, Some("tea"));
    assert_eq!(often(&tea), Some(1));
    assert!(survey.item_asked(Some("milk")).is_err());
    // Taking the answer out takes out its every item.
    summary.subtract(&answer);
    assert!(summary.questions.is_empty(), "{:?}", summary.questions);
}

proptest! {
    /// Whatever a form posts, a loop's answers belong to the items chosen, one per item.
    #[test]
    fn a_loops_answers_always_belong_to_chosen_items(
        chosen in proptest::collection::vec(any::<bool>(), 4),
        posted in proptest::collection::vec((0usize..6, 0u8..30), 0..12),
    ) {
        let survey = drinks();
        let keys = ["tea", "coffee", "hot_chocolate", "water", "other", "milk"];
        let mut pairs: Vec<(String, String)> = DRINKS
            .iter()
            .zip(&chosen)
            .filter(|(_, on)| **on)
            .map(|(drink, _)| ("drinks".to_owned(), (*drink).to_owned()))
            .collect();
        for (key, cups) in &posted {
            pairs.push((format!("often[{}]", keys[*key]), cups.to_string()));
        }
        let form: RawAnswers = pairs.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        let unrolled = survey.unrolled(&form).expect("unrolled");
        let walk = unrolled.walk(&form, None);
        let allowed: BTreeSet<&str> = keys[..4]
            .iter()
            .zip(&chosen)
            .filter(|(_, on)| **on)
            .map(|(key, _)| *key)
            .collect();
        for id in walk.values.keys().chain(walk.errors.keys()) {
            if let Some((question, item)) = id.looped() {
                prop_assert_eq!(question.as_str(), "often");
                prop_assert!(allowed.contains(item), "{} answered, not chosen", id);
            }
        }
        let pages = 2 + allowed.len();
        prop_assert_eq!(unrolled.layout.len(), pages);
    }
}
