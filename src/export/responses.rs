//! A survey's counted responses in list order (oldest first), a batch at a time: what the
//! downloads stream. The summary is read once: its list length bounds the download (answers
//! counted after it started are left for the next one) and its `recent` map fills any list
//! entry not written yet. Deleted responses are left out.

use std::sync::Arc;

use futures_util::Stream;

use crate::domain::{Answer, Survey};
use crate::stores::{LIST_CHUNK, StoreError, Stores, SummaryDoc};

/// Answers read per storage call.
const READ: usize = 64;

/// The responses, one answer-list chunk per item.
pub fn response_batches(
    stores: Stores,
    survey: Arc<Survey>,
) -> impl Stream<Item = Result<Vec<Answer>, StoreError>> {
    futures_util::stream::try_unfold(None::<(u64, Arc<SummaryDoc>)>, move |state| {
        let (stores, survey) = (stores.clone(), survey.clone());
        async move {
            // Wherever its answers are kept (at home, or in their region).
            let stores = stores.results_of(&survey).await?;
            let (position, doc) = match state {
                Some(state) => state,
                None => (
                    0,
                    Arc::new(
                        stores
                            .answering
                            .summaries
                            .read(&survey.survey_ref())
                            .await?
                            .doc,
                    ),
                ),
            };
            if position >= doc.list_len {
                return Ok(None);
            }
            let end = (position + LIST_CHUNK).min(doc.list_len);
            let references: Vec<_> = stores
                .answering
                .lists
                .references(&doc.list_view(&survey.survey_ref()), position..end)
                .await?
                .into_iter()
                .filter(|reference| !doc.deleted.contains(reference))
                .collect();
            let mut answers = Vec::with_capacity(references.len());
            for chunk in references.chunks(READ) {
                let found = stores
                    .answering
                    .answers
                    .get_many(&survey.survey_ref(), chunk)
                    .await?;
                answers.extend(found.into_iter().flatten());
            }
            Ok(Some((answers, Some((end, doc)))))
        }
    })
}
