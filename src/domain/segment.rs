//! Segments: the respondents who gave one answer to a choice-type question ("everyone who
//! answered Beach"). An owner marks up to `MAX_SEGMENT_QUESTIONS` questions of a survey as
//! segment questions; each option of such a question is a segment, with a summary and an
//! answer list of its own kept by the worker.

use std::fmt;

use serde::Serialize;

use super::{AnswerValue, Question, QuestionId, QuestionKind};

/// Most segment questions in one survey: each multiplies the statistics every answer updates.
pub const MAX_SEGMENT_QUESTIONS: usize = 3;

/// Longest option text a segment filter names (an option is at most this long too).
pub const MAX_OPTION_CHARS: usize = 200;

impl QuestionKind {
    /// Whether answers to it pick from a fixed set of options, so that it can segment.
    pub fn can_segment(&self) -> bool {
        matches!(
            self,
            QuestionKind::SingleChoice { .. }
                | QuestionKind::MultipleChoice { .. }
                | QuestionKind::Dropdown { .. }
                | QuestionKind::FiveStars
                | QuestionKind::Nps
                | QuestionKind::Scale { .. }
        )
    }

    /// The segments of a segment question, in display order: its options ("Other" last when
    /// offered), or its stars or points as numbers.
    pub fn segment_options(&self) -> Vec<String> {
        if let Some(points) = self.points() {
            return points.map(|point| point.to_string()).collect();
        }
        match self {
            QuestionKind::FiveStars => (1..=5).map(|stars: u8| stars.to_string()).collect(),
            QuestionKind::SingleChoice { options, other }
            | QuestionKind::MultipleChoice { options, other } => {
                let mut all = options.clone();
                if *other {
                    all.push(super::choice::OTHER.to_owned());
                }
                all
            }
            QuestionKind::Dropdown { options } => options.clone(),
            _ => Vec::new(),
        }
    }
}

/// The segments an answer to a segment question puts a response in: the option picked (every
/// option ticked, for multiple choice), or the stars or point given.
pub fn options_of(value: &AnswerValue) -> Vec<String> {
    match value {
        AnswerValue::Choice(option) => vec![option.clone()],
        AnswerValue::Choices(options) => options.clone(),
        AnswerValue::Other { picked, .. } => {
            let mut all = picked.clone();
            all.push(super::choice::OTHER.to_owned());
            all
        }
        AnswerValue::Stars(stars) => vec![stars.to_string()],
        AnswerValue::Point(point) => vec![point.to_string()],
        AnswerValue::Text(_)
        | AnswerValue::Number(_)
        | AnswerValue::Date(_)
        | AnswerValue::Matrix(_)
        | AnswerValue::Ranking(_) => Vec::new(),
    }
}

/// The segment questions of a survey, in the survey's order.
pub fn segment_questions(questions: &[Question]) -> Vec<QuestionId> {
    questions
        .iter()
        .filter(|q| q.segment && q.kind.can_segment())
        .map(|q| q.id.clone())
        .collect()
}

/// One segment, as a filter names it: `QUESTION_ID:OPTION`.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SegmentId {
    /// The segment question.
    pub question: QuestionId,
    /// The option (for stars and points, the number).
    pub option: String,
}

impl SegmentId {
    /// Reads `QUESTION_ID:OPTION` (the option may hold colons; a question id cannot).
    pub fn parse(text: &str) -> Result<Self, String> {
        let (question, option) = text
            .split_once(':')
            .ok_or("a segment is written QUESTION_ID:OPTION")?;
        let question = QuestionId::parse(question.trim())
            .ok_or("a segment's question id is 1 to 32 lowercase letters and digits")?;
        if option.is_empty() || option.chars().count() > MAX_OPTION_CHARS {
            return Err(format!(
                "a segment's option is 1 to {MAX_OPTION_CHARS} characters"
            ));
        }
        Ok(Self {
            question,
            option: option.to_owned(),
        })
    }

    /// The segment a query names (`None` if it names none), checked against `questions`.
    pub fn asked(text: Option<&str>, questions: &[Question]) -> Result<Option<Self>, String> {
        let Some(text) = text.filter(|text| !text.is_empty()) else {
            return Ok(None);
        };
        let segment = Self::parse(text)?;
        segment.check(questions)?;
        Ok(Some(segment))
    }

    /// Checks that it names an option of a segment question of `questions`.
    pub fn check(&self, questions: &[Question]) -> Result<(), String> {
        let question = questions
            .iter()
            .find(|q| q.id == self.question)
            .ok_or_else(|| format!("the survey has no question \"{}\"", self.question))?;
        if !(question.segment && question.kind.can_segment()) {
            return Err(format!(
                "question \"{}\" is not a segment question (mark it with \"segment\": true)",
                self.question
            ));
        }
        if !question.kind.segment_options().contains(&self.option) {
            return Err(format!(
                "question \"{}\" has no option \"{}\"",
                self.question, self.option
            ));
        }
        Ok(())
    }
}

