//! Unit and property tests of summaries: merging partial summaries in any grouping and order
//! equals summarising all answers at once.

use std::collections::{BTreeMap, BTreeSet};

use proptest::prelude::*;
use time::OffsetDateTime;

use super::*;
use crate::domain::Reference;

fn id(text: &str) -> QuestionId {
    QuestionId::parse(text).expect("an id")
}

fn answer(values: Vec<(&str, AnswerValue)>) -> Answer {
    Answer {
        values: values.into_iter().map(|(q, v)| (id(q), v)).collect(),
        ..Answer::sample(1)
    }
}

#[test]
fn a_summary_counts_answers_options_ratings_numbers_and_words() {
    let mut summary = SurveySummary::default();
    summary.add(&answer(vec![
        ("pick", AnswerValue::Choice("Tea".into())),
        ("stars", AnswerValue::Stars(4)),
        ("wait", AnswerValue::Number(3.0)),
        ("say", AnswerValue::Text("Great coffee".into())),
    ]));
    summary.add(&answer(vec![
        ("pick", AnswerValue::Choice("Coffee".into())),
        ("many", AnswerValue::Choices(vec!["A".into(), "B".into()])),
        ("stars", AnswerValue::Stars(2)),
    ]));

    assert_eq!(summary.total, 2);
    let QuestionSummary::Choice {
        answered, options, ..
    } = &summary.questions[&id("pick")]
    else {
        panic!("a choice summary")
    };
    assert_eq!(*answered, 2);
    assert_eq!(
        options,
        &BTreeMap::from([("Coffee".into(), 1), ("Tea".into(), 1)])
    );
    let QuestionSummary::Stars { moments, counts } = &summary.questions[&id("stars")] else {
        panic!("a stars summary")
    };
    assert_eq!(counts, &[0, 1, 0, 1, 0]);
    assert_eq!(
        (moments.mean, moments.std_dev(), moments.min, moments.max),
        (3.0, 1.0, 2.0, 4.0)
    );
    assert_eq!(summary.questions[&id("wait")].answered(), 1);
    assert_eq!(summary.questions[&id("many")].answered(), 1);
    let QuestionSummary::Text { words, .. } = &summary.questions[&id("say")] else {
        panic!("a text summary")
    };
    assert_eq!(
        words.top(5),
        vec![("coffee".into(), 1), ("great".into(), 1)]
    );
}

fn value() -> impl Strategy<Value = (String, AnswerValue)> {
    prop_oneof![
        (0..4usize).prop_map(|i| (
            "pick".to_string(),
            AnswerValue::Choice(format!("option{i}"))
        )),
        proptest::collection::btree_set(0..4usize, 1..4).prop_map(|set| (
            "many".to_string(),
            AnswerValue::Choices(set.into_iter().map(|i| format!("o{i}")).collect())
        )),
        (1..=5u8).prop_map(|s| ("stars".to_string(), AnswerValue::Stars(s))),
        (0..=10u8).prop_map(|p| ("nps".to_string(), AnswerValue::Point(p))),
        (0..3usize, 0..3usize).prop_map(|(a, b)| (
            "grid".to_string(),
            AnswerValue::Matrix(BTreeMap::from([
                ("r1".to_string(), format!("c{a}")),
                ("r2".to_string(), format!("c{b}")),
            ]))
        )),
        (0..3usize).prop_map(|r| {
            let mut order = vec!["a".to_string(), "b".into(), "c".into()];
            order.rotate_left(r);
            ("rank".to_string(), AnswerValue::Ranking(order))
        }),
        (0..3usize, "[a-c]{2,3}").prop_map(|(i, text)| (
            "pick".to_string(),
            AnswerValue::Other {
                picked: vec![format!("option{i}")],
                text
            }
        )),
        (1..=28u8).prop_map(|d| (
            "day".to_string(),
            AnswerValue::Date(format!("2026-02-{d:02}"))
        )),
        (-1e6..1e6f64).prop_map(|n| ("number".to_string(), AnswerValue::Number(n))),
        (0..12i32).prop_map(|n| ("whole".to_string(), AnswerValue::Number(f64::from(n)))),
        "[a-c]{2,3}( [a-c]{2,3}){0,3}".prop_map(|t| ("text".to_string(), AnswerValue::Text(t))),
        (0..=crate::domain::upload::MAX_FILE_BYTES).prop_map(|bytes| (
            "photo".to_string(),
            AnswerValue::File(crate::domain::upload::FileAnswer {
                id: "0123456789abcdef".into(),
                name: "photo.png".into(),
                kind: crate::domain::upload::FileKind::Image,
                mime: "image/png".into(),
                bytes,
            })
        )),
    ]
}

