//! The download for SPSS: a `.sav` system file, written to the format as GNU PSPP's developer
//! guide documents it ("System File Format"): the file header, a variable record per 8 bytes
//! of each case, value labels for each choice, the machine and encoding records (UTF-8), long
//! variable names, very long strings, then the cases, bytecode-compressed.
//!
//! Numbers are doubles (an unanswered question is the system-missing value), dates `DATE11`
//! and moments `DATETIME20` (seconds since 14 October 1582), each choice a code 1 to N whose
//! value labels name the survey's options in order. A text is a string as wide as its longest
//! answer, at most 32,767 bytes (SPSS's limit; a longer answer is cut there, at a character).
//! A string's width must be known before the first case, so the rows go to a temporary file
//! first (memory stays flat), then the file is written.

use std::io::{BufReader, BufWriter, Read, Seek, SeekFrom, Write};

use super::labelled::{Naming, Variable, replaced};
use super::responses::{Batches, Written};
use super::sheet::{Cell, Kind, Layout};
use super::xlsx::{ChannelWriter, failed};
use crate::stores::StoreError;

/// The system-missing value.
const SYSMIS: f64 = -f64::MAX;
/// Widest string SPSS takes, in bytes.
const MAX_WIDTH: usize = 32_767;
/// Longest value label SPSS shows, in bytes.
const MAX_VALUE_LABEL: usize = 120;
/// Longest variable label kept, in bytes.
const MAX_VARIABLE_LABEL: usize = 255;
/// Seconds from SPSS's epoch (1582-10-14) to the Unix epoch.
const EPOCH_SECONDS: f64 = 12_219_379_200.0;
/// Compression bias: a whole number from 1 - BIAS to 251 - BIAS is stored in one byte.
const BIAS: f64 = 100.0;
/// Format type codes.
const FORMAT_A: i32 = 1;
const FORMAT_F: i32 = 5;
const FORMAT_DATE: i32 = 20;
const FORMAT_DATETIME: i32 = 22;

/// Words SPSS keeps for itself.
const RESERVED: [&str; 13] = [
    "ALL", "AND", "BY", "EQ", "GE", "GT", "LE", "LT", "NE", "NOT", "OR", "TO", "WITH",
];

/// SPSS's rules for names: letters, digits, `_` and `.`, starting with a letter, not ending
/// with `.` or `_`, at most 64 bytes, not a reserved word; case does not tell names apart.
pub(super) const NAMING: Naming = Naming {
    shape: |id| {
        let mut name = replaced(id, |c| c.is_ascii_alphanumeric() || c == '_', '_');
        if !name.starts_with(|c: char| c.is_ascii_alphabetic()) {
            name = format!("v{name}");
        }
        if RESERVED.contains(&name.to_ascii_uppercase().as_str()) {
            name = format!("v_{name}");
        }
        name.truncate(64);
        name
    },
    longest: 64,
    joint: '_',
    case_blind: true,
};

fn is_text(variable: &Variable) -> bool {
    variable.kind == Kind::Text
}

/// A variable's value in a case, as a number (SPSS's units for dates and moments).
fn number(variable: &Variable, cell: &Cell) -> f64 {
    match (cell, &variable.kind) {
        (Cell::Text(text), Kind::Choice(levels)) => levels
            .iter()
            .position(|level| level == text)
            .map_or(SYSMIS, |at| at as f64 + 1.0),
        (Cell::Number(n), _) => *n,
        (Cell::Date(d), _) => {
            let midnight = d.midnight().assume_utc().unix_timestamp() as f64;
            midnight + EPOCH_SECONDS
        }
        (Cell::Moment(m), _) => m.unix_timestamp() as f64 + EPOCH_SECONDS,
        _ => SYSMIS,
    }
}

/// A variable's print and write format, packed as the variable record has it.
fn format(variable: &Variable, width: usize) -> i32 {
    let (kind, width, decimals) = match variable.kind {
        Kind::Text => (FORMAT_A, width.min(255) as i32, 0),
        Kind::Date => (FORMAT_DATE, 11, 0),
        Kind::Moment => (FORMAT_DATETIME, 20, 0),
        Kind::Choice(_) => (FORMAT_F, 8, 0),
        Kind::Number => (FORMAT_F, 11, 2),
    };
    (kind << 16) | (width << 8) | decimals
}

