//! The survey designer: one form holding the whole survey, with buttons to add, remove and
//! reorder questions (applied and shown again without saving, so nothing needs JavaScript),
//! save, publish, unpublish and delete.

use crate::domain::definition::FieldPath;
use crate::domain::logic::ScreenLayout;
use crate::domain::region::Residency;
use crate::service::surveys as service;
use crate::web::tenant::survey_form::OwnSurvey;
use crate::web::tenant::survey_form::SurveyForm;
use std::collections::BTreeMap;
use std::sync::Arc;

use actix_web::http::StatusCode;
use actix_web::http::header::LOCATION;
use actix_web::{HttpRequest, HttpResponse, web};
use askama::Template;
use serde::Deserialize;
use time::format_description::well_known::Rfc3339;

mod block;
mod edit;
mod logic;
mod problems;
mod unsaved;

use block::QuestionEdit;
use edit::Edit;
use logic::{KEEP, TESTS};
use problems::Problem;

use super::notice;
use super::session::{AtLeast, SignedIn};
use crate::domain::definition::{PageInput, QuestionInput, SurveyInput};
use crate::domain::member::Role;
use crate::domain::survey::MAX_SURVEYS_PER_TENANT;
use crate::domain::{Question, Survey, Zone};
use crate::web::forms::field;
use crate::web::roles::Editor;
use crate::web::{AppState, Reply, State, WebError, render, render_with_status};

/// The question types offered, with their names for people.
const TYPES: [(&str, &str); 13] = [
    ("short_text", "Short text"),
    ("long_text", "Long text"),
    ("single_choice", "Single choice"),
    ("multiple_choice", "Multiple choice"),
    ("dropdown", "Drop-down list"),
    ("ranking", "Ranking (put the options in order)"),
    ("matrix", "Matrix (a choice of the options for each row)"),
    ("five_stars", "Five-star rating"),
    ("nps", "Net Promoter Score (0 to 10)"),
    ("scale", "Rating scale"),
    ("numeric", "Number"),
    ("date", "Date"),
    ("file", "File upload (image, PDF, office document)"),
];

/// A question type's name for people (`Five-star rating`), by its API name.
pub(in crate::web::tenant) fn type_label(name: &str) -> &'static str {
    TYPES
        .iter()
        .find(|(api, _)| *api == name)
        .map_or("Question", |(_, label)| label)
}

/// The survey's own fields of the form (besides its questions), as typed.
#[derive(Default, PartialEq)]
struct SurveyFields {
    title: String,
    /// The introduction and the thank-you message (Markdown).
    description: String,
    thank_you: String,
    /// The close time in the tenant's zone (`YYYY-MM-DDTHH:MM`), blank for none.
    closes_at: String,
    response_limit: String,
    closed_message: String,
    /// The hosting regions ticked, by name, comma-separated (none: home).
    regions: String,
    /// `region` when answers stay in their region, else blank.
    residency: String,
    /// Whether respondents may save and continue later, and for how many days.
    save_and_resume: bool,
    resume_days: String,
    /// Whether the answers of respondents who have not sent them are kept as partial responses.
    keep_partial: bool,
    /// `one_per_screen` when respondents see one question per screen, else blank (pages).
    layout: String,
    /// The hidden fields' names, comma-separated.
    hidden_fields: String,
    /// Where respondents are sent on: once they answered, screened out, or the survey closed.
    redirect_complete: String,
    redirect_screened_out: String,
    redirect_closed: String,
    /// The pages shown in a drawn order, counted from 1 as the form shows them.
    shuffle_from: String,
    shuffle_to: String,
    /// The hidden fields whose values segment the results, comma-separated.
    segment_hidden: String,
    /// The variables, one per line: `id = expression`.
    variables: String,
    /// The variables whose values segment the results, comma-separated.
    segment_variables: String,
    /// The endings as typed, and one blank row to add another.
    endings: Vec<EndingFields>,
    /// What the thank-you page shows of a quiz.
    quiz_show_score: bool,
    quiz_show_answers: bool,
}

/// One ending's fields, as typed.
#[derive(Clone, Default, PartialEq)]
struct EndingFields {
    id: String,
    when: String,
    text: String,
    redirect: String,
}

impl EndingFields {
    fn is_blank(&self) -> bool {
        [&self.id, &self.when, &self.text, &self.redirect]
            .iter()
            .all(|typed| typed.trim().is_empty())
    }
}

/// Names typed in one field, split at commas or spaces.
fn names(typed: &str) -> Vec<String> {
    typed
        .split([',', ' ', '\n'])
        .map(str::trim)
        .filter(|name| !name.is_empty())
        .map(str::to_owned)
        .collect()
}

/// Most ending rows the form reads (the survey's limit).
const MAX_ENDING_ROWS: usize = crate::domain::calculation::MAX_ENDINGS;

