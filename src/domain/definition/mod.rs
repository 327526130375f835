//! A survey definition as owners write it (the designer form or the JSON API), checked into
//! pages of questions with stable ids and their logic. Ids sent with a question keep it (an
//! owner may choose the ids of new questions, so conditions can name them); questions sent
//! without one get a new id.

mod calculation;
pub mod checked;
pub mod localized;
mod logic;
mod looping;
mod path;
pub mod quota;
mod recall;

pub use calculation::{EndingInput, ValidationInput, VariableInput};
pub use path::FieldPath;

use std::collections::{BTreeMap, HashSet};

use serde::Deserialize;
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;
use validator::Validate;

use super::answer::has_control_characters;
use super::choice::OTHER;
use super::language::{LanguageTag, MAX_LANGUAGES};
use super::lifecycle::MAX_RESPONSE_LIMIT;
use super::participant::Access;
use super::progress::{DEFAULT_RESUME_DAYS, MAX_RESUME_DAYS};
use super::question::{MAX_COLUMNS, MAX_NUMBER, MAX_RANKED, MAX_ROWS};
use super::quota::Quota;
use super::redirect::{self, Redirects};
use super::region::{MAX_HOSTING_REGIONS, RegionName, Residency};
use super::segment::MAX_SEGMENT_QUESTIONS;
use super::translation::{self, Translations};
use super::upload::{DEFAULT_FILE_BYTES, FILE_KINDS, FileKind, MAX_FILE_BYTES};
use localized::LocalizedText;

/// The message for a text with control characters in it.
const CONTROL: &str = "remove the invisible control characters (they may come from pasting)";
use super::logic::ScreenLayout;
use super::{PageLayout, Question, QuestionId, QuestionKind};

/// Most pages in one survey.
pub const MAX_PAGES: usize = 50;

/// Most questions in one survey.
pub const MAX_QUESTIONS: usize = 100;
/// Most options of one choice question.
pub const MAX_OPTIONS: usize = 50;
/// Most characters of a question's text.
pub const MAX_QUESTION_TEXT: u64 = 500;
/// Most characters of a survey's title.
pub const MAX_TITLE: u64 = 200;
/// Most characters of a survey's introduction, closing message or thank-you message.
pub const MAX_MESSAGE: u64 = 2000;
/// Most characters of text in one definition (title, introduction, questions and options
/// together): a page of a hundred questions fits easily, and no survey costs more than a few
/// hundred kilobytes to store, cache or send.
pub const MAX_DEFINITION_CHARS: usize = 100_000;

/// One question as submitted.
#[derive(Clone, Debug, Default, Deserialize, Validate, utoipa::ToSchema)]
pub struct QuestionInput {
    /// The id of an existing question being kept (absent for a new one).
    #[serde(default)]
    #[schema(pattern = "^[a-z0-9]{1,32}$")]
    pub id: Option<String>,
    /// What is asked.
    #[validate(length(
        min = 1,
        max = MAX_QUESTION_TEXT,
        message = "a question needs a text of 1 to 500 characters"
    ))]
    #[schema(value_type = LocalizedText)]
    pub text: String,
    /// What helps to answer it, shown under it (at most 500 characters).
    #[serde(default)]
    #[schema(value_type = Option<LocalizedText>)]
    pub help: Option<String>,
    /// The type's API name: `short_text`, `long_text`, `single_choice`, `multiple_choice`,
    /// `dropdown`, `five_stars`, `nps`, `scale`, `numeric`, `date`, `matrix`, `ranking` or
    /// `file`.
    #[serde(rename = "type")]
    #[schema(value_type = crate::domain::question::TypeName)]
    pub kind: String,
    /// Whether an answer is needed.
    #[serde(default)]
    pub required: bool,
    /// Options of a choice question.
    #[serde(default)]
    #[schema(value_type = Vec<LocalizedText>)]
    pub options: Vec<String>,
    /// Smallest number accepted.
    #[serde(default)]
    pub min: Option<f64>,
    /// Largest number accepted.
    #[serde(default)]
    pub max: Option<f64>,
    /// Only whole numbers.
    #[serde(default)]
    pub integer: bool,
    /// The rows of a `matrix`.
    #[serde(default)]
    #[schema(value_type = Vec<LocalizedText>)]
    pub rows: Vec<String>,
    /// The columns of a `matrix`.
    #[serde(default)]
    #[schema(value_type = Vec<LocalizedText>)]
    pub columns: Vec<String>,
    /// Whether a `single_choice` or `multiple_choice` offers "Other, please specify".
    #[serde(default)]
    pub other: bool,
    /// How many points a `scale` has (3 to 10).
    #[serde(default)]
    pub points: Option<u8>,
    /// What the lowest point of a `scale` means.
    #[serde(default)]
    #[schema(value_type = Option<LocalizedText>)]
    pub min_label: Option<String>,
    /// What the highest point of a `scale` means.
    #[serde(default)]
    #[schema(value_type = Option<LocalizedText>)]
    pub max_label: Option<String>,
    /// The earliest date a `date` question accepts (`YYYY-MM-DD`).
    #[serde(default)]
    pub earliest: Option<String>,
    /// The latest date a `date` question accepts (`YYYY-MM-DD`).
    #[serde(default)]
    pub latest: Option<String>,
    /// The kinds of file a `file` question takes: `image`, `pdf`, `office` (all three when
    /// absent or empty), told from the file's content.
    #[serde(default)]
    pub accept: Vec<String>,
    /// The largest file a `file` question takes, in bytes (1 to 104,857,600; 10 MiB when
    /// absent); the operator's `CANVASS_UPLOAD_MAX_BYTES` applies too.
    #[serde(default)]
    #[schema(minimum = 1, maximum = 104857600)]
    pub max_bytes: Option<u64>,
    /// A condition on earlier answers (`{"all": [{"question": "likes", "equals": "No"}]}`).
    #[serde(default)]
    #[schema(value_type = Option<crate::domain::Condition>)]
    pub show_if: Option<serde_json::Value>,
    /// Whether its options segment the results (a choice-type question; at most
    /// `MAX_SEGMENT_QUESTIONS` per survey).
    #[serde(default)]
    pub segment: bool,
    /// Whether each respondent sees its options in an order drawn for them, recorded with the
    /// response (a `single_choice`, `multiple_choice` or `dropdown`; "Other" stays last).
    #[serde(default)]
    pub randomize_options: bool,
    /// How many of its last options stay last when they are drawn ("None of these"); less
    /// than its number of options.
    #[serde(default)]
    pub fixed_last: usize,
    /// A check on the answer beyond its type's: `{"expression": "q.a + q.b == 100.0",
    /// "message": "The shares add up to 100"}`; the answer is refused with the message when
    /// the expression is not true. It may read this question and those before it.
    #[serde(default)]
    pub validate: Option<ValidationInput>,
    /// Points for each option, in the options' order (a choice question): summed into the
    /// response's `score`.
    #[serde(default)]
    pub scores: Vec<f64>,
    /// The correct options, by their text (a choice question): counted into the response's
    /// `correct`.
    #[serde(default)]
    pub correct: Vec<String>,
}

