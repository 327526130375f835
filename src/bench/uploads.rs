//! `canvass bench uploads`: what reading an uploaded spreadsheet costs, in time and peak
//! memory, for hostile sheets (two cells at the far corners, a zip bomb named .xlsx, one text
//! repeated in every cell) beside the largest honest sheet of participants an import takes.
//! Each sheet is written to a file first and read by a child process of its own
//! (`canvass bench upload-read`), so its peak resident memory is the read's alone.
//!
//! The sheets are built here, not kept as files, so the tests that send them to the site
//! build the same bytes.

use std::io::{Cursor, Write};
use std::path::Path;
use std::process::Command;
use std::time::Instant;

use super::BenchError;

/// A workbook of two cells, A1 and XFD1048576: its declared range spans 17 billion cells.
pub fn two_cells() -> Vec<u8> {
    let mut book = rust_xlsxwriter::Workbook::new();
    let sheet = book.add_worksheet();
    // Writing to memory within the format's own limits cannot fail.
    let _ = sheet.write_string(0, 0, "email");
    let _ = sheet.write_string(1_048_575, 16_383, "x");
    book.save_to_buffer().unwrap_or_default()
}

/// A workbook whose sheet unpacks to 1 GiB (of XML comments, which a reader must parse to
/// the end), packed to about a megabyte; its zip headers declare nothing unusual.
pub fn zip_bomb() -> Vec<u8> {
    let comment = format!("<!--{}-->", "x".repeat(64 * 1024 - 7));
    let sheet = |zip: &mut zip::ZipWriter<Cursor<Vec<u8>>>| -> std::io::Result<()> {
        zip.write_all(b"<worksheet><sheetData>")?;
        for _ in 0..(1usize << 30) / comment.len() {
            zip.write_all(comment.as_bytes())?;
        }
        zip.write_all(b"</sheetData></worksheet>")
    };
    workbook_with(sheet, "")
}

