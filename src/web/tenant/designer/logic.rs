//! The designer's fields for pages and logic, kept with each question block so that adding,
//! moving or removing questions carries them along: whether the question starts a new page
//! (with that page's title, description and jump), and the one rule that shows the question
//! only to some respondents. Logic made through the API that one rule cannot say (groups,
//! several jumps, a page's own condition) is carried unchanged as JSON and shown in words.

use serde_json::{Value, json};

use crate::domain::definition::{JumpInput, PageInput};
use crate::domain::logic::{Condition, Jump, Rule, Target, Test};
use crate::domain::looping::Loop;
use crate::domain::{QuestionId, Survey};

/// The tests offered, with their names for people.
pub(super) const TESTS: [(&str, &str); 7] = [
    ("equals", "is"),
    ("not_equals", "is not"),
    ("greater_than", "is more than"),
    ("less_than", "is less than"),
    ("contains", "contains"),
    ("answered", "is answered"),
    ("not_answered", "is not answered"),
];

/// The value of the question select that keeps logic made through the API as it is.
pub(super) const KEEP: &str = "keep";

/// One rule as the designer's three fields hold it.
#[derive(Clone, Debug, Default, PartialEq)]
pub(super) struct RuleEdit {
    /// The id of the question tested, `KEEP`, or empty for none.
    pub(super) question: String,
    /// One of `TESTS`.
    pub(super) test: String,
    /// What it compares with.
    pub(super) value: String,
}

impl RuleEdit {
    fn of(rule: &Rule) -> Self {
        let (test, value) = match &rule.test {
            Test::Equals(v) => ("equals", v.clone()),
            Test::NotEquals(v) => ("not_equals", v.clone()),
            Test::GreaterThan(n) => ("greater_than", n.to_string()),
            Test::LessThan(n) => ("less_than", n.to_string()),
            Test::Contains(v) => ("contains", v.clone()),
            Test::Answered(true) => ("answered", String::new()),
            Test::Answered(false) => ("not_answered", String::new()),
            Test::AnyOf(_) => return Self::keep(),
        };
        Self {
            question: rule.question.to_string(),
            test: test.into(),
            value,
        }
    }

    fn keep() -> Self {
        Self {
            question: KEEP.into(),
            ..Self::default()
        }
    }

    /// The fields for a condition: its one rule, or `KEEP` for anything more.
    fn of_condition(condition: Option<&Condition>) -> Self {
        match condition {
            None => Self::default(),
            Some(Condition::Rule(rule)) => Self::of(rule),
            // A hidden field's rule is made through the API: kept as it is.
            Some(Condition::Hidden(_) | Condition::Expression(_)) => Self::keep(),
            Some(Condition::All { all: list } | Condition::Any { any: list }) => {
                match list.as_slice() {
                    [Condition::Rule(rule)] => Self::of(rule),
                    _ => Self::keep(),
                }
            }
        }
    }

    /// The rule as definition JSON; `Err` with a message when the value does not fit the test.
    fn json(&self) -> Result<Option<Value>, String> {
        if self.question.is_empty() || self.question == KEEP {
            return Ok(None);
        }
        let number = || {
            self.value
                .trim()
                .parse::<f64>()
                .map_err(|_| "Enter a number (or a date, YYYY-MM-DD) to compare with.".to_owned())
        };
        // A date compares with a date; anything else with a number.
        let bound = |number: &dyn Fn() -> Result<f64, String>| -> Result<Value, String> {
            let value = self.value.trim();
            if crate::domain::answer::date(value).is_some() {
                Ok(json!(value))
            } else {
                number().map(|n| json!(n))
            }
        };
        let test = match self.test.as_str() {
            "answered" => json!({"answered": true}),
            "not_answered" => json!({"answered": false}),
            "greater_than" => json!({"greater_than": bound(&number)?}),
            "less_than" => json!({"less_than": bound(&number)?}),
            "not_equals" => json!({"not_equals": self.value.trim()}),
            "contains" => json!({"contains": self.value.trim()}),
            _ => json!({"equals": self.value.trim()}),
        };
        let mut rule = test;
        rule["question"] = json!(self.question);
        Ok(Some(rule))
    }
}

/// A question block's pages-and-logic fields.
#[derive(Clone, Debug, Default, PartialEq)]
pub(super) struct LogicEdit {
    /// The rule that shows the question.
    pub(super) show: RuleEdit,
    /// The stored condition as JSON, carried so that a rule left as it was is saved exactly
    /// as it was (and one the fields cannot say, while `show` is `KEEP`).
    pub(super) show_if: String,
    /// Whether a new page starts with this question (the first question always starts one).
    pub(super) page_break: bool,
    /// The title and description of the page this question starts.
    pub(super) page_title: String,
    pub(super) page_description: String,
    /// That page's own condition, made through the API, carried as JSON.
    pub(super) page_show_if: String,
    /// The jump at the end of that page: when, and where to (a page index or `end`).
    pub(super) jump: RuleEdit,
    pub(super) jump_to: String,
    /// The stored jumps as JSON, carried as the condition is.
    pub(super) jumps: String,
    /// Whether the page it starts shows its questions in an order drawn for each respondent.
    pub(super) shuffle_page: bool,
    /// What the page it starts repeats over: `over:ID`, `times:ID`, or empty (it does not).
    pub(super) repeat: String,
    /// How many pages, from that one, repeat together (empty: 1).
    pub(super) repeat_pages: String,
}

