//! The definition checker: regions, residency, files, access and attribute segments against
//! the installation, what a published survey fixed, and which facts a save needs read.

use proptest::prelude::*;
use serde_json::{Value, json};

use super::*;
use crate::domain::definition::SurveyInput;
use crate::domain::{Survey, SurveySlug, TenantSlug};

fn definition(value: Value) -> Definition {
    let input: SurveyInput = serde_json::from_value(value).expect("the input shape");
    input.check(&[]).expect("its own rules")
}

fn region(name: &str) -> RegionName {
    RegionName::parse(name).expect("a region name")
}

fn two_regions() -> Installation {
    Installation {
        regions: vec![region("eu"), region("us")],
        here: Some(region("us")),
    }
}

fn survey(value: Value, published: bool) -> Survey {
    let checked = for_one_region(definition(value)).expect("checked");
    let mut survey = Survey::draft(
        TenantSlug::parse("acme").expect("a slug"),
        SurveySlug::parse("s").expect("a slug"),
        checked,
        time::OffsetDateTime::UNIX_EPOCH,
    );
    survey.published = published;
    survey
}

fn rating() -> Value {
    json!([{"id": "stars", "text": "How was it?", "type": "five_stars"}])
}

#[test]
fn a_new_survey_with_no_regions_needs_no_fact_and_is_checked() {
    let installation = Installation::default();
    let pending = Pending::new(
        definition(json!({"title": "T", "questions": rating()})),
        &installation,
        None,
    )
    .expect("no problem");
    assert_eq!(pending.needs(), Needs::default());
    let checked = pending.finish(&Facts::default()).expect("checked");
    assert_eq!(checked.title, "T");
}

#[test]
fn regions_the_installation_lacks_are_named_each() {
    let sent = || definition(json!({"title": "T", "regions": ["eu", "ap"]}));
    let errors = Pending::new(sent(), &Installation::default(), None).expect_err("refused");
    assert_eq!(
        errors.get("regions[0]").map(String::as_str),
        Some("this installation has one region: leave regions out")
    );
    let errors = Pending::new(sent(), &two_regions(), None).expect_err("refused");
    assert!(!errors.contains_key("regions[0]"), "{errors:?}");
    assert_eq!(
        errors.get("regions[1]").map(String::as_str),
        Some("ap is not one of this installation's regions (eu, us)")
    );
}

#[test]
fn every_problem_that_needs_no_storage_is_reported_at_once() {
    let sent = definition(json!({
        "title": "T", "regions": ["eu"], "access": "invitation",
        "questions": [{"id": "cv", "text": "Your CV", "type": "file"}],
        "anonymous": true, "segment_attributes": ["team"]}));
    let errors = Pending::new(sent, &two_regions(), None).expect_err("refused");
    let fields: Vec<_> = errors.keys().map(String::as_str).collect();
    assert_eq!(fields, ["access", "regions", "segment_attributes"]);
    assert_eq!(errors["access"], INVITATION_AT_HOME);
}

#[test]
fn where_answers_are_kept_is_fixed_once_published() {
    let current = survey(json!({"title": "T", "questions": rating()}), true);
    let moved = definition(json!({"title": "T", "regions": ["us"], "residency": "region"}));
    let errors =
        Pending::new(moved.clone(), &two_regions(), Some(current.replaced())).expect_err("fixed");
    assert!(errors["residency"].contains("cannot change once the survey was published"));
    // A draft may still choose.
    let draft = survey(json!({"title": "T", "questions": rating()}), false);
    Pending::new(moved, &two_regions(), Some(draft.replaced())).expect("a draft chooses");
}

