//! Quota places, claimed exactly across processes.
//!
//! A quota of limit N has N places, `slots/0` to `slots/N-1` under the quota's folder, each
//! a blob written create-only by the answer that takes it: whatever processes submit at
//! once, no more than N such blobs can exist, so no quota ever takes more than N answers. An
//! answer's place is also recorded under its reference (`refs/R`, written create-only once it
//! holds the place), so a form sent again (a double click, a retry after an error) finds the
//! place it took and takes no second one. The record counts the sends of that form under way
//! or done (`copies`), so that a send whose answer could not be queued gives the place back
//! only when no other send of the same form may have queued it.
//!
//! Protocol, per quota an answer meets, before the answer is queued:
//! 1. Its reference's record exists: it holds that place already; one more send is counted
//!    on the record (under its ETag).
//! 2. Else it creates a place it reserved in this process (the next this process has not
//!    tried: claimers of one process never try the same place), and on "exists" (another
//!    process took it) the next; past the last, it lists the places for any freed below;
//!    none: the quota is full.
//! 3. It records its reference, with one send. Should a copy of the same form have recorded
//!    it first, it frees the place it just took and counts itself on that copy's record.
//!
//! A send refused after its places were taken (another quota full, its queue write failed)
//! lets go of them (`let_go`): it takes itself off each record, and the last send to leave a
//! record deletes it and frees the place. A send that succeeded never leaves its record, so a
//! place whose answer was queued is never freed. A process killed between taking a place and
//! leaving it leaves a place taken by no answer: a quota may then close one place early,
//! never one late.
//!
//! Where the places live: in the storage that keeps the survey's answers (its tenant's home,
//! or the one region its answers stay in), whichever region the respondent answers in
//! (`Stores::quota_places`), so moving a survey between regions neither restarts nor
//! doubles them.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use serde::{Deserialize, Serialize};

use super::error::{decode, encode};
use super::keys::quotas_of;
use super::{Context, StoreError};
use crate::domain::quota::QuotaId;
use crate::domain::{Reference, SurveyRef};
use crate::storage::{BlobStore, Error, PutMode};

/// What a place holds: the answer that took it.
#[derive(Debug, Serialize, Deserialize)]
struct Place {
    reference: u64,
}

/// Where an answer's place is recorded: the place it holds, and the sends of its form that
/// have not given it back (records written before sends were counted have one).
#[derive(Debug, Serialize, Deserialize)]
struct Holder {
    place: u32,
    #[serde(default = "one")]
    copies: u32,
}

fn one() -> u32 {
    1
}

/// The outcome of claiming a place.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Claim {
    /// The answer holds this place (taken now, or before by the same form).
    Placed(u32),
    /// Every place is taken.
    Full,
}

fn slots(survey: &SurveyRef, quota: &QuotaId) -> String {
    format!("{}{quota}/slots/", quotas_of(survey))
}

fn slot(survey: &SurveyRef, quota: &QuotaId, place: u32) -> String {
    format!("{}{place:08}", slots(survey, quota))
}

fn holder(survey: &SurveyRef, quota: &QuotaId, reference: Reference) -> String {
    format!("{}{quota}/refs/{:020}.json", quotas_of(survey), reference.0)
}

/// Quota places, with this process's guess of each quota's next free place.
#[derive(Clone, Debug)]
pub struct QuotaStore {
    blobs: Arc<dyn BlobStore>,
    next: Arc<Mutex<HashMap<Key, u32>>>,
    /// Each quota's places as last counted here, and when (for `seems_full`).
    counted: Arc<Mutex<HashMap<Key, (std::time::Instant, u32)>>>,
}

/// One quota of one survey, as this process keeps its guesses.
type Key = (SurveyRef, QuotaId);

/// How long a count of a quota's places stands for ending respondents early.
const RECHECK: std::time::Duration = std::time::Duration::from_secs(30);

impl QuotaStore {
    pub(super) fn new(blobs: Arc<dyn BlobStore>) -> Self {
        Self {
            blobs,
            next: Arc::default(),
            counted: Arc::default(),
        }
    }

    fn guess(&self, survey: &SurveyRef, quota: &QuotaId) -> u32 {
        let next = self.next.lock().unwrap_or_else(|e| e.into_inner());
        next.get(&(survey.clone(), quota.clone()))
            .copied()
            .unwrap_or(0)
    }

