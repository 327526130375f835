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

/// The most bars a chart of numbers shows: enough to see a shape, few enough to read on a
/// phone.
pub const CHART_BARS: usize = 12;

/// Display bins folded to at most `most` bars, for a chart: unchanged when they fit; a bar
/// per whole number (an exact count of each value) folds into ranges of one even width (1, 2,
/// 5, 10, 20, 50, ...) that start at its multiples ("0 to 9", "10 to 19", ..., "60"), so bars
/// compare like with like; other bins fold each run of empty ones into one range, and if that
/// is still too many, neighbours are grouped evenly. Counts add up to the same total, the
/// order is kept, and a merged bar is labelled from its first bin's start to its last bin's
/// end ("5 to 9", "2 to under 50").
pub fn fold(bins: &[Bin], most: usize) -> Vec<Bin> {
    let most = most.max(1);
    if bins.len() <= most {
        return bins.to_vec();
    }
    if let Some(even) = even_ranges(bins, most) {
        return even;
    }
    let mut runs: Vec<Vec<&Bin>> = Vec::new();
    for bin in bins {
        match runs.last_mut() {
            Some(run) if bin.count == 0 && run.iter().all(|b| b.count == 0) => run.push(bin),
            _ => runs.push(vec![bin]),
        }
    }
    if runs.len() > most {
        let width = bins.len().div_ceil(most);
        runs = bins
            .chunks(width)
            .map(|chunk| chunk.iter().collect())
            .collect();
    }
    runs.iter().map(|run| merged(run)).collect()
}

/// Bins of one whole number each, in order without gaps, folded into the fewest ranges of one
/// even width that start at its multiples; `None` for other bins.
fn even_ranges(bins: &[Bin], most: usize) -> Option<Vec<Bin>> {
    let unit = bins.windows(2).all(|pair| pair[0].upper == pair[1].lower)
        && bins
            .iter()
            .all(|b| b.upper - b.lower == 1.0 && b.lower.fract() == 0.0 && b.lower.abs() < 1e15);
    let (first, last) = (bins.first()?, bins.last()?);
    if !unit {
        return None;
    }
    let (low, high) = (first.lower as i64, last.lower as i64);
    let width = (0..18)
        .flat_map(|power| STEPS.map(|step| step as i64 * 10i64.pow(power)))
        .find(|width| (high.div_euclid(*width) - low.div_euclid(*width) + 1) as usize <= most)?;
    let mut runs: Vec<Vec<&Bin>> = Vec::new();
    for bin in bins {
        let range = (bin.lower as i64).div_euclid(width);
        match runs.last_mut() {
            Some(run) if (run[0].lower as i64).div_euclid(width) == range => run.push(bin),
            _ => runs.push(vec![bin]),
        }
    }
    Some(runs.iter().map(|run| merged(run)).collect())
}

/// One bar for a run of neighbouring bins.
fn merged(run: &[&Bin]) -> Bin {
    let (first, last) = (run[0], run[run.len() - 1]);
    if run.len() == 1 {
        return first.clone();
    }
    let start = first.label.split(" to ").next().unwrap_or(&first.label);
    let end = last.label.rsplit(" to ").next().unwrap_or(&last.label);
    Bin {
        lower: first.lower,
        upper: last.upper,
        count: run.iter().map(|b| b.count).sum(),
        label: format!("{start} to {end}"),
    }
}

/// An NPS question's answers split as the score reads them: promoters (9 and 10), passives
/// (7 and 8) and detractors (0 to 6), from its per-point bins.
pub fn nps_groups(bins: &[Bin]) -> [u64; 3] {
    let mut groups = [0; 3];
    for bin in bins {
        let group = match bin.lower {
            point if point >= 9.0 => 0,
            point if point >= 7.0 => 1,
            _ => 2,
        };
        groups[group] += bin.count;
    }
    groups
}

