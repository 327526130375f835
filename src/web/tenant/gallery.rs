//! The template gallery: ready surveys to start from, each previewed before use and made into
//! a draft in the language the owner picks (the same templates as `GET /api/v1/templates`).

use std::sync::Arc;

use actix_web::web;
use askama::Template;
use serde::Deserialize;

use super::designer::type_label;
use super::notice;
use super::session::AtLeast;
use super::survey_form::MemberForm;
use crate::domain::Tenant;
use crate::domain::definition::Definition;
use crate::domain::language::LanguageTag;
use crate::domain::member::Role;
use crate::domain::recall;
use crate::domain::survey::MAX_SURVEYS_PER_TENANT;
use crate::domain::template::{self, LANGUAGES};
use crate::service::surveys as service;
use crate::web::forms::field;
use crate::web::roles::Editor;
use crate::web::{Reply, State, WebError, render};

/// A template language offered: its tag, its name in itself, and whether it is the one shown.
type LanguageChoice = (&'static str, String, bool);

/// One card of the gallery.
struct Card {
    id: String,
    title: String,
    description: String,
    questions: usize,
    pages: usize,
}

#[derive(Template)]
#[template(path = "tenant/templates.html")]
struct GalleryPage {
    csrf: String,
    tenant: Arc<Tenant>,
    role: Role,
    language: &'static str,
    languages: Vec<LanguageChoice>,
    cards: Vec<Card>,
}

/// One question as the preview shows it.
struct QuestionPreview {
    number: usize,
    text: String,
    kind: &'static str,
    required: bool,
    /// Its options, a matrix's rows, or a scale's points, as a respondent sees them.
    choices: Vec<String>,
    /// A matrix's columns.
    columns: Vec<String>,
}

/// One page as the preview shows it.
struct PagePreview {
    title: Option<String>,
    questions: Vec<QuestionPreview>,
}

#[derive(Template)]
#[template(path = "tenant/template.html")]
struct PreviewPage {
    csrf: String,
    tenant: Arc<Tenant>,
    role: Role,
    id: String,
    title: String,
    description: String,
    language: &'static str,
    languages: Vec<LanguageChoice>,
    pages: Vec<PagePreview>,
    /// Whether a page's jumps may skip the rest (said beside the preview).
    has_logic: bool,
}

/// The language asked for in the address.
#[derive(Deserialize)]
pub struct LanguageQuery {
    language: Option<String>,
}

/// The template language asked for; English for none or one no template is written in.
fn language_of(asked: Option<&str>) -> &'static str {
    asked.and_then(template::language).unwrap_or("en")
}

fn languages(shown: &str) -> Vec<LanguageChoice> {
    LANGUAGES
        .iter()
        .map(|tag| {
            let name = LanguageTag::parse(tag)
                .ok()
                .and_then(|tag| tag.autonym())
                .map_or_else(|| (*tag).to_owned(), capitalized);
            (*tag, name, *tag == shown)
        })
        .collect()
}

/// A language's name as a list shows it (`Français`, where ISO 639 writes `français`).
fn capitalized(name: &str) -> String {
    let mut letters = name.chars();
    letters.next().map_or_else(String::new, |first| {
        first.to_uppercase().chain(letters).collect()
    })
}

/// How many pages a definition has (one when it names none).
fn page_count(definition: &Definition) -> usize {
    definition.layout.len().max(1)
}

/// `GET /tenant/templates`
pub async fn show(signed_in: AtLeast<Editor>, query: web::Query<LanguageQuery>) -> Reply {
    let language = language_of(query.language.as_deref());
    let cards = template::all()
        .iter()
        .map(|template| {
            let definition = template.definition(language);
            Card {
                id: template.id.clone(),
                title: template.title(language),
                description: template.description(language),
                questions: definition.questions.len(),
                pages: page_count(&definition),
            }
        })
        .collect();
    render(&GalleryPage {
        csrf: signed_in.session.csrf.clone(),
        tenant: signed_in.tenant.clone(),
        role: signed_in.role,
        language,
        languages: languages(language),
        cards,
    })
}

