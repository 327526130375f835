//! Checking a definition's logic: conditions may only look at earlier questions, name options
//! that exist and use tests that fit the question's type; jumps only go forward. Each problem
//! is reported at its field with the question or page it concerns.

use std::collections::HashSet;

use serde_json::Value;

use super::{CONTROL, DefinitionErrors, Placed, SurveyInput};
use crate::domain::answer::has_control_characters;
use crate::domain::arrangement::PageBlock;
use crate::domain::logic::{
    Bound, Condition, ExpressionRule, HiddenRule, Jump, PageLayout, Rule, Target, Test,
};
use crate::domain::{Question, QuestionKind};

/// Most rules in one condition.
pub const MAX_RULES: usize = 20;
/// Deepest nesting of `all` / `any` groups.
pub const MAX_DEPTH: usize = 4;
/// Most jumps at the end of one page.
pub const MAX_JUMPS: usize = 10;
/// Longest value a rule compares with, in characters.
const MAX_VALUE: usize = 200;

/// Checks the conditions of `questions` (aligned with `placed`) and the pages of `input`,
/// setting each question's condition; returns the pages to store.
pub(super) fn check(
    input: &SurveyInput,
    placed: &[Placed<'_>],
    questions: &mut [Question],
    errors: &mut DefinitionErrors,
) -> Vec<PageLayout> {
    let variables: Vec<String> = input
        .variables
        .iter()
        .map(|v| v.id.trim().to_owned())
        .collect();
    for index in 0..questions.len() {
        let Some(json) = &placed[index].input.show_if else {
            continue;
        };
        let scope = Scope {
            questions,
            earlier: index,
            hidden: &input.hidden_fields,
            variables: &variables,
            quota: false,
        };
        match scope.condition(json, 1, &mut 0) {
            Ok(condition) => questions[index].show_if = Some(condition),
            Err(problem) => {
                let question = &questions[index];
                errors.insert(
                    format!("{}.show_if", placed[index].path),
                    format!(
                        "question {} (\"{}\"): {problem}",
                        index + 1,
                        short(&question.text)
                    ),
                );
            }
        }
    }
    let Some(pages) = &input.pages else {
        return Vec::new();
    };
    let mut layout = Vec::with_capacity(pages.len());
    let mut start = 0;
    for (index, page) in pages.iter().enumerate() {
        let path = format!("pages[{index}]");
        let end = start + page.questions.len();
        let title = texts(&path, "title", page.title.as_deref(), 200, errors);
        let description = texts(
            &path,
            "description",
            page.description.as_deref(),
            2000,
            errors,
        );
        let show_if = page.show_if.as_ref().and_then(|json| {
            if index == 0 {
                errors.insert(
                    format!("{path}.show_if"),
                    "the first page is always shown: it cannot have a condition".into(),
                );
                return None;
            }
            let scope = Scope {
                questions,
                earlier: start,
                hidden: &input.hidden_fields,
                variables: &variables,
                quota: false,
            };
            scope
                .condition(json, 1, &mut 0)
                .map_err(|problem| {
                    errors.insert(
                        format!("{path}.show_if"),
                        format!("page {}: {problem}", index + 1),
                    );
                })
                .ok()
        });
        if page.jumps.len() > MAX_JUMPS {
            errors.insert(
                format!("{path}.jumps"),
                format!("a page has at most {MAX_JUMPS} jumps"),
            );
        }
        let mut jumps = Vec::new();
        for (number, jump) in page.jumps.iter().enumerate().take(MAX_JUMPS) {
            let field = format!("{path}.jumps[{number}]");
            let scope = Scope {
                questions,
                earlier: end,
                hidden: &input.hidden_fields,
                variables: &variables,
                quota: false,
            };
            let condition = scope.condition(&jump.condition, 1, &mut 0);
            let to = target(&jump.to, index, pages.len());
            match (condition, to) {
                (Ok(condition), Ok(to)) => jumps.push(Jump { condition, to }),
                (Err(problem), _) | (_, Err(problem)) => {
                    errors.insert(
                        field,
                        format!("page {}, jump {}: {problem}", index + 1, number + 1),
                    );
                }
            }
        }
        layout.push(PageLayout {
            title,
            description,
            start,
            show_if,
            jumps,
            randomize_questions: page.randomize_questions,
            question_show_if: None,
            origin: None,
            repeat: page.repeat.clone(),
            item: None,
        });
        start = end;
    }
    // One page without texts or logic is stored as surveys without pages are.
    if layout.len() == 1 && layout[0] == PageLayout::default() {
        layout.clear();
    }
    layout
}

/// A page's optional text, trimmed; a problem is recorded at `path.field`.
fn texts(
    path: &str,
    field: &str,
    text: Option<&str>,
    limit: usize,
    errors: &mut DefinitionErrors,
) -> Option<String> {
    let text = text.map(str::trim).filter(|t| !t.is_empty())?;
    if has_control_characters(text) {
        errors.insert(format!("{path}.{field}"), CONTROL.into());
    } else if text.chars().count() > limit {
        errors.insert(
            format!("{path}.{field}"),
            format!("a page's {field} is at most {limit} characters"),
        );
    }
    Some(text.to_owned())
}

/// Where a jump from page `from` of `pages` may go: a later page or the end.
fn target(to: &Value, from: usize, pages: usize) -> Result<Target, String> {
    match to {
        Value::String(word) if word == "end" => Ok(Target::End),
        Value::Number(number) => match number.as_u64().and_then(|n| usize::try_from(n).ok()) {
            Some(index) if index > from && index < pages => Ok(Target::Page(index)),
            Some(index) if index <= from => Err(format!(
                "jumps only go forward: to a later page than this one (page index {from}) or \
                 \"end\", not back to page index {index}"
            )),
            _ => Err(format!(
                "there is no page index {number}: pages are numbered from 0 to {}",
                pages - 1
            )),
        },
        _ => Err("\"to\" is a page index (from 0) or \"end\"".into()),
    }
}

/// Reads a condition that may look at any of `questions` (a quota's, checked on a whole
/// answer).
pub(super) fn condition_on(questions: &[Question], json: &Value) -> Result<Condition, String> {
    let scope = Scope {
        questions,
        earlier: questions.len(),
        hidden: &[],
        variables: &[],
        quota: true,
    };
    scope.condition(json, 1, &mut 0)
}

/// The questions a condition may look at: those before `earlier` in the survey; and the
/// hidden fields it may test (none for a quota, which tests answers only).
struct Scope<'a> {
    questions: &'a [Question],
    earlier: usize,
    hidden: &'a [String],
    /// The variables it may read (none for a quota).
    variables: &'a [String],
    /// Whether it is a quota's condition (rules on answers only).
    quota: bool,
}

