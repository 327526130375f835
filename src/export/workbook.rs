//! Uploaded XLSX workbooks, read within bounds.
//!
//! A workbook is a zip archive of XML parts, and a hostile one declares what it does not hold
//! (two cells, A1 and XFD1048576, "span" 17 billion) or unpacks to a thousand times its size.
//! This reader trusts no size a file declares: every part is unpacked through one counter of
//! unpacked bytes and one deadline, its XML is streamed (quick-xml, which expands no entity of
//! a document's own), and rows, columns, cells, shared texts and text bytes are counted as they
//! come, stopping at the first bound passed. calamine reads workbooks well but reserves what a
//! file declares (a range, a count of shared strings) before reading it, so it serves only the
//! tests that read the site's own downloads.

use std::cell::Cell;
use std::collections::HashMap;
use std::io::{BufReader, Cursor, Read};
use std::time::{Duration, Instant};

use quick_xml::Reader;
use quick_xml::events::{BytesStart, Event};

/// What one upload may hold: each import sets its own, from its own limits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bounds {
    /// Rows, counted to the last row that holds anything (blank rows before it included).
    pub rows: usize,
    /// Columns, counted to the last column that holds anything.
    pub columns: usize,
    /// Cells held: each row to its last filled column, blanks before it included.
    pub cells: usize,
    /// Different texts in the workbook's shared table.
    pub shared_strings: usize,
    /// Bytes of text in shared texts and cells together.
    pub text_bytes: usize,
    /// Bytes of every part read, unpacked (what a zip bomb inflates).
    pub unpacked_bytes: u64,
    /// Parts (files) in the archive.
    pub parts: usize,
    /// Time to read it all.
    pub time: Duration,
}

impl Bounds {
    /// Bounds for a sheet of at most `rows` rows and `columns` columns, holding at most
    /// `cells` cells; the rest from the upload sizes the site takes (at most 20 MB packed).
    pub const fn sheet(rows: usize, columns: usize, cells: usize) -> Self {
        Self {
            rows,
            columns,
            cells,
            shared_strings: cells,
            text_bytes: 32 * 1024 * 1024,
            unpacked_bytes: 128 * 1024 * 1024,
            parts: 1_000,
            time: READ_TIME,
        }
    }
}

/// The longest a workbook may take to read: ten seconds of an optimised build's work. An
/// unoptimised build (the tests') does the same work several times slower, and more so on a
/// machine busy with other tests, so it gets six times as long: the bound stops the same
/// sheets in both, and the tests see the bound a sheet really passes.
pub const READ_TIME: Duration = if cfg!(debug_assertions) {
    Duration::from_secs(60)
} else {
    Duration::from_secs(10)
};

/// Why an uploaded sheet cannot be read: unreadable, or past one of its bounds (named).
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum SheetError {
    /// Neither a readable XLSX workbook nor UTF-8 CSV.
    #[error("{0}")]
    Unreadable(String),
    /// More rows than the import takes.
    #[error("the sheet has more than {} rows", grouped(*.0))]
    TooManyRows(usize),
    /// More columns than the import takes.
    #[error("the sheet has more than {} columns", grouped(*.0))]
    TooManyColumns(usize),
    /// More cells than the import holds.
    #[error("the sheet holds more than {} cells", grouped(*.0))]
    TooManyCells(usize),
    /// More shared texts than the import holds.
    #[error("the workbook holds more than {} different texts", grouped(*.0))]
    TooManyTexts(usize),
    /// More text than the import holds.
    #[error("the sheet holds more than {} MB of text", .0 / 1_000_000)]
    TooMuchText(usize),
    /// The archive unpacks to more than the import reads.
    #[error("the workbook unpacks to more than {} MB", .0 / 1_000_000)]
    TooLarge(u64),
    /// More parts than a workbook has.
    #[error("the workbook holds more than {0} files")]
    TooManyParts(usize),
    /// One tag or text longer than any sheet's.
    #[error("the workbook holds a single value longer than {} MB", .0 / 1_000_000)]
    TooLong(u64),
    /// Reading took longer than the import waits.
    #[error("the workbook takes more than {0} seconds to read")]
    TooSlow(u64),
}

/// A count as people write it in English (`100,001`).
fn grouped(count: usize) -> String {
    use num_format::{Locale, ToFormattedString};
    count.to_formatted_string(&Locale::en)
}

