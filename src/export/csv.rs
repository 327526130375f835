//! The CSV download: one row per response (oldest first), one column per question, a stable
//! header; streamed a list chunk at a time, so memory stays flat whatever the survey's size.

use std::sync::Arc;

use bytes::Bytes;
use futures_util::Stream;
use futures_util::future::join_all;

use crate::domain::{AnswerValue, Survey};
use crate::stores::{LIST_CHUNK, StoreError, Stores, SummaryDoc};

fn cell(value: Option<&AnswerValue>) -> String {
    match value {
        None => String::new(),
        Some(AnswerValue::Text(text)) => text.clone(),
        Some(AnswerValue::Choice(option)) => option.clone(),
        Some(AnswerValue::Choices(options)) => options.join("; "),
        Some(AnswerValue::Stars(stars)) => stars.to_string(),
        Some(AnswerValue::Number(number)) => number.to_string(),
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
                    let doc = Arc::new(
                        stores
                            .summaries
                            .read(&survey.tenant, &survey.slug)
                            .await?
                            .doc,
                    );
                    let mut header = vec![
                        "reference".to_owned(),
                        "submitted_at".into(),
                        "survey_version".into(),
                    ];
                    header.extend(
                        survey
                            .questions
                            .iter()
                            .map(|q| format!("{} [{}]", q.text, q.id)),
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
                .references(&survey.tenant, &survey.slug, &doc, position..end)
                .await?;
            let mut rows = Vec::with_capacity(references.len());
            for chunk in references.chunks(64) {
                for answer in join_all(
                    chunk
                        .iter()
                        .map(|r| stores.answers.get(&survey.tenant, &survey.slug, *r)),
                )
                .await
                {
                    let Some(answer) = answer? else { continue };
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
