//! Segments: the respondents who gave one answer to a choice-type question ("everyone who
//! answered Beach"), who answered in one language, or participants with one value of an
//! attribute ("everyone in Sales"). An owner marks up to `MAX_SEGMENT_QUESTIONS` questions of
//! a survey as segment questions, and up to `MAX_SEGMENT_ATTRIBUTES` attributes of its
//! participants (a survey whose answers are not anonymous); each option of such a question
//! is a segment, and so is each language of a survey offered in several and each value of
//! such an attribute, with a summary and an answer list of its own kept by the worker.

use std::fmt;

use serde::{Deserialize, Serialize};

use super::participant::{
    AttributeIndex, MAX_ATTRIBUTE_NAME, MAX_SEGMENT_VALUES, valid_attribute_name,
};
use super::{Answer, AnswerValue, Question, QuestionId, QuestionKind, Survey};

/// Most segment questions in one survey: each multiplies the statistics every answer updates.
pub const MAX_SEGMENT_QUESTIONS: usize = 3;
/// Most participant attributes one survey's answers are divided by.
pub const MAX_SEGMENT_ATTRIBUTES: usize = 2;

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
        | AnswerValue::Ranking(_)
        | AnswerValue::File(_) => Vec::new(),
    }
}

/// How a filter and the summary name the language segments (a question id has no `@`).
const LANGUAGE: &str = "@language";
/// What starts the name of a participant attribute's segments (`@participant.team`).
const ATTRIBUTE: &str = "@participant.";
/// What starts the name of a hidden field's segments (`@hidden.source`).
const HIDDEN: &str = "@hidden.";
/// What starts the name of a variable's segments (`@variable.band`).
const VARIABLE: &str = "@variable.";

/// Most segments one hidden field or variable divides answers into: its first values seen,
/// in the order answers are counted; answers with a value past these are in none of its
/// segments (a link's values are the respondent's to choose).
pub const MAX_VALUE_SEGMENTS: usize = 50;

/// What a survey's segments divide its responses by: the answer to one segment question, or
/// the language a response was given in.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub enum SegmentKey {
    /// A segment question's options.
    Question(QuestionId),
    /// The survey's languages.
    Language,
    /// The values of a participant attribute (answers given through personal links).
    Attribute(String),
    /// The values of a hidden field, as the survey's address gave them.
    Hidden(String),
    /// The values of a variable computed from the answers (a band such as "10 to 19").
    Variable(String),
}

impl SegmentKey {
    /// Reads a question id, `@language` or `@participant.NAME`.
    pub fn parse(text: &str) -> Option<Self> {
        if let Some(name) = text.strip_prefix(ATTRIBUTE) {
            return valid_attribute_name(name).then(|| Self::Attribute(name.to_owned()));
        }
        if let Some(name) = text.strip_prefix(HIDDEN) {
            return super::hidden::valid_name(name).then(|| Self::Hidden(name.to_owned()));
        }
        if let Some(id) = text.strip_prefix(VARIABLE) {
            return super::hidden::valid_name(id).then(|| Self::Variable(id.to_owned()));
        }
        match text {
            LANGUAGE => Some(Self::Language),
            _ => QuestionId::parse(text).map(Self::Question),
        }
    }

    /// The segments of it an answer is in: the options it holds, or its language (an answer
    /// given before languages were recorded is in none).
    pub fn options_in(&self, answer: &Answer) -> Vec<String> {
        match self {
            Self::Question(question) => answer
                .values
                .get(question)
                .map_or_else(Vec::new, options_of),
            Self::Language => answer.language.iter().map(ToString::to_string).collect(),
            Self::Attribute(name) => answer
                .participant
                .iter()
                .filter_map(|who| who.attributes.get(name).cloned())
                .collect(),
            Self::Hidden(name) => answer
                .hidden
                .get(name)
                .map(str::to_owned)
                .into_iter()
                .collect(),
            Self::Variable(id) => answer
                .variables
                .get(id)
                .and_then(|value| {
                    let text = super::expression::shown(value);
                    let short = !text.is_empty() && text.chars().count() <= MAX_OPTION_CHARS;
                    short.then_some(text)
                })
                .into_iter()
                .collect(),
        }
    }

