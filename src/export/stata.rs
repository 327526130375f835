//! The download for Stata: a `.dta` file of format 118 (Stata 14 and later), written to the
//! format's published specification ("dta file format", StataCorp): a header, a map of the
//! sections' offsets, the variables' types, names, formats, value-label names and labels,
//! the data, long strings (strLs) and value labels. Numbers are doubles, dates `%td`, times
//! `%tc`; each choice is a long whose value label names the survey's options in order; every
//! text is a strL, so long texts stay whole. The rows and strLs go to temporary files as they
//! come (memory stays flat), then the file is sent in order, its offsets known.

use std::io::{Read, Seek, SeekFrom, Write};

use super::labelled::{Naming, Variable, replaced};
use super::responses::{Batches, Written};
use super::sheet::{Cell, Kind, Layout};
use super::xlsx::{ChannelWriter, failed};
use crate::stores::StoreError;

/// Stata's missing value of a double (`.`).
const MISSING_DOUBLE: u64 = 0x7fe0_0000_0000_0000;
/// Stata's missing value of a long (`.`).
const MISSING_LONG: i32 = 2_147_483_621;
/// Type codes of format 118.
const DOUBLE: u16 = 65526;
const LONG: u16 = 65528;
const STRL: u16 = 32768;
/// Days from Stata's epoch (1960-01-01) to the Unix epoch.
const EPOCH_DAYS: i64 = 3653;
/// The Julian day of Stata's epoch, 1960-01-01.
const STATA_EPOCH_JULIAN: i64 = 2_436_935;

/// Names Stata keeps for itself.
const RESERVED: [&str; 30] = [
    "_all", "_b", "byte", "_coef", "_cons", "double", "float", "if", "in", "int", "long", "_n",
    "_N", "_pi", "_pred", "_rc", "_skip", "strL", "using", "with", "_se", "str", "e", "_d", "_t",
    "_st", "_merge", "_est", "_s", "_w",
];

/// A variable's type code.
fn type_code(variable: &Variable) -> u16 {
    match variable.kind {
        Kind::Text => STRL,
        Kind::Choice(_) => LONG,
        _ => DOUBLE,
    }
}

/// A variable's display format.
fn display_format(variable: &Variable) -> &'static str {
    match variable.kind {
        Kind::Text => "%9s",
        Kind::Date => "%td",
        Kind::Moment => "%tc",
        Kind::Choice(_) => "%8.0g",
        Kind::Number => "%10.0g",
    }
}

/// Stata's rules for names: letters, digits and `_`, starting with a letter or `_`, at most
/// 32 characters, not one Stata keeps.
pub(super) const NAMING: Naming = Naming {
    shape: |id| {
        let mut name = replaced(id, |c| c.is_ascii_alphanumeric() || c == '_', '_');
        if name.is_empty() || name.starts_with(|c: char| c.is_ascii_digit()) {
            name = format!("v{name}");
        }
        if RESERVED.contains(&name.as_str()) || name.starts_with("str") {
            name = format!("v_{name}");
        }
        name.truncate(32);
        name
    },
    longest: 32,
    joint: '_',
    case_blind: false,
};

/// `text` in a fixed field of `width` bytes: cut at a character boundary to leave room for
/// the closing zero, then zero-padded.
fn fixed(text: &str, width: usize) -> Vec<u8> {
    let mut end = text.len().min(width - 1);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let mut field = text.as_bytes()[..end].to_vec();
    field.resize(width, 0);
    field
}

fn io(error: std::io::Error) -> StoreError {
    failed("writing the Stata download", error)
}

