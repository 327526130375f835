//! Survey logic: the conditions that show a question or page only to some respondents, the
//! jumps that end a page, and the route a respondent takes through the pages given their
//! answers. Pure and deterministic: conditions only look at answers to earlier questions (the
//! definition check makes sure), so one forward pass decides everything.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::expression::{Expression, Scope};
use super::hidden::HiddenValues;
use super::{AnswerValue, QuestionId};

/// A condition on earlier answers: a test of one question's answer, or a group of conditions.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(untagged)]
#[schema(no_recursion)] // a group holds conditions: referenced, not expanded for ever
pub enum Condition {
    /// Every condition holds (an empty group holds).
    All {
        /// The conditions.
        all: Vec<Condition>,
    },
    /// At least one condition holds.
    Any {
        /// The conditions.
        any: Vec<Condition>,
    },
    /// A test of one hidden field's value (read before `Rule`: it has no `question`).
    Hidden(HiddenRule),
    /// An expression that must be true: `{"expression": "v.total > 10.0"}`.
    Expression(ExpressionRule),
    /// A test of one question's answer.
    Rule(Rule),
}

/// A test of a hidden field's value, as the survey's address gave it:
/// `{"hidden": "source", "equals": "mail"}`. A field the address did not give is unanswered.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct HiddenRule {
    /// The hidden field's name.
    pub hidden: String,
    /// The test (`greater_than` and `less_than` read the value as a number or a date).
    #[serde(flatten)]
    pub test: Test,
}

/// A condition written as an expression over answers, hidden fields, variables and scores
/// (see `expression`): it holds when the expression is true.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct ExpressionRule {
    /// What must be true.
    pub expression: Expression,
}

/// A test of one earlier question's answer: `{"question": "likes", "equals": "No"}`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Rule {
    /// The question whose answer is tested.
    pub question: QuestionId,
    /// The test.
    #[serde(flatten)]
    pub test: Test,
}

/// What a rule checks. A test of a question that was not answered (or not shown) is false,
/// except `answered: false`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Test {
    /// The option picked (or one of the options ticked), the text, or the number is this.
    Equals(String),
    /// Answered, and not equal to this.
    NotEquals(String),
    /// The option picked, or one of those ticked, is one of these.
    AnyOf(Vec<String>),
    /// The number, rating or date is above (after) this.
    GreaterThan(Bound),
    /// The number, rating or date is below (before) this.
    LessThan(Bound),
    /// Whether the question was answered at all.
    Answered(bool),
    /// The text contains this, ignoring case.
    Contains(String),
}

/// What `greater_than` and `less_than` compare with: a number (numbers, ratings, points) or
/// a date written `YYYY-MM-DD` (dates; such dates compare in order as text).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(untagged)]
pub enum Bound {
    /// A number.
    Number(f64),
    /// A date.
    Date(String),
}

impl From<f64> for Bound {
    fn from(number: f64) -> Self {
        Bound::Number(number)
    }
}

impl std::fmt::Display for Bound {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Bound::Number(number) => write!(f, "{number}"),
            Bound::Date(date) => f.write_str(date),
        }
    }
}

impl Bound {
    /// How an answer compares with the bound, if they can be compared.
    fn compare(&self, answer: &AnswerValue) -> Option<std::cmp::Ordering> {
        match (self, answer) {
            (Bound::Date(bound), AnswerValue::Date(date)) => Some(date.as_str().cmp(bound)),
            (Bound::Number(bound), answer) => number(answer)?.partial_cmp(bound),
            _ => None,
        }
    }
}

impl Condition {
    /// Whether the condition holds for the answers given so far (only shown questions'
    /// answers are in `values`).
    /// Expressions read the answers and hidden values only (see `holds_in`).
    pub fn holds(&self, values: &BTreeMap<QuestionId, AnswerValue>, hidden: &HiddenValues) -> bool {
        self.holds_in(values, hidden, &|values| Scope::new(values, hidden))
    }

    /// Whether the condition holds, its expressions read over what `reader` makes of the
    /// answers (the survey's scope: variables and scores too).
    pub fn holds_in(
        &self,
        values: &BTreeMap<QuestionId, AnswerValue>,
        hidden: &HiddenValues,
        reader: &dyn Fn(&BTreeMap<QuestionId, AnswerValue>) -> Scope,
    ) -> bool {
        match self {
            Condition::All { all } => all.iter().all(|c| c.holds_in(values, hidden, reader)),
            Condition::Any { any } => any.iter().any(|c| c.holds_in(values, hidden, reader)),
            Condition::Expression(rule) => rule.expression.holds(&reader(values)),
            Condition::Rule(rule) => rule.test.holds(values.get(&rule.question)),
            Condition::Hidden(rule) => {
                // Compared with a number as a number; otherwise as the text it is.
                let value =
                    hidden
                        .get(&rule.hidden)
                        .map(|v| match (&rule.test, v.parse::<f64>()) {
                            (Test::GreaterThan(_) | Test::LessThan(_), Ok(n)) if n.is_finite() => {
                                AnswerValue::Number(n)
                            }
                            _ => AnswerValue::Text(v.to_owned()),
                        });
                rule.test.holds(value.as_ref())
            }
        }
    }

