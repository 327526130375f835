//! A survey as the API shows it: its definition in pages (each with its texts, condition,
//! jumps and questions), as clients write it, and, for clients that read definitions written
//! before pages existed, every page's questions together in `questions`; with its `state`
//! (draft, open or closed), which clients read but never write.

use serde::Serialize;
use time::OffsetDateTime;
use utoipa::ToSchema;

use crate::domain::language::LanguageTag;
use crate::domain::logic::ScreenLayout;
use crate::domain::quota::Quota;
use crate::domain::region::{RegionName, Residency};
use crate::domain::translation::Translations;
use crate::domain::{
    Condition, Jump, Question, Survey, SurveySlug, SurveyState, TenantSlug, survey::SurveyId,
};

/// One page of a survey.
#[derive(Serialize, ToSchema)]
pub struct PageDocument<'a> {
    /// An optional title.
    #[serde(skip_serializing_if = "Option::is_none")]
    title: Option<&'a str>,
    /// An optional description.
    #[serde(skip_serializing_if = "Option::is_none")]
    description: Option<&'a str>,
    /// Shown only when this condition on earlier pages' answers holds.
    #[serde(skip_serializing_if = "Option::is_none")]
    show_if: Option<&'a Condition>,
    /// Jumps tried in order when the page is left; the first that holds is taken.
    #[serde(skip_serializing_if = "<[Jump]>::is_empty")]
    #[schema(value_type = Vec<Jump>)]
    jumps: &'a [Jump],
    /// Its questions, in order.
    #[schema(value_type = Vec<Question>)]
    questions: &'a [Question],
    /// Whether each respondent sees its questions in an order drawn for them.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    randomize_questions: bool,
    /// What it (and the pages after it that `pages` counts) repeats over.
    #[serde(rename = "loop", skip_serializing_if = "Option::is_none")]
    repeat: Option<&'a crate::domain::looping::Loop>,
}

