//! A message page of the respondent's site, in their language and the tenant's look: what
//! happened (a link that no longer works, too many saves or uploads at once, answers too long
//! to save) and where to go next.

use std::sync::Arc;

use actix_web::http::StatusCode;
use askama::Template;

use crate::domain::{Survey, Tenant};
use crate::i18n::Words;
use crate::web::{Reply, render_with_status};

/// A message page of the respondent's site: what happened, and where to go next.
#[derive(Template)]
#[template(path = "public/notice.html")]
struct NoticePage {
    tenant: Arc<Tenant>,
    words: Words,
    /// The survey's title in the page's language.
    title: String,
    heading: String,
    message: String,
    /// A link onwards: its address and words.
    next: Option<(String, String)>,
}

/// The page, with `status`: `(heading, message)`, and a link onwards.
pub(super) fn notice(
    status: StatusCode,
    tenant: Arc<Tenant>,
    survey: &Survey,
    words: &Words,
    (heading, message): (String, String),
    next: Option<(String, String)>,
) -> Reply {
    let page = NoticePage {
        title: survey
            .text_in(words.lang(), "title", &survey.title)
            .to_owned(),
        tenant,
        words: words.clone(),
        heading,
        message,
        next,
    };
    render_with_status(status, &page)
}

/// Minutes to wait, rounded up, at least one (ten when the wait is unknown).
pub(super) fn minutes(wait: Option<std::time::Duration>) -> u64 {
    wait.map_or(10, |wait| wait.as_secs().div_ceil(60).max(1))
}