    /// The hidden fields' rules in it, depth first.
    pub fn hidden_rules(&self) -> Vec<&HiddenRule> {
        self.leaves(&|leaf| match leaf {
            Condition::Hidden(rule) => Some(rule),
            _ => None,
        })
    }

    /// The leaves in it that `pick` takes, depth first.
    fn leaves<'a, T>(&'a self, pick: &dyn Fn(&'a Condition) -> Option<&'a T>) -> Vec<&'a T> {
        match self {
            Condition::All { all: list } | Condition::Any { any: list } => {
                list.iter().flat_map(|inner| inner.leaves(pick)).collect()
            }
            leaf => pick(leaf).into_iter().collect(),
        }
    }

    /// Whether it holds whatever the answers: an empty `all`, "answered or not answered" of
    /// one question, or groups of such.
    pub fn always_holds(&self) -> bool {
        match self {
            Condition::All { all } => all.iter().all(Condition::always_holds),
            Condition::Any { any } => any.iter().any(Condition::always_holds) || both_ways(any),
            Condition::Rule(_) | Condition::Hidden(_) | Condition::Expression(_) => false,
        }
    }

    /// Whether it holds for no answers at all: an empty `any`, "answered and not answered"
    /// of one question, or groups of such.
    pub fn never_holds(&self) -> bool {
        match self {
            Condition::All { all } => all.iter().any(Condition::never_holds) || both_ways(all),
            Condition::Any { any } => any.iter().all(Condition::never_holds),
            Condition::Rule(_) | Condition::Hidden(_) | Condition::Expression(_) => false,
        }
    }

    /// Every rule in it, depth first.
    pub fn rules(&self) -> Vec<&Rule> {
        self.leaves(&|leaf| match leaf {
            Condition::Rule(rule) => Some(rule),
            _ => None,
        })
    }

    /// The condition in words, for owners: `"likes" is "No"` and so on.
    pub fn describe(&self) -> String {
        self.describe_with(&|id| format!("\"{id}\""))
    }

    /// The condition in words, each question called what `name` says (its text, for
    /// respondents).
    pub fn describe_with(&self, name: &dyn Fn(&QuestionId) -> String) -> String {
        let group = |list: &[Condition], joint: &str| {
            let parts: Vec<String> = list.iter().map(|c| c.describe_with(name)).collect();
            if parts.len() == 1 {
                parts[0].clone()
            } else {
                format!("({})", parts.join(joint))
            }
        };
        match self {
            Condition::All { all } => group(all, " and "),
            Condition::Any { any } => group(any, " or "),
            Condition::Rule(rule) => rule.test.describe(&name(&rule.question)),
            Condition::Hidden(rule) => rule.test.describe(&format!("the link's {}", rule.hidden)),
            Condition::Expression(rule) => format!("{} is true", rule.expression),
        }
    }
}

impl Test {
    fn holds(&self, answer: Option<&AnswerValue>) -> bool {
        let Some(answer) = answer else {
            return matches!(self, Test::Answered(false));
        };
        match self {
            Test::Answered(answered) => *answered,
            Test::Equals(value) => equals(answer, value),
            Test::NotEquals(value) => !equals(answer, value),
            Test::AnyOf(values) => values.iter().any(|value| equals(answer, value)),
            Test::GreaterThan(bound) => bound.compare(answer) == Some(std::cmp::Ordering::Greater),
            Test::LessThan(bound) => bound.compare(answer) == Some(std::cmp::Ordering::Less),
            Test::Contains(part) => match answer {
                AnswerValue::Text(text) | AnswerValue::Other { text, .. } => {
                    text.to_lowercase().contains(&part.to_lowercase())
                }
                _ => false,
            },
        }
    }

    fn describe(&self, question: &str) -> String {
        match self {
            Test::Equals(value) => format!("{question} is \"{value}\""),
            Test::NotEquals(value) => format!("{question} is not \"{value}\""),
            Test::AnyOf(values) => format!("{question} is one of \"{}\"", values.join("\", \"")),
            Test::GreaterThan(bound) => format!("{question} is above {bound}"),
            Test::LessThan(bound) => format!("{question} is below {bound}"),
            Test::Answered(true) => format!("{question} is answered"),
            Test::Answered(false) => format!("{question} is not answered"),
            Test::Contains(part) => format!("{question} contains \"{part}\""),
        }
    }
}