/// A survey, with its state now.
#[derive(Serialize, ToSchema)]
pub struct SurveyDocument<'a> {
    /// The owning tenant's slug.
    tenant: &'a TenantSlug,
    /// Unique within the tenant; made from the title.
    slug: &'a SurveySlug,
    /// Its identity (empty for a survey made before identities existed).
    id: &'a SurveyId,
    /// Its title.
    title: &'a str,
    /// An optional introduction shown above the questions.
    #[serde(skip_serializing_if = "Option::is_none")]
    description: Option<&'a str>,
    /// Whether respondents can see and answer it.
    published: bool,
    /// Where it is in its life.
    state: SurveyState,
    /// Starts at 1; each edit of a published survey adds one.
    version: u32,
    /// When it was created.
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    created: OffsetDateTime,
    /// When it was last changed.
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    updated: OffsetDateTime,
    /// Every page's questions together, in display order.
    #[schema(value_type = Vec<Question>)]
    questions: &'a [Question],
    /// Its pages, in order.
    pages: Vec<PageDocument<'a>>,
    /// How respondents see it: `pages` (its pages as they are) or `one_per_screen`.
    layout: ScreenLayout,
    /// When it stops taking answers (UTC).
    #[serde(
        skip_serializing_if = "Option::is_none",
        with = "time::serde::rfc3339::option"
    )]
    #[schema(value_type = Option<String>, format = DateTime)]
    closes_at: Option<OffsetDateTime>,
    /// How many counted answers close it.
    #[serde(skip_serializing_if = "Option::is_none")]
    response_limit: Option<u64>,
    /// What respondents read once it is closed (Markdown).
    #[serde(skip_serializing_if = "Option::is_none")]
    closed_message: Option<&'a str>,
    /// What respondents read after sending their answers (Markdown).
    #[serde(skip_serializing_if = "Option::is_none")]
    thank_you: Option<&'a str>,
    /// The regions it is answered in; empty: the tenant's home region.
    regions: &'a [RegionName],
    /// `home`: answers move to the tenant's home region once; `region`: they stay where they
    /// were given.
    residency: Residency,
    /// Who may answer: `open` (anyone with its link) or `invitation` (only its participants,
    /// each once, through their personal link).
    access: crate::domain::participant::Access,
    /// Whether its answers are anonymous: nothing stored ties an answer to a participant.
    anonymous: bool,
    /// The participant attributes its answers are divided by, each value a segment.
    segment_attributes: &'a [String],
    /// The languages it is offered in, its default first (`["en"]` when it names none).
    languages: Vec<LanguageTag>,
    /// Its texts in its other languages: language, then text key (`title`,
    /// `q:overall:text`, `q:drink:option:0`, `page:1:title`), then text. Sent back as it is,
    /// it keeps them.
    #[schema(value_type = std::collections::BTreeMap<String, std::collections::BTreeMap<String, String>>)]
    translations: &'a Translations,
    /// Whether a respondent may save their answers and continue later from a link.
    save_and_resume: bool,
    /// Days saved answers are kept, from their last save (when respondents may save).
    #[serde(skip_serializing_if = "Option::is_none")]
    resume_days: Option<u16>,
    /// How many answers of each kind it takes (places taken: `GET .../quotas`).
    #[schema(value_type = Vec<Quota>)]
    quotas: &'a [Quota],
    /// The values its address carries, by name (`["pid", "source"]`), stored with each
    /// response under `hidden`.
    hidden_fields: &'a [String],
    /// Where respondents are sent on once their visit ends (each address optional).
    redirects: &'a crate::domain::redirect::Redirects,
    /// The hidden fields whose values segment the results.
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    segment_hidden: &'a [String],
    /// A block of pages shown in an order drawn for each respondent: `[FIRST, LAST]`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<[usize; 2]>)]
    randomize_pages: Option<crate::domain::arrangement::PageBlock>,
    /// Values computed from the answers when a response is sent, stored with it under
    /// `variables`.
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    variables: &'a [crate::domain::calculation::Variable],
    /// Thank-you texts (and redirects) chosen by an expression, the first that holds.
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    endings: &'a [crate::domain::calculation::Ending],
    /// What the thank-you page shows of a quiz.
    quiz: &'a crate::domain::calculation::Quiz,
    /// Whether the answers of respondents who have not sent them are kept as partial
    /// responses (`GET /api/v1/surveys/{slug}/partials`).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    keep_partial: bool,
}

impl<'a> SurveyDocument<'a> {
    /// The API's view of `survey` in its state now.
    pub fn new(survey: &'a Survey, state: SurveyState) -> Self {
        let pages = survey
            .pages()
            .iter()
            .enumerate()
            .map(|(index, page)| PageDocument {
                title: page.title.as_deref(),
                description: page.description.as_deref(),
                show_if: page.show_if.as_ref(),
                jumps: &page.jumps,
                questions: survey.page_questions(index),
                randomize_questions: page.randomize_questions,
                repeat: page.repeat.as_ref(),
            })
            .collect();
        Self {
            tenant: &survey.tenant,
            slug: &survey.slug,
            id: &survey.id,
            title: &survey.title,
            description: survey.description.as_deref(),
            published: survey.published,
            state,
            version: survey.version,
            created: survey.created,
            updated: survey.updated,
            questions: &survey.questions,
            pages,
            layout: survey.screens,
            closes_at: survey.closes_at,
            response_limit: survey.response_limit,
            closed_message: survey.closed_message.as_deref(),
            thank_you: survey.thank_you.as_deref(),
            regions: &survey.regions,
            residency: survey.residency,
            access: survey.access,
            anonymous: survey.anonymous,
            segment_attributes: &survey.segment_attributes,
            languages: survey.offered_languages(),
            translations: &survey.translations,
            save_and_resume: survey.resume_days.is_some(),
            resume_days: survey.resume_days,
            quotas: &survey.quotas,
            hidden_fields: &survey.hidden_fields,
            redirects: &survey.redirects,
            segment_hidden: &survey.segment_hidden,
            randomize_pages: survey.randomize_pages,
            variables: &survey.variables,
            endings: &survey.endings,
            quiz: &survey.quiz,
            keep_partial: survey.keep_partial,
        }
    }
}
