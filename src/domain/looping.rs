//! Loops ("loop and merge"): a page, or a run of pages, shown once for each option a
//! respondent chose in an earlier multiple-choice question (`{"over": ID}`), or as many times
//! as an earlier number says (`{"times": ID}`), at most `MAX_ITERATIONS` times. `{{loop}}` in
//! its texts shows the current item.
//!
//! A survey is unrolled for the answers a respondent posted (`Survey::unrolled`): the run's
//! pages are copied once per item, each copy's questions answered under `ID[item]`, so every
//! step of the answer path (walk, checks, pages, save and resume) works on it as on any survey,
//! and a loop's answers can only belong to items the respondent chose.

use std::borrow::Cow;

use super::answer::{AnswerValue, RawAnswers};
use super::logic::{Condition, PageLayout, Target};
use super::{Question, QuestionId, QuestionKind, Survey};

pub use super::iteration::{Loop, LoopItem, in_item};
pub use super::question::{MAX_ITEM_KEY, is_item_key};

/// Most times a run of pages is shown.
pub const MAX_ITERATIONS: usize = 50;
/// What a text writes to show the current item.
pub const LOOP_TOKEN: &str = "{{loop}}";
/// The key of the item "Other, please specify" makes.
pub const OTHER_KEY: &str = "other";

/// The keys of a list of options: each option's words in lowercase joined by `_`, cut to
/// `MAX_ITEM_KEY` (`Hot chocolate` → `hot_chocolate`); `oN` (its position from 1) where that
/// is empty or taken.
pub fn option_keys(options: &[String]) -> Vec<String> {
    let mut keys: Vec<String> = Vec::with_capacity(options.len());
    for (at, option) in options.iter().enumerate() {
        let words: Vec<String> = option
            .split(|c: char| !c.is_ascii_alphanumeric())
            .filter(|w| !w.is_empty())
            .map(str::to_ascii_lowercase)
            .collect();
        let mut key = words.join("_");
        key.truncate(MAX_ITEM_KEY);
        let key = key.trim_end_matches('_').to_owned();
        let taken = |k: &str| keys.iter().any(|had| had == k) || k == OTHER_KEY;
        let key = match key.is_empty() || taken(&key) {
            true => format!("o{}", at + 1),
            false => key,
        };
        keys.push(key);
    }
    keys
}

/// The items a loop goes through for its source question's (checked) answer: the options
/// chosen, in the question's order, "Other" last; or 1 to the number given.
pub fn items_of(looped: &Loop, source: &Question, answer: Option<&AnswerValue>) -> Vec<LoopItem> {
    let item = |key: String, option: Option<usize>, label: String| LoopItem {
        key,
        source: source.id.clone(),
        option,
        label,
    };
    if looped.times.is_some() {
        let times = match answer {
            Some(AnswerValue::Number(n)) if n.is_finite() && *n >= 1.0 => {
                (n.floor() as usize).min(MAX_ITERATIONS)
            }
            _ => 0,
        };
        return (1..=times)
            .map(|n| item(n.to_string(), None, n.to_string()))
            .collect();
    }
    let options = source.kind.options();
    let keys = option_keys(options);
    let (picked, other): (&[String], Option<&str>) = match answer {
        Some(AnswerValue::Choices(picked)) => (picked, None),
        Some(AnswerValue::Other { picked, text }) => (picked, Some(text)),
        _ => (&[], None),
    };
    let mut items: Vec<LoopItem> = options
        .iter()
        .enumerate()
        .filter(|(_, option)| picked.contains(option))
        .map(|(at, option)| item(keys[at].clone(), Some(at), option.clone()))
        .collect();
    if let Some(text) = other {
        items.push(item(OTHER_KEY.to_owned(), None, text.to_owned()));
    }
    items.truncate(MAX_ITERATIONS);
    items
}