    /// The next place this process has not tried yet (the limit once past it), reserved.
    fn reserve(&self, survey: &SurveyRef, quota: &QuotaId, limit: u32) -> u32 {
        let mut guesses = self.next.lock().unwrap_or_else(|e| e.into_inner());
        let next = guesses.entry((survey.clone(), quota.clone())).or_insert(0);
        let place = (*next).min(limit);
        *next = (place + 1).min(limit);
        place
    }

    fn remember(&self, survey: &SurveyRef, quota: &QuotaId, next: u32) {
        let mut guesses = self.next.lock().unwrap_or_else(|e| e.into_inner());
        guesses.insert((survey.clone(), quota.clone()), next);
    }

    /// Claims a place of `quota` (of `limit` places) for a send of the answer `reference`.
    pub async fn claim(
        &self,
        survey: &SurveyRef,
        quota: &QuotaId,
        limit: u32,
        reference: Reference,
    ) -> Result<Claim, StoreError> {
        loop {
            if let Some((place, etag, copies)) = self.held(survey, quota, reference).await? {
                // This form holds a place already: one more send of it is under way.
                let key = holder(survey, quota, reference);
                let more = Holder {
                    place,
                    copies: copies.saturating_add(1),
                };
                let body = encode(&key, &more)?;
                match self
                    .blobs
                    .put(&key, body.into(), PutMode::Update(etag))
                    .await
                {
                    Ok(_) => return Ok(Claim::Placed(place)),
                    // Changed or given back meanwhile: look again.
                    Err(Error::Precondition { .. } | Error::NotFound { .. }) => continue,
                    Err(error) => {
                        return Err(error)
                            .context(|| format!("counting a send on quota {quota} of {survey}"));
                    }
                }
            }
            let Some(place) = self.take_free(survey, quota, limit, reference).await? else {
                self.counted_now(survey, quota, limit);
                return Ok(Claim::Full);
            };
            let key = holder(survey, quota, reference);
            let body = encode(&key, &Holder { place, copies: 1 })?;
            match self.blobs.put(&key, body.into(), PutMode::Create).await {
                Ok(_) => return Ok(Claim::Placed(place)),
                Err(Error::AlreadyExists { .. }) => {
                    // A copy of this form recorded its place first: that one is the answer's.
                    self.free(survey, quota, place).await?;
                }
                Err(error) => {
                    self.free(survey, quota, place).await?;
                    return Err(error)
                        .context(|| format!("recording a place of quota {quota} of {survey}"));
                }
            }
        }
    }

    /// The place `reference` holds in `quota`, if any, with its record's ETag and sends.
    async fn held(
        &self,
        survey: &SurveyRef,
        quota: &QuotaId,
        reference: Reference,
    ) -> Result<Option<(u32, crate::storage::ETag, u32)>, StoreError> {
        let key = holder(survey, quota, reference);
        match self.blobs.get(&key).await {
            Ok(blob) => {
                let held = decode::<Holder>(&key, &blob.body)?;
                Ok(Some((held.place, blob.meta.etag, held.copies)))
            }
            Err(Error::NotFound { .. }) => Ok(None),
            Err(error) => Err(error).context(|| format!("reading a place of quota {quota}")),
        }
    }

    /// Takes the first free place from the guess on, then any freed below; `None`: full.
    async fn take_free(
        &self,
        survey: &SurveyRef,
        quota: &QuotaId,
        limit: u32,
        reference: Reference,
    ) -> Result<Option<u32>, StoreError> {
        let body = encode(
            &slots(survey, quota),
            &Place {
                reference: reference.0,
            },
        )?;
        loop {
            // Each claimer of this process tries a place of its own: only claimers of other
            // processes can collide with it.
            let mut place = self.reserve(survey, quota, limit);
            if place >= limit {
                match self.first_freed(survey, quota, limit).await? {
                    Some(freed) => place = freed,
                    None => return Ok(None),
                }
            }
            let key = slot(survey, quota, place);
            match self
                .blobs
                .put(&key, body.clone().into(), PutMode::Create)
                .await
            {
                Ok(_) => return Ok(Some(place)),
                Err(Error::AlreadyExists { .. }) => {}
                Err(error) => {
                    return Err(error).context(|| format!("taking a place of quota {quota}"));
                }
            }
        }
    }

