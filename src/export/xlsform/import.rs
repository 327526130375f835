//! An XLSForm workbook read into a survey definition, as the JSON API takes it: the
//! `survey` sheet's rows as questions (top-level groups as pages, a field-list group of
//! choices from one list as a matrix), the `choices` sheet as options, `label::Name (tag)`
//! columns as languages, `relevant` as display conditions (the XPath most forms use:
//! comparisons, `selected()`, `not()`, `and`, `or`), number and date bounds from
//! `constraint`, `hint` and `note` rows as help texts, `hidden` rows as hidden fields; other
//! constraints as rules and `calculate` rows as variables where their XPath maps to CEL (see
//! `cel`). Whatever cannot be carried is listed by row with the reason, never dropped in
//! silence.

mod cel;

use std::collections::BTreeMap;

use serde_json::{Value, json};

use crate::export::workbook::{Bounds, SheetError, Workbook};

/// What a form may hold: far past any survey (100 questions of 50 options each).
const BOUNDS: Bounds = Bounds::sheet(5_000, 100, 100_000);

/// One row of the form that could not be carried, and why.
#[derive(Clone, Debug, PartialEq, serde::Serialize, utoipa::ToSchema)]
pub struct Skipped {
    /// The row of the `survey` sheet, as a spreadsheet numbers it.
    pub row: usize,
    /// What was left out, and why.
    pub reason: String,
}

/// A form read: the definition (JSON, as `POST /api/v1/surveys` takes it) and what was left
/// out.
#[derive(Debug)]
pub struct Imported {
    /// The definition.
    pub definition: Value,
    /// The rows left out, in order.
    pub skipped: Vec<Skipped>,
}

/// Reads an XLSForm workbook.
pub fn read(bytes: &[u8]) -> Result<Imported, SheetError> {
    let mut book = Workbook::open(bytes, &BOUNDS)?;
    let survey = book.rows("survey")?;
    if survey
        .iter()
        .all(|row| row.iter().all(|cell| cell.trim().is_empty()))
    {
        return Err(SheetError::Unreadable(
            "an XLSForm has a sheet named \"survey\" with a row of column names, then a row \
             per question"
                .into(),
        ));
    }
    let choices = book.rows("choices")?;
    let settings = book.rows("settings")?;
    Ok(Reader::new(&survey, &choices, &settings).read(&survey))
}

/// A sheet's columns by their names (lowercase, trimmed).
struct Columns(Vec<String>);

impl Columns {
    fn of(header: &[String]) -> Self {
        Self(header.iter().map(|h| h.trim().to_lowercase()).collect())
    }

    fn at(&self, name: &str) -> Option<usize> {
        self.0.iter().position(|c| c == name)
    }

    /// `base`'s columns by language tag (`label`, `label::English (en)`, `label::de`).
    fn localized(&self, base: &str, default: &str) -> Vec<(String, usize)> {
        self.0
            .iter()
            .enumerate()
            .filter_map(|(at, name)| {
                if name == base {
                    return Some((default.to_owned(), at));
                }
                let language = name.strip_prefix(&format!("{base}::"))?;
                Some((tag_of(language)?, at))
            })
            .collect()
    }
}

/// The tag of a language column's name: `English (en)` → `en`, `de` → `de`, `French` → `fr`.
fn tag_of(name: &str) -> Option<String> {
    let name = name.trim();
    if let Some((_, inside)) = name.rsplit_once('(') {
        let tag = inside.trim_end_matches(')').trim();
        return crate::domain::language::LanguageTag::parse(tag)
            .ok()
            .map(|t| t.to_string());
    }
    if let Ok(tag) = crate::domain::language::LanguageTag::parse(name)
        && name.len() <= 3
    {
        return Some(tag.to_string());
    }
    crate::domain::language::known_languages()
        .iter()
        .find(|known| known.english.eq_ignore_ascii_case(name))
        .map(|known| known.tag.to_owned())
}

/// One choice: its name, and its label by language.
type Choice = (String, BTreeMap<String, String>);

struct Reader {
    columns: Columns,
    languages: Vec<String>,
    lists: BTreeMap<String, Vec<Choice>>,
    title: String,
    skipped: Vec<Skipped>,
    /// XLSForm names → question ids (or hidden field names), as read so far.
    names: BTreeMap<String, Named>,
    hidden: Vec<String>,
    used: Vec<String>,
    /// The `calculate` rows read as variables (`{"id", "expression"}`), in order.
    variables: Vec<Value>,
}

/// What an XLSForm name stands for once read.
#[derive(Clone)]
enum Named {
    Question {
        id: String,
        list: Option<String>,
    },
    Hidden(String),
    /// A `calculate` row read as a variable, by its id.
    Variable(String),
}