impl SurveyFields {
    fn of(survey: &Survey, zone: &Zone) -> Self {
        let text = |t: &Option<String>| t.clone().unwrap_or_default();
        Self {
            title: survey.title.clone(),
            description: text(&survey.description),
            thank_you: text(&survey.thank_you),
            closes_at: survey
                .closes_at
                .map(|at| zone.local_input(at))
                .unwrap_or_default(),
            response_limit: survey
                .response_limit
                .map(|n| n.to_string())
                .unwrap_or_default(),
            closed_message: text(&survey.closed_message),
            regions: survey
                .regions
                .iter()
                .map(|name| name.as_str())
                .collect::<Vec<_>>()
                .join(","),
            residency: match survey.residency {
                Residency::Home => String::new(),
                Residency::Region => "region".into(),
            },
            save_and_resume: survey.resume_days.is_some(),
            keep_partial: survey.keep_partial,
            resume_days: survey
                .resume_days
                .map(|days| days.to_string())
                .unwrap_or_default(),
            layout: match survey.one_per_screen() {
                true => "one_per_screen".into(),
                false => String::new(),
            },
            hidden_fields: survey.hidden_fields.join(", "),
            redirect_complete: text(&survey.redirects.complete),
            redirect_screened_out: text(&survey.redirects.screened_out),
            redirect_closed: text(&survey.redirects.closed),
            shuffle_from: survey
                .randomize_pages
                .map(|block| (block.0 + 1).to_string())
                .unwrap_or_default(),
            shuffle_to: survey
                .randomize_pages
                .map(|block| (block.1 + 1).to_string())
                .unwrap_or_default(),
            segment_hidden: survey.segment_hidden.join(", "),
            variables: survey
                .variables
                .iter()
                .map(|v| format!("{} = {}", v.id, v.expression))
                .collect::<Vec<_>>()
                .join("\n"),
            segment_variables: survey
                .variables
                .iter()
                .filter(|v| v.segment)
                .map(|v| v.id.as_str())
                .collect::<Vec<_>>()
                .join(", "),
            endings: survey
                .endings
                .iter()
                .map(|e| EndingFields {
                    id: e.id.clone(),
                    when: e.when.as_ref().map(ToString::to_string).unwrap_or_default(),
                    text: text(&e.text),
                    redirect: text(&e.redirect),
                })
                .collect(),
            quiz_show_score: survey.quiz.show_score,
            quiz_show_answers: survey.quiz.show_answers,
        }
    }

    fn posted(form: &[(String, String)]) -> Self {
        let get = |name: &str| posted_text(form, name);
        Self {
            title: get("title"),
            description: get("description"),
            thank_you: get("thank_you"),
            closes_at: get("closes_at"),
            response_limit: get("response_limit"),
            closed_message: get("closed_message"),
            regions: form
                .iter()
                .filter(|(name, _)| name == "region")
                .map(|(_, value)| value.trim())
                .collect::<Vec<_>>()
                .join(","),
            residency: get("residency"),
            save_and_resume: !get("save_and_resume").is_empty(),
            keep_partial: !get("keep_partial").is_empty(),
            resume_days: get("resume_days"),
            layout: get("layout"),
            hidden_fields: get("hidden_fields"),
            redirect_complete: get("redirect_complete"),
            redirect_screened_out: get("redirect_screened_out"),
            redirect_closed: get("redirect_closed"),
            shuffle_from: get("shuffle_from"),
            shuffle_to: get("shuffle_to"),
            segment_hidden: get("segment_hidden"),
            variables: get("variables"),
            segment_variables: get("segment_variables"),
            endings: (0..MAX_ENDING_ROWS)
                .map(|at| EndingFields {
                    id: get(&format!("ending{at}.id")),
                    when: get(&format!("ending{at}.if")),
                    text: get(&format!("ending{at}.text")),
                    redirect: get(&format!("ending{at}.redirect")),
                })
                .filter(|e| !e.is_blank())
                .collect(),
            quiz_show_score: !get("quiz_show_score").is_empty(),
            quiz_show_answers: !get("quiz_show_answers").is_empty(),
        }
    }

    /// The endings' rows to draw: those typed, and a blank one to add another.
    fn ending_rows(&self) -> Vec<EndingFields> {
        let mut rows = self.endings.clone();
        if rows.len() < MAX_ENDING_ROWS {
            rows.push(EndingFields::default());
        }
        rows
    }

    /// The variables typed, one per line `id = expression` (a line without `=` is an id
    /// without an expression, refused by the check).
    fn variable_inputs(&self) -> Vec<crate::domain::definition::VariableInput> {
        self.variables
            .lines()
            .filter(|line| !line.trim().is_empty())
            .map(|line| {
                let (id, expression) = line.split_once('=').unwrap_or((line, ""));
                crate::domain::definition::VariableInput {
                    id: id.trim().to_owned(),
                    expression: expression.trim().to_owned(),
                    segment: names(&self.segment_variables)
                        .iter()
                        .any(|n| n == id.trim()),
                }
            })
            .collect()
    }

    /// The hidden fields' names typed, split at commas or spaces.
    fn hidden_names(&self) -> Vec<String> {
        names(&self.hidden_fields)
    }