/// A workbook of one short text in every cell of 64 columns and 100,000 rows (6.4 million
/// cells, their positions left to the reader to count), packed to a few hundred kilobytes.
pub fn repeated_cells() -> Vec<u8> {
    let sheet = |zip: &mut zip::ZipWriter<Cursor<Vec<u8>>>| -> std::io::Result<()> {
        zip.write_all(b"<worksheet><sheetData>")?;
        let row = format!("<row>{}</row>", r#"<c t="s"><v>0</v></c>"#.repeat(64));
        for _ in 0..100_000 {
            zip.write_all(row.as_bytes())?;
        }
        zip.write_all(b"</sheetData></worksheet>")
    };
    workbook_with(sheet, "<si><t>repeated</t></si>")
}

/// The largest honest sheet of participants: 100,000 rows of address, names, language and
/// six attributes.
pub fn largest_participants() -> Vec<u8> {
    let mut book = rust_xlsxwriter::Workbook::new();
    let sheet = book.add_worksheet();
    let header = [
        "email",
        "first_name",
        "last_name",
        "language",
        "team",
        "site",
        "grade",
        "cohort",
        "manager",
        "started",
    ];
    for (column, name) in header.iter().enumerate() {
        let _ = sheet.write_string(0, column as u16, *name);
    }
    for row in 1..=100_000u32 {
        let cells = [
            format!("person{row}@example.com"),
            format!("First{row}"),
            format!("Last{row}"),
            "en".to_owned(),
            format!("Team {}", row % 40),
            format!("Site {}", row % 12),
            format!("G{}", row % 7),
            format!("{}", 2020 + row % 6),
            format!("manager{}@example.com", row % 900),
            format!("2026-0{}-1{}", 1 + row % 9, row % 10),
        ];
        for (column, cell) in cells.iter().enumerate() {
            let _ = sheet.write_string(row, column as u16, cell);
        }
    }
    book.save_to_buffer().unwrap_or_default()
}

/// A minimal workbook of one sheet (written by `sheet`) and the shared texts `strings`.
fn workbook_with(
    sheet: impl FnOnce(&mut zip::ZipWriter<Cursor<Vec<u8>>>) -> std::io::Result<()>,
    strings: &str,
) -> Vec<u8> {
    let build = || -> zip::result::ZipResult<Vec<u8>> {
        let mut zip = zip::ZipWriter::new(Cursor::new(Vec::new()));
        let options = zip::write::SimpleFileOptions::default();
        zip.start_file("xl/workbook.xml", options)?;
        zip.write_all(
            br#"<workbook xmlns:r="r"><sheets><sheet name="Sheet1" sheetId="1" r:id="rId1"/></sheets></workbook>"#,
        )?;
        zip.start_file("xl/_rels/workbook.xml.rels", options)?;
        zip.write_all(
            br#"<Relationships><Relationship Id="rId1" Type="x/worksheet" Target="worksheets/sheet1.xml"/></Relationships>"#,
        )?;
        zip.start_file("xl/sharedStrings.xml", options)?;
        zip.write_all(format!("<sst>{strings}</sst>").as_bytes())?;
        zip.start_file("xl/worksheets/sheet1.xml", options)?;
        sheet(&mut zip)?;
        Ok(zip.finish()?.into_inner())
    };
    build().unwrap_or_default()
}

/// A sheet measured: its name and how it is built.
type Sheet = (&'static str, fn() -> Vec<u8>);

/// The sheets measured.
const SHEETS: [Sheet; 4] = [
    ("two cells, A1 and XFD1048576", two_cells),
    ("zip bomb (1 GiB unpacked)", zip_bomb),
    ("one text in 6.4 million cells", repeated_cells),
    ("100,000 participants (honest)", largest_participants),
];

/// Writes each sheet and reads it in a process of its own.
pub(super) async fn run() -> Result<(), BenchError> {
    let exe = std::env::current_exe().map_err(BenchError::Spawn)?;
    let dir = super::Scratch::new();
    std::fs::create_dir_all(&dir.0).map_err(BenchError::Spawn)?;
    println!("uploaded sheets read with the participants import's bounds (one process each):");
    for (name, build) in SHEETS {
        eprintln!("building: {name}");
        let bytes = build();
        let path = dir.0.join("sheet.xlsx");
        std::fs::write(&path, &bytes).map_err(BenchError::Spawn)?;
        eprintln!(
            "reading: {name} ({:.0} KB packed)",
            bytes.len() as f64 / 1e3
        );
        let output = Command::new(&exe)
            .args(["bench", "upload-read", "--file"])
            .arg(&path)
            .output()
            .map_err(BenchError::Spawn)?;
        if !output.status.success() {
            return Err(BenchError::Setup(format!(
                "reading {name} failed: {}",
                String::from_utf8_lossy(&output.stderr)
            )));
        }
        println!(
            "  {name:<32} {:>7.0} KB packed  {}",
            bytes.len() as f64 / 1e3,
            String::from_utf8_lossy(&output.stdout).trim()
        );
    }
    Ok(())
}

/// Reads one sheet as the participants import does and prints what became of it, the time it
/// took and the memory it added to this process's peak.
pub(super) async fn read(file: &Path) -> Result<(), BenchError> {
    let bytes = bytes::Bytes::from(std::fs::read(file).map_err(BenchError::Spawn)?);
    let before = super::peak_memory().unwrap_or(0);
    let started = Instant::now();
    let outcome = crate::service::participants::read_sheet(&bytes).await;
    let took = started.elapsed().as_secs_f64();
    let peak = super::peak_memory().unwrap_or(0);
    let said = match outcome {
        Ok(rows) => format!("read: {} participants", rows.len()),
        Err(refusal) => format!("refused: {refusal}"),
    };
    println!(
        "{took:>6.2} s  peak memory +{:.0} MB  {said}",
        peak.saturating_sub(before) as f64 * 1024.0 / 1e6
    );
    Ok(())
}
