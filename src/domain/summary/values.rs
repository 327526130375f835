//! Exact counts of whole-number answers, while there are few distinct values: what lets a
//! 0-10 question show a bar for each of 0, 1, ... 10 instead of 1-2-5 bins. Past
//! `MAX_VALUES` distinct values, or once any answer is not a whole number, the counts are given
//! up for good (the histogram's bins remain); that rule depends only on the answers counted,
//! so merging partial counts in any order gives the same result.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// Most distinct values counted exactly (a question from 0 to 100 has 101).
pub const MAX_VALUES: usize = 101;

/// Answers per whole-number value, or nothing once there are too many kinds to keep.
// Stored as [value, count] pairs (integer map keys do not survive the tagged enum this sits
// in); `null` once given up, and for summaries written before these counts existed.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(from = "Option<Vec<(i64, u64)>>", into = "Option<Vec<(i64, u64)>>")]
pub struct ValueCounts(Option<BTreeMap<i64, u64>>);

impl From<Option<Vec<(i64, u64)>>> for ValueCounts {
    fn from(pairs: Option<Vec<(i64, u64)>>) -> Self {
        Self(pairs.map(|pairs| pairs.into_iter().collect()))
    }
}

impl From<ValueCounts> for Option<Vec<(i64, u64)>> {
    fn from(counts: ValueCounts) -> Self {
        counts.0.map(|counts| counts.into_iter().collect())
    }
}

impl ValueCounts {
    /// The counts of one answer.
    pub fn of(value: f64) -> Self {
        // Whole numbers well inside i64 only (answers are at most 1e15 in size).
        if value.fract() == 0.0 && value.abs() <= 1e15 {
            Self(Some(BTreeMap::from([(value as i64, 1)])))
        } else {
            Self(None)
        }
    }

    /// Adds the counts of other answers.
    pub fn merge(&mut self, other: &ValueCounts) {
        let (Some(mine), Some(theirs)) = (&mut self.0, &other.0) else {
            self.0 = None;
            return;
        };
        for (value, count) in theirs {
            *mine.entry(*value).or_default() += count;
        }
        if mine.len() > MAX_VALUES {
            self.0 = None;
        }
    }

    /// Takes out the counts of a subset of the answers (counts given up stay given up).
    pub fn remove(&mut self, part: &ValueCounts) {
        let (Some(mine), Some(theirs)) = (&mut self.0, &part.0) else {
            return;
        };
        for (value, count) in theirs {
            if let Some(left) = mine.get_mut(value) {
                *left = left.saturating_sub(*count);
                if *left == 0 {
                    mine.remove(value);
                }
            }
        }
    }

    /// Every value from `low` to `high` with its count (zero for values nobody gave), if the
    /// counts are kept, cover every answer, and the range has at most `MAX_VALUES` values.
    pub fn exact(&self, low: f64, high: f64) -> Option<Vec<(i64, u64)>> {
        let counts = self.0.as_ref()?;
        if low.fract() != 0.0
            || high.fract() != 0.0
            || high < low
            || high - low >= MAX_VALUES as f64
        {
            return None;
        }
        let (low, high) = (low as i64, high as i64);
        if counts.keys().any(|value| !(low..=high).contains(value)) {
            return None;
        }
        Some(
            (low..=high)
                .map(|value| (value, counts.get(&value).copied().unwrap_or(0)))
                .collect(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counts(values: &[f64]) -> ValueCounts {
        let mut all = ValueCounts(Some(BTreeMap::new()));
        for value in values {
            all.merge(&ValueCounts::of(*value));
        }
        all
    }

    #[test]
    fn whole_numbers_in_a_small_range_are_counted_exactly() {
        let all = counts(&[0.0, 3.0, 3.0, 10.0]);
        let exact = all.exact(0.0, 10.0).expect("exact");
        assert_eq!(exact.len(), 11);
        assert_eq!(exact[3], (3, 2));
        assert_eq!(exact[5], (5, 0));
        assert_eq!(all.exact(0.0, 200.0), None, "too wide a range");
        assert_eq!(all.exact(1.0, 10.0), None, "an answer outside the range");
    }

    #[test]
    fn a_fraction_or_too_many_values_gives_the_counts_up_in_any_order() {
        assert_eq!(counts(&[1.0, 2.5]).exact(0.0, 10.0), None);
        let many: Vec<f64> = (0..=MAX_VALUES as i32).map(f64::from).collect();
        assert_eq!(counts(&many), ValueCounts(None));
        let mut reversed = counts(&many[60..]);
        reversed.merge(&counts(&many[..60]));
        assert_eq!(reversed, ValueCounts(None));
        let json = serde_json::to_string(&counts(&[4.0, 4.0])).expect("writes");
        assert_eq!(json, "[[4,2]]");
        let old: ValueCounts = serde_json::from_str("null").expect("reads");
        assert_eq!(old.exact(0.0, 10.0), None);
    }
}