    /// The survey-level part of the input, or errors by field.
    fn input(&self, zone: &Zone, errors: &mut BTreeMap<String, String>) -> SurveyInput {
        let closes_at = match self.closes_at.trim() {
            "" => None,
            local => match zone.instant(local) {
                Some(at) => at.format(&Rfc3339).ok(),
                None => {
                    errors.insert(
                        "closes_at".into(),
                        "Enter a date and a time, or leave both blank.".into(),
                    );
                    None
                }
            },
        };
        let response_limit = match self.response_limit.trim() {
            "" => None,
            text => {
                let limit = text.parse::<u64>().ok();
                if limit.is_none() {
                    errors.insert(
                        "response_limit".into(),
                        "Enter a whole number of responses, or leave it blank.".into(),
                    );
                }
                limit
            }
        };
        let resume_days = match self.resume_days.trim() {
            "" => None,
            text => {
                let days = text.parse::<u16>().ok();
                if days.is_none() {
                    errors.insert(
                        "resume_days".into(),
                        "Enter a whole number of days from 1 to 365, or leave it blank for 30."
                            .into(),
                    );
                }
                days
            }
        };
        let address = |typed: &str| Some(typed.trim().to_owned()).filter(|a| !a.is_empty());
        let typed = |t: &str| Some(t.trim().to_owned()).filter(|t| !t.is_empty());
        let page = |t: &str| t.trim().parse::<usize>().ok().filter(|n| *n >= 1);
        let randomize_pages = match (self.shuffle_from.trim(), self.shuffle_to.trim()) {
            ("", "") => None,
            (from, to) => match (page(from), page(to)) {
                (Some(from), Some(to)) => {
                    Some(crate::domain::arrangement::PageBlock(from - 1, to - 1))
                }
                _ => {
                    errors.insert(
                        "randomize_pages".into(),
                        "Enter the first and the last page of the run, or leave both blank.".into(),
                    );
                    None
                }
            },
        };
        SurveyInput {
            title: self.title.clone(),
            variables: self.variable_inputs(),
            segment_hidden: names(&self.segment_hidden),
            randomize_pages,
            endings: self
                .endings
                .iter()
                .map(|e| crate::domain::definition::EndingInput {
                    id: e.id.trim().to_owned(),
                    when: typed(&e.when),
                    text: typed(&e.text),
                    redirect: typed(&e.redirect),
                })
                .collect(),
            quiz: crate::domain::calculation::Quiz {
                show_score: self.quiz_show_score,
                show_answers: self.quiz_show_answers,
            },
            hidden_fields: self.hidden_names(),
            redirects: crate::domain::redirect::Redirects {
                complete: address(&self.redirect_complete),
                screened_out: address(&self.redirect_screened_out),
                closed: address(&self.redirect_closed),
            },
            layout: Some(match self.layout.as_str() {
                "one_per_screen" => ScreenLayout::OnePerScreen,
                _ => ScreenLayout::Pages,
            }),
            save_and_resume: self.save_and_resume,
            resume_days,
            keep_partial: self.keep_partial,
            description: Some(self.description.clone()),
            thank_you: Some(self.thank_you.clone()),
            closed_message: Some(self.closed_message.clone()),
            closes_at,
            response_limit,
            regions: self
                .regions
                .split(',')
                .filter(|name| !name.is_empty())
                .map(str::to_owned)
                .collect(),
            residency: match self.residency.as_str() {
                "region" => Residency::Region,
                _ => Residency::Home,
            },
            ..SurveyInput::default()
        }
    }
}

#[derive(Template)]
#[template(path = "tenant/designer.html")]
struct DesignerPage {
    csrf: String,
    role: Role,
    survey: Option<Arc<Survey>>,
    action: String,
    fields: SurveyFields,
    /// The tenant's time zone, which close times are entered in.
    zone: Zone,
    questions: Vec<QuestionEdit>,
    types: [(&'static str, &'static str); 13],
    errors: BTreeMap<String, String>,
    notice: Option<String>,
    /// The survey's public address, once it was published (for sharing).
    public_url: Option<String>,
    /// When the saved survey this form was made from was last changed (`edited_from`): a
    /// save made from an older one is a conflict, not an overwrite.
    edited_from: String,
    /// Whether a save was refused because the survey changed elsewhere meanwhile.
    conflict: bool,
    /// What the form holds that is not saved yet, in words (after a structural button).
    unsaved: Vec<String>,
    /// The installation's regions a survey may be answered in, as (name, label, whether the
    /// tenant's home); empty without a regions file, and the choice is not shown.
    regions: Vec<(String, String, bool)>,
    /// The saved survey's blocks (none for a new survey): a card that still holds its saved
    /// question is drawn folded to one line.
    saved: Vec<QuestionEdit>,
    /// The block a structural button just acted on, which stays unfolded.
    landed: Option<usize>,
}

impl DesignerPage {
    fn error(&self, field: &str) -> Option<String> {
        let message = self.errors.get(field)?;
        Some(problems::named(message, &self.questions))
    }

    fn ending_error(&self, index: &usize, field: &str) -> Option<String> {
        self.error(&format!("ending{index}.{field}"))
    }

    fn question_error(&self, index: &usize, field: &str) -> Option<String> {
        let message = self.errors.get(&format!("questions[{index}].{field}"))?;
        Some(problems::named(message, &self.questions))
    }

    /// Whether block `index` has a wrong field.
    fn has_error(&self, index: &usize) -> bool {
        self.errors
            .keys()
            .any(|key| problems::question_field(key).is_some_and(|(i, _)| i == *index))
    }

    /// The errors of a failed save, each linked to its field.
    fn problems(&self) -> Vec<Problem> {
        problems::problems(&self.errors, &self.questions)
    }

    /// Where the add button posts (see `landing`).
    fn add_landing(&self) -> String {
        self.landing("add", &0)
    }

    /// The address of the script a page embedding the survey loads to fit its frame: on this
    /// site (the survey's address's origin), or the static files' CDN when one is set.
    fn embed_script(&self) -> String {
        let script = crate::web::assets::url("embed.js");
        if !script.starts_with('/') {
            return script;
        }
        let origin = self
            .public_url
            .as_deref()
            .and_then(|url| url::Url::parse(url).ok())
            .map(|url| url.origin().ascii_serialization())
            .unwrap_or_default();
        format!("{origin}{script}")
    }

    /// Where an "add a question of this type here" button posts: the new block's text.
    fn insert_landing(&self, at: &usize) -> String {
        format!("{}#q{at}-text", self.action)
    }

    /// Where an "add a question here" button after the last block posts.
    fn end_landing(&self) -> String {
        self.insert_landing(&self.questions.len())
    }

    /// The earlier questions block `index` may recall, as (block, "N. text"). Only answers
    /// of earlier pages can be recalled; a save says so of one on the same page (a page
    /// break set since this page was drawn may make it an earlier page's).
    fn recallable(&self, index: &usize) -> Vec<(usize, String)> {
        self.questions
            .iter()
            .filter(|q| q.index < *index && !q.id.is_empty() && !q.removed)
            .map(|q| {
                let text: String = q.text.chars().take(60).collect();
                (q.index, format!("{}. {text}", self.number(&q.index)))
            })
            .collect()
    }

