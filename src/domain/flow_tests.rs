//! A respondent's way through surveys of pages with logic, from definitions written as owners
//! write them: unit cases, and properties over random definitions and random posted forms.

use std::collections::BTreeSet;

use proptest::prelude::*;
use serde_json::{Value, json};
use time::OffsetDateTime;

use super::definition::SurveyInput;
use super::walk::Walk;
use super::{AnswerValue, QuestionId, RawAnswers, Survey, SurveySlug, Target, TenantSlug};

/// The survey a definition describes, if it is valid.
pub(super) fn survey_of(definition: Value) -> Result<Survey, super::definition::DefinitionErrors> {
    let input: SurveyInput = serde_json::from_value(definition).expect("the input shape");
    let checked = crate::domain::definition::checked::for_one_region(input.check(&[])?)?;
    Ok(Survey::draft(
        TenantSlug::parse("acme").expect("a slug"),
        SurveySlug::parse("flow").expect("a slug"),
        checked,
        OffsetDateTime::UNIX_EPOCH,
    )
    .published())
}

pub(super) fn raw(pairs: &[(&str, &str)]) -> RawAnswers {
    pairs.iter().copied().collect()
}

pub(super) fn id(text: &str) -> QuestionId {
    QuestionId::parse(text).expect("an id")
}

fn three_pages() -> Survey {
    survey_of(json!({"title": "T", "pages": [
        {"questions": [
            {"id": "likes", "text": "Like it?", "type": "single_choice", "required": true,
             "options": ["Yes", "No", "Maybe"]},
            {"id": "why", "text": "Why not?", "type": "short_text", "required": true,
             "show_if": {"question": "likes", "equals": "No"}}],
         "jumps": [{"if": {"question": "likes", "equals": "Yes"}, "to": "end"},
                   {"if": {"question": "likes", "equals": "Maybe"}, "to": 2}]},
        {"title": "Two", "questions": [
            {"id": "age", "text": "Age?", "type": "numeric", "required": true}]},
        {"title": "Three", "show_if": {"question": "likes", "not_equals": "Yes"}, "questions": [
            {"id": "stars", "text": "Stars?", "type": "five_stars", "required": false},
            {"id": "adult", "text": "Since when?", "type": "short_text", "required": false,
             "show_if": {"question": "age", "greater_than": 17}}]}
    ]}))
    .expect("valid")
}

#[test]
fn a_survey_without_pages_is_one_page_and_validates_as_before() {
    let survey = survey_of(json!({"title": "T", "questions": [
        {"id": "name", "text": "Name?", "type": "short_text", "required": true}]}))
    .expect("valid");
    assert!(survey.layout.is_empty(), "stored as before pages existed");
    assert_eq!(survey.pages().len(), 1);
    let walk = survey.walk(&raw(&[("name", "Ada")]), None);
    assert_eq!(walk.route, [0]);
    assert_eq!(walk.next, Target::End);
    assert!(walk.skipped.is_empty());
    assert!(survey.validate(&raw(&[])).is_err());
}

#[test]
fn each_route_shows_the_pages_and_questions_its_answers_call_for() {
    let survey = three_pages();
    // Posted answers, the route, the questions answered and those hidden.
    type Case<'a> = (
        &'a [(&'a str, &'a str)],
        &'a [usize],
        &'a [&'a str],
        &'a [&'a str],
    );
    let cases: [Case; 4] = [
        // Yes: the jump ends the survey after page 1.
        (
            &[("likes", "Yes"), ("why", "x"), ("age", "30")],
            &[0],
            &["likes"],
            &["why", "age", "stars", "adult"],
        ),
        // No: every page, "why" shown, "adult" shown for an adult.
        (
            &[("likes", "No"), ("why", "dear"), ("age", "30")],
            &[0, 1, 2],
            &["likes", "why", "age"],
            &[],
        ),
        // Maybe: straight to page 3, page 2 skipped; "adult" depends on an age never shown.
        (
            &[("likes", "Maybe"), ("age", "30"), ("adult", "2001")],
            &[0, 2],
            &["likes"],
            &["why", "age", "adult"],
        ),
        // No, a minor: "adult" not shown.
        (
            &[
                ("likes", "No"),
                ("why", "dear"),
                ("age", "12"),
                ("adult", "x"),
            ],
            &[0, 1, 2],
            &["likes", "why", "age"],
            &["adult"],
        ),
    ];
    for (posted, route, answered, hidden) in cases {
        let walk = survey.walk(&raw(posted), None);
        assert!(walk.errors.is_empty(), "{posted:?}: {:?}", walk.errors);
        assert_eq!(walk.route, route, "{posted:?}");
        let got: Vec<&str> = walk.values.keys().map(QuestionId::as_str).collect();
        assert_eq!(
            got,
            answered
                .iter()
                .copied()
                .collect::<BTreeSet<_>>()
                .into_iter()
                .collect::<Vec<_>>(),
            "{posted:?}"
        );
        let expected: BTreeSet<QuestionId> = hidden.iter().map(|q| id(q)).collect();
        assert_eq!(walk.skipped, expected, "{posted:?}");
    }
}

