//! Surveys: a tenant's questionnaire, its publication state and its versions, and the identity
//! that keeps a survey's data apart from that of another survey once given the same slug.

use std::fmt;

use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

use super::arrangement::PageBlock;
use super::calculation::{Ending, Quiz, Variable};
use super::definition::Definition;
use super::definition::checked::{CheckedDefinition, Replaced};
use super::language::LanguageTag;
use super::logic::ScreenLayout;
use super::order::{self, Draw, Order};
use super::participant::Access;
use super::quota::Quota;
use super::redirect::Redirects;
use super::region::{RegionName, Residency};
use super::translation::Translations;
use super::{PageLayout, Question, QuestionId, SurveySlug, TenantSlug};

/// Most surveys one tenant may have (drafts, open and closed alike).
pub const MAX_SURVEYS_PER_TENANT: usize = 200;

super::ids::lowercase_id!(
    /// A survey's identity, made when it is created and never reused: a survey deleted and made
    /// again under the same slug shares no answers, tokens or statistics with the first one.
    /// Surveys made before identities existed have the empty id.
    SurveyId,
    min = 0,
    what = "a survey id"
);

/// The empty id: a survey made before identities existed.
impl Default for SurveyId {
    fn default() -> Self {
        Self(String::new())
    }
}

impl SurveyId {
    /// A fresh random id: 16 lowercase hex digits.
    pub fn generate() -> Self {
        Self::random(16)
    }
}

/// One survey, as its data is filed: the tenant, the slug in its links, and its identity.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SurveyRef {
    /// The owner.
    pub tenant: TenantSlug,
    /// The survey's slug.
    pub slug: SurveySlug,
    /// The survey's identity.
    pub id: SurveyId,
}

impl SurveyRef {
    /// The name its data is filed under within the tenant: the slug, then `.` and the id
    /// (slugs have no dots, so the two never mix; a survey older than ids keeps the bare slug
    /// its data was filed under then).
    pub fn name(&self) -> String {
        if self.id.0.is_empty() {
            self.slug.to_string()
        } else {
            format!("{}.{}", self.slug, self.id)
        }
    }

    /// The survey a filed name stands for, within `tenant`.
    pub fn parse_name(tenant: TenantSlug, name: &str) -> Option<Self> {
        let (slug, id) = name.split_once('.').unwrap_or((name, ""));
        let id = SurveyId::parse(id).filter(|id| !id.0.is_empty() || !name.contains('.'))?;
        Some(Self {
            tenant,
            slug: SurveySlug::parse(slug).ok()?,
            id,
        })
    }
}

impl fmt::Display for SurveyRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.tenant, self.name())
    }
}

