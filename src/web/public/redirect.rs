//! Sending a respondent on to the survey's redirect address (a panel's return link) instead
//! of its own page, when their answer is stored, a full quota screens them out, or the
//! survey is closed. The address is filled and encoded by the domain (`domain::redirect`).

use std::collections::BTreeMap;

use actix_web::HttpResponse;
use actix_web::http::header::LOCATION;

use crate::domain::hidden::HiddenValues;
use crate::domain::redirect;
use crate::domain::{AnswerValue, QuestionId, Reference};

/// A 303 to `address` with its recalls filled from the respondent's hidden fields, answers
/// and reference (blank where there is none).
pub(super) fn to(
    address: &str,
    hidden: &HiddenValues,
    values: &BTreeMap<QuestionId, AnswerValue>,
    reference: Option<Reference>,
) -> HttpResponse {
    let reference = reference.map(|r| r.to_string()).unwrap_or_default();
    let answer = |id: &QuestionId| Some(values.get(id)?.to_text(|n| n.to_string()));
    let filled = redirect::fill(address, hidden, answer, &reference);
    HttpResponse::SeeOther()
        .insert_header((LOCATION, filled))
        .finish()
}