    /// The lowest place below `limit` that no blob holds, if any.
    async fn first_freed(
        &self,
        survey: &SurveyRef,
        quota: &QuotaId,
        limit: u32,
    ) -> Result<Option<u32>, StoreError> {
        let taken = self.taken(survey, quota).await?;
        Ok((0..limit).find(|place| taken.binary_search(place).is_err()))
    }

    /// Every place taken, in order.
    async fn taken(&self, survey: &SurveyRef, quota: &QuotaId) -> Result<Vec<u32>, StoreError> {
        let prefix = slots(survey, quota);
        let mut listing = super::Listing::new(self.blobs.as_ref(), &prefix, 0);
        let mut taken = Vec::new();
        while let Some(page) = listing.next().await? {
            taken.extend(
                page.items
                    .iter()
                    .filter_map(|item| item.key.strip_prefix(&prefix)?.parse::<u32>().ok()),
            );
        }
        taken.sort_unstable();
        Ok(taken)
    }

    /// Whether `quota` seems full, for ending a respondent early (sending is where it is
    /// decided exactly): its places as this process last counted them, at most `RECHECK`
    /// ago, or as a claim here found them full.
    pub async fn seems_full(
        &self,
        survey: &SurveyRef,
        quota: &QuotaId,
        limit: u32,
    ) -> Result<bool, StoreError> {
        let key = (survey.clone(), quota.clone());
        let known = {
            let counted = self.counted.lock().unwrap_or_else(|e| e.into_inner());
            counted
                .get(&key)
                .filter(|(at, _)| at.elapsed() <= RECHECK)
                .map(|(_, taken)| *taken)
        };
        let taken = match known {
            Some(taken) => taken,
            None => {
                let taken = self.placed(survey, quota).await?;
                self.counted_now(survey, quota, taken);
                taken
            }
        };
        Ok(taken >= limit)
    }

    fn counted_now(&self, survey: &SurveyRef, quota: &QuotaId, taken: u32) {
        let mut counted = self.counted.lock().unwrap_or_else(|e| e.into_inner());
        counted.insert(
            (survey.clone(), quota.clone()),
            (std::time::Instant::now(), taken),
        );
    }

    /// How many places of `quota` are taken.
    pub async fn placed(&self, survey: &SurveyRef, quota: &QuotaId) -> Result<u32, StoreError> {
        Ok(u32::try_from(self.taken(survey, quota).await?.len()).unwrap_or(u32::MAX))
    }

    /// Takes one send of the answer `reference` off its place in `quota` (that send was
    /// refused after all); the last send to leave frees the place. A send of the same form
    /// that was queued never leaves, so its place is never freed under it.
    pub async fn let_go(
        &self,
        survey: &SurveyRef,
        quota: &QuotaId,
        reference: Reference,
    ) -> Result<(), StoreError> {
        let key = holder(survey, quota, reference);
        loop {
            let Some((place, etag, copies)) = self.held(survey, quota, reference).await? else {
                return Ok(());
            };
            let left = match copies > 1 {
                true => {
                    let fewer = Holder {
                        place,
                        copies: copies - 1,
                    };
                    let body = encode(&key, &fewer)?;
                    self.blobs
                        .put(&key, body.into(), PutMode::Update(etag))
                        .await
                        .map(|_| ())
                }
                // The record first: a crash before the place is freed leaves a place taken by
                // no answer (one place early), never a record of a place another answer takes.
                false => self.blobs.delete(&key, Some(&etag)).await,
            };
            match left {
                Ok(()) if copies > 1 => return Ok(()),
                Ok(()) => return self.free(survey, quota, place).await,
                Err(Error::Precondition { .. } | Error::NotFound { .. }) => continue,
                Err(error) => {
                    return Err(error).context(|| format!("freeing a place of quota {quota}"));
                }
            }
        }
    }