#[test]
fn a_change_of_anonymity_needs_the_answers_read_and_is_refused_once_answered() {
    let current = survey(json!({"title": "T", "questions": rating()}), true);
    let sent = || definition(json!({"title": "T", "questions": rating(), "anonymous": true}));
    let installation = Installation::default();
    let pending = Pending::new(sent(), &installation, Some(current.replaced())).expect("ok");
    assert_eq!(
        pending.needs(),
        Needs {
            answers_given: true,
            ..Needs::default()
        }
    );
    let errors = pending
        .finish(&Facts {
            answers_given: true,
            ..Facts::default()
        })
        .expect_err("fixed");
    assert_eq!(errors["anonymous"], ANONYMITY_FIXED);
    let pending = Pending::new(sent(), &installation, Some(current.replaced())).expect("ok");
    assert!(
        pending
            .finish(&Facts::default())
            .expect("no answer")
            .anonymous
            == Some(true)
    );
}

#[test]
fn a_survey_with_participants_is_not_sent_away_from_home() {
    let current = survey(json!({"title": "T", "questions": rating()}), false);
    let away = definition(json!({"title": "T", "questions": rating(), "regions": ["eu"]}));
    let installation = two_regions();
    let pending = Pending::new(away, &installation, Some(current.replaced())).expect("ok");
    assert!(pending.needs().participants);
    let facts = Facts {
        participants: true,
        ..Facts::default()
    };
    assert_eq!(
        pending.finish(&facts).expect_err("kept home")["regions"],
        PARTICIPANTS_AT_HOME
    );
}

#[test]
fn a_fact_not_asked_for_changes_nothing() {
    // Everything true, but nothing in the definition touches it.
    let current = survey(json!({"title": "T", "questions": rating()}), true);
    let same = definition(json!({"title": "T2", "questions": rating()}));
    let installation = Installation::default();
    let pending = Pending::new(same, &installation, Some(current.replaced())).expect("ok");
    assert_eq!(pending.needs(), Needs::default());
    let facts = Facts {
        participants: true,
        answers_given: true,
        attributes: None,
    };
    assert_eq!(pending.finish(&facts).expect("checked").title, "T2");
}

proptest! {
    /// Whatever regions a definition names, it passes only if the installation has each of
    /// them, and every one it lacks is named by its place.
    #[test]
    fn only_the_installations_regions_pass(picked in proptest::collection::btree_set(0usize..4, 0..4)) {
        let names = ["eu", "us", "ap", "sa"];
        let sent: Vec<&str> = picked.iter().map(|at| names[*at]).collect();
        let installation = two_regions();
        let result = Pending::new(
            definition(json!({"title": "T", "regions": sent})),
            &installation,
            None,
        );
        let unknown: Vec<String> = sent
            .iter()
            .enumerate()
            .filter(|(_, name)| !["eu", "us"].contains(name))
            .map(|(at, _)| format!("regions[{at}]"))
            .collect();
        match result {
            Ok(_) => prop_assert!(unknown.is_empty()),
            Err(errors) => {
                let named: Vec<String> =
                    errors.keys().filter(|k| k.starts_with("regions[")).cloned().collect();
                prop_assert_eq!(named, unknown);
            }
        }
    }
}

#[test]
fn segment_attributes_are_checked_against_the_participants_values_only_when_named() {
    use crate::domain::participant::MAX_SEGMENT_VALUES;
    let current = survey(json!({"title": "T", "questions": rating()}), true);
    let installation = Installation::default();
    let mut index = crate::domain::participant::AttributeIndex::default();
    index.names.push("team".into());
    index.values.insert(
        "team".into(),
        (0..=MAX_SEGMENT_VALUES).map(|n| format!("t{n}")).collect(),
    );
    let facts = Facts {
        attributes: Some(index),
        ..Facts::default()
    };
    let segmenting = definition(json!({"title": "T", "segment_attributes": ["team"]}));
    let pending = Pending::new(segmenting, &installation, Some(current.replaced())).expect("ok");
    assert!(pending.needs().attributes);
    let errors = pending.finish(&facts).expect_err("too varied");
    assert!(errors["segment_attributes"].contains("team takes more than"));
    // An empty list divides nothing, whatever the participants hold.
    let none = definition(json!({"title": "T", "segment_attributes": []}));
    let pending = Pending::new(none, &installation, Some(current.replaced())).expect("ok");
    assert!(pending.finish(&facts).is_ok());
}
