//! The bounded reader's tests: honest workbooks read as a spreadsheet shows them, and each
//! bound met by a hostile one.

use std::io::{Cursor, Write};
use std::time::Duration;

use super::workbook::*;
use super::workbook::{MAX_EVENT_BYTES, cell_position};

const SMALL: Bounds = Bounds::sheet(100, 10, 1_000);

/// A workbook whose first sheet's XML is `sheet` and whose shared texts are `strings`.
fn workbook(sheet: &str, strings: &[&str]) -> Vec<u8> {
    let mut zip = zip::ZipWriter::new(Cursor::new(Vec::new()));
    let options = zip::write::SimpleFileOptions::default();
    let parts = [
        (
            "xl/workbook.xml",
            r#"<workbook xmlns:r="r"><sheets><sheet name="People" sheetId="1" r:id="rId1"/></sheets></workbook>"#.to_owned(),
        ),
        (
            "xl/_rels/workbook.xml.rels",
            r#"<Relationships><Relationship Id="rId1" Type="x/worksheet" Target="worksheets/sheet1.xml"/></Relationships>"#.to_owned(),
        ),
        (
            "xl/sharedStrings.xml",
            format!(
                "<sst>{}</sst>",
                strings
                    .iter()
                    .map(|text| format!("<si><t>{text}</t></si>"))
                    .collect::<String>()
            ),
        ),
        (
            "xl/worksheets/sheet1.xml",
            format!("<worksheet><sheetData>{sheet}</sheetData></worksheet>"),
        ),
    ];
    for (name, body) in parts {
        zip.start_file(name, options).expect("a part");
        zip.write_all(body.as_bytes()).expect("written");
    }
    zip.finish().expect("finished").into_inner()
}

#[test]
fn cells_read_as_a_spreadsheet_shows_them() {
    let sheet = r#"<row r="2"><c r="B2" t="s"><v>0</v></c><c r="C2"><v>42</v></c></row>
        <row r="3"><c r="A3" t="inlineStr"><is><r><t>Caf</t></r><r><t>é &amp; co</t></r></is></c>
        <c r="B3" t="b"><v>1</v></c><c r="C3"><v>2.5</v></c><c r="D3" t="e"><v>#N/A</v></c></row>"#;
    let bytes = workbook(sheet, &["line_x000D_\nnext", "unused"]);
    let rows = first_sheet(&bytes, &SMALL).expect("read");
    assert_eq!(rows.len(), 3);
    assert!(
        rows[0].is_empty(),
        "a blank row before the first filled one"
    );
    assert_eq!(rows[1], ["", "line\r\nnext", "42"]);
    assert_eq!(rows[2], ["Café & co", "TRUE", "2.5"]);
}

#[test]
fn two_cells_at_the_far_corners_are_refused_without_holding_the_range() {
    let sheet = r#"<row r="1"><c r="A1" t="s"><v>0</v></c></row>
        <row r="1048576"><c r="XFD1048576" t="s"><v>0</v></c></row>"#;
    let bytes = workbook(sheet, &["x"]);
    assert_eq!(
        first_sheet(&bytes, &SMALL),
        Err(SheetError::TooManyRows(100))
    );
    let wide = Bounds::sheet(2_000_000, 10, 1_000);
    assert_eq!(
        first_sheet(&bytes, &wide),
        Err(SheetError::TooManyColumns(10))
    );
}