fn equals(answer: &AnswerValue, value: &str) -> bool {
    match answer {
        AnswerValue::Text(text) | AnswerValue::Choice(text) | AnswerValue::Date(text) => {
            text == value
        }
        AnswerValue::Choices(ticked) => ticked.iter().any(|option| option == value),
        // A matrix or a file is tested only for being answered (the definition check sees
        // to it).
        AnswerValue::Matrix(_) | AnswerValue::File(_) => false,
        // A ranking "is" its first choice.
        AnswerValue::Ranking(order) => order.first().is_some_and(|first| first == value),
        AnswerValue::Other { picked, .. } => {
            value == super::choice::OTHER || picked.iter().any(|option| option == value)
        }
        AnswerValue::Stars(_) | AnswerValue::Number(_) | AnswerValue::Point(_) => value
            .trim()
            .parse::<f64>()
            .ok()
            .zip(number(answer))
            .is_some_and(|(wanted, given)| wanted == given),
    }
}

fn number(answer: &AnswerValue) -> Option<f64> {
    match answer {
        AnswerValue::Stars(stars) | AnswerValue::Point(stars) => Some(f64::from(*stars)),
        AnswerValue::Number(number) => Some(*number),
        _ => None,
    }
}

/// Where a jump goes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Target {
    /// A later page, by index from 0.
    Page(usize),
    /// The end of the survey: the answers are sent.
    #[default]
    End,
}

impl Serialize for Target {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Target::Page(index) => serializer.serialize_u64(*index as u64),
            Target::End => serializer.serialize_str("end"),
        }
    }
}

impl utoipa::PartialSchema for Target {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        use utoipa::openapi::schema::{ObjectBuilder, OneOfBuilder, Type};
        OneOfBuilder::new()
            .item(
                ObjectBuilder::new()
                    .schema_type(Type::Integer)
                    .minimum(Some(0))
                    .description(Some("a later page, by index from 0")),
            )
            .item(
                ObjectBuilder::new()
                    .schema_type(Type::String)
                    .enum_values(Some(["end"]))
                    .description(Some("the end of the survey: the answers are sent")),
            )
            .description(Some(
                "Where a jump goes: a later page's index, or `\"end\"`.",
            ))
            .into()
    }
}

impl utoipa::ToSchema for Target {}

impl<'de> Deserialize<'de> for Target {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            Index(usize),
            Word(String),
        }
        match Raw::deserialize(deserializer)? {
            Raw::Index(index) => Ok(Target::Page(index)),
            Raw::Word(word) if word == "end" => Ok(Target::End),
            Raw::Word(word) => Err(serde::de::Error::custom(format!(
                "a jump goes to a page number or \"end\", not {word:?}"
            ))),
        }
    }
}

/// "If CONDITION, go to TARGET", at the end of a page.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Jump {
    /// When to jump.
    #[serde(rename = "if")]
    pub condition: Condition,
    /// Where to.
    pub to: Target,
}

/// How a survey is shown to respondents: its pages as they are, or one question per screen
/// (each question its own step of the same page-by-page route, with a page's condition and
/// jumps kept: a step shows when its page's and its question's conditions hold, and a page's
/// jumps are taken when its last question is left).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ScreenLayout {
    /// The pages as the owner made them (the default).
    #[default]
    Pages,
    /// One question per screen, as Typeform shows a survey.
    OnePerScreen,
}

impl ScreenLayout {
    /// Whether it is the default (stored surveys leave it out).
    pub fn is_pages(&self) -> bool {
        *self == ScreenLayout::Pages
    }
}

/// How many steps each page of `pages` (holding `questions` questions in all) makes shown one
/// question per screen: one per question, and one for a page without questions (its texts).
pub fn steps_per_page(pages: &[PageLayout], questions: usize) -> impl Iterator<Item = usize> + '_ {
    pages.iter().enumerate().map(move |(index, page)| {
        let end = pages.get(index + 1).map_or(questions, |next| next.start);
        end.saturating_sub(page.start).max(1)
    })
}

/// The steps of `pages` shown one question per screen. `show_ifs` holds each question's
/// condition, in order; `pages` hold consecutive questions from their `start`.
pub fn one_per_screen(pages: &[PageLayout], show_ifs: &[Option<&Condition>]) -> Vec<PageLayout> {
    let end_of = |index: usize| {
        pages
            .get(index + 1)
            .map_or(show_ifs.len(), |next| next.start)
    };
    // Each page's first step.
    let mut first_step = Vec::with_capacity(pages.len());
    let mut count = 0;
    for steps in steps_per_page(pages, show_ifs.len()) {
        first_step.push(count);
        count += steps;
    }
    let retarget = |jump: &Jump| Jump {
        condition: jump.condition.clone(),
        to: match jump.to {
            Target::Page(page) => first_step
                .get(page)
                .map_or(Target::End, |s| Target::Page(*s)),
            Target::End => Target::End,
        },
    };
    let mut steps = Vec::with_capacity(count);
    for (index, page) in pages.iter().enumerate() {
        let end = end_of(index);
        let jumps: Vec<Jump> = page.jumps.iter().map(retarget).collect();
        if end <= page.start {
            steps.push(PageLayout {
                jumps,
                ..page.clone()
            });
            continue;
        }
        for at in page.start..end {
            let first = at == page.start;
            steps.push(PageLayout {
                randomize_questions: false,
                title: page.title.clone().filter(|_| first),
                description: page.description.clone().filter(|_| first),
                start: at,
                show_if: page.show_if.clone(),
                // The first step is always shown, as the first page is.
                origin: None,
                repeat: None,
                item: page.item.clone(),
                question_show_if: show_ifs
                    .get(at)
                    .copied()
                    .flatten()
                    .cloned()
                    .filter(|_| !steps.is_empty()),
                jumps: if at + 1 == end {
                    jumps.clone()
                } else {
                    Vec::new()
                },
            });
        }
    }
    steps
}

