//! Sending a respondent on to the survey's redirect address (a panel's return link) instead
//! of its own page, when their answer is stored, a full quota screens them out, or the
//! survey is closed. The address is filled and encoded by the domain (`domain::redirect`).

use std::collections::BTreeMap;

use actix_web::HttpResponse;
use actix_web::http::header::LOCATION;

use crate::domain::calculation::Ending;
use crate::domain::hidden::HiddenValues;
use crate::domain::redirect;
use crate::domain::{AnswerValue, QuestionId, Reference, Survey};

/// A 303 to `address` with its recalls filled from the respondent's hidden fields, answers
/// and reference (blank where there is none).
pub(super) fn to(
    address: &str,
    hidden: &HiddenValues,
    values: &BTreeMap<QuestionId, AnswerValue>,
    reference: Option<Reference>,
) -> HttpResponse {
    see_other(filled(address, hidden, values, reference))
}

/// `address` with its recalls filled (see `to`).
fn filled(
    address: &str,
    hidden: &HiddenValues,
    values: &BTreeMap<QuestionId, AnswerValue>,
    reference: Option<Reference>,
) -> String {
    let reference = reference.map(|r| r.to_string()).unwrap_or_default();
    let answer = |id: &QuestionId| Some(values.get(id)?.to_text(|n| n.to_string()));
    redirect::fill(address, hidden, answer, &reference)
}

fn see_other(location: String) -> HttpResponse {
    HttpResponse::SeeOther()
        .insert_header((LOCATION, location))
        .finish()
}

/// Where a respondent whose whole response is `values` goes once it is sent under
/// `reference`, when the survey sends them on: filled before the answer is handed over, so
/// the answers need not be kept beside it.
pub(super) struct Onward {
    complete: Option<String>,
    screened_out: Option<String>,
}

impl Onward {
    pub(super) fn of(
        survey: &Survey,
        ending: Option<&Ending>,
        hidden: &HiddenValues,
        values: &BTreeMap<QuestionId, AnswerValue>,
        reference: Reference,
    ) -> Self {
        let fill = |address: &Option<String>| {
            let address = address.as_deref()?;
            Some(filled(address, hidden, values, Some(reference)))
        };
        Self {
            // The ending's own address, if it has one, else the survey's.
            complete: match ending.and_then(|e| e.redirect.clone()) {
                Some(address) => fill(&Some(address)),
                None => fill(&survey.redirects.complete),
            },
            screened_out: fill(&survey.redirects.screened_out),
        }
    }

    /// The redirect once the answer is stored, if the survey has one.
    pub(super) fn complete(self) -> Option<HttpResponse> {
        self.complete.map(see_other)
    }

    /// The redirect once a full quota ended the response, if the survey has one.
    pub(super) fn screened_out(self) -> Option<HttpResponse> {
        self.screened_out.map(see_other)
    }
}
