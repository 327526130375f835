//! Quotas as a respondent meets them: sending claims a place in each quota the answers meet
//! (exactly, across processes and regions: `stores::quotas`); a full quota ends the
//! respondent politely with its message and the answer is not kept (or, if the owner chose,
//! it is kept and marked over the quota). A page that already decides a full quota ends the
//! respondent there, rather than after the last page. A send whose answer could not be queued
//! gives its places back.

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::sync::Arc;

use actix_web::HttpResponse;
use askama::Template;

use super::reach::home_region;
use crate::domain::markdown;
use crate::domain::quota::{Quota, QuotaId, WhenFull, met};
use crate::domain::{AnswerValue, QuestionId, Reference, Survey, Tenant};
use crate::i18n::Words;
use crate::stores::quotas::{Claim, QuotaStore};
use crate::web::{AppState, WebError, render};

/// Where an answer's quotas leave it.
pub(super) enum Placement<'a> {
    /// Kept, holding these places.
    Kept(Places),
    /// Ended by this full quota: not kept.
    Ended(&'a Quota),
}

/// The places one send of an answer holds.
#[derive(Default)]
pub(super) struct Places {
    /// The quotas it is kept over (those that count answers once full).
    pub(super) over: BTreeSet<QuotaId>,
    /// The quotas it took a place in, and the store that keeps them.
    taken: Vec<QuotaId>,
    kept: Option<QuotaStore>,
}

impl Places {
    /// Gives the places back: this send's answer was not queued. A failure is logged (the
    /// place then stays taken by no answer: the quota closes one place early).
    pub(super) async fn give_back(self, survey: &Survey, reference: Reference) {
        let Some(kept) = self.kept else {
            return;
        };
        let filed = survey.survey_ref();
        for quota in &self.taken {
            if let Err(error) = kept.let_go(&filed, quota, reference).await {
                tracing::warn!(%error, survey = %survey.slug, %quota, "a quota place was not given back");
            }
        }
    }
}

/// The quota places of `survey` (of `tenant`, living here or in another region).
async fn kept(state: &AppState, tenant: &Tenant, survey: &Survey) -> Result<QuotaStore, WebError> {
    let home = home_region(state, tenant).await?;
    Ok(state.stores.quota_places(survey, home.as_ref()).await?)
}

/// Claims a place for a send of the answer `reference` in each quota its `values` meet. A
/// full quota that ends respondents gives back the places already taken and ends this one.
pub(super) async fn place<'a>(
    state: &AppState,
    tenant: &Tenant,
    survey: &'a Survey,
    values: &BTreeMap<QuestionId, AnswerValue>,
    reference: Reference,
) -> Result<Placement<'a>, WebError> {
    // Most surveys have none: the answer path stays as it was.
    if survey.quotas.is_empty() {
        return Ok(Placement::Kept(Places::default()));
    }
    let filed = survey.survey_ref();
    let quotas = kept(state, tenant, survey).await?;
    let (mut taken, mut over) = (Vec::new(), BTreeSet::new());
    for quota in met(&survey.quotas, values) {
        let claimed = quotas
            .claim(&filed, &quota.id, quota.limit, reference)
            .await;
        match claimed {
            Ok(Claim::Placed(_)) => taken.push(quota.id.clone()),
            Ok(Claim::Full) if quota.full == WhenFull::Count => {
                over.insert(quota.id.clone());
            }
            refused => {
                let places = Places {
                    over,
                    taken,
                    kept: Some(quotas),
                };
                places.give_back(survey, reference).await;
                return match refused {
                    Err(error) => Err(error.into()),
                    Ok(_) => Ok(Placement::Ended(quota)),
                };
            }
        }
    }
    Ok(Placement::Kept(Places {
        over,
        taken,
        kept: Some(quotas),
    }))
}

/// The full quota that ends a respondent whose pages so far (`route`) gave `values`, if any:
/// one that ends respondents, that their answers meet, that no later page can change, and
/// that seems full.
pub(super) async fn ends_early<'a>(
    state: &AppState,
    tenant: &Tenant,
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
    let mut quotas = None;
    for quota in met(&survey.quotas, values) {
        if quota.full != WhenFull::End || !quota.decided_by(&shown) {
            continue;
        }
        let quotas = match &mut quotas {
            Some(quotas) => quotas,
            None => quotas.insert(kept(state, tenant, survey).await?),
        };
        if quotas.seems_full(&filed, &quota.id, quota.limit).await? {
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
