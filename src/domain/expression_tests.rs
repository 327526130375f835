//! Expressions: what they read, what they refuse, and that no input makes them panic or run
//! long.

use std::collections::BTreeMap;

use proptest::prelude::*;

use super::*;

fn id(text: &str) -> QuestionId {
    QuestionId::parse(text).expect("an id")
}

fn scope(values: &[(&str, AnswerValue)]) -> Scope {
    let values: BTreeMap<QuestionId, AnswerValue> =
        values.iter().map(|(q, v)| (id(q), v.clone())).collect();
    Scope::new(&values, &HiddenValues::default())
}

#[test]
fn percentages_sum_to_a_hundred() {
    let sum = Expression::parse("q.a + q.b + q.c == 100").expect("valid");
    let good = scope(&[
        ("a", AnswerValue::Number(20.0)),
        ("b", AnswerValue::Number(30.5)),
        ("c", AnswerValue::Number(49.5)),
    ]);
    let bad = scope(&[
        ("a", AnswerValue::Number(20.0)),
        ("b", AnswerValue::Number(30.0)),
        ("c", AnswerValue::Number(49.0)),
    ]);
    assert!(sum.holds(&good));
    assert!(!sum.holds(&bad));
}

#[test]
fn a_missing_answer_gives_no_value_and_has_tests_for_it() {
    let plus = Expression::parse("q.a + 1.0").expect("valid");
    assert_eq!(plus.value(&scope(&[])), None);
    let has = Expression::parse("has(q.a) ? q.a : 0.0").expect("valid");
    assert_eq!(has.value(&scope(&[])), Some(Value::Float(0.0)));
}

#[test]
fn choices_read_as_texts_and_lists() {
    let expr = Expression::parse("'Red' in q.colours && q.drink == 'Tea' && size(q.colours) == 2")
        .expect("valid");
    let s = scope(&[
        (
            "colours",
            AnswerValue::Choices(vec!["Red".into(), "Blue".into()]),
        ),
        ("drink", AnswerValue::Choice("Tea".into())),
    ]);
    assert!(expr.holds(&s));
}

#[test]
fn scores_and_variables_are_read() {
    let mut s = scope(&[]);
    s.add_score(&id("quiz1"), 2.0);
    s.add_score(&id("quiz2"), 3.0);
    s.add_correct();
    s.add_variable("total", &serde_json::json!(7));
    let expr = Expression::parse("score == 5.0 && s.quiz2 == 3.0 && correct == 1.0 && v.total > 6")
        .expect("valid");
    assert!(expr.holds(&s));
}

#[test]
fn names_are_collected_from_every_map() {
    let expr = Expression::parse("q.a + q[\"1b\"] > v.total && h.source == 'x' && s.a > 0.0")
        .expect("valid");
    let names = expr.names();
    assert_eq!(names.questions, ["a", "1b"]);
    assert_eq!(names.variables, ["total"]);
    assert_eq!(names.hidden, ["source"]);
    assert_eq!(names.scores, ["a"]);
}

#[test]
fn bad_texts_are_refused_with_a_reason() {
    assert_eq!(Expression::parse("  "), Err(ExpressionProblem::Empty));
    assert_eq!(
        Expression::parse(&"1+".repeat(300)),
        Err(ExpressionProblem::TooLong)
    );
    assert!(matches!(
        Expression::parse("q.a +"),
        Err(ExpressionProblem::Syntax(_))
    ));
    let deep = format!("{}1{}", "(".repeat(40), ")".repeat(40));
    assert_eq!(Expression::parse(&deep), Err(ExpressionProblem::TooDeep));
    let chain = vec!["1"; 60].join(" + ");
    assert_eq!(Expression::parse(&chain), Err(ExpressionProblem::TooDeep));
    assert_eq!(
        Expression::parse("[1,2].all(x, [1,2].exists(y, x == y))"),
        Err(ExpressionProblem::NestedComprehension)
    );
    assert!(Expression::parse("[1,2].all(x, x > 0) && [3].exists(y, y == 3)").is_ok());
}

