//! Valid answers for any survey, varied by a counter, encoded as the form would post them: for
//! a survey of pages, one body per page the respondent's answers lead through (each carrying
//! the earlier pages' answers, as the form's hidden fields do), the last one sending.
//!
//! The client shares the machine with the server it measures, so a body must cost it little:
//! the answer fields of a few hundred varied answers are encoded once, and each POST only adds
//! its own token in front.

use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};

use std::collections::BTreeSet;

use crate::domain::{QuestionId, QuestionKind, RawAnswers, Survey};

/// What a form encoding leaves as it is in a token.
const TOKEN_SAFE: &AsciiSet = &NON_ALPHANUMERIC.remove(b'-').remove(b'_').remove(b'.');

/// How many different answers the bodies cycle through.
const VARIANTS: u64 = 256;

/// Form bodies for one survey.
#[derive(Clone, Debug)]
pub(super) struct FormBodies {
    /// For each variant, the encoded fields of each POST of its walk through the pages, each
    /// starting with `&`.
    variants: std::sync::Arc<Vec<Vec<String>>>,
}

impl FormBodies {
    pub(super) fn new(survey: &Survey) -> Self {
        let variants = (0..VARIANTS).map(|n| walk_fields(survey, n)).collect();
        Self {
            variants: std::sync::Arc::new(variants),
        }
    }

    /// The URL-encoded bodies of the `n`th respondent's POSTs, each carrying `token`.
    pub(super) fn bodies(&self, token: &str, n: u64) -> Vec<String> {
        let token = utf8_percent_encode(token, TOKEN_SAFE).to_string();
        self.variants[(n % VARIANTS) as usize]
            .iter()
            .map(|fields| {
                let mut body = String::with_capacity(6 + token.len() + fields.len());
                body.push_str("token=");
                body.push_str(&token);
                body.push_str(fields);
                body
            })
            .collect()
    }
}

/// The fields of each POST of the `n`th respondent: one per page on their route, each with
/// the answers so far; a survey of one page is one POST without page fields, as before.
fn walk_fields(survey: &Survey, n: u64) -> Vec<String> {
    let raw_of = |pairs: &[(String, String)]| -> RawAnswers {
        pairs
            .iter()
            .map(|(field, value)| (field.trim_start_matches("q-"), value.as_str()))
            .collect()
    };
    // A survey with loops: answered as unrolled for this respondent's answers, each time
    // round a loop answered too.
    let unrolled = survey.unrolled(&raw_of(&answer_pairs(survey, n)));
    let survey = unrolled.as_ref().unwrap_or(survey);
    let all = answer_pairs(survey, n);
    let raw = raw_of(&all);
    let walk = survey.walk(&raw, None);
    if survey.pages().len() == 1 {
        return vec![encoded(&all, &walk.skipped, None)];
    }
    // Answers of the pages walked so far, then the page and the button.
    (0..walk.route.len())
        .map(|step| {
            let seen: Vec<(String, String)> = walk.route[..=step]
                .iter()
                .flat_map(|&page| survey.page_questions(page))
                .flat_map(|q| {
                    all.iter()
                        .filter(move |(field, _)| field[2..] == *q.id.as_str())
                })
                .cloned()
                .collect();
            encoded(&seen, &walk.skipped, Some(walk.route[step]))
        })
        .collect()
}

/// `&`-prefixed form fields of the answers to questions shown, and the page fields.
fn encoded(
    pairs: &[(String, String)],
    hidden: &BTreeSet<QuestionId>,
    page: Option<usize>,
) -> String {
    let mut shown: Vec<(String, String)> = pairs
        .iter()
        .filter(|(field, _)| !hidden.iter().any(|id| field[2..] == *id.as_str()))
        .cloned()
        .collect();
    if let Some(page) = page {
        shown.push(("page".into(), page.to_string()));
        shown.push(("nav".into(), "next".into()));
    }
    let encoded = serde_urlencoded::to_string(&shown).unwrap_or_default();
    if encoded.is_empty() {
        encoded
    } else {
        format!("&{encoded}")
    }
}

/// The form fields of the `n`th generated answer: a valid value for every question.
fn answer_pairs(survey: &Survey, n: u64) -> Vec<(String, String)> {
    let mut pairs: Vec<(String, String)> = Vec::new();
    for question in &survey.questions {
        let field = format!("q-{}", question.id);
        if let QuestionKind::Matrix { rows, columns } = &question.kind {
            // One field per row.
            pairs.extend(rows.iter().enumerate().map(|(i, _)| {
                let column = &columns[(n as usize + i) % columns.len().max(1)];
                (format!("{field}.{i}"), column.clone())
            }));
            continue;
        }
        let values: Vec<String> = match &question.kind {
            QuestionKind::ShortText => vec![format!("Load test {}", n % 97)],
            QuestionKind::LongText => vec![format!("Generated answer number {n}; all good.")],
            QuestionKind::SingleChoice { options, .. } | QuestionKind::Dropdown { options } => {
                vec![options[(n as usize) % options.len().max(1)].clone()]
            }
            QuestionKind::Ranking { options } => {
                let mut order = options.clone();
                order.rotate_left((n as usize) % options.len().max(1));
                order
            }
            // A load of uploads is another benchmark: a file question is left unanswered.
            QuestionKind::Matrix { .. } | QuestionKind::File { .. } => Vec::new(),
            QuestionKind::Nps => vec![(n % 11).to_string()],
            QuestionKind::Scale { points, .. } => vec![(1 + n % u64::from(*points)).to_string()],
            QuestionKind::Date { earliest, .. } => {
                vec![earliest.clone().unwrap_or_else(|| "2026-06-01".into())]
            }
            QuestionKind::MultipleChoice { options, .. } => options
                .iter()
                .enumerate()
                .filter(|(i, _)| (n >> i) & 1 == 1)
                .map(|(_, option)| option.clone())
                .collect(),
            QuestionKind::FiveStars => vec![(1 + n % 5).to_string()],
            QuestionKind::Numeric { min, max, .. } => {
                let low = min.unwrap_or(0.0);
                let high = max.unwrap_or(low + 100.0);
                let span = (high - low).max(0.0).floor() as u64;
                vec![(low + (n % (span + 1)) as f64).to_string()]
            }
        };
        pairs.extend(values.into_iter().map(|value| (field.clone(), value)));
    }
    // The link's values, as a panel's respondent brings them.
    pairs.extend(
        survey
            .hidden_fields
            .iter()
            .map(|name| (format!("h-{name}"), format!("p{n}"))),
    );
    pairs
}