/// One page as submitted.
#[derive(Clone, Debug, Default, Deserialize, utoipa::ToSchema)]
pub struct PageInput {
    /// An optional title.
    #[serde(default)]
    #[schema(value_type = Option<LocalizedText>)]
    pub title: Option<String>,
    /// An optional description.
    #[serde(default)]
    #[schema(value_type = Option<LocalizedText>)]
    pub description: Option<String>,
    /// Shown only when this condition on earlier pages' answers holds.
    #[serde(default)]
    #[schema(value_type = Option<crate::domain::Condition>)]
    pub show_if: Option<serde_json::Value>,
    /// Its questions, in order.
    #[serde(default)]
    pub questions: Vec<QuestionInput>,
    /// Jumps tried in order when the page is left: `{"if": CONDITION, "to": 2 | "end"}`.
    #[serde(default)]
    pub jumps: Vec<JumpInput>,
    /// Whether each respondent sees its questions in an order drawn for them, recorded with
    /// the response (numbers follow the order shown).
    #[serde(default)]
    pub randomize_questions: bool,
    /// Repeats it (and the next `pages` - 1 pages) for each option chosen in an earlier
    /// multiple-choice question (`{"over": ID}`) or as many times as an earlier number says
    /// (`{"times": ID}`); at most 50 times.
    #[serde(default, rename = "loop")]
    pub repeat: Option<crate::domain::looping::Loop>,
}

/// A jump as submitted.
#[derive(Clone, Debug, Deserialize, utoipa::ToSchema)]
pub struct JumpInput {
    /// When to jump.
    #[serde(rename = "if")]
    #[schema(value_type = crate::domain::Condition)]
    pub condition: serde_json::Value,
    /// A later page's index (from 0) or `"end"`.
    #[schema(value_type = crate::domain::Target)]
    pub to: serde_json::Value,
}

/// A survey as submitted.
#[derive(Clone, Debug, Default, Deserialize, Validate, utoipa::ToSchema)]
pub struct SurveyInput {
    /// Its title.
    #[validate(length(
        min = 1,
        max = MAX_TITLE,
        message = "a survey needs a title of 1 to 200 characters"
    ))]
    #[schema(value_type = LocalizedText)]
    pub title: String,
    /// An optional introduction.
    #[serde(default)]
    #[validate(length(
        max = MAX_MESSAGE,
        message = "the description is at most 2,000 characters"
    ))]
    #[schema(value_type = Option<LocalizedText>)]
    pub description: Option<String>,
    /// The questions, in order, for a survey of one page (not read when `pages` is sent).
    #[serde(default)]
    pub questions: Vec<QuestionInput>,
    /// The pages, for a survey of several (instead of `questions`).
    #[serde(default)]
    pub pages: Option<Vec<PageInput>>,
    /// How respondents see it: `pages` (its pages as they are) or `one_per_screen` (one
    /// question per screen, its pages' conditions and jumps kept); absent: as it is (`pages`
    /// for a new survey).
    #[serde(default)]
    pub layout: Option<ScreenLayout>,
    /// When it stops taking answers: RFC 3339 (`2026-12-01T17:00:00+01:00`).
    #[serde(default)]
    #[schema(format = DateTime)]
    pub closes_at: Option<String>,
    /// How many counted answers close it (1 to 100,000,000).
    #[serde(default)]
    #[validate(range(
        min = 1,
        max = MAX_RESPONSE_LIMIT,
        message = "a response limit is a whole number from 1 to 100,000,000"
    ))]
    #[schema(minimum = 1)]
    pub response_limit: Option<u64>,
    /// What respondents read once it is closed (Markdown).
    #[serde(default)]
    #[validate(length(
        max = MAX_MESSAGE,
        message = "the closing message is at most 2,000 characters"
    ))]
    #[schema(value_type = Option<LocalizedText>)]
    pub closed_message: Option<String>,
    /// What respondents read after sending their answers (Markdown).
    #[serde(default)]
    #[validate(length(
        max = MAX_MESSAGE,
        message = "the thank-you message is at most 2,000 characters"
    ))]
    #[schema(value_type = Option<LocalizedText>)]
    pub thank_you: Option<String>,
    /// The regions it is answered in, by name (`["eu"]`; at most 8); none or absent: the
    /// tenant's home region. Only an installation with a regions file has regions to name.
    #[serde(default)]
    #[schema(max_items = 8)]
    pub regions: Vec<String>,
    /// `home` (the default): answers given in another region move to the tenant's home
    /// region once; `region`: they stay in the region they were given in, counted there (the
    /// survey then names exactly one region, and this cannot change once it was published).
    #[serde(default)]
    pub residency: Residency,
    /// Who may answer: `open` (anyone with its link) or `invitation` (only its participants,
    /// each once, through their personal link); absent: as it is (`open` for a new survey).
    #[serde(default)]
    pub access: Option<Access>,
    /// Whether its answers are anonymous: then no stored answer, reference, time or export
    /// ties an answer to a participant (a participant's opening and answering are kept
    /// without times, and answers' times only to the day), and participants' attributes are
    /// not added to answers. It can change only until the survey is first published; absent:
    /// as it is (`false` for a new survey).
    #[serde(default)]
    pub anonymous: Option<bool>,
    /// The participant attributes its answers are divided by (`["team"]`; at most 2), each
    /// value a segment: answers given through personal links, of a survey whose answers are
    /// not anonymous; such an attribute takes at most 50 values among its participants.
    /// Absent: as it is (none for a new survey).
    #[serde(default)]
    #[schema(max_items = 2)]
    pub segment_attributes: Option<Vec<String>>,
    /// The languages it is offered in, as language tags, its default first (`["en", "de",
    /// "ar"]`; at most 20); none or absent: English only. Respondents get the one they ask
    /// for (`?lang=`), else the best match of their browser's languages, else the default.
    #[serde(default)]
    #[schema(max_items = 20)]
    pub languages: Vec<String>,
    /// Texts in the survey's other languages: language, then text key (`title`,
    /// `q:overall:text`, `q:drink:option:0`, `page:1:title`), then text (`{"de":
    /// {"q:overall:text": "Wie war es?"}}`); at most 2,000 characters each. A text given in
    /// place as an object of language to text (`"text": {"en": "How was it?", "de": "Wie war
    /// es?"}`) is read into these too. Absent: the translations the survey has are kept (those
    /// whose text still exists).
    #[serde(default)]
    pub translations: Option<BTreeMap<String, BTreeMap<String, String>>>,
    /// Whether a respondent may save their answers on any page and continue later from a
    /// link (a survey of several pages).
    #[serde(default)]
    pub save_and_resume: bool,
    /// Days saved answers are kept, from their last save (1 to 365; 30 when absent).
    #[serde(default)]
    #[schema(minimum = 1, maximum = 365)]
    pub resume_days: Option<u16>,
    /// How many answers of each kind it takes (at most 20); absent: the quotas it has stay.
    #[serde(default)]
    #[schema(max_items = 20)]
    pub quotas: Option<Vec<quota::QuotaInput>>,
    /// Values the survey's address carries (`?pid=abc&source=mail`), by name (`["pid",
    /// "source"]`; at most 20, each a lowercase letter then at most 31 lowercase letters,
    /// digits or `_`, not `lang`, `page`, `sig`, `participant` or `resume`). They are kept
    /// through every page, stored with the response, and may be tested in conditions
    /// (`{"hidden": "source", "equals": "mail"}`) and recalled in texts (`{{h:pid}}`).
    /// Absent: none.
    #[serde(default)]
    #[schema(max_items = 20)]
    pub hidden_fields: Vec<String>,
    /// Where respondents are sent on (`complete`, `screened_out`, `closed`): https addresses
    /// that may recall `{{h:NAME}}`, `{{q:ID}}` and `{{ref}}`, URL-encoded. Absent: none.
    #[serde(default)]
    pub redirects: Redirects,
    /// A block of pages shown in an order drawn for each respondent: `[FIRST, LAST]`, page
    /// indices from 0 (at least two pages). Its pages have no jumps, a jump from before it
    /// leads only to its first page, and no condition, recall or rule on one of its pages
    /// names a question of another of them (their order varies). Not with `one_per_screen`.
    /// Absent: none.
    #[serde(default)]
    #[schema(value_type = Option<[usize; 2]>)]
    pub randomize_pages: Option<crate::domain::arrangement::PageBlock>,
    /// The hidden fields whose values segment the results (`["source"]`; at most 2, each
    /// declared in `hidden_fields`; each divides answers into at most 50 values, the first
    /// seen). Absent: none.
    #[serde(default)]
    #[schema(max_items = 2)]
    pub segment_hidden: Vec<String>,
    /// Values computed from the answers when a response is sent, stored with it: `[{"id":
    /// "total", "expression": "q.a + q.b"}]` (at most 20; each may read those before it).
    #[serde(default)]
    #[schema(max_items = 20)]
    pub variables: Vec<VariableInput>,
    /// Thank-you texts (and redirects) chosen by an expression: the first whose `if` holds
    /// is the respondent's (at most 10).
    #[serde(default)]
    #[schema(max_items = 10)]
    pub endings: Vec<EndingInput>,
    /// What the thank-you page shows of a quiz (questions with `correct` options).
    #[serde(default)]
    pub quiz: crate::domain::calculation::Quiz,
    /// Whether the answers of respondents who have not sent them are kept, as partial
    /// responses, each time they leave a page.
    #[serde(default)]
    pub keep_partial: bool,
    /// Texts given in place per language, by the field they were given at
    /// (`questions[0].text`): language to text. Filled by the API's body reader.
    #[serde(skip)]
    pub localized: BTreeMap<String, BTreeMap<String, String>>,
    /// What was wrong with texts given in place, by field.
    #[serde(skip)]
    pub localized_problems: DefinitionErrors,
}