/// A page being read.
#[derive(Default)]
struct Page {
    title: Option<Value>,
    show_if: Option<Value>,
    questions: Vec<Value>,
    /// A repeat's page: what it repeats over (`{"times": ID}` or `{"over": ID}`).
    repeat: Option<Value>,
}

/// A field-list group inside a page: a matrix when its rows are choices of one list.
struct Group {
    row: usize,
    name: String,
    label: Option<Value>,
    show_if: Option<Value>,
    children: Vec<(usize, Vec<String>)>,
}

impl Reader {
    fn new(survey: &[Vec<String>], choices: &[Vec<String>], settings: &[Vec<String>]) -> Self {
        let setting = |name: &str| -> Option<String> {
            let header = Columns::of(settings.first()?);
            let at = header.at(name)?;
            settings.get(1)?.get(at).map(|v| v.trim().to_owned())
        };
        let default = setting("default_language")
            .and_then(|name| tag_of(&name))
            .unwrap_or_else(|| "en".into());
        let columns = Columns::of(survey.first().map_or(&[][..], Vec::as_slice));
        let mut languages = vec![default.clone()];
        for (tag, _) in columns.localized("label", &default) {
            if !languages.contains(&tag) {
                languages.push(tag);
            }
        }
        let mut lists: BTreeMap<String, Vec<Choice>> = BTreeMap::new();
        if let Some(header) = choices.first() {
            let header = Columns::of(header);
            let labels = header.localized("label", &default);
            let (list, name) = (
                header.at("list_name").or(header.at("list name")),
                header.at("name"),
            );
            if let (Some(list), Some(name)) = (list, name) {
                for row in &choices[1..] {
                    let cell = |at: usize| row.get(at).map_or("", |c| c.trim());
                    if cell(list).is_empty() {
                        continue;
                    }
                    let text = labels
                        .iter()
                        .filter(|(_, at)| !cell(*at).is_empty())
                        .map(|(tag, at)| (tag.clone(), cell(*at).to_owned()))
                        .collect();
                    lists
                        .entry(cell(list).to_owned())
                        .or_default()
                        .push((cell(name).to_owned(), text));
                }
            }
        }
        Self {
            columns,
            languages,
            lists,
            title: setting("form_title")
                .filter(|t| !t.is_empty())
                .unwrap_or_else(|| "Imported form".into()),
            skipped: Vec::new(),
            names: BTreeMap::new(),
            hidden: Vec::new(),
            used: Vec::new(),
            variables: Vec::new(),
        }
    }

    fn skip(&mut self, row: usize, reason: impl Into<String>) {
        self.skipped.push(Skipped {
            row,
            reason: reason.into(),
        });
    }

