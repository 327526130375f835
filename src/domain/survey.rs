//! Surveys: a tenant's questionnaire, its publication state and its versions.

use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

use super::{Question, QuestionId, SurveySlug, TenantSlug};

/// A survey definition, as stored and as served to respondents.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Survey {
    /// The owner.
    pub tenant: TenantSlug,
    /// Unique within the tenant; made from the title.
    pub slug: SurveySlug,
    /// Its title.
    pub title: String,
    /// An optional introduction shown above the questions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Whether respondents can see and answer it.
    pub published: bool,
    /// Starts at 1; each edit of a published survey adds one. Answers record it.
    pub version: u32,
    /// When it was created.
    #[serde(with = "time::serde::rfc3339")]
    pub created: OffsetDateTime,
    /// When it was last changed.
    #[serde(with = "time::serde::rfc3339")]
    pub updated: OffsetDateTime,
    /// The questions, in display order.
    pub questions: Vec<Question>,
}

impl Survey {
    /// The question with this id, if the current version has it.
    pub fn question(&self, id: &QuestionId) -> Option<&Question> {
        self.questions.iter().find(|question| &question.id == id)
    }

    /// Why the survey cannot be published yet, if it cannot.
    pub fn publish_problem(&self) -> Option<&'static str> {
        self.questions
            .is_empty()
            .then_some("a survey needs at least one question to be published")
    }

    /// Replaces the title, description and questions. Editing a published survey starts a new
    /// version, so answers given earlier keep the version they were given against.
    pub fn revise(
        &mut self,
        title: String,
        description: Option<String>,
        questions: Vec<Question>,
        now: OffsetDateTime,
    ) {
        if self.published {
            self.version += 1;
        }
        self.title = title;
        self.description = description;
        self.questions = questions;
        self.updated = now;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::QuestionKind;

    fn survey(published: bool) -> Survey {
        let now = OffsetDateTime::UNIX_EPOCH;
        Survey {
            tenant: TenantSlug::parse("acme").expect("a slug"),
            slug: SurveySlug::parse("team").expect("a slug"),
            title: "Team".into(),
            description: None,
            published,
            version: 1,
            created: now,
            updated: now,
            questions: vec![Question {
                id: QuestionId::parse("q1").expect("an id"),
                text: "Name?".into(),
                required: false,
                kind: QuestionKind::ShortText,
            }],
        }
    }

    #[test]
    fn editing_a_published_survey_starts_a_new_version_and_keeps_question_ids() {
        let mut published = survey(true);
        let mut questions = published.questions.clone();
        questions[0].text = "Your name?".into();

        published.revise("Team".into(), None, questions, OffsetDateTime::UNIX_EPOCH);

        assert_eq!(published.version, 2);
        assert_eq!(published.questions[0].id.as_str(), "q1");
        assert_eq!(published.questions[0].text, "Your name?");
    }

    #[test]
    fn editing_a_draft_keeps_its_version() {
        let mut draft = survey(false);
        draft.revise("Team 2".into(), None, vec![], OffsetDateTime::UNIX_EPOCH);
        assert_eq!(draft.version, 1);
        assert_eq!(draft.title, "Team 2");
    }
}
