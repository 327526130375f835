//! The download for R: a zip of `responses.csv` (the response sheet, one header row of names
//! R takes as they are) and `responses.R`, a script that reads it with each column typed
//! (numbers as numbers, dates as `Date`, submission times as `POSIXct` in UTC), each choice
//! a factor with the survey's options as its levels in order, and each column's question as
//! its `label` attribute. Streamed as the XLSX download is: rows are deflated into the zip
//! as batches arrive, so memory stays flat whatever the survey's size.

use std::io::Write;
use std::sync::Arc;

use bytes::Bytes;
use futures_util::Stream;
use zip::write::SimpleFileOptions;

use super::labelled::{Naming, replaced};
use super::responses::{Batches, Written, written_on_a_thread};
use super::sheet::{Cell, Kind, Layout};
use super::xlsx::{ChannelWriter, failed};
use crate::domain::Survey;
use crate::stores::{StoreError, Stores};

/// Bytes handed to the response at a time.
const CHUNK_BYTES: usize = 64 * 1024;

/// R's reserved words, which a name may not be.
const RESERVED: [&str; 20] = [
    "if",
    "else",
    "repeat",
    "while",
    "function",
    "for",
    "next",
    "break",
    "TRUE",
    "FALSE",
    "NULL",
    "Inf",
    "NaN",
    "NA",
    "NA_integer_",
    "NA_real_",
    "NA_character_",
    "NA_complex_",
    "in",
    "return",
];

/// R's rules for names (`make.names` and `make.unique` in R's terms): letters, digits, `.`
/// and `_`, starting with a letter (or a dot not followed by a digit), not a reserved word.
const NAMING: Naming = Naming {
    shape: |id| {
        let mut name = replaced(
            id,
            |c| c.is_ascii_alphanumeric() || c == '_' || c == '.',
            '.',
        );
        let starts_well = name.starts_with(|c: char| c.is_ascii_alphabetic())
            || (name.starts_with('.') && !name[1..].starts_with(|c: char| c.is_ascii_digit()));
        if !starts_well {
            name = format!("X{name}");
        }
        if RESERVED.contains(&name.as_str()) {
            name.push('.');
        }
        name
    },
    longest: usize::MAX,
    joint: '.',
    case_blind: false,
};

/// Each column's name as R takes it, each different.
pub fn names(layout: &Layout) -> Vec<String> {
    super::labelled::names(layout, &NAMING)
}

/// `text` as an R string literal: double-quoted, non-ASCII as `\u{...}` escapes, so the
/// script reads the same whatever the reader's locale.
fn quoted(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c.is_ascii_graphic() || c == ' ' => out.push(c),
            c => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
        }
    }
    out.push('"');
    out
}

/// The script that reads `responses.csv` into `responses`, typed and labelled.
pub fn script(survey: &Survey, layout: &Layout) -> String {
    let names = names(layout);
    let mut lines = vec![
        format!(
            "# Responses to {}, downloaded from Canvass.",
            quoted(&survey.title)
        ),
        "# Run it where responses.csv is: source(\"responses.R\") makes `responses`.".to_owned(),
        "responses <- read.csv(\"responses.csv\", colClasses = \"character\", check.names = FALSE,"
            .to_owned(),
        "                      na.strings = \"\", encoding = \"UTF-8\", fileEncoding = \"UTF-8\")"
            .to_owned(),
    ];
    for (column, name) in layout.columns.iter().zip(&names) {
        let at = format!("responses[[{}]]", quoted(name));
        match column.kind(survey) {
            Kind::Text => {}
            Kind::Number => lines.push(format!("{at} <- as.numeric({at})")),
            Kind::Date => lines.push(format!("{at} <- as.Date({at})")),
            Kind::Moment => lines.push(format!(
                "{at} <- as.POSIXct({at}, format = \"%Y-%m-%dT%H:%M:%SZ\", tz = \"UTC\")"
            )),
            Kind::Choice(levels) => {
                let levels: Vec<String> = levels.iter().map(|l| quoted(l)).collect();
                lines.push(format!(
                    "{at} <- factor({at}, levels = c({}))",
                    levels.join(", ")
                ));
            }
        }
        lines.push(format!(
            "attr({at}, \"label\") <- {}",
            quoted(&column.header)
        ));
    }
    lines.push(String::new());
    lines.join("\n")
}

/// A cell as the CSV for R writes it: as it is (no spreadsheet quoting; R reads text as text).
fn text(cell: &Cell) -> String {
    match cell {
        Cell::Empty => String::new(),
        Cell::Text(text) => text.clone(),
        Cell::Number(number) => number.to_string(),
        Cell::Date(date) => date.to_string(),
        Cell::Moment(moment) => {
            let utc = moment.to_offset(time::UtcOffset::UTC);
            let format =
                time::macros::format_description!("[year]-[month]-[day]T[hour]:[minute]:[second]Z");
            utc.format(&format).unwrap_or_default()
        }
    }
}

/// The survey's responses as a stream of zip bytes.
pub fn r_zip_stream(
    stores: Stores,
    survey: Arc<Survey>,
    layout: Layout,
) -> impl Stream<Item = Result<Bytes, StoreError>> {
    let script = script(&survey, &layout);
    written_on_a_thread(stores, survey, move |batches, out| {
        write(&layout, &script, batches, out)
    })
}

/// Writes the CSV entry batch by batch, then the script, onto `out`.
fn write(
    layout: &Layout,
    script: &str,
    mut batches: Batches,
    out: Written,
) -> Result<(), StoreError> {
    let zipping = |error: zip::result::ZipError| failed("writing the R download", error);
    let writer = std::io::BufWriter::with_capacity(CHUNK_BYTES, ChannelWriter(out));
    let mut zip = zip::ZipWriter::new_stream(writer);
    let options = SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
    zip.start_file("responses.csv", options).map_err(zipping)?;
    {
        let mut csv = ::csv::Writer::from_writer(&mut zip);
        let fail = |error: ::csv::Error| failed("writing the R download", error);
        csv.write_record(names(layout)).map_err(fail)?;
        while let Some(batch) = batches.blocking_recv() {
            for answer in &batch? {
                let row: Vec<String> = layout.row(answer).iter().map(text).collect();
                csv.write_record(&row).map_err(fail)?;
            }
        }
        csv.flush()
            .map_err(|error| failed("writing the R download", error))?;
    }
    zip.start_file("responses.R", options).map_err(zipping)?;
    zip.write_all(script.as_bytes())
        .map_err(|error| failed("writing the R download", error))?;
    let mut written = zip.finish().map_err(zipping)?;
    written
        .flush()
        .map_err(|error| failed("writing the R download", error))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_are_escaped_for_r_whatever_they_hold() {
        assert_eq!(quoted("plain"), "\"plain\"");
        assert_eq!(quoted("say \"hi\"\\n\n"), "\"say \\\"hi\\\"\\\\n\\n\"");
        assert_eq!(quoted("Café"), "\"Caf\\u{e9}\"");
    }
}