/// The widths of a string's segments: one up to 255 bytes, or for a very long string one of
/// 255 for every 252 bytes of width, the last holding what remains.
fn segments(width: usize) -> Vec<usize> {
    if width <= 255 {
        return vec![width];
    }
    let count = width.div_ceil(252);
    let mut widths = vec![255; count - 1];
    widths.push(width - (count - 1) * 252);
    widths
}

/// The bytes a segment of `width` takes in a case: a multiple of 8.
fn allocated(width: usize) -> usize {
    width.div_ceil(8) * 8
}

/// `text` cut to at most `most` bytes, at a character boundary.
fn cut(text: &str, most: usize) -> &str {
    let mut end = text.len().min(most);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

fn io(error: std::io::Error) -> StoreError {
    failed("writing the SPSS download", error)
}

/// Writes the cases to a temporary file (numbers as 8 bytes, texts with their length), noting
/// each string's widest value; then the dictionary and the compressed cases onto `out`.
pub(super) fn write(
    title: &str,
    layout: &Layout,
    variables: &[Variable],
    mut batches: Batches,
    out: Written,
) -> Result<(), StoreError> {
    let mut rows = BufWriter::new(tempfile::tempfile().map_err(io)?);
    let mut widths = vec![1usize; variables.len()];
    let mut cases = 0u64;
    while let Some(batch) = batches.blocking_recv() {
        for answer in &batch? {
            cases += 1;
            for (at, (cell, variable)) in layout.row(answer).iter().zip(variables).enumerate() {
                if is_text(variable) {
                    let text = match cell {
                        Cell::Empty => String::new(),
                        Cell::Text(text) => text.clone(),
                        Cell::Number(n) => n.to_string(),
                        Cell::Date(d) => d.to_string(),
                        Cell::Moment(m) => m.to_string(),
                    };
                    let text = cut(&text, MAX_WIDTH);
                    widths[at] = widths[at].max(text.len());
                    rows.write_all(&(text.len() as u32).to_le_bytes())
                        .map_err(io)?;
                    rows.write_all(text.as_bytes()).map_err(io)?;
                } else {
                    rows.write_all(&number(variable, cell).to_le_bytes())
                        .map_err(io)?;
                }
            }
        }
    }
    let mut rows = rows.into_inner().map_err(|e| io(e.into_error()))?;
    rows.seek(SeekFrom::Start(0)).map_err(io)?;
    let mut rows = BufReader::new(rows);

    let mut out = BufWriter::with_capacity(64 * 1024, ChannelWriter(out));
    let dictionary = dictionary(title, variables, &widths, cases);
    out.write_all(&dictionary).map_err(io)?;
    let mut cases_out = Compressor::new(&mut out);
    let mut length = [0u8; 4];
    let mut number = [0u8; 8];
    let mut text = Vec::new();
    for _ in 0..cases {
        for (variable, &width) in variables.iter().zip(&widths) {
            if !is_text(variable) {
                rows.read_exact(&mut number).map_err(io)?;
                cases_out.number(f64::from_le_bytes(number)).map_err(io)?;
                continue;
            }
            rows.read_exact(&mut length).map_err(io)?;
            text.resize(u32::from_le_bytes(length) as usize, 0);
            rows.read_exact(&mut text).map_err(io)?;
            // Each segment holds 255 bytes of the text (the last what remains), padded
            // with spaces to its allocation.
            let mut rest: &[u8] = &text;
            for segment in segments(width) {
                let take = rest.len().min(segment.min(255));
                let mut chunk = rest[..take].to_vec();
                rest = &rest[take..];
                chunk.resize(allocated(segment), b' ');
                cases_out.text(&chunk).map_err(io)?;
            }
        }
    }
    cases_out.finish().map_err(io)?;
    out.flush().map_err(io)
}

/// Everything before the cases: the header, the variable records, the value labels, the
/// machine, long name, very long string and encoding records, and the terminator.
fn dictionary(title: &str, variables: &[Variable], widths: &[usize], cases: u64) -> Vec<u8> {
    let mut records = Vec::new();
    let int = |out: &mut Vec<u8>, n: i32| out.extend(n.to_le_bytes());
    let padded = |text: &str, width: usize| {
        let mut bytes = cut(text, width).as_bytes().to_vec();
        bytes.resize(width, b' ');
        bytes
    };
    // Each dictionary entry (8 bytes of a case) gets a short name of its own: V1, V2...
    let mut index = 0usize;
    let mut short_names = Vec::with_capacity(variables.len());
    let mut long_names = Vec::new();
    let mut very_long = Vec::new();
    let mut labelled: Vec<(usize, &[String])> = Vec::new();
    for (variable, &width) in variables.iter().zip(widths) {
        let first_short = format!("V{}", index + 1);
        short_names.push(first_short.clone());
        long_names.push(format!("{first_short}={}", variable.name));
        if let Kind::Choice(levels) = &variable.kind {
            labelled.push((index + 1, levels));
        }
        let widths_here = match is_text(variable) {
            true => segments(width),
            false => vec![0],
        };
        if widths_here.len() > 1 {
            very_long.extend(format!("{first_short}={width:05}").bytes());
            very_long.extend([0, b'\t']);
        }
        for (part, &segment) in widths_here.iter().enumerate() {
            let short = format!("V{}", index + 1);
            int(&mut records, 2);
            int(&mut records, segment as i32);
            let label = (part == 0).then(|| cut(&variable.label, MAX_VARIABLE_LABEL));
            int(&mut records, i32::from(label.is_some()));
            int(&mut records, 0); // no user-missing values: unanswered is system-missing
            let format = format(variable, segment);
            int(&mut records, format);
            int(&mut records, format);
            records.extend(padded(&short, 8));
            if let Some(label) = label {
                int(&mut records, label.len() as i32);
                let mut bytes = label.as_bytes().to_vec();
                bytes.resize(label.len().div_ceil(4) * 4, b' ');
                records.extend(bytes);
            }
            index += 1;
            // A string wider than 8 bytes: one more entry per 8 bytes, with nothing in it.
            for _ in 1..allocated(segment.max(1)) / 8 {
                int(&mut records, 2);
                int(&mut records, -1);
                for _ in 0..4 {
                    int(&mut records, 0);
                }
                records.extend(padded("", 8));
                index += 1;
            }
        }
    }
    // Value labels: a labels record, then the variables (by entry, from 1) they are of.
    for (entry, levels) in &labelled {
        int(&mut records, 3);
        int(&mut records, levels.len() as i32);
        for (at, level) in levels.iter().enumerate() {
            records.extend((at as f64 + 1.0).to_le_bytes());
            let label = cut(level, MAX_VALUE_LABEL);
            records.push(label.len() as u8);
            let mut bytes = label.as_bytes().to_vec();
            // The length byte and the label fill a multiple of 8 bytes.
            bytes.resize((label.len() + 1).div_ceil(8) * 8 - 1, b' ');
            records.extend(bytes);
        }
        int(&mut records, 4);
        int(&mut records, 1);
        int(&mut records, *entry as i32);
    }
    // Machine integer info: version 1.0.0, IEEE 754, compressed, little-endian, UTF-8.
    let mut extension = |subtype: i32, size: i32, body: &[u8]| {
        int(&mut records, 7);
        int(&mut records, subtype);
        int(&mut records, size);
        int(&mut records, body.len() as i32 / size);
        records.extend(body);
    };
    let ints: Vec<u8> = [1, 0, 0, -1, 1, 1, 2, 65001]
        .iter()
        .flat_map(|n: &i32| n.to_le_bytes())
        .collect();
    extension(3, 4, &ints);
    let lowest = f64::from_bits(0xffef_ffff_ffff_fffe);
    let floats: Vec<u8> = [SYSMIS, f64::MAX, lowest]
        .iter()
        .flat_map(|n| n.to_le_bytes())
        .collect();
    extension(4, 8, &floats);
    extension(13, 1, long_names.join("\t").as_bytes());
    if !very_long.is_empty() {
        extension(14, 1, &very_long);
    }
    extension(20, 1, b"UTF-8");
    int(&mut records, 999);
    int(&mut records, 0);

    let mut header = Vec::with_capacity(176 + records.len());
    header.extend(b"$FL2");
    header.extend(padded("@(#) SPSS DATA FILE Canvass", 60));
    int(&mut header, 2); // layout code: little-endian
    int(&mut header, index as i32); // 8-byte entries per case
    int(&mut header, 1); // bytecode compression
    int(&mut header, 0); // no weight
    int(&mut header, i32::try_from(cases).unwrap_or(-1));
    header.extend(BIAS.to_le_bytes());
    let now = time::OffsetDateTime::now_utc();
    let months = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let date = format!(
        "{:02} {} {:02}",
        now.day(),
        months[usize::from(u8::from(now.month())) - 1],
        now.year() % 100
    );
    header.extend(padded(&date, 9));
    let clock = format!("{:02}:{:02}:{:02}", now.hour(), now.minute(), now.second());
    header.extend(padded(&clock, 8));
    header.extend(padded(title, 64));
    header.extend([0u8; 3]);
    header.extend(records);
    header
}

/// Bytecode compression: each 8-byte unit of a case becomes a command byte (a small whole
/// number, system-missing, eight spaces) or command 253 and the unit as it is; commands go
/// in blocks of eight, each block followed by its units written as they are.
struct Compressor<'a, W: Write> {
    out: &'a mut W,
    commands: Vec<u8>,
    raw: Vec<u8>,
}