#[test]
fn leaving_a_page_checks_what_was_shown_up_to_it_and_says_where_next() {
    let survey = three_pages();
    let walk = survey.walk(&raw(&[("likes", "No")]), Some(0));
    assert_eq!(walk.route, [0]);
    assert_eq!(
        walk.errors.keys().collect::<Vec<_>>(),
        [&id("why")],
        "required when shown"
    );
    assert_eq!(walk.first_page_with_errors(&survey), Some(0));
    assert_eq!(walk.next, Target::Page(1));

    let walk = survey.walk(&raw(&[("likes", "No"), ("why", "dear")]), Some(1));
    assert_eq!(
        walk.errors.keys().collect::<Vec<_>>(),
        [&id("age")],
        "page 2 is checked"
    );
    assert_eq!(walk.next, Target::Page(2));

    let walk = survey.walk(&raw(&[("likes", "Yes")]), Some(0));
    assert!(walk.errors.is_empty());
    assert_eq!(walk.next, Target::End);
}

#[test]
fn a_walk_gone_on_checks_the_length_of_every_text_again() {
    let survey = survey_of(json!({"title": "T", "pages": [
        {"questions": [
            {"id": "s", "text": "Short", "type": "short_text", "required": false},
            {"id": "l1", "text": "One", "type": "long_text", "required": false},
            {"id": "l2", "text": "Two", "type": "long_text", "required": false}]},
        {"questions": [
            {"id": "l3", "text": "Three", "type": "long_text", "required": false}]}
    ]}))
    .expect("valid");
    let near = "x".repeat(80_000);
    // Too long after the second page only: the walk gone on finds it.
    let form = raw(&[("l1", &near), ("l2", &near), ("l3", &near)]);
    let first = survey.walk(&form, Some(0));
    assert!(first.errors.is_empty(), "{:?}", first.errors);
    let on = survey.walk_on(&form, first, None);
    assert_eq!(on, survey.walk(&form, None));
    assert_eq!(on.errors.len(), 1);
    // Too long on the first page already, and not after a second page that adds nothing:
    // the first page's finding is not kept twice, nor lost.
    let long = "x".repeat(100_000);
    let form = raw(&[("s", "ab"), ("l1", &long), ("l2", &long), ("l3", "y")]);
    let first = survey.walk(&form, Some(0));
    assert_eq!(first.errors.len(), 1, "{:?}", first.errors);
    assert_eq!(survey.walk_on(&form, first, None), survey.walk(&form, None));
}

#[test]
fn a_walk_not_begun_starts_from_the_first_page_and_an_ended_one_goes_no_further() {
    let survey = three_pages();
    let empty = RawAnswers::default();
    // Nothing walked yet: the walk from the first page, wherever it is asked to stop.
    for through in [None, Some(0), Some(2), Some(usize::MAX)] {
        assert_eq!(
            survey.walk_on(&empty, Walk::default(), through),
            survey.walk(&empty, through)
        );
    }
    // "Yes" ends the survey after the first page: going on changes nothing.
    let form = raw(&[("likes", "Yes")]);
    let ended = survey.walk(&form, Some(0));
    assert_eq!(ended.next, Target::End);
    assert_eq!(survey.walk_on(&form, ended.clone(), None), ended);
    // A walk whose next page is not after its last (no jump goes back) is made again.
    let form = raw(&[("likes", "Maybe")]);
    let mut odd = survey.walk(&form, Some(0));
    odd.next = Target::Page(0);
    assert_eq!(survey.walk_on(&form, odd, None), survey.walk(&form, None));
}

