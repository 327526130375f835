//! The page of a respondent a full quota ended: politely, with the quota's message in their
//! language. Places are claimed by the answering use cases (`service::answering`).

use std::sync::Arc;

use askama::Template;

use crate::domain::markdown;
use crate::domain::quota::Quota;
use crate::domain::{Survey, Tenant};
use crate::i18n::Words;
use crate::web::{Reply, render};

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
pub(super) fn ended(tenant: Arc<Tenant>, survey: &Survey, words: &Words, quota: &Quota) -> Reply {
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
