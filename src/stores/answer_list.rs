//! A survey's answer list, in arrival order, for paging: fixed-size chunks of references, so
//! any page costs one or two chunk reads whatever the survey's size (Tailspin kept one blob
//! holding every id, which made each page view O(n)).
//!
//! Positions are handed out by the summary commit; a chunk entry may be written a moment after
//! (or, after a crash, by the worker that completes the commit), and until then the summary's
//! `recent` map knows it.

use std::collections::BTreeMap;
use std::ops::Range;
use std::sync::Arc;
use std::time::Duration;

use super::error::{decode, encode};
use super::summaries::SummaryDoc;
use super::{Context, StoreError, keys};
use crate::domain::{Reference, SurveyRef};
use crate::storage::{BlobStore, Error, PutMode};

/// References per chunk blob.
pub const CHUNK: u64 = 512;

/// Reads and writes answer-list chunks.
#[derive(Clone, Debug)]
pub struct AnswerList {
    blobs: Arc<dyn BlobStore>,
}

type Chunk = Vec<Option<Reference>>;

impl AnswerList {
    pub(super) fn new(blobs: Arc<dyn BlobStore>) -> Self {
        Self { blobs }
    }

    /// Writes `reference` at `position` for each entry; writing an entry twice is harmless.
    pub async fn set(
        &self,
        survey: &SurveyRef,
        entries: &BTreeMap<u64, Reference>,
    ) -> Result<(), StoreError> {
        let mut by_chunk: BTreeMap<u64, Vec<(usize, Reference)>> = BTreeMap::new();
        for (&position, &reference) in entries {
            by_chunk
                .entry(position / CHUNK)
                .or_default()
                .push(((position % CHUNK) as usize, reference));
        }
        for (chunk, slots) in by_chunk {
            self.set_in_chunk(&keys::list_chunk(survey, chunk), &slots)
                .await?;
        }
        Ok(())
    }

    async fn set_in_chunk(
        &self,
        key: &str,
        slots: &[(usize, Reference)],
    ) -> Result<(), StoreError> {
        loop {
            let (mut chunk, mode) = match self.blobs.get(key).await {
                Ok(blob) => (
                    decode::<Chunk>(key, &blob.body)?,
                    PutMode::Update(blob.meta.etag),
                ),
                Err(Error::NotFound { .. }) => (Chunk::new(), PutMode::Create),
                Err(error) => return Err(error).context(|| format!("reading {key}")),
            };
            if slots
                .iter()
                .all(|(slot, reference)| chunk.get(*slot) == Some(&Some(*reference)))
            {
                return Ok(());
            }
            for (slot, reference) in slots {
                if chunk.len() <= *slot {
                    chunk.resize(slot + 1, None);
                }
                chunk[*slot] = Some(*reference);
            }
            match self.blobs.put(key, encode(key, &chunk)?.into(), mode).await {
                Ok(_) => return Ok(()),
                Err(Error::Precondition { .. } | Error::AlreadyExists { .. }) => {
                    tokio::time::sleep(Duration::from_millis(1)).await;
                }
                Err(error) => return Err(error).context(|| format!("writing {key}")),
            }
        }
    }

    /// Every reference written to the list so far, in list order, read chunk by chunk until
    /// the first missing chunk; positions not written are left out. For rebuilding a summary
    /// that cannot be read, whose length is unknown.
    pub async fn written(&self, survey: &SurveyRef) -> Result<Vec<Reference>, StoreError> {
        let mut written = Vec::new();
        for chunk in 0.. {
            let key = keys::list_chunk(survey, chunk);
            match self.blobs.get(&key).await {
                Ok(blob) => {
                    written.extend(decode::<Chunk>(&key, &blob.body)?.into_iter().flatten())
                }
                Err(Error::NotFound { .. }) => break,
                Err(error) => return Err(error).context(|| format!("reading {key}")),
            }
        }
        Ok(written)
    }

    /// The references at `positions` (clipped to the committed length), oldest first; an entry
    /// not written yet is taken from the summary's `recent` map.
    pub async fn references(
        &self,
        survey: &SurveyRef,
        doc: &SummaryDoc,
        positions: Range<u64>,
    ) -> Result<Vec<Reference>, StoreError> {
        Ok(self
            .entries(survey, doc, positions)
            .await?
            .into_iter()
            .map(|(_, reference)| reference)
            .collect())
    }

    /// As `references`, each with its position.
    pub async fn entries(
        &self,
        survey: &SurveyRef,
        doc: &SummaryDoc,
        positions: Range<u64>,
    ) -> Result<Vec<(u64, Reference)>, StoreError> {
        let positions = positions.start..positions.end.min(doc.list_len);
        if positions.is_empty() {
            return Ok(Vec::new());
        }
        let by_position: BTreeMap<u64, Reference> = doc
            .recent
            .iter()
            .map(|(&reference, &position)| (position, reference))
            .collect();
        let mut found = Vec::with_capacity((positions.end - positions.start) as usize);
        for chunk in positions.start / CHUNK..=(positions.end - 1) / CHUNK {
            let key = keys::list_chunk(survey, chunk);
            let entries: Chunk = match self.blobs.get(&key).await {
                Ok(blob) => decode(&key, &blob.body)?,
                Err(Error::NotFound { .. }) => Chunk::new(),
                Err(error) => return Err(error).context(|| format!("reading {key}")),
            };
            let first = (chunk * CHUNK).max(positions.start);
            let last = ((chunk + 1) * CHUNK).min(positions.end);
            for position in first..last {
                let entry = entries
                    .get((position - chunk * CHUNK) as usize)
                    .copied()
                    .flatten();
                if let Some(reference) = entry.or_else(|| by_position.get(&position).copied()) {
                    found.push((position, reference));
                }
            }
        }
        Ok(found)
    }
}
