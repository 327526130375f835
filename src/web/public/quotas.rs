//! Quotas as a respondent meets them: sending claims a place in each quota the answers meet
//! (exactly, across processes: `stores::quotas`); a full quota ends the respondent politely
//! with its message and the answer is not kept (or, if the owner chose, it is kept and marked
//! over the quota). A page that already decides a full quota ends the respondent there,
//! rather than after the last page.

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::sync::Arc;

use actix_web::HttpResponse;
use askama::Template;

use crate::domain::markdown;
use crate::domain::quota::{Quota, QuotaId, WhenFull, met};
use crate::domain::{AnswerValue, QuestionId, Reference, Survey, Tenant};
use crate::i18n::Words;
use crate::stores::quotas::Claim;
use crate::web::{AppState, WebError, render};

/// Where an answer's quotas leave it.
pub(super) enum Placement<'a> {
    /// Kept, marked over these quotas (those that count answers once full).
    Kept(BTreeSet<QuotaId>),
    /// Ended by this full quota: not kept.
    Ended(&'a Quota),
}

/// Claims a place for the answer `reference` in each quota its `values` meet. A full quota
/// that ends respondents frees the places already taken and ends this one.
pub(super) async fn place<'a>(
    state: &AppState,
    survey: &'a Survey,
    values: &BTreeMap<QuestionId, AnswerValue>,
    reference: Reference,
) -> Result<Placement<'a>, WebError> {
    // Most surveys have none: the answer path stays as it was.
    if survey.quotas.is_empty() {
        return Ok(Placement::Kept(BTreeSet::new()));
    }
    let filed = survey.survey_ref();
    let quotas = &state.stores.quotas;
    let (mut taken, mut over) = (Vec::new(), BTreeSet::new());
    for quota in met(&survey.quotas, values) {
        match quotas
            .claim(&filed, &quota.id, quota.limit, reference)
            .await?
        {
            Claim::Placed(_) => taken.push(&quota.id),
            Claim::Full if quota.full == WhenFull::Count => {
                over.insert(quota.id.clone());
            }
            Claim::Full => {
                for id in taken {
                    quotas.release(&filed, id, reference).await?;
                }
                return Ok(Placement::Ended(quota));
            }
        }
    }
    Ok(Placement::Kept(over))
}

/// The full quota that ends a respondent whose pages so far (`route`) gave `values`, if any:
/// one that ends respondents, that their answers meet, that no later page can change, and
/// that seems full.
pub(super) async fn ends_early<'a>(
    state: &AppState,
    survey: &'a Survey,
    route: &[usize],
    values: &BTreeMap<QuestionId, AnswerValue>,
) -> Result<Option<&'a Quota>, WebError> {
    if survey.quotas.is_empty() {
        return Ok(None);
    }
    let shown: HashSet<&QuestionId> = route
        .iter()
        .flat_map(|&page| survey.page_questions(page))
        .map(|question| &question.id)
        .collect();
    let filed = survey.survey_ref();
    for quota in met(&survey.quotas, values) {
        if quota.full != WhenFull::End || !quota.decided_by(&shown) {
            continue;
        }
        if state
            .stores
            .quotas
            .seems_full(&filed, &quota.id, quota.limit)
            .await?
        {
            return Ok(Some(quota));
        }
    }
    Ok(None)
}

/// The page of a respondent a full quota ended.
#[derive(Template)]
#[template(path = "public/ended.html")]
struct EndedPage {
    tenant: Arc<Tenant>,
    words: Words,
    /// The survey's title in the page's language.
    title: String,
    /// The quota's message (or the site's words), as safe HTML.
    message: String,
}

/// The page that ends a respondent `quota` is full for, in their language.
pub(super) fn ended(
    tenant: Arc<Tenant>,
    survey: &Survey,
    words: &Words,
    quota: &Quota,
) -> Result<HttpResponse, WebError> {
    let language = words.lang();
    let message = match &quota.message {
        Some(text) => {
            let key = format!("quota:{}:message", quota.id);
            markdown::to_html(survey.text_in(language, &key, text))
        }
        None => {
            let said =
                askama::filters::escape(words.t("quota-full-message"), askama::filters::Html)
                    .map(|escaped| escaped.to_string())
                    .unwrap_or_default();
            format!("<p>{said}</p>")
        }
    };
    render(&EndedPage {
        title: survey.text_in(language, "title", &survey.title).to_owned(),
        tenant,
        words: words.clone(),
        message,
    })
}