/// The rows of a workbook's first sheet, as text.
pub fn first_sheet(bytes: &[u8], bounds: &Bounds) -> Result<Vec<Vec<String>>, SheetError> {
    let mut workbook = Workbook::open(bytes, bounds)?;
    let first = workbook.sheet_names().next().map(str::to_owned);
    match first {
        Some(name) => workbook.rows(&name),
        None => Ok(Vec::new()),
    }
}

/// An opened workbook: its sheets by name and its shared texts, read within its bounds.
pub struct Workbook<'a> {
    archive: zip::ZipArchive<Cursor<&'a [u8]>>,
    bounds: Bounds,
    budget: Budget,
    /// Each sheet's name and part, in the workbook's order.
    sheets: Vec<(String, String)>,
    strings: Vec<String>,
    /// Cells held by the sheets read so far.
    cells: usize,
    /// Text bytes held so far.
    text: usize,
}

impl<'a> Workbook<'a> {
    /// Opens the archive and reads its sheet list and shared texts.
    pub fn open(bytes: &'a [u8], bounds: &Bounds) -> Result<Self, SheetError> {
        let archive =
            zip::ZipArchive::new(Cursor::new(bytes)).map_err(|error| unreadable(&error))?;
        if archive.len() > bounds.parts {
            return Err(SheetError::TooManyParts(bounds.parts));
        }
        let mut workbook = Self {
            archive,
            bounds: *bounds,
            budget: Budget::new(bounds),
            sheets: Vec::new(),
            strings: Vec::new(),
            cells: 0,
            text: 0,
        };
        let book = workbook.main_part()?;
        let relations = workbook.relations(&book)?;
        workbook.sheets = workbook.sheet_list(&book, &relations)?;
        let shared = relations
            .values()
            .find(|(kind, _)| kind.ends_with("/sharedStrings"))
            .map(|(_, target)| target.clone())
            .or_else(|| Some(beside(&book, "sharedStrings.xml")));
        if let Some(part) = shared
            && workbook.has(&part)
        {
            workbook.strings = workbook.shared_strings(&part)?;
        }
        Ok(workbook)
    }

    /// The sheets' names, in the workbook's order.
    pub fn sheet_names(&self) -> impl Iterator<Item = &str> {
        self.sheets.iter().map(|(name, _)| name.as_str())
    }

    /// The rows of the sheet named `name` (none when there is no such sheet): rows before the
    /// first that holds anything are empty, and from it on every row reaches the last column
    /// that holds anything, so row and column numbers stay those a spreadsheet shows.
    pub fn rows(&mut self, name: &str) -> Result<Vec<Vec<String>>, SheetError> {
        let Some(part) = self
            .sheets
            .iter()
            .find(|(sheet, _)| sheet == name)
            .map(|(_, part)| part.clone())
        else {
            return Ok(Vec::new());
        };
        let mut grid = Grid::default();
        self.read_sheet(&part, &mut grid)?;
        grid.square(&self.bounds, &mut self.cells)
    }

    fn has(&self, part: &str) -> bool {
        self.archive.index_for_name(part).is_some()
    }

    /// The XML of a part, unpacked through the budget.
    fn xml(&mut self, part: &str) -> Result<Xml<'_, 'a>, SheetError> {
        xml_of(&mut self.archive, &self.budget, part)
    }

    /// The workbook part the package names (normally `xl/workbook.xml`).
    fn main_part(&mut self) -> Result<String, SheetError> {
        if self.has("_rels/.rels") {
            let relations = self.read_relations("_rels/.rels", "")?;
            if let Some((_, target)) = relations
                .values()
                .find(|(kind, _)| kind.ends_with("/officeDocument"))
            {
                return Ok(target.clone());
            }
        }
        Ok("xl/workbook.xml".into())
    }

    /// The workbook's relationships: id → (type, part).
    fn relations(&mut self, book: &str) -> Result<Relations, SheetError> {
        let (folder, file) = book.rsplit_once('/').unwrap_or(("", book));
        let rels = match folder.is_empty() {
            true => format!("_rels/{file}.rels"),
            false => format!("{folder}/_rels/{file}.rels"),
        };
        match self.has(&rels) {
            true => self.read_relations(&rels, folder),
            false => Ok(Relations::new()),
        }
    }

