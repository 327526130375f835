//! What a survey computes for a response: its expressions' scope (answers, hidden values,
//! scores, variables), and the outcome stored with the response (variables, score, correct
//! answers, ending).

use std::collections::BTreeMap;

use super::answer_value::AnswerValue;
use super::calculation::{Ending, Outcome, Validation};
use super::expression::{self, Scope};
use super::hidden::HiddenValues;
use super::{Question, QuestionId, Survey};

impl Question {
    /// Its points for `answer`: the points of the options picked.
    pub fn points(&self, answer: &AnswerValue) -> Option<f64> {
        if self.scoring.scores.is_empty() {
            return None;
        }
        let options = self.kind.options();
        let of = |picked: &str| {
            options
                .iter()
                .position(|o| o == picked)
                .and_then(|at| self.scoring.scores.get(at))
                .copied()
                .unwrap_or(0.0)
        };
        Some(match answer {
            AnswerValue::Choice(one) => of(one),
            AnswerValue::Choices(many) | AnswerValue::Other { picked: many, .. } => {
                many.iter().map(|p| of(p)).sum()
            }
            _ => 0.0,
        })
    }

    /// Whether `answer` is exactly its correct options (`None`: it has none).
    pub fn is_correct(&self, answer: Option<&AnswerValue>) -> Option<bool> {
        if self.scoring.correct.is_empty() {
            return None;
        }
        let mut picked: Vec<&str> = match answer {
            Some(AnswerValue::Choice(one)) => vec![one],
            Some(AnswerValue::Choices(many)) => many.iter().map(String::as_str).collect(),
            _ => vec![],
        };
        let mut correct: Vec<&str> = self.scoring.correct.iter().map(String::as_str).collect();
        picked.sort_unstable();
        correct.sort_unstable();
        Some(picked == correct)
    }
}

impl Survey {
    /// Whether it computes anything for a response (variables, scores, endings).
    pub fn calculates(&self) -> bool {
        !self.variables.is_empty()
            || !self.endings.is_empty()
            || self.questions.iter().any(|q| !q.scoring.is_empty())
    }

    /// What its expressions read for these answers: the answers, hidden values, scores and
    /// every variable (each computed over those listed before it).
    pub fn scope(
        &self,
        values: &BTreeMap<QuestionId, AnswerValue>,
        hidden: &HiddenValues,
    ) -> (Scope, BTreeMap<String, serde_json::Value>) {
        let mut scope = Scope::new(values, hidden);
        for question in self.questions.iter().filter(|q| !q.scoring.is_empty()) {
            let answer = values.get(&question.id);
            if let Some(points) = answer.and_then(|a| question.points(a)) {
                scope.add_score(&question.id, points);
            }
            if question.is_correct(answer) == Some(true) {
                scope.add_correct();
            }
        }
        let mut variables = BTreeMap::new();
        for variable in &self.variables {
            if let Some(value) = variable
                .expression
                .value(&scope)
                .as_ref()
                .and_then(expression::to_json)
            {
                scope.add_variable(&variable.id, &value);
                variables.insert(variable.id.clone(), value);
            }
        }
        (scope, variables)
    }

    /// What is computed for a whole response.
    pub fn outcome(
        &self,
        values: &BTreeMap<QuestionId, AnswerValue>,
        hidden: &HiddenValues,
    ) -> Outcome {
        if !self.calculates() {
            return Outcome::default();
        }
        let (scope, variables) = self.scope(values, hidden);
        let scored = self.questions.iter().any(|q| !q.scoring.scores.is_empty());
        let quiz = self.questions.iter().any(|q| !q.scoring.correct.is_empty());
        let score = scored.then(|| {
            self.questions
                .iter()
                .filter_map(|q| values.get(&q.id).and_then(|a| q.points(a)))
                .sum()
        });
        let correct = quiz.then(|| {
            let right = self
                .questions
                .iter()
                .filter(|q| q.is_correct(values.get(&q.id)) == Some(true))
                .count();
            u32::try_from(right).unwrap_or(u32::MAX)
        });
        let ending = self
            .endings
            .iter()
            .find(|e| e.when.as_ref().is_none_or(|when| when.holds(&scope)))
            .map(|e| e.id.clone());
        Outcome {
            variables,
            score,
            correct,
            ending,
        }
    }

    /// The ending of this id.
    pub fn ending(&self, id: &str) -> Option<&Ending> {
        self.endings.iter().find(|e| e.id == id)
    }

    /// How many of its questions have correct answers.
    pub fn quiz_questions(&self) -> usize {
        self.questions
            .iter()
            .filter(|q| !q.scoring.correct.is_empty())
            .count()
    }
}

/// The problem with a question's answer under its validation, if it fails.
pub fn refused(
    validation: &Validation,
    values: &BTreeMap<QuestionId, AnswerValue>,
    survey: &Survey,
    hidden: &HiddenValues,
) -> Option<String> {
    let (scope, _) = survey.scope(values, hidden);
    (!validation.expression.holds(&scope)).then(|| validation.message.clone())
}

/// What a thank-you page shows of a response's outcome, read back from its link.
#[derive(Debug, Default, PartialEq)]
pub struct Shown<'a> {
    /// The ending reached.
    pub ending: Option<&'a Ending>,
    /// The score.
    pub score: Option<f64>,
    /// For each quiz question in order, whether it was answered correctly.
    pub right: Vec<bool>,
}

