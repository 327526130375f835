//! Importing a survey made elsewhere: an XLSForm workbook or a LimeSurvey survey structure
//! uploaded, read, and shown as what the draft will hold (its questions, and everything left
//! out with the reason) before the owner decides to create it.

use actix_web::HttpResponse;
use actix_web::http::StatusCode;
use actix_web::http::header::LOCATION;
use askama::Template;

use super::session::AtLeast;
use super::survey_form::{MemberForm, MemberSheet};
use crate::domain::definition::SurveyInput;
use crate::domain::definition::localized::LocalizedInput;
use crate::domain::member::Role;
use crate::domain::survey::MAX_SURVEYS_PER_TENANT;
use crate::export::limesurvey;
use crate::export::xlsform::{self, Skipped};
use crate::service::surveys as service;
use crate::web::forms::field;
use crate::web::render::{render, render_with_status};
use crate::web::roles::Editor;
use crate::web::{Reply, State, WebError};

/// Largest workbook the site takes (as the API does).
const MAX_WORKBOOK_BYTES: usize = crate::web::api::MAX_WORKBOOK_BODY;

#[derive(Template)]
#[template(path = "tenant/import.html")]
struct ImportPage {
    csrf: String,
    role: Role,
    /// Why the last upload or draft was refused.
    problems: Vec<String>,
    /// What a form read holds, before the draft is made.
    preview: Option<Preview>,
}

/// What the draft will hold.
struct Preview {
    title: String,
    /// Each question: its number, text and type.
    questions: Vec<(usize, String, &'static str)>,
    pages: usize,
    skipped: Vec<Skipped>,
    /// What the left-out list numbers: a workbook's `Row`, a LimeSurvey file's `Question`.
    by: &'static str,
    /// The definition read, as the API takes it (posted back to create the draft).
    definition: String,
}

fn page(
    signed_in: &AtLeast<Editor>,
    problems: Vec<String>,
    preview: Option<Preview>,
) -> ImportPage {
    ImportPage {
        csrf: signed_in.session.csrf.clone(),
        role: signed_in.role,
        problems,
        preview,
    }
}

/// `GET /tenant/surveys/import`: the upload form.
pub async fn show(signed_in: AtLeast<Editor>) -> Reply {
    render(&page(&signed_in, Vec::new(), None))
}

/// `POST /tenant/surveys/import` (multipart): the workbook read and shown, nothing made yet.
pub async fn preview(posted: MemberSheet<Editor, MAX_WORKBOOK_BYTES>) -> Reply {
    let MemberSheet { signed_in, sent } = posted;
    let refuse = |problem: String| {
        render_with_status(
            StatusCode::UNPROCESSABLE_ENTITY,
            &page(&signed_in, vec![problem], None),
        )
    };
    let bytes = match sent.import_file() {
        Ok(bytes) => bytes.clone(),
        Err(problem) => return refuse(problem),
    };
    // A LimeSurvey structure is XML; an XLSForm workbook is a zip archive.
    let limesurvey = is_xml(&bytes);
    let read = actix_web::web::block(move || match limesurvey {
        true => limesurvey::read(&bytes).map_err(|problem| {
            format!("This file cannot be read as a LimeSurvey survey structure: {problem}.")
        }),
        false => xlsform::read(&bytes)
            .map_err(|problem| format!("This file cannot be read as an XLSForm: {problem}.")),
    })
    .await
    .map_err(|error| WebError::Internal(format!("reading an import: {error}")))?;
    let imported = match read {
        Ok(imported) => imported,
        Err(problem) => return refuse(problem),
    };
    let input = match input_of(&imported.definition) {
        Ok(input) => input,
        Err(problem) => return refuse(problem),
    };
    let checked = input.check(&[]);
    let definition = serde_json::to_string(&imported.definition)
        .map_err(|error| WebError::Internal(format!("an imported definition: {error}")))?;
    let (questions, pages) = match &checked {
        Ok(checked) => (
            checked
                .questions
                .iter()
                .enumerate()
                .map(|(at, q)| {
                    // Recalls read as their question's label, as everywhere outside the form.
                    let label = |id: &crate::domain::QuestionId| {
                        let recalled = checked.questions.iter().find(|q| q.id == *id)?;
                        crate::domain::recall::label_of(&recalled.text)
                    };
                    let text = crate::domain::recall::labelled(&q.text, label).into_owned();
                    (at + 1, text, super::designer::type_label(q.kind.name()))
                })
                .collect(),
            checked.layout.len().max(1),
        ),
        Err(_) => (Vec::new(), 0),
    };
    let problems = match checked {
        Ok(_) => Vec::new(),
        Err(errors) => errors
            .into_iter()
            .map(|(field, message)| format!("{field}: {message}"))
            .collect(),
    };
    let preview = Preview {
        by: if limesurvey { "Question" } else { "Row" },
        title: input.title.clone(),
        questions,
        pages,
        skipped: imported.skipped,
        definition,
    };
    let status = match problems.is_empty() {
        true => StatusCode::OK,
        false => StatusCode::UNPROCESSABLE_ENTITY,
    };
    render_with_status(status, &page(&signed_in, problems, Some(preview)))
}

/// `POST /tenant/surveys/import/create`: the draft made from the definition the preview
/// showed (checked again, as any definition is).
pub async fn create(state: State, posted: MemberForm<Editor>) -> Reply {
    let MemberForm { signed_in, form } = posted;
    let definition: serde_json::Value = field(&form, "definition")
        .and_then(|json| serde_json::from_str(json).ok())
        .ok_or_else(|| WebError::BadRequest("The imported form was not sent back.".into()))?;
    let refuse = |problems: Vec<String>| {
        render_with_status(
            StatusCode::UNPROCESSABLE_ENTITY,
            &page(&signed_in, problems, None),
        )
    };
    let input = match input_of(&definition) {
        Ok(input) => input,
        Err(problem) => return refuse(vec![problem]),
    };
    let checked = service::check(&state.app, &input, None, &[]).await?;
    let definition = match checked {
        Ok(definition) => definition,
        Err(errors) => {
            return refuse(
                errors
                    .into_iter()
                    .map(|(f, m)| format!("{f}: {m}"))
                    .collect(),
            );
        }
    };
    let Some(survey) = service::create(&state.app, signed_in.actor(), definition).await? else {
        return refuse(vec![format!(
            "You have {MAX_SURVEYS_PER_TENANT} surveys, the most a tenant may have: delete one \
             you no longer need first."
        )]);
    };
    Ok(HttpResponse::SeeOther()
        .insert_header((LOCATION, format!("/tenant/surveys/{}?saved=1", survey.slug)))
        .finish())
}

/// Whether an upload is XML (a LimeSurvey file): its first byte past a byte order mark and
/// spaces is `<`.
fn is_xml(bytes: &[u8]) -> bool {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    bytes.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'<')
}

/// A definition as the API reads it (texts given per language included).
fn input_of(definition: &serde_json::Value) -> Result<SurveyInput, String> {
    serde_json::from_value::<LocalizedInput>(definition.clone())
        .map(|input| input.0)
        .map_err(|error| format!("The form read does not make a survey: {error}."))
}
