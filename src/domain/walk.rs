//! A respondent's way through a survey: the pages shown for the answers posted, each shown
//! question's answer checked (its type, then its validation), and where the jumps lead.

use std::collections::{BTreeMap, BTreeSet};

use super::answer::{AnswerValue, RawAnswers, answer_to};
use super::iteration::in_item;
use super::logic::{Target, next_page_in};
use super::outcome::refused;
use super::problem::AnswerProblem;
use super::question::MAX_RESPONSE_TEXT;
use super::{QuestionId, Survey};

/// What is wrong with each wrongly answered question.
pub type FieldErrors = BTreeMap<QuestionId, AnswerProblem>;

/// A respondent's way through a survey's pages for the answers they posted: the pages shown,
/// the valid answers to shown questions, and what is wrong with the others.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Walk {
    /// The pages shown, by index, in order.
    pub route: Vec<usize>,
    /// Valid answers to questions shown; answers to questions not shown are dropped.
    pub values: BTreeMap<QuestionId, AnswerValue>,
    /// Questions not shown (on the route's pages, or on pages never reached).
    pub skipped: BTreeSet<QuestionId>,
    /// What is wrong with each wrongly answered question shown.
    pub errors: FieldErrors,
    /// Where the respondent goes after the route's last page.
    pub next: Target,
}

impl Walk {
    /// The first page of the route with a wrong answer on it.
    pub fn first_page_with_errors(&self, survey: &Survey) -> Option<usize> {
        self.route.iter().copied().find(|&page| {
            survey
                .step_questions(page)
                .iter()
                .any(|q| self.errors.contains_key(&q.id))
        })
    }
}

impl Survey {
    /// Walks the pages from the first, as a respondent with these answers would: each shown
    /// page's shown questions are checked, then its jumps decide the next page. With
    /// `through`, the walk stops after that page (if it is reached): what a respondent leaving
    /// it sees; without, it goes to the end: a whole response.
    pub fn walk(&self, raw: &RawAnswers, through: Option<usize>) -> Walk {
        let shown = vec![false; self.questions.len()];
        self.walk_from(raw, Walk::default(), shown, 0, through)
    }

    /// Goes on with `walk`, a walk of these same answers that stopped after a page (see
    /// `walk`), through page `through` or to the end: the same walk as `walk(raw, through)`
    /// when `through` is not on `walk`'s route, without checking its pages again. A page
    /// step shows the next page from the walk that checked the page left.
    pub fn walk_on(&self, raw: &RawAnswers, mut walk: Walk, through: Option<usize>) -> Walk {
        let next = match (walk.route.last(), walk.next) {
            (Some(&last), Target::Page(next)) if next > last => next,
            // A walk that ended goes no further.
            (Some(_), Target::End) => return walk,
            // Jumps only go forward; were one not to (or no walk was made), the walk from the
            // first page decides.
            _ => return self.walk(raw, through),
        };
        // Shown is what was not skipped; the length check is made again over all answers.
        let shown = self
            .questions
            .iter()
            .map(|question| !walk.skipped.contains(&question.id))
            .collect();
        walk.errors
            .retain(|_, problem| !matches!(problem, AnswerProblem::ResponseTooLong { .. }));
        self.walk_from(raw, walk, shown, next, through)
    }