    fn cell<'r>(&self, row: &'r [String], name: &str) -> &'r str {
        self.columns
            .at(name)
            .and_then(|at| row.get(at))
            .map_or("", |c| c.trim())
    }

    /// A localized text of `base` (`label`, `hint`) in `row`, with `${name}` as recalls.
    fn text(&self, row: &[String], base: &str) -> Option<Value> {
        let default = &self.languages[0];
        let given: BTreeMap<String, String> = self
            .columns
            .localized(base, default)
            .into_iter()
            .filter_map(|(tag, at)| {
                let text = row.get(at)?.trim();
                (!text.is_empty()).then(|| (tag, self.recalls(text)))
            })
            .collect();
        self.localized(given)
    }

    fn localized(&self, given: BTreeMap<String, String>) -> Option<Value> {
        let default = &self.languages[0];
        let first = given
            .get(default)
            .or_else(|| given.values().next())?
            .clone();
        if self.languages.len() == 1 {
            return Some(Value::String(first));
        }
        let mut object = serde_json::Map::new();
        object.insert(default.clone(), Value::String(first));
        for (tag, text) in given {
            if &tag != default && self.languages.contains(&tag) {
                object.insert(tag, Value::String(text));
            }
        }
        Some(Value::Object(object))
    }

    /// `${name}` references as recalls of the question or hidden field read by that name.
    fn recalls(&self, text: &str) -> String {
        let mut out = String::with_capacity(text.len());
        let mut rest = text;
        while let Some(at) = rest.find("${") {
            out.push_str(&rest[..at]);
            let inside = &rest[at + 2..];
            let Some(end) = inside.find('}') else {
                out.push_str(&rest[at..]);
                return out;
            };
            let name = &inside[..end];
            match self.names.get(name) {
                Some(Named::Question { id, .. }) => out.push_str(&format!("{{{{q:{id}}}}}")),
                Some(Named::Hidden(field)) => out.push_str(&format!("{{{{h:{field}}}}}")),
                Some(Named::Variable(id)) => out.push_str(&format!("{{{{v:{id}}}}}")),
                None => out.push_str(&rest[at..at + 3 + end]),
            }
            rest = &inside[end + 1..];
        }
        out.push_str(rest);
        out
    }

    /// A question id for XLSForm name `name`: itself when it is one, else made from it.
    fn id_for(&mut self, name: &str) -> String {
        let made: String = name
            .to_lowercase()
            .chars()
            .filter(char::is_ascii_alphanumeric)
            .take(32)
            .collect();
        let mut id = if made.is_empty() {
            "q".to_owned()
        } else {
            made
        };
        if id.starts_with(|c: char| c.is_ascii_digit()) {
            id = format!("q{id}");
            id.truncate(32);
        }
        let base = id.clone();
        let mut n = 2;
        while self.used.contains(&id) {
            id = format!("{}{n}", &base[..base.len().min(29)]);
            n += 1;
        }
        self.used.push(id.clone());
        id
    }

    fn read(mut self, survey: &[Vec<String>]) -> Imported {
        let mut pages: Vec<Page> = Vec::new();
        let mut current = Page::default();
        let mut depth = 0usize;
        let mut group: Option<Group> = None;
        let mut repeat = 0usize;
        // Of a loop being read: the index of its first page, and whether a page's group in it
        // is open.
        let mut run: Option<usize> = None;
        let mut page_group = false;
        let mut note: Option<Value> = None;
        for (at, row) in survey.iter().enumerate().skip(1) {
            let number = at + 1;
            let kind = self.cell(row, "type").to_owned();
            let words: Vec<&str> = kind.split_whitespace().collect();
            let Some(&head) = words.first() else {
                continue;
            };
            let head = match (head.to_lowercase().as_str(), words.get(1).copied()) {
                ("begin", Some("group")) => "begin_group".to_owned(),
                ("end", Some("group")) => "end_group".to_owned(),
                ("begin", Some("repeat")) => "begin_repeat".to_owned(),
                ("end", Some("repeat")) => "end_repeat".to_owned(),
                (head, _) => head.to_owned(),
            };
            // A repeat's rows are left out with it (it is listed once, at its start).
            if repeat > 0 {
                match head.as_str() {
                    "begin_repeat" => repeat += 1,
                    "end_repeat" => repeat -= 1,
                    _ => {}
                }
                continue;
            }
            match head.as_str() {
                "end_repeat" => {
                    if let Some(first) = run.take() {
                        if !current.questions.is_empty() || pages.len() == first {
                            pages.push(std::mem::take(&mut current));
                        }
                        // A loop over several pages (a group each) repeats them together.
                        let count = pages.len() - first;
                        if let Some(looped) = pages.get_mut(first).and_then(|p| p.repeat.as_mut())
                            && count > 1
                        {
                            looped["pages"] = json!(count);
                        }
                        depth = 0;
                    }
                }
                // A repeat counted by an earlier number or choice list, outside any group: a
                // page repeated as a loop.
                "begin_repeat" if depth == 0 && group.is_none() => match self.repeat_count(row) {
                    Some(looped) => {
                        if !current.questions.is_empty() || current.title.is_some() {
                            pages.push(std::mem::take(&mut current));
                        }
                        depth = 1;
                        run = Some(pages.len());
                        current.title = self.text(row, "label");
                        current.show_if = self.relevant(row, number);
                        current.repeat = Some(looped);
                    }
                    None => {
                        repeat = 1;
                        self.skip(
                            number,
                            "a repeat whose count is not `${number}` or \
                                 `count-selected(${multiple choice})` of an earlier question: \
                                 left out with its questions",
                        );
                    }
                },
                "begin_repeat" => {
                    repeat = 1;
                    self.skip(
                        number,
                        "a repeat inside a group (loops repeat whole pages): left out with its \
                         questions",
                    );
                }
                // A page's group inside a loop's repeat: the loop's next page.
                "begin_group" if depth == 1 && run.is_some() && !page_group => {
                    page_group = true;
                    if !current.questions.is_empty() {
                        pages.push(std::mem::take(&mut current));
                    }
                    if let Some(title) = self.text(row, "label") {
                        current.title = Some(title);
                    }
                    if let Some(show_if) = self.relevant(row, number) {
                        current.show_if = Some(show_if);
                    }
                }
                "end_group" if depth == 1 && page_group => {
                    page_group = false;
                    if !current.questions.is_empty() {
                        pages.push(std::mem::take(&mut current));
                    }
                }
                "begin_group" => {
                    depth += 1;
                    let show_if = self.relevant(row, number);
                    if depth == 1 {
                        if !current.questions.is_empty() || current.title.is_some() {
                            pages.push(std::mem::take(&mut current));
                        }
                        current.title = self.text(row, "label");
                        current.show_if = show_if;
                    } else if depth == 2 && group.is_none() {
                        group = Some(Group {
                            row: number,
                            name: self.cell(row, "name").to_owned(),
                            label: self.text(row, "label"),
                            show_if,
                            children: Vec::new(),
                        });
                    } else {
                        self.skip(
                            number,
                            "a group inside a group: its questions stay on their page",
                        );
                    }
                }
                "end_group" => {
                    if depth == 2
                        && let Some(open) = group.take()
                    {
                        self.close_group(open, &mut current);
                    }
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        pages.push(std::mem::take(&mut current));
                    }
                }
                _ => {
                    if let Some(open) = group.as_mut() {
                        open.children.push((number, row.clone()));
                        continue;
                    }
                    if head == "note" {
                        note = self.text(row, "label");
                        continue;
                    }
                    if let Some(question) = self.question(row, number, &words, note.take()) {
                        current.questions.push(question);
                    }
                }
            }
        }
        if let Some(open) = group.take() {
            self.close_group(open, &mut current);
        }
        if !current.questions.is_empty() || current.title.is_some() {
            pages.push(current);
        }
        pages.retain(|page| !page.questions.is_empty());
        let mut definition = json!({"title": self.title});
        if pages.len() <= 1
            && pages
                .first()
                .is_none_or(|p| p.title.is_none() && p.show_if.is_none() && p.repeat.is_none())
        {
            definition["questions"] = json!(pages.pop().map(|p| p.questions).unwrap_or_default());
        } else {
            let pages: Vec<Value> = pages
                .into_iter()
                .enumerate()
                .map(|(index, page)| {
                    let mut written = json!({"questions": page.questions});
                    if let Some(title) = page.title {
                        written["title"] = title;
                    }
                    if let Some(looped) = page.repeat {
                        written["loop"] = looped;
                    }
                    // The first page is always shown.
                    if let Some(show_if) = page.show_if.filter(|_| index > 0) {
                        written["show_if"] = show_if;
                    }
                    written
                })
                .collect();
            definition["pages"] = json!(pages);
        }
        if self.languages.len() > 1 {
            definition["languages"] = json!(self.languages);
        }
        if !self.hidden.is_empty() {
            definition["hidden_fields"] = json!(self.hidden);
        }
        if !self.variables.is_empty() {
            definition["variables"] = json!(self.variables);
        }
        Imported {
            definition,
            skipped: self.skipped,
        }
    }

    /// A closed field-list group: a matrix when every row chooses one of the same list,
    /// else its questions, each on the page.
    fn close_group(&mut self, group: Group, page: &mut Page) {
        let list = group
            .children
            .iter()
            .try_fold(None::<String>, |list, (_, row)| {
                let kind = self.cell(row, "type").to_owned();
                let mut words = kind.split_whitespace();
                match (words.next(), words.next(), words.next(), &list) {
                    (Some("select_one"), Some(name), None, None) => Ok(Some(name.to_owned())),
                    (Some("select_one"), Some(name), None, Some(same)) if same == name => Ok(list),
                    _ => Err(()),
                }
            });
        if let Ok(Some(list)) = list
            && let Some(choices) = self.lists.get(&list).cloned()
            && group.children.len() <= crate::domain::question::MAX_ROWS
        {
            let id = self.id_for(&group.name);
            let rows: Vec<Value> = group
                .children
                .iter()
                .filter_map(|(_, row)| self.text(row, "label"))
                .collect();
            let columns: Vec<Value> = choices
                .iter()
                .filter_map(|(_, labels)| self.localized(labels.clone()))
                .collect();
            let mut matrix = json!({"id": id, "type": "matrix", "rows": rows, "columns": columns,
                                    "text": group.label.unwrap_or_else(|| json!(group.name))});
            let required = group
                .children
                .iter()
                .any(|(_, row)| is_yes(self.cell(row, "required")));
            if required {
                matrix["required"] = json!(true);
            }
            if let Some(show_if) = group.show_if {
                matrix["show_if"] = show_if;
            }
            self.names
                .insert(group.name.clone(), Named::Question { id, list: None });
            page.questions.push(matrix);
            return;
        }
        let _ = group.row;
        for (number, row) in group.children {
            let kind = self.cell(&row, "type").to_owned();
            let words: Vec<&str> = kind.split_whitespace().collect();
            if let Some(question) = self.question(&row, number, &words, None) {
                page.questions.push(question);
            }
        }
    }

    /// One question row, or `None` (listed in `skipped`).
    fn question(
        &mut self,
        row: &[String],
        number: usize,
        words: &[&str],
        note: Option<Value>,
    ) -> Option<Value> {
        let name = self.cell(row, "name").to_owned();
        let head = words.first().map(|w| w.to_lowercase()).unwrap_or_default();
        if head == "hidden" {
            let field: String = name
                .to_lowercase()
                .chars()
                .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
                .take(32)
                .collect();
            if crate::domain::hidden::valid_name(&field) && !self.hidden.contains(&field) {
                self.names.insert(name, Named::Hidden(field.clone()));
                self.hidden.push(field);
            } else {
                self.skip(
                    number,
                    format!("the hidden field \"{name}\" has no name Canvass takes"),
                );
            }
            return None;
        }
        let appearance = self.cell(row, "appearance").to_lowercase();
        let list = words.get(1).map(|w| (*w).to_owned());
        let other = words.get(2).is_some_and(|w| *w == "or_other");
        let mut question = match head.as_str() {
            "text" if appearance.contains("multiline") => json!({"type": "long_text"}),
            "text" => json!({"type": "short_text"}),
            "integer" => json!({"type": "numeric", "integer": true}),
            "decimal" => json!({"type": "numeric"}),
            "date" => json!({"type": "date"}),
            "file" | "image" => json!({"type": "file"}),
            "range" => self.range(row, &appearance),
            "select_one" | "select_multiple" | "rank" => {
                let kind = match head.as_str() {
                    "select_multiple" => "multiple_choice",
                    "rank" => "ranking",
                    _ if appearance.contains("minimal") => "dropdown",
                    _ => "single_choice",
                };
                let Some(choices) = list.as_ref().and_then(|l| self.lists.get(l)).cloned() else {
                    self.skip(
                        number,
                        format!("\"{name}\": its choice list is not on the choices sheet"),
                    );
                    return None;
                };
                let has_other = other || choices.iter().any(|(code, _)| code == "other");
                let options: Vec<Value> = choices
                    .iter()
                    .filter(|(code, _)| code != "other")
                    .filter_map(|(_, labels)| self.localized(labels.clone()))
                    .collect();
                let mut question = json!({"type": kind, "options": options});
                if has_other && kind != "dropdown" && kind != "ranking" {
                    question["other"] = json!(true);
                }
                question
            }
            "calculate" => {
                self.calculation(row, number, &name);
                return None;
            }
            other => {
                self.skip(
                    number,
                    format!("\"{name}\": Canvass has no question of type \"{other}\""),
                );
                return None;
            }
        };
        let id = self.id_for(&name);
        question["id"] = json!(id);
        question["text"] = self
            .text(row, "label")
            .unwrap_or_else(|| json!(if name.is_empty() { "Question" } else { &name }));
        if let Some(help) = self.text(row, "hint").or(note) {
            question["help"] = help;
        }
        let required = self.cell(row, "required");
        if is_yes(required) {
            question["required"] = json!(true);
        } else if !required.is_empty() && !is_no(required) {
            self.skip(
                number,
                format!("\"{name}\": required only when {required} (required is yes or no here)"),
            );
        }
        if let Some(show_if) = self.relevant(row, number) {
            question["show_if"] = show_if;
        }
        self.constraint(row, number, &name, &mut question);
        let list = matches!(head.as_str(), "select_one" | "select_multiple" | "rank")
            .then(|| list.clone())
            .flatten();
        self.names.insert(name, Named::Question { id, list });
        Some(question)
    }

    /// A `range` row: stars, NPS, a scale, or a bounded number.
    fn range(&self, row: &[String], appearance: &str) -> Value {
        let parameters = self.cell(row, "parameters");
        let value = |key: &str| -> Option<f64> {
            parameters.split_whitespace().find_map(|pair| {
                let (k, v) = pair.split_once('=')?;
                (k.trim() == key).then(|| v.trim().parse().ok()).flatten()
            })
        };
        let (start, end) = (value("start").unwrap_or(1.0), value("end").unwrap_or(10.0));
        match (start, end) {
            (1.0, 5.0) if appearance.contains("rating") => json!({"type": "five_stars"}),
            (0.0, 10.0) => json!({"type": "nps"}),
            (1.0, points) if (3.0..=10.0).contains(&points) && points.fract() == 0.0 => {
                json!({"type": "scale", "points": points as u8})
            }
            (min, max) => json!({"type": "numeric", "min": min.min(max), "max": max.max(min)}),
        }
    }

    /// Bounds from `constraint` (`. >= 1 and . <= 30`, `. >= date('2000-01-01')`); any other
    /// constraint is listed as skipped.
    fn constraint(&mut self, row: &[String], number: usize, name: &str, question: &mut Value) {
        let constraint = self.cell(row, "constraint").to_owned();
        if constraint.is_empty() {
            return;
        }
        let numeric = question["type"] == "numeric";
        let date = question["type"] == "date";
        let mut kept = true;
        for part in constraint.split(" and ") {
            let part = part.trim();
            let part = match part.strip_prefix('(').and_then(|p| p.strip_suffix(')')) {
                Some(inner) => inner.trim(),
                None => part,
            };
            let Some(rest) = part.strip_prefix('.') else {
                kept = false;
                continue;
            };
            let rest = rest.trim();
            let (low, value) = match (rest.strip_prefix(">="), rest.strip_prefix("<=")) {
                (Some(v), _) => (true, v.trim()),
                (_, Some(v)) => (false, v.trim()),
                _ => {
                    kept = false;
                    continue;
                }
            };
            let day = value
                .strip_prefix("date(")
                .and_then(|v| v.strip_suffix(')'))
                .map(|v| v.trim_matches(|c| c == '\'' || c == '"'));
            match (numeric, date, value.parse::<f64>().ok(), day) {
                (true, _, Some(n), _) => question[if low { "min" } else { "max" }] = json!(n),
                (_, true, _, Some(day)) => {
                    question[if low { "earliest" } else { "latest" }] = json!(day)
                }
                _ => kept = false,
            }
        }
        if kept {
            return;
        }
        // Beyond bounds: the constraint as the question's rule, where its XPath maps to CEL.
        let id = question["id"].as_str().map(str::to_owned);
        match self.cel_of(&constraint, id.as_deref()) {
            Some(expression) => {
                let message = self
                    .text(row, "constraint_message")
                    .unwrap_or_else(|| json!("This answer is not accepted."));
                question["validate"] = json!({"expression": expression, "message": message});
            }
            None => self.skip(
                number,
                format!(
                    "\"{name}\": the constraint {constraint} (its XPath does not map to a CEL \
                     rule)"
                ),
            ),
        }
    }

    /// A `calculate` row as a variable, where its XPath maps to CEL (at most
    /// `MAX_VARIABLES`, ids as Canvass takes them); otherwise listed as skipped.
    fn calculation(&mut self, row: &[String], number: usize, name: &str) {
        let id = name.to_ascii_lowercase().replace('-', "_");
        // A variable's id is checked as a hidden field's name is (`definition::calculation`).
        let valid = crate::domain::hidden::valid_name(&id)
            && self.variables.len() < crate::domain::calculation::MAX_VARIABLES;
        let xpath = self.cell(row, "calculation").to_owned();
        let expression = self.cel_of(&xpath, None);
        match (valid, expression) {
            (true, Some(expression)) => {
                self.variables
                    .push(json!({"id": id, "expression": expression}));
                self.names.insert(name.to_owned(), Named::Variable(id));
            }
            _ => self.skip(
                number,
                format!("\"{name}\": the calculation {xpath} (its XPath does not map to CEL)"),
            ),
        }
    }

    /// `relevant` as a condition, or `None` (listed as skipped when it cannot be read).
    /// What a `begin_repeat` row's `repeat_count` repeats over, when it names an earlier
    /// question Canvass can loop over: `${n}` of a number, `count-selected(${c})` of a
    /// multiple choice.
    fn repeat_count(&self, row: &[String]) -> Option<Value> {
        let count = self.cell(row, "repeat_count").trim();
        let (key, name) = match count
            .strip_prefix("count-selected(")
            .and_then(|rest| rest.strip_suffix(')'))
        {
            Some(inner) => ("over", inner.trim()),
            None => ("times", count),
        };
        let name = name.strip_prefix("${")?.strip_suffix('}')?;
        let Some(Named::Question { id, list }) = self.names.get(name) else {
            return None;
        };
        // Over a choice list (a multiple choice), or a number (no list).
        (list.is_some() == (key == "over")).then(|| json!({ key: id }))
    }

    fn relevant(&mut self, row: &[String], number: usize) -> Option<Value> {
        let relevant = self.cell(row, "relevant").to_owned();
        if relevant.is_empty() {
            return None;
        }
        let read = Xpath::new(&relevant, self).condition();
        match read {
            Some(condition) => Some(condition),
            None => {
                self.skip(
                    number,
                    format!(
                        "relevant {relevant}: not a condition Canvass can read, so shown always"
                    ),
                );
                None
            }
        }
    }
}