    /// Whether its segments are the values answers hold rather than a fixed list, kept for
    /// the first `MAX_VALUE_SEGMENTS` values seen (a hidden field's, a variable's).
    pub fn takes_values_seen(&self) -> bool {
        matches!(self, Self::Hidden(_) | Self::Variable(_))
    }

    /// Its segments in `survey`, in display order, with what the dimension is called there
    /// (the question's text, or "Language"); `None` if it divides nothing in `survey`. An
    /// attribute's segments are the values its answers hold (`seen`, in order).
    pub fn segments_in<'a>(
        &self,
        survey: &Survey,
        seen: impl Iterator<Item = &'a String>,
    ) -> Option<(String, Vec<String>)> {
        match self {
            Self::Question(id) => survey
                .questions
                .iter()
                .find(|q| q.id == *id && q.segment && q.kind.can_segment())
                .map(|q| (q.text.clone(), q.kind.segment_options())),
            Self::Language => (survey.languages.len() > 1).then(|| {
                let tags = survey.languages.iter().map(ToString::to_string).collect();
                ("Language".to_owned(), tags)
            }),
            Self::Attribute(name) => survey
                .segments_by_attribute(name)
                .then(|| (format!("Participants' {name}"), seen.cloned().collect())),
            Self::Hidden(name) => survey
                .segment_hidden
                .contains(name)
                .then(|| (format!("The link's {name}"), seen.cloned().collect())),
            Self::Variable(id) => survey
                .variables
                .iter()
                .any(|v| v.id == *id && v.segment)
                .then(|| (format!("Variable {id}"), seen.cloned().collect())),
        }
    }
}

impl TryFrom<String> for SegmentKey {
    type Error = String;

    fn try_from(text: String) -> Result<Self, String> {
        Self::parse(&text).ok_or_else(|| format!("{text:?} is not a question id or {LANGUAGE}"))
    }
}

impl From<SegmentKey> for String {
    fn from(key: SegmentKey) -> String {
        key.to_string()
    }
}

impl fmt::Display for SegmentKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Question(id) => f.write_str(id.as_str()),
            Self::Language => f.write_str(LANGUAGE),
            Self::Attribute(name) => write!(f, "{ATTRIBUTE}{name}"),
            Self::Hidden(name) => write!(f, "{HIDDEN}{name}"),
            Self::Variable(id) => write!(f, "{VARIABLE}{id}"),
        }
    }
}

/// Why a survey's answers cannot be divided by the participant attributes `names`: more than
/// `MAX_SEGMENT_ATTRIBUTES`, a name that is no attribute's, one named twice, a survey whose
/// answers are `anonymous` (they carry no attributes), or, given the survey's attribute
/// `index`, one that takes more values among its participants than segments are kept for.
pub fn attribute_segments_problem(
    names: &[String],
    anonymous: bool,
    index: Option<&AttributeIndex>,
) -> Option<String> {
    if names.is_empty() {
        return None;
    }
    if anonymous {
        return Some(
            "an anonymous survey's answers carry no participant attributes to divide them by"
                .into(),
        );
    }
    if names.len() > MAX_SEGMENT_ATTRIBUTES {
        return Some(format!(
            "answers are divided by at most {MAX_SEGMENT_ATTRIBUTES} participant attributes"
        ));
    }
    if let Some(bad) = names.iter().find(|name| !valid_attribute_name(name)) {
        return Some(format!(
            "{bad:?} is not an attribute name: 1 to {MAX_ATTRIBUTE_NAME} letters, digits or _"
        ));
    }
    if names[1..].contains(&names[0]) {
        return Some(format!("{} is named twice", names[0]));
    }
    let varied = names
        .iter()
        .find(|name| index.is_some_and(|index| index.too_varied(name)))?;
    Some(format!(
        "{varied} takes more than {MAX_SEGMENT_VALUES} different values among the \
         participants: too many to divide answers by"
    ))
}