/// A page of a survey as stored: its texts, its logic, and where its questions start in the
/// survey's list of questions (pages hold consecutive questions; the next page's `start`, or
/// the end of the list, ends it).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PageLayout {
    /// An optional title.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// An optional description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The index of its first question.
    pub start: usize,
    /// Shown only when this holds (never on the first page).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub show_if: Option<Condition>,
    /// Jumps tried in order when the page is left; the first that holds is taken.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub jumps: Vec<Jump>,
    /// Whether each respondent sees its questions in an order drawn for them.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub randomize_questions: bool,
    /// Of a step shown one question per screen (see `one_per_screen`), never stored: its
    /// question's own condition. When only this fails, the step is passed over as part of a
    /// shown page, so its page's jumps are still taken there.
    #[serde(skip)]
    pub question_show_if: Option<Condition>,
    /// Of a survey arranged for one respondent (see `arrangement`), never stored: the page's
    /// index as defined, by which its texts are translated and its orders drawn.
    #[serde(skip)]
    pub origin: Option<usize>,
    /// Whether it (and the pages after it that `pages` counts) repeats for each item of an
    /// earlier answer (see `looping`).
    #[serde(rename = "loop", default, skip_serializing_if = "Option::is_none")]
    pub repeat: Option<super::iteration::Loop>,
    /// Of a survey unrolled for one respondent (see `looping`), never stored: the loop's item
    /// this copy of the page is for.
    #[serde(skip)]
    pub item: Option<super::iteration::LoopItem>,
}

/// The page after `current` for the answers given so far: the first jump that holds, else the
/// next page; `Target::End` past the last page. Pages whose condition fails are passed over.
pub fn next_page(
    pages: &[PageLayout],
    current: usize,
    values: &BTreeMap<QuestionId, AnswerValue>,
    hidden: &HiddenValues,
) -> Target {
    next_page_in(pages, current, values, hidden, &|values| {
        Scope::new(values, hidden)
    })
}

/// As `next_page`, expressions read over what `reader` makes of the answers.
pub fn next_page_in(
    pages: &[PageLayout],
    current: usize,
    values: &BTreeMap<QuestionId, AnswerValue>,
    hidden: &HiddenValues,
    reader: &dyn Fn(&BTreeMap<QuestionId, AnswerValue>) -> Scope,
) -> Target {
    // On a loop's page, expressions read the current item's answers as `q.ID`.
    let holds_on = |page: &PageLayout, c: &Condition| {
        let read = super::iteration::in_item(values, page.item.as_ref());
        c.holds_in(&read, hidden, reader)
    };
    let jumped = pages.get(current).and_then(|page| {
        page.jumps
            .iter()
            .find(|jump| holds_on(page, &jump.condition))
            .map(|jump| jump.to)
    });
    let mut next = match jumped {
        Some(Target::End) => return Target::End,
        Some(Target::Page(index)) => index,
        None => current + 1,
    };
    while let Some(page) = pages.get(next) {
        let holds = |c: &Condition| holds_on(page, c);
        if !page.show_if.as_ref().is_none_or(holds) {
            next += 1;
            continue;
        }
        if page.question_show_if.as_ref().is_none_or(holds) {
            return Target::Page(next);
        }
        // A step whose question is not shown, of a page that is: left at once, its jumps
        // taken as its page's are (they only go forward, so this ends).
        match page.jumps.iter().find(|jump| holds(&jump.condition)) {
            Some(Jump {
                to: Target::End, ..
            }) => return Target::End,
            Some(Jump {
                to: Target::Page(index),
                ..
            }) => next = (*index).max(next + 1),
            None => next += 1,
        }
    }
    Target::End
}

/// Whether `list` has rules testing one question both for being answered and for not being
/// answered (`answered: true` and `answered: false`).
fn both_ways(list: &[Condition]) -> bool {
    let tested = |answered: bool| -> Vec<&QuestionId> {
        list.iter()
            .filter_map(|condition| match condition {
                Condition::Rule(Rule {
                    question,
                    test: Test::Answered(is),
                }) if *is == answered => Some(question),
                _ => None,
            })
            .collect()
    };
    let (yes, no) = (tested(true), tested(false));
    yes.iter().any(|question| no.contains(question))
}

/// Which pages may come before which on some respondent's route, read from the pages'
/// structure alone (any rule may hold or not; a group that always or never holds is read as
/// such): what the definition check asks before a question may recall an earlier answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PageReach {
    /// `follows[a][b]`: some route shows page `b` after page `a`.
    follows: Vec<Vec<bool>>,
    /// Whether some route shows each page.
    shown: Vec<bool>,
}