/// Every item a loop can go through (its download's columns), as `(key, label)`: each option
/// and "Other", or 1 to the largest number its source accepts (at most `MAX_ITERATIONS`).
pub fn possible_items(looped: &Loop, source: &Question) -> Vec<(String, String)> {
    if looped.times.is_some() {
        let most = match &source.kind {
            QuestionKind::Numeric { max: Some(max), .. } if *max >= 0.0 => {
                (max.floor() as usize).min(MAX_ITERATIONS)
            }
            _ => MAX_ITERATIONS,
        };
        return (1..=most).map(|n| (n.to_string(), n.to_string())).collect();
    }
    let options = source.kind.options();
    let mut items: Vec<(String, String)> = option_keys(options)
        .into_iter()
        .zip(options.iter().cloned())
        .collect();
    if source.kind.has_other() {
        items.push((OTHER_KEY.to_owned(), super::choice::OTHER.to_owned()));
    }
    items.truncate(MAX_ITERATIONS);
    items
}

/// Points the rules of `condition` that test a question in `run` at that question's answer for
/// `key`.
fn point_at_item(condition: &mut Condition, run: &[QuestionId], key: &str) {
    match condition {
        Condition::All { all: list } | Condition::Any { any: list } => {
            for inner in list {
                point_at_item(inner, run, key);
            }
        }
        Condition::Rule(rule) if run.contains(&rule.question) => {
            rule.question = rule.question.for_item(key);
        }
        _ => {}
    }
}

impl Survey {
    /// Its loops, each with the index of its first page.
    pub fn loops(&self) -> impl Iterator<Item = (usize, &Loop)> {
        self.layout
            .iter()
            .enumerate()
            .filter_map(|(at, page)| Some((at, page.repeat.as_ref()?)))
    }

    /// The question an answer's id answers: the question of that id, or the one a loop's
    /// `ID[item]` repeats.
    pub fn question_answered(&self, id: &QuestionId) -> Option<&Question> {
        self.question(id)
            .or_else(|| id.looped().and_then(|(base, _)| self.question(&base)))
    }

    /// The loop a question is repeated by, if any.
    pub fn loop_of(&self, question: &QuestionId) -> Option<&Loop> {
        let at = self.questions.iter().position(|q| &q.id == question)?;
        self.loops()
            .find(|(first, looped)| {
                let start = self.layout[*first].start;
                let end = self
                    .layout
                    .get(first + looped.pages)
                    .map_or(self.questions.len(), |page| page.start);
                (start..end).contains(&at)
            })
            .map(|(_, looped)| looped)
    }

    /// The survey as a respondent who posted `raw` goes through it, when it has loops: each
    /// loop's pages once per item of its source's answer (none when it was not shown or not
    /// answered). Each loop is unrolled in turn, its items read from the walk up to its first
    /// page, so a source hidden by logic repeats nothing.
    pub fn unrolled(&self, raw: &RawAnswers) -> Option<Survey> {
        self.loops().next()?;
        let mut survey = self.clone();
        // Copies and moved pages keep their index as defined, for their texts and the funnel.
        for (at, page) in survey.layout.iter_mut().enumerate() {
            page.origin = Some(self.layout[at].origin.unwrap_or(at));
        }
        // Each pass unrolls the first loop not yet unrolled (copies carry their item).
        while let Some(first) = survey
            .layout
            .iter()
            .position(|page| page.repeat.is_some() && page.item.is_none())
        {
            let looped = survey.layout[first].repeat.clone()?;
            let source = looped.source().and_then(|id| survey.question(id))?.clone();
            let answer = match first {
                0 => None,
                _ => survey.walk(raw, Some(first - 1)).values.remove(&source.id),
            };
            let items = items_of(&looped, &source, answer.as_ref());
            survey = survey.unroll(first, &looped, &items);
        }
        Some(survey)
    }