fn is_yes(text: &str) -> bool {
    matches!(
        text.to_lowercase().as_str(),
        "yes" | "true" | "true()" | "1"
    )
}

fn is_no(text: &str) -> bool {
    matches!(
        text.to_lowercase().as_str(),
        "no" | "false" | "false()" | "0"
    )
}

/// The XPath of `relevant` that forms use, read into a condition: `${q} = 'code'`, `!=`,
/// `>`, `<` (numbers and `date('...')`), `= ''` and `!= ''`, `selected(${q}, 'code')`,
/// `not(...)`, `and`, `or` and parentheses. Anything else is not read.
struct Xpath<'r> {
    tokens: Vec<Token>,
    at: usize,
    reader: &'r Reader,
}

#[derive(Clone, Debug, PartialEq)]
enum Token {
    Reference(String),
    Text(String),
    Number(String),
    Word(String),
    Operator(String),
    Open,
    Close,
    Comma,
}

fn tokens(text: &str) -> Option<Vec<Token>> {
    let mut tokens = Vec::new();
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        match c {
            ' ' | '\t' | '\n' => i += 1,
            '(' => {
                tokens.push(Token::Open);
                i += 1;
            }
            ')' => {
                tokens.push(Token::Close);
                i += 1;
            }
            ',' => {
                tokens.push(Token::Comma);
                i += 1;
            }
            '$' => {
                let close = chars[i..].iter().position(|&c| c == '}')?;
                let name: String = chars[i + 2..i + close].iter().collect();
                tokens.push(Token::Reference(name));
                i += close + 1;
            }
            '\'' | '"' => {
                let close = chars[i + 1..].iter().position(|&q| q == c)?;
                tokens.push(Token::Text(chars[i + 1..i + 1 + close].iter().collect()));
                i += close + 2;
            }
            '=' | '!' | '<' | '>' => {
                let two = chars.get(i + 1) == Some(&'=');
                let op: String = chars[i..i + if two { 2 } else { 1 }].iter().collect();
                if op == "!" {
                    return None;
                }
                tokens.push(Token::Operator(op));
                i += if two { 2 } else { 1 };
            }
            '+' | '*' => {
                tokens.push(Token::Operator(c.to_string()));
                i += 1;
            }
            // A minus not before a digit (or a dot) is subtraction.
            '-' if !chars
                .get(i + 1)
                .is_some_and(|n| n.is_ascii_digit() || *n == '.') =>
            {
                tokens.push(Token::Operator("-".into()));
                i += 1;
            }
            c if c.is_ascii_digit() || c == '-' || c == '.' => {
                let end = chars[i + 1..]
                    .iter()
                    .position(|c| !(c.is_ascii_digit() || *c == '.'))
                    .map_or(chars.len(), |p| i + 1 + p);
                tokens.push(Token::Number(chars[i..end].iter().collect()));
                i = end;
            }
            c if c.is_ascii_alphabetic() => {
                let end = chars[i..]
                    .iter()
                    .position(|c| !(c.is_ascii_alphanumeric() || *c == '-' || *c == '_'))
                    .map_or(chars.len(), |p| i + p);
                tokens.push(Token::Word(chars[i..end].iter().collect()));
                i = end;
            }
            _ => return None,
        }
        if tokens.len() > 200 {
            return None;
        }
    }
    Some(tokens)
}