    fn read_relations(&mut self, part: &str, folder: &str) -> Result<Relations, SheetError> {
        let mut xml = self.xml(part)?;
        let mut relations = Relations::new();
        while let Some(event) = xml.next()? {
            if let Event::Start(tag) | Event::Empty(tag) = event
                && tag.local_name().as_ref() == "Relationship"
            {
                let (id, kind, target) = (
                    attribute(&tag, "Id")?,
                    attribute(&tag, "Type")?,
                    attribute(&tag, "Target")?,
                );
                if let (Some(id), Some(kind), Some(target)) = (id, kind, target) {
                    relations.insert(id, (kind, resolve(folder, &target)));
                }
            }
        }
        Ok(relations)
    }

    /// Each sheet's name and part, in order.
    fn sheet_list(
        &mut self,
        book: &str,
        relations: &Relations,
    ) -> Result<Vec<(String, String)>, SheetError> {
        let folder = book.rsplit_once('/').map_or("", |(folder, _)| folder);
        let most = self.bounds.parts;
        let mut xml = self.xml(book)?;
        let mut sheets = Vec::new();
        while let Some(event) = xml.next()? {
            if let Event::Start(tag) | Event::Empty(tag) = event
                && tag.local_name().as_ref() == "sheet"
            {
                let name = attribute(&tag, "name")?.unwrap_or_default();
                let id = attribute(&tag, "r:id")?.unwrap_or_default();
                let part = match relations.get(&id) {
                    Some((_, target)) => target.clone(),
                    None => resolve(folder, &format!("worksheets/sheet{}.xml", sheets.len() + 1)),
                };
                sheets.push((name, part));
                if sheets.len() > most {
                    return Err(SheetError::TooManyParts(most));
                }
            }
        }
        Ok(sheets)
    }

    /// The shared texts, each counted as it is read.
    fn shared_strings(&mut self, part: &str) -> Result<Vec<String>, SheetError> {
        let (most, most_text) = (self.bounds.shared_strings, self.bounds.text_bytes);
        let mut text = self.text;
        let mut strings = Vec::new();
        let mut xml = xml_of(&mut self.archive, &self.budget, part)?;
        while let Some(event) = xml.next()? {
            match event {
                Event::Start(tag) if tag.local_name().as_ref() == "si" => {
                    if strings.len() == most {
                        return Err(SheetError::TooManyTexts(most));
                    }
                    let string = xml.rich_text("si", most_text - text)?;
                    text += string.len();
                    strings.push(string);
                }
                Event::Empty(tag) if tag.local_name().as_ref() == "si" => {
                    if strings.len() == most {
                        return Err(SheetError::TooManyTexts(most));
                    }
                    strings.push(String::new());
                }
                _ => {}
            }
        }
        drop(xml);
        self.text = text;
        Ok(strings)
    }

    /// Reads a sheet's cells into `grid`.
    fn read_sheet(&mut self, part: &str, grid: &mut Grid) -> Result<(), SheetError> {
        let bounds = self.bounds;
        let mut text = self.text;
        let mut held = self.cells;
        let strings = std::mem::take(&mut self.strings);
        let read = (|| {
            let mut xml = self.xml(part)?;
            let (mut row, mut column) = (0usize, 0usize);
            while let Some(event) = xml.next()? {
                let (tag, empty) = match event {
                    Event::Start(tag) => (tag, false),
                    Event::Empty(tag) => (tag, true),
                    Event::End(tag) => {
                        match tag.local_name().as_ref() {
                            "row" => row += 1,
                            "sheetData" => break,
                            _ => {}
                        }
                        continue;
                    }
                    _ => continue,
                };
                match tag.local_name().as_ref() {
                    "row" => {
                        if let Some(number) = attribute(&tag, "r")? {
                            row = row_number(&number)?;
                        }
                        column = 0;
                        // An empty row tag has no end tag to move past it.
                        if empty {
                            row += 1;
                        }
                    }
                    "c" => {
                        if let Some(at) = attribute(&tag, "r")? {
                            (row, column) = cell_position(&at)?;
                        }
                        let kind = attribute(&tag, "t")?.unwrap_or_default();
                        let value = match empty {
                            true => String::new(),
                            false => xml.cell(&kind, &strings, bounds.text_bytes - text)?,
                        };
                        if !value.is_empty() {
                            text += value.len();
                            if text > bounds.text_bytes {
                                return Err(SheetError::TooMuchText(bounds.text_bytes));
                            }
                            grid.put(row, column, value, &bounds, &mut held)?;
                        }
                        column += 1;
                    }
                    _ => {}
                }
            }
            Ok(())
        })();
        self.strings = strings;
        self.text = text;
        self.cells = held;
        read
    }
}