#[test]
fn blanks_before_a_cell_count_as_cells_held() {
    // Row 50 reaches column J: 10 cells held; 60 such rows pass 500.
    let sheet: String = (1..=60)
        .map(|row| format!(r#"<row r="{row}"><c r="J{row}"><v>1</v></c></row>"#))
        .collect();
    let bytes = workbook(&sheet, &[]);
    let bounds = Bounds::sheet(100, 10, 500);
    assert_eq!(
        first_sheet(&bytes, &bounds),
        Err(SheetError::TooManyCells(500))
    );
    // Squared, one cell each at A and J of alternate rows: refused when padding passes.
    let sheet: String = (1..=30)
        .map(|row| match row % 2 {
            0 => format!(r#"<row r="{row}"><c r="A{row}"><v>1</v></c></row>"#),
            _ => format!(r#"<row r="{row}"><c r="J{row}"><v>1</v></c></row>"#),
        })
        .collect();
    let bytes = workbook(&sheet, &[]);
    assert_eq!(
        first_sheet(&bytes, &Bounds::sheet(100, 10, 200)),
        Err(SheetError::TooManyCells(200))
    );
    assert_eq!(
        first_sheet(&bytes, &Bounds::sheet(100, 10, 300))
            .expect("read")
            .len(),
        30
    );
}

#[test]
fn a_part_that_unpacks_past_the_bound_is_refused_as_it_unpacks() {
    // 4 MB of blanks inside the sheet, packed to a few kilobytes.
    let sheet = format!(
        "<row r=\"1\"><c r=\"A1\"><v>1</v></c></row>{}",
        " ".repeat(4 << 20)
    );
    let bytes = workbook(&sheet, &[]);
    assert!(bytes.len() < 64 * 1024, "{} bytes packed", bytes.len());
    let bounds = Bounds {
        unpacked_bytes: 1 << 20,
        ..SMALL
    };
    assert_eq!(
        first_sheet(&bytes, &bounds),
        Err(SheetError::TooLarge(1 << 20))
    );
}

#[test]
fn shared_texts_and_text_bytes_are_bounded_whatever_the_count_declared() {
    let many: Vec<String> = (0..50).map(|n| n.to_string()).collect();
    let many: Vec<&str> = many.iter().map(String::as_str).collect();
    let bytes = workbook("", &many);
    let bounds = Bounds {
        shared_strings: 20,
        ..SMALL
    };
    assert_eq!(
        first_sheet(&bytes, &bounds),
        Err(SheetError::TooManyTexts(20))
    );
    // One long text named by many cells: each copy counts.
    let long = "x".repeat(1_000);
    let sheet: String = (1..=50)
        .map(|row| format!(r#"<row r="{row}"><c r="A{row}" t="s"><v>0</v></c></row>"#))
        .collect();
    let bytes = workbook(&sheet, &[&long]);
    let bounds = Bounds {
        text_bytes: 20_000,
        ..SMALL
    };
    assert_eq!(
        first_sheet(&bytes, &bounds),
        Err(SheetError::TooMuchText(20_000))
    );
}

#[test]
fn one_endless_text_is_refused_before_it_is_held_and_time_is_bounded() {
    let sheet = format!(
        "<row r=\"1\"><c r=\"A1\"><v>{}</v></c></row>",
        "1".repeat(3 << 20)
    );
    let bytes = workbook(&sheet, &[]);
    assert_eq!(
        first_sheet(&bytes, &SMALL),
        Err(SheetError::TooLong(MAX_EVENT_BYTES))
    );
    let no_time = Bounds {
        time: Duration::ZERO,
        ..SMALL
    };
    assert_eq!(
        first_sheet(&workbook("", &[]), &no_time),
        Err(SheetError::TooSlow(0))
    );
}

#[test]
fn documents_own_entities_are_never_expanded() {
    let bytes = workbook(
        r#"<row r="1"><c r="A1" t="inlineStr"><is><t>&lol;</t></is></c></row>"#,
        &[],
    );
    assert!(matches!(
        first_sheet(&bytes, &SMALL),
        Err(SheetError::Unreadable(_))
    ));
}

#[test]
fn what_is_not_a_workbook_is_unreadable_not_a_panic() {
    for bytes in [&b"PK\x03\x04 nothing"[..], b"", b"PK\x05\x06"] {
        assert!(matches!(
            first_sheet(bytes, &SMALL),
            Err(SheetError::Unreadable(_))
        ));
    }
    for position in [
        "",
        "1",
        "A",
        "a1",
        "AAAA1",
        "A0",
        "A99999999999999999999999",
    ] {
        assert!(cell_position(position).is_err(), "{position:?}");
    }
    assert_eq!(
        cell_position("XFD1048576").expect("a cell"),
        (1_048_575, 16_383)
    );
}