impl<'a, W: Write> Compressor<'a, W> {
    fn new(out: &'a mut W) -> Self {
        Self {
            out,
            commands: Vec::with_capacity(8),
            raw: Vec::with_capacity(64),
        }
    }

    fn command(&mut self, command: u8, unit: Option<&[u8]>) -> std::io::Result<()> {
        self.commands.push(command);
        if let Some(unit) = unit {
            self.raw.extend_from_slice(unit);
        }
        if self.commands.len() == 8 {
            self.out.write_all(&self.commands)?;
            self.out.write_all(&self.raw)?;
            self.commands.clear();
            self.raw.clear();
        }
        Ok(())
    }

    fn number(&mut self, value: f64) -> std::io::Result<()> {
        let small = value.fract() == 0.0 && (1.0 - BIAS..=251.0 - BIAS).contains(&value);
        match () {
            _ if value == SYSMIS => self.command(255, None),
            _ if small => self.command((value + BIAS) as u8, None),
            _ => self.command(253, Some(&value.to_le_bytes())),
        }
    }

    /// A string's allocated bytes (a multiple of 8).
    fn text(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        for unit in bytes.chunks(8) {
            match unit == b"        " {
                true => self.command(254, None)?,
                false => self.command(253, Some(unit))?,
            }
        }
        Ok(())
    }