/// The XML of `part`, unpacked through `budget`.
fn xml_of<'w, 'a>(
    archive: &'w mut zip::ZipArchive<Cursor<&'a [u8]>>,
    budget: &'w Budget,
    part: &str,
) -> Result<Xml<'w, 'a>, SheetError> {
    let file = archive
        .by_name(part)
        .map_err(|error| unreadable(&format!("{part}: {error}")))?;
    let counted = Counted {
        inner: file,
        budget,
    };
    let mut reader = Reader::from_reader(BufReader::new(counted));
    reader.config_mut().trim_text(false);
    Ok(Xml {
        reader,
        budget,
        buf: Vec::new(),
    })
}

/// Relationships of a part: id → (type, part).
type Relations = HashMap<String, (String, String)>;

/// A part's path from a relationship's target, relative to `folder` unless absolute.
fn resolve(folder: &str, target: &str) -> String {
    match target.strip_prefix('/') {
        Some(absolute) => absolute.to_owned(),
        None if folder.is_empty() => target.to_owned(),
        None => format!("{folder}/{target}"),
    }
}

/// A part beside `part` (in its folder).
fn beside(part: &str, name: &str) -> String {
    match part.rsplit_once('/') {
        Some((folder, _)) => format!("{folder}/{name}"),
        None => name.to_owned(),
    }
}

fn unreadable(error: &dyn std::fmt::Display) -> SheetError {
    SheetError::Unreadable(format!("this XLSX file cannot be read ({error})"))
}

fn attribute(tag: &BytesStart<'_>, name: &str) -> Result<Option<String>, SheetError> {
    match tag.try_get_attribute(name) {
        Ok(Some(found)) => Ok(Some(
            found
                .normalized_value(quick_xml::XmlVersion::Implicit1_0)
                .map_err(|error| unreadable(&error))?
                .into_owned(),
        )),
        Ok(None) => Ok(None),
        Err(error) => Err(unreadable(&error)),
    }
}

/// A row number (`r="12"`) as a 0-based index.
fn row_number(text: &str) -> Result<usize, SheetError> {
    match text.parse::<usize>() {
        Ok(number) if number >= 1 => Ok(number - 1),
        _ => Err(unreadable(&format!("a row is numbered {text:?}"))),
    }
}

/// A cell's position (`r="AB12"`) as 0-based row and column.
pub(super) fn cell_position(text: &str) -> Result<(usize, usize), SheetError> {
    let bad = || unreadable(&format!("a cell is at {text:?}"));
    let digits = text.find(|c: char| c.is_ascii_digit()).ok_or_else(bad)?;
    let (letters, number) = text.split_at(digits);
    if letters.is_empty() || letters.len() > 3 || !letters.chars().all(|c| c.is_ascii_uppercase()) {
        return Err(bad());
    }
    let column = letters.bytes().fold(0usize, |column, letter| {
        column * 26 + usize::from(letter - b'A' + 1)
    });
    Ok((row_number(number).map_err(|_| bad())?, column - 1))
}