/// A survey definition, as stored and as served to respondents.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Survey {
    /// The owner.
    pub tenant: TenantSlug,
    /// Unique within the tenant; made from the title.
    pub slug: SurveySlug,
    /// Its identity (empty for a survey made before identities existed).
    #[serde(default)]
    pub id: SurveyId,
    /// Its title.
    pub title: String,
    /// An optional introduction shown above the questions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Whether respondents can see and answer it.
    pub published: bool,
    /// Whether it was ever published: unpublished again, it is closed, not a draft.
    #[serde(default)]
    pub was_published: bool,
    /// Starts at 1; each edit of a published survey adds one. Answers record it.
    pub version: u32,
    /// When it was created.
    #[serde(with = "time::serde::rfc3339")]
    pub created: OffsetDateTime,
    /// When it was last changed.
    #[serde(with = "time::serde::rfc3339")]
    pub updated: OffsetDateTime,
    /// The questions, in display order, all pages' together.
    pub questions: Vec<Question>,
    /// Its pages, in order (none stored for a survey of one page without logic, as surveys
    /// were before pages existed).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub layout: Vec<PageLayout>,
    /// Whether respondents see its pages as they are or one question per screen.
    #[serde(default, skip_serializing_if = "ScreenLayout::is_pages")]
    pub screens: ScreenLayout,
    /// When it stops taking answers (UTC).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "time::serde::rfc3339::option"
    )]
    pub closes_at: Option<OffsetDateTime>,
    /// How many counted answers close it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response_limit: Option<u64>,
    /// What respondents read once it is closed (Markdown).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub closed_message: Option<String>,
    /// What respondents read after sending their answers (Markdown).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thank_you: Option<String>,
    /// The regions it is answered in (none: its tenant's home region only).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub regions: Vec<RegionName>,
    /// Whether its answers move home or stay where they were given.
    #[serde(default, skip_serializing_if = "Residency::is_home")]
    pub residency: Residency,
    /// The languages it is offered in, its default first; none: English only.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub languages: Vec<LanguageTag>,
    /// Days a respondent's saved answers are kept when they may continue later; `None`: they
    /// may not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resume_days: Option<u16>,
    /// How many answers of each kind it takes.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub quotas: Vec<Quota>,
    /// Its texts in its other languages, by key.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub translations: Translations,
    /// Who may answer it.
    #[serde(default, skip_serializing_if = "Access::is_open")]
    pub access: Access,
    /// Whether its answers are anonymous: nothing stored ties one to a participant. Chosen
    /// before it is first published.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub anonymous: bool,
    /// The participant attributes its answers are divided by, each value a segment.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub segment_attributes: Vec<String>,
    /// The values its address carries, by name (`pid`, `source`), stored with each response.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hidden_fields: Vec<String>,
    /// Where respondents are sent on once their visit ends.
    #[serde(default, skip_serializing_if = "Redirects::is_empty")]
    pub redirects: Redirects,
    /// The hidden fields whose values segment the results.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub segment_hidden: Vec<String>,
    /// A block of pages shown in an order drawn for each respondent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub randomize_pages: Option<PageBlock>,
    /// Values computed from the answers when a response is sent, stored with it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub variables: Vec<Variable>,
    /// Thank-you texts (and redirects) chosen by an expression.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub endings: Vec<Ending>,
    /// What the thank-you page shows of a quiz.
    #[serde(default, skip_serializing_if = "Quiz::is_off")]
    pub quiz: Quiz,
    /// Whether the answers of respondents who have not sent them are kept, as partial
    /// responses, each time they leave a page (see `stores::partials`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub keep_partial: bool,
}

impl Survey {
    /// A new draft of a checked definition, made `now`, with a fresh identity.
    pub fn draft(
        tenant: TenantSlug,
        slug: SurveySlug,
        definition: CheckedDefinition,
        now: OffsetDateTime,
    ) -> Self {
        let definition = definition.into_definition();
        Self {
            tenant,
            slug,
            id: SurveyId::generate(),
            title: definition.title,
            description: definition.description,
            published: false,
            was_published: false,
            version: 1,
            created: now,
            updated: now,
            questions: definition.questions,
            layout: definition.layout,
            screens: definition.screens.unwrap_or_default(),
            closes_at: definition.closes_at,
            response_limit: definition.response_limit,
            closed_message: definition.closed_message,
            thank_you: definition.thank_you,
            regions: definition.regions,
            residency: definition.residency,
            languages: definition.languages,
            translations: definition.translations.unwrap_or_default(),
            resume_days: definition.resume_days,
            quotas: definition.quotas.unwrap_or_default(),
            access: definition.access.unwrap_or_default(),
            anonymous: definition.anonymous.unwrap_or_default(),
            segment_attributes: definition.segment_attributes.unwrap_or_default(),
            hidden_fields: definition.hidden_fields,
            redirects: definition.redirects,
            segment_hidden: definition.segment_hidden,
            randomize_pages: definition.randomize_pages,
            variables: definition.variables,
            endings: definition.endings,
            quiz: definition.quiz,
            keep_partial: definition.keep_partial,
        }
    }

    /// The survey as publishing leaves it.
    pub fn published(mut self) -> Self {
        self.published = true;
        self.was_published = true;
        self
    }

    /// Where this survey's data is filed.
    pub fn survey_ref(&self) -> SurveyRef {
        SurveyRef {
            tenant: self.tenant.clone(),
            slug: self.slug.clone(),
            id: self.id.clone(),
        }
    }

