//! Valid answers for any survey, varied by a counter, encoded as the form would post them.

use crate::domain::{QuestionKind, Survey};

/// The URL-encoded form body of the `n`th generated answer.
pub(super) fn form_body(survey: &Survey, token: &str, n: u64) -> String {
    let mut pairs: Vec<(String, String)> = vec![("token".into(), token.into())];
    for question in &survey.questions {
        let field = format!("q-{}", question.id);
        let values: Vec<String> = match &question.kind {
            QuestionKind::ShortText => vec![format!("Load test {}", n % 97)],
            QuestionKind::LongText => vec![format!("Generated answer number {n}; all good.")],
            QuestionKind::SingleChoice { options } => {
                vec![options[(n as usize) % options.len().max(1)].clone()]
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
    serde_urlencoded::to_string(&pairs).unwrap_or_default()
}