    /// The survey with the run of `looped`'s pages from `first` shown once per item.
    fn unroll(mut self, first: usize, looped: &Loop, items: &[LoopItem]) -> Survey {
        let span = looped.pages.max(1).min(self.layout.len() - first);
        let after = first + span;
        let question_at = |page: usize| {
            self.layout
                .get(page)
                .map_or(self.questions.len(), |p| p.start)
        };
        let (run_start, run_end) = (question_at(first), question_at(after));
        let run: Vec<QuestionId> = self.questions[run_start..run_end]
            .iter()
            .map(|q| q.id.clone())
            .collect();
        let shift = |to: usize| match to {
            to if to >= after => to + items.len() * span - span,
            to => to,
        };
        let mut questions: Vec<Question> = self.questions[..run_start].to_vec();
        let mut layout: Vec<PageLayout> = self.layout[..first].to_vec();
        for item in items {
            for page in first..after {
                let mut copy = self.layout[page].clone();
                copy.start = questions.len();
                copy.item = Some(item.clone());
                if let Some(condition) = &mut copy.show_if {
                    point_at_item(condition, &run, &item.key);
                }
                let (from, to) = (question_at(page), question_at(page + 1));
                for question in &self.questions[from..to] {
                    let mut copy = question.clone();
                    copy.id = question.id.for_item(&item.key);
                    if let Some(condition) = &mut copy.show_if {
                        point_at_item(condition, &run, &item.key);
                    }
                    questions.push(copy);
                }
                layout.push(copy);
            }
        }
        for page in &self.layout[after..] {
            let mut moved = page.clone();
            moved.start = questions.len() + (page.start - run_end);
            layout.push(moved);
        }
        questions.extend_from_slice(&self.questions[run_end..]);
        for page in &mut layout {
            for jump in &mut page.jumps {
                if let Target::Page(to) = jump.to {
                    jump.to = Target::Page(shift(to));
                }
            }
        }
        // A repeated question's translations serve each of its copies.
        for texts in self.translations.values_mut() {
            let copied: Vec<(String, String)> = texts
                .iter()
                .filter_map(|(key, text)| {
                    let rest = key.strip_prefix("q:")?;
                    let (id, part) = rest.split_once(':')?;
                    run.iter()
                        .any(|q| q.as_str() == id)
                        .then_some((id, part, text))
                })
                .flat_map(|(id, part, text)| {
                    items
                        .iter()
                        .map(move |item| (format!("q:{id}[{}]:{part}", item.key), text.clone()))
                })
                .collect();
            texts.extend(copied);
        }
        self.questions = questions;
        self.layout = layout;
        self
    }

    /// The step the drop-off counts a respondent reaching step `step` at: of a survey
    /// unrolled and shown by pages, the page as defined (every time round a loop is the one
    /// page); else the step itself.
    pub fn funnel_step(&self, step: usize) -> usize {
        let unrolled = self.layout.iter().any(|page| page.item.is_some());
        match unrolled && self.screens == super::logic::ScreenLayout::Pages {
            true => self.page_origin(step),
            false => step,
        }
    }

    /// The loop item a results link asks for (`?item=KEY`), checked: one its loops can go
    /// through.
    pub fn item_asked<'a>(&self, item: Option<&'a str>) -> Result<Option<&'a str>, String> {
        let Some(key) = item.filter(|k| !k.is_empty()) else {
            return Ok(None);
        };
        let known = self.loops().any(|(_, looped)| {
            let source = looped.source().and_then(|id| self.question(id));
            source
                .is_some_and(|source| possible_items(looped, source).iter().any(|(k, _)| k == key))
        });
        match known {
            true => Ok(Some(key)),
            false => Err(format!(
                "`item` names an item of one of the survey's loops; it has no item {key:?}"
            )),
        }
    }

    /// What `{{loop}}` shows on step `page` in `language`: its item's label (an option's as
    /// translated), if the step is a loop's.
    pub fn loop_label(&self, page: usize, language: &str) -> Option<String> {
        let item = self.steps().get(page)?.item.clone()?;
        Some(match item.option {
            Some(at) => self
                .text_in(
                    language,
                    format_args!("q:{}:option:{at}", item.source),
                    &item.label,
                )
                .to_owned(),
            None => item.label,
        })
    }
}

/// `text` with `{{loop}}` shown as `label` (left as it is off a loop's pages).
pub fn with_item<'a>(text: &'a str, label: Option<&str>) -> Cow<'a, str> {
    match label {
        Some(label) if text.contains(LOOP_TOKEN) => Cow::Owned(text.replace(LOOP_TOKEN, label)),
        _ => Cow::Borrowed(text),
    }
}
