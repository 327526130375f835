//! Valid answers for any survey, varied by a counter, encoded as the form would post them.
//!
//! The client shares the machine with the server it measures, so a body must cost it little:
//! the answer fields of a few hundred varied answers are encoded once, and each POST only adds
//! its own token in front.

use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};

use crate::domain::{QuestionKind, Survey};

/// What a form encoding leaves as it is in a token.
const TOKEN_SAFE: &AsciiSet = &NON_ALPHANUMERIC.remove(b'-').remove(b'_').remove(b'.');

/// How many different answers the bodies cycle through.
const VARIANTS: u64 = 256;

/// Form bodies for one survey.
#[derive(Clone, Debug)]
pub(super) struct FormBodies {
    /// The encoded answer fields of each variant, each starting with `&`.
    variants: std::sync::Arc<Vec<String>>,
}

impl FormBodies {
    pub(super) fn new(survey: &Survey) -> Self {
        let variants = (0..VARIANTS).map(|n| answer_fields(survey, n)).collect();
        Self {
            variants: std::sync::Arc::new(variants),
        }
    }

    /// The URL-encoded body of the `n`th answer, carrying `token`.
    pub(super) fn body(&self, token: &str, n: u64) -> String {
        let fields = &self.variants[(n % VARIANTS) as usize];
        let token = utf8_percent_encode(token, TOKEN_SAFE).to_string();
        let mut body = String::with_capacity(6 + token.len() + fields.len());
        body.push_str("token=");
        body.push_str(&token);
        body.push_str(fields);
        body
    }
}

/// The answer fields of the `n`th generated answer, `&`-prefixed.
fn answer_fields(survey: &Survey, n: u64) -> String {
    let mut pairs: Vec<(String, String)> = Vec::new();
    for question in &survey.questions {
        let field = format!("q-{}", question.id);
        let values: Vec<String> = match &question.kind {
            QuestionKind::ShortText => vec![format!("Load test {}", n % 97)],
            QuestionKind::LongText => vec![format!("Generated answer number {n}; all good.")],
            QuestionKind::SingleChoice { options } | QuestionKind::Dropdown { options } => {
                vec![options[(n as usize) % options.len().max(1)].clone()]
            }
            QuestionKind::Nps => vec![(n % 11).to_string()],
            QuestionKind::Scale { points, .. } => vec![(1 + n % u64::from(*points)).to_string()],
            QuestionKind::Date { earliest, .. } => {
                vec![earliest.clone().unwrap_or_else(|| "2026-06-01".into())]
            }
            QuestionKind::MultipleChoice { options } => options
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
    let encoded = serde_urlencoded::to_string(&pairs).unwrap_or_default();
    if encoded.is_empty() {
        encoded
    } else {
        format!("&{encoded}")
    }
}