/// What is wrong, by field (`title`, `description`, `questions[2].options`, ...).
pub type DefinitionErrors = BTreeMap<String, String>;

/// A definition that meets its own rules (`SurveyInput::check`); `checked::Pending` checks it
/// against the installation and the survey it replaces before it is stored.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Definition {
    /// The title, trimmed.
    pub title: String,
    /// The description, trimmed; `None` if blank.
    pub description: Option<String>,
    /// The questions with their ids and conditions, all pages' together.
    pub questions: Vec<Question>,
    /// The pages (empty for one page without logic).
    pub layout: Vec<PageLayout>,
    /// Pages as they are or one question per screen; `None`: as the survey has it.
    pub screens: Option<ScreenLayout>,
    /// When it stops taking answers.
    pub closes_at: Option<OffsetDateTime>,
    /// How many counted answers close it.
    pub response_limit: Option<u64>,
    /// The closing message, trimmed; `None` if blank.
    pub closed_message: Option<String>,
    /// The thank-you message, trimmed; `None` if blank.
    pub thank_you: Option<String>,
    /// The regions it is answered in (none: the tenant's home region).
    pub regions: Vec<RegionName>,
    /// Whether its answers move home or stay where they were given.
    pub residency: Residency,
    /// The languages it is offered in, its default first (none: English only).
    pub languages: Vec<LanguageTag>,
    /// Its texts in its other languages; `None`: keep those the survey has.
    pub translations: Option<Translations>,
    /// Days saved answers are kept when respondents may continue later; `None`: they may not.
    pub resume_days: Option<u16>,
    /// Its quotas; `None`: keep those the survey has.
    pub quotas: Option<Vec<Quota>>,
    /// Who may answer; `None`: as the survey has it.
    pub access: Option<Access>,
    /// Whether its answers are anonymous; `None`: as the survey has it.
    pub anonymous: Option<bool>,
    /// The participant attributes its answers are divided by; `None`: as the survey has it.
    pub segment_attributes: Option<Vec<String>>,
    /// The values its address carries, by name.
    pub hidden_fields: Vec<String>,
    /// Where respondents are sent on.
    pub redirects: Redirects,
    /// The hidden fields whose values segment the results.
    pub segment_hidden: Vec<String>,
    /// A block of pages shown in a drawn order.
    pub randomize_pages: Option<crate::domain::arrangement::PageBlock>,
    /// Values computed from the answers.
    pub variables: Vec<crate::domain::calculation::Variable>,
    /// Thank-you texts chosen by an expression.
    pub endings: Vec<crate::domain::calculation::Ending>,
    /// What the thank-you page shows of a quiz.
    pub quiz: crate::domain::calculation::Quiz,
    /// Whether answers not sent yet are kept as partial responses.
    pub keep_partial: bool,
}

/// One submitted question with its field path, for messages.
struct Placed<'a> {
    path: String,
    input: &'a QuestionInput,
}

