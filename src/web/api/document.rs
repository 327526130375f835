//! A survey as the API shows it: its definition in pages (each with its texts, condition,
//! jumps and questions), as clients write it, and, for clients that read definitions written
//! before pages existed, every page's questions together in `questions`; with its `state`
//! (draft, open or closed), which clients read but never write.

use serde::Serialize;
use serde_json::{Map, Value};

use crate::domain::{Condition, Jump, Question, Survey, SurveyState};

/// One page as the API shows it.
#[derive(Serialize)]
struct PageDocument<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    title: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    description: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    show_if: Option<&'a Condition>,
    #[serde(skip_serializing_if = "<[Jump]>::is_empty")]
    jumps: &'a [Jump],
    questions: &'a [Question],
}

/// The API's JSON of a survey in its state now.
pub fn survey_document(survey: &Survey, state: SurveyState) -> Value {
    let pages: Vec<PageDocument<'_>> = survey
        .pages()
        .iter()
        .enumerate()
        .map(|(index, page)| PageDocument {
            title: page.title.as_deref(),
            description: page.description.as_deref(),
            show_if: page.show_if.as_ref(),
            jumps: &page.jumps,
            questions: survey.page_questions(index),
        })
        .collect();
    let mut fields = match serde_json::to_value(survey) {
        Ok(Value::Object(fields)) => fields,
        _ => Map::new(),
    };
    // The stored layout is internal; `pages` says the same in the shape clients write.
    fields.remove("layout");
    fields.remove("was_published");
    fields.insert("state".into(), Value::from(state.as_str()));
    fields.insert(
        "pages".into(),
        serde_json::to_value(pages).unwrap_or(Value::Null),
    );
    Value::Object(fields)
}
