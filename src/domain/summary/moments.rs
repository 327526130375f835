//! Count, mean, variance, min and max of a stream of numbers, mergeable in any order with the
//! numerically stable parallel formula of Chan, Golub and LeVeque (Welford's update is the
//! merge of a one-value partial).

use serde::{Deserialize, Serialize};

/// Running moments of a set of numbers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Moments {
    /// How many numbers.
    pub count: u64,
    /// Their mean (0 when there are none).
    pub mean: f64,
    /// Sum of squared deviations from the mean.
    pub m2: f64,
    /// The smallest (meaningless when `count` is 0).
    pub min: f64,
    /// The largest (meaningless when `count` is 0).
    pub max: f64,
}

impl Moments {
    /// The moments of one number.
    pub fn of(value: f64) -> Self {
        Self {
            count: 1,
            mean: value,
            m2: 0.0,
            min: value,
            max: value,
        }
    }

    /// Adds one number.
    pub fn add(&mut self, value: f64) {
        self.merge(&Self::of(value));
    }

    /// Combines with the moments of another, disjoint set of numbers.
    pub fn merge(&mut self, other: &Moments) {
        if other.count == 0 {
            return;
        }
        if self.count == 0 {
            *self = *other;
            return;
        }
        let count = self.count + other.count;
        let delta = other.mean - self.mean;
        let (n_a, n_b, n) = (self.count as f64, other.count as f64, count as f64);
        // The share first: n_a * n_b alone would pass 1e38 for huge counts.
        let share = n_b / n;
        self.mean += delta * share;
        self.m2 += other.m2 + delta * delta * n_a * share;
        self.count = count;
        self.min = self.min.min(other.min);
        self.max = self.max.max(other.max);
    }

    /// Takes out the moments of a subset of the numbers (the inverse of `merge`). The count,
    /// mean and deviation stay exact up to rounding; min and max cannot be taken back and are
    /// left as they were until recomputed from the remaining numbers.
    pub fn remove(&mut self, part: &Moments) {
        if part.count == 0 {
            return;
        }
        if part.count >= self.count {
            *self = Moments::default();
            return;
        }
        let rest = self.count - part.count;
        let (n, n_b, n_a) = (self.count as f64, part.count as f64, rest as f64);
        let mean = self.mean + (self.mean - part.mean) * (n_b / n_a);
        let delta = part.mean - mean;
        let m2 = self.m2 - part.m2 - delta * delta * n_a * (n_b / n);
        self.count = rest;
        self.mean = mean;
        // Rounding may leave a hair below zero where the rest are all equal.
        self.m2 = m2.max(0.0);
    }

    /// Whether every field is a finite number (JSON has no room for others).
    pub fn is_finite(&self) -> bool {
        self.mean.is_finite() && self.m2.is_finite() && self.min.is_finite() && self.max.is_finite()
    }

    /// The population standard deviation (0 for fewer than two numbers).
    pub fn std_dev(&self) -> f64 {
        if self.count < 2 {
            0.0
        } else {
            (self.m2 / self.count as f64).sqrt()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moments_of_a_known_set() {
        let mut moments = Moments::default();
        for value in [2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0] {
            moments.add(value);
        }
        assert_eq!(moments.count, 8);
        assert_eq!(moments.mean, 5.0);
        assert_eq!(moments.std_dev(), 2.0);
        assert_eq!((moments.min, moments.max), (2.0, 9.0));
    }

    #[test]
    fn removing_a_part_leaves_the_moments_of_the_rest() {
        let mut whole = Moments::default();
        let mut part = Moments::default();
        for value in [2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0] {
            whole.add(value);
        }
        for value in [4.0, 9.0] {
            part.add(value);
        }
        whole.remove(&part);
        // The rest: 2, 4, 4, 5, 5, 7.
        assert_eq!(whole.count, 6);
        assert!((whole.mean - 4.5).abs() < 1e-12, "{}", whole.mean);
        assert!((whole.m2 - 13.5).abs() < 1e-9, "{}", whole.m2);
        // Removing nothing changes nothing; removing all (or more) leaves none.
        let before = whole;
        whole.remove(&Moments::default());
        assert_eq!(whole, before);
        let mut all = before;
        all.remove(&before);
        assert_eq!(all, Moments::default());
        let mut one = Moments::of(3.0);
        one.remove(&Moments::of(3.0));
        assert_eq!(one.count, 0);
        // Removing all but equal values never leaves a negative spread.
        let mut same = Moments::default();
        for _ in 0..3 {
            same.add(0.1);
        }
        same.remove(&Moments::of(0.1));
        assert!(same.m2 >= 0.0 && same.std_dev() < 1e-12);
    }

    proptest::proptest! {
        #[test]
        fn extreme_values_merged_in_any_order_stay_finite_and_agree(
            values in proptest::collection::vec(
                proptest::prop_oneof![
                    proptest::strategy::Just(MAX),
                    proptest::strategy::Just(-MAX),
                    -MAX..MAX,
                ],
                1..200,
            ),
            rotation in 0usize..200,
            repeat in 1u64..1_000_000_000_000,
        ) {
            // Each value stands for `repeat` equal answers: huge counts as well as huge values.
            let part = |value: f64| Moments { count: repeat, ..Moments::of(value) };
            let mut forward = Moments::default();
            for value in &values {
                forward.merge(&part(*value));
            }
            let mut rotated = Moments::default();
            let turn = rotation % values.len();
            for value in values[turn..].iter().chain(&values[..turn]).rev() {
                rotated.merge(&part(*value));
            }

            proptest::prop_assert!(forward.is_finite(), "{forward:?}");
            proptest::prop_assert!(rotated.is_finite(), "{rotated:?}");
            proptest::prop_assert!(forward.std_dev().is_finite());
            proptest::prop_assert_eq!(forward.count, rotated.count);
            proptest::prop_assert_eq!((forward.min, forward.max), (rotated.min, rotated.max));
            let near = |x: f64, y: f64| (x - y).abs() <= 1e-6 * MAX;
            proptest::prop_assert!(near(forward.mean, rotated.mean));
            proptest::prop_assert!(near(forward.std_dev(), rotated.std_dev()));
            proptest::prop_assert!(forward.mean.abs() <= MAX * (1.0 + 1e-12));
        }
    }

    const MAX: f64 = crate::domain::question::MAX_NUMBER;

    #[test]
    fn large_offsets_do_not_lose_the_variance() {
        // The naive sum-of-squares formula returns garbage here; the parallel one does not.
        let mut moments = Moments::default();
        for value in [1e9 + 4.0, 1e9 + 7.0, 1e9 + 13.0, 1e9 + 16.0] {
            moments.add(value);
        }
        assert!((moments.std_dev() - 4.743_416_490_252_569).abs() < 1e-6);
    }
}
