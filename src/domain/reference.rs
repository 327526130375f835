//! Reference numbers: short unique numbers given to answers, allocated in ranges.
//!
//! A shared counter holds the next unreserved number. A process reserves a whole range by
//! advancing the counter once under optimistic concurrency, then hands out numbers from it
//! without touching storage, so processes never issue the same number and rarely contend.

use std::fmt;

use serde::{Deserialize, Serialize};

/// An answer's reference number, shown to the respondent.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    Serialize,
    Deserialize,
    utoipa::ToSchema,
)]
#[serde(transparent)]
pub struct Reference(pub u64);

impl fmt::Display for Reference {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// The first number ever issued: references look like references, not like counts.
pub const FIRST_REFERENCE: u64 = 1000;

/// A reserved range of numbers, `[next, end)`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct IdRange {
    next: u64,
    end: u64,
}

impl IdRange {
    /// The range reserved by moving the counter from `counter` by `size`; returns it with the
    /// counter's new value.
    pub fn reserve(counter: u64, size: u64) -> (IdRange, u64) {
        let start = counter.max(FIRST_REFERENCE);
        let end = start.saturating_add(size.max(1));
        (IdRange { next: start, end }, end)
    }

    /// The next number of the range, or `None` when it is used up.
    pub fn take(&mut self) -> Option<Reference> {
        (self.next < self.end).then(|| {
            self.next += 1;
            Reference(self.next - 1)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_range_issues_each_number_once_then_runs_out() {
        let (mut range, counter) = IdRange::reserve(FIRST_REFERENCE, 3);

        let issued: Vec<_> = std::iter::from_fn(|| range.take()).collect();

        assert_eq!(
            issued,
            vec![Reference(1000), Reference(1001), Reference(1002)]
        );
        assert_eq!(counter, 1003);
        assert_eq!(range.take(), None);
    }

    #[test]
    fn consecutive_reservations_do_not_overlap() {
        let (mut first, counter) = IdRange::reserve(0, 10);
        let (mut second, _) = IdRange::reserve(counter, 10);
        let a: Vec<_> = std::iter::from_fn(|| first.take()).collect();
        let b: Vec<_> = std::iter::from_fn(|| second.take()).collect();
        assert!(a.iter().all(|x| !b.contains(x)));
        assert_eq!(a.len() + b.len(), 20);
    }

    #[test]
    fn an_empty_range_issues_nothing() {
        assert_eq!(IdRange::default().take(), None);
    }
}