/// Excel writes characters XML cannot hold as `_xHHHH_` (and a literal `_x` as `_x005F_x`).
fn unescape_excel(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("_x") {
        out.push_str(&rest[..at]);
        let code = rest
            .get(at + 2..at + 7)
            .filter(|candidate| candidate.ends_with('_'))
            .and_then(|candidate| u32::from_str_radix(&candidate[..4], 16).ok())
            .and_then(char::from_u32);
        match code {
            Some(character) => {
                out.push(character);
                rest = &rest[at + 7..];
            }
            None => {
                out.push_str("_x");
                rest = &rest[at + 2..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// A number as a person sees it: a whole number without a decimal point.
fn number_text(raw: &str) -> String {
    match raw.trim().parse::<f64>() {
        Ok(number) if number.fract() == 0.0 && number.abs() < 1e15 => format!("{number:.0}"),
        Ok(number) if number.is_finite() => number.to_string(),
        _ => raw.trim().to_owned(),
    }
}

/// The cells read so far: rows, each to its last filled column.
#[derive(Default)]
struct Grid {
    rows: Vec<Vec<String>>,
    /// The first row that holds anything, and the widest row's width.
    top: Option<usize>,
    width: usize,
}

impl Grid {
    /// Puts a filled cell, counting the cells held against the bounds.
    fn put(
        &mut self,
        row: usize,
        column: usize,
        value: String,
        bounds: &Bounds,
        held: &mut usize,
    ) -> Result<(), SheetError> {
        if row >= bounds.rows {
            return Err(SheetError::TooManyRows(bounds.rows));
        }
        if column >= bounds.columns {
            return Err(SheetError::TooManyColumns(bounds.columns));
        }
        if self.rows.len() <= row {
            self.rows.resize_with(row + 1, Vec::new);
        }
        let cells = &mut self.rows[row];
        if cells.len() <= column {
            *held += column + 1 - cells.len();
            if *held > bounds.cells {
                return Err(SheetError::TooManyCells(bounds.cells));
            }
            cells.resize(column + 1, String::new());
        }
        cells[column] = value;
        self.top = Some(self.top.map_or(row, |top| top.min(row)));
        self.width = self.width.max(column + 1);
        Ok(())
    }

    /// The rows from the first filled one on, all as wide as the widest: checked against the
    /// bounds before a cell is added.
    fn square(self, bounds: &Bounds, held: &mut usize) -> Result<Vec<Vec<String>>, SheetError> {
        let Some(top) = self.top else {
            return Ok(Vec::new());
        };
        let mut rows = self.rows;
        let padding: usize = rows[top..].iter().map(|row| self.width - row.len()).sum();
        *held += padding;
        if *held > bounds.cells {
            return Err(SheetError::TooManyCells(bounds.cells));
        }
        for row in &mut rows[top..] {
            row.resize(self.width, String::new());
        }
        Ok(rows)
    }
}

/// One part of the archive, unpacking.
type Part<'w, 'a> = zip::read::ZipFile<'w, Cursor<&'a [u8]>>;

/// One part's XML, streamed.
struct Xml<'w, 'a> {
    reader: Reader<BufReader<Counted<'w, Part<'w, 'a>>>>,
    budget: &'w Budget,
    buf: Vec<u8>,
}

impl Xml<'_, '_> {
    /// The next event (`None` at the end), owned so the buffer can be reused.
    fn next(&mut self) -> Result<Option<Event<'static>>, SheetError> {
        self.buf.clear();
        self.budget.since_event.set(0);
        match self.reader.read_event_into(&mut self.buf) {
            Ok(Event::Eof) => Ok(None),
            Ok(event) => Ok(Some(event.into_owned())),
            Err(error) => Err(self.budget.passed().unwrap_or_else(|| unreadable(&error))),
        }
    }

    /// The text inside the element `end` just opened: its `<t>` runs joined, phonetic runs
    /// left out; at most `room` bytes.
    fn rich_text(&mut self, end: &str, room: usize) -> Result<String, SheetError> {
        let mut text = String::new();
        let (mut in_t, mut preserve, mut phonetic) = (false, false, false);
        let mut run = String::new();
        loop {
            let Some(event) = self.next()? else {
                return Err(unreadable(&format!("a <{end}> does not end")));
            };
            match event {
                Event::Start(tag) => match tag.local_name().as_ref() {
                    "rPh" => phonetic = true,
                    "t" if !phonetic => {
                        in_t = true;
                        preserve = attribute(&tag, "xml:space")?.as_deref() == Some("preserve");
                        run.clear();
                    }
                    _ => {}
                },
                Event::End(tag) => match tag.local_name().as_ref() {
                    "rPh" => phonetic = false,
                    "t" if in_t => {
                        in_t = false;
                        let kept = match preserve {
                            true => run.as_str(),
                            false => run.trim_matches([' ', '\t', '\r', '\n']),
                        };
                        text.push_str(&unescape_excel(kept));
                    }
                    name if name == end => return Ok(text),
                    _ => {}
                },
                Event::Text(content) if in_t => run.push_str(&content.xml10_content()),
                Event::CData(content) if in_t => run.push_str(&content.xml10_content()),
                Event::GeneralRef(entity) if in_t => push_entity(&mut run, &entity)?,
                _ => {}
            }
            if text.len() + run.len() > room {
                return Err(SheetError::TooMuchText(self.budget.text_bytes));
            }
        }
    }

    /// The text of the `<c>` just opened, of type `kind`, as a person sees it.
    fn cell(&mut self, kind: &str, strings: &[String], room: usize) -> Result<String, SheetError> {
        let mut value = String::new();
        let mut in_v = false;
        loop {
            let Some(event) = self.next()? else {
                return Err(unreadable(&"a cell does not end"));
            };
            match event {
                Event::Start(tag) => match tag.local_name().as_ref() {
                    "v" => in_v = true,
                    "is" => value = self.rich_text("is", room)?,
                    _ => {}
                },
                Event::End(tag) => match tag.local_name().as_ref() {
                    "v" => in_v = false,
                    "c" => break,
                    _ => {}
                },
                Event::Text(content) if in_v => value.push_str(&content.xml10_content()),
                Event::GeneralRef(entity) if in_v => push_entity(&mut value, &entity)?,
                _ => {}
            }
            if value.len() > room {
                return Err(SheetError::TooMuchText(self.budget.text_bytes));
            }
        }
        Ok(match kind {
            "s" => {
                let index: usize = value
                    .trim()
                    .parse()
                    .map_err(|_| unreadable(&"a cell names its text badly"))?;
                strings
                    .get(index)
                    .cloned()
                    .ok_or_else(|| unreadable(&"a cell names a text the workbook lacks"))?
            }
            "inlineStr" | "d" => value,
            "str" => unescape_excel(&value),
            "b" => match value.trim() {
                "1" => "TRUE".into(),
                _ => "FALSE".into(),
            },
            "e" => String::new(),
            _ => number_text(&value),
        })
    }
}

/// A reference to an entity: the five XML predefines and characters; a document's own
/// entities are never expanded.
fn push_entity(
    into: &mut String,
    entity: &quick_xml::events::BytesRef<'_>,
) -> Result<(), SheetError> {
    if let Some(character) = entity.resolve_char_ref().map_err(|e| unreadable(&e))? {
        into.push(character);
        return Ok(());
    }
    let named = match &**entity {
        "amp" => '&',
        "lt" => '<',
        "gt" => '>',
        "quot" => '"',
        "apos" => '\'',
        other => return Err(unreadable(&format!("it names an entity &{other};"))),
    };
    into.push(named);
    Ok(())
}

/// Unpacked bytes left, and when reading must end; the first bound passed.
struct Budget {
    left: Cell<u64>,
    limit: u64,
    deadline: Instant,
    seconds: u64,
    passed: Cell<Option<Passed>>,
    /// Bytes read since the last event was returned.
    since_event: Cell<u64>,
    /// The bound on text bytes, for the error a reader passing it gives.
    text_bytes: usize,
}

#[derive(Clone, Copy)]
enum Passed {
    Bytes,
    Time,
    Event,
}

/// The most bytes one XML event (a tag, a text, a comment) may span: a cell's text is at most
/// 32,767 characters in every spreadsheet program, so a longer event is no sheet's, and it
/// would otherwise be held whole in memory.
pub const MAX_EVENT_BYTES: u64 = 1 << 20;

impl Budget {
    fn new(bounds: &Bounds) -> Self {
        Self {
            left: Cell::new(bounds.unpacked_bytes),
            limit: bounds.unpacked_bytes,
            deadline: Instant::now() + bounds.time,
            seconds: bounds.time.as_secs(),
            passed: Cell::new(None),
            since_event: Cell::new(0),
            text_bytes: bounds.text_bytes,
        }
    }

    fn passed(&self) -> Option<SheetError> {
        self.passed.get().map(|passed| match passed {
            Passed::Bytes => SheetError::TooLarge(self.limit),
            Passed::Time => SheetError::TooSlow(self.seconds),
            Passed::Event => SheetError::TooLong(MAX_EVENT_BYTES),
        })
    }
}

/// What the buffered reader may have read ahead of the event being parsed.
const BUFFERED: u64 = 8 * 1024;

/// A part's unpacked bytes, counted against the budget as they are read.
struct Counted<'w, R> {
    inner: R,
    budget: &'w Budget,
}

impl<R: Read> Read for Counted<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if Instant::now() > self.budget.deadline {
            self.budget.passed.set(Some(Passed::Time));
            return Err(std::io::Error::other("the time to read the workbook is up"));
        }
        let left = self.budget.left.get();
        // One byte past what is left tells a part that fits from one that does not.
        let room = usize::try_from(left.saturating_add(1)).unwrap_or(usize::MAX);
        let wanted = buf.len().min(room);
        let read = self.inner.read(&mut buf[..wanted])?;
        let read_u64 = read as u64;
        if read_u64 > left {
            self.budget.passed.set(Some(Passed::Bytes));
            return Err(std::io::Error::other("the workbook unpacks to too much"));
        }
        self.budget.left.set(left - read_u64);
        let since = self.budget.since_event.get() + read_u64;
        self.budget.since_event.set(since);
        if since > MAX_EVENT_BYTES + BUFFERED {
            self.budget.passed.set(Some(Passed::Event));
            return Err(std::io::Error::other("one XML event is too long"));
        }
        Ok(read)
    }
}
