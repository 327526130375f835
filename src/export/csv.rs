//! The CSV download: the response sheet (see `sheet`) as CSV, streamed a batch of responses at
//! a time, so memory stays flat whatever the survey's size.
//!
//! It starts with a UTF-8 byte order mark unless asked not to: without it Excel reads the file
//! in the machine's legacy code page and garbles every accent. Every text a respondent or owner
//! wrote is made formula-safe (OWASP's CSV-injection rule): a cell starting with `=`, `+`,
//! `-`, `@`, a tab or a carriage return gets a leading `'`, so a spreadsheet shows it as text
//! instead of running it. Numbers and dates Canvass writes itself are left as they are.

use std::sync::Arc;

use bytes::Bytes;
use futures_util::{Stream, StreamExt, TryStreamExt};
use time::format_description::well_known::Rfc3339;

use super::responses::response_batches;
use super::sheet::{Cell, Layout, SheetOptions};
use crate::domain::Survey;
use crate::stores::{StoreError, Stores};

/// The UTF-8 byte order mark.
const BOM: &str = "\u{feff}";

/// A text cell a spreadsheet will not take for a formula.
pub fn formula_safe(text: &str) -> String {
    match text.chars().next() {
        Some('=' | '+' | '-' | '@' | '\t' | '\r') => format!("'{text}"),
        _ => text.to_owned(),
    }
}

fn text(cell: &Cell) -> String {
    match cell {
        Cell::Empty => String::new(),
        Cell::Text(text) => formula_safe(text),
        Cell::Number(number) => number.to_string(),
        Cell::Date(date) => date.to_string(),
        Cell::Moment(moment) => seconds(*moment),
    }
}

/// A moment as ISO 8601 in UTC to the second (`2026-03-01T09:30:05Z`): what spreadsheets and
/// people read; the nanoseconds stored carry nothing for them.
fn seconds(moment: time::OffsetDateTime) -> String {
    let utc = moment.to_offset(time::UtcOffset::UTC);
    utc.replace_nanosecond(0)
        .unwrap_or(utc)
        .format(&Rfc3339)
        .unwrap_or_default()
}

fn encode(records: impl IntoIterator<Item = Vec<String>>) -> Result<Bytes, StoreError> {
    let failed = |error: &dyn std::fmt::Display| StoreError::Storage {
        doing: "writing CSV".into(),
        source: crate::storage::Error::backend(error.to_string()),
    };
    let mut writer = ::csv::Writer::from_writer(Vec::new());
    for record in records {
        writer.write_record(&record).map_err(|e| failed(&e))?;
    }
    let bytes = writer.into_inner().map_err(|e| failed(&e))?;
    Ok(Bytes::from(bytes))
}

/// The header: a BOM if asked for, the questions' texts, and their ids if asked for.
fn header(layout: &Layout, options: SheetOptions) -> Result<Bytes, StoreError> {
    let mut rows = vec![
        layout
            .columns
            .iter()
            .map(|c| formula_safe(&c.header))
            .collect::<Vec<_>>(),
    ];
    if options.ids {
        rows.push(layout.columns.iter().map(|c| c.id.clone()).collect());
    }
    let body = encode(rows)?;
    Ok(match options.bom {
        true => [BOM.as_bytes(), &body].concat().into(),
        false => body,
    })
}

/// The survey's responses as a stream of CSV bytes, oldest first.
pub fn csv_stream(
    stores: Stores,
    survey: Arc<Survey>,
    layout: Layout,
    options: SheetOptions,
) -> impl Stream<Item = Result<Bytes, StoreError>> {
    let layout = Arc::new(layout);
    let first = futures_util::stream::once({
        let layout = layout.clone();
        async move { header(&layout, options) }
    });
    let rows = response_batches(stores, survey).and_then(move |answers| {
        let layout = layout.clone();
        async move {
            encode(
                answers
                    .iter()
                    .map(|answer| layout.row(answer).iter().map(text).collect::<Vec<_>>()),
            )
        }
    });
    first.chain(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moments_are_written_in_utc_to_the_second() {
        let moment = time::macros::datetime!(2026-03-01 10:30:05.123456789 +01:00);
        assert_eq!(seconds(moment), "2026-03-01T09:30:05Z");
    }

    #[test]
    fn cells_that_a_spreadsheet_would_run_are_made_text() {
        for (input, expected) in [
            ("=1+1", "'=1+1"),
            ("+44 20", "'+44 20"),
            ("-5", "'-5"),
            ("@SUM(A1)", "'@SUM(A1)"),
            ("\tx", "'\tx"),
            ("\rx", "'\rx"),
            ("plain", "plain"),
            ("a=b", "a=b"),
            ("", ""),
        ] {
            assert_eq!(formula_safe(input), expected, "case {input:?}");
        }
        assert_eq!(text(&Cell::Number(-5.0)), "-5");
        assert_eq!(text(&Cell::Text("=A; B".into())), "'=A; B");
        assert_eq!(
            text(&Cell::Date(time::macros::date!(2026 - 03 - 01))),
            "2026-03-01"
        );
    }
}