/// Writes the rows and strLs to temporary files, then the whole file onto `out`.
pub(super) fn write(
    title: &str,
    layout: &Layout,
    variables: &[Variable],
    mut batches: Batches,
    out: Written,
) -> Result<(), StoreError> {
    let mut data = std::io::BufWriter::new(tempfile::tempfile().map_err(io)?);
    let mut strls = std::io::BufWriter::new(tempfile::tempfile().map_err(io)?);
    let (mut rows, mut strls_len) = (0u64, 0u64);
    while let Some(batch) = batches.blocking_recv() {
        for answer in &batch? {
            rows += 1;
            for (at, (cell, variable)) in layout.row(answer).iter().zip(variables).enumerate() {
                match &variable.kind {
                    Kind::Text => {
                        let text = match cell {
                            Cell::Empty => String::new(),
                            Cell::Text(text) => text.clone(),
                            Cell::Number(n) => n.to_string(),
                            Cell::Date(d) => d.to_string(),
                            Cell::Moment(m) => m.to_string(),
                        };
                        if text.is_empty() {
                            data.write_all(&[0u8; 8]).map_err(io)?;
                            continue;
                        }
                        // (v, o): the variable (from 1) and the observation (from 1), in 2
                        // and 6 bytes in the data of format 118.
                        let (v, o) = (at as u32 + 1, rows);
                        data.write_all(&(v as u16).to_le_bytes()).map_err(io)?;
                        data.write_all(&o.to_le_bytes()[..6]).map_err(io)?;
                        let mut gso = b"GSO".to_vec();
                        gso.extend(v.to_le_bytes());
                        gso.extend(o.to_le_bytes());
                        gso.push(130); // text, written with a closing zero
                        gso.extend((text.len() as u32 + 1).to_le_bytes());
                        gso.extend(text.as_bytes());
                        gso.push(0);
                        strls.write_all(&gso).map_err(io)?;
                        strls_len += gso.len() as u64;
                    }
                    Kind::Choice(levels) => {
                        let code = match cell {
                            Cell::Text(text) => levels
                                .iter()
                                .position(|l| l == text)
                                .map_or(MISSING_LONG, |at| at as i32 + 1),
                            _ => MISSING_LONG,
                        };
                        data.write_all(&code.to_le_bytes()).map_err(io)?;
                    }
                    _ => {
                        let value = match cell {
                            Cell::Number(n) => n.to_bits(),
                            Cell::Date(d) => {
                                let days = i64::from(d.to_julian_day()) - STATA_EPOCH_JULIAN;
                                (days as f64).to_bits()
                            }
                            Cell::Moment(m) => {
                                let ms = m.unix_timestamp() * 1000 + EPOCH_DAYS * 86_400_000;
                                (ms as f64).to_bits()
                            }
                            _ => MISSING_DOUBLE,
                        };
                        data.write_all(&value.to_le_bytes()).map_err(io)?;
                    }
                }
            }
        }
    }
    let mut data = data.into_inner().map_err(|e| io(e.into_error()))?;
    let mut strls = strls.into_inner().map_err(|e| io(e.into_error()))?;
    let data_len = data.stream_position().map_err(io)?;
    data.seek(SeekFrom::Start(0)).map_err(io)?;
    strls.seek(SeekFrom::Start(0)).map_err(io)?;

    // Everything before the data, and the value labels, with the offsets they make.
    let k = variables.len();
    let mut head = Vec::new();
    head.extend(b"<stata_dta><header><release>118</release><byteorder>LSF</byteorder><K>");
    head.extend((k as u16).to_le_bytes());
    head.extend(b"</K><N>");
    head.extend(rows.to_le_bytes());
    head.extend(b"</N><label>");
    let label = fixed(title, 81);
    let label_len = label.iter().position(|b| *b == 0).unwrap_or(80);
    head.extend((label_len as u16).to_le_bytes());
    head.extend(&label[..label_len]);
    head.extend(b"</label><timestamp>");
    head.push(0);
    head.extend(b"</timestamp></header>");
    let map_at = head.len() as u64;
    let mut sections: Vec<(&[u8], Vec<u8>)> = Vec::new();
    let mut types = Vec::new();
    let mut names = Vec::new();
    let mut formats = Vec::new();
    let mut labels_of = Vec::new();
    let mut variable_labels = Vec::new();
    let mut value_labels = Vec::new();
    for variable in variables {
        types.extend(type_code(variable).to_le_bytes());
        names.extend(fixed(&variable.name, 129));
        formats.extend(fixed(display_format(variable), 57));
        let labelled = matches!(variable.kind, Kind::Choice(_));
        labels_of.extend(fixed(if labelled { &variable.name } else { "" }, 129));
        variable_labels.extend(fixed(&variable.label, 321));
        if let Kind::Choice(levels) = &variable.kind {
            value_labels.extend(value_label(&variable.name, levels));
        }
    }
    sections.push((b"variable_types", types));
    sections.push((b"varnames", names));
    sections.push((b"sortlist", vec![0u8; (k + 1) * 2]));
    sections.push((b"formats", formats));
    sections.push((b"value_label_names", labels_of));
    sections.push((b"variable_labels", variable_labels));
    sections.push((b"characteristics", Vec::new()));
    let map_len = (b"<map>".len() + 14 * 8 + b"</map>".len()) as u64;
    let mut offsets = vec![0u64, map_at];
    let mut at = map_at + map_len;
    let mut middle = Vec::new();
    for (name, body) in &sections {
        offsets.push(at);
        let part = [b"<", *name, b">", body.as_slice(), b"</", *name, b">"].concat();
        at += part.len() as u64;
        middle.extend(part);
    }
    offsets.push(at); // <data>
    at += b"<data>".len() as u64 + data_len + b"</data>".len() as u64;
    offsets.push(at); // <strls>
    at += b"<strls>".len() as u64 + strls_len + b"</strls>".len() as u64;
    offsets.push(at); // <value_labels>
    let tail = [
        b"<value_labels>".as_slice(),
        &value_labels,
        b"</value_labels>",
    ]
    .concat();
    at += tail.len() as u64;
    offsets.push(at); // </stata_dta>
    offsets.push(at + b"</stata_dta>".len() as u64); // end of file

    let mut writer = std::io::BufWriter::with_capacity(64 * 1024, ChannelWriter(out));
    writer.write_all(&head).map_err(io)?;
    writer.write_all(b"<map>").map_err(io)?;
    for offset in &offsets {
        writer.write_all(&offset.to_le_bytes()).map_err(io)?;
    }
    writer.write_all(b"</map>").map_err(io)?;
    writer.write_all(&middle).map_err(io)?;
    writer.write_all(b"<data>").map_err(io)?;
    copy(&mut data, &mut writer)?;
    writer.write_all(b"</data><strls>").map_err(io)?;
    copy(&mut strls, &mut writer)?;
    writer.write_all(b"</strls>").map_err(io)?;
    writer.write_all(&tail).map_err(io)?;
    writer.write_all(b"</stata_dta>").map_err(io)?;
    writer.flush().map_err(io)
}

