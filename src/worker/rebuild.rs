//! Rebuilding a survey's summary from its stored answers, for a summary that cannot be read
//! (damaged on disk, or written by a version whose documents this one cannot take).
//!
//! While a survey's summary cannot be read no worker can commit to it, so nothing else
//! changes the survey's list, index or summary meanwhile. The rebuild:
//!
//! 1. keeps the answer list's order: the references already written to it, in order (answers
//!    an export has passed keep their positions), then every stored answer not listed, in
//!    reference order; responses recorded as deleted are left out;
//! 2. writes those list entries and counted-index bits, a page at a time, then makes them
//!    durable;
//! 3. replaces the damaged summary, under the ETag it had, with the statistics of exactly
//!    those answers and an empty `recent` map.
//!
//! A crash before step 3 leaves the summary damaged, so the next pass starts again (every write
//! is idempotent). An answer stored after the scan is not in the rebuilt summary and not
//! marked, so its message, when it comes back, counts it once as usual. Memory is a page of
//! answers plus eight bytes per listed reference.

use std::collections::{BTreeMap, BTreeSet};

use time::OffsetDateTime;

use crate::domain::{Answer, Reference, SurveyRef};
use crate::stores::{Answering, StoreError, Stores, SummaryDoc, keys};
use crate::telemetry::error_chain;

/// Answers read per round.
const PAGE: usize = 1000;

/// What a rebuild found.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Rebuilt {
    /// Answers the new summary counts.
    pub counted: u64,
    /// Stored answers that could not be read (left out, and logged).
    pub unreadable: u64,
}

/// Rebuilds the survey's summary from its stored answers; `None` if the summary was replaced by
/// someone else meanwhile (another rebuild), in which case nothing of this one was committed.
pub async fn rebuild(stores: &Stores, survey: &SurveyRef) -> Result<Option<Rebuilt>, StoreError> {
    let etag = stores.answering.summaries.etag(survey).await?;
    let listed = stores.answering.lists.written(survey).await?;
    // Deleted responses stay deleted: their records outlive the damaged summary.
    let mut seen: BTreeSet<Reference> = stores
        .operations
        .deletions
        .records(survey)
        .await?
        .into_iter()
        .map(|record| record.reference)
        .collect();
    let mut doc = SummaryDoc::default();
    let mut rebuilt = Rebuilt::default();
    // Listed answers first, in list order.
    for page in listed.chunks(PAGE) {
        let fresh: Vec<Reference> = page.iter().copied().filter(|r| seen.insert(*r)).collect();
        let keys: Vec<String> = fresh.iter().map(|r| keys::answer(survey, *r)).collect();
        let answers = read(&stores.answering, survey, &keys, &mut rebuilt).await?;
        place(stores, survey, &answers, &mut doc).await?;
    }
    // Then stored answers the list does not have, in reference (key) order.
    let mut continuation = None;
    loop {
        let scanned = stores
            .operations
            .scan(&keys::answers_of(survey), continuation)
            .await?;
        let keys: Vec<String> = scanned
            .keys
            .into_iter()
            .filter_map(|(key, _)| {
                let (_, reference) = keys::parse_answer_key(keys::ANSWERS, &key)?;
                seen.insert(reference).then_some(key)
            })
            .collect();
        for page in keys.chunks(PAGE) {
            let answers = read(&stores.answering, survey, page, &mut rebuilt).await?;
            place(stores, survey, &answers, &mut doc).await?;
        }
        match scanned.continuation {
            Some(token) => continuation = Some(token),
            None => break,
        }
    }
    // The entries and bits reach the disk before the summary that counts them.
    stores.operations.flush().await?;
    doc.updated = Some(OffsetDateTime::now_utc());
    rebuilt.counted = doc.list_len;
    if !stores
        .answering
        .summaries
        .write(survey, &doc, etag.as_ref())
        .await?
    {
        return Ok(None);
    }
    tracing::warn!(%survey, counted = rebuilt.counted, unreadable = rebuilt.unreadable, "rebuilt a summary from the stored answers");
    Ok(Some(rebuilt))
}

/// Reads answers by key; an unreadable one is logged, counted and left out.
async fn read(
    stores: &Answering,
    survey: &SurveyRef,
    keys: &[String],
    rebuilt: &mut Rebuilt,
) -> Result<Vec<Answer>, StoreError> {
    let mut answers = Vec::with_capacity(keys.len());
    for outcome in stores.answers.read_each(keys).await? {
        match outcome {
            Ok(found) => answers.extend(found),
            Err(error @ StoreError::Corrupt { .. }) => {
                rebuilt.unreadable += 1;
                tracing::error!(%survey, error = %error_chain(&error), "a stored answer cannot be read; the rebuilt summary leaves it out");
            }
            Err(error) => return Err(error),
        }
    }
    Ok(answers)
}

/// Gives each answer the next list position, counts it, and writes its entry and bit.
async fn place(
    stores: &Stores,
    survey: &SurveyRef,
    answers: &[Answer],
    doc: &mut SummaryDoc,
) -> Result<(), StoreError> {
    let mut entries = BTreeMap::new();
    for answer in answers {
        doc.count(answer, doc.list_len);
        entries.insert(doc.list_len, answer.reference);
        doc.list_len += 1;
    }
    stores
        .answering
        .lists
        .set(&crate::stores::keys::answer_list(survey), &entries)
        .await?;
    stores
        .answering
        .counted
        .mark(survey, answers.iter().map(|answer| answer.reference))
        .await
}