impl Scope<'_> {
    /// Reads a condition, `depth` groups deep, counting its rules in `rules`.
    fn condition(
        &self,
        json: &Value,
        depth: usize,
        rules: &mut usize,
    ) -> Result<Condition, String> {
        let Value::Object(map) = json else {
            return Err(
                "a condition is an object: {\"all\": [...]}, {\"any\": [...]} or \
                        {\"question\": ID, TEST: VALUE}"
                    .into(),
            );
        };
        for group in ["all", "any"] {
            let Some(list) = map.get(group) else {
                continue;
            };
            if map.len() != 1 {
                return Err(format!("a group has only its \"{group}\" list"));
            }
            if depth > MAX_DEPTH {
                return Err(format!("conditions nest at most {MAX_DEPTH} groups deep"));
            }
            let Value::Array(items) = list else {
                return Err(format!("\"{group}\" holds a list of conditions"));
            };
            if items.is_empty() {
                return Err(format!("\"{group}\" needs at least one condition"));
            }
            let items = items
                .iter()
                .map(|item| self.condition(item, depth + 1, rules))
                .collect::<Result<Vec<_>, _>>()?;
            return Ok(if group == "all" {
                Condition::All { all: items }
            } else {
                Condition::Any { any: items }
            });
        }
        *rules += 1;
        if *rules > MAX_RULES {
            return Err(format!("a condition has at most {MAX_RULES} rules"));
        }
        if map.contains_key("hidden") {
            return self.hidden_rule(map).map(Condition::Hidden);
        }
        if let Some(source) = map.get("expression") {
            if map.len() != 1 {
                return Err("an expression condition has only its \"expression\"".into());
            }
            if self.quota {
                return Err("a quota tests answers with rules, not expressions".into());
            }
            let expression = super::calculation::condition_expression(
                source,
                &self.questions[..self.earlier.min(self.questions.len())],
                self.hidden,
                self.variables,
            )?;
            return Ok(Condition::Expression(ExpressionRule { expression }));
        }
        self.rule(map).map(Condition::Rule)
    }

    /// A test of a hidden field: `{"hidden": NAME, TEST: VALUE}`, its value read as a text
    /// (as a number by `greater_than` and `less_than`).
    fn hidden_rule(&self, map: &serde_json::Map<String, Value>) -> Result<HiddenRule, String> {
        let Some(Value::String(name)) = map.get("hidden") else {
            return Err("a rule on a hidden field names it: {\"hidden\": NAME, ...}".into());
        };
        if !self.hidden.contains(name) {
            return Err(match self.hidden.is_empty() {
                true => format!(
                    "it tests the hidden field \"{name}\", but the survey declares none in \
                     hidden_fields (a quota tests answers only)"
                ),
                false => {
                    format!("it tests \"{name}\", which is not one of the survey's hidden_fields")
                }
            });
        }
        let tests: Vec<(&String, &Value)> =
            map.iter().filter(|(key, _)| *key != "hidden").collect();
        let [(test_name, value)] = tests.as_slice() else {
            return Err(format!(
                "a rule on the hidden field \"{name}\" has exactly one test: equals, \
                 not_equals, any_of, greater_than, less_than, answered or contains"
            ));
        };
        let text = |value: &Value| compared_text(value, test_name, name);
        let test = match (test_name.as_str(), value) {
            ("equals", value) => Test::Equals(text(value)?),
            ("not_equals", value) => Test::NotEquals(text(value)?),
            ("contains", value) => Test::Contains(text(value)?),
            ("answered", Value::Bool(given)) => Test::Answered(*given),
            ("any_of", Value::Array(list)) if !list.is_empty() && list.len() <= 50 => {
                Test::AnyOf(list.iter().map(text).collect::<Result<_, _>>()?)
            }
            ("greater_than" | "less_than", Value::Number(number)) => {
                let bound = number.as_f64().filter(|n| n.is_finite()).ok_or_else(|| {
                    format!("\"{test_name}\" on \"{name}\" compares with a number")
                })?;
                match test_name.as_str() {
                    "greater_than" => Test::GreaterThan(bound.into()),
                    _ => Test::LessThan(bound.into()),
                }
            }
            _ => {
                return Err(format!(
                    "\"{test_name}\" on the hidden field \"{name}\" is not a test it takes: \
                     equals, not_equals or contains a text, any_of a list of 1 to 50 texts, \
                     greater_than or less_than a number, answered true or false"
                ));
            }
        };
        Ok(HiddenRule {
            hidden: name.clone(),
            test,
        })
    }

    fn rule(&self, map: &serde_json::Map<String, Value>) -> Result<Rule, String> {
        let Some(Value::String(id)) = map.get("question") else {
            return Err("a rule names the question it tests: {\"question\": ID, ...}".into());
        };
        let position = self.questions.iter().position(|q| q.id.as_str() == id);
        let question = match position {
            Some(position) if position < self.earlier => &self.questions[position],
            Some(position) => {
                return Err(format!(
                    "it refers to question {} (\"{id}\"), which does not come before it; \
                     conditions only look at earlier questions",
                    position + 1
                ));
            }
            None => {
                return Err(format!(
                    "it refers to \"{id}\", which is not a question of this survey"
                ));
            }
        };
        let tests: Vec<(&String, &Value)> =
            map.iter().filter(|(key, _)| *key != "question").collect();
        let [(name, value)] = tests.as_slice() else {
            return Err(format!(
                "a rule on \"{id}\" has exactly one test: equals, not_equals, any_of, \
                 greater_than, less_than, answered or contains"
            ));
        };
        let test = test(question, name, value)?;
        Ok(Rule {
            question: question.id.clone(),
            test,
        })
    }
}

