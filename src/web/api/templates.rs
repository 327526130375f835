//! `/api/v1/templates`: the gallery's ready surveys, each in the site's eight languages. A
//! draft is made from one with `POST /api/v1/surveys {"template": ID}` (see `surveys::create`).

use actix_web::{HttpResponse, web};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::{IntoParams, ToSchema};

use super::{ApiCaller, ApiError};
use crate::domain::Question;
use crate::domain::definition::SurveyInput;
use crate::domain::template::{self, LANGUAGES, Template, language};
use crate::web::roles::Viewer;

/// The gallery.
#[derive(Serialize, ToSchema)]
pub struct TemplateList {
    /// Every template, in the gallery's order.
    templates: Vec<TemplateDocument>,
}

/// One template, its texts in the language asked for.
#[derive(Serialize, ToSchema)]
pub struct TemplateDocument {
    /// Its id, for `POST /api/v1/surveys {"template": ID}`.
    id: String,
    /// Its name.
    title: String,
    /// What it is for.
    description: String,
    /// The languages it is written in (a survey is made in one of them).
    languages: Vec<&'static str>,
    /// What it asks, as a survey made from it would, every page's questions together.
    #[schema(value_type = Vec<Question>)]
    questions: Vec<Question>,
}

/// The language asked for.
#[derive(Deserialize, IntoParams)]
pub struct TemplateQuery {
    /// The language of the texts: one of `en`, `de`, `fr`, `es`, `pt`, `pl`, `ja`, `ar`
    /// (English when absent).
    language: Option<String>,
}

/// A survey made from a template, as `POST /api/v1/surveys` takes it.
#[derive(Deserialize, ToSchema)]
pub struct FromTemplate {
    /// The template's id (`nps`; see `GET /api/v1/templates`).
    template: String,
    /// Its title, instead of the template's (1 to 200 characters).
    #[serde(default)]
    title: Option<String>,
    /// The survey's language: one of `en`, `de`, `fr`, `es`, `pt`, `pl`, `ja`, `ar`
    /// (English when absent). Other languages can be added on its Languages tab.
    #[serde(default)]
    language: Option<String>,
}

/// What a language outside the eight is told.
fn unknown_language() -> String {
    format!(
        "templates are written in {}: use one of these",
        LANGUAGES.join(", ")
    )
}

/// The template language asked for, English when none is.
fn language_asked(asked: Option<&str>, field: &str) -> Result<&'static str, ApiError> {
    match asked {
        None => Ok("en"),
        Some(tag) => language(tag).ok_or_else(|| ApiError::Invalid {
            reason: "no template is written in that language".into(),
            fields: [(field.to_owned(), unknown_language())].into(),
        }),
    }
}

/// `GET /api/v1/templates?language=de`: `{"templates": [{"id", "title", "description",
/// "languages", "questions"}]}`.
#[utoipa::path(get, path = "/api/v1/templates", operation_id = "list_templates",
    summary = "List the templates a survey can be made from", tag = "surveys",
    params(TemplateQuery),
    responses(
        (status = 200, description = "Every template, in the language asked for", body = TemplateList),
        (status = 422, description = "No template is written in that language", body = super::error::ErrorBody),
    ))]
pub async fn list(
    _caller: ApiCaller<Viewer>,
    query: web::Query<TemplateQuery>,
) -> Result<HttpResponse, ApiError> {
    let language = language_asked(query.language.as_deref(), "language")?;
    let templates = template::all()
        .iter()
        .map(|template| TemplateDocument {
            id: template.id.clone(),
            title: template.title(language),
            description: template.description(language),
            languages: LANGUAGES.to_vec(),
            questions: template.definition(language).questions,
        })
        .collect();
    Ok(HttpResponse::Ok().json(TemplateList { templates }))
}

/// Whether a body for `POST /api/v1/surveys` asks for a template rather than giving a
/// definition.
pub fn asks_for_template(body: &Value) -> bool {
    body.get("template").is_some()
}

/// The definition a body `{"template": ID, "title"?, "language"?}` asks for: the template in
/// that language, with that title.
pub fn definition_asked(body: Value) -> Result<SurveyInput, ApiError> {
    let unknown: std::collections::BTreeMap<String, String> = body
        .as_object()
        .into_iter()
        .flat_map(|fields| fields.keys())
        .filter(|key| !["template", "title", "language"].contains(&key.as_str()))
        .map(|key| {
            (
                key.clone(),
                "a survey made from a template takes only \"template\", \"title\" and \
                 \"language\": change the rest once it is made"
                    .to_owned(),
            )
        })
        .collect();
    if !unknown.is_empty() {
        return Err(invalid(unknown));
    }
    let asked: FromTemplate = serde_json::from_value(body)
        .map_err(|error| ApiError::BadRequest(format!("invalid JSON body: {error}")))?;
    let template: &Template = template::find(asked.template.trim()).ok_or_else(|| {
        invalid(
            [(
                "template".to_owned(),
                format!(
                    "no template is called {:?}: GET /api/v1/templates lists them",
                    asked.template
                ),
            )]
            .into(),
        )
    })?;
    let language = language_asked(asked.language.as_deref(), "language")?;
    let mut input = template.input(language);
    if let Some(title) = asked.title {
        input.title = title;
    }
    Ok(input)
}

fn invalid(fields: std::collections::BTreeMap<String, String>) -> ApiError {
    ApiError::Invalid {
        reason: "the survey cannot be made from that template".into(),
        fields,
    }
}
