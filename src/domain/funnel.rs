//! Where respondents stop: how many opened a survey, left its first page, reached each later
//! page, and sent it. Counts add up (one process's counts merge into the stored ones in any
//! order), so the web tier counts in memory and merges batches now and then, never writing
//! once per page view.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// Counts along a survey's pages (the sent ones are its summary's total).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Funnel {
    /// Times the first page was shown (each view; a reload counts again).
    #[serde(default)]
    pub opened: u64,
    /// Respondents who left the first page with Next (a survey of several pages).
    #[serde(default)]
    pub started: u64,
    /// Per page (from 0), respondents shown it after leaving an earlier page.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub reached: BTreeMap<usize, u64>,
}

impl Funnel {
    /// Adds counts of other views and respondents.
    pub fn merge(&mut self, other: &Funnel) {
        self.opened += other.opened;
        self.started += other.started;
        for (page, count) in &other.reached {
            *self.reached.entry(*page).or_default() += count;
        }
    }

    /// Whether it counts nothing.
    pub fn is_empty(&self) -> bool {
        self.opened == 0 && self.started == 0 && self.reached.values().all(|n| *n == 0)
    }
}

/// One step of the funnel as a tenant reads it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FunnelStep {
    /// What it counts: `Opened`, `Left page 1`, `Reached page 3`, `Sent`.
    pub label: String,
    /// How many.
    pub count: u64,
}

/// The steps of a survey of `pages` pages with these counts and `sent` responses counted:
/// opened, left page 1 (several pages), each later page reached, sent.
pub fn steps(funnel: &Funnel, pages: usize, sent: u64) -> Vec<FunnelStep> {
    let step = |label: String, count: u64| FunnelStep { label, count };
    let mut steps = vec![step("Opened".into(), funnel.opened)];
    if pages > 1 {
        steps.push(step("Left page 1".into(), funnel.started));
        for page in 1..pages {
            let count = funnel.reached.get(&page).copied().unwrap_or(0);
            steps.push(step(format!("Reached page {}", page + 1), count));
        }
    }
    steps.push(step("Sent".into(), sent));
    steps
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn funnel() -> impl Strategy<Value = Funnel> {
        (
            0..1000u64,
            0..1000u64,
            proptest::collection::btree_map(0..8usize, 0..1000u64, 0..4),
        )
            .prop_map(|(opened, started, reached)| Funnel {
                opened,
                started,
                reached,
            })
    }

    proptest! {
        /// Batches merge to the same counts in any grouping and order.
        #[test]
        fn merging_is_associative_and_order_independent(a in funnel(), b in funnel(), c in funnel()) {
            let mut left = a.clone();
            left.merge(&b);
            left.merge(&c);
            let mut right = c.clone();
            let mut ab = b.clone();
            ab.merge(&a);
            right.merge(&ab);
            prop_assert_eq!(left.opened, right.opened);
            prop_assert_eq!(left.started, right.started);
            let pages = |f: &Funnel| f.reached.iter().filter(|(_, n)| **n > 0).map(|(p, n)| (*p, *n)).collect::<Vec<_>>();
            prop_assert_eq!(pages(&left), pages(&right));
            let mut with_empty = a.clone();
            with_empty.merge(&Funnel::default());
            prop_assert_eq!(with_empty, a);
        }
    }

    #[test]
    fn a_survey_of_pages_shows_each_page_between_opened_and_sent() {
        let counts = Funnel {
            opened: 120,
            started: 90,
            reached: BTreeMap::from([(1, 80), (2, 40)]),
        };
        let labels: Vec<(String, u64)> = steps(&counts, 3, 35)
            .into_iter()
            .map(|s| (s.label, s.count))
            .collect();
        assert_eq!(
            labels,
            [
                ("Opened".into(), 120),
                ("Left page 1".into(), 90),
                ("Reached page 2".into(), 80),
                ("Reached page 3".into(), 40),
                ("Sent".into(), 35)
            ]
        );
        assert_eq!(steps(&counts, 1, 35).len(), 2, "one page: opened and sent");
        assert!(Funnel::default().is_empty());
    }
}