/// A test of `question`'s answer, checked against its type and options.
/// The text or number a test `name` on `subject` (a question's id, a hidden field's name)
/// compares with, bounded and free of control characters.
fn compared_text(value: &Value, name: &str, subject: &str) -> Result<String, String> {
    let text = match value {
        Value::String(text) => text.clone(),
        Value::Number(number) => number.to_string(),
        _ => {
            return Err(format!(
                "\"{name}\" on \"{subject}\" compares with a text or a number"
            ));
        }
    };
    if text.chars().count() > MAX_VALUE || has_control_characters(&text) {
        return Err(format!(
            "the value of \"{name}\" on \"{subject}\" is too long or has control characters"
        ));
    }
    Ok(text)
}

fn test(question: &Question, name: &str, value: &Value) -> Result<Test, String> {
    let id = &question.id;
    let kind = &question.kind;
    let text = |value: &Value| compared_text(value, name, id.as_str());
    let valid_answer = |wanted: &str| -> Result<(), String> {
        let fits = match kind {
            QuestionKind::SingleChoice { options, .. }
            | QuestionKind::MultipleChoice { options, .. }
            | QuestionKind::Dropdown { options }
            | QuestionKind::Ranking { options } => {
                options.iter().any(|o| o == wanted)
                    || (kind.has_other() && wanted == crate::domain::choice::OTHER)
            }
            QuestionKind::FiveStars => matches!(wanted, "1" | "2" | "3" | "4" | "5"),
            QuestionKind::Nps | QuestionKind::Scale { .. } => wanted
                .trim()
                .parse::<u8>()
                .is_ok_and(|p| kind.points().is_some_and(|points| points.contains(&p))),
            QuestionKind::Date { .. } => crate::domain::answer::date(wanted).is_some(),
            QuestionKind::Matrix { .. } | QuestionKind::File { .. } => false,
            QuestionKind::Numeric { .. } => wanted.trim().parse::<f64>().is_ok_and(f64::is_finite),
            QuestionKind::ShortText | QuestionKind::LongText => true,
        };
        if fits {
            Ok(())
        } else if kind.options().is_empty() {
            Err(format!(
                "\"{wanted}\" is not a possible answer of question \"{id}\" ({})",
                kind.name()
            ))
        } else {
            Err(format!(
                "\"{wanted}\" is not an option of question \"{id}\" (its options: \"{}\")",
                kind.options().join("\", \"")
            ))
        }
    };
    let number = |value: &Value| -> Result<f64, String> {
        if !matches!(
            kind,
            QuestionKind::Numeric { .. }
                | QuestionKind::FiveStars
                | QuestionKind::Nps
                | QuestionKind::Scale { .. }
        ) {
            return Err(format!(
                "\"{name}\" compares numbers, and question \"{id}\" is {}",
                kind.name()
            ));
        }
        value
            .as_f64()
            .filter(|n| n.is_finite())
            .ok_or_else(|| format!("\"{name}\" on \"{id}\" needs a number"))
    };
    if matches!(kind, QuestionKind::Matrix { .. }) && name != "answered" {
        return Err(format!(
            "question \"{id}\" is a matrix: a condition on it can only test \"answered\""
        ));
    }
    if matches!(kind, QuestionKind::File { .. }) && name != "answered" {
        return Err(format!(
            "question \"{id}\" takes a file: a condition on it can only test \"answered\""
        ));
    }
    // Dates compare with dates; the other types that compare, with numbers.
    let bound = |value: &Value| -> Result<Bound, String> {
        if !matches!(kind, QuestionKind::Date { .. }) {
            return number(value).map(Bound::Number);
        }
        value
            .as_str()
            .and_then(crate::domain::answer::date)
            .map(|d| Bound::Date(d.to_string()))
            .ok_or_else(|| format!("\"{name}\" on \"{id}\" needs a date written YYYY-MM-DD"))
    };
    match name {
        "equals" | "not_equals" => {
            let wanted = text(value)?;
            valid_answer(&wanted)?;
            Ok(if name == "equals" {
                Test::Equals(wanted)
            } else {
                Test::NotEquals(wanted)
            })
        }
        "any_of" => {
            let Value::Array(items) = value else {
                return Err(format!("\"any_of\" on \"{id}\" holds a list of values"));
            };
            if items.is_empty() || items.len() > 50 {
                return Err(format!("\"any_of\" on \"{id}\" holds 1 to 50 values"));
            }
            let mut seen = HashSet::new();
            let mut values = Vec::new();
            for item in items {
                let wanted = text(item)?;
                valid_answer(&wanted)?;
                if seen.insert(wanted.clone()) {
                    values.push(wanted);
                }
            }
            Ok(Test::AnyOf(values))
        }
        "greater_than" => bound(value).map(Test::GreaterThan),
        "less_than" => bound(value).map(Test::LessThan),
        "answered" => value
            .as_bool()
            .map(Test::Answered)
            .ok_or_else(|| format!("\"answered\" on \"{id}\" is true or false")),
        "contains" => {
            if !matches!(kind, QuestionKind::ShortText | QuestionKind::LongText)
                && !kind.has_other()
            {
                return Err(format!(
                    "\"contains\" looks into texts, and question \"{id}\" is {}",
                    kind.name()
                ));
            }
            let part = text(value)?;
            if part.is_empty() {
                return Err(format!("\"contains\" on \"{id}\" needs a text to look for"));
            }
            Ok(Test::Contains(part))
        }
        other => Err(format!(
            "\"{other}\" is not a test: use equals, not_equals, any_of, greater_than, less_than, \
             answered or contains"
        )),
    }
}