#[test]
fn long_texts_are_read_as_their_start() {
    let long = "x".repeat(MAX_TEXT_READ * 3);
    let expr = Expression::parse("size(q.t)").expect("valid");
    let value = expr.value(&scope(&[("t", AnswerValue::Text(long))]));
    assert_eq!(value, Some(Value::Int(MAX_TEXT_READ as i64)));
}

#[test]
fn values_store_as_json_and_read_back() {
    let expr = Expression::parse("[q.a * 2.0, 'x', true, {'k': 1}]").expect("valid");
    let value = expr
        .value(&scope(&[("a", AnswerValue::Number(2.5))]))
        .expect("a value");
    let json = to_json(&value).expect("json");
    assert_eq!(json, serde_json::json!([5.0, "x", true, {"k": 1}]));
    assert_eq!(to_json(&Value::Float(f64::INFINITY)), None);
    assert_eq!(shown(&serde_json::json!(7.0)), "7");
    assert_eq!(shown(&serde_json::json!(7.25)), "7.25");
}

#[test]
fn an_expression_serialises_as_its_text_and_is_checked_when_read() {
    let expr = Expression::parse(" q.a > 1.0 ").expect("valid");
    assert_eq!(serde_json::to_string(&expr).expect("json"), "\"q.a > 1.0\"");
    assert!(serde_json::from_str::<Expression>("\"q.a >\"").is_err());
}

/// Pieces that make up generated expressions: names, literals, operators, calls, macros.
const PIECES: [&str; 40] = [
    "q.a",
    "q.b",
    "q.t",
    "q.c",
    "h.x",
    "v.y",
    "s.a",
    "score",
    "correct",
    "1",
    "0",
    "-1",
    "9223372036854775807",
    "2.5",
    "1e308",
    "'txt'",
    "\"\"",
    "true",
    "null",
    "[",
    "]",
    "(",
    ")",
    "{",
    "}",
    ",",
    ":",
    "+",
    "-",
    "*",
    "/",
    "%",
    "==",
    "<",
    "&&",
    "||",
    "!",
    "?",
    "size(",
    ".all(x, x",
];

proptest! {
    /// Any text, and any sequence of expression pieces: parsing answers or refuses, and a
    /// program that parses evaluates to a value or none, without a panic.
    #[test]
    fn no_input_panics(
        pieces in proptest::collection::vec(0..PIECES.len(), 0..120),
        noise in ".{0,60}",
    ) {
        let source: String = pieces.iter().map(|&i| PIECES[i]).collect::<Vec<_>>().join(" ");
        let s = scope(&[
            ("a", AnswerValue::Number(3.0)),
            ("b", AnswerValue::Choices(vec!["x".into(); 50])),
            ("t", AnswerValue::Text("y".repeat(5_000))),
            ("c", AnswerValue::Stars(4)),
        ]);
        for text in [source.as_str(), noise.as_str()] {
            if let Ok(expr) = Expression::parse(text) {
                let _ = expr.value(&s).as_ref().map(to_json);
            }
        }
    }

    /// The costliest accepted shape (one comprehension over the longest lists, its body the
    /// longest text joined again and again) stays small: its value is bounded by the limits.
    #[test]
    fn the_costliest_shapes_stay_bounded(repeats in 1usize..20) {
        let body = vec!["q.t"; repeats].join(" + ");
        let source = format!("q.b.map(x, {body})");
        if let Ok(expr) = Expression::parse(&source) {
            let s = scope(&[
                ("b", AnswerValue::Choices(vec!["x".into(); 50])),
                ("t", AnswerValue::Text("y".repeat(200_000))),
            ]);
            if let Some(Value::List(list)) = expr.value(&s) {
                let chars: usize = list.iter().map(|v| match v {
                    Value::String(s) => s.len(),
                    _ => 0,
                }).sum();
                prop_assert!(chars <= 50 * repeats * MAX_TEXT_READ);
            }
        }
    }
}