/// The median, when the bins hold single values (one whole number each, as exact per-value
/// counts and stars do); `None` for ranges, where it would be a guess, or with no answers.
pub fn median(bins: &[Bin]) -> Option<f64> {
    let exact = bins
        .iter()
        .filter(|b| b.count > 0)
        .all(|b| b.upper - b.lower == 1.0 && b.lower.fract() == 0.0);
    let total: u64 = bins.iter().map(|b| b.count).sum();
    if !exact || total == 0 {
        return None;
    }
    // The values at positions (total - 1) / 2 and total / 2, counted from 0.
    let at = |position: u64| {
        let mut seen = 0;
        bins.iter().find_map(|b| {
            seen += b.count;
            (seen > position).then_some(b.lower)
        })
    };
    Some((at((total - 1) / 2)? + at(total / 2)?) / 2.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn values(counts: &[u64]) -> Vec<Bin> {
        counts
            .iter()
            .enumerate()
            .map(|(i, &count)| Bin {
                lower: i as f64,
                upper: i as f64 + 1.0,
                count,
                label: i.to_string(),
            })
            .collect()
    }

    #[test]
    fn sixty_one_whole_numbers_fold_into_ranges_of_ten() {
        let mut counts = [0u64; 61];
        for (value, count) in [(5, 2), (10, 1), (30, 4), (60, 1)] {
            counts[value] = count;
        }
        let folded = fold(&values(&counts), CHART_BARS);
        let shown: Vec<(&str, u64)> = folded.iter().map(|b| (b.label.as_str(), b.count)).collect();
        assert_eq!(
            shown,
            [
                ("0 to 9", 2),
                ("10 to 19", 1),
                ("20 to 29", 0),
                ("30 to 39", 4),
                ("40 to 49", 0),
                ("50 to 59", 0),
                ("60", 1)
            ]
        );
    }

    #[test]
    fn whole_numbers_fold_into_the_narrowest_even_width_that_fits() {
        let folded = fold(&values(&[1; 61]), CHART_BARS);
        assert_eq!(folded.len(), 7, "61 values in ranges of 10");
        assert_eq!(folded[0].label, "0 to 9");
        assert_eq!(folded[6].label, "60");
        assert_eq!(folded.iter().map(|b| b.count).sum::<u64>(), 61);
        let twenty = fold(&values(&[1; 21]), CHART_BARS);
        assert_eq!(twenty.len(), 11, "21 values in ranges of 2");
        assert_eq!(
            (twenty[0].label.as_str(), twenty[10].label.as_str()),
            ("0 to 1", "20")
        );
        // One bar per whole number from `low` to `high`, one answer each, folded to `most`.
        let labels = |low: i64, high: i64, most: usize| -> Vec<String> {
            let bins: Vec<Bin> = (low..=high)
                .map(|v| Bin {
                    lower: v as f64,
                    upper: v as f64 + 1.0,
                    count: 1,
                    label: v.to_string(),
                })
                .collect();
            fold(&bins, most).into_iter().map(|b| b.label).collect()
        };
        assert_eq!(
            labels(3, 40, CHART_BARS),
            [
                "3 to 4", "5 to 9", "10 to 14", "15 to 19", "20 to 24", "25 to 29", "30 to 34",
                "35 to 39", "40"
            ]
        );
        // Below zero the ranges start at multiples too (-10 to -1, 0 to 9, ...).
        assert_eq!(labels(-10, 19, 3), ["-10 to -1", "0 to 9", "10 to 19"]);
    }

    #[test]
    fn ranges_keep_their_words_when_merged() {
        let bins = [("1 to 2", 0), ("2 to 4", 0), ("5 to 9", 3)]
            .iter()
            .enumerate()
            .map(|(i, (label, count))| Bin {
                lower: i as f64,
                upper: i as f64 + 1.0,
                count: *count,
                label: (*label).into(),
            })
            .collect::<Vec<_>>();
        let folded = fold(&bins, 2);
        assert_eq!(folded[0].label, "1 to 4");
    }

    #[test]
    fn nps_answers_split_into_promoters_passives_and_detractors() {
        let counts = [1, 0, 0, 0, 0, 0, 2, 3, 4, 5, 6];
        assert_eq!(nps_groups(&values(&counts)), [11, 7, 3]);
        assert_eq!(nps_groups(&[]), [0, 0, 0]);
    }

    #[test]
    fn the_median_is_the_middle_value_or_the_mean_of_the_two_middle_ones() {
        assert_eq!(median(&values(&[0, 1, 1, 1])), Some(2.0));
        assert_eq!(median(&values(&[0, 1, 0, 1])), Some(2.0));
        assert_eq!(median(&values(&[1, 0, 0, 0, 1, 1])), Some(4.0));
        assert_eq!(median(&values(&[0, 0])), None, "no answers");
        let ranges = [Bin {
            lower: 2.0,
            upper: 5.0,
            count: 3,
            label: "2 to 4".into(),
        }];
        assert_eq!(median(&ranges), None, "a range would be a guess");
    }

    proptest! {
        #[test]
        fn folding_keeps_every_count_in_order_within_the_limit(
            counts in proptest::collection::vec(prop_oneof![Just(0u64), 0u64..50], 0..200),
            most in 1usize..20,
        ) {
            let bins = values(&counts);
            let folded = fold(&bins, most);
            prop_assert!(folded.len() <= most);
            prop_assert_eq!(
                folded.iter().map(|b| b.count).sum::<u64>(),
                counts.iter().sum::<u64>()
            );
            for pair in folded.windows(2) {
                prop_assert_eq!(pair[0].upper, pair[1].lower, "bars follow each other");
            }
            if let (Some(first), Some(last)) = (folded.first(), folded.last()) {
                prop_assert_eq!(first.lower, 0.0);
                prop_assert_eq!(last.upper, counts.len() as f64);
            }
        }

        #[test]
        fn the_median_has_as_many_answers_below_as_above(
            counts in proptest::collection::vec(0u64..5, 1..40),
        ) {
            let bins = values(&counts);
            let total: u64 = counts.iter().sum();
            match median(&bins) {
                None => prop_assert_eq!(total, 0),
                Some(m) => {
                    let below: u64 = bins.iter().filter(|b| b.lower < m).map(|b| b.count).sum();
                    let above: u64 = bins.iter().filter(|b| b.lower > m).map(|b| b.count).sum();
                    prop_assert!(below * 2 <= total && above * 2 <= total, "{m}: {below} below, {above} above of {total}");
                }
            }
        }
    }

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
