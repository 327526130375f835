//! Answer lists, in arrival order, for paging: fixed-size chunks of references, so any page
//! costs one or two chunk reads whatever the survey's size (Tailspin kept one blob holding
//! every id, which made each page view O(n)). A survey has one, and each of its segments one.
//!
//! Positions are handed out by the summary commit; a chunk entry may be written a moment after
//! (or, after a crash, by the worker that completes the commit), and until then the summary's
//! `recent` map knows it.

use std::collections::BTreeMap;
use std::ops::Range;
use std::sync::Arc;
use std::time::Duration;

use super::error::{decode, encode};
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

/// One answer list as a reader sees it: where it is kept, how long it is, and the entries its
/// summary document knows that may not be written yet.
///
/// A segment's list can have a gap: entries for answers counted before its question became a
/// segment question are written from position 0 by a build, and those counted since from
/// position `from` on. Readers see positions without the gap (`len` of them).
#[derive(Clone, Debug)]
pub struct ListView<'a> {
    /// Where its chunks are (`keys::answer_list` or `keys::segment_list`).
    pub list: String,
    /// Entries readers see.
    pub len: u64,
    /// Entries before the gap.
    pub before_gap: u64,
    /// Positions skipped by the gap.
    pub gap: u64,
    /// Entries that may not be written yet, by the position they are written at.
    pub recent: &'a BTreeMap<Reference, u64>,
}

impl ListView<'_> {
    /// The position an entry is written at.
    pub fn stored(&self, position: u64) -> u64 {
        if position < self.before_gap {
            position
        } else {
            position + self.gap
        }
    }

    /// The position readers see for one written at `stored` (outside the gap).
    pub fn seen(&self, stored: u64) -> u64 {
        if stored < self.before_gap {
            stored
        } else {
            stored.saturating_sub(self.gap)
        }
    }

    /// The ranges of written positions that hold readers' `positions`.
    fn stored_ranges(&self, positions: Range<u64>) -> Vec<Range<u64>> {
        let positions = positions.start..positions.end.min(self.len);
        let (before, after) = (
            positions.start..positions.end.min(self.before_gap),
            positions.start.max(self.before_gap)..positions.end,
        );
        [
            before,
            after.start + self.gap..after.end.max(after.start) + self.gap,
        ]
        .into_iter()
        .filter(|range| !range.is_empty())
        .collect()
    }
}

impl AnswerList {
    pub(super) fn new(blobs: Arc<dyn BlobStore>) -> Self {
        Self { blobs }
    }

    /// Writes `reference` at `position` for each entry of the list kept under `list`; writing
    /// an entry twice is harmless.
    pub async fn set(
        &self,
        list: &str,
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
            self.set_in_chunk(&keys::list_chunk(list, chunk), &slots)
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

    /// Every reference written to the survey's answer list so far, in list order, read chunk
    /// by chunk until the first missing chunk; positions not written are left out. For
    /// rebuilding a summary that cannot be read, whose length is unknown.
    pub async fn written(&self, survey: &SurveyRef) -> Result<Vec<Reference>, StoreError> {
        let list = keys::answer_list(survey);
        let mut written = Vec::new();
        for chunk in 0.. {
            let key = keys::list_chunk(&list, chunk);
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

    /// The references at `positions` of the list (clipped to its length), oldest first.
    pub async fn references(
        &self,
        view: &ListView<'_>,
        positions: Range<u64>,
    ) -> Result<Vec<Reference>, StoreError> {
        Ok(self
            .entries(view, positions)
            .await?
            .into_iter()
            .map(|(_, reference)| reference)
            .collect())
    }

    /// As `references`, each with its position; an entry the summary still holds in `recent`
    /// is taken from there.
    pub async fn entries(
        &self,
        view: &ListView<'_>,
        positions: Range<u64>,
    ) -> Result<Vec<(u64, Reference)>, StoreError> {
        let ranges = view.stored_ranges(positions);
        if ranges.is_empty() {
            return Ok(Vec::new());
        }
        let by_position: BTreeMap<u64, Reference> = view
            .recent
            .iter()
            .map(|(&reference, &position)| (position, reference))
            .collect();
        let mut found = Vec::new();
        for positions in ranges {
            for chunk in positions.start / CHUNK..=(positions.end - 1) / CHUNK {
                let key = keys::list_chunk(&view.list, chunk);
                let entries: Chunk = match self.blobs.get(&key).await {
                    Ok(blob) => decode(&key, &blob.body)?,
                    Err(Error::NotFound { .. }) => Chunk::new(),
                    Err(error) => return Err(error).context(|| format!("reading {key}")),
                };
                let first = (chunk * CHUNK).max(positions.start);
                let last = ((chunk + 1) * CHUNK).min(positions.end);
                for position in first..last {
                    let written = || {
                        entries
                            .get((position - chunk * CHUNK) as usize)
                            .copied()
                            .flatten()
                    };
                    if let Some(reference) = by_position.get(&position).copied().or_else(written) {
                        found.push((view.seen(position), reference));
                    }
                }
            }
        }
        Ok(found)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_list_with_a_gap_reads_across_it_as_one() {
        let recent = BTreeMap::new();
        // Three entries written before the gap, then entries from position 10 on.
        let view = ListView {
            list: String::new(),
            len: 6,
            before_gap: 3,
            gap: 7,
            recent: &recent,
        };
        assert_eq!(view.stored_ranges(0..6), [0..3, 10..13]);
        assert_eq!(view.stored_ranges(1..3), vec![1..3]);
        assert_eq!(view.stored_ranges(4..9), vec![11..13]);
        assert_eq!((view.stored(2), view.stored(3)), (2, 10));
        assert_eq!((view.seen(2), view.seen(10), view.seen(12)), (2, 3, 5));
        let plain = ListView {
            before_gap: 6,
            gap: 0,
            ..view
        };
        assert_eq!(plain.stored_ranges(2..100), vec![2..6]);
        assert!(plain.stored_ranges(6..9).is_empty());
    }
}