impl SurveyInput {
    /// Checks everything; keeps the ids sent with questions (ids of `existing` questions keep
    /// their question, as long as its type stays).
    pub fn check(&self, existing: &[Question]) -> Result<Definition, DefinitionErrors> {
        let mut errors = self.localized_problems.clone();
        if let Err(found) = self.validate() {
            for (field, problems) in found.field_errors() {
                if let Some(message) = problems.first().and_then(|p| p.message.as_ref()) {
                    errors.insert(field.to_string(), message.to_string());
                }
            }
        }
        for (field, text) in [
            ("title", Some(self.title.as_str())),
            ("description", self.description.as_deref()),
            ("closed_message", self.closed_message.as_deref()),
            ("thank_you", self.thank_you.as_deref()),
        ] {
            if text.is_some_and(has_control_characters) {
                errors.insert(field.into(), CONTROL.into());
            }
        }
        let closes_at = self.closes_at().unwrap_or_else(|message| {
            errors.insert("closes_at".into(), message.into());
            None
        });
        if self.title.trim().is_empty() {
            errors.insert(
                "title".into(),
                "a survey needs a title of 1 to 200 characters".into(),
            );
        }
        let placed = self.placed(&mut errors);
        if placed.len() > MAX_QUESTIONS {
            errors.insert(
                "questions".into(),
                format!("a survey has at most {MAX_QUESTIONS} questions"),
            );
        }
        let mut used = HashSet::new();
        let mut questions = Vec::with_capacity(placed.len());
        for item in &placed {
            let was = existing
                .iter()
                .find(|q| Some(q.id.as_str()) == item.input.id.as_deref());
            let kind = match item.input.check() {
                Ok(kind) => kind,
                Err(problems) => {
                    for (field, message) in problems {
                        errors.insert(format!("{}.{field}", item.path), message);
                    }
                    continue;
                }
            };
            // Answers and statistics are kept by question id: one id, one kind of answer,
            // always (short and long text, or a single choice and a drop-down, share one).
            if was.is_some_and(|was| !kind.takes_answers_of(&was.kind)) {
                errors.insert(
                    format!("{}.type", item.path),
                    "a question's type cannot change once it exists: remove it and add a new \
                     question of the other type"
                        .into(),
                );
                continue;
            }
            let id = match item
                .input
                .id
                .as_deref()
                .map(str::trim)
                .filter(|id| !id.is_empty())
            {
                None => QuestionId::generate(),
                Some(chosen) => match QuestionId::parse(chosen).filter(|id| !id.is_looped()) {
                    None => {
                        errors.insert(
                            format!("{}.id", item.path),
                            "a question id is 1 to 32 lowercase letters and digits".into(),
                        );
                        continue;
                    }
                    Some(id) if !used.insert(id.clone()) => {
                        errors.insert(
                            format!("{}.id", item.path),
                            format!("two questions have the id \"{id}\": each needs its own"),
                        );
                        continue;
                    }
                    Some(id) => id,
                },
            };
            if item.input.segment && !kind.can_segment() {
                errors.insert(
                    format!("{}.segment", item.path),
                    "only a single choice, multiple choice, dropdown, star, NPS or scale question \
                     can be a segment"
                        .into(),
                );
                continue;
            }
            let options = kind.options().len();
            let drawable = matches!(
                kind,
                QuestionKind::SingleChoice { .. }
                    | QuestionKind::MultipleChoice { .. }
                    | QuestionKind::Dropdown { .. }
            );
            if item.input.randomize_options && !drawable {
                errors.insert(
                    format!("{}.randomize_options", item.path),
                    "only a single choice, multiple choice or drop-down question shows its \
                     options in a drawn order"
                        .into(),
                );
                continue;
            }
            if item.input.fixed_last > 0
                && (!item.input.randomize_options || item.input.fixed_last >= options)
            {
                errors.insert(
                    format!("{}.fixed_last", item.path),
                    format!(
                        "fixed_last keeps some of a drawn order's last options in place: with \
                         randomize_options, 1 to {} here",
                        options.saturating_sub(1)
                    ),
                );
                continue;
            }
            questions.push(Question {
                randomize_options: item.input.randomize_options,
                fixed_last: item.input.fixed_last,
                validate: None,
                scoring: Default::default(),
                id,
                text: item.input.text.trim().to_owned(),
                help: item
                    .input
                    .help
                    .as_deref()
                    .map(str::trim)
                    .filter(|help| !help.is_empty())
                    .map(str::to_owned),
                required: item.input.required,
                kind,
                show_if: None,
                segment: item.input.segment,
            });
        }
        if questions.iter().filter(|q| q.segment).count() > MAX_SEGMENT_QUESTIONS {
            errors.insert(
                "questions".into(),
                format!("a survey has at most {MAX_SEGMENT_QUESTIONS} segment questions"),
            );
        }
        let characters = self.characters();
        if characters > MAX_DEFINITION_CHARS {
            errors.insert(
                "questions".into(),
                format!(
                    "a survey's texts add up to at most 100,000 characters; this one has \
                     {characters}"
                ),
            );
        }
        // Settings that name no question: checked with the questions, so one answer lists
        // every problem of both.
        let regions = self.hosting(&mut errors);
        let languages = self.language_tags(&mut errors);
        let resume_days = self.resume_days(&mut errors);
        if let Some((at, problem)) = crate::domain::hidden::names_problem(&self.hidden_fields) {
            let field = at.map_or("hidden_fields".into(), |at| format!("hidden_fields[{at}]"));
            errors.insert(field, problem);
        }
        let redirects = self.redirects.trimmed();
        for (field, address) in redirects.each() {
            let known = |id: &QuestionId| questions.iter().any(|q| q.id == *id);
            if let Some(problem) = redirect::problem(address, &self.hidden_fields, known) {
                errors.insert(format!("redirects.{field}"), problem);
            }
        }
        if !errors.is_empty() {
            return Err(errors);
        }
        // Every question checked: now the logic, which names questions by id.
        calculation::check_scoring(&placed, &mut questions, &mut errors);
        let layout = logic::check(self, &placed, &mut questions, &mut errors);
        let calculations = calculation::check(self, &placed, &mut questions, &mut errors);
        if let Some(block) = self.randomize_pages
            && let Some(problem) = logic::block_problem(block, &layout, &questions)
        {
            errors.insert("randomize_pages".into(), problem);
        }
        if let Some((field, problem)) = looping::problem(&layout, &questions, self.randomize_pages)
        {
            errors.insert(field, problem);
        }
        recall::check(self, &placed, &questions, &layout, &mut errors);
        if !errors.is_empty() {
            return Err(errors);
        }
        let text = |text: &Option<String>| {
            text.as_deref()
                .map(str::trim)
                .filter(|t| !t.is_empty())
                .map(str::to_owned)
        };
        let quotas = self
            .quotas
            .as_ref()
            .map(|sent| quota::check(sent, &questions, &mut errors));
        if let Some((field, problem)) = quotas
            .as_deref()
            .and_then(|quotas| looping::quota_problem(quotas, &layout, &questions))
        {
            errors.insert(field, problem);
        }
        if !errors.is_empty() {
            return Err(errors);
        }
        let mut definition = Definition {
            title: self.title.trim().to_owned(),
            description: text(&self.description),
            questions,
            layout,
            screens: self.layout,
            closes_at,
            response_limit: self.response_limit,
            closed_message: text(&self.closed_message),
            thank_you: text(&self.thank_you),
            regions,
            residency: self.residency,
            languages,
            translations: None,
            resume_days,
            quotas,
            access: self.access,
            anonymous: self.anonymous,
            segment_attributes: self.segment_attributes.clone(),
            hidden_fields: self.hidden_fields.clone(),
            redirects,
            segment_hidden: calculations.segment_hidden,
            randomize_pages: self.randomize_pages,
            variables: calculations.variables,
            endings: calculations.endings,
            quiz: self.quiz.clone(),
            keep_partial: self.keep_partial,
        };
        definition.translations = self.translations_of(&definition, &placed, &mut errors);
        match errors.is_empty() {
            true => Ok(definition),
            false => Err(errors),
        }
    }