    /// Roughly how many bytes the survey takes in memory, for weighing it in a cache.
    pub fn weight(&self) -> u32 {
        let texts = self.title.len()
            + [&self.description, &self.closed_message, &self.thank_you]
                .iter()
                .map(|text| text.as_ref().map_or(0, String::len))
                .sum::<usize>()
            + self
                .questions
                .iter()
                .map(|q| {
                    96 + q.text.len() + q.kind.options().iter().map(|o| 24 + o.len()).sum::<usize>()
                })
                .sum::<usize>();
        u32::try_from(texts + 256).unwrap_or(u32::MAX)
    }

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

    /// Replaces the title, description, questions and pages. Editing a published survey starts
    /// a new version, so answers given earlier keep the version they were given against; a
    /// change of its languages or translations alone does not (it changes no question, option
    /// or route, only how they read), nor a save that changes nothing. Whether it started one.
    pub fn revise(&mut self, definition: CheckedDefinition, now: OffsetDateTime) -> bool {
        let definition = definition.into_definition();
        let before = self.clone();
        self.title = definition.title;
        self.description = definition.description;
        self.questions = definition.questions;
        self.layout = definition.layout;
        if let Some(screens) = definition.screens {
            self.screens = screens;
        }
        self.closes_at = definition.closes_at;
        self.response_limit = definition.response_limit;
        self.closed_message = definition.closed_message;
        self.thank_you = definition.thank_you;
        self.regions = definition.regions;
        self.residency = definition.residency;
        self.languages = definition.languages;
        self.resume_days = definition.resume_days;
        self.hidden_fields = definition.hidden_fields;
        self.redirects = definition.redirects;
        self.segment_hidden = definition.segment_hidden;
        self.randomize_pages = definition.randomize_pages;
        self.variables = definition.variables;
        self.endings = definition.endings;
        self.quiz = definition.quiz;
        self.keep_partial = definition.keep_partial;
        if let Some(quotas) = definition.quotas {
            self.quotas = quotas;
        }
        if let Some(access) = definition.access {
            self.access = access;
        }
        if let Some(anonymous) = definition.anonymous {
            self.anonymous = anonymous;
        }
        if let Some(names) = definition.segment_attributes {
            self.segment_attributes = names;
        }
        self.translations = match definition.translations {
            Some(sent) => sent,
            // Kept, for the texts that still exist, in languages still offered.
            None => {
                let texts = self.owner_texts();
                let mut kept = std::mem::take(&mut self.translations);
                let others = self.languages.get(1..).unwrap_or_default();
                kept.retain(|language, _| others.contains(language));
                for by_key in kept.values_mut() {
                    by_key.retain(|key, _| texts.iter().any(|(known, _)| known == key));
                }
                kept.retain(|_, by_key| !by_key.is_empty());
                kept
            }
        };
        let mut untranslated = self.clone();
        untranslated.languages = before.languages.clone();
        untranslated.translations = before.translations.clone();
        let new_version = self.published && untranslated != before;
        if new_version {
            self.version += 1;
        }
        self.updated = now;
        new_version
    }

