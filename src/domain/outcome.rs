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