impl Outcome {
    /// What the thank-you link carries of it (signed beside it): `ENDING~SCORE~MASK`, the
    /// mask a `1` or `0` per quiz question; empty when there is nothing to show.
    pub fn result(&self, survey: &Survey, values: &BTreeMap<QuestionId, AnswerValue>) -> String {
        let shows_ending = self
            .ending
            .as_deref()
            .and_then(|id| survey.ending(id))
            .is_some_and(|e| e.text.is_some());
        if !shows_ending && survey.quiz.is_off() {
            return String::new();
        }
        let mask: String = survey
            .questions
            .iter()
            .filter_map(|q| q.is_correct(values.get(&q.id)))
            .map(|right| if right { '1' } else { '0' })
            .collect();
        let score = self.score.map(|s| s.to_string()).unwrap_or_default();
        format!("{}~{score}~{mask}", self.ending.as_deref().unwrap_or(""))
    }
}

impl Survey {
    /// A thank-you link's `result` read back (`None` if it is not one of this survey's).
    pub fn read_result(&self, result: &str) -> Option<Shown<'_>> {
        let mut parts = result.splitn(3, '~');
        let (ending, score, mask) = (parts.next()?, parts.next()?, parts.next()?);
        let ending = match ending {
            "" => None,
            id => Some(self.ending(id)?),
        };
        let score = match score {
            "" => None,
            number => Some(number.parse::<f64>().ok().filter(|n| n.is_finite())?),
        };
        if mask.len() != self.quiz_questions() {
            return None;
        }
        let right = mask
            .chars()
            .map(|c| match c {
                '1' => Some(true),
                '0' => Some(false),
                _ => None,
            })
            .collect::<Option<Vec<bool>>>()?;
        Some(Shown {
            ending,
            score,
            right,
        })
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::domain::definition::SurveyInput;
    use crate::domain::definition::checked::for_one_region;

    fn survey() -> Survey {
        let input: SurveyInput = serde_json::from_value(json!({
            "title": "Quiz",
            "variables": [{"id": "double", "expression": "score * 2.0"},
                          {"id": "broken", "expression": "q.missing + 1.0"}],
            "endings": [{"id": "top", "if": "v.double >= 6.0"}, {"id": "rest"}],
            "questions": [
                {"id": "one", "text": "One?", "type": "single_choice",
                 "options": ["A", "B"], "scores": [3, 0], "correct": ["A"]},
                {"id": "many", "text": "Many?", "type": "multiple_choice",
                 "options": ["X", "Y", "Z"], "scores": [1, -1, 1], "correct": ["X", "Z"]},
                {"id": "missing", "text": "Number?", "type": "numeric"}]
        }))
        .expect("the shape");
        let definition = input.check(&[]).and_then(for_one_region).expect("valid");
        Survey::draft(
            crate::domain::TenantSlug::parse("acme").expect("a slug"),
            crate::domain::SurveySlug::parse("quiz").expect("a slug"),
            definition,
            time::OffsetDateTime::UNIX_EPOCH,
        )
    }

    fn values(pairs: &[(&str, AnswerValue)]) -> BTreeMap<QuestionId, AnswerValue> {
        pairs
            .iter()
            .map(|(id, value)| (QuestionId::parse(id).expect("an id"), value.clone()))
            .collect()
    }

    #[test]
    fn no_answers_score_nothing_and_reach_the_ending_that_always_holds() {
        let outcome = survey().outcome(&BTreeMap::new(), &HiddenValues::default());
        assert_eq!(outcome.score, Some(0.0));
        assert_eq!(outcome.correct, Some(0));
        assert_eq!(
            outcome.variables,
            BTreeMap::from([("double".into(), json!(0.0))])
        );
        assert_eq!(outcome.ending.as_deref(), Some("rest"));
    }

    #[test]
    fn points_add_up_wrong_ticks_subtract_and_only_exact_sets_are_correct() {
        let survey = survey();
        let all = values(&[
            ("one", AnswerValue::Choice("A".into())),
            ("many", AnswerValue::Choices(vec!["X".into(), "Z".into()])),
        ]);
        let outcome = survey.outcome(&all, &HiddenValues::default());
        assert_eq!(outcome.score, Some(5.0));
        assert_eq!(outcome.correct, Some(2));
        assert_eq!(outcome.ending.as_deref(), Some("top"));
        // One tick too many: a point less, and no longer exactly the correct set.
        let extra = values(&[
            ("one", AnswerValue::Choice("A".into())),
            (
                "many",
                AnswerValue::Choices(vec!["X".into(), "Y".into(), "Z".into()]),
            ),
        ]);
        let outcome = survey.outcome(&extra, &HiddenValues::default());
        assert_eq!(outcome.score, Some(4.0));
        assert_eq!(outcome.correct, Some(1));
        // A variable whose expression has no value is left out, never stored as an error.
        assert!(!outcome.variables.contains_key("broken"));
    }

    #[test]
    fn a_thank_you_result_reads_back_and_a_wrong_one_is_refused() {
        let survey = survey();
        let all = values(&[("one", AnswerValue::Choice("A".into()))]);
        let result = survey
            .outcome(&all, &HiddenValues::default())
            .result(&survey, &all);
        assert_eq!(result, "");
        let mut quiz = survey.clone();
        quiz.quiz.show_score = true;
        let result = quiz
            .outcome(&all, &HiddenValues::default())
            .result(&quiz, &all);
        assert_eq!(result, "top~3~10");
        let shown = quiz.read_result(&result).expect("read back");
        assert_eq!((shown.score, shown.right), (Some(3.0), vec![true, false]));
        for wrong in ["nope~3~10", "top~x~10", "top~3~1", "top~3~12", "top~3"] {
            assert!(quiz.read_result(wrong).is_none(), "{wrong}");
        }
    }
}
