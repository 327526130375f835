//! Quotas: how many answers of one kind a survey takes ("Tea drinkers: 100", "Age 18-24 and
//! Tea: 30"). A quota's condition is a survey condition on the answers; an answer that meets
//! it takes a place, and once every place is taken, respondents whose answers meet it are
//! ended politely (or, if the owner chooses, counted and marked over the quota). Places are
//! claimed in storage so that no quota ever takes more answers than its limit, whatever
//! processes submit at once (`stores::quotas`).

use std::collections::{BTreeMap, HashSet};

use serde::{Deserialize, Serialize};

use super::logic::Condition;
use super::{AnswerValue, QuestionId};

/// Most quotas in one survey.
pub const MAX_QUOTAS: usize = 20;
/// Largest limit of one quota.
pub const MAX_QUOTA_LIMIT: u32 = 1_000_000;
/// Longest quota name, in characters.
pub const MAX_QUOTA_NAME: usize = 100;

super::ids::lowercase_id!(
    /// A quota's stable id: 1-32 lowercase letters and digits.
    QuotaId,
    min = 1,
    what = "a quota id"
);

impl QuotaId {
    /// A fresh random id.
    pub fn generate() -> Self {
        Self::random(8)
    }
}

/// What happens to an answer that meets a full quota.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum WhenFull {
    /// The respondent is ended with the quota's message; the answer is not kept.
    #[default]
    End,
    /// The answer is kept and counted, marked over the quota.
    Count,
}

impl WhenFull {
    fn is_end(&self) -> bool {
        *self == WhenFull::End
    }
}

/// One quota of a survey.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Quota {
    /// Its stable id (places are kept by it).
    pub id: QuotaId,
    /// What owners call it ("Tea drinkers").
    pub name: String,
    /// How many answers it takes.
    pub limit: u32,
    /// Which answers it is for.
    pub when: Condition,
    /// What a respondent ended by it reads (Markdown); the site's own words when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// What happens to an answer once it is full.
    #[serde(default, skip_serializing_if = "WhenFull::is_end")]
    pub full: WhenFull,
}

impl Quota {
    /// Whether an answer with these values is one of its kind.
    pub fn meets(&self, values: &BTreeMap<QuestionId, AnswerValue>) -> bool {
        // A quota tests answers only (the definition check refuses hidden fields in one).
        self.when
            .holds(values, &super::hidden::HiddenValues::default())
    }

    /// Whether the answers to `shown` (the questions of the pages a respondent has left)
    /// already decide it: every question its condition looks at is among them, so later
    /// pages cannot change whether the answer meets it.
    pub fn decided_by(&self, shown: &HashSet<&QuestionId>) -> bool {
        self.when
            .rules()
            .iter()
            .all(|rule| shown.contains(&rule.question))
    }
}

/// The quotas an answer with these values meets, in the survey's order.
pub fn met<'a>(quotas: &'a [Quota], values: &BTreeMap<QuestionId, AnswerValue>) -> Vec<&'a Quota> {
    quotas.iter().filter(|quota| quota.meets(values)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::logic::{Rule, Test};

    fn id(text: &str) -> QuestionId {
        QuestionId::parse(text).expect("an id")
    }

    fn tea_and_young() -> Quota {
        let rule = |question: &str, options: &[&str]| {
            Condition::Rule(Rule {
                question: id(question),
                test: Test::AnyOf(options.iter().map(|o| (*o).to_owned()).collect()),
            })
        };
        Quota {
            id: QuotaId::parse("young").expect("an id"),
            name: "Age 18-24 and Tea".into(),
            limit: 30,
            when: Condition::All {
                all: vec![rule("drink", &["Tea"]), rule("age", &["18-24"])],
            },
            message: None,
            full: WhenFull::End,
        }
    }

    #[test]
    fn an_answer_meets_a_quota_of_a_combination_only_with_every_part() {
        let quota = tea_and_young();
        let values = |drink: &str, age: &str| {
            BTreeMap::from([
                (id("drink"), AnswerValue::Choice(drink.into())),
                (id("age"), AnswerValue::Choice(age.into())),
            ])
        };
        assert!(quota.meets(&values("Tea", "18-24")));
        assert!(!quota.meets(&values("Tea", "25-34")));
        assert!(!quota.meets(&values("Coffee", "18-24")));
        assert_eq!(
            met(std::slice::from_ref(&quota), &values("Tea", "18-24")).len(),
            1
        );
        let drink = id("drink");
        let age = id("age");
        assert!(!quota.decided_by(&HashSet::from([&drink])));
        assert!(quota.decided_by(&HashSet::from([&drink, &age])));
    }

    #[test]
    fn a_quota_reads_and_writes_the_documented_json() {
        let json = serde_json::json!({"id": "young", "name": "Age 18-24 and Tea", "limit": 30,
            "when": {"all": [{"question": "drink", "any_of": ["Tea"]}, {"question": "age", "any_of": ["18-24"]}]}});
        let quota: Quota = serde_json::from_value(json.clone()).expect("reads");
        assert_eq!(quota, tea_and_young());
        assert_eq!(serde_json::to_value(&quota).expect("writes"), json);
        let counted = serde_json::json!({"id": "a", "name": "A", "limit": 1,
            "when": {"question": "drink", "equals": "Tea"}, "full": "count"});
        let quota: Quota = serde_json::from_value(counted).expect("reads");
        assert_eq!(quota.full, WhenFull::Count);
    }
}