    /// The translations sent (as a map, and in place), checked against the definition's
    /// languages and texts; `None` when none were sent.
    fn translations_of(
        &self,
        definition: &Definition,
        placed: &[Placed<'_>],
        errors: &mut DefinitionErrors,
    ) -> Option<Translations> {
        if self.translations.is_none() && self.localized.is_empty() {
            return None;
        }
        let mut sent = self.translations.clone().unwrap_or_default();
        for (path, by_language) in &self.localized {
            let quotas = definition.quotas.as_deref().unwrap_or_default();
            let Some(key) = text_key(path, placed, &definition.questions, quotas) else {
                errors.insert(
                    path.clone(),
                    "this text cannot be given per language".into(),
                );
                continue;
            };
            for (language, text) in by_language {
                sent.entry(language.clone())
                    .or_default()
                    .insert(key.clone(), text.clone());
            }
        }
        let texts = translation::owner_texts(&translation::TextSources {
            title: &definition.title,
            description: definition.description.as_deref(),
            questions: &definition.questions,
            layout: &definition.layout,
            thank_you: definition.thank_you.as_deref(),
            closed_message: definition.closed_message.as_deref(),
            quotas: definition.quotas.as_deref().unwrap_or_default(),
            endings: &definition.endings,
        });
        let languages = match definition.languages.is_empty() {
            true => vec![LanguageTag::english()],
            false => definition.languages.clone(),
        };
        Some(translation::check(&sent, &languages, &texts, errors))
    }

    /// How long saved answers are kept, when respondents may continue later.
    fn resume_days(&self, errors: &mut DefinitionErrors) -> Option<u16> {
        let days = self.resume_days.unwrap_or(DEFAULT_RESUME_DAYS);
        if !(1..=MAX_RESUME_DAYS).contains(&days) {
            errors.insert(
                "resume_days".into(),
                format!("saved answers are kept 1 to {MAX_RESUME_DAYS} days"),
            );
        }
        self.save_and_resume.then_some(days)
    }

    /// The languages sent, checked (see `language_list`).
    fn language_tags(&self, errors: &mut DefinitionErrors) -> Vec<LanguageTag> {
        language_list(&self.languages, errors)
    }

    /// The hosting regions sent, checked as names (whether the installation has them is the
    /// service's to say): no duplicates, at most `MAX_HOSTING_REGIONS`.
    fn hosting(&self, errors: &mut DefinitionErrors) -> Vec<RegionName> {
        let too_many = format!("a survey is hosted in at most {MAX_HOSTING_REGIONS} regions");
        named_once(
            &self.regions,
            "regions",
            MAX_HOSTING_REGIONS,
            &too_many,
            errors,
            |text| RegionName::parse(text.trim()).map_err(|problem| problem.to_string()),
        )
    }

    /// The close time sent, if any (blank is none).
    fn closes_at(&self) -> Result<Option<OffsetDateTime>, &'static str> {
        match self.closes_at.as_deref().map(str::trim) {
            None | Some("") => Ok(None),
            Some(text) => OffsetDateTime::parse(text, &Rfc3339)
                .map(|at| Some(at.to_offset(time::UtcOffset::UTC)))
                .map_err(|_| {
                    "a close time is a date and time with its offset, in RFC 3339 \
                     (2026-12-01T17:00:00+01:00)"
                }),
        }
    }

    /// Every submitted question with its path. With `pages`, the questions are those of the
    /// pages and a top-level `questions` is not read (the API shows both, so a definition read
    /// from it can be sent back as it is).
    fn placed(&self, errors: &mut DefinitionErrors) -> Vec<Placed<'_>> {
        let Some(pages) = &self.pages else {
            return self
                .questions
                .iter()
                .enumerate()
                .map(|(index, input)| Placed {
                    path: format!("questions[{index}]"),
                    input,
                })
                .collect();
        };
        if pages.is_empty() || pages.len() > MAX_PAGES {
            errors.insert(
                "pages".into(),
                format!("a survey has 1 to {MAX_PAGES} pages"),
            );
        }
        pages
            .iter()
            .enumerate()
            .flat_map(|(page, input)| {
                input
                    .questions
                    .iter()
                    .enumerate()
                    .map(move |(index, input)| Placed {
                        path: format!("pages[{page}].questions[{index}]"),
                        input,
                    })
            })
            .collect()
    }

    /// Characters of text in the definition, everything counted.
    fn characters(&self) -> usize {
        let count = |text: &str| text.chars().count();
        let questions = |list: &[QuestionInput]| {
            list.iter()
                .map(|q| {
                    count(&q.text)
                        + q.help.as_deref().map_or(0, count)
                        + q.options
                            .iter()
                            .chain(&q.rows)
                            .chain(&q.columns)
                            .map(|o| count(o))
                            .sum::<usize>()
                })
                .sum::<usize>()
        };
        let top = if self.pages.is_some() {
            0
        } else {
            questions(&self.questions)
        };
        count(&self.title)
            + [&self.description, &self.closed_message, &self.thank_you]
                .iter()
                .map(|text| text.as_deref().map_or(0, count))
                .sum::<usize>()
            + top
            + self
                .pages
                .iter()
                .flatten()
                .map(|page| {
                    page.title.as_deref().map_or(0, count)
                        + page.description.as_deref().map_or(0, count)
                        + questions(&page.questions)
                })
                .sum::<usize>()
    }
}

