//! Deleting responses from the tenant site: one from its page, or several ticked in the list,
//! always after a confirmation page that shows what goes. The deletion is recorded (who, when,
//! which reference) and queued; a worker takes the responses out of every figure, list and
//! download (see `worker::deletions`).

use crate::service::responses;
use crate::web::tenant::survey_form::SurveyForm;
use std::sync::Arc;

use askama::Template;

use super::notice;
use super::results::{ResponseRow, response_row};
use crate::domain::member::Role;
use crate::domain::{Reference, Survey};
use crate::service::responses::MAX_DELETIONS_PER_REQUEST;
use crate::web::forms::field;
use crate::web::roles::Editor;
use crate::web::{Reply, State, WebError, render};

#[derive(Template)]
#[template(path = "tenant/delete-responses.html")]
struct ConfirmPage {
    csrf: String,
    role: Role,
    survey: Arc<Survey>,
    rows: Vec<ResponseRow>,
}

/// The references a form names (`reference`, repeated), in order, without repeats.
fn references(form: &[(String, String)]) -> Result<Vec<Reference>, WebError> {
    let mut references: Vec<Reference> = Vec::new();
    for (name, value) in form {
        if name != "reference" {
            continue;
        }
        let reference =
            value.trim().parse().map(Reference).map_err(|_| {
                WebError::BadRequest(format!("\"{value}\" is not a reference number"))
            })?;
        if !references.contains(&reference) {
            references.push(reference);
        }
    }
    if references.len() > MAX_DELETIONS_PER_REQUEST {
        return Err(WebError::BadRequest(format!(
            "At most {MAX_DELETIONS_PER_REQUEST} responses can be deleted at once."
        )));
    }
    Ok(references)
}

/// `POST /tenant/surveys/{slug}/responses/delete`: without `confirm=yes`, the confirmation
/// page for the responses named; with it, their deletion.
pub async fn delete(state: State, posted: SurveyForm<Editor>) -> Reply {
    let (signed_in, survey, form) = posted.parts();
    let list = format!("/tenant/surveys/{}/responses", survey.slug);
    let asked = references(&form)?;
    if asked.is_empty() {
        return Ok(notice::redirect(
            &state,
            &list,
            "Tick the responses to delete first.",
        ));
    }
    if field(&form, "confirm") != Some("yes") {
        let answers = responses::answers(&state.app, &survey, &asked).await?;
        let rows: Vec<ResponseRow> = answers
            .iter()
            .map(|answer| response_row(&survey, answer))
            .collect();
        if rows.is_empty() {
            return Err(WebError::NotFound);
        }
        return render(&ConfirmPage {
            csrf: signed_in.session.csrf.clone(),
            role: signed_in.role,
            survey,
            rows,
        });
    }
    let deleted = responses::delete(&state.app, signed_in.actor(), &survey, &asked).await?;
    let (counted, waiting) = (deleted.counted, deleted.waiting);
    let mut text = match counted.len() {
        0 => "Nothing was deleted.".to_owned(),
        1 => format!(
            "Response {} deleted. The summary and downloads leave it out in a moment.",
            counted[0]
        ),
        n => {
            format!("{n} responses deleted. The summary and downloads leave them out in a moment.")
        }
    };
    if !waiting.is_empty() {
        text.push_str(&format!(
            " {} not counted yet: delete {} again in a moment.",
            match waiting.len() {
                1 => "One was".to_owned(),
                n => format!("{n} were"),
            },
            if waiting.len() == 1 { "it" } else { "them" }
        ));
    }
    Ok(notice::redirect(&state, &list, &text))
}
