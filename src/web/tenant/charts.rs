//! The summary page's bar charts: each bar's label, count and share, drawn by the template
//! as a table (so screen readers read the numbers, and text keeps its size on a phone) whose
//! bars are `progress` elements scaled to the answers they are a share of, so a bar's length
//! reads as its share (no JavaScript, no inline style).

use crate::domain::summary::{CHART_BARS, DayCount, QuestionReport, Stats, fold_bins};

/// One bar: a label, a count and its share.
pub struct Bar {
    /// What the bar stands for.
    pub label: String,
    /// How many.
    pub count: u64,
    /// Share of all counted, in percent with one decimal (`66.7`).
    pub percent: String,
}

/// A horizontal bar chart.
pub struct BarChart {
    /// The bars, top to bottom.
    pub bars: Vec<Bar>,
    /// The full length of a bar: the count shares are of (at least the largest bar, and 1).
    pub scale: u64,
}

/// `count` of `of` in percent with one decimal (`66.7`; `0.0` of nothing).
pub fn share(count: u64, of: u64) -> String {
    match of {
        0 => "0.0".into(),
        of => format!("{:.1}", count as f64 * 100.0 / of as f64),
    }
}

impl BarChart {
    /// Bars for labelled counts; shares are of `of` (the respondents, for choices), and a
    /// bar as long as `of` is the full length.
    pub fn new(items: Vec<(String, u64)>, of: u64) -> Self {
        let largest = items.iter().map(|(_, count)| *count).max().unwrap_or(0);
        let bars: Vec<Bar> = items
            .into_iter()
            .map(|(label, count)| Bar {
                label,
                count,
                percent: share(count, of),
            })
            .collect();
        Self {
            bars,
            scale: of.max(largest).max(1),
        }
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
/// its count and share per column and a stacked bar of them.
pub struct Grid {
    /// The columns' texts.
    pub columns: Vec<String>,
    /// Each row, in the question's order.
    pub rows: Vec<GridRow>,
}

/// One row of a matrix's grid.
pub struct GridRow {
    /// The row's text.
    pub text: String,
    /// Per column: its count and share of the row's answers (`66.7`).
    pub cells: Vec<(u64, String)>,
    /// The row's answers.
    pub answered: u64,
    /// The stacked bar: per column with answers, its start and width out of 100 and its
    /// column's place (for its colour), drawn as SVG rectangles.
    pub segments: Vec<(f64, f64, usize)>,
}

impl GridRow {
    fn new(text: String, counts: Vec<u64>) -> Self {
        let answered: u64 = counts.iter().sum();
        let mut start = 0.0;
        let mut segments = Vec::new();
        for (column, count) in counts.iter().enumerate() {
            if *count == 0 || answered == 0 {
                continue;
            }
            let width = *count as f64 * 100.0 / answered as f64;
            segments.push((start, width, column % 6));
            start += width;
        }
        Self {
            text,
            cells: counts.iter().map(|c| (*c, share(*c, answered))).collect(),
            answered,
            segments,
        }
    }
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
                GridRow::new(row.row.clone(), counts)
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
        // Best average place first; each bar is how many put it first.
        Stats::Ranking { ranking } => BarChart::new(
            ranking
                .iter()
                .map(|r| {
                    let place = r
                        .mean_place
                        .map_or("not placed".into(), |p| format!("average place {:.1}", p));
                    (format!("{}: {place}, first for", r.option), r.first)
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
    fn bars_are_scaled_to_the_answers_and_shares_have_one_decimal() {
        let chart = BarChart::new(vec![("Tea".into(), 2), ("Coffee".into(), 1)], 3);
        assert_eq!(chart.scale, 3, "a bar of every answer is the full length");
        assert_eq!(
            (
                chart.bars[0].percent.as_str(),
                chart.bars[1].percent.as_str()
            ),
            ("66.7", "33.3")
        );
        assert_eq!(BarChart::new(vec![("None".into(), 0)], 0).scale, 1);
        assert_eq!(BarChart::new(vec![("Many".into(), 5)], 2).scale, 5);
        assert_eq!(share(1, 8), "12.5");
        assert_eq!(share(0, 0), "0.0");
    }

    #[test]
    fn a_matrix_row_has_its_shares_and_a_stacked_bar_that_fills_it() {
        let row = GridRow::new("Pace".into(), vec![1, 0, 3]);
        assert_eq!(row.answered, 4);
        assert_eq!(
            row.cells,
            [
                (1, "25.0".to_owned()),
                (0, "0.0".into()),
                (3, "75.0".into())
            ]
        );
        assert_eq!(row.segments, [(0.0, 25.0, 0), (25.0, 75.0, 2)]);
        assert!(GridRow::new("None".into(), vec![0, 0]).segments.is_empty());
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