impl LogicEdit {
    /// The fields of question `index` of a stored survey.
    pub(super) fn of(survey: &Survey, index: usize) -> Self {
        let question = &survey.questions[index];
        let mut edit = Self {
            show: RuleEdit::of_condition(question.show_if.as_ref()),
            show_if: question
                .show_if
                .as_ref()
                .and_then(|c| serde_json::to_string(c).ok())
                .unwrap_or_default(),
            ..Self::default()
        };
        // The page holding this question, if it starts there (pages without questions of
        // their own have no block to live in, and are not kept by the designer).
        let page = survey
            .layout
            .iter()
            .enumerate()
            .rfind(|(_, page)| page.start == index);
        if let Some((number, page)) = page {
            edit.page_break = number > 0;
            edit.page_title = page.title.clone().unwrap_or_default();
            edit.page_description = page.description.clone().unwrap_or_default();
            edit.page_show_if = page
                .show_if
                .as_ref()
                .and_then(|c| serde_json::to_string(c).ok())
                .unwrap_or_default();
            if !page.jumps.is_empty() {
                edit.jumps = serde_json::to_string(&page.jumps).unwrap_or_default();
            }
            (edit.jump, edit.jump_to) = jump_fields(&page.jumps);
            edit.shuffle_page = page.randomize_questions;
            if let Some(looped) = &page.repeat {
                edit.repeat = match (&looped.over, &looped.times) {
                    (Some(id), _) => format!("over:{id}"),
                    (None, Some(id)) => format!("times:{id}"),
                    (None, None) => String::new(),
                };
                if looped.pages > 1 {
                    edit.repeat_pages = looped.pages.to_string();
                }
            }
        }
        edit
    }

    /// The fields of a copy of the question placed right after it: the same rule, on the
    /// same page (a copy starts no page of its own).
    pub(super) fn for_copy(&self) -> Self {
        Self {
            show: self.show.clone(),
            show_if: self.show_if.clone(),
            ..Self::default()
        }
    }

    /// The fields as posted for block `q`.
    pub(super) fn posted(q: impl Fn(&str) -> String) -> Self {
        let rule = |prefix: &str| {
            let question = q(&format!("{prefix}_question"));
            // An answer picked from the list (`ID:value`) counts when it is one of the
            // question picked; else the value typed.
            let picked = q(&format!("{prefix}_pick"));
            let value = match picked.split_once(':') {
                Some((id, value)) if id == question && !value.is_empty() => value.to_owned(),
                _ => q(&format!("{prefix}_value")),
            };
            RuleEdit {
                question,
                test: q(&format!("{prefix}_test")),
                value,
            }
        };
        Self {
            show: rule("if"),
            show_if: q("show_if"),
            page_break: !q("page_break").is_empty(),
            page_title: q("page_title"),
            page_description: q("page_description"),
            page_show_if: q("page_show_if"),
            jump: rule("jump"),
            jump_to: q("jump_to"),
            jumps: q("jumps"),
            shuffle_page: !q("shuffle_page").is_empty(),
            repeat: q("repeat"),
            repeat_pages: q("repeat_pages"),
        }
    }

    /// The loop of the page this block starts, from its fields (`Err` names what is wrong).
    fn repeat(&self) -> Result<Option<Loop>, String> {
        let Some((how, id)) = self.repeat.split_once(':') else {
            return Ok(None);
        };
        let id = QuestionId::parse(id).ok_or("Choose the question the page repeats over.")?;
        let pages = match self.repeat_pages.trim() {
            "" => 1,
            pages => pages
                .parse::<usize>()
                .map_err(|_| "Pages repeated together is a whole number, 1 or more.")?,
        };
        let (over, times) = match how {
            "times" => (None, Some(id)),
            _ => (Some(id), None),
        };
        Ok(Some(Loop { over, times, pages }))
    }

    /// The question's condition as definition JSON (`Err` names what is wrong): the stored
    /// one when the fields still say what it says, else what the fields say.
    pub(super) fn condition(&self) -> Result<Option<Value>, String> {
        let stored = serde_json::from_str::<Condition>(&self.show_if).ok();
        if self.show.question == KEEP
            || stored.is_some_and(|c| RuleEdit::of_condition(Some(&c)) == self.show)
        {
            return Ok(json_of(&self.show_if));
        }
        self.show.json()
    }