impl<'r> Xpath<'r> {
    fn new(text: &str, reader: &'r Reader) -> Self {
        Self {
            tokens: tokens(text).unwrap_or_default(),
            at: 0,
            reader,
        }
    }

    fn condition(mut self) -> Option<Value> {
        if self.tokens.is_empty() {
            return None;
        }
        let read = self.or(0)?;
        (self.at == self.tokens.len()).then_some(read)
    }

    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.at)
    }

    fn next(&mut self) -> Option<Token> {
        let token = self.tokens.get(self.at).cloned();
        self.at += 1;
        token
    }

    fn word(&self, word: &str) -> bool {
        matches!(self.peek(), Some(Token::Word(w)) if w == word)
    }

    fn or(&mut self, depth: usize) -> Option<Value> {
        let mut parts = vec![self.and(depth)?];
        while self.word("or") {
            self.at += 1;
            parts.push(self.and(depth)?);
        }
        Some(group("any", parts))
    }

    fn and(&mut self, depth: usize) -> Option<Value> {
        let mut parts = vec![self.unary(depth)?];
        while self.word("and") {
            self.at += 1;
            parts.push(self.unary(depth)?);
        }
        Some(group("all", parts))
    }

    fn unary(&mut self, depth: usize) -> Option<Value> {
        if depth > 6 {
            return None;
        }
        if self.word("not") {
            self.at += 1;
            (self.next()? == Token::Open).then_some(())?;
            let inner = self.or(depth + 1)?;
            (self.next()? == Token::Close).then_some(())?;
            return negate(&inner);
        }
        if self.word("selected") {
            self.at += 1;
            (self.next()? == Token::Open).then_some(())?;
            let Token::Reference(name) = self.next()? else {
                return None;
            };
            (self.next()? == Token::Comma).then_some(())?;
            let Token::Text(code) = self.next()? else {
                return None;
            };
            (self.next()? == Token::Close).then_some(())?;
            let (id, value) = self.choice(&name, &code)?;
            return Some(json!({"question": id, "equals": value}));
        }
        if self.peek() == Some(&Token::Open) {
            self.at += 1;
            let inner = self.or(depth + 1)?;
            (self.next()? == Token::Close).then_some(())?;
            return Some(inner);
        }
        self.comparison()
    }

    /// The question read by `name` and the option text of `code` in its list.
    fn choice(&self, name: &str, code: &str) -> Option<(String, String)> {
        match self.reader.names.get(name)? {
            Named::Question { id, list } => {
                let value = match list.as_ref().and_then(|l| self.reader.lists.get(l)) {
                    Some(choices) => {
                        if code == "other" {
                            crate::domain::choice::OTHER.to_owned()
                        } else {
                            let (_, labels) = choices.iter().find(|(c, _)| c == code)?;
                            let default = &self.reader.languages[0];
                            labels
                                .get(default)
                                .or_else(|| labels.values().next())?
                                .clone()
                        }
                    }
                    None => code.to_owned(),
                };
                Some((id.clone(), value))
            }
            Named::Hidden(_) | Named::Variable(_) => None,
        }
    }

    fn comparison(&mut self) -> Option<Value> {
        let Token::Reference(name) = self.next()? else {
            return None;
        };
        let Token::Operator(op) = self.next()? else {
            return None;
        };
        let value = match self.next()? {
            Token::Text(text) => Literal::Text(text),
            Token::Number(number) => Literal::Number(number.parse().ok()?),
            Token::Word(word) if word == "date" => {
                (self.next()? == Token::Open).then_some(())?;
                let Token::Text(day) = self.next()? else {
                    return None;
                };
                (self.next()? == Token::Close).then_some(())?;
                Literal::Date(day)
            }
            _ => return None,
        };
        let (key, subject) = match self.reader.names.get(&name)? {
            Named::Question { id, .. } => ("question", id.clone()),
            Named::Hidden(field) => ("hidden", field.clone()),
            Named::Variable(_) => return None,
        };
        let mut rule = json!({ key: subject });
        match (op.as_str(), value) {
            ("=", Literal::Text(text)) if text.is_empty() => rule["answered"] = json!(false),
            ("!=", Literal::Text(text)) if text.is_empty() => rule["answered"] = json!(true),
            (op @ ("=" | "!="), Literal::Text(code)) => {
                let text = match key {
                    "question" => self.choice(&name, &code)?.1,
                    _ => code,
                };
                rule[if op == "=" { "equals" } else { "not_equals" }] = json!(text);
            }
            (op @ ("=" | "!="), Literal::Number(n)) => {
                rule[if op == "=" { "equals" } else { "not_equals" }] = json!(number_text(n));
            }
            (">", Literal::Number(n)) => rule["greater_than"] = json!(n),
            ("<", Literal::Number(n)) => rule["less_than"] = json!(n),
            (">", Literal::Date(day)) => rule["greater_than"] = json!(day),
            ("<", Literal::Date(day)) => rule["less_than"] = json!(day),
            _ => return None,
        }
        Some(rule)
    }
}