    /// Deletes every place of a quota that was removed from its survey.
    pub async fn forget(&self, survey: &SurveyRef, quota: &QuotaId) -> Result<(), StoreError> {
        let prefix = format!("{}{quota}/", quotas_of(survey));
        super::delete_prefix(self.blobs.as_ref(), &prefix).await?;
        let key = (survey.clone(), quota.clone());
        self.next
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&key);
        self.counted
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&key);
        Ok(())
    }

    async fn free(
        &self,
        survey: &SurveyRef,
        quota: &QuotaId,
        place: u32,
    ) -> Result<(), StoreError> {
        match self.blobs.delete(&slot(survey, quota, place), None).await {
            Ok(()) | Err(Error::NotFound { .. }) => {}
            Err(error) => {
                return Err(error).context(|| format!("freeing a place of quota {quota}"));
            }
        }
        // The freed place is the next to try here, and the count is stale.
        let guess = self.guess(survey, quota).min(place);
        self.remember(survey, quota, guess);
        let mut counted = self.counted.lock().unwrap_or_else(|e| e.into_inner());
        counted.remove(&(survey.clone(), quota.clone()));
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use futures_util::future::join_all;

    use super::*;
    use crate::domain::{SurveyId, SurveySlug, TenantSlug};

    fn survey() -> SurveyRef {
        SurveyRef {
            tenant: TenantSlug::parse("acme").expect("a slug"),
            slug: SurveySlug::parse("tea").expect("a slug"),
            id: SurveyId::parse("abc").expect("an id"),
        }
    }

    #[tokio::test]
    async fn no_more_answers_take_places_than_the_limit_however_many_claim_at_once() {
        let blobs = crate::storage::memory::storage().blobs;
        // Three stores on one storage stand for three processes, each with its own guesses.
        let stores: Vec<QuotaStore> = (0..3).map(|_| QuotaStore::new(blobs.clone())).collect();
        let (survey, quota) = (survey(), QuotaId::parse("tea").expect("an id"));
        let claims = join_all((0..60u64).map(|reference| {
            let store = stores[reference as usize % 3].clone();
            let (survey, quota) = (survey.clone(), quota.clone());
            async move { store.claim(&survey, &quota, 10, Reference(reference)).await }
        }))
        .await;
        let placed: Vec<u32> = claims
            .iter()
            .filter_map(|claim| match claim.as_ref().expect("a claim") {
                Claim::Placed(place) => Some(*place),
                Claim::Full => None,
            })
            .collect();
        assert_eq!(placed.len(), 10, "{claims:?}");
        let mut places = placed.clone();
        places.sort_unstable();
        places.dedup();
        assert_eq!(places, (0..10).collect::<Vec<_>>(), "each place once");
        assert_eq!(
            stores[0].placed(&survey, &quota).await.expect("counted"),
            10
        );

        // A form sent again holds the place it took; a late one finds the quota full.
        let first = claims
            .iter()
            .position(|claim| matches!(claim, Ok(Claim::Placed(_))))
            .expect("one placed") as u64;
        let again = stores[2].claim(&survey, &quota, 10, Reference(first)).await;
        assert_eq!(
            again.expect("a claim"),
            claims[first as usize].as_ref().copied().expect("a claim")
        );
        let late = stores[1].claim(&survey, &quota, 10, Reference(1000)).await;
        assert_eq!(late.expect("a claim"), Claim::Full);

        // A place freed is taken by the next answer, and the limit still holds.
        stores[0]
            .let_go(&survey, &quota, Reference(first))
            .await
            .expect("freed");
        stores[0]
            .let_go(&survey, &quota, Reference(first))
            .await
            .expect("freed");
        let next = stores[1].claim(&survey, &quota, 10, Reference(1001)).await;
        assert!(matches!(next.expect("a claim"), Claim::Placed(_)));
        let after = stores[2].claim(&survey, &quota, 10, Reference(1002)).await;
        assert_eq!(after.expect("a claim"), Claim::Full);
        assert_eq!(
            stores[2].placed(&survey, &quota).await.expect("counted"),
            10
        );
    }

    #[tokio::test]
    async fn two_copies_of_one_form_sent_at_once_take_one_place() {
        let blobs = crate::storage::memory::storage().blobs;
        let (a, b) = (QuotaStore::new(blobs.clone()), QuotaStore::new(blobs));
        let (survey, quota) = (survey(), QuotaId::parse("tea").expect("an id"));
        let (one, two) = tokio::join!(
            a.claim(&survey, &quota, 5, Reference(7)),
            b.claim(&survey, &quota, 5, Reference(7))
        );
        assert_eq!(one.expect("a claim"), two.expect("a claim"));
        assert_eq!(a.placed(&survey, &quota).await.expect("counted"), 1);
    }
}