    /// Block `index`'s text as respondents' answers will fill it, each recall shown as its
    /// question's label (`[Rating]`), when it recalls anything.
    fn reads_as(&self, index: &usize) -> Option<String> {
        let text = &self.questions[*index].text;
        let labelled = crate::domain::recall::labelled(text, |id| {
            let question = self.questions.iter().find(|q| q.id == id.as_str())?;
            crate::domain::recall::label_of(&question.text)
        });
        (labelled != text.as_str()).then(|| labelled.into_owned())
    }

    /// Whether block `index` shows its page's jump on its card (not among its other rules):
    /// it starts a page of a survey of several, or its jump is set.
    fn jump_on_card(&self, index: &usize) -> bool {
        let block = &self.questions[*index];
        let starts = *index == 0 || block.logic.page_break;
        starts && (self.paged() || !block.logic.jump.question.is_empty())
    }

    /// Whether "Scores and calculations" is drawn open: something is set there, or wrong.
    fn calculations_open(&self) -> bool {
        let fields = &self.fields;
        !fields.variables.trim().is_empty()
            || !fields.endings.is_empty()
            || fields.quiz_show_score
            || fields.quiz_show_answers
            || self
                .errors
                .keys()
                .any(|key| key.starts_with("variables") || key.starts_with("ending"))
    }

    /// Whether "Panels and links" is drawn open: something is set there, or wrong.
    fn panel_links_open(&self) -> bool {
        let fields = &self.fields;
        let set = [
            &fields.hidden_fields,
            &fields.segment_hidden,
            &fields.redirect_complete,
            &fields.redirect_screened_out,
            &fields.redirect_closed,
        ];
        set.iter().any(|typed| !typed.trim().is_empty())
            || self.errors.keys().any(|key| {
                ["hidden_fields", "segment_hidden", "redirects"]
                    .iter()
                    .any(|field| key.starts_with(field))
            })
    }

    /// Whether block `index`'s card is drawn unfolded: it is new, changed since the save,
    /// wrong, or just acted on. A saved, untouched card folds to one line (a `<details>`, so
    /// opening it needs no script, and its fields are posted either way).
    fn unfolded(&self, index: &usize) -> bool {
        let block = &self.questions[*index];
        if block.new || self.landed == Some(*index) || self.has_error(index) {
            return true;
        }
        self.saved
            .iter()
            .find(|saved| !block.id.is_empty() && saved.id == block.id)
            .is_none_or(|saved| !unsaved::same_content(saved, block))
    }

    /// What a folded card says of its question besides its text: "Single choice · Required ·
    /// Shown only if …".
    fn folded_line(&self, index: &usize) -> String {
        let block = &self.questions[*index];
        let mut parts: Vec<String> = TYPES
            .iter()
            .filter(|(value, _)| *value == block.kind)
            .map(|(_, name)| (*name).to_owned())
            .collect();
        if block.required {
            parts.push("Required".into());
        }
        parts.extend(self.logic_sentences(index));
        parts.join(" \u{b7} ")
    }

    /// The number people see for block `index`: removed blocks are not counted.
    fn number(&self, index: &usize) -> usize {
        1 + self
            .questions
            .iter()
            .filter(|q| q.index < *index && !q.removed)
            .count()
    }

    /// What a block's rules do, in words: "Shown only if “Which session?” is “Evening”",
    /// "After this page: if “Do you like it?” is “Yes”, go to the end".
    fn logic_sentences(&self, index: &usize) -> Vec<String> {
        let block = &self.questions[*index];
        let named = |id: &str| {
            self.questions
                .iter()
                .find(|q| q.id == id)
                .map_or_else(|| id.to_owned(), |q| q.text.chars().take(60).collect())
        };
        let rule = |rule: &logic::RuleEdit| -> Option<String> {
            if rule.question.is_empty() || rule.question == KEEP {
                return None;
            }
            let test = TESTS
                .iter()
                .find(|(value, _)| *value == rule.test)
                .map_or("is", |(_, name)| name);
            let value = match rule.test.as_str() {
                "answered" | "not_answered" => String::new(),
                _ => format!(" \u{201c}{}\u{201d}", rule.value.trim()),
            };
            Some(format!(
                "\u{201c}{}\u{201d} {test}{value}",
                named(&rule.question)
            ))
        };
        let mut said = Vec::new();
        if let Some(shown) = rule(&block.logic.show) {
            said.push(format!("Shown only if {shown}"));
        }
        if let Some(jump) = rule(&block.logic.jump) {
            let to = match block.logic.jump_to.as_str() {
                "end" => "the end".to_owned(),
                page => page
                    .parse::<usize>()
                    .ok()
                    .and_then(|page| {
                        self.pages_after(index)
                            .into_iter()
                            .find(|(p, _)| *p == page)
                            .map(|(_, name)| name)
                    })
                    .unwrap_or_else(|| "the next page".into()),
            };
            said.push(format!("After this page: if {jump}, go to {to}"));
        }
        said
    }

    /// Where a structural button posts: the form's address and the control it will land on,
    /// so the page comes back scrolled there and focused without any script.
    /// `button` is `add` or the button's name before its block (`up` for `up-3`).
    fn landing(&self, button: &str, index: &usize) -> String {
        let count = self.questions.len();
        let value = match button {
            "add" => button.to_owned(),
            _ => format!("{button}-{index}"),
        };
        let anchor = Edit::parse(&value, count).map(|edit| edit.anchor(count));
        format!("{}{}", self.action, anchor.unwrap_or_default())
    }