impl QuestionInput {
    /// The question's type, or every problem of its fields at once (its text, its help text,
    /// its options and its type's settings), by field.
    fn check(&self) -> Result<QuestionKind, Vec<(&'static str, String)>> {
        let mut problems = Vec::new();
        if let Some(problem) = self.text_problem() {
            problems.push(("text", problem));
        }
        if let Some(help) = &self.help {
            if help.chars().count() > MAX_QUESTION_TEXT as usize {
                problems.push((
                    "help",
                    "a question's help text is at most 500 characters".into(),
                ));
            } else if has_control_characters(help) {
                problems.push(("help", CONTROL.into()));
            }
        }
        if self.options.iter().any(|o| has_control_characters(o)) {
            problems.push(("options", CONTROL.into()));
        }
        match self.kind() {
            Ok(kind) if problems.is_empty() => Ok(kind),
            Ok(_) => Err(problems),
            Err(problem) => {
                // An options problem is said once, the first found.
                if !problems.iter().any(|(field, _)| *field == problem.0) {
                    problems.push(problem);
                }
                Err(problems)
            }
        }
    }

    /// What is wrong with the question's text, if anything.
    fn text_problem(&self) -> Option<String> {
        if let Err(found) = self.validate() {
            let message = found
                .field_errors()
                .values()
                .flat_map(|problems| problems.iter())
                .find_map(|problem| problem.message.as_ref().map(|m| m.to_string()))
                .unwrap_or_else(|| "this question is not valid".into());
            return Some(message);
        }
        if self.text.trim().is_empty() {
            return Some("a question needs a text of 1 to 500 characters".into());
        }
        has_control_characters(&self.text).then(|| CONTROL.into())
    }

    /// The question's type with its settings checked, or the first problem with them.
    fn kind(&self) -> Result<QuestionKind, (&'static str, String)> {
        let options = || -> Result<Vec<String>, (&'static str, String)> {
            let options: Vec<String> = self
                .options
                .iter()
                .map(|o| o.trim().to_owned())
                .filter(|o| !o.is_empty())
                .collect();
            let distinct: HashSet<&String> = options.iter().collect();
            if options.len() < 2 || options.len() > MAX_OPTIONS {
                Err((
                    "options",
                    format!("a choice question needs 2 to {MAX_OPTIONS} options"),
                ))
            } else if distinct.len() != options.len() {
                Err(("options", "each option must be different".into()))
            } else if options.iter().any(|o| o.chars().count() > 200) {
                Err(("options", "an option is at most 200 characters".into()))
            } else {
                Ok(options)
            }
        };
        if self.other && !matches!(self.kind.as_str(), "single_choice" | "multiple_choice") {
            return Err((
                "other",
                "only single_choice and multiple_choice questions offer \"Other\"".into(),
            ));
        }
        match self.kind.as_str() {
            "short_text" => Ok(QuestionKind::ShortText),
            "long_text" => Ok(QuestionKind::LongText),
            "single_choice" | "multiple_choice" => {
                let options = options()?;
                if self.other && options.iter().any(|o| o == OTHER) {
                    return Err((
                        "options",
                        "\"other\": true adds the choice \"Other\" after the options: remove \
                         the option named Other"
                            .into(),
                    ));
                }
                let other = self.other;
                Ok(if self.kind == "single_choice" {
                    QuestionKind::SingleChoice { options, other }
                } else {
                    QuestionKind::MultipleChoice { options, other }
                })
            }
            "five_stars" => Ok(QuestionKind::FiveStars),
            "dropdown" => Ok(QuestionKind::Dropdown {
                options: options()?,
            }),
            "nps" => Ok(QuestionKind::Nps),
            "matrix" => {
                let list = |items: &[String], field, least: usize, most: usize| {
                    let items: Vec<String> = items
                        .iter()
                        .map(|i| i.trim().to_owned())
                        .filter(|i| !i.is_empty())
                        .collect();
                    let distinct: HashSet<&String> = items.iter().collect();
                    if items.len() < least || items.len() > most || distinct.len() != items.len() {
                        Err((
                            field,
                            format!("a matrix has {least} to {most} different {field}"),
                        ))
                    } else if items
                        .iter()
                        .any(|i| i.chars().count() > 200 || has_control_characters(i))
                    {
                        Err((
                            field,
                            format!("each of a matrix's {field} is at most 200 characters"),
                        ))
                    } else {
                        Ok(items)
                    }
                };
                Ok(QuestionKind::Matrix {
                    rows: list(&self.rows, "rows", 1, MAX_ROWS)?,
                    columns: list(&self.columns, "columns", 2, MAX_COLUMNS)?,
                })
            }
            "ranking" => {
                let options = options()?;
                if options.len() > MAX_RANKED {
                    return Err((
                        "options",
                        format!("a ranking question has 2 to {MAX_RANKED} options"),
                    ));
                }
                Ok(QuestionKind::Ranking { options })
            }
            "scale" => {
                let points = self.points.unwrap_or(5);
                if !(3..=10).contains(&points) {
                    return Err(("points", "a scale has 3 to 10 points".into()));
                }
                let label = |text: &Option<String>, field| {
                    let text = text.as_deref().map(str::trim).filter(|t| !t.is_empty());
                    match text {
                        Some(t) if t.chars().count() > 100 || has_control_characters(t) => Err((
                            field,
                            "a scale's label is at most 100 characters, without control \
                             characters"
                                .to_string(),
                        )),
                        other => Ok(other.map(str::to_owned)),
                    }
                };
                Ok(QuestionKind::Scale {
                    points,
                    min_label: label(&self.min_label, "min_label")?,
                    max_label: label(&self.max_label, "max_label")?,
                })
            }
            "file" => {
                let mut accept = Vec::new();
                for name in &self.accept {
                    let Some(kind) = FileKind::parse(name.trim()) else {
                        return Err((
                            "accept",
                            format!("{name:?} is not a kind of file: use image, pdf or office"),
                        ));
                    };
                    if !accept.contains(&kind) {
                        accept.push(kind);
                    }
                }
                if accept.is_empty() {
                    accept = FILE_KINDS.to_vec();
                }
                accept.sort();
                let max_bytes = self.max_bytes.unwrap_or(DEFAULT_FILE_BYTES);
                if !(1..=MAX_FILE_BYTES).contains(&max_bytes) {
                    return Err((
                        "max_bytes",
                        "a file question takes files of at most 1 to 104,857,600 bytes (100 MiB)"
                            .into(),
                    ));
                }
                Ok(QuestionKind::File { accept, max_bytes })
            }
            "date" => {
                let bound = |text: &Option<String>, field| {
                    let text = text.as_deref().map(str::trim).filter(|t| !t.is_empty());
                    match text {
                        None => Ok(None),
                        Some(t) => super::answer::date(t).map(|d| Some(d.to_string())).ok_or((
                            field,
                            "a date is written YYYY-MM-DD, like 2026-07-14".to_string(),
                        )),
                    }
                };
                let (earliest, latest) = (
                    bound(&self.earliest, "earliest")?,
                    bound(&self.latest, "latest")?,
                );
                if let (Some(first), Some(last)) = (&earliest, &latest)
                    && first > last
                {
                    return Err((
                        "latest",
                        "the latest date must not be before the earliest".into(),
                    ));
                }
                Ok(QuestionKind::Date { earliest, latest })
            }
            "numeric" => {
                let in_range = |n: Option<f64>| n.is_none_or(|n| n.abs() <= MAX_NUMBER);
                if !in_range(self.min) || !in_range(self.max) {
                    return Err((
                        "min",
                        "the bounds must be numbers between -1e15 and 1e15".into(),
                    ));
                }
                if let (Some(min), Some(max)) = (self.min, self.max)
                    && min > max
                {
                    return Err((
                        "max",
                        "the largest value must not be below the smallest".into(),
                    ));
                }
                Ok(QuestionKind::Numeric {
                    min: self.min,
                    max: self.max,
                    integer: self.integer,
                })
            }
            other => Err((
                "type",
                format!(
                    "{other:?} is not a question type: use short_text, long_text, single_choice, \
                     multiple_choice, dropdown, ranking, matrix, five_stars, nps, scale, numeric, \
                     date or file"
                ),
            )),
        }
    }
}