    /// The walk from page `current` on, with `walk` the route so far and `shown` which
    /// questions it showed, by position (ids are only copied for the hidden ones).
    fn walk_from(
        &self,
        raw: &RawAnswers,
        mut walk: Walk,
        mut shown: Vec<bool>,
        mut current: usize,
        through: Option<usize>,
    ) -> Walk {
        // Steps: the pages, or one per question (see `Survey::steps`).
        let pages = self.steps();
        let pages = &pages[..];
        // Expression conditions read variables and scores too.
        let reader =
            |values: &BTreeMap<QuestionId, AnswerValue>| self.scope(values, raw.hidden()).0;
        // Jumps only go forward and a page is visited once, so this ends within pages.len().
        loop {
            walk.route.push(current);
            let first = pages[current].start;
            // On a loop's page, expressions read the current item's answers as `q.ID`.
            let item = pages[current].item.as_ref();
            for (offset, question) in self.step_questions(current).iter().enumerate() {
                let read = in_item(&walk.values, item);
                if !question
                    .show_if
                    .as_ref()
                    .is_none_or(|c| c.holds_in(&read, raw.hidden(), &reader))
                {
                    continue;
                }
                if let Some(seen) = shown.get_mut(first + offset) {
                    *seen = true;
                }
                match answer_to(question, raw) {
                    Ok(Some(value)) => {
                        walk.values.insert(question.id.clone(), value);
                        // The owner's check runs once the answer is of the right type, over
                        // every answer given so far (this one included).
                        if let Some(message) = question.validate.as_ref().and_then(|v| {
                            refused(v, &in_item(&walk.values, item), self, raw.hidden())
                        }) {
                            walk.values.remove(&question.id);
                            walk.errors
                                .insert(question.id.clone(), AnswerProblem::Refused { message });
                        }
                    }
                    Ok(None) => {}
                    Err(message) => {
                        walk.errors.insert(question.id.clone(), message);
                    }
                }
            }
            walk.next = next_page_in(pages, current, &walk.values, raw.hidden(), &reader);
            match walk.next {
                _ if through == Some(current) => break,
                Target::Page(next) if next > current => current = next,
                _ => break,
            }
        }
        walk.skipped = self
            .questions
            .iter()
            .zip(&shown)
            .filter(|(_, shown)| !**shown)
            .map(|(question, _)| question.id.clone())
            .collect();
        if let Some((question, message)) = too_much_text(&walk.values) {
            walk.errors.insert(question, message);
        }
        walk
    }

    /// The answers an address fills in (`?q.age=30`, as `(id, value)` pairs): each question's
    /// values kept only where they answer it validly (the respondent may still change them).
    pub fn prefill<'a>(&self, pairs: impl Iterator<Item = (&'a str, &'a str)>) -> RawAnswers {
        let mut given = RawAnswers::default();
        for (id, value) in pairs {
            let known = QuestionId::parse(id).is_some_and(|id| self.question(&id).is_some());
            if known && given.len() < self.questions.len() {
                given.push(id, value.to_owned());
            }
        }
        let mut kept = RawAnswers::default();
        for question in &self.questions {
            if let Ok(Some(_)) = answer_to(question, &given) {
                for value in given.raw_values(&question.id) {
                    kept.push(question.id.as_str(), value.clone());
                }
            }
        }
        kept
    }

    /// Checks a whole response: either every answer to a shown question is valid (answers to
    /// hidden questions are dropped), or each wrong one has a message.
    pub fn validate(
        &self,
        raw: &RawAnswers,
    ) -> Result<BTreeMap<QuestionId, AnswerValue>, FieldErrors> {
        let walk = self.walk(raw, None);
        if walk.errors.is_empty() {
            Ok(walk.values)
        } else {
            Err(walk.errors)
        }
    }
}

/// The longest text answer and a message, when the texts of a response add up to more than
/// `MAX_RESPONSE_TEXT` characters.
fn too_much_text(
    values: &BTreeMap<QuestionId, AnswerValue>,
) -> Option<(QuestionId, AnswerProblem)> {
    let texts = values.iter().filter_map(|(id, value)| match value {
        AnswerValue::Text(text) => Some((id, text.chars().count())),
        _ => None,
    });
    let total: usize = texts.clone().map(|(_, length)| length).sum();
    let (longest, _) = texts.max_by_key(|(_, length)| *length)?;
    (total > MAX_RESPONSE_TEXT).then(|| {
        (
            longest.clone(),
            AnswerProblem::ResponseTooLong {
                total,
                most: MAX_RESPONSE_TEXT,
            },
        )
    })
}