/// `GET /tenant/templates/{id}`: what a template asks, page by page.
pub async fn preview(
    signed_in: AtLeast<Editor>,
    id: web::Path<String>,
    query: web::Query<LanguageQuery>,
) -> Reply {
    let template = template::find(&id).ok_or(WebError::NotFound)?;
    let language = language_of(query.language.as_deref());
    let definition = template.definition(language);
    let label = |text: &str| {
        recall::labelled(text, |id| {
            let question = definition.questions.iter().find(|q| &q.id == id)?;
            recall::label_of(&question.text)
        })
        .into_owned()
    };
    let starts: Vec<usize> = match definition.layout.is_empty() {
        true => vec![0],
        false => definition.layout.iter().map(|page| page.start).collect(),
    };
    let mut pages = Vec::new();
    for (index, start) in starts.iter().enumerate() {
        let end = starts
            .get(index + 1)
            .copied()
            .unwrap_or(definition.questions.len());
        let questions = definition
            .questions
            .get(*start..end)
            .unwrap_or_default()
            .iter()
            .enumerate()
            .map(|(offset, question)| {
                let (choices, columns) = match &question.kind {
                    crate::domain::QuestionKind::Matrix { rows, columns } => {
                        (rows.clone(), columns.clone())
                    }
                    kind => match kind.points() {
                        Some(points) => (points.map(|n| n.to_string()).collect(), Vec::new()),
                        None => (kind.options().to_vec(), Vec::new()),
                    },
                };
                QuestionPreview {
                    number: start + offset + 1,
                    text: label(&question.text),
                    kind: type_label(question.kind.name()),
                    required: question.required,
                    choices,
                    columns,
                }
            })
            .collect();
        pages.push(PagePreview {
            title: definition
                .layout
                .get(index)
                .and_then(|page| page.title.clone()),
            questions,
        });
    }
    render(&PreviewPage {
        csrf: signed_in.session.csrf.clone(),
        tenant: signed_in.tenant.clone(),
        role: signed_in.role,
        id: template.id.clone(),
        title: template.title(language),
        description: template.description(language),
        language,
        languages: languages(language),
        has_logic: definition.layout.iter().any(|page| !page.jumps.is_empty()),
        pages,
    })
}

/// `POST /tenant/templates/{id}`: a draft made from the template, opened in the designer.
pub async fn create(state: State, posted: MemberForm<Editor>, id: web::Path<String>) -> Reply {
    let MemberForm { signed_in, form } = posted;
    let template = template::find(&id).ok_or(WebError::NotFound)?;
    let language = language_of(field(&form, "language"));
    let mut input = template.input(language);
    if let Some(title) = field(&form, "title")
        .map(str::trim)
        .filter(|t| !t.is_empty())
    {
        title.clone_into(&mut input.title);
    }
    let back = format!("/tenant/templates/{}?language={language}", template.id);
    let definition = match service::check(&state.app, &input, None, &[]).await? {
        Ok(definition) => definition,
        Err(problems) => {
            let said: Vec<String> = problems.values().cloned().collect();
            return Ok(notice::redirect(
                &state,
                &back,
                &format!("Not made: {}.", said.join("; ")),
            ));
        }
    };
    match service::create(&state.app, signed_in.actor(), definition).await? {
        Some(survey) => Ok(notice::redirect(
            &state,
            &format!("/tenant/surveys/{}", survey.slug),
            &format!(
                "Made from the template: \"{}\" is a draft of your own. Change anything, \
                 preview it, then publish.",
                survey.title
            ),
        )),
        None => Ok(notice::redirect(
            &state,
            &back,
            &format!(
                "Not made: you have {MAX_SURVEYS_PER_TENANT} surveys, the most a tenant may \
                 have. Delete one you no longer need first."
            ),
        )),
    }
}