    /// The question types using a group of fields, for the page's script.
    fn types_using(&self, group: &str) -> String {
        block::types_using(group)
    }

    /// The questions a rule of block `index` may test, as (id, "N. text"): for its display
    /// condition those before it, for the jump after the page it starts every question up to
    /// that page's end (what saving accepts). The rule's current question stays listed even
    /// when it no longer fits, so a save says so rather than dropping it silently.
    fn references_for(&self, index: &usize, jump: bool) -> Vec<(String, String)> {
        let block = &self.questions[*index];
        let (end, current) = match jump {
            true => (self.page_end(*index), &block.logic.jump.question),
            false => (*index, &block.logic.show.question),
        };
        self.questions
            .iter()
            .filter(|q| !q.id.is_empty() && !q.removed && (q.index < end || &q.id == current))
            .filter(|q| jump || q.index != *index)
            .map(|q| {
                let text: String = q.text.chars().take(60).collect();
                (q.id.clone(), format!("{}. {text}", q.index + 1))
            })
            .collect()
    }

    /// The questions before block `index` a page it starts can repeat over: `(value, label)`,
    /// each multiple choice as `over:ID` and each number as `times:ID` (and the one chosen,
    /// wherever it is, so it stays chosen while its problem is shown).
    fn loop_sources(&self, index: &usize) -> Vec<(String, String)> {
        let current = &self.questions[*index].logic.repeat;
        self.questions
            .iter()
            .filter(|q| !q.id.is_empty() && !q.removed)
            .filter_map(|q| {
                let text: String = q.text.chars().take(60).collect();
                let (value, label) = match q.kind.as_str() {
                    "multiple_choice" => (
                        format!("over:{}", q.id),
                        format!("For each option chosen in {}. {text}", q.index + 1),
                    ),
                    "numeric" => (
                        format!("times:{}", q.id),
                        format!("As many times as {}. {text} says", q.index + 1),
                    ),
                    _ => return None,
                };
                (q.index < *index || &value == current).then_some((value, label))
            })
            .collect()
    }

    /// The block after the last question of the page block `index` is on.
    fn page_end(&self, index: usize) -> usize {
        self.questions
            .iter()
            .find(|q| q.index > index && q.logic.page_break)
            .map_or(self.questions.len(), |q| q.index)
    }

    /// The number (from 1) of the page block `index` is on.
    fn page_number(&self, index: &usize) -> usize {
        1 + self
            .questions
            .iter()
            .filter(|q| q.index > 0 && q.index <= *index && q.logic.page_break)
            .count()
    }

    /// A page's name as owners read it: "Page 2: Regulars", or "Page 2" without a title.
    fn page_name(&self, index: &usize) -> String {
        let number = self.page_number(index);
        let title = self.questions[*index].logic.page_title.trim();
        match title.is_empty() {
            true => format!("Page {number}"),
            false => format!("Page {number}: {title}"),
        }
    }

    /// Whether the survey has more than one page (page headings are shown then).
    fn paged(&self) -> bool {
        self.questions
            .iter()
            .any(|q| q.index > 0 && q.logic.page_break)
    }

    /// Where the jump after block `index`'s page may go: each later page, as (page index
    /// from 0, its name).
    fn pages_after(&self, index: &usize) -> Vec<(usize, String)> {
        let here = self.page_number(index);
        self.questions
            .iter()
            .filter(|q| q.index > 0 && q.logic.page_break)
            .filter(|q| self.page_number(&q.index) > here)
            .map(|q| (self.page_number(&q.index) - 1, self.page_name(&q.index)))
            .collect()
    }

    /// The saved questions with known answers, as (id, "N. text", answers), for a rule's
    /// answer picker.
    fn value_groups(&self) -> Vec<(String, String, Vec<String>)> {
        self.questions
            .iter()
            .filter(|q| !q.id.is_empty() && !q.removed)
            .map(|q| {
                let text: String = q.text.chars().take(40).collect();
                (
                    q.id.clone(),
                    format!("{}. {text}", self.number(&q.index)),
                    q.values(),
                )
            })
            .filter(|(_, _, values)| !values.is_empty())
            .collect()
    }

    /// The values a rule may compare each saved question with, where they are a known few
    /// (options, stars, points), for the value field's suggestions.
    fn value_lists(&self) -> Vec<(String, Vec<String>)> {
        self.questions
            .iter()
            .filter(|q| !q.id.is_empty())
            .map(|q| (q.id.clone(), q.values()))
            .filter(|(_, values)| !values.is_empty())
            .collect()
    }

    /// The tests a rule may use.
    fn tests(&self) -> [(&'static str, &'static str); 7] {
        TESTS
    }

    /// The value of the select option that keeps logic made through the API.
    fn keep(&self) -> &'static str {
        KEEP
    }

    /// Whether region `name` is ticked: named by the survey, or home when it names none.
    fn hosts(&self, name: &str, home: &bool) -> bool {
        match self.fields.regions.is_empty() {
            true => *home,
            false => self.fields.regions.split(',').any(|ticked| ticked == name),
        }
    }
}

