//! Checking the quotas of a definition: each with an id kept from what was sent (or a new
//! one), a name, a limit, a condition on the survey's questions as survey logic writes it, an
//! optional message, and what happens once it is full. Problems go to `quotas[N].field`.

use std::collections::HashSet;

use serde::Deserialize;

use super::logic::condition_on;
use super::{CONTROL, DefinitionErrors, MAX_MESSAGE};
use crate::domain::Question;
use crate::domain::answer::has_control_characters;
use crate::domain::quota::{MAX_QUOTA_LIMIT, MAX_QUOTA_NAME, MAX_QUOTAS, Quota, QuotaId, WhenFull};

/// One quota as sent.
#[derive(Clone, Debug, Deserialize, utoipa::ToSchema)]
pub struct QuotaInput {
    /// The id of a quota being kept (absent for a new one); its places are kept by it.
    #[serde(default)]
    #[schema(pattern = "^[a-z0-9]{1,32}$")]
    pub id: Option<String>,
    /// What owners call it ("Tea drinkers"), 1 to 100 characters.
    pub name: String,
    /// How many answers it takes, 1 to 1,000,000.
    #[schema(minimum = 1, maximum = 1000000)]
    pub limit: u64,
    /// Which answers it is for: a condition on the survey's questions, as `show_if` writes
    /// them (`{"all": [{"question": "drink", "any_of": ["Tea"]}, {"question": "age",
    /// "any_of": ["18-24"]}]}`), any question of any page.
    #[schema(value_type = crate::domain::Condition)]
    pub when: serde_json::Value,
    /// What a respondent it ends reads (Markdown, at most 2,000 characters).
    #[serde(default)]
    #[schema(value_type = Option<super::localized::LocalizedText>)]
    pub message: Option<String>,
    /// `end` (the default): a respondent whose answers meet it once full is ended with its
    /// message and the answer is not kept; `count`: the answer is kept and counted, marked
    /// over the quota.
    #[serde(default)]
    pub full: WhenFull,
}

/// The quotas sent for a survey of `questions`, checked, or what is wrong by field.
pub fn check_quotas(
    sent: &[QuotaInput],
    questions: &[Question],
) -> Result<Vec<Quota>, DefinitionErrors> {
    let mut errors = DefinitionErrors::new();
    let quotas = check(sent, questions, &mut errors);
    match errors.is_empty() {
        true => Ok(quotas),
        false => Err(errors),
    }
}

/// The quotas sent, checked against the definition's `questions`.
pub(super) fn check(
    sent: &[QuotaInput],
    questions: &[Question],
    errors: &mut DefinitionErrors,
) -> Vec<Quota> {
    if sent.len() > MAX_QUOTAS {
        errors.insert(
            "quotas".into(),
            format!("a survey has at most {MAX_QUOTAS} quotas"),
        );
        return Vec::new();
    }
    let mut used = HashSet::new();
    let mut quotas = Vec::with_capacity(sent.len());
    for (index, input) in sent.iter().enumerate() {
        let at = |field: &str| format!("quotas[{index}].{field}");
        let id = match input
            .id
            .as_deref()
            .map(str::trim)
            .filter(|id| !id.is_empty())
        {
            None => QuotaId::generate(),
            Some(chosen) => match QuotaId::parse(chosen) {
                Some(id) => id,
                None => {
                    let problem = "a quota id is 1 to 32 lowercase letters and digits";
                    errors.insert(at("id"), problem.into());
                    continue;
                }
            },
        };
        if !used.insert(id.clone()) {
            errors.insert(
                at("id"),
                format!("two quotas have the id \"{id}\": each needs its own"),
            );
            continue;
        }
        let name = input.name.trim();
        if name.is_empty() || name.chars().count() > MAX_QUOTA_NAME {
            let problem = format!("a quota needs a name of 1 to {MAX_QUOTA_NAME} characters");
            errors.insert(at("name"), problem);
            continue;
        }
        if has_control_characters(name) {
            errors.insert(at("name"), CONTROL.into());
            continue;
        }
        let Some(limit) = u32::try_from(input.limit)
            .ok()
            .filter(|limit| (1..=MAX_QUOTA_LIMIT).contains(limit))
        else {
            let problem = "a quota's limit is a whole number from 1 to 1,000,000";
            errors.insert(at("limit"), problem.into());
            continue;
        };
        let when = match condition_on(questions, &input.when) {
            Ok(when) => when,
            Err(problem) => {
                errors.insert(at("when"), format!("quota \"{name}\": {problem}"));
                continue;
            }
        };
        let message = input
            .message
            .as_deref()
            .map(str::trim)
            .filter(|m| !m.is_empty());
        if let Some(message) = message {
            if message.chars().count() > MAX_MESSAGE as usize {
                errors.insert(
                    at("message"),
                    "a quota's message is at most 2,000 characters".into(),
                );
                continue;
            }
            if has_control_characters(message) {
                errors.insert(at("message"), CONTROL.into());
                continue;
            }
        }
        quotas.push(Quota {
            id,
            name: name.to_owned(),
            limit,
            when,
            message: message.map(str::to_owned),
            full: input.full,
        });
    }
    quotas
}