impl PageReach {
    /// The reach of `pages`.
    pub fn of(pages: &[PageLayout]) -> Self {
        let count = pages.len();
        let next: Vec<Vec<usize>> = (0..count).map(|at| successors(pages, at)).collect();
        let from = |start: usize| {
            let mut seen = vec![false; count];
            let mut todo = next[start].clone();
            while let Some(page) = todo.pop() {
                if !std::mem::replace(&mut seen[page], true) {
                    todo.extend(&next[page]);
                }
            }
            seen
        };
        let follows: Vec<Vec<bool>> = (0..count).map(from).collect();
        let mut shown = follows.first().cloned().unwrap_or_default();
        if let Some(first) = shown.first_mut() {
            *first = true;
        }
        Self { follows, shown }
    }

    /// Whether some route shows page `earlier` and then page `later`.
    pub fn may_precede(&self, earlier: usize, later: usize) -> bool {
        self.shown.get(earlier).copied().unwrap_or(false)
            && self
                .follows
                .get(earlier)
                .and_then(|row| row.get(later))
                .copied()
                .unwrap_or(false)
    }
}

/// The pages a route may show right after page `at`: where its jumps may lead and, unless a
/// jump always holds, the next page, each passing over pages whose condition may fail.
fn successors(pages: &[PageLayout], at: usize) -> Vec<usize> {
    let mut landings = Vec::new();
    let mut land = |mut page: usize| {
        while let Some(layout) = pages.get(page) {
            let condition = layout.show_if.as_ref();
            if !condition.is_some_and(Condition::never_holds) {
                landings.push(page);
            }
            if condition.is_none_or(Condition::always_holds) {
                break;
            }
            page += 1;
        }
    };
    let mut falls_through = true;
    for jump in pages.get(at).map_or(&[][..], |page| &page.jumps) {
        if jump.condition.never_holds() {
            continue;
        }
        if let Target::Page(to) = jump.to {
            land(to);
        }
        if jump.condition.always_holds() {
            falls_through = false;
            break;
        }
    }
    if falls_through {
        land(at + 1);
    }
    landings
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    #[test]
    fn a_hidden_field_is_tested_as_the_address_gave_it_and_unanswered_without_it() {
        let names = vec!["source".to_owned(), "wave".to_owned()];
        let given =
            HiddenValues::read(&names, [("source", "Mail"), ("wave", "3")]).expect("values");
        let none = HiddenValues::default();
        let answers = BTreeMap::new();
        let rule = |json: serde_json::Value| -> Condition {
            serde_json::from_value(json).expect("a condition")
        };
        let cases = [
            (
                serde_json::json!({"hidden": "source", "equals": "Mail"}),
                true,
                false,
            ),
            (
                serde_json::json!({"hidden": "source", "equals": "mail"}),
                false,
                false,
            ),
            (
                serde_json::json!({"hidden": "source", "contains": "AI"}),
                true,
                false,
            ),
            (
                serde_json::json!({"hidden": "source", "not_equals": "Web"}),
                true,
                false,
            ),
            (
                serde_json::json!({"hidden": "source", "any_of": ["Web", "Mail"]}),
                true,
                false,
            ),
            (
                serde_json::json!({"hidden": "source", "answered": false}),
                false,
                true,
            ),
            (
                serde_json::json!({"hidden": "wave", "greater_than": 2}),
                true,
                false,
            ),
            (
                serde_json::json!({"hidden": "wave", "less_than": 3}),
                false,
                false,
            ),
            // A value that is no number is never above or below one.
            (
                serde_json::json!({"hidden": "source", "greater_than": -1e300}),
                false,
                false,
            ),
        ];
        for (json, with, without) in cases {
            let condition = rule(json.clone());
            assert!(matches!(condition, Condition::Hidden(_)), "{json}");
            assert_eq!(
                condition.holds(&answers, &given),
                with,
                "{json} with values"
            );
            assert_eq!(condition.holds(&answers, &none), without, "{json} without");
            assert!(condition.rules().is_empty(), "no question is named: {json}");
            assert_eq!(condition.hidden_rules().len(), 1);
        }
        // In a group, beside a question's rule.
        let both = rule(serde_json::json!({"all": [
            {"hidden": "source", "equals": "Mail"}, {"question": "q1", "answered": false}]}));
        assert!(both.holds(&answers, &given));
        assert!(!both.holds(&answers, &none));
        assert_eq!((both.rules().len(), both.hidden_rules().len()), (1, 1));
    }

    fn id(text: &str) -> QuestionId {
        QuestionId::parse(text).expect("an id")
    }

    /// A condition tree of question and hidden-field rules (leaves named by their number) in
    /// groups of any depth, empty ones too.
    fn conditions() -> impl Strategy<Value = Condition> {
        let leaf = prop_oneof![
            (0u8..20).prop_map(|n| rule(&format!("q{n}"), Test::Answered(true))),
            (0u8..20).prop_map(|n| Condition::Hidden(HiddenRule {
                hidden: format!("h{n}"),
                test: Test::Answered(true),
            })),
        ];
        leaf.prop_recursive(4, 40, 5, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..5)
                    .prop_map(|all| Condition::All { all }),
                proptest::collection::vec(inner, 0..5).prop_map(|any| Condition::Any { any }),
            ]
        })
    }

    /// The leaves' names depth first, as a walk written out plainly.
    fn names_depth_first(condition: &Condition, into: &mut Vec<String>) {
        match condition {
            Condition::All { all: list } | Condition::Any { any: list } => {
                list.iter().for_each(|inner| names_depth_first(inner, into));
            }
            Condition::Rule(rule) => into.push(rule.question.to_string()),
            Condition::Hidden(rule) => into.push(rule.hidden.clone()),
            Condition::Expression(_) => {}
        }
    }

    proptest! {
        /// `rules` and `hidden_rules` each find their kind of leaf, every one of them, in the
        /// order a depth-first walk meets them, however deep or empty the groups.
        #[test]
        fn rules_and_hidden_rules_are_the_leaves_depth_first(condition in conditions()) {
            let mut names = Vec::new();
            names_depth_first(&condition, &mut names);
            let rules: Vec<String> = condition.rules().iter().map(|r| r.question.to_string()).collect();
            let hidden: Vec<String> = condition.hidden_rules().iter().map(|r| r.hidden.clone()).collect();
            let expected_rules: Vec<String> = names.iter().filter(|n| n.starts_with('q')).cloned().collect();
            let expected_hidden: Vec<String> = names.iter().filter(|n| n.starts_with('h')).cloned().collect();
            prop_assert_eq!(rules, expected_rules);
            prop_assert_eq!(hidden, expected_hidden);
        }
    }

    fn rule(question: &str, test: Test) -> Condition {
        Condition::Rule(Rule {
            question: id(question),
            test,
        })
    }

    fn values(pairs: &[(&str, AnswerValue)]) -> BTreeMap<QuestionId, AnswerValue> {
        pairs.iter().map(|(q, v)| (id(q), v.clone())).collect()
    }

    #[test]
    fn conditions_read_and_write_the_documented_json() {
        let json = serde_json::json!({"all": [
            {"question": "likes", "equals": "No"},
            {"question": "visit", "less_than": "2026-07-01"},
            {"any": [{"question": "age", "greater_than": 17.0}, {"question": "why", "answered": false}]},
            {"question": "colours", "any_of": ["Red", "Blue"]}
        ]});
        let condition: Condition = serde_json::from_value(json.clone()).expect("reads");
        assert_eq!(serde_json::to_value(&condition).expect("writes"), json);
        let jump: Jump =
            serde_json::from_value(serde_json::json!({"if": {"all": []}, "to": "end"}))
                .expect("a jump");
        assert_eq!(jump.to, Target::End);
        let jump: Jump = serde_json::from_value(serde_json::json!({"if": {"any": []}, "to": 2}))
            .expect("a jump");
        assert_eq!(jump.to, Target::Page(2));
        assert!(
            serde_json::from_value::<Jump>(serde_json::json!({"if": {"all": []}, "to": "x"}))
                .is_err()
        );
    }

    #[test]
    fn each_test_checks_what_it_says() {
        let given = values(&[
            ("likes", AnswerValue::Choice("No".into())),
            (
                "many",
                AnswerValue::Choices(vec!["Red".into(), "Blue".into()]),
            ),
            ("age", AnswerValue::Number(30.0)),
            ("stars", AnswerValue::Stars(4)),
            ("why", AnswerValue::Text("Too EXPENSIVE for me".into())),
            ("visit", AnswerValue::Date("2026-06-01".into())),
        ]);
        let cases = [
            (rule("likes", Test::Equals("No".into())), true),
            (rule("likes", Test::Equals("Yes".into())), false),
            (rule("likes", Test::NotEquals("Yes".into())), true),
            (rule("missing", Test::NotEquals("Yes".into())), false),
            (rule("many", Test::Equals("Blue".into())), true),
            (
                rule("many", Test::AnyOf(vec!["Green".into(), "Red".into()])),
                true,
            ),
            (rule("many", Test::AnyOf(vec!["Green".into()])), false),
            (rule("age", Test::GreaterThan(29.5.into())), true),
            (rule("age", Test::LessThan(30.0.into())), false),
            (rule("age", Test::Equals("30".into())), true),
            (rule("stars", Test::GreaterThan(3.0.into())), true),
            (rule("stars", Test::LessThan(4.0.into())), false),
            (rule("why", Test::Contains("expensive".into())), true),
            (rule("why", Test::Contains("cheap".into())), false),
            (rule("why", Test::Answered(true)), true),
            (rule("missing", Test::Answered(false)), true),
            (rule("missing", Test::Answered(true)), false),
            (rule("missing", Test::Equals("".into())), false),
            (rule("likes", Test::GreaterThan(0.0.into())), false),
            (
                rule("visit", Test::GreaterThan(Bound::Date("2026-05-31".into()))),
                true,
            ),
            (
                rule("visit", Test::LessThan(Bound::Date("2026-06-01".into()))),
                false,
            ),
            (rule("visit", Test::GreaterThan(1.0.into())), false),
            (
                rule("age", Test::GreaterThan(Bound::Date("2026-01-01".into()))),
                false,
            ),
        ];
        for (condition, expected) in cases {
            assert_eq!(
                condition.holds(&given, &HiddenValues::default()),
                expected,
                "{}",
                condition.describe()
            );
        }
        let both = Condition::All {
            all: vec![
                rule("likes", Test::Equals("No".into())),
                rule("age", Test::LessThan(18.0.into())),
            ],
        };
        let either = Condition::Any {
            any: vec![
                rule("likes", Test::Equals("No".into())),
                rule("age", Test::LessThan(18.0.into())),
            ],
        };
        assert!(!both.holds(&given, &HiddenValues::default()));
        assert!(either.holds(&given, &HiddenValues::default()));
        assert_eq!(
            both.describe(),
            "(\"likes\" is \"No\" and \"age\" is below 18)"
        );
    }

    fn page(start: usize) -> PageLayout {
        PageLayout {
            start,
            ..PageLayout::default()
        }
    }

    /// The first page's two jumps in these tests: to the end when `likes` is "Yes", to page
    /// 2 when it is "Maybe".
    fn first_page_jumps(likes_yes: &Condition) -> Vec<Jump> {
        vec![
            Jump {
                condition: likes_yes.clone(),
                to: Target::End,
            },
            Jump {
                condition: rule("likes", Test::Equals("Maybe".into())),
                to: Target::Page(2),
            },
        ]
    }

    #[test]
    fn the_route_follows_the_first_jump_that_holds_and_passes_over_hidden_pages() {
        let likes_yes = rule("likes", Test::Equals("Yes".into()));
        let pages = vec![
            PageLayout {
                jumps: first_page_jumps(&likes_yes),
                ..page(0)
            },
            page(2),
            PageLayout {
                show_if: Some(rule("likes", Test::Answered(true))),
                ..page(3)
            },
        ];
        let yes = values(&[("likes", AnswerValue::Choice("Yes".into()))]);
        let maybe = values(&[("likes", AnswerValue::Choice("Maybe".into()))]);
        let none = values(&[]);

        assert_eq!(
            next_page(&pages, 0, &yes, &HiddenValues::default()),
            Target::End
        );
        assert_eq!(
            next_page(&pages, 0, &maybe, &HiddenValues::default()),
            Target::Page(2)
        );
        assert_eq!(
            next_page(&pages, 0, &none, &HiddenValues::default()),
            Target::Page(1)
        );
        assert_eq!(
            next_page(&pages, 1, &none, &HiddenValues::default()),
            Target::End,
            "page 2 is hidden"
        );
        assert_eq!(
            next_page(&pages, 1, &maybe, &HiddenValues::default()),
            Target::Page(2)
        );
        assert_eq!(
            next_page(&pages, 2, &maybe, &HiddenValues::default()),
            Target::End
        );
    }

    #[test]
    fn one_question_per_screen_keeps_each_pages_conditions_and_jumps() {
        let likes_no = rule("likes", Test::Equals("No".into()));
        let likes_yes = rule("likes", Test::Equals("Yes".into()));
        let answered = rule("why", Test::Answered(true));
        let pages = vec![
            PageLayout {
                title: Some("About you".into()),
                jumps: first_page_jumps(&likes_yes),
                ..page(0)
            },
            PageLayout {
                show_if: Some(answered.clone()),
                ..page(2)
            },
            page(3),
        ];
        // likes, why (shown if likes is No) | score | last, an empty page has none.
        let show_ifs = [None, Some(&likes_no), None, None];
        let steps = one_per_screen(&pages, &show_ifs);
        assert_eq!(
            steps.iter().map(|s| s.start).collect::<Vec<_>>(),
            [0, 1, 2, 3]
        );
        assert_eq!(steps[0].title.as_deref(), Some("About you"));
        assert_eq!(steps[1].title, None, "a page's texts are on its first step");
        assert!(
            steps[0].jumps.is_empty(),
            "jumps are taken when the page is left"
        );
        assert_eq!(
            steps[1].jumps[1].to,
            Target::Page(3),
            "page 2 starts at step 3"
        );
        assert_eq!(
            steps[2].show_if,
            Some(answered),
            "the page's condition stays"
        );

        let yes = values(&[("likes", AnswerValue::Choice("Yes".into()))]);
        let no = values(&[("likes", AnswerValue::Choice("No".into()))]);
        let maybe = values(&[("likes", AnswerValue::Choice("Maybe".into()))]);
        let why = values(&[
            ("likes", AnswerValue::Choice("No".into())),
            ("why", AnswerValue::Text("Dear".into())),
        ]);
        assert_eq!(
            next_page(&steps, 0, &yes, &HiddenValues::default()),
            Target::End,
            "the hidden step's page still jumps"
        );
        assert_eq!(
            next_page(&steps, 0, &maybe, &HiddenValues::default()),
            Target::Page(3)
        );
        assert_eq!(
            next_page(&steps, 0, &no, &HiddenValues::default()),
            Target::Page(1)
        );
        assert_eq!(
            next_page(&steps, 1, &why, &HiddenValues::default()),
            Target::Page(2)
        );
        assert_eq!(
            next_page(&steps, 1, &no, &HiddenValues::default()),
            Target::Page(3),
            "page 1 is hidden unless \"why\" is answered"
        );
        assert_eq!(
            next_page(&steps, 3, &no, &HiddenValues::default()),
            Target::End
        );
    }

    proptest::proptest! {
        /// Whatever the pages (empty ones too) and jumps: every question is on exactly one
        /// step, in order; a page's steps are one per question (one for an empty page); only
        /// a page's last step carries its jumps, and they still only go forward.
        #[test]
        fn one_question_per_screen_puts_each_question_on_one_step(
            sizes in proptest::collection::vec(0usize..5, 1..8),
            jump_from in 0usize..8,
            jump_to in 0usize..9,
        ) {
            let mut start = 0;
            let mut pages: Vec<PageLayout> = sizes.iter().map(|size| {
                let page = page(start);
                start += size;
                page
            }).collect();
            let questions = start;
            if jump_from < pages.len() && jump_to > jump_from {
                let to = if jump_to < pages.len() { Target::Page(jump_to) } else { Target::End };
                pages[jump_from].jumps.push(Jump {
                    condition: Condition::All { all: vec![] },
                    to,
                });
            }
            let show_ifs = vec![None; questions];
            let steps = one_per_screen(&pages, &show_ifs);
            let counts: Vec<usize> = steps_per_page(&pages, questions).collect();
            proptest::prop_assert_eq!(steps.len(), counts.iter().sum::<usize>());
            proptest::prop_assert_eq!(
                counts,
                sizes.iter().map(|size| (*size).max(1)).collect::<Vec<_>>()
            );
            // Each question's step: the last step starting at or before it.
            for question in 0..questions {
                let holding = steps.iter().enumerate().filter(|(at, step)| {
                    let end = steps.get(at + 1).map_or(questions, |next| next.start);
                    step.start <= question && question < end
                }).count();
                proptest::prop_assert_eq!(holding, 1, "question {}", question);
            }
            for (at, step) in steps.iter().enumerate() {
                for jump in &step.jumps {
                    if let Target::Page(to) = jump.to {
                        proptest::prop_assert!(to > at, "a jump from step {} goes back to {}", at, to);
                    }
                }
            }
            let with_jumps = steps.iter().filter(|step| !step.jumps.is_empty()).count();
            proptest::prop_assert_eq!(with_jumps, pages.iter().filter(|p| !p.jumps.is_empty()).count());
        }
    }

    #[test]
    fn one_question_per_screen_keeps_an_empty_page_as_a_step() {
        let pages = vec![
            page(0),
            PageLayout {
                title: Some("Thanks so far".into()),
                ..page(2)
            },
            page(2),
        ];
        let steps = one_per_screen(&pages, &[None, None, None]);
        assert_eq!(steps.len(), 4);
        assert_eq!(steps[2].title.as_deref(), Some("Thanks so far"));
        assert_eq!(steps[3].start, 2);
    }

    #[test]
    fn reach_follows_every_route_the_structure_allows() {
        let always = Condition::All { all: vec![] };
        let never = Condition::Any { any: vec![] };
        let pages = vec![
            // Page 0 always jumps to page 2: page 1 is never shown.
            PageLayout {
                jumps: vec![Jump {
                    condition: always.clone(),
                    to: Target::Page(2),
                }],
                ..page(0)
            },
            page(1),
            // Page 2 may jump to the end, else page 3 (shown or not) then page 4.
            PageLayout {
                jumps: vec![Jump {
                    condition: rule("likes", Test::Answered(true)),
                    to: Target::End,
                }],
                ..page(2)
            },
            PageLayout {
                show_if: Some(rule("likes", Test::Answered(false))),
                ..page(3)
            },
            page(4),
            PageLayout {
                show_if: Some(never),
                ..page(5)
            },
        ];
        let reach = PageReach::of(&pages);
        assert!(reach.may_precede(0, 2));
        assert!(
            !reach.may_precede(0, 1),
            "an unconditional jump passes page 1 over"
        );
        assert!(!reach.may_precede(1, 2), "page 1 is never shown");
        assert!(reach.may_precede(2, 3) && reach.may_precede(2, 4));
        assert!(reach.may_precede(3, 4));
        assert!(!reach.may_precede(4, 5), "page 5's condition never holds");
        assert!(!reach.may_precede(4, 2), "routes only go forward");
    }
}