fn answers() -> impl Strategy<Value = Vec<Answer>> {
    // Each answer with the questions its respondent was not shown (display logic).
    let hidden = proptest::collection::btree_set(
        prop::sample::select(vec!["pick", "many", "stars", "hidden1", "hidden2"]),
        0..3,
    );
    // Distinct references; submission times from a few seconds, so the newest text answers
    // are often tied on time.
    let one = (proptest::collection::vec(value(), 0..5), hidden, 0..5i64);
    proptest::collection::vec(one, 1..60).prop_map(|all| {
        all.into_iter()
            .enumerate()
            .map(|(n, (values, hidden, second))| {
                let values: BTreeMap<QuestionId, AnswerValue> =
                    values.into_iter().map(|(q, v)| (id(&q), v)).collect();
                let mut one = answer(vec![]);
                one.reference = Reference(1000 + n as u64);
                one.submitted_at = OffsetDateTime::UNIX_EPOCH + time::Duration::seconds(second);
                one.skipped = hidden.into_iter().map(id).collect();
                one.values = values;
                one
            })
            .collect()
    })
}

fn summarise(answers: &[Answer]) -> SurveySummary {
    let mut summary = SurveySummary::default();
    for answer in answers {
        summary.add(answer);
    }
    summary
}

/// Equal up to floating-point rounding in means and deviations.
fn assert_same(a: &SurveySummary, b: &SurveySummary) -> Result<(), TestCaseError> {
    assert_same_within(a, b, 0.0)
}

/// As `assert_same`, rounding judged against numbers of size `scale` as well (subtraction
/// leaves errors the size of the numbers taken out, not of what remains).
fn assert_same_within(
    a: &SurveySummary,
    b: &SurveySummary,
    scale: f64,
) -> Result<(), TestCaseError> {
    prop_assert_eq!(a.total, b.total);
    prop_assert_eq!(&a.hidden, &b.hidden);
    prop_assert_eq!(a.questions.len(), b.questions.len());
    for (question, left) in &a.questions {
        let right = &b.questions[question];
        match (left, right) {
            (
                QuestionSummary::Number {
                    moments: m1,
                    histogram: h1,
                    values: v1,
                },
                QuestionSummary::Number {
                    moments: m2,
                    histogram: h2,
                    values: v2,
                },
            ) => {
                prop_assert_eq!(h1, h2);
                prop_assert_eq!(v1, v2);
                close(m1, m2, scale)?;
            }
            (left, right)
                if let (Some((m1, c1)), Some((m2, c2))) = (scaled(left), scaled(right)) =>
            {
                prop_assert_eq!(c1, c2);
                close(m1, m2, scale)?;
            }
            _ => prop_assert_eq!(left, right),
        }
    }
    Ok(())
}

/// A stars or points summary's moments and counts of each value.
fn scaled(summary: &QuestionSummary) -> Option<(&Moments, &[u64])> {
    match summary {
        QuestionSummary::Stars { moments, counts } => Some((moments, counts)),
        QuestionSummary::Points { moments, counts } => Some((moments, counts)),
        _ => None,
    }
}

fn close(a: &Moments, b: &Moments, scale: f64) -> Result<(), TestCaseError> {
    prop_assert_eq!(a.count, b.count);
    prop_assert_eq!((a.min, a.max), (b.min, b.max));
    let near = |x: f64, y: f64| (x - y).abs() <= 1e-9 * (1.0 + x.abs().max(y.abs()).max(scale));
    prop_assert!(near(a.mean, b.mean), "means {} vs {}", a.mean, b.mean);
    prop_assert!(
        near(a.std_dev(), b.std_dev()),
        "deviations {} vs {}",
        a.std_dev(),
        b.std_dev()
    );
    Ok(())
}