fn copy(from: &mut std::fs::File, to: &mut impl Write) -> Result<(), StoreError> {
    let mut buffer = vec![0u8; 64 * 1024];
    loop {
        let read = from.read(&mut buffer).map_err(io)?;
        if read == 0 {
            return Ok(());
        }
        to.write_all(&buffer[..read]).map_err(io)?;
    }
}

/// One value label table: `<lbl>`, its length, name, padding, then the table (entries, text
/// length, each text's offset, each value, the texts with closing zeros).
fn value_label(name: &str, levels: &[String]) -> Vec<u8> {
    let mut texts = Vec::new();
    let mut offsets = Vec::new();
    for level in levels {
        offsets.extend((texts.len() as u32).to_le_bytes());
        let cut = fixed(level, level.len().min(32_000) + 1);
        texts.extend(cut);
    }
    let n = levels.len() as u32;
    let mut table = Vec::new();
    table.extend(n.to_le_bytes());
    table.extend((texts.len() as u32).to_le_bytes());
    table.extend(offsets);
    for value in 1..=n {
        table.extend(value.to_le_bytes());
    }
    table.extend(texts);
    let mut label = b"<lbl>".to_vec();
    label.extend((table.len() as u32).to_le_bytes());
    label.extend(fixed(name, 129));
    label.extend([0u8; 3]);
    label.extend(table);
    label.extend(b"</lbl>");
    label
}
