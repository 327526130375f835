//! The XLSX download: the response sheet (see `sheet`) as an Excel workbook with typed cells
//! (numbers as numbers, dates and times as dates), in flat memory whatever the survey's size.
//!
//! `rust_xlsxwriter`'s constant-memory mode writes each row to a temporary file as it comes,
//! so only a batch of responses is ever held; when the last row is written, the workbook is
//! zipped straight onto the response. Storage is read on the async side and the workbook is
//! written on a blocking thread, joined by small bounded channels, so a slow client slows the
//! export instead of filling memory, and a client that goes away stops it.

use std::io::Write;
use std::sync::Arc;

use bytes::Bytes;
use futures_util::Stream;
use rust_xlsxwriter::{ExcelDateTime, Format, Workbook, Worksheet, XlsxError};
use tokio::sync::mpsc;

use super::responses::{Batches, written_on_a_thread};
use super::sheet::{Cell, Layout, SheetOptions};
use crate::domain::Survey;
use crate::stores::StoreError;
use crate::stores::Stores;

/// Characters a cell can hold in Excel; longer answers are cut (the CSV has them whole).
const MAX_CELL_CHARS: usize = 32_767;

/// Bytes handed to the response at a time.
const CHUNK_BYTES: usize = 64 * 1024;

pub(super) fn failed(doing: &str, error: impl std::fmt::Display) -> StoreError {
    StoreError::Storage {
        doing: doing.into(),
        source: crate::storage::Error::backend(error.to_string()),
    }
}

/// The survey's responses as a stream of XLSX bytes, oldest first.
pub fn xlsx_stream(
    stores: Stores,
    survey: Arc<Survey>,
    layout: Layout,
    options: SheetOptions,
) -> impl Stream<Item = Result<Bytes, StoreError>> {
    written_on_a_thread(stores, survey, move |batches, out| {
        match write(&layout, options, batches, out) {
            Ok(Written::Whole) => Ok(()),
            Ok(Written::Stopped(error)) => Err(error),
            Err(error) => Err(failed("writing the XLSX export", error)),
        }
    })
}

/// How writing a workbook ended.
enum Written {
    /// Every response is in it.
    Whole,
    /// Reading responses failed: no workbook was written, so none looks whole.
    Stopped(StoreError),
}

/// Writes every batch as rows, then the workbook onto `out`.
fn write(
    layout: &Layout,
    options: SheetOptions,
    mut batches: Batches,
    out: mpsc::Sender<Result<Bytes, StoreError>>,
) -> Result<Written, XlsxError> {
    let mut workbook = Workbook::new();
    let bold = Format::new().set_bold();
    let formats = Formats {
        date: Format::new().set_num_format("yyyy-mm-dd"),
        moment: Format::new().set_num_format("yyyy-mm-dd hh:mm:ss"),
    };
    let sheet = workbook.add_worksheet_with_constant_memory()?;
    sheet.set_name("Responses")?;
    // Constant-memory mode takes rows strictly in order.
    let headers = layout.columns.iter().map(|c| c.header.as_str());
    sheet.write_row_with_format(0, 0, headers, &bold)?;
    let mut row: u32 = 1;
    if options.ids {
        sheet.write_row(1, 0, layout.columns.iter().map(|c| c.id.as_str()))?;
        row = 2;
    }
    sheet.set_freeze_panes(row, 0)?;
    while let Some(batch) = batches.blocking_recv() {
        let batch = match batch {
            Ok(batch) => batch,
            Err(error) => return Ok(Written::Stopped(error)),
        };
        for answer in &batch {
            for (col, cell) in layout.row(answer).iter().enumerate() {
                put(sheet, &formats, row, col as u16, cell)?;
            }
            row += 1;
        }
    }
    let writer = std::io::BufWriter::with_capacity(CHUNK_BYTES, ChannelWriter(out));
    workbook.save_to_writer(writer)?;
    Ok(Written::Whole)
}

struct Formats {
    date: Format,
    moment: Format,
}

fn put(
    sheet: &mut Worksheet,
    formats: &Formats,
    row: u32,
    col: u16,
    cell: &Cell,
) -> Result<(), XlsxError> {
    match cell {
        Cell::Empty => {}
        Cell::Text(text) if text.chars().count() > MAX_CELL_CHARS => {
            let cut: String = text.chars().take(MAX_CELL_CHARS - 1).collect();
            sheet.write_string(row, col, format!("{cut}…"))?;
        }
        Cell::Text(text) => {
            sheet.write_string(row, col, text)?;
        }
        Cell::Number(number) => {
            sheet.write_number(row, col, *number)?;
        }
        Cell::Date(date) => {
            match ExcelDateTime::from_ymd(date.year() as u16, date.month() as u8, date.day()) {
                Ok(day) => sheet.write_datetime_with_format(row, col, &day, &formats.date)?,
                // Excel's dates start in 1900: an earlier one (a date question may take it)
                // is written as text rather than failing the workbook.
                Err(_) => sheet.write_string(row, col, date.to_string())?,
            };
        }
        Cell::Moment(moment) => {
            let moment = moment.to_offset(time::UtcOffset::UTC);
            let at =
                ExcelDateTime::from_ymd(moment.year() as u16, moment.month() as u8, moment.day())?
                    .and_hms(u16::from(moment.hour()), moment.minute(), moment.second())?;
            sheet.write_datetime_with_format(row, col, &at, &formats.moment)?;
        }
    }
    Ok(())
}

/// Hands written bytes to the response; fails once the response is gone.
/// Bytes written, sent on to the response as they come.
pub(super) struct ChannelWriter(pub(super) mpsc::Sender<Result<Bytes, StoreError>>);

impl Write for ChannelWriter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0
            .blocking_send(Ok(Bytes::copy_from_slice(buf)))
            .map_err(|_| {
                std::io::Error::new(std::io::ErrorKind::BrokenPipe, "the download was closed")
            })?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}
