//! Sheets of text cells that people fill in and send back (a survey's translations, its
//! participants): written as CSV or XLSX, and read back from either, told apart by their
//! content, never their name; read within the bounds each import sets (`workbook::Bounds`).

pub use super::workbook::SheetError as UploadedSheetError;
use super::workbook::{self, Bounds};

/// The rows as CSV (UTF-8 with a byte order mark, so spreadsheet programs read it as UTF-8;
/// a cell a spreadsheet would take for a formula starts with `'`, which `read_rows` drops).
pub fn csv_bytes(rows: &[Vec<String>]) -> Vec<u8> {
    let mut writer = csv::Writer::from_writer("\u{feff}".as_bytes().to_vec());
    for row in rows {
        // Writing to memory cannot fail.
        let _ = writer.write_record(row.iter().map(|cell| super::formula_safe(cell)));
    }
    writer.into_inner().unwrap_or_default()
}

/// The rows as an XLSX workbook of one sheet named `name`: every cell a string (never a
/// formula), the first row bold and frozen, columns wide enough to read.
pub fn xlsx_bytes(rows: &[Vec<String>], name: &str) -> Result<Vec<u8>, rust_xlsxwriter::XlsxError> {
    let mut book = rust_xlsxwriter::Workbook::new();
    let sheet = book.add_worksheet();
    sheet.set_name(name)?;
    let bold = rust_xlsxwriter::Format::new().set_bold();
    let wrapped = rust_xlsxwriter::Format::new().set_text_wrap();
    for (r, row) in rows.iter().enumerate() {
        let format = if r == 0 { &bold } else { &wrapped };
        for (c, cell) in row.iter().enumerate() {
            sheet.write_string_with_format(r as u32, c as u16, cell, format)?;
        }
    }
    let columns = rows.first().map_or(0, Vec::len);
    sheet.set_column_width(0, 24)?;
    for c in 1..columns {
        sheet.set_column_width(c as u16, 48)?;
    }
    sheet.set_freeze_panes(1, 1)?;
    book.save_to_buffer()
}

/// An XLSX file is a zip archive: it starts with a zip entry's signature.
const ZIP: &[u8] = b"PK\x03\x04";

/// The rows of the first sheet of an XLSX workbook, or of a CSV file (UTF-8, with or without
/// a byte order mark), as text, within `bounds`. A CSV cell this site wrote with a leading `'`
/// so spreadsheets would not take it for a formula (`export::formula_safe`) is read without it.
pub fn read_rows(bytes: &[u8], bounds: &Bounds) -> Result<Vec<Vec<String>>, UploadedSheetError> {
    match bytes.starts_with(ZIP) {
        true => workbook::first_sheet(bytes, bounds),
        false => csv_rows(bytes, bounds),
    }
}

fn csv_rows(bytes: &[u8], bounds: &Bounds) -> Result<Vec<Vec<String>>, UploadedSheetError> {
    let bytes = bytes.strip_prefix("\u{feff}".as_bytes()).unwrap_or(bytes);
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_reader(bytes);
    let (mut rows, mut cells) = (Vec::new(), 0usize);
    for record in reader.records() {
        if rows.len() == bounds.rows {
            return Err(UploadedSheetError::TooManyRows(bounds.rows));
        }
        let record = record.map_err(|error| {
            let line = error.position().map_or(0, |p| p.line());
            UploadedSheetError::Unreadable(format!(
                "this file is neither XLSX nor UTF-8 CSV (line {line} cannot be read)"
            ))
        })?;
        if record.len() > bounds.columns {
            return Err(UploadedSheetError::TooManyColumns(bounds.columns));
        }
        cells += record.len();
        if cells > bounds.cells {
            return Err(UploadedSheetError::TooManyCells(bounds.cells));
        }
        rows.push(record.iter().map(unquoted).collect());
    }
    Ok(rows)
}

/// A CSV cell without the `'` `formula_safe` put before a leading formula character.
fn unquoted(cell: &str) -> String {
    match cell.strip_prefix('\'') {
        Some(rest) if rest.starts_with(['=', '+', '-', '@', '\t', '\r']) => rest.to_owned(),
        _ => cell.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEN: Bounds = Bounds::sheet(10, 10, 100);

    #[test]
    fn what_is_written_reads_back_the_same_as_csv_and_as_xlsx() {
        let rows: Vec<Vec<String>> = [
            ["key", "en", "de"],
            ["title", "=Lunch, \"late\"", "Mittag\nspät"],
            ["q:a:option:0", "-1", "@home"],
        ]
        .iter()
        .map(|row| row.iter().map(|c| (*c).to_owned()).collect())
        .collect();
        assert_eq!(read_rows(&csv_bytes(&rows), &TEN), Ok(rows.clone()));
        let xlsx = xlsx_bytes(&rows, "Translations").expect("written");
        assert_eq!(read_rows(&xlsx, &TEN), Ok(rows));
    }

    #[test]
    fn csv_reads_with_a_byte_order_mark_quotes_and_formula_guards() {
        let text = "\u{feff}key,en,de\ntitle,Lunch,\"Mittag, spät\"\nq:a:text,'=1+1,'-x\n";
        let rows = read_rows(text.as_bytes(), &TEN).expect("read");
        assert_eq!(rows[1], ["title", "Lunch", "Mittag, spät"]);
        assert_eq!(rows[2], ["q:a:text", "=1+1", "-x"]);
        assert_eq!(
            read_rows(text.as_bytes(), &Bounds::sheet(2, 10, 100)),
            Err(UploadedSheetError::TooManyRows(2))
        );
        assert!(
            read_rows(b"key,de\n\xff\xfe,x\n", &TEN).is_err(),
            "not UTF-8"
        );
    }

    #[test]
    fn xlsx_keeps_the_row_numbers_a_spreadsheet_shows() {
        let mut book = rust_xlsxwriter::Workbook::new();
        let sheet = book.add_worksheet();
        sheet.write_string(2, 1, "key").expect("written");
        sheet.write_number(3, 2, 42.0).expect("written");
        let bytes = book.save_to_buffer().expect("saved");
        let rows = read_rows(&bytes, &TEN).expect("read");
        assert_eq!(rows.len(), 4);
        assert_eq!(rows[2], ["", "key", ""]);
        assert_eq!(rows[3], ["", "", "42"]);
        let broken = [ZIP, b"not a workbook"].concat();
        assert!(matches!(
            read_rows(&broken, &TEN),
            Err(UploadedSheetError::Unreadable(_))
        ));
    }
}