/// The segment questions of a survey, in the survey's order.
pub fn segment_questions(questions: &[Question]) -> Vec<QuestionId> {
    questions
        .iter()
        .filter(|q| q.segment && q.kind.can_segment())
        .map(|q| q.id.clone())
        .collect()
}

/// What a survey's segments divide it by: its segment questions in order, then its languages
/// when it is offered in several.
pub fn segment_keys(survey: &Survey) -> Vec<SegmentKey> {
    let mut keys: Vec<SegmentKey> = segment_questions(&survey.questions)
        .into_iter()
        .map(SegmentKey::Question)
        .collect();
    if survey.languages.len() > 1 {
        keys.push(SegmentKey::Language);
    }
    keys.extend(
        survey
            .segment_attributes
            .iter()
            .filter(|name| survey.segments_by_attribute(name))
            .map(|name| SegmentKey::Attribute(name.clone())),
    );
    keys.extend(
        survey
            .segment_hidden
            .iter()
            .cloned()
            .map(SegmentKey::Hidden),
    );
    keys.extend(
        survey
            .variables
            .iter()
            .filter(|v| v.segment)
            .map(|v| SegmentKey::Variable(v.id.clone())),
    );
    keys
}

/// One segment, as a filter names it: `QUESTION_ID:OPTION`, or `@language:TAG`.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SegmentId {
    /// What it divides by.
    pub key: SegmentKey,
    /// The option (for stars and points, the number; for a language, its tag).
    pub option: String,
}

impl SegmentId {
    /// Reads `QUESTION_ID:OPTION` or `@language:TAG` (the option may hold colons; a question
    /// id cannot).
    pub fn parse(text: &str) -> Result<Self, String> {
        let (key, option) = text.split_once(':').ok_or(
            "a segment is written QUESTION_ID:OPTION, @language:TAG or @participant.NAME:VALUE",
        )?;
        let key = SegmentKey::parse(key.trim()).ok_or(
            "a segment's question id is 1 to 32 lowercase letters and digits (or @language, or @participant. and an attribute's name)",
        )?;
        if option.is_empty() || option.chars().count() > MAX_OPTION_CHARS {
            return Err(format!(
                "a segment's option is 1 to {MAX_OPTION_CHARS} characters"
            ));
        }
        Ok(Self {
            key,
            option: option.to_owned(),
        })
    }

    /// The segment a query names (`None` if it names none), checked against `survey`.
    pub fn asked(text: Option<&str>, survey: &Survey) -> Result<Option<Self>, String> {
        let Some(text) = text.filter(|text| !text.is_empty()) else {
            return Ok(None);
        };
        let segment = Self::parse(text)?;
        segment.check(survey)?;
        Ok(Some(segment))
    }

