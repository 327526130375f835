//! The summary page's bar charts: each bar's label, count and share, drawn by the template
//! as a table (so screen readers read the numbers, and text keeps its size on a phone) whose
//! bars are `progress` elements scaled to the largest count (no JavaScript, no inline style).

use crate::domain::summary::{CHART_BARS, DayCount, QuestionReport, Stats, fold_bins};

/// One bar: a label, a count and its share.
pub struct Bar {
    /// What the bar stands for.
    pub label: String,
    /// How many.
    pub count: u64,
    /// Share of all counted, in percent, rounded.
    pub percent: u64,
}

/// A horizontal bar chart.
pub struct BarChart {
    /// The bars, top to bottom.
    pub bars: Vec<Bar>,
    /// The largest count (at least 1): the full length of a bar.
    pub largest: u64,
}

impl BarChart {
    /// Bars for labelled counts; shares are of `of` (the respondents, for choices).
    pub fn new(items: Vec<(String, u64)>, of: u64) -> Self {
        let largest = items
            .iter()
            .map(|(_, count)| *count)
            .max()
            .unwrap_or(0)
            .max(1);
        let bars: Vec<Bar> = items
            .into_iter()
            .map(|(label, count)| Bar {
                label,
                count,
                percent: (count * 100).checked_div(of).unwrap_or(0),
            })
            .collect();
        Self { bars, largest }
    }
}

/// Days as bars: one per day when they span at most 31 days, else one per month.
fn by_period(days: &[DayCount]) -> Vec<(String, u64)> {
    let parsed = |day: &DayCount| crate::domain::answer::date(&day.day);
    let span = match (days.first().and_then(parsed), days.last().and_then(parsed)) {
        (Some(first), Some(last)) => (last - first).whole_days(),
        _ => 0,
    };
    if span <= 31 {
        return days.iter().map(|d| (d.day.clone(), d.count)).collect();
    }
    let mut months: Vec<(String, u64)> = Vec::new();
    for day in days {
        let month = day.day.get(..7).unwrap_or(&day.day).to_owned();
        match months.last_mut() {
            Some((last, count)) if *last == month => *count += day.count,
            _ => months.push((month, day.count)),
        }
    }
    months
}

/// A number as people write it: no trailing zeros.
pub fn number(value: f64) -> String {
    if value.fract() == 0.0 && value.abs() < 1e15 {
        format!("{}", value as i64)
    } else {
        format!("{:.2}", value)
            .trim_end_matches('0')
            .trim_end_matches('.')
            .to_owned()
    }
}

/// Every value given to a number question with its count, when the chart folds them into
/// ranges (the "show every value" table); `None` when the chart shows each already.
pub fn every_value(question: &QuestionReport) -> Option<Vec<(String, u64)>> {
    match &question.stats {
        Stats::Numbers { histogram, .. } if histogram.len() > CHART_BARS => Some(
            histogram
                .iter()
                .filter(|bin| bin.count > 0)
                .map(|bin| (bin.label.clone(), bin.count))
                .collect(),
        ),
        _ => None,
    }
}

/// A matrix question's counts as the grid it was answered in: its columns, and each row with
/// its count per column.
pub struct Grid {
    /// The columns' texts.
    pub columns: Vec<String>,
    /// Each row's text and counts, in the columns' order.
    pub rows: Vec<(String, Vec<u64>)>,
}

/// The grid of a matrix question, with at least one row.
pub fn grid(question: &QuestionReport) -> Option<Grid> {
    let Stats::Matrix { rows } = &question.stats else {
        return None;
    };
    let columns: Vec<String> = rows
        .first()?
        .columns
        .iter()
        .map(|c| c.option.clone())
        .collect();
    Some(Grid {
        rows: rows
            .iter()
            .map(|row| {
                let counts = columns
                    .iter()
                    .map(|column| {
                        row.columns
                            .iter()
                            .find(|c| &c.option == column)
                            .map_or(0, |c| c.count)
                    })
                    .collect();
                (row.row.clone(), counts)
            })
            .collect(),
        columns,
    })
}

/// The chart of one question's statistics.
pub fn chart(question: &QuestionReport) -> BarChart {
    match &question.stats {
        Stats::Options { options, .. } => BarChart::new(
            options
                .iter()
                .map(|o| (o.option.clone(), o.count))
                .collect(),
            question.answered,
        ),
        // At most a dozen bars; every value is in the table beside it (`every_value`).
        Stats::Numbers { histogram, .. } => BarChart::new(
            fold_bins(histogram, CHART_BARS)
                .into_iter()
                .map(|bin| (bin.label, bin.count))
                .collect(),
            question.answered,
        ),
        Stats::Dates { days } => BarChart::new(by_period(days), question.answered),
        // A matrix is shown as a grid instead (`grid`); files as their count and size.
        Stats::Matrix { .. } | Stats::Files { .. } => BarChart::new(Vec::new(), question.answered),
        // First places, best mean place first.
        Stats::Ranking { ranking } => BarChart::new(
            ranking
                .iter()
                .map(|r| {
                    let place = r
                        .mean_place
                        .map_or("not placed".into(), |p| format!("mean place {}", number(p)));
                    (format!("{} ({place})", r.option), r.first)
                })
                .collect(),
            question.answered,
        ),
        Stats::Words { top_words, .. } => BarChart::new(
            top_words
                .iter()
                .map(|w| (w.word.clone(), w.count))
                .collect(),
            question.answered,
        ),
    }
}

/// The bars of where participants stand, each a share of all of them.
pub fn standing(totals: &crate::service::participants::Totals) -> BarChart {
    BarChart::new(
        vec![
            ("Participants".into(), totals.participants),
            ("Invited".into(), totals.invited),
            ("Opened their link".into(), totals.started),
            ("Answered".into(), totals.finished),
            ("Opted out".into(), totals.opted_out),
            ("Bounced".into(), totals.bounced),
        ],
        totals.participants,
    )
}

/// Answered of invited, in percent (none before anyone was invited).
pub fn response_rate(totals: &crate::service::participants::Totals) -> Option<u64> {
    (totals.invited > 0)
        .then(|| (totals.finished.min(totals.invited) * 100 + totals.invited / 2) / totals.invited)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_longest_bar_is_the_full_length_and_shares_are_of_the_respondents() {
        let chart = BarChart::new(vec![("Tea".into(), 3), ("Coffee".into(), 1)], 4);
        assert_eq!(chart.largest, 3);
        assert_eq!((chart.bars[0].percent, chart.bars[1].percent), (75, 25));
        assert_eq!(BarChart::new(vec![("None".into(), 0)], 0).largest, 1);
    }

    #[test]
    fn dates_are_shown_by_day_within_a_month_and_by_month_beyond() {
        let day = |day: &str, count| DayCount {
            day: day.into(),
            count,
        };
        let near = [day("2026-03-01", 2), day("2026-03-30", 1)];
        assert_eq!(
            by_period(&near),
            [("2026-03-01".to_owned(), 2), ("2026-03-30".to_owned(), 1)]
        );
        let far = [
            day("2026-03-01", 2),
            day("2026-03-30", 1),
            day("2026-05-02", 4),
        ];
        assert_eq!(
            by_period(&far),
            [("2026-03".to_owned(), 3), ("2026-05".to_owned(), 4)]
        );
    }

    #[test]
    fn numbers_read_naturally() {
        assert_eq!(number(3.0), "3");
        assert_eq!(number(2.5), "2.5");
        assert_eq!(number(1.2345), "1.23");
        assert_eq!(number(-0.5), "-0.5");
    }
}
