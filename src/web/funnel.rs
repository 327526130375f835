//! Drop-off counting on the web tier: each page a respondent is shown is counted in this
//! process's memory, and the counts are merged into the survey's stored ones every
//! `FLUSH_EVERY` (and when the process stops), so no page view costs a storage write. A
//! respondent's form (its reference) counts once per page in a process; a reload of the first
//! page counts as another opening. A process killed outright loses at most what it counted
//! since its last merge.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use rustc_hash::FxHashSet;

use crate::domain::funnel::Funnel;
use crate::domain::region::RegionName;
use crate::domain::{Reference, Survey, SurveyRef};
use crate::service::{App, StoreError, dropoff};

/// How often counts are merged into storage.
pub const FLUSH_EVERY: Duration = Duration::from_secs(10);
/// Forms remembered for counting each page once (a day's forms on a busy site).
const REMEMBERED: usize = 200_000;
/// How long a form is remembered at the most.
const REMEMBERED_FOR: Duration = Duration::from_secs(24 * 60 * 60);

/// The (form, page) pairs counted lately, in two generations: a pair is looked up in both and
/// added to the newer; when the newer holds half of `REMEMBERED` or is half of
/// `REMEMBERED_FOR` old, the older is dropped and the newer takes its place. So at most
/// `REMEMBERED` pairs are held, each for at most `REMEMBERED_FOR`, and every pair of the last
/// half of each is remembered. (A cache with exact eviction and expiry costs a page step a
/// twentieth of its time for the same answer, measured with `canvass loadgen --pages`.)
#[derive(Debug)]
struct Seen {
    // References are the server's own (from signed tokens), so a fast hasher is safe here.
    newer: FxHashSet<(u64, usize)>,
    older: FxHashSet<(u64, usize)>,
    since: Instant,
    half: usize,
    half_age: Duration,
}

impl Seen {
    fn new(capacity: usize, age: Duration) -> Self {
        Self {
            newer: FxHashSet::default(),
            older: FxHashSet::default(),
            since: Instant::now(),
            half: (capacity / 2).max(1),
            half_age: age / 2,
        }
    }

    /// Whether `pair` is new here (and is remembered from now on), at `now`.
    fn first_time(&mut self, pair: (u64, usize), now: Instant) -> bool {
        if self.older.contains(&pair) {
            return false;
        }
        if self.newer.len() >= self.half || now.duration_since(self.since) >= self.half_age {
            // Looked up before the newer becomes the older, which the insert below skips.
            if self.newer.contains(&pair) {
                return false;
            }
            self.older = std::mem::take(&mut self.newer);
            self.since = now;
        }
        // Whether it was not in the newer: one look-up, not two.
        self.newer.insert(pair)
    }
}

/// What this process counted and has not merged yet, and the forms it has seen on each page.
#[derive(Debug)]
pub struct FunnelCounter {
    pending: Mutex<HashMap<SurveyRef, Funnel>>,
    /// (reference, page) already counted; page 0 stands for leaving the first page.
    seen: Mutex<Seen>,
    /// Held while merging, so a read never sees a batch both pending and stored.
    merging: tokio::sync::Mutex<()>,
}

impl Default for FunnelCounter {
    fn default() -> Self {
        Self {
            pending: Mutex::default(),
            seen: Mutex::new(Seen::new(REMEMBERED, REMEMBERED_FOR)),
            merging: tokio::sync::Mutex::default(),
        }
    }
}

impl FunnelCounter {
    fn count(&self, survey: &SurveyRef, add: impl FnOnce(&mut Funnel)) {
        // A poisoned lock only means another request panicked mid-count: keep counting.
        let mut pending = self.pending.lock().unwrap_or_else(|e| e.into_inner());
        // The survey's reference is cloned only the first time it counts since a merge.
        match pending.get_mut(survey) {
            Some(funnel) => add(funnel),
            None => add(pending.entry(survey.clone()).or_default()),
        }
    }

    /// Whether `reference` is counted on `page` for the first time here.
    fn first_time(&self, reference: Reference, page: usize) -> bool {
        // A poisoned lock only means another request panicked mid-count: keep counting.
        let mut seen = self.seen.lock().unwrap_or_else(|e| e.into_inner());
        seen.first_time((reference.0, page), Instant::now())
    }

    /// The survey's first page was shown.
    pub fn opened(&self, survey: &SurveyRef) {
        self.count(survey, |funnel| funnel.opened += 1);
    }