enum Literal {
    Text(String),
    Number(f64),
    Date(String),
}

fn number_text(n: f64) -> String {
    if n.fract() == 0.0 && n.abs() < 1e15 {
        format!("{}", n as i64)
    } else {
        n.to_string()
    }
}

/// One condition, or a group of several.
fn group(kind: &str, mut parts: Vec<Value>) -> Value {
    match parts.len() {
        1 => parts.pop().unwrap_or(Value::Null),
        _ => json!({ kind: parts }),
    }
}

/// The condition that holds exactly when `condition` does not: the negation pushed down to
/// the rules (a rule on an answer not given is false, so "not equal" also takes "not
/// answered"). `None` for a test with no exact opposite (`greater_than` without "at most").
fn negate(condition: &Value) -> Option<Value> {
    let object = condition.as_object()?;
    if let Some(Value::Array(all)) = object.get("all") {
        let parts = all.iter().map(negate).collect::<Option<Vec<_>>>()?;
        return Some(group("any", parts));
    }
    if let Some(Value::Array(any)) = object.get("any") {
        let parts = any.iter().map(negate).collect::<Option<Vec<_>>>()?;
        return Some(group("all", parts));
    }
    let (key, subject) = ["question", "hidden"]
        .iter()
        .find_map(|key| Some((*key, object.get(*key)?.clone())))?;
    let unanswered = json!({ key: subject.clone(), "answered": false });
    if let Some(Value::Bool(answered)) = object.get("answered") {
        return Some(json!({ key: subject, "answered": !answered }));
    }
    if let Some(value) = object.get("equals") {
        return Some(json!({"any": [{ key: subject, "not_equals": value }, unanswered]}));
    }
    if let Some(value) = object.get("not_equals") {
        return Some(json!({"any": [{ key: subject, "equals": value }, unanswered]}));
    }
    None
}

#[cfg(test)]
#[path = "import_tests.rs"]
mod tests;