    /// Checks that it names an option of a segment question of `survey`, one of its
    /// languages, or any value of an attribute that divides its answers (one no answer holds
    /// is an empty segment).
    pub fn check(&self, survey: &Survey) -> Result<(), String> {
        let options = match &self.key {
            SegmentKey::Language => self
                .key
                .segments_in(survey, std::iter::empty())
                .ok_or("the survey is offered in one language: it has no language segments")?,
            key @ (SegmentKey::Hidden(_) | SegmentKey::Variable(_)) => {
                return match key.segments_in(survey, std::iter::empty()) {
                    Some(_) => Ok(()),
                    None => Err(format!("the survey's answers are not divided by {key}")),
                };
            }
            SegmentKey::Attribute(name) => {
                return match survey.segments_by_attribute(name) {
                    true => Ok(()),
                    false => Err(format!(
                        "the survey's answers are not divided by the participant attribute \
                         \"{name}\""
                    )),
                };
            }
            SegmentKey::Question(id) => {
                let question = survey
                    .question(id)
                    .ok_or_else(|| format!("the survey has no question \"{id}\""))?;
                self.key.segments_in(survey, std::iter::empty()).ok_or_else(|| {
                    format!(
                        "question \"{}\" is not a segment question (mark it with \"segment\": true)",
                        question.id
                    )
                })?
            }
        };
        match options.1.contains(&self.option) {
            true => Ok(()),
            false if self.key == SegmentKey::Language => {
                Err(format!("the survey is not offered in \"{}\"", self.option))
            }
            false => Err(format!(
                "question \"{}\" has no option \"{}\"",
                self.key, self.option
            )),
        }
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
        write!(f, "{}:{}", self.key, self.option)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn question(id: &str, kind: QuestionKind, segment: bool) -> Question {
        Question {
            segment,
            ..Question::new(QuestionId::parse(id).expect("an id"), id, kind)
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
        let mut survey = Survey::draft(
            crate::domain::TenantSlug::parse("acme").expect("a slug"),
            crate::domain::SurveySlug::parse("trip").expect("a slug"),
            crate::domain::definition::checked::for_one_region(
                crate::domain::definition::Definition {
                    title: "Trip".into(),
                    questions: questions.to_vec(),
                    ..Default::default()
                },
            )
            .expect("checked"),
            time::OffsetDateTime::UNIX_EPOCH,
        );
        let beach = SegmentId::parse("place:Beach").expect("valid");
        assert_eq!(beach.to_string(), "place:Beach");
        assert!(beach.check(&survey).is_ok());
        let colon = SegmentId::parse("place:a:b").expect("an option may hold a colon");
        assert_eq!(colon.option, "a:b");
        assert!(colon.check(&survey).is_ok());
        assert!(SegmentId::parse("place").is_err());
        assert!(SegmentId::parse("Place:Beach").is_err());
        assert!(SegmentId::parse("place:").is_err());
        let not_marked = SegmentId::parse("rating:5").expect("parses");
        assert!(not_marked.check(&survey).is_err());
        let missing = SegmentId::parse("place:Hills").expect("parses");
        assert!(missing.check(&survey).is_err());
        assert_eq!(segment_questions(&questions), [questions[0].id.clone()]);
        assert_eq!(
            segment_keys(&survey),
            [SegmentKey::Question(questions[0].id.clone())]
        );

        // Languages segment a survey offered in several.
        let german = SegmentId::parse("@language:de").expect("parses");
        assert_eq!(german.to_string(), "@language:de");
        assert!(german.check(&survey).unwrap_err().contains("one language"));
        survey.languages = ["en", "de"]
            .map(|tag| crate::domain::language::LanguageTag::parse(tag).expect("a tag"))
            .to_vec();
        assert!(german.check(&survey).is_ok());
        let french = SegmentId::parse("@language:fr").expect("parses");
        assert!(
            french
                .check(&survey)
                .unwrap_err()
                .contains("not offered in")
        );
        assert_eq!(segment_keys(&survey)[1], SegmentKey::Language);
        assert!(SegmentId::parse("@lang:de").is_err());
    }

    #[test]
    fn a_participant_attribute_segments_the_answers_of_a_named_survey() {
        let mut survey = Survey::draft(
            crate::domain::TenantSlug::parse("acme").expect("a slug"),
            crate::domain::SurveySlug::parse("pulse").expect("a slug"),
            crate::domain::definition::checked::for_one_region(
                crate::domain::definition::Definition {
                    title: "Pulse".into(),
                    segment_attributes: Some(vec!["team".into()]),
                    ..Default::default()
                },
            )
            .expect("checked"),
            time::OffsetDateTime::UNIX_EPOCH,
        );
        let team = SegmentKey::Attribute("team".into());
        assert_eq!(segment_keys(&survey), std::slice::from_ref(&team));
        let sales = SegmentId::parse("@participant.team:Sales").expect("parses");
        assert_eq!(sales.key, team);
        assert_eq!(sales.to_string(), "@participant.team:Sales");
        assert!(
            sales.check(&survey).is_ok(),
            "any value is a segment, maybe empty"
        );
        let site = SegmentId::parse("@participant.site:Leeds").expect("parses");
        assert!(site.check(&survey).unwrap_err().contains("not divided by"));
        assert!(SegmentId::parse("@participant.no way:x").is_err());

        let mut answer: Answer = serde_json::from_value(serde_json::json!({
            "tenant": "acme", "survey": "pulse", "survey_version": 1, "reference": 1000,
            "submitted_at": "2026-01-01T00:00:00Z", "values": {}
        }))
        .expect("an answer");
        assert!(
            team.options_in(&answer).is_empty(),
            "not given through a link"
        );
        answer.participant = Some(Box::new(crate::domain::participant::Respondent {
            id: "0123456789abcdef".into(),
            email: "ann@example.com".into(),
            first_name: None,
            last_name: None,
            attributes: [("team".to_owned(), "Sales".to_owned())].into(),
        }));
        assert_eq!(team.options_in(&answer), ["Sales"]);
        let seen = ["Sales".to_owned(), "Support".to_owned()];
        assert_eq!(
            team.segments_in(&survey, seen.iter()),
            Some(("Participants' team".to_owned(), seen.to_vec()))
        );

        // An anonymous survey's answers carry no attributes: nothing divides them.
        survey.anonymous = true;
        assert!(segment_keys(&survey).is_empty());
        assert!(sales.check(&survey).is_err());
    }

    #[test]
    fn answers_are_divided_by_few_attributes_of_few_values_in_named_surveys_only() {
        let names = |list: &[&str]| {
            list.iter()
                .map(|name| (*name).to_owned())
                .collect::<Vec<_>>()
        };
        let problem = |list: &[&str], anonymous, index| {
            attribute_segments_problem(&names(list), anonymous, index).unwrap_or_default()
        };
        assert_eq!(attribute_segments_problem(&[], true, None), None);
        assert_eq!(
            attribute_segments_problem(&names(&["team", "site"]), false, None),
            None
        );
        assert!(problem(&["team"], true, None).contains("anonymous"));
        assert!(problem(&["a", "b", "c"], false, None).contains("at most 2"));
        assert!(problem(&["no way"], false, None).contains("not an attribute name"));
        assert!(problem(&["team", "team"], false, None).contains("named twice"));
        let mut index = AttributeIndex::default();
        let many: Vec<crate::domain::participant::NewParticipant> = (0..=MAX_SEGMENT_VALUES)
            .map(|n| crate::domain::participant::NewParticipant {
                email: crate::domain::Email::parse(&format!("p{n}@example.com")).expect("valid"),
                first_name: None,
                last_name: None,
                language: None,
                attributes: [("code".to_owned(), format!("c{n}"))].into(),
            })
            .collect();
        index.add(&many, &[]).expect("within the names' limit");
        assert!(problem(&["code"], false, Some(&index)).contains("more than 50"));
        assert_eq!(
            attribute_segments_problem(&names(&["team"]), false, Some(&index)),
            None
        );
    }

    #[test]
    fn a_segment_key_reads_back_what_it_writes() {
        for text in ["place", "@language", "@participant.team"] {
            let key = SegmentKey::parse(text).expect("a key");
            let json = serde_json::to_string(&key).expect("serialises");
            assert_eq!(json, format!("\"{text}\""));
            assert_eq!(
                serde_json::from_str::<SegmentKey>(&json).expect("reads"),
                key
            );
        }
        assert!(serde_json::from_str::<SegmentKey>("\"@place\"").is_err());
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
