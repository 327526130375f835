//! The counted index of a survey: which references are already in its summary. One bitmap
//! blob per block of 4,096 references, so checking a batch costs a read per block touched,
//! not per answer. A bit is set only after the summary that counts the answer is committed.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;
use std::time::Duration;

use super::{Context, StoreError, keys};
use crate::domain::{Reference, SurveyRef};
use crate::storage::{BlobStore, Error, PutMode};

/// References per block.
const BLOCK: u64 = 4096;

/// A block's bitmap.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Bits(Vec<u8>);

impl Bits {
    fn empty() -> Self {
        Self(vec![0; (BLOCK / 8) as usize])
    }

    fn parse(body: &[u8]) -> Self {
        let mut bits = Self::empty();
        let len = body.len().min(bits.0.len());
        bits.0[..len].copy_from_slice(&body[..len]);
        bits
    }

    fn locate(reference: Reference) -> (usize, u8) {
        let offset = reference.0 % BLOCK;
        ((offset / 8) as usize, 1 << (offset % 8))
    }

    fn contains(&self, reference: Reference) -> bool {
        let (byte, mask) = Self::locate(reference);
        self.0[byte] & mask != 0
    }

    fn insert(&mut self, reference: Reference) {
        let (byte, mask) = Self::locate(reference);
        self.0[byte] |= mask;
    }
}

fn blocks(references: impl IntoIterator<Item = Reference>) -> BTreeMap<u64, Vec<Reference>> {
    let mut blocks: BTreeMap<u64, Vec<Reference>> = BTreeMap::new();
    for reference in references {
        blocks
            .entry(reference.0 / BLOCK)
            .or_default()
            .push(reference);
    }
    blocks
}

/// Reads and marks the counted index.
#[derive(Clone, Debug)]
pub struct CountedIndex {
    blobs: Arc<dyn BlobStore>,
}

impl CountedIndex {
    pub(super) fn new(blobs: Arc<dyn BlobStore>) -> Self {
        Self { blobs }
    }

    /// Which of `references` the index marks as counted.
    pub async fn counted(
        &self,
        survey: &SurveyRef,
        references: impl IntoIterator<Item = Reference>,
    ) -> Result<BTreeSet<Reference>, StoreError> {
        let mut counted = BTreeSet::new();
        for (block, members) in blocks(references) {
            let key = keys::counted_block(survey, block);
            let bits = match self.blobs.get(&key).await {
                Ok(blob) => Bits::parse(&blob.body),
                Err(Error::NotFound { .. }) => continue,
                Err(error) => return Err(error).context(|| format!("reading {key}")),
            };
            counted.extend(members.into_iter().filter(|r| bits.contains(*r)));
        }
        Ok(counted)
    }

    /// Of `candidates`, in order, those a summary does not count: neither in its `recent`
    /// map (counted, maybe not marked yet) nor marked in the index. The summary must be read
    /// before this is called: an answer only moves from "not counted" to "in recent" to
    /// "marked", so that order never takes a counted answer for an uncounted one.
    pub async fn uncounted(
        &self,
        survey: &SurveyRef,
        recent: &BTreeMap<Reference, u64>,
        candidates: impl IntoIterator<Item = Reference>,
    ) -> Result<Vec<Reference>, StoreError> {
        let unknown: Vec<Reference> = candidates
            .into_iter()
            .filter(|reference| !recent.contains_key(reference))
            .collect();
        let counted = self.counted(survey, unknown.iter().copied()).await?;
        Ok(unknown
            .into_iter()
            .filter(|reference| !counted.contains(reference))
            .collect())
    }

    /// Marks `references` as counted; marking twice is harmless.
    pub async fn mark(
        &self,
        survey: &SurveyRef,
        references: impl IntoIterator<Item = Reference>,
    ) -> Result<(), StoreError> {
        for (block, members) in blocks(references) {
            let key = keys::counted_block(survey, block);
            loop {
                let (mut bits, mode) = match self.blobs.get(&key).await {
                    Ok(blob) => (Bits::parse(&blob.body), PutMode::Update(blob.meta.etag)),
                    Err(Error::NotFound { .. }) => (Bits::empty(), PutMode::Create),
                    Err(error) => return Err(error).context(|| format!("reading {key}")),
                };
                if members.iter().all(|r| bits.contains(*r)) {
                    break;
                }
                members.iter().for_each(|r| bits.insert(*r));
                match self.blobs.put(&key, bits.0.into(), mode).await {
                    Ok(_) => break,
                    Err(Error::Precondition { .. } | Error::AlreadyExists { .. }) => {
                        tokio::time::sleep(Duration::from_millis(1)).await;
                    }
                    Err(error) => return Err(error).context(|| format!("writing {key}")),
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bits_mark_exactly_the_references_inserted() {
        let mut bits = Bits::empty();
        for r in [0, 7, 8, 4095, 4096 + 9] {
            bits.insert(Reference(r));
        }
        for r in 0..4096 {
            let expected = [0, 7, 8, 4095, 9].contains(&r);
            assert_eq!(bits.contains(Reference(r)), expected, "case {r}");
        }
        assert_eq!(Bits::parse(&bits.0), bits);
    }

    #[test]
    fn references_are_grouped_by_block() {
        let grouped = blocks([Reference(1), Reference(4097), Reference(5)]);
        assert_eq!(grouped[&0], vec![Reference(1), Reference(5)]);
        assert_eq!(grouped[&1], vec![Reference(4097)]);
    }
}