/// A question's text, shortened for a message.
pub(super) fn short(text: &str) -> String {
    let mut chars = text.chars();
    let head: String = chars.by_ref().take(60).collect();
    if chars.next().is_some() {
        format!("{head}…")
    } else {
        head
    }
}

/// What is wrong with a block of pages drawn in order (`randomize_pages`) for `layout`: it
/// must name two or more pages in order; its pages may have no jumps, a jump from before it
/// may lead only to its first page, and nothing on one of its pages (conditions, recalls,
/// rules) may name a question of another of them, since any of them may come first.
pub(super) fn block_problem(
    block: PageBlock,
    layout: &[PageLayout],
    questions: &[Question],
) -> Option<String> {
    let pages = layout.len().max(1);
    let PageBlock(first, last) = block;
    if first >= last || last >= pages {
        return Some(format!(
            "pages shown in a random order are a run of two or more of the survey's {pages} \
             pages (in the API, [FIRST, LAST] counted from 0: 0 to {})",
            pages - 1
        ));
    }
    if let Some(at) = (first..=last).find(|&at| !layout[at].jumps.is_empty()) {
        return Some(format!(
            "page {} (index {at}) is in the block drawn in order, so it may not jump (its place \
             varies)",
            at + 1
        ));
    }
    for (at, page) in layout.iter().enumerate().take(first) {
        let into = page.jumps.iter().find_map(|jump| match jump.to {
            Target::Page(to) if block.holds(to) && to != first => Some(to),
            _ => None,
        });
        if let Some(to) = into {
            return Some(format!(
                "page {} jumps to page {}, inside the block drawn in order: a jump may lead \
                 only to its first page, page {} (index {first})",
                at + 1,
                to + 1,
                first + 1
            ));
        }
    }
    let page_of = |index: usize| {
        layout
            .iter()
            .rposition(|page| page.start <= index)
            .unwrap_or(0)
    };
    let position = |id: &str| questions.iter().position(|q| q.id.as_str() == id);
    for page in first..=last {
        let mut named: Vec<String> = layout[page]
            .show_if
            .iter()
            .flat_map(named_questions)
            .collect();
        let end = layout
            .get(page + 1)
            .map_or(questions.len(), |next| next.start);
        for question in &questions[layout[page].start..end] {
            named.extend(question.show_if.iter().flat_map(named_questions));
            if let Some(rule) = &question.validate {
                named.extend(rule.expression.names().questions);
            }
            let texts = [Some(&question.text), question.help.as_ref()];
            for text in texts.into_iter().flatten().chain(question.kind.options()) {
                let recalled = crate::domain::recall::recalled(text).unwrap_or_default();
                named.extend(recalled.iter().map(ToString::to_string));
            }
        }
        let other = named.iter().find(|id| {
            position(id).is_some_and(|at| {
                let on = page_of(at);
                on != page && block.holds(on)
            })
        });
        if let Some(id) = other {
            return Some(format!(
                "page {} names question \"{id}\" of another page of the block drawn in order, \
                 which may come after it",
                page + 1
            ));
        }
    }
    None
}

/// The questions a condition names: its rules' and its expressions'.
fn named_questions(condition: &Condition) -> Vec<String> {
    match condition {
        Condition::All { all: list } | Condition::Any { any: list } => {
            list.iter().flat_map(named_questions).collect()
        }
        Condition::Rule(rule) => vec![rule.question.to_string()],
        Condition::Hidden(_) => Vec::new(),
        Condition::Expression(rule) => rule.expression.names().questions,
    }
}