/// A random valid definition: up to 4 pages of up to 4 questions of every type, with
/// conditions on earlier questions fitting their types, page conditions and forward jumps,
/// all chosen by the random numbers drawn for each question and page.
fn definition() -> impl Strategy<Value = Value> {
    let page = (
        proptest::collection::vec(any::<[u32; 4]>(), 0..5),
        any::<[u32; 4]>(),
    );
    proptest::collection::vec(page, 1..5).prop_map(|pages| {
        const KINDS: [&str; 5] = [
            "single_choice",
            "multiple_choice",
            "numeric",
            "short_text",
            "five_stars",
        ];
        let mut kinds: Vec<&str> = Vec::new();
        // A condition on one of the first `before` questions, fitting its type.
        let condition = |kinds: &[&str], before: usize, seed: u32| -> Option<Value> {
            if before == 0 {
                return None;
            }
            let q = seed as usize % before;
            let question = format!("q{q}");
            let pick = (seed / 7) % 3;
            let mut rule = match (kinds[q], pick) {
                ("single_choice" | "multiple_choice", 0) => json!({"equals": "A"}),
                ("single_choice" | "multiple_choice", 1) => json!({"not_equals": "B"}),
                ("single_choice" | "multiple_choice", _) => json!({"any_of": ["B", "C"]}),
                ("numeric" | "five_stars", 0) => json!({"greater_than": 2}),
                ("numeric" | "five_stars", 1) => json!({"less_than": 4}),
                ("numeric" | "five_stars", _) => json!({"equals": "3"}),
                (_, 0) => json!({"contains": "a"}),
                (_, 1) => json!({"equals": "x"}),
                _ => json!({"answered": (seed / 21).is_multiple_of(2)}),
            };
            rule["question"] = json!(question);
            Some(match (seed / 63) % 3 {
                0 => rule,
                1 => json!({"all": [rule, {"question": "q0", "answered": true}]}),
                _ => json!({"any": [rule, {"question": "q0", "answered": false}]}),
            })
        };
        let count = pages.len();
        let mut out = Vec::new();
        for (index, (questions, seeds)) in pages.into_iter().enumerate() {
            let start = kinds.len();
            let mut list = Vec::new();
            for seed in questions {
                let n = kinds.len();
                let kind = KINDS[seed[0] as usize % KINDS.len()];
                let mut q = json!({"id": format!("q{n}"), "text": format!("Q{n}"), "type": kind,
                                   "required": seed[1].is_multiple_of(2), "options": ["A", "B", "C"]});
                if seed[2].is_multiple_of(2)
                    && let Some(c) = condition(&kinds, n, seed[3])
                {
                    q["show_if"] = c;
                }
                kinds.push(kind);
                list.push(q);
            }
            let mut page = json!({"questions": list});
            if index > 0
                && seeds[0].is_multiple_of(3)
                && let Some(c) = condition(&kinds, start, seeds[1])
            {
                page["show_if"] = c;
            }
            if seeds[2].is_multiple_of(2)
                && let Some(c) = condition(&kinds, kinds.len(), seeds[3])
            {
                let later = count - index - 1;
                let to = if later == 0 || seeds[3].is_multiple_of(4) {
                    json!("end")
                } else {
                    json!(index + 1 + seeds[2] as usize / 2 % later)
                };
                page["jumps"] = json!([{"if": c, "to": to}]);
            }
            out.push(page);
        }
        json!({"title": "Random", "pages": out})
    })
}

/// A random posted form: values of every kind for questions q0..q9 (and some junk).
fn posted() -> impl Strategy<Value = Vec<(String, String)>> {
    let value = prop::sample::select(vec![
        "A", "B", "C", "1", "3", "5", "17", "x", "", "a b", "-2.5",
    ]);
    proptest::collection::vec(
        (
            (0..11usize).prop_map(|q| format!("q{q}")),
            value.prop_map(str::to_owned),
        ),
        0..16,
    )
}

/// The survey of a random definition (which must be valid) and a random posted form.
fn survey_and_form(
    definition: &Value,
    posted: &[(String, String)],
) -> Result<(Survey, RawAnswers), TestCaseError> {
    let survey = survey_of(definition.clone())
        .map_err(|errors| TestCaseError::fail(format!("{errors:?} in {definition}")))?;
    let mut form = RawAnswers::default();
    for (q, v) in posted {
        form.push(q, v.clone());
    }
    Ok((survey, form))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn no_answer_to_a_question_not_shown_is_ever_kept(
        definition in definition(),
        posted in posted(),
        through in 0..5usize,
    ) {
        let (survey, form) = survey_and_form(&definition, &posted)?;
        // Leaving any page, or sending: never a panic, and the route only goes forward.
        let partial = survey.walk(&form, Some(through));
        prop_assert!(partial.route.windows(2).all(|w| w[0] < w[1]));
        let walk = survey.walk(&form, None);
        prop_assert!(walk.route.windows(2).all(|w| w[0] < w[1]));
        prop_assert_eq!(walk.next, Target::End);

        let all: BTreeSet<&QuestionId> = survey.questions.iter().map(|q| &q.id).collect();
        for (question, value) in &walk.values {
            prop_assert!(!walk.skipped.contains(question), "{} kept but hidden", question);
            prop_assert!(all.contains(question));
            let q = survey.question(question).expect("a question");
            // Conditions only look at earlier answers, so the kept answers still meet them.
            prop_assert!(q.show_if.as_ref().is_none_or(|c| c.holds(&walk.values, &crate::domain::hidden::HiddenValues::default())));
            prop_assert!(!matches!(value, AnswerValue::Text(t) if t.is_empty()));
        }
        for question in &walk.skipped {
            prop_assert!(!walk.errors.contains_key(question), "an error on a hidden question");
        }
        // Every question of a page not on the route is hidden.
        for page in 0..survey.pages().len() {
            if !walk.route.contains(&page) {
                for q in survey.page_questions(page) {
                    prop_assert!(walk.skipped.contains(&q.id));
                }
            }
        }
    }

    #[test]
    fn a_walk_gone_on_is_the_walk_through_its_next_stop(
        definition in definition(),
        posted in posted(),
        first in 0..5usize,
        then in proptest::option::of(0..5usize),
    ) {
        let (survey, form) = survey_and_form(&definition, &posted)?;
        let partial = survey.walk(&form, Some(first));
        // A page the route already passed is where the walk would have stopped before.
        prop_assume!(then.is_none_or(|then| !partial.route.contains(&then)));
        let on = survey.walk_on(&form, partial, then);
        prop_assert_eq!(on, survey.walk(&form, then));
    }
}