/// A segment as reports show it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct SegmentReport {
    /// `QUESTION_ID:OPTION`, as filters name it.
    pub id: String,
    /// The segment question's id.
    pub question: String,
    /// The segment question's text.
    pub question_text: String,
    /// The option.
    pub option: String,
    /// Responses in it.
    pub total: u64,
    /// Whether it holds every response with the option; `false` while the answers counted
    /// before its question became a segment question are being added.
    pub complete: bool,
    /// How far adding them has come, while it runs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub build: Option<BuildReport>,
}

/// How far a segment build has come.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct BuildReport {
    /// Earlier answers looked at.
    pub done: u64,
    /// Earlier answers to look at.
    pub of: u64,
}

impl BuildReport {
    /// How far, in whole percent.
    pub fn percent(&self) -> u64 {
        // In u128: a hundred times any count fits.
        (u128::from(self.done.min(self.of)) * 100)
            .checked_div(u128::from(self.of))
            .map_or(0, |percent| percent as u64)
    }
}

impl fmt::Display for SegmentId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.question, self.option)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn question(id: &str, kind: QuestionKind, segment: bool) -> Question {
        Question {
            id: QuestionId::parse(id).expect("an id"),
            text: id.into(),
            required: false,
            kind,
            show_if: None,
            segment,
        }
    }

    #[test]
    fn choice_type_questions_segment_by_option_star_or_point() {
        let choice = QuestionKind::SingleChoice {
            options: vec!["Beach".into(), "Hills".into()],
            other: true,
        };
        assert_eq!(choice.segment_options(), ["Beach", "Hills", "Other"]);
        assert_eq!(QuestionKind::Nps.segment_options().len(), 11);
        let scale = QuestionKind::Scale {
            points: 4,
            min_label: None,
            max_label: None,
        };
        assert_eq!(scale.segment_options(), ["1", "2", "3", "4"]);
        assert_eq!(QuestionKind::FiveStars.segment_options()[4], "5");
        assert!(!QuestionKind::ShortText.can_segment());
        assert!(QuestionKind::ShortText.segment_options().is_empty());
    }

    #[test]
    fn an_answer_is_in_the_segment_of_each_option_it_holds() {
        assert_eq!(options_of(&AnswerValue::Choice("Beach".into())), ["Beach"]);
        assert_eq!(
            options_of(&AnswerValue::Other {
                picked: vec!["Hills".into()],
                text: "a lake".into()
            }),
            ["Hills", "Other"]
        );
        assert_eq!(options_of(&AnswerValue::Point(0)), ["0"]);
        assert_eq!(options_of(&AnswerValue::Stars(4)), ["4"]);
        assert!(options_of(&AnswerValue::Text("Beach".into())).is_empty());
    }

    #[test]
    fn a_segment_filter_names_an_option_of_a_segment_question() {
        let questions = [
            question(
                "place",
                QuestionKind::Dropdown {
                    options: vec!["Beach".into(), "a:b".into()],
                },
                true,
            ),
            question("rating", QuestionKind::FiveStars, false),
        ];
        let beach = SegmentId::parse("place:Beach").expect("valid");
        assert_eq!(beach.to_string(), "place:Beach");
        assert!(beach.check(&questions).is_ok());
        let colon = SegmentId::parse("place:a:b").expect("an option may hold a colon");
        assert_eq!(colon.option, "a:b");
        assert!(colon.check(&questions).is_ok());
        assert!(SegmentId::parse("place").is_err());
        assert!(SegmentId::parse("Place:Beach").is_err());
        assert!(SegmentId::parse("place:").is_err());
        let not_marked = SegmentId::parse("rating:5").expect("parses");
        assert!(not_marked.check(&questions).is_err());
        let missing = SegmentId::parse("place:Hills").expect("parses");
        assert!(missing.check(&questions).is_err());
        assert_eq!(segment_questions(&questions), [questions[0].id.clone()]);
    }

    #[test]
    fn build_progress_is_a_whole_percent_even_at_the_edges() {
        let at = |done, of| BuildReport { done, of }.percent();
        assert_eq!(
            (at(0, 0), at(0, 800), at(400, 800), at(800, 800)),
            (0, 0, 50, 100)
        );
        assert_eq!(at(900, 800), 100, "never past 100");
        assert_eq!(at(u64::MAX / 50, u64::MAX / 50), 100, "no overflow");
    }

    proptest! {
        #[test]
        fn every_option_of_an_answer_is_an_option_of_its_question(
            options in proptest::collection::btree_set("[A-Za-z :]{1,12}", 2..6),
            picks in proptest::collection::vec(any::<bool>(), 6),
            other in any::<bool>(),
        ) {
            let options: Vec<String> = options.into_iter().collect();
            let kind = QuestionKind::MultipleChoice { options: options.clone(), other };
            let picked: Vec<String> = options.iter().zip(&picks)
                .filter(|(_, p)| **p).map(|(o, _)| o.clone()).collect();
            let value = if other {
                AnswerValue::Other { picked, text: "x".into() }
            } else {
                AnswerValue::Choices(picked)
            };
            let all = kind.segment_options();
            for option in options_of(&value) {
                prop_assert!(all.contains(&option));
                let id = SegmentId::parse(&format!("q:{option}")).expect("parses");
                prop_assert_eq!(id.option, option);
            }
        }
    }
}