    /// What the definition checker needs of it, when a definition replaces it.
    pub fn replaced(&self) -> Replaced<'_> {
        Replaced {
            was_published: self.published || self.was_published,
            access: self.access,
            anonymous: self.anonymous,
            segment_attributes: &self.segment_attributes,
            residency: self.residency,
            regions: &self.regions,
        }
    }

    /// Its own definition, as it stands (translations included): to change one part of it.
    pub fn definition(&self) -> Definition {
        Definition {
            title: self.title.clone(),
            description: self.description.clone(),
            questions: self.questions.clone(),
            layout: self.layout.clone(),
            screens: Some(self.screens),
            closes_at: self.closes_at,
            response_limit: self.response_limit,
            closed_message: self.closed_message.clone(),
            thank_you: self.thank_you.clone(),
            regions: self.regions.clone(),
            residency: self.residency,
            languages: self.languages.clone(),
            translations: Some(self.translations.clone()),
            resume_days: self.resume_days,
            quotas: Some(self.quotas.clone()),
            access: Some(self.access),
            anonymous: Some(self.anonymous),
            segment_attributes: Some(self.segment_attributes.clone()),
            hidden_fields: self.hidden_fields.clone(),
            redirects: self.redirects.clone(),
            segment_hidden: self.segment_hidden.clone(),
            randomize_pages: self.randomize_pages,
            variables: self.variables.clone(),
            endings: self.endings.clone(),
            quiz: self.quiz.clone(),
            keep_partial: self.keep_partial,
        }
    }

    /// The order `question`'s options are shown in for `draw` (indices into its options),
    /// when they are drawn.
    pub fn option_order(question: &Question, draw: &Draw) -> Option<Vec<usize>> {
        question.randomize_options.then(|| {
            let count = question.kind.options().len();
            draw.permutation(question.id.as_str(), count, question.fixed_last)
        })
    }

    /// The order step `step`'s questions are shown in for `draw` (indices into the step's
    /// questions), when its page draws them (shown one question per screen, a step has one).
    pub fn question_order(&self, step: usize, draw: &Draw) -> Option<Vec<usize>> {
        let page = self.layout.get(step)?;
        if !page.randomize_questions || self.one_per_screen() {
            return None;
        }
        let count = self.step_questions(step).len();
        Some(draw.permutation(&order::page_key(self.page_origin(step)), count, 0))
    }

    /// Whether any of its orders are drawn for each respondent.
    pub fn draws_orders(&self) -> bool {
        self.questions.iter().any(|q| q.randomize_options)
            || self.layout.iter().any(|page| page.randomize_questions)
            || self.randomize_pages.is_some()
    }

    /// The orders a respondent with `draw` was shown on the steps of `route`, to record with
    /// their response: each drawn page's questions, and the options of each question drawn
    /// and not `skipped`.
    pub fn shown_order(
        &self,
        draw: &Draw,
        route: &[usize],
        skipped: &std::collections::BTreeSet<QuestionId>,
    ) -> Order {
        let mut shown = Order::new();
        if !self.draws_orders() {
            return shown;
        }
        // The block's pages as defined, in the order drawn (of a survey arranged for them).
        if let Some(pages) = self.shown_pages() {
            shown.insert(super::arrangement::PAGES_KEY.to_owned(), pages);
        }
        for &step in route {
            let questions = self.step_questions(step);
            if let Some(order) = self.question_order(step, draw) {
                let ids = order.iter().map(|&i| questions[i].id.to_string()).collect();
                shown.insert(order::page_key(self.page_origin(step)), ids);
            }
            for question in questions.iter().filter(|q| !skipped.contains(&q.id)) {
                if let Some(order) = Self::option_order(question, draw) {
                    let options = question.kind.options();
                    let labels = order.iter().map(|&i| options[i].clone()).collect();
                    shown.insert(question.id.to_string(), labels);
                }
            }
        }
        shown
    }

    /// Whether its answers are divided by the participant attribute `name` (never an
    /// anonymous survey's: its answers carry no attributes).
    pub fn segments_by_attribute(&self, name: &str) -> bool {
        !self.anonymous && self.segment_attributes.iter().any(|kept| kept == name)
    }

    /// The time an answer sent `now` is given: to the day when answers are anonymous, so that
    /// it cannot be set beside a participant's invitation or reminder to the second.
    pub fn answer_time(&self, now: OffsetDateTime) -> OffsetDateTime {
        match self.anonymous {
            true => now.replace_time(time::Time::MIDNIGHT),
            false => now,
        }
    }

    /// Whether respondents may save their answers and continue later: a survey of several
    /// pages whose owner allows it.
    pub fn offers_resume(&self) -> bool {
        self.resume_days.is_some() && self.steps().len() > 1
    }

    /// The definition of a copy of it, titled "Copy of ...": the same questions (with their
    /// ids, which only need to be unique within a survey), pages, logic and texts. A close
    /// time already past at `now` is left out, so the copy can be published and answered.
    pub fn copy(&self, now: OffsetDateTime) -> Definition {
        // The longest title a survey may have.
        const MOST: usize = 200;
        Definition {
            title: format!("Copy of {}", self.title)
                .chars()
                .take(MOST)
                .collect(),
            closes_at: self.closes_at.filter(|at| *at > now),
            ..self.definition()
        }
    }

    /// Its translations as a sheet for translators (see `translation::sheet`).
    pub fn translation_sheet(&self) -> Vec<Vec<String>> {
        crate::domain::translation::sheet(
            &self.offered_languages(),
            &self.owner_texts(),
            &self.translations,
        )
    }

    /// `text` as its owner reads it in summaries, responses and download headers: each recall
    /// as the recalled question's text in brackets (`[Rating]`), never `{{q:ID}}`.
    pub fn labelled<'a>(&self, text: &'a str) -> std::borrow::Cow<'a, str> {
        crate::domain::recall::labelled(text, |id| {
            let question = self.questions.iter().find(|q| &q.id == id)?;
            crate::domain::recall::label_of(&question.text)
        })
    }

    /// Every owner text, by key, in its default language (see `translation::owner_texts`).
    pub fn owner_texts(&self) -> Vec<(String, String)> {
        crate::domain::translation::owner_texts(&crate::domain::translation::TextSources {
            title: &self.title,
            description: self.description.as_deref(),
            questions: &self.questions,
            layout: &self.layout,
            thank_you: self.thank_you.as_deref(),
            closed_message: self.closed_message.as_deref(),
            quotas: &self.quotas,
            endings: &self.endings,
        })
    }

    /// Each of its other languages that lacks translations: the language, how many of its
    /// texts it lacks, and how many texts there are.
    pub fn missing_translations(&self) -> Vec<(LanguageTag, usize, usize)> {
        let texts = self.owner_texts();
        self.languages
            .iter()
            .skip(1)
            .filter_map(|language| {
                let given = self.translations.get(language);
                let missing = texts
                    .iter()
                    .filter(|(key, _)| given.is_none_or(|given| !given.contains_key(key)))
                    .count();
                (missing > 0).then(|| (language.clone(), missing, texts.len()))
            })
            .collect()
    }

    /// The text by `key` in `language`: its translation, else `default`.
    pub fn text_in<'a>(
        &'a self,
        language: &str,
        key: impl std::fmt::Display,
        default: &'a str,
    ) -> &'a str {
        crate::domain::translation::text_in(&self.translations, language, key, default)
    }

    /// The languages it is offered in, its default first (English when it names none).
    pub fn offered_languages(&self) -> Vec<LanguageTag> {
        match self.languages.is_empty() {
            true => vec![LanguageTag::english()],
            false => self.languages.clone(),
        }
    }

    /// The regions it is answered in, given its tenant's home: those it names, or home.
    pub fn hosting_regions<'a>(&'a self, home: &'a RegionName) -> &'a [RegionName] {
        match self.regions.is_empty() {
            true => std::slice::from_ref(home),
            false => &self.regions,
        }
    }

    /// Its pages: the stored layout, or one page of every question.
    pub fn pages(&self) -> &[PageLayout] {
        /// The page of a survey without a layout: every question, no texts, no logic.
        static ONE_PAGE: [PageLayout; 1] = [PageLayout {
            randomize_questions: false,
            title: None,
            description: None,
            start: 0,
            show_if: None,
            jumps: Vec::new(),
            question_show_if: None,
            origin: None,
            repeat: None,
            item: None,
        }];
        if self.layout.is_empty() {
            &ONE_PAGE
        } else {
            &self.layout
        }
    }

    /// Whether respondents see one question per screen.
    pub fn one_per_screen(&self) -> bool {
        self.screens == ScreenLayout::OnePerScreen
    }

    /// The steps a respondent goes through: its pages, or one step per question when it is
    /// shown one question per screen. Page numbers in a respondent's form, progress, saved
    /// answers and funnel are steps.
    pub fn steps(&self) -> std::borrow::Cow<'_, [PageLayout]> {
        match self.screens {
            ScreenLayout::Pages => std::borrow::Cow::Borrowed(self.pages()),
            ScreenLayout::OnePerScreen => {
                let show_ifs: Vec<_> = self.questions.iter().map(|q| q.show_if.as_ref()).collect();
                std::borrow::Cow::Owned(crate::domain::logic::one_per_screen(
                    self.pages(),
                    &show_ifs,
                ))
            }
        }
    }

    /// The questions of step `index` (none past the last).
    pub fn step_questions(&self, index: usize) -> &[Question] {
        match self.screens {
            ScreenLayout::Pages => self.page_questions(index),
            ScreenLayout::OnePerScreen => self.questions_of(&self.steps(), index),
        }
    }

    /// The page step `index` belongs to (its texts are translated by their page's keys).
    pub fn page_of_step(&self, index: usize) -> usize {
        match self.screens {
            ScreenLayout::Pages => self.page_origin(index),
            ScreenLayout::OnePerScreen => {
                let pages = self.pages();
                let mut first = 0;
                for (page, steps) in
                    crate::domain::logic::steps_per_page(pages, self.questions.len()).enumerate()
                {
                    first += steps;
                    if index < first {
                        return self.page_origin(page);
                    }
                }
                pages.len().saturating_sub(1)
            }
        }
    }

    /// The questions of page `index` (none past the last page).
    pub fn page_questions(&self, index: usize) -> &[Question] {
        self.questions_of(self.pages(), index)
    }

    /// The questions of `pages[index]`: from its start to the next one's (none past the last).
    fn questions_of(&self, pages: &[PageLayout], index: usize) -> &[Question] {
        let Some(page) = pages.get(index) else {
            return &[];
        };
        let end = pages
            .get(index + 1)
            .map_or(self.questions.len(), |next| next.start);
        self.questions
            .get(page.start.min(end)..end.min(self.questions.len()))
            .unwrap_or(&[])
    }

    /// Whether any question or page is shown only to some respondents.
    pub fn has_logic(&self) -> bool {
        self.questions.iter().any(|q| q.show_if.is_some())
            || self
                .layout
                .iter()
                .any(|page| page.show_if.is_some() || !page.jumps.is_empty())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::QuestionKind;

    #[test]
    fn the_orders_shown_are_recorded_for_the_route_and_only_where_drawn() {
        use std::collections::BTreeSet;
        let choice = |id: &str, drawn: bool| {
            let kind = QuestionKind::SingleChoice {
                options: ["A", "B", "C", "None"].map(String::from).to_vec(),
                other: false,
            };
            Question {
                randomize_options: drawn,
                fixed_last: usize::from(drawn),
                ..Question::new(QuestionId::parse(id).expect("an id"), id, kind)
            }
        };
        let definition = Definition {
            title: "Orders".into(),
            questions: vec![choice("a", true), choice("b", false), choice("c", true)],
            layout: vec![
                PageLayout {
                    randomize_questions: true,
                    ..PageLayout::default()
                },
                PageLayout {
                    start: 2,
                    ..PageLayout::default()
                },
            ],
            ..Definition::default()
        };
        let survey = Survey::draft(
            TenantSlug::parse("acme").expect("a slug"),
            SurveySlug::parse("orders").expect("a slug"),
            checked(definition),
            OffsetDateTime::UNIX_EPOCH,
        );
        assert!(survey.draws_orders());
        let draw = Draw::of_token("1.acme.orders.id.sig");
        let none = BTreeSet::new();
        let all = survey.shown_order(&draw, &[0, 1], &none);
        assert_eq!(
            all.keys().map(String::as_str).collect::<Vec<_>>(),
            ["a", "c", "page:0"],
            "drawn options and the drawn page only"
        );
        assert_eq!(
            all["a"].last().map(String::as_str),
            Some("None"),
            "kept last"
        );
        let mut page: Vec<&str> = all["page:0"].iter().map(String::as_str).collect();
        page.sort_unstable();
        assert_eq!(page, ["a", "b"]);
        // The same draw gives the same orders; a page not reached and a skipped question
        // record nothing.
        assert_eq!(survey.shown_order(&draw, &[0, 1], &none), all);
        let skipped = BTreeSet::from([QuestionId::parse("a").expect("an id")]);
        let first = survey.shown_order(&draw, &[0], &skipped);
        assert_eq!(
            first.keys().map(String::as_str).collect::<Vec<_>>(),
            ["page:0"]
        );
        // Shown one question per screen, a page's questions keep their order.
        let mut screens = survey.clone();
        screens.screens = ScreenLayout::OnePerScreen;
        assert_eq!(screens.question_order(0, &draw), None);
        // A survey that draws nothing records nothing.
        assert!(
            self::survey(true)
                .shown_order(&draw, &[0], &none)
                .is_empty()
        );
    }

    fn survey(published: bool) -> Survey {
        let question = Question::new(
            QuestionId::parse("q1").expect("an id"),
            "Name?",
            QuestionKind::ShortText,
        );
        let draft = Survey::draft(
            TenantSlug::parse("acme").expect("a slug"),
            SurveySlug::parse("team").expect("a slug"),
            checked(definition("Team", vec![question])),
            OffsetDateTime::UNIX_EPOCH,
        );
        if published { draft.published() } else { draft }
    }

    #[test]
    fn steps_shown_one_question_per_screen_name_their_page() {
        let mut shown = survey(false);
        let extra = |id: &str| Question {
            id: QuestionId::parse(id).expect("an id"),
            ..shown.questions[0].clone()
        };
        shown.questions = vec![extra("a"), extra("b"), extra("c")];
        // Page 0: a, b; page 1: no questions; page 2: c.
        shown.layout = vec![
            PageLayout {
                start: 0,
                ..PageLayout::default()
            },
            PageLayout {
                start: 2,
                title: Some("Between".into()),
                ..PageLayout::default()
            },
            PageLayout {
                start: 2,
                ..PageLayout::default()
            },
        ];
        assert_eq!(shown.steps().len(), 3, "as pages");
        assert_eq!(shown.page_of_step(1), 1);
        shown.screens = ScreenLayout::OnePerScreen;
        assert_eq!(shown.steps().len(), 4);
        let pages: Vec<usize> = (0..5).map(|step| shown.page_of_step(step)).collect();
        assert_eq!(pages, [0, 0, 1, 2, 2], "past the last step: the last page");
        let ids: Vec<Vec<&str>> = (0..4)
            .map(|step| {
                shown
                    .step_questions(step)
                    .iter()
                    .map(|q| q.id.as_str())
                    .collect()
            })
            .collect();
        assert_eq!(ids, [vec!["a"], vec!["b"], vec![], vec!["c"]]);
        assert!(shown.step_questions(4).is_empty());
    }

    #[test]
    fn a_copy_keeps_the_questions_and_drops_a_past_close_time() {
        let mut original = survey(true);
        original.title = "T".repeat(200);
        original.response_limit = Some(10);
        let later = OffsetDateTime::UNIX_EPOCH + time::Duration::days(2);
        original.closes_at = Some(later);
        let copy = original.copy(OffsetDateTime::UNIX_EPOCH);
        assert!(copy.title.starts_with("Copy of TTT"));
        assert_eq!(copy.title.chars().count(), 200);
        assert_eq!(copy.questions, original.questions);
        assert_eq!(
            (copy.closes_at, copy.response_limit),
            (Some(later), Some(10))
        );
        let after = original.copy(later + time::Duration::seconds(1));
        assert_eq!(
            after.closes_at, None,
            "a close time already past is left out"
        );
    }

    fn checked(definition: Definition) -> CheckedDefinition {
        crate::domain::definition::checked::for_one_region(definition).expect("checked")
    }

    fn definition(title: &str, questions: Vec<Question>) -> Definition {
        Definition {
            title: title.into(),
            description: None,
            questions,
            layout: Vec::new(),
            ..Definition::default()
        }
    }

    #[test]
    fn an_anonymous_surveys_answers_keep_only_their_day() {
        let mut survey = survey(true);
        let late = time::macros::datetime!(2026-11-27 23:59:59.999 UTC);
        let early = time::macros::datetime!(2026-11-27 00:00 UTC);
        assert_eq!(survey.answer_time(late), late);
        survey.anonymous = true;
        for at in [late, early, OffsetDateTime::UNIX_EPOCH] {
            let kept = survey.answer_time(at);
            assert_eq!(
                (kept.date(), kept.time()),
                (at.date(), time::Time::MIDNIGHT)
            );
        }
    }

    #[test]
    fn editing_a_published_survey_starts_a_new_version_and_keeps_question_ids() {
        let mut published = survey(true);
        let mut questions = published.questions.clone();
        questions[0].text = "Your name?".into();

        published.revise(
            checked(definition("Team", questions)),
            OffsetDateTime::UNIX_EPOCH,
        );

        assert_eq!(published.version, 2);
        assert_eq!(published.questions[0].id.as_str(), "q1");
        assert_eq!(published.questions[0].text, "Your name?");
    }

    #[test]
    fn filed_names_keep_the_identity_and_parse_back() {
        let tenant = TenantSlug::parse("acme").expect("a slug");
        let current = survey(true).survey_ref();
        let legacy = SurveyRef {
            id: SurveyId::default(),
            ..current.clone()
        };

        assert_eq!(legacy.name(), "team");
        assert_eq!(current.name(), format!("team.{}", current.id));
        for filed in [&current, &legacy] {
            assert_eq!(
                SurveyRef::parse_name(tenant.clone(), &filed.name()).as_ref(),
                Some(filed)
            );
        }
        for bad in ["team.", "team.A", "Team", "team.a.b", ".abc"] {
            assert_eq!(
                SurveyRef::parse_name(tenant.clone(), bad),
                None,
                "case {bad}"
            );
        }
    }

    #[test]
    fn generated_ids_differ_and_old_surveys_read_with_the_empty_id() {
        assert_ne!(SurveyId::generate(), SurveyId::generate());
        let mut json = serde_json::to_value(survey(false)).expect("serialises");
        json.as_object_mut().expect("an object").remove("id");
        let old: Survey = serde_json::from_value(json).expect("an old survey reads");
        assert_eq!(old.id, SurveyId::default());
        assert_eq!(old.survey_ref().name(), "team");
    }

    #[test]
    fn a_published_surveys_languages_and_translations_change_without_a_new_version() {
        let mut published = survey(true);
        let german = crate::domain::language::LanguageTag::parse("de").expect("a tag");
        let mut offered = published.definition();
        offered.languages = vec![
            crate::domain::language::LanguageTag::english(),
            german.clone(),
        ];
        assert!(!published.revise(checked(offered), OffsetDateTime::UNIX_EPOCH));
        // Saved as it is: no new version either.
        let same = published.definition();
        assert!(!published.revise(checked(same), OffsetDateTime::UNIX_EPOCH));

        let mut translated = published.definition();
        let texts = [("title".to_owned(), "Mannschaft".to_owned())];
        translated.translations = Some([(german, texts.into())].into());
        let later = OffsetDateTime::UNIX_EPOCH + time::Duration::hours(1);
        assert!(!published.revise(checked(translated), later));
        assert_eq!(published.version, 1);
        assert_eq!(published.updated, later);
        assert_eq!(published.text_in("de", "title", "Team"), "Mannschaft");
        // Anything more, a new title say, is a new version.
        let mut retitled = published.definition();
        retitled.title = "Crew".into();
        assert!(published.revise(checked(retitled), later));
        assert_eq!(published.version, 2);
    }

    #[test]
    fn editing_a_draft_keeps_its_version() {
        let mut draft = survey(false);
        draft.revise(
            checked(definition("Team 2", vec![])),
            OffsetDateTime::UNIX_EPOCH,
        );
        assert_eq!(draft.version, 1);
        assert_eq!(draft.title, "Team 2");
    }
}