/// The text key of the text sent at `path` (`questions[2].options[1]` is
/// `q:drink:option:1`), given the checked questions in the order they were placed.
fn text_key(
    path: &str,
    placed: &[Placed<'_>],
    questions: &[Question],
    quotas: &[Quota],
) -> Option<String> {
    if matches!(
        path,
        "title" | "description" | "thank_you" | "closed_message"
    ) {
        return Some(path.to_owned());
    }
    if let Some(index) = path
        .strip_prefix("quotas[")
        .and_then(|rest| rest.strip_suffix("].message"))
    {
        let quota = quotas.get(index.parse::<usize>().ok()?)?;
        return Some(format!("quota:{}:message", quota.id));
    }
    for (item, question) in placed.iter().zip(questions) {
        let Some(part) = path
            .strip_prefix(item.path.as_str())
            .and_then(|rest| rest.strip_prefix('.'))
        else {
            continue;
        };
        let id = &question.id;
        let indexed = |name: &str| {
            part.strip_prefix(name)
                .and_then(|rest| rest.strip_prefix('['))
                .and_then(|rest| rest.strip_suffix(']'))
                .and_then(|at| at.parse::<usize>().ok())
        };
        return match part {
            "text" | "help" | "min_label" | "max_label" => Some(format!("q:{id}:{part}")),
            _ => [
                ("options", "option"),
                ("rows", "row"),
                ("columns", "column"),
            ]
            .iter()
            .find_map(|(field, key)| indexed(field).map(|at| format!("q:{id}:{key}:{at}"))),
        };
    }
    let page = path.strip_prefix("pages[")?;
    let (index, part) = page.split_once("].")?;
    let index: usize = index.parse().ok()?;
    matches!(part, "title" | "description").then(|| format!("page:{index}:{part}"))
}

/// The languages a survey is offered in, as sent (its default first): each a language tag,
/// each once, at most `MAX_LANGUAGES`; what is wrong goes to `errors` (`languages[1]`).
pub fn language_list(sent: &[String], errors: &mut DefinitionErrors) -> Vec<LanguageTag> {
    let too_many = format!("a survey is offered in at most {MAX_LANGUAGES} languages");
    named_once(
        sent,
        "languages",
        MAX_LANGUAGES,
        &too_many,
        errors,
        |text| LanguageTag::parse(text).map_err(|problem| problem.to_string()),
    )
}

/// A list of names sent as `field` (`regions`, `languages`), each read by `parse`: at most
/// `most` of them, each once; what is wrong goes to `errors` by position (`regions[1]`).
fn named_once<T: PartialEq + std::fmt::Display>(
    sent: &[String],
    field: &str,
    most: usize,
    too_many: &str,
    errors: &mut DefinitionErrors,
    parse: impl Fn(&str) -> Result<T, String>,
) -> Vec<T> {
    let mut kept: Vec<T> = Vec::new();
    if sent.len() > most {
        errors.insert(field.into(), too_many.into());
        return kept;
    }
    for (at, text) in sent.iter().enumerate() {
        match parse(text) {
            Ok(name) if kept.contains(&name) => {
                errors.insert(format!("{field}[{at}]"), format!("{name} is named twice"));
            }
            Ok(name) => kept.push(name),
            Err(problem) => {
                errors.insert(format!("{field}[{at}]"), problem);
            }
        }
    }
    kept
}

#[cfg(test)]
mod tests {
    use super::*;

    fn question(kind: &str) -> QuestionInput {
        QuestionInput {
            text: "Why?".into(),
            kind: kind.into(),
            options: vec!["A".into(), "B".into()],
            ..QuestionInput::default()
        }
    }

    #[test]
    fn a_question_reports_every_problem_of_its_fields_at_once() {
        let mut broken = question("scale");
        broken.text = "  ".into();
        broken.help = Some("h".repeat(501));
        broken.options = vec!["A\u{7}".into()];
        broken.points = Some(40);
        let fields: Vec<&str> = broken
            .check()
            .expect_err("refused")
            .iter()
            .map(|(field, _)| *field)
            .collect();
        assert_eq!(fields, ["text", "help", "options", "points"]);
        // The options' control character is said once, though the type's check finds it too.
        let mut choice = question("single_choice");
        choice.options = vec!["A\u{7}".into(), "B".into()];
        let problems = choice.check().expect_err("refused");
        assert_eq!(problems.iter().filter(|(f, _)| *f == "options").count(), 1);
        // A sound question has none, and an empty one names its text.
        assert!(question("single_choice").check().is_ok());
        let empty = QuestionInput::default().check().expect_err("refused");
        assert!(empty.iter().any(|(field, _)| *field == "text"), "{empty:?}");
    }

    #[test]
    fn survey_settings_are_refused_with_the_questions_in_one_answer() {
        let mut bad = question("short_text");
        bad.text = String::new();
        let input = SurveyInput {
            title: "T".into(),
            languages: vec!["French".into()],
            regions: vec!["Not A Region".into()],
            questions: vec![bad],
            ..SurveyInput::default()
        };
        let errors = input.check(&[]).expect_err("refused");
        for field in ["languages[0]", "regions[0]", "questions[0].text"] {
            assert!(errors.contains_key(field), "{field}: {errors:?}");
        }
    }

    #[test]
    fn hosting_regions_are_names_each_named_once_at_most_eight() {
        let hosted = |regions: &[&str]| SurveyInput {
            title: "Trips".into(),
            questions: vec![question("single_choice")],
            regions: regions.iter().map(|name| (*name).to_owned()).collect(),
            ..SurveyInput::default()
        };
        let kept = hosted(&["eu", " us "]).check(&[]).expect("two regions");
        let names: Vec<&str> = kept.regions.iter().map(RegionName::as_str).collect();
        assert_eq!(names, ["eu", "us"], "trimmed, in the order given");
        assert!(hosted(&[]).check(&[]).expect("none").regions.is_empty());
        let twice = hosted(&["eu", "eu"]).check(&[]).expect_err("named twice");
        assert_eq!(twice["regions[1]"], "eu is named twice");
        let bad = hosted(&["EU"]).check(&[]).expect_err("not a name");
        assert!(bad["regions[0]"].contains("not a region name"), "{bad:?}");
        let names: Vec<String> = (0..=MAX_HOSTING_REGIONS).map(|n| format!("r{n}")).collect();
        let many: Vec<&str> = names.iter().map(String::as_str).collect();
        let too_many = hosted(&many).check(&[]).expect_err("nine");
        assert!(too_many["regions"].contains("at most 8"), "{too_many:?}");
    }

    #[test]
    fn up_to_three_choice_type_questions_may_be_segments() {
        let marked = |kind: &str| QuestionInput {
            segment: true,
            ..question(kind)
        };
        let three = SurveyInput {
            title: "Trips".into(),
            questions: vec![marked("single_choice"), marked("nps"), marked("dropdown")],
            ..SurveyInput::default()
        };
        let definition = three.check(&[]).expect("three segment questions are fine");
        assert!(definition.questions.iter().all(|q| q.segment));
        let four = SurveyInput {
            questions: vec![
                marked("single_choice"),
                marked("nps"),
                marked("dropdown"),
                marked("five_stars"),
            ],
            ..three.clone()
        };
        let errors = four.check(&[]).expect_err("four are too many");
        assert!(errors["questions"].contains("at most 3 segment questions"));
        let text = SurveyInput {
            questions: vec![marked("short_text")],
            ..three
        };
        let errors = text.check(&[]).expect_err("a text question cannot segment");
        assert!(errors.contains_key("questions[0].segment"), "{errors:?}");
    }

    #[test]
    fn a_definition_with_every_type_checks_and_gets_question_ids() {
        let input = SurveyInput {
            title: "  Team  ".into(),
            description: Some("  ".into()),
            questions: [
                "short_text",
                "long_text",
                "single_choice",
                "multiple_choice",
                "five_stars",
                "numeric",
            ]
            .into_iter()
            .map(question)
            .collect(),
            ..SurveyInput::default()
        };

        let definition = input.check(&[]).expect("valid");

        assert_eq!(definition.title, "Team");
        assert_eq!(definition.description, None);
        assert_eq!(definition.questions.len(), 6);
        assert_eq!(definition.questions[2].kind.options(), ["A", "B"]);
    }

    #[test]
    fn ids_of_kept_questions_survive_an_edit_chosen_ids_are_kept_and_bad_ones_refused() {
        let first = SurveyInput {
            title: "T".into(),
            questions: vec![question("short_text")],
            ..Default::default()
        }
        .check(&[])
        .expect("valid");
        let kept = first.questions[0].id.to_string();
        let mut edited = question("short_text");
        edited.id = Some(kept.clone());
        edited.text = "Why not?".into();
        let mut chosen = question("short_text");
        chosen.id = Some("mine2".into());

        let second = SurveyInput {
            title: "T".into(),
            questions: vec![edited, chosen],
            ..Default::default()
        }
        .check(&first.questions)
        .expect("valid");

        assert_eq!(second.questions[0].id.as_str(), kept);
        assert_eq!(second.questions[0].text, "Why not?");
        assert_eq!(
            second.questions[1].id.as_str(),
            "mine2",
            "a chosen id is kept"
        );

        let mut bad = question("short_text");
        bad.id = Some("Not An Id".into());
        // A kept id under a type its answers do not allow (text to number).
        let mut twice = question("numeric");
        twice.id = Some(kept.clone());
        let errors = SurveyInput {
            title: "T".into(),
            questions: vec![question("short_text"), bad, twice.clone(), twice],
            ..Default::default()
        }
        .check(&first.questions)
        .expect_err("refused");
        assert!(
            errors["questions[1].id"].contains("lowercase"),
            "{errors:?}"
        );
        assert!(errors.contains_key("questions[2].type"), "{errors:?}");
    }

    #[test]
    fn a_definition_past_the_character_limit_is_refused() {
        let mut wide = question("single_choice");
        wide.options = (0..50).map(|n| format!("{n:0200}")).collect();
        let input = SurveyInput {
            title: "T".into(),
            questions: vec![wide; 10],
            ..Default::default()
        };

        let errors = input.check(&[]).expect_err("refused");

        assert!(
            errors["questions"].contains("at most 100,000 characters"),
            "{errors:?}"
        );
        assert_eq!(MAX_DEFINITION_CHARS, 100_000, "the message names the limit");
    }

    #[test]
    fn a_kept_question_cannot_change_its_type() {
        let first = SurveyInput {
            title: "T".into(),
            questions: vec![question("numeric")],
            ..Default::default()
        }
        .check(&[])
        .expect("valid");
        let mut changed = question("short_text");
        changed.id = Some(first.questions[0].id.to_string());

        let errors = SurveyInput {
            title: "T".into(),
            questions: vec![changed],
            ..Default::default()
        }
        .check(&first.questions)
        .expect_err("refused");

        assert!(
            errors["questions[0].type"].contains("cannot change"),
            "{errors:?}"
        );
    }

    #[test]
    fn each_problem_is_reported_at_its_field() {
        let mut few = question("single_choice");
        few.options = vec!["Only".into()];
        let mut twice = question("multiple_choice");
        twice.options = vec!["A".into(), "A".into()];
        let mut bounds = question("numeric");
        bounds.min = Some(5.0);
        bounds.max = Some(1.0);
        let mut untitled = question("short_text");
        untitled.text = " ".into();
        let input = SurveyInput {
            title: "".into(),
            description: None,
            questions: vec![few, twice, bounds, question("essay"), untitled],
            ..SurveyInput::default()
        };

        let errors = input.check(&[]).expect_err("invalid");

        for field in [
            "title",
            "questions[0].options",
            "questions[1].options",
            "questions[2].max",
            "questions[3].type",
            "questions[4].text",
        ] {
            assert!(
                errors.contains_key(field),
                "no error at {field}: {errors:?}"
            );
        }
    }
}
