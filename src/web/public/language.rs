//! Which language a survey's page is in for a request (`?lang=`, else the browser's
//! `Accept-Language`, else the survey's default), how the choice carries from page to page,
//! and the survey's languages for the switcher.

use actix_web::{HttpRequest, web};

use crate::domain::Survey;
use crate::domain::language::LanguageTag;
use crate::i18n::Words;

/// A language asked for in a link (`?lang=de`).
#[derive(serde::Deserialize)]
struct LanguageQuery {
    lang: Option<String>,
}

/// The language of a survey's page for this request (`?lang=`, else the browser's
/// `Accept-Language`, else the survey's default) and the site's words in it.
pub(crate) fn words_for(request: &HttpRequest, survey: &Survey) -> Words {
    // One language (most surveys): nothing to read from the request.
    if let [] | [_] = survey.languages.as_slice() {
        return Words::for_tag(survey.languages.first().map_or("en", LanguageTag::as_str));
    }
    let offered: Vec<String> = survey
        .offered_languages()
        .into_iter()
        .map(String::from)
        .collect();
    let asked = web::Query::<LanguageQuery>::from_query(request.query_string())
        .ok()
        .and_then(|query| query.into_inner().lang);
    let accept = request
        .headers()
        .get(actix_web::http::header::ACCEPT_LANGUAGE)
        .and_then(|value| value.to_str().ok());
    Words::for_tag(crate::i18n::choose(&offered, asked.as_deref(), accept))
}

/// `?lang=TAG` for a survey offered in several languages (so a choice carries from page to
/// page and to the thanks), else nothing.
pub(crate) fn language_query(survey: &Survey, words: &Words, first: char) -> String {
    match survey.languages.len() > 1 {
        true => format!("{first}lang={}", words.lang()),
        false => String::new(),
    }
}

/// The survey's languages for the switcher (its tag, its name, whether it is the page's),
/// when it has more than one.
pub(super) fn switcher(survey: &Survey, words: &Words) -> Vec<(String, String, bool)> {
    match survey.languages.len() > 1 {
        true => survey
            .languages
            .iter()
            .map(|tag| {
                let current = tag.as_str() == words.lang();
                (
                    tag.to_string(),
                    crate::i18n::language_name(tag.as_str()),
                    current,
                )
            })
            .collect(),
        false => Vec::new(),
    }
}