    /// The form `reference` left page `from` with Next and was shown page `to`.
    pub async fn moved_on(&self, survey: &SurveyRef, reference: Reference, from: usize, to: usize) {
        if from == 0 && self.first_time(reference, 0) {
            self.count(survey, |funnel| funnel.started += 1);
        }
        if to > 0 && self.first_time(reference, to) {
            self.count(survey, |funnel| *funnel.reached.entry(to).or_default() += 1);
        }
    }

    /// Merges what was counted into storage; what cannot be merged now is kept for the next
    /// time. Counts of a survey no longer served here are dropped. Returns how many surveys'
    /// counts were merged.
    pub async fn flush(&self, app: &App) -> Result<usize, StoreError> {
        let _merging = self.merging.lock().await;
        let batch = std::mem::take(&mut *self.pending.lock().unwrap_or_else(|e| e.into_inner()));
        let mut merged = 0;
        let mut failed = None;
        for (survey, counts) in batch {
            let outcome = dropoff::merge(app, &survey, &counts).await.map(usize::from);
            match outcome {
                Ok(n) => merged += n,
                Err(error) => {
                    self.count(&survey, |funnel| funnel.merge(&counts));
                    failed = Some(error);
                }
            }
        }
        match failed {
            Some(error) => Err(error),
            None => Ok(merged),
        }
    }

    /// The survey's counts: stored in each region serving it, with what this process has not
    /// merged yet; the regions that could not be read are named.
    pub async fn read(
        &self,
        app: &App,
        survey: &Survey,
    ) -> Result<(Funnel, Vec<RegionName>), StoreError> {
        let _merging = self.merging.lock().await;
        let (mut counts, unread) = dropoff::stored(app, survey).await?;
        let pending = self.pending.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(here) = pending.get(&survey.survey_ref()) {
            counts.merge(here);
        }
        Ok((counts, unread))
    }

    /// Merges every `FLUSH_EVERY` until `stop` turns true, then once more.
    pub async fn run(&self, app: App, mut stop: tokio::sync::watch::Receiver<bool>) {
        loop {
            let stopping = tokio::select! {
                _ = tokio::time::sleep(FLUSH_EVERY) => false,
                _ = stop.wait_for(|stopped| *stopped) => true,
            };
            if let Err(error) = self.flush(&app).await {
                tracing::warn!(error = %crate::telemetry::error_chain(&error), "merging drop-off counts failed; they are kept for the next try");
            }
            if stopping {
                return;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use proptest::prelude::*;

    use super::*;

    proptest! {
        /// With room for every pair, each distinct pair counts exactly once, in any order
        /// and however often it repeats.
        #[test]
        fn each_pair_counts_once_in_any_order(pairs in proptest::collection::vec((0u64..50, 0usize..4), 0..400)) {
            let mut seen = Seen::new(1_000, Duration::from_secs(100));
            let now = Instant::now();
            let firsts: Vec<_> = pairs.iter().filter(|pair| seen.first_time(**pair, now)).collect();
            let distinct: HashSet<_> = pairs.iter().collect();
            prop_assert_eq!(firsts.len(), distinct.len());
        }
    }

    #[test]
    fn a_pair_counts_once_while_it_is_remembered() {
        let mut seen = Seen::new(10, Duration::from_secs(100));
        let now = Instant::now();
        assert!(seen.first_time((1, 0), now));
        assert!(!seen.first_time((1, 0), now));
        assert!(
            seen.first_time((1, 1), now),
            "another page of the same form"
        );
        assert!(seen.first_time((2, 0), now), "another form");
    }

    #[test]
    fn at_most_the_capacity_is_held_and_the_latest_half_is_always_remembered() {
        let mut seen = Seen::new(10, Duration::from_secs(100));
        let now = Instant::now();
        for form in 0..1_000 {
            assert!(seen.first_time((form, 0), now));
            assert!(seen.newer.len() + seen.older.len() <= 10);
            // The five latest are remembered.
            for recent in form.saturating_sub(4)..=form {
                assert!(!seen.first_time((recent, 0), now), "{recent} at {form}");
            }
        }
    }

    #[test]
    fn a_pair_is_forgotten_after_the_age_and_kept_within_half_of_it() {
        let mut seen = Seen::new(1_000, Duration::from_secs(100));
        let start = Instant::now();
        assert!(seen.first_time((7, 2), start));
        let later = start + Duration::from_secs(49);
        assert!(!seen.first_time((7, 2), later), "within half the age");
        let turning = start + Duration::from_secs(50);
        assert!(
            !seen.first_time((7, 2), turning),
            "as the generations turn at half the age"
        );
        // Two turns of the generations later it is gone.
        seen.first_time((8, 0), start + Duration::from_secs(50));
        seen.first_time((9, 0), start + Duration::from_secs(100));
        assert!(seen.first_time((7, 2), start + Duration::from_secs(101)));
    }
}