fn page(state: &AppState, signed_in: &SignedIn, survey: Option<Arc<Survey>>) -> DesignerPage {
    let regions = state.app.regions();
    let regions = regions
        .all()
        .map(|region| {
            let home = regions.is_here(&region.name);
            (region.name.to_string(), region.label.clone(), home)
        })
        .collect();
    let zone = signed_in.tenant.zone();
    let (fields, questions) = match &survey {
        Some(s) => (SurveyFields::of(s, &zone), QuestionEdit::all_of(s)),
        None => (SurveyFields::default(), vec![QuestionEdit::fresh(0)]),
    };
    let saved = match &survey {
        Some(_) => questions.clone(),
        None => Vec::new(),
    };
    DesignerPage {
        csrf: signed_in.session.csrf.clone(),
        role: signed_in.role,
        action: survey.as_ref().map_or("/tenant/surveys".into(), |s| {
            format!("/tenant/surveys/{}", s.slug)
        }),
        edited_from: survey.as_deref().map(edit_token).unwrap_or_default(),
        conflict: false,
        unsaved: Vec::new(),
        survey,
        fields,
        zone,
        questions,
        types: TYPES,
        errors: BTreeMap::new(),
        notice: None,
        public_url: None,
        regions,
        saved,
        landed: None,
    }
}

/// What a designer form carries to say which saved definition it was made from: a digest of
/// everything the designer edits (publishing or closing elsewhere is no conflict).
fn edit_token(survey: &Survey) -> String {
    use sha2::Digest;
    let mut edited = serde_json::to_value(survey).unwrap_or_default();
    if let Some(fields) = edited.as_object_mut() {
        for state in [
            "published",
            "was_published",
            "updated",
            "version",
            "created",
        ] {
            fields.remove(state);
        }
    }
    let digest = sha2::Sha256::digest(edited.to_string().as_bytes());
    digest[..12].iter().map(|b| format!("{b:02x}")).collect()
}

/// `GET /tenant/surveys/new`
pub async fn new(state: State, signed_in: AtLeast<Editor>) -> Reply {
    render(&page(&state, &signed_in, None))
}

/// Whether the editor was just saved.
#[derive(Deserialize)]
pub struct EditQuery {
    saved: Option<String>,
}

/// `GET /tenant/surveys/{slug}`
pub async fn edit(
    state: State,
    OwnSurvey { signed_in, survey }: OwnSurvey<Editor>,
    query: web::Query<EditQuery>,
    request: HttpRequest,
) -> Reply {
    let mut editor = page(&state, &signed_in, Some(survey.clone()));
    if survey.published || survey.was_published {
        editor.public_url = Some(state.survey_address(&request, &survey));
    }
    editor.notice = notice::take(&request, &state);
    if query.saved.is_some() {
        editor.notice = Some("Saved.".into());
    }
    notice::render_once(&editor, true)
}

/// A field of the posted form as the designer compares and stores it: browsers send a
/// textarea's lines ended by CR LF, stored texts end them by LF.
fn posted_text(form: &[(String, String)], name: &str) -> String {
    field(form, name).unwrap_or("").replace("\r\n", "\n")
}

/// Reads the posted form into question blocks and the button pressed.
fn posted(form: &[(String, String)]) -> (SurveyFields, Vec<QuestionEdit>, String) {
    let get = |name: &str| posted_text(form, name);
    let count: usize = get("count")
        .parse()
        .unwrap_or(0)
        .min(crate::domain::definition::MAX_QUESTIONS + 1);
    let questions = (0..count).map(|i| QuestionEdit::posted(i, get)).collect();
    (SurveyFields::posted(form), questions, get("action"))
}

