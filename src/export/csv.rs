//! The CSV download: one row per response (oldest first), one column per question, a stable
//! header; streamed a list chunk at a time, so memory stays flat whatever the survey's size.
//!
//! Every text a respondent or owner wrote is made formula-safe (OWASP's CSV-injection rule): a
//! cell starting with `=`, `+`, `-`, `@`, a tab or a carriage return gets a leading `'`, so a
//! spreadsheet shows it as text instead of running it. Numbers Canvass writes itself are left
//! as they are.

use std::sync::Arc;

use bytes::Bytes;
use futures_util::Stream;

use crate::domain::{AnswerValue, Survey};
use crate::stores::{LIST_CHUNK, StoreError, Stores, SummaryDoc};

/// A text cell a spreadsheet will not take for a formula.
pub fn formula_safe(text: &str) -> String {
    match text.chars().next() {
        Some('=' | '+' | '-' | '@' | '\t' | '\r') => format!("'{text}"),
        _ => text.to_owned(),
    }
}

fn cell(value: Option<&AnswerValue>) -> String {
    match value {
        None => String::new(),
        Some(AnswerValue::Text(text)) => formula_safe(text),
        Some(AnswerValue::Choice(option)) => formula_safe(option),
        Some(AnswerValue::Choices(options)) => formula_safe(&options.join("; ")),
        Some(AnswerValue::Stars(stars)) => stars.to_string(),
        Some(AnswerValue::Number(number)) => number.to_string(),
        Some(AnswerValue::Point(point)) => point.to_string(),
        Some(AnswerValue::Date(date)) => date.clone(),
        Some(AnswerValue::Ranking(order)) => formula_safe(&order.join(" > ")),
        Some(AnswerValue::Matrix(picked)) => formula_safe(
            &picked
                .iter()
                .map(|(row, column)| format!("{row}: {column}"))
                .collect::<Vec<_>>()
                .join("; "),
        ),
        Some(AnswerValue::Other { picked, text }) => {
            let mut parts = picked.clone();
            parts.push(format!("Other: {text}"));
            formula_safe(&parts.join("; "))
        }
    }
}

fn encode(records: &[Vec<String>]) -> Result<Bytes, StoreError> {
    let mut writer = ::csv::Writer::from_writer(Vec::new());
    for record in records {
        writer
            .write_record(record)
            .map_err(|error| StoreError::Storage {
                doing: "writing CSV".into(),
                source: crate::storage::Error::backend(error.to_string()),
            })?;
    }
    let bytes = writer.into_inner().map_err(|error| StoreError::Storage {
        doing: "writing CSV".into(),
        source: crate::storage::Error::backend(error.to_string()),
    })?;
    Ok(Bytes::from(bytes))
}

/// The survey's responses as a stream of CSV bytes.
pub fn csv_stream(
    stores: Stores,
    survey: Arc<Survey>,
) -> impl Stream<Item = Result<Bytes, StoreError>> {
    // The summary is read once: its list length bounds the export and its `recent` map fills
    // any list entry not written yet.
    futures_util::stream::try_unfold(None::<(u64, Arc<SummaryDoc>)>, move |state| {
        let (stores, survey) = (stores.clone(), survey.clone());
        async move {
            let (position, doc) = match state {
                None => {
                    let doc = Arc::new(stores.summaries.read(&survey.survey_ref()).await?.doc);
                    let mut header = vec![
                        "reference".to_owned(),
                        "submitted_at".into(),
                        "survey_version".into(),
                    ];
                    header.extend(
                        survey
                            .questions
                            .iter()
                            .map(|q| formula_safe(&format!("{} [{}]", q.text, q.id))),
                    );
                    return Ok(Some((encode(&[header])?, Some((0, doc)))));
                }
                Some(state) => state,
            };
            if position >= doc.list_len {
                return Ok(None);
            }
            let end = (position + LIST_CHUNK).min(doc.list_len);
            let references = stores
                .answer_list
                .references(&survey.survey_ref(), &doc, position..end)
                .await?;
            let mut rows = Vec::with_capacity(references.len());
            for chunk in references.chunks(64) {
                let answers = stores.answers.get_many(&survey.survey_ref(), chunk).await?;
                for answer in answers.into_iter().flatten() {
                    let mut row = vec![
                        answer.reference.to_string(),
                        answer
                            .submitted_at
                            .format(&time::format_description::well_known::Rfc3339)
                            .unwrap_or_default(),
                        answer.survey_version.to_string(),
                    ];
                    row.extend(
                        survey
                            .questions
                            .iter()
                            .map(|q| cell(answer.values.get(&q.id))),
                    );
                    rows.push(row);
                }
            }
            Ok(Some((encode(&rows)?, Some((end, doc)))))
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_that_a_spreadsheet_would_run_are_made_text() {
        for (text, expected) in [
            ("=1+1", "'=1+1"),
            ("+44 20", "'+44 20"),
            ("-5", "'-5"),
            ("@SUM(A1)", "'@SUM(A1)"),
            ("\tx", "'\tx"),
            ("\rx", "'\rx"),
            ("plain", "plain"),
            ("a=b", "a=b"),
            ("", ""),
        ] {
            assert_eq!(formula_safe(text), expected, "case {text:?}");
        }
        assert_eq!(cell(Some(&AnswerValue::Number(-5.0))), "-5");
        assert_eq!(
            cell(Some(&AnswerValue::Choices(vec!["=A".into(), "B".into()]))),
            "'=A; B"
        );
    }
}