    /// Ends the cases: the last block filled with zeros (commands to skip).
    fn finish(mut self) -> std::io::Result<()> {
        if !self.commands.is_empty() {
            while self.commands.len() < 8 {
                self.commands.push(0);
            }
            self.out.write_all(&self.commands)?;
            self.out.write_all(&self.raw)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_very_long_string_is_split_as_spss_does() {
        assert_eq!(segments(8), [8]);
        assert_eq!(segments(255), [255]);
        assert_eq!(segments(256), [255, 4]);
        assert_eq!(segments(600), [255, 255, 96]);
        assert_eq!(segments(20_000).len(), 80);
        assert_eq!(segments(20_000)[79], 20_000 - 79 * 252);
    }

    #[test]
    fn small_whole_numbers_take_a_byte_and_blocks_are_eight_commands() {
        let mut out = Vec::new();
        let mut compressor = Compressor::new(&mut out);
        compressor.number(3.0).expect("written");
        compressor.number(SYSMIS).expect("written");
        compressor.number(2.5).expect("written");
        compressor.text(b"ab      ").expect("written");
        compressor.text(b"        ").expect("written");
        compressor.finish().expect("written");
        let mut expected = vec![103, 255, 253, 253, 254, 0, 0, 0];
        expected.extend(2.5f64.to_le_bytes());
        expected.extend(b"ab      ");
        assert_eq!(out, expected);
    }

    #[test]
    fn names_follow_spss_rules_and_differ_beyond_case() {
        let shape = NAMING.shape;
        assert_eq!(shape("drink[Tea]"), "drink_Tea");
        assert_eq!(shape("1a"), "v1a");
        assert_eq!(shape("and"), "v_and");
        assert_eq!(shape("x.y"), "x_y");
    }
}