/// The definition the blocks describe (blank blocks dropped), or errors by field.
fn input_of(
    fields: &SurveyFields,
    zone: &Zone,
    questions: &[QuestionEdit],
) -> Result<SurveyInput, BTreeMap<String, String>> {
    let mut errors = BTreeMap::new();
    let survey = fields.input(zone, &mut errors);
    // Each kept block: the page it starts (if any), whether it says anything about pages,
    // and its question.
    let mut inputs: Vec<(Option<PageInput>, bool, QuestionInput)> = Vec::new();
    for question in questions.iter().filter(|q| q.is_kept()) {
        let (starts, input) = question.input(inputs.is_empty(), &mut errors);
        inputs.push((starts, question.logic.shapes_pages(), input));
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    // Pages only when some block says anything about them: a survey of one page without
    // page texts or jumps is sent as a list of questions, as before pages existed.
    if !inputs.iter().any(|(_, shapes, _)| *shapes) {
        return Ok(SurveyInput {
            questions: inputs.into_iter().map(|(_, _, q)| q).collect(),
            ..survey
        });
    }
    let mut pages: Vec<PageInput> = Vec::new();
    for (starts, _, question) in inputs {
        pages.extend(starts);
        if let Some(last) = pages.last_mut() {
            last.questions.push(question);
        }
    }
    Ok(SurveyInput {
        pages: Some(pages),
        ..survey
    })
}

/// A problem's field as the form shows it: a page's question at its block (questions counted
/// over every page, then mapped to the blocks that were kept), a page's own problem at its
/// first question.
/// The form's field for a survey-level check's field that the form writes differently: the
/// hidden fields' and the variables' (one field each), an ending's (`ending0.if`).
fn calculation_field(field: &str) -> Option<String> {
    if field.starts_with("hidden_fields") {
        return Some("hidden_fields".into());
    }
    if field.starts_with("variables") {
        return Some("variables".into());
    }
    let (at, part) = field.strip_prefix("endings[")?.split_once(']')?;
    let part = part.strip_prefix('.').unwrap_or("id");
    Some(format!("ending{at}.{part}"))
}

fn form_field(field: &str, input: &SurveyInput, kept: &[usize]) -> String {
    let sizes: Vec<usize> = input
        .pages
        .iter()
        .flatten()
        .map(|page| page.questions.len())
        .collect();
    FieldPath::parse(field)
        .flattened(&sizes)
        .renumbered(kept)
        .to_string()
}

/// In the designer, a question whose type was changed becomes a new question (a new id):
/// answers and statistics are kept by id, and one id has one kind of answer for ever; a change
/// its answers allow (short and long text, a single choice and a drop-down) keeps it. (The API
/// refuses other changes instead, since its clients choose ids on purpose.)
fn renew_retyped(input: &mut SurveyInput, existing: &[Question]) {
    let paged = input
        .pages
        .iter_mut()
        .flatten()
        .flat_map(|p| p.questions.iter_mut());
    for question in input.questions.iter_mut().chain(paged) {
        let was = existing
            .iter()
            .find(|was| Some(was.id.as_str()) == question.id.as_deref());
        let carried = |was: &Question| {
            crate::domain::question::carries_over(
                was.kind.name(),
                was.kind.has_other(),
                &question.kind,
                question.other,
            )
        };
        if was.is_some_and(|was| !carried(was)) {
            question.id = None;
        }
    }
}

async fn save_form(
    state: &AppState,
    signed_in: &SignedIn,
    current: Option<Arc<Survey>>,
    payload: web::Payload,
) -> Reply {
    let form = signed_in.checked_form(payload, state).await?;
    let (fields, mut questions, action) = posted(&form);
    let edited_from = field(&form, "edited_from").unwrap_or("").to_owned();
    let mut editor = page(state, signed_in, current.clone());
    if let Some(edit) = Edit::parse(&action, questions.len()) {
        editor.landed = edit.lands_at(questions.len()).0;
        let done = edit.apply(&mut questions);
        editor.unsaved = unsaved::unsaved(&editor.fields, &editor.questions, &fields, &questions);
        editor.notice = Some(format!(
            "{done}. Not saved yet: press Save to keep your changes."
        ));
        // The form still stands on the version it was made from.
        editor.edited_from = edited_from;
        (editor.fields, editor.questions) = (fields, questions);
        return render(&editor);
    }
    // Saved elsewhere (another member, another tab, the API) since this form was made: the
    // owner's changes are shown again, unsaved, and a second Save replaces the other version.
    let current = match current {
        Some(survey) => {
            let fresh = service::fresh(&state.app, &survey.tenant, &survey.slug)
                .await?
                .ok_or(WebError::NotFound)?;
            if !edited_from.is_empty() && edited_from != edit_token(&fresh) {
                let mut editor = page(state, signed_in, Some(fresh.clone()));
                editor.conflict = true;
                (editor.fields, editor.questions) = (fields, questions);
                return render_with_status(StatusCode::CONFLICT, &editor);
            }
            Some(fresh)
        }
        None => None,
    };
    let kept: Vec<usize> = questions
        .iter()
        .filter(|q| q.is_kept())
        .map(|q| q.index)
        .collect();
    let existing = match &current {
        Some(survey) => service::known_questions(&state.app, survey).await?,
        None => Vec::new(),
    };
    let checked = match input_of(&fields, &editor.zone, &questions) {
        Ok(mut input) => {
            renew_retyped(&mut input, &existing);
            // The designer does not edit languages yet: a survey keeps those it has (and, its
            // translations being left out, its translations too).
            if let Some(current) = &current {
                input.languages = current.languages.iter().map(ToString::to_string).collect();
            }
            service::check(&state.app, &input, current.as_deref(), &existing)
                .await?
                .map_err(|errors| {
                    errors
                        .into_iter()
                        .map(|(field, message)| match calculation_field(&field) {
                            Some(field) => (field, message),
                            None => (form_field(&field, &input, &kept), message),
                        })
                        .collect()
                })
        }
        Err(errors) => Err(errors),
    };
    let definition = match checked {
        Ok(definition) => definition,
        Err(errors) => {
            editor.errors = errors;
            (editor.fields, editor.questions) = (fields, questions);
            return render_with_status(StatusCode::UNPROCESSABLE_ENTITY, &editor);
        }
    };
    let survey = match &current {
        Some(current) => service::revise(&state.app, current, definition).await?,
        None => {
            let created = service::create(&state.app, signed_in.actor(), definition).await?;
            let Some(created) = created else {
                editor.errors.insert(
                    "title".into(),
                    format!(
                        "You have {MAX_SURVEYS_PER_TENANT} surveys, the most a tenant may have: \
                         delete one you no longer need first."
                    ),
                );
                (editor.fields, editor.questions) = (fields, questions);
                return render_with_status(StatusCode::UNPROCESSABLE_ENTITY, &editor);
            };
            created
        }
    };
    Ok(HttpResponse::SeeOther()
        .insert_header((LOCATION, format!("/tenant/surveys/{}?saved=1", survey.slug)))
        .finish())
}

/// `POST /tenant/surveys`: creates a survey (a draft) from the designer form.
pub async fn create(state: State, signed_in: AtLeast<Editor>, payload: web::Payload) -> Reply {
    save_form(&state, &signed_in, None, payload).await
}

/// `POST /tenant/surveys/{slug}`: saves the designer form (or applies a structural button).
pub async fn save(
    state: State,
    OwnSurvey { signed_in, survey }: OwnSurvey<Editor>,
    payload: web::Payload,
) -> Reply {
    save_form(&state, &signed_in, Some(survey), payload).await
}

/// Back to the survey's designer.
fn back_to(survey: &Survey) -> HttpResponse {
    HttpResponse::SeeOther()
        .insert_header((LOCATION, format!("/tenant/surveys/{}", survey.slug)))
        .finish()
}

/// The question asked before a survey for known people is published: are its answers
/// anonymous?
#[derive(Template)]
#[template(path = "tenant/publish-anonymity.html")]
struct AnonymityPage {
    csrf: String,
    role: Role,
    survey: Arc<Survey>,
    /// Why the choice was not taken.
    problem: Option<String>,
}

/// `POST /tenant/surveys/{slug}/publish`. A survey for known people (by invitation, or with
/// participants) whose answers' anonymity is still open is published only once its owner
/// chose it (`anonymous=yes|no`): the form asks first.
pub async fn publish(state: State, posted: SurveyForm<Editor>) -> Reply {
    let (signed_in, mut survey, form) = posted.parts();
    if service::asks_anonymity(&state.app, &survey).await? {
        let ask = |problem: Option<String>, survey: Arc<Survey>| AnonymityPage {
            csrf: signed_in.session.csrf.clone(),
            role: signed_in.role,
            survey,
            problem,
        };
        let anonymous = match field(&form, "anonymous") {
            Some("yes") => true,
            Some("no") => false,
            Some(_) => {
                let problem = Some("Choose whether the answers are anonymous.".to_owned());
                return render_with_status(StatusCode::UNPROCESSABLE_ENTITY, &ask(problem, survey));
            }
            None => return render(&ask(None, survey)),
        };
        if anonymous != survey.anonymous {
            let access = survey.access;
            let set = service::set_access(&state.app, &survey, access, Some(anonymous)).await?;
            match set {
                Ok(changed) => survey = Arc::new(changed),
                Err(errors) => {
                    let said: Vec<String> = errors.into_values().collect();
                    let problem = Some(format!("Not published: {}.", said.join("; ")));
                    return render_with_status(
                        StatusCode::UNPROCESSABLE_ENTITY,
                        &ask(problem, survey),
                    );
                }
            }
        }
    }
    match service::publish(&state.app, signed_in.actor(), &survey).await {
        // Published all the same: a text not translated shows in the default language.
        Ok(published) => Ok(match published.missing_translations().as_slice() {
            [] => back_to(&published),
            missing => {
                let said: Vec<String> = missing
                    .iter()
                    .map(|(language, lacking, of)| {
                        format!(
                            "{} ({language}) lacks {lacking} of {of} texts",
                            crate::i18n::language_name(language.as_str())
                        )
                    })
                    .collect();
                let text = format!(
                    "Published. {}: respondents in those languages read those texts in the default language.",
                    said.join("; ")
                );
                notice::redirect(
                    &state,
                    &format!("/tenant/surveys/{}", published.slug),
                    &text,
                )
            }
        }),
        Err(service::PublishError::Incomplete(problem)) => {
            let mut editor = page(&state, &signed_in, Some(survey));
            editor.errors.insert(
                "questions".into(),
                format!("Add a question first: {problem}."),
            );
            render_with_status(StatusCode::UNPROCESSABLE_ENTITY, &editor)
        }
        Err(service::PublishError::Store(error)) => Err(error.into()),
    }
}

/// `POST /tenant/surveys/{slug}/unpublish`
pub async fn unpublish(state: State, posted: SurveyForm<Editor>) -> Reply {
    let (signed_in, survey, _) = posted.parts();
    let unpublished = service::unpublish(&state.app, signed_in.actor(), &survey).await?;
    Ok(back_to(&unpublished))
}

#[derive(Template)]
#[template(path = "tenant/delete.html")]
struct DeletePage {
    csrf: String,
    role: Role,
    survey: Arc<Survey>,
    /// Its counted answers (`None` when its summary cannot be read).
    answers: Option<u64>,
    error: Option<String>,
}

async fn delete_page(
    state: &AppState,
    signed_in: &SignedIn,
    survey: Arc<Survey>,
    error: Option<String>,
) -> Result<DeletePage, WebError> {
    let answers = crate::service::results::counted(&state.app, &survey)
        .await
        .ok();
    Ok(DeletePage {
        csrf: signed_in.session.csrf.clone(),
        role: signed_in.role,
        survey,
        answers,
        error,
    })
}

/// `GET /tenant/surveys/{slug}/delete`: asks first, naming what will be lost.
pub async fn confirm_delete(
    state: State,
    OwnSurvey { signed_in, survey }: OwnSurvey<Editor>,
) -> Reply {
    render(&delete_page(&state, &signed_in, survey, None).await?)
}

/// `POST /tenant/surveys/{slug}/delete`: the survey and all its answers, once its title is
/// typed to confirm.
pub async fn delete(state: State, posted: SurveyForm<Editor>) -> Reply {
    let (signed_in, survey, form) = posted.parts();
    if field(&form, "confirm").map(str::trim) != Some(survey.title.trim()) {
        let error = Some("Type the survey's title exactly as it is shown to delete it.".into());
        let page = delete_page(&state, &signed_in, survey, error).await?;
        return render_with_status(StatusCode::UNPROCESSABLE_ENTITY, &page);
    }
    service::delete(&state.app, signed_in.actor(), &survey).await?;
    Ok(notice::redirect(
        &state,
        "/tenant",
        &format!("Survey \"{}\" deleted, with all its answers.", survey.title),
    ))
}

/// `POST /tenant/surveys/{slug}/duplicate`: a new draft with the same questions, pages, logic
/// and texts, titled "Copy of ...", opened in the designer.
pub async fn duplicate(state: State, posted: SurveyForm<Editor>) -> Reply {
    let (signed_in, survey, _) = posted.parts();
    match service::duplicate(&state.app, signed_in.actor(), &survey).await?? {
        Some(copy) => Ok(notice::redirect(
            &state,
            &format!("/tenant/surveys/{}", copy.slug),
            &format!(
                "Survey duplicated: this is \"{}\", a draft of its own with no answers.",
                copy.title
            ),
        )),
        None => Ok(notice::redirect(
            &state,
            &format!("/tenant/surveys/{}", survey.slug),
            &format!(
                "Not duplicated: you have {MAX_SURVEYS_PER_TENANT} surveys, the most a tenant \
                 may have. Delete one you no longer need first."
            ),
        )),
    }
}
