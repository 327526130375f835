//! A loop as a page declares it (`"loop": {"over": ID}` or `{"times": ID}`), and one time
//! round it as a page of a survey unrolled for a respondent carries it (see `looping`), with
//! how expressions on such a page read the answers. Apart from `looping` so that pages and
//! their logic can name them without importing the unrolling.

use std::borrow::Cow;
use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::QuestionId;
use super::answer_value::AnswerValue;

/// What a page repeats over.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Loop {
    /// A multiple-choice question on an earlier page: once for each option chosen.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<String>)]
    pub over: Option<QuestionId>,
    /// A number question on an earlier page: as many times as its answer (at most 50).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<String>)]
    pub times: Option<QuestionId>,
    /// How many pages, from this one, are repeated together (1 when absent).
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub pages: usize,
}

fn one() -> usize {
    1
}

fn is_one(n: &usize) -> bool {
    *n == 1
}

impl Loop {
    /// The question it repeats over.
    pub fn source(&self) -> Option<&QuestionId> {
        self.over.as_ref().or(self.times.as_ref())
    }
}

/// One time round a loop, as a page of an unrolled survey carries it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoopItem {
    /// What its answers' ids carry in brackets.
    pub key: String,
    /// The question repeated over.
    pub source: QuestionId,
    /// The source's option it stands for (by position), if any.
    pub option: Option<usize>,
    /// What `{{loop}}` shows, in the survey's default language.
    pub label: String,
}

/// The answers as an expression on a page of `item` reads them: this item's answers also under
/// their questions' own ids, so `q.ID` is the current item's.
pub fn in_item<'a>(
    values: &'a BTreeMap<QuestionId, AnswerValue>,
    item: Option<&LoopItem>,
) -> Cow<'a, BTreeMap<QuestionId, AnswerValue>> {
    let Some(item) = item else {
        return Cow::Borrowed(values);
    };
    let mut read = values.clone();
    for (id, value) in values {
        if let Some((question, key)) = id.looped()
            && key == item.key
        {
            read.insert(question, value.clone());
        }
    }
    Cow::Owned(read)
}
