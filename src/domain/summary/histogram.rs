//! Histograms of numeric answers over fixed 1-2-5 bins (…, 0.5, 1, 2, 5, 10, 20, 50, …, and
//! their negatives). Fixed bins make histograms of partial data add up exactly, in any order.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// Bin counts by bin index; a value's bin depends on nothing but the value.
// Stored as [bin, count] pairs: JSON map keys are strings, and integer keys do not survive
// the buffering of the internally tagged enum this sits in.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(from = "Vec<(i32, u64)>", into = "Vec<(i32, u64)>")]
pub struct Histogram(BTreeMap<i32, u64>);

impl From<Vec<(i32, u64)>> for Histogram {
    fn from(pairs: Vec<(i32, u64)>) -> Self {
        Self(pairs.into_iter().collect())
    }
}

impl From<Histogram> for Vec<(i32, u64)> {
    fn from(histogram: Histogram) -> Self {
        histogram.0.into_iter().collect()
    }
}

/// One bin, for display: `[lower, upper)`.
#[derive(Clone, Debug, PartialEq, Serialize, utoipa::ToSchema)]
pub struct Bin {
    /// Inclusive lower edge.
    pub lower: f64,
    /// Exclusive upper edge.
    pub upper: f64,
    /// How many values fell in it.
    pub count: u64,
    /// What it holds, in words ("7", "2 to 4", "4 stars"; set by the report).
    pub label: String,
}

const STEPS: [f64; 3] = [1.0, 2.0, 5.0];
/// Bins for 10^-OFFSET and up; smaller magnitudes share the bin around zero.
const DECADE_OFFSET: i32 = 6;

/// The lower edge of positive bin `k` (k ≥ 1).
fn edge(k: i32) -> f64 {
    let step = (k - 1).rem_euclid(3) as usize;
    let decade = (k - 1).div_euclid(3) - DECADE_OFFSET;
    STEPS[step] * 10f64.powi(decade)
}

/// The bin of a value: 0 holds (-1e-6, 1e-6); k > 0 holds [edge(k), edge(k+1)); -k mirrors k.
fn index(value: f64) -> i32 {
    let magnitude = value.abs();
    if magnitude < edge(1) {
        return 0;
    }
    // Start from the decade estimate and correct for rounding at the edges.
    let decade = magnitude.log10().floor() as i32 + DECADE_OFFSET;
    let mut k = (decade * 3 + 1).max(1);
    while k > 1 && magnitude < edge(k) {
        k -= 1;
    }
    while magnitude >= edge(k + 1) {
        k += 1;
    }
    if value < 0.0 { -k } else { k }
}

impl Histogram {
    /// Counts one value.
    pub fn add(&mut self, value: f64) {
        *self.0.entry(index(value)).or_default() += 1;
    }

    /// Adds another histogram's counts.
    pub fn merge(&mut self, other: &Histogram) {
        for (bin, count) in &other.0 {
            *self.0.entry(*bin).or_default() += count;
        }
    }

    /// Takes out the counts of a subset of the values.
    pub fn remove(&mut self, part: &Histogram) {
        for (bin, count) in &part.0 {
            if let Some(mine) = self.0.get_mut(bin) {
                *mine = mine.saturating_sub(*count);
                if *mine == 0 {
                    self.0.remove(bin);
                }
            }
        }
    }

    /// The non-empty bins in increasing order.
    pub fn bins(&self) -> Vec<Bin> {
        self.0
            .iter()
            .map(|(&k, &count)| {
                let (lower, upper) = match k {
                    0 => (-edge(1), edge(1)),
                    k if k > 0 => (edge(k), edge(k + 1)),
                    k => (-edge(-k + 1), -edge(-k)),
                };
                Bin {
                    lower,
                    upper,
                    count,
                    label: String::new(),
                }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bin_of(value: f64) -> (f64, f64) {
        let mut histogram = Histogram::default();
        histogram.add(value);
        let bin = &histogram.bins()[0];
        (bin.lower, bin.upper)
    }

    #[test]
    fn values_fall_in_one_two_five_bins() {
        for (value, lower, upper) in [
            (0.0, -1e-6, 1e-6),
            (1.0, 1.0, 2.0),
            (1.99, 1.0, 2.0),
            (2.0, 2.0, 5.0),
            (7.0, 5.0, 10.0),
            (10.0, 10.0, 20.0),
            (120.0, 100.0, 200.0),
            (0.3, 0.2, 0.5),
            (-3.0, -5.0, -2.0),
        ] {
            let (l, u) = bin_of(value);
            assert!(
                (l - lower).abs() < 1e-9 && (u - upper).abs() < 1e-9,
                "case {value}: [{l}, {u})"
            );
        }
    }

    #[test]
    fn every_value_lies_inside_its_bin() {
        for i in -2000..2000 {
            let value = f64::from(i) * 0.37;
            let (lower, upper) = bin_of(value);
            assert!(
                lower <= value && value <= upper,
                "{value}: [{lower}, {upper})"
            );
        }
    }
}
