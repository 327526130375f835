//! A survey's counted responses in list order (oldest first), a batch at a time, then its
//! partial responses if it keeps them: what the downloads stream. The summary is read once: its list length bounds the download (answers
//! counted after it started are left for the next one) and its `recent` map fills any list
//! entry not written yet. Deleted responses are left out.

use std::sync::Arc;

use bytes::Bytes;
use futures_util::{Stream, StreamExt};
use tokio::sync::mpsc;

use crate::domain::{Answer, Survey};
use crate::stores::{LIST_CHUNK, StoreError, Stores, SummaryDoc};

/// Answers read per storage call.
const READ: usize = 64;

/// The responses, one answer-list chunk per item; then, for a survey that keeps them, its
/// partial responses (at most `MAX_PARTIALS_READ`) in one last batch.
pub fn response_batches(
    stores: Stores,
    survey: Arc<Survey>,
) -> impl Stream<Item = Result<Vec<Answer>, StoreError>> {
    let partials = {
        let (stores, survey) = (stores.clone(), survey.clone());
        futures_util::stream::once(async move {
            match survey.keep_partial {
                true => {
                    let partials = &stores.answering.partials;
                    partials.list(&survey.survey_ref()).await
                }
                false => Ok(Vec::new()),
            }
        })
        .filter(|batch| std::future::ready(!matches!(batch, Ok(b) if b.is_empty())))
    };
    counted_batches(stores, survey).chain(partials)
}

/// The counted responses, one answer-list chunk per item.
fn counted_batches(
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

/// Where a file's writer takes the responses from, a batch at a time.
pub(super) type Batches = mpsc::Receiver<Result<Vec<Answer>, StoreError>>;
/// Where a file's writer puts its bytes.
pub(super) type Written = mpsc::Sender<Result<Bytes, StoreError>>;

/// The bytes `write` makes of the responses, as a stream: storage is read on the async side
/// and the file written on a blocking thread, joined by small bounded channels, so a slow
/// client slows the download instead of filling memory, and a client that goes away stops
/// it. What `write` fails with ends the stream as an error.
pub(super) fn written_on_a_thread(
    stores: Stores,
    survey: Arc<Survey>,
    write: impl FnOnce(Batches, Written) -> Result<(), StoreError> + Send + 'static,
) -> impl Stream<Item = Result<Bytes, StoreError>> {
    let (batches_tx, batches_rx) = mpsc::channel::<Result<Vec<Answer>, StoreError>>(2);
    let (bytes_tx, bytes_rx) = mpsc::channel::<Result<Bytes, StoreError>>(8);
    tokio::spawn(async move {
        let mut batches = std::pin::pin!(response_batches(stores, survey));
        while let Some(batch) = batches.next().await {
            let failed = batch.is_err();
            if batches_tx.send(batch).await.is_err() || failed {
                return;
            }
        }
    });
    tokio::task::spawn_blocking(move || {
        let errors = bytes_tx.clone();
        if let Err(error) = write(batches_rx, bytes_tx) {
            let _ = errors.blocking_send(Err(error));
        }
    });
    futures_util::stream::unfold(bytes_rx, |mut rx| async move {
        rx.recv().await.map(|item| (item, rx))
    })
}