    /// The page this block starts (without its questions), if it starts one: block 0 always
    /// does, others when `page_break` is ticked. `Err` names what is wrong with its jump.
    pub(super) fn page(&self, first: bool) -> Result<Option<PageInput>, String> {
        if !first && !self.page_break {
            return Ok(None);
        }
        let text = |t: &str| Some(t.trim().to_owned()).filter(|t| !t.is_empty());
        let stored = serde_json::from_str::<Vec<Jump>>(&self.jumps).ok();
        let unchanged = stored
            .is_some_and(|jumps| jump_fields(&jumps) == (self.jump.clone(), self.jump_to.clone()));
        let jumps = if self.jump.question == KEEP || unchanged {
            match json_of(&self.jumps) {
                Some(Value::Array(jumps)) => jumps
                    .into_iter()
                    .map(|jump| JumpInput {
                        condition: jump["if"].clone(),
                        to: jump["to"].clone(),
                    })
                    .collect(),
                _ => Vec::new(),
            }
        } else {
            match self.jump.json()? {
                None => Vec::new(),
                Some(condition) => {
                    let to = match self.jump_to.trim() {
                        "end" | "" => json!("end"),
                        page => page
                            .parse::<u64>()
                            .map(|p| json!(p))
                            .map_err(|_| "Choose where the jump goes.".to_owned())?,
                    };
                    vec![JumpInput { condition, to }]
                }
            }
        };
        Ok(Some(PageInput {
            repeat: self.repeat()?,
            randomize_questions: self.shuffle_page,
            title: text(&self.page_title),
            description: text(&self.page_description),
            show_if: json_of(&self.page_show_if),
            questions: Vec::new(),
            jumps,
        }))
    }

    /// Whether this block says anything about pages or jumps.
    pub(super) fn shapes_pages(&self) -> bool {
        self.page_break
            || !self.page_title.trim().is_empty()
            || !self.page_description.trim().is_empty()
            || !self.page_show_if.trim().is_empty()
            || !self.jump.question.is_empty()
            || self.shuffle_page
            || !self.repeat.is_empty()
    }

    /// Logic made through the API that the fields cannot show, in words.
    pub(super) fn kept_words(&self) -> Vec<String> {
        let words = |json: &str| {
            serde_json::from_str::<Condition>(json)
                .ok()
                .map(|c| c.describe())
        };
        let mut lines = Vec::new();
        if self.show.question == KEEP
            && let Some(w) = words(&self.show_if)
        {
            lines.push(format!("Shown only if {w}."));
        }
        if let Some(w) = words(&self.page_show_if) {
            lines.push(format!("This page is shown only if {w}."));
        }
        if self.jump.question == KEEP
            && let Ok(jumps) = serde_json::from_str::<Vec<Jump>>(&self.jumps)
        {
            for jump in jumps {
                let to = match jump.to {
                    Target::Page(p) => format!("page {}", p + 1),
                    Target::End => "the end".into(),
                };
                lines.push(format!(
                    "After this page: if {}, go to {to}.",
                    jump.condition.describe()
                ));
            }
        }
        lines
    }
}

/// The jump fields for a page's jumps: one rule and its target, `KEEP` for anything more.
fn jump_fields(jumps: &[Jump]) -> (RuleEdit, String) {
    match jumps {
        [] => (RuleEdit::default(), String::new()),
        [Jump { condition, to }] => match RuleEdit::of_condition(Some(condition)) {
            fields if fields.question != KEEP => (fields, target(*to)),
            _ => (RuleEdit::keep(), String::new()),
        },
        _ => (RuleEdit::keep(), String::new()),
    }
}

/// Carried JSON read back (text that is not JSON is handed on as a string, which the
/// definition check refuses clearly).
fn json_of(text: &str) -> Option<Value> {
    let text = text.trim();
    (!text.is_empty()).then(|| serde_json::from_str(text).unwrap_or_else(|_| text.into()))
}

/// A jump target as the "go to" select's value.
fn target(to: Target) -> String {
    match to {
        Target::Page(page) => page.to_string(),
        Target::End => "end".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rule_survives_the_fields_and_anything_more_is_kept() {
        for json in [
            json!({"question": "likes", "equals": "No"}),
            json!({"question": "age", "greater_than": 17.0}),
            json!({"question": "why", "answered": false}),
        ] {
            let condition: Condition = serde_json::from_value(json.clone()).expect("a condition");
            let fields = RuleEdit::of_condition(Some(&condition));
            assert_ne!(fields.question, KEEP);
            assert_eq!(fields.json(), Ok(Some(json)));
        }
        let group: Condition = serde_json::from_value(json!({"any": [
            {"question": "a", "answered": true}, {"question": "b", "answered": true}]}))
        .expect("a group");
        assert_eq!(RuleEdit::of_condition(Some(&group)).question, KEEP);
        let number = RuleEdit {
            question: "age".into(),
            test: "less_than".into(),
            value: "many".into(),
        };
        assert!(number.json().is_err());
    }
}