proptest! {
    #[test]
    fn merging_partial_summaries_in_any_grouping_and_order_equals_one_pass(
        answers in answers(),
        cuts in proptest::collection::vec(any::<prop::sample::Index>(), 0..6),
        order in any::<u64>(),
    ) {
        let whole = summarise(&answers);

        let mut bounds: Vec<usize> = cuts.iter().map(|cut| cut.index(answers.len() + 1)).collect();
        bounds.extend([0, answers.len()]);
        bounds.sort_unstable();
        bounds.dedup();
        let mut parts: Vec<SurveySummary> =
            bounds.windows(2).map(|w| summarise(&answers[w[0]..w[1]])).collect();
        // At most 36 distinct words: under the sketch's capacity, so word counts are exact.
        // A deterministic shuffle of the parts, then a left fold, and a tree-shaped fold.
        let len = parts.len();
        for i in 0..len {
            parts.swap(i, (order as usize).wrapping_mul(i + 7) % len);
        }
        let mut folded = SurveySummary::default();
        for part in &parts {
            folded.merge(part);
        }
        while parts.len() > 1 {
            let right = parts.pop().expect("two parts");
            let left = parts.pop().expect("two parts");
            let mut pair = right;
            pair.merge(&left);
            parts.insert(0, pair);
        }

        assert_same(&folded, &whole)?;
        assert_same(&parts[0], &whole)?;
        // Shown counts are exact: every answer not hiding a question saw it.
        for question in ["pick", "hidden1"] {
            let saw = answers.iter().filter(|a| !a.skipped.contains(&id(question))).count() as u64;
            prop_assert_eq!(whole.shown(&id(question)), saw);
        }
    }
}

#[test]
fn numbers_stored_before_the_limit_are_counted_at_its_edge() {
    let mut summary = SurveySummary::default();
    for number in [1.0, 1e200, -1e300, f64::MAX] {
        summary.add(&answer(vec![("n", AnswerValue::Number(number))]));
    }

    assert!(summary.is_finite(), "{summary:?}");
    let QuestionSummary::Number { moments, .. } = &summary.questions[&id("n")] else {
        panic!("a number summary")
    };
    assert_eq!(moments.count, 4);
    assert_eq!(moments.max, crate::domain::question::MAX_NUMBER);
    assert_eq!(moments.min, -crate::domain::question::MAX_NUMBER);
    assert!(moments.std_dev().is_finite());
}

/// A summary without what subtraction cannot give back (min and max, word sketches, latest
/// answers): the part that must come out exact.
fn subtractable(summary: &SurveySummary) -> SurveySummary {
    let mut summary = summary.clone();
    for question in summary.questions.values_mut() {
        match question {
            QuestionSummary::Text { words, recent, .. } => {
                *words = Default::default();
                *recent = Default::default();
            }
            QuestionSummary::Choice { other, .. } => *other = Default::default(),
            QuestionSummary::Stars { moments, .. }
            | QuestionSummary::Points { moments, .. }
            | QuestionSummary::Number { moments, .. } => {
                (moments.min, moments.max) = (0.0, 0.0);
            }
            _ => {}
        }
    }
    summary
}

proptest! {
    #[test]
    fn subtracting_answers_leaves_the_summary_of_the_rest(
        answers in answers(),
        gone in proptest::collection::vec(any::<prop::sample::Index>(), 0..20),
    ) {
        let gone: BTreeSet<usize> = gone.iter().map(|i| i.index(answers.len())).collect();
        let mut whole = summarise(&answers);
        for &i in &gone {
            whole.subtract(&answers[i]);
        }
        let rest: Vec<Answer> = answers
            .iter()
            .enumerate()
            .filter(|(i, _)| !gone.contains(i))
            .map(|(_, a)| a.clone())
            .collect();
        // Numbers in the answers are below 1e6 in size.
        assert_same_within(&subtractable(&whole), &subtractable(&summarise(&rest)), 1e6)?;
        // Latest answers lose exactly the subtracted ones.
        for (question, summary) in &whole.questions {
            if let QuestionSummary::Text { recent, .. } = summary {
                for kept in recent.iter() {
                    prop_assert!(rest.iter().any(|a| a.reference == kept.reference
                        && a.values.contains_key(question)));
                }
            }
        }
    }
}
