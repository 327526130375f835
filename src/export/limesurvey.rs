//! LimeSurvey survey structure files (`.lss`, XML) read as a draft definition: the survey's
//! languages, its question groups as pages, the common question types (texts, numbers,
//! lists, multiple choice, dates, rankings, arrays as matrices, yes/no, gender, five-point
//! choice, file uploads, text displays as help), mandatory questions, "Other", and conditions
//! where they map (an answer equal or not to an option, a number above or below). What does
//! not map is listed by question with the reason.
//!
//! Both layouts are read: LimeSurvey 3's (a row per language in `questions`, `groups` and
//! `answers`) and LimeSurvey 4 to 6's (texts in `question_l10ns`, `group_l10ns` and
//! `answer_l10ns`). The XML is read by quick-xml within bounds: a DOCTYPE is refused, so no
//! entity of the document's own (nor an external one) is ever expanded; only XML's five
//! predefined entities and character references are read.

use std::collections::{BTreeMap, HashMap};

use quick_xml::Reader;
use quick_xml::events::Event;
use serde_json::{Value, json};

use super::xlsform::{Imported, Skipped};

/// Most rows over all of a file's tables.
pub const MAX_ROWS: usize = 20_000;
/// Longest value of one field, in bytes.
pub const MAX_FIELD: usize = 100_000;
/// Deepest nesting of elements (a field is 5 deep).
const MAX_DEPTH: usize = 8;

/// Why a file cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum LssError {
    /// Not well-formed XML, or a construct refused.
    #[error("{0}")]
    Unreadable(String),
    /// Not a LimeSurvey survey structure.
    #[error("it is not a LimeSurvey survey structure (no <LimeSurveyDocType>Survey)")]
    NotASurvey,
    /// Past a bound.
    #[error("it holds more than {0}")]
    TooMuch(String),
}

/// A table's rows, each a map of field to value.
type Rows = Vec<BTreeMap<String, String>>;

/// The file's tables by name, and the `<languages>` list.
#[derive(Default)]
struct Document {
    kind: String,
    languages: Vec<String>,
    tables: HashMap<String, Rows>,
}

impl Document {
    fn rows(&self, table: &str) -> &[BTreeMap<String, String>] {
        self.tables.get(table).map_or(&[], Vec::as_slice)
    }
}

fn unreadable(what: impl std::fmt::Display) -> LssError {
    LssError::Unreadable(what.to_string())
}

/// Reads the XML: `<document>`, its tables (`<questions><rows><row><qid>..`), and the
/// `<languages>` list.
fn document(bytes: &[u8]) -> Result<Document, LssError> {
    let mut reader = Reader::from_reader(bytes);
    let mut buf = Vec::new();
    let mut path: Vec<String> = Vec::new();
    let mut doc = Document::default();
    let mut row: BTreeMap<String, String> = BTreeMap::new();
    let mut text = String::new();
    let mut rows = 0usize;
    loop {
        let event = reader
            .read_event_into(&mut buf)
            .map_err(|e| unreadable(format!("not well-formed XML: {e}")))?;
        match event {
            Event::Eof => break,
            Event::DocType(_) => {
                return Err(unreadable(
                    "it has a DOCTYPE; a LimeSurvey file has none (its entities are never read)",
                ));
            }
            Event::Start(tag) => {
                if path.len() >= MAX_DEPTH {
                    return Err(LssError::TooMuch(format!("{MAX_DEPTH} levels of elements")));
                }
                let name = tag.local_name().as_ref().to_owned();
                if path.len() == 3 && name == "row" {
                    row.clear();
                }
                path.push(name);
                text.clear();
            }
            Event::End(_) => {
                let depth = path.len();
                let name = path.pop().unwrap_or_default();
                match depth {
                    // <document><LimeSurveyDocType>Survey</..>
                    2 if name == "LimeSurveyDocType" => doc.kind = text.trim().to_owned(),
                    // <document><languages><language>en</..>
                    3 if path[1] == "languages" && name == "language" => {
                        doc.languages.push(text.trim().to_owned());
                    }
                    // <document><TABLE><rows><row>
                    4 if name == "row" && path[2] == "rows" => {
                        rows += 1;
                        if rows > MAX_ROWS {
                            return Err(LssError::TooMuch(format!("{MAX_ROWS} rows")));
                        }
                        let table = path[1].clone();
                        doc.tables
                            .entry(table)
                            .or_default()
                            .push(std::mem::take(&mut row));
                    }
                    // <row><FIELD>value</FIELD>
                    5 if path[3] == "row" => {
                        row.insert(name, std::mem::take(&mut text));
                    }
                    _ => {}
                }
                text.clear();
            }
            Event::Text(content) => push(&mut text, &content.xml10_content())?,
            Event::CData(content) => push(&mut text, &content.xml10_content())?,
            Event::GeneralRef(entity) => {
                let character = match entity.resolve_char_ref().map_err(unreadable)? {
                    Some(character) => character,
                    None => match &*entity {
                        "amp" => '&',
                        "lt" => '<',
                        "gt" => '>',
                        "quot" => '"',
                        "apos" => '\'',
                        other => {
                            return Err(unreadable(format!("it names an entity &{other};")));
                        }
                    },
                };
                push(&mut text, character.encode_utf8(&mut [0; 4]))?;
            }
            _ => {}
        }
        buf.clear();
    }
    if doc.kind != "Survey" {
        return Err(LssError::NotASurvey);
    }
    Ok(doc)
}

fn push(text: &mut String, more: &str) -> Result<(), LssError> {
    if text.len() + more.len() > MAX_FIELD {
        return Err(LssError::TooMuch(format!(
            "{} KB in one field",
            MAX_FIELD / 1000
        )));
    }
    text.push_str(more);
    Ok(())
}

/// An owner text from LimeSurvey's HTML: tags dropped (a line break or paragraph as a new
/// line), the common entities read, spaces gathered.
fn plain(html: &str) -> String {
    let mut out = String::with_capacity(html.len());
    let mut rest = html;
    while let Some(at) = rest.find('<') {
        out.push_str(&rest[..at]);
        let Some(end) = rest[at..].find('>') else {
            rest = "";
            break;
        };
        let tag = rest[at + 1..at + end].to_ascii_lowercase();
        if tag.starts_with("br") || tag.starts_with("/p") || tag.starts_with("/div") {
            out.push('\n');
        }
        rest = &rest[at + end + 1..];
    }
    out.push_str(rest);
    let out = out
        .replace("&nbsp;", " ")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&amp;", "&");
    out.lines()
        .map(|line| line.split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|line| !line.is_empty())
        .collect::<Vec<_>>()
        .join("\n")
}

/// Reads a `.lss` file as a draft definition and what it left out.
pub fn read(bytes: &[u8]) -> Result<Imported, LssError> {
    let doc = document(bytes)?;
    Ok(Builder::new(&doc).build())
}

/// A question as LimeSurvey stores it.
struct LsQuestion<'a> {
    qid: &'a str,
    gid: &'a str,
    code: &'a str,
    kind: &'a str,
    order: i64,
    row: &'a BTreeMap<String, String>,
}

struct Builder<'a> {
    doc: &'a Document,
    languages: Vec<String>,
    skipped: Vec<Skipped>,
    /// Question ids made, by LimeSurvey qid, with the options' codes and texts.
    made: HashMap<String, (String, Vec<(String, String)>)>,
    used: Vec<String>,
}

fn field<'r>(row: &'r BTreeMap<String, String>, name: &str) -> &'r str {
    row.get(name).map_or("", |v| v.trim())
}

fn order(row: &BTreeMap<String, String>, name: &str) -> i64 {
    field(row, name).parse().unwrap_or(0)
}

impl<'a> Builder<'a> {
    fn new(doc: &'a Document) -> Self {
        let survey = doc.rows("surveys").first();
        let base = survey.map(|s| field(s, "language")).unwrap_or_default();
        let mut languages: Vec<String> = Vec::new();
        for tag in std::iter::once(base)
            .chain(
                survey
                    .map(|s| field(s, "additional_languages"))
                    .unwrap_or_default()
                    .split_whitespace(),
            )
            .chain(doc.languages.iter().map(String::as_str))
        {
            let tag = tag.trim().to_owned();
            if !tag.is_empty() && !languages.contains(&tag) {
                languages.push(tag);
            }
        }
        if languages.is_empty() {
            languages.push("en".into());
        }
        Self {
            doc,
            languages,
            skipped: Vec::new(),
            made: HashMap::new(),
            used: Vec::new(),
        }
    }

    fn skip(&mut self, position: usize, code: &str, reason: impl std::fmt::Display) {
        self.skipped.push(Skipped {
            row: position,
            reason: format!("{code}: {reason}"),
        });
    }

    /// A text given per language: from `table`'s rows whose `key` is `id` (their `language`
    /// naming each), as the definition takes it (a string, or an object per language).
    fn localized(&self, table: &str, key: &str, id: &str, name: &str) -> Option<Value> {
        let texts: BTreeMap<String, String> = self
            .doc
            .rows(table)
            .iter()
            .filter(|row| field(row, key) == id)
            .filter_map(|row| {
                let text = plain(row.get(name)?);
                let language = match field(row, "language") {
                    "" => field(row, "surveyls_language"),
                    given => given,
                };
                let language = match language.is_empty() {
                    true => self.languages[0].clone(),
                    false => language.to_owned(),
                };
                (!text.is_empty()).then_some((language, text))
            })
            .collect();
        let default = &self.languages[0];
        let first = texts
            .get(default)
            .or_else(|| texts.values().next())?
            .clone();
        // One language (or a text given in one only): a plain text.
        if self.languages.len() == 1 || texts.len() == 1 {
            return Some(Value::String(first));
        }
        let mut object = serde_json::Map::new();
        object.insert(default.clone(), Value::String(first));
        for (tag, text) in texts {
            if &tag != default && self.languages.contains(&tag) {
                object.insert(tag, Value::String(text));
            }
        }
        Some(Value::Object(object))
    }

    /// A question's or group's text: in its own rows (LimeSurvey 3) or its `_l10ns` table.
    fn text_of(&self, table: &str, key: &str, id: &str, name: &str) -> Option<Value> {
        let l10ns = match table {
            "groups" => "group_l10ns",
            _ => "question_l10ns",
        };
        self.localized(l10ns, key, id, name)
            .or_else(|| self.localized(table, key, id, name))
    }

    fn id_for(&mut self, code: &str) -> String {
        let mut id: String = code
            .chars()
            .filter(char::is_ascii_alphanumeric)
            .map(|c| c.to_ascii_lowercase())
            .take(28)
            .collect();
        if id.is_empty() || id.starts_with(|c: char| c.is_ascii_digit()) {
            id = format!("q{id}");
        }
        let base = id.clone();
        let mut n = 2;
        while self.used.contains(&id) {
            id = format!("{base}{n}");
            n += 1;
        }
        self.used.push(id.clone());
        id
    }

    /// The options of a question from `answers` (scale 0): code and text per language.
    fn answers(&self, qid: &str, scale: &str) -> Vec<(String, Value)> {
        let mut rows: Vec<&BTreeMap<String, String>> = self
            .doc
            .rows("answers")
            .iter()
            .filter(|row| field(row, "qid") == qid)
            .filter(|row| field(row, "scale_id").is_empty() || field(row, "scale_id") == scale)
            .collect();
        rows.sort_by_key(|row| order(row, "sortorder"));
        let mut seen: Vec<String> = Vec::new();
        let mut options = Vec::new();
        for row in rows {
            let code = field(row, "code").to_owned();
            if seen.contains(&code) {
                continue; // LimeSurvey 3: the same answer again in another language
            }
            seen.push(code.clone());
            let text = match field(row, "aid") {
                "" => None,
                aid => self.localized("answer_l10ns", "aid", aid, "answer"),
            }
            .or_else(|| self.answer_text_v3(qid, &code, scale));
            if let Some(text) = text {
                options.push((code, text));
            }
        }
        options
    }

    /// LimeSurvey 3: an answer's text per language, from its rows in `answers`.
    fn answer_text_v3(&self, qid: &str, code: &str, scale: &str) -> Option<Value> {
        let rows: Vec<BTreeMap<String, String>> = self
            .doc
            .rows("answers")
            .iter()
            .filter(|row| field(row, "qid") == qid && field(row, "code") == code)
            .filter(|row| field(row, "scale_id").is_empty() || field(row, "scale_id") == scale)
            .map(|row| {
                let mut row = row.clone();
                row.insert("key".into(), "1".into());
                row
            })
            .collect();
        let holder = Document {
            tables: HashMap::from([("a".to_owned(), rows)]),
            ..Document::default()
        };
        let builder = Builder {
            doc: &holder,
            languages: self.languages.clone(),
            skipped: Vec::new(),
            made: HashMap::new(),
            used: Vec::new(),
        };
        builder.localized("a", "key", "1", "answer")
    }

    /// The subquestions of a question (an array's rows), in order: code and text.
    fn subquestions(&self, qid: &str) -> Vec<(String, Value)> {
        let mut rows: Vec<&BTreeMap<String, String>> = self
            .doc
            .rows("subquestions")
            .iter()
            .chain(self.doc.rows("questions"))
            .filter(|row| field(row, "parent_qid") == qid)
            .filter(|row| matches!(field(row, "scale_id"), "" | "0"))
            .collect();
        rows.sort_by_key(|row| order(row, "question_order"));
        let mut seen: Vec<String> = Vec::new();
        let mut out = Vec::new();
        for row in rows {
            let sub = field(row, "qid");
            if seen.iter().any(|s| s == sub) {
                continue;
            }
            seen.push(sub.to_owned());
            let text = self
                .localized("question_l10ns", "qid", sub, "question")
                .or_else(|| self.localized("subquestions", "qid", sub, "question"))
                .or_else(|| self.localized("questions", "qid", sub, "question"));
            if let Some(text) = text {
                out.push((field(row, "title").to_owned(), text));
            }
        }
        out
    }

    fn build(mut self) -> Imported {
        let doc = self.doc;
        let survey_id = doc
            .rows("surveys")
            .first()
            .map(|s| field(s, "sid").to_owned())
            .unwrap_or_default();
        let title = self
            .localized(
                "surveys_languagesettings",
                "surveyls_survey_id",
                &survey_id,
                "surveyls_title",
            )
            .unwrap_or_else(|| json!("Imported survey"));
        let description = self.localized(
            "surveys_languagesettings",
            "surveyls_survey_id",
            &survey_id,
            "surveyls_description",
        );
        // Groups in order (LimeSurvey 3 repeats a group per language).
        let mut groups: Vec<(&str, i64)> = Vec::new();
        for row in doc.rows("groups") {
            let gid = field(row, "gid");
            if !groups.iter().any(|(g, _)| *g == gid) {
                groups.push((gid, order(row, "group_order")));
            }
        }
        groups.sort_by_key(|(_, order)| *order);
        let mut questions: Vec<LsQuestion> = Vec::new();
        for row in doc.rows("questions") {
            let qid = field(row, "qid");
            let parent = field(row, "parent_qid");
            if !matches!(parent, "" | "0") || questions.iter().any(|q| q.qid == qid) {
                continue;
            }
            questions.push(LsQuestion {
                qid,
                gid: field(row, "gid"),
                code: field(row, "title"),
                kind: field(row, "type"),
                order: order(row, "question_order"),
                row,
            });
        }
        let mut pages = Vec::new();
        let mut position = 0;
        for (gid, _) in &groups {
            let mut in_group: Vec<&LsQuestion> =
                questions.iter().filter(|q| q.gid == *gid).collect();
            in_group.sort_by_key(|q| q.order);
            let mut made = Vec::new();
            let mut note: Option<Value> = None;
            for question in in_group {
                position += 1;
                if question.kind == "X" {
                    note = self.text_of("questions", "qid", question.qid, "question");
                    continue;
                }
                if let Some(mut q) = self.question(question, position) {
                    if let Some(help) = note.take()
                        && q.get("help").is_none()
                    {
                        q["help"] = help;
                    }
                    made.push(q);
                }
            }
            if made.is_empty() {
                continue;
            }
            let mut page = json!({"questions": made});
            if let Some(name) = self.text_of("groups", "gid", gid, "group_name") {
                page["title"] = name;
            }
            pages.push(page);
        }
        // Conditions, once every question has its id.
        let mut position = 0;
        for (gid, _) in &groups {
            let mut in_group: Vec<&LsQuestion> =
                questions.iter().filter(|q| q.gid == *gid).collect();
            in_group.sort_by_key(|q| q.order);
            for question in in_group {
                position += 1;
                let Some((id, _)) = self.made.get(question.qid).cloned() else {
                    continue;
                };
                if let Some(condition) = self.condition(question, position) {
                    for page in &mut pages {
                        if let Some(list) = page["questions"].as_array_mut() {
                            for q in list.iter_mut().filter(|q| q["id"] == id.as_str()) {
                                q["show_if"] = condition.clone();
                            }
                        }
                    }
                }
            }
        }
        let mut definition = json!({"title": title, "pages": pages});
        if let Some(description) = description {
            definition["description"] = description;
        }
        if self.languages.len() > 1 {
            definition["languages"] = json!(self.languages);
        }
        Imported {
            definition,
            skipped: self.skipped,
        }
    }

    /// A question as the definition takes it, or `None` (listed as skipped).
    fn question(&mut self, question: &LsQuestion, position: usize) -> Option<Value> {
        let code = question.code;
        let options = |this: &Self| this.answers(question.qid, "0");
        let texts = |list: &[(String, Value)]| -> Vec<Value> {
            list.iter().map(|(_, text)| text.clone()).collect()
        };
        let other = field(question.row, "other") == "Y";
        let mut made = match question.kind {
            "S" => json!({"type": "short_text"}),
            "T" | "U" => json!({"type": "long_text"}),
            "N" => json!({"type": "numeric"}),
            "D" => json!({"type": "date"}),
            "|" => json!({"type": "file"}),
            "5" => json!({"type": "scale", "points": 5}),
            "Y" => json!({"type": "single_choice", "options": ["Yes", "No"]}),
            "G" => json!({"type": "single_choice", "options": ["Female", "Male"]}),
            "L" | "!" | "O" => {
                let list = options(self);
                if list.is_empty() {
                    self.skip(position, code, "a list without answers");
                    return None;
                }
                if question.kind == "O" {
                    self.skip(
                        position,
                        code,
                        "its comment box is left out (the list is kept)",
                    );
                }
                let kind = if question.kind == "!" && !other {
                    "dropdown"
                } else {
                    "single_choice"
                };
                let made = json!({"type": kind, "options": texts(&list), "other": other});
                self.made.insert(
                    question.qid.to_owned(),
                    (String::new(), codes(&list, &self.languages[0])),
                );
                made
            }
            "M" | "P" => {
                let list = self.subquestions(question.qid);
                if list.is_empty() {
                    self.skip(position, code, "a multiple choice without options");
                    return None;
                }
                if question.kind == "P" {
                    self.skip(
                        position,
                        code,
                        "its comment boxes are left out (the choices are kept)",
                    );
                }
                self.made.insert(
                    question.qid.to_owned(),
                    (String::new(), codes(&list, &self.languages[0])),
                );
                json!({"type": "multiple_choice", "options": texts(&list), "other": other})
            }
            "R" => {
                let list = options(self);
                if list.len() < 2 {
                    self.skip(position, code, "a ranking of fewer than two answers");
                    return None;
                }
                json!({"type": "ranking", "options": texts(&list)})
            }
            "F" | "A" | "B" | "C" | "E" => {
                let rows = self.subquestions(question.qid);
                let columns: Vec<Value> = match question.kind {
                    "A" => (1..=5).map(|n| json!(n.to_string())).collect(),
                    "B" => (1..=10).map(|n| json!(n.to_string())).collect(),
                    "C" => vec![json!("Yes"), json!("Uncertain"), json!("No")],
                    "E" => vec![json!("Increase"), json!("Same"), json!("Decrease")],
                    _ => texts(&options(self)),
                };
                if rows.is_empty() || columns.is_empty() {
                    self.skip(position, code, "an array without rows or columns");
                    return None;
                }
                json!({"type": "matrix", "rows": texts(&rows), "columns": columns})
            }
            other => {
                let what = match other {
                    "*" => "an equation (LimeSurvey's expressions are not CEL)",
                    "K" => "multiple numerical input",
                    "Q" => "multiple short text",
                    "H" => "an array by column",
                    ";" | ":" => "an array of texts or numbers",
                    "1" => "a dual-scale array",
                    "I" => "a language switch",
                    _ => "a question type Canvass does not have",
                };
                self.skip(position, code, format!("{what} (type {other}): left out"));
                return None;
            }
        };
        let id = self.id_for(code);
        made["id"] = json!(id);
        made["text"] = self
            .text_of("questions", "qid", question.qid, "question")
            .unwrap_or_else(|| json!(code));
        if let Some(help) = self.text_of("questions", "qid", question.qid, "help") {
            made["help"] = help;
        }
        if field(question.row, "mandatory") == "Y" {
            made["required"] = json!(true);
        }
        if other && !matches!(question.kind, "L" | "!" | "O" | "M" | "P") {
            self.skip(position, code, "its \"Other\" is left out");
        }
        if made.get("other") == Some(&json!(false)) {
            made.as_object_mut().map(|m| m.remove("other"));
        }
        let entry = self
            .made
            .entry(question.qid.to_owned())
            .or_insert_with(|| (String::new(), Vec::new()));
        entry.0 = id;
        Some(made)
    }

    /// A question's display condition from its conditions (LimeSurvey's conditions table):
    /// rules on one question are "any", on several "all". One that does not map is listed.
    fn condition(&mut self, question: &LsQuestion, position: usize) -> Option<Value> {
        let relevance = field(question.row, "relevance");
        let rows: Vec<&BTreeMap<String, String>> = self
            .doc
            .rows("conditions")
            .iter()
            .filter(|row| field(row, "qid") == question.qid)
            .collect();
        if rows.is_empty() {
            if !matches!(relevance, "" | "1") {
                self.skip(
                    position,
                    question.code,
                    format!("its relevance equation \"{relevance}\" is left out (LimeSurvey's expressions are not CEL): it is always shown"),
                );
            }
            return None;
        }
        if rows
            .iter()
            .any(|row| !matches!(field(row, "scenario"), "" | "1"))
        {
            self.skip(
                position,
                question.code,
                "conditions in several scenarios are left out: it is always shown",
            );
            return None;
        }
        let mut by_question: BTreeMap<String, Vec<Value>> = BTreeMap::new();
        for row in rows {
            let Some((id, codes)) = self.made.get(field(row, "cqid")).cloned() else {
                self.skip(
                    position,
                    question.code,
                    "a condition on a question not imported is left out: it is always shown",
                );
                return None;
            };
            let value = field(row, "value");
            let option = codes
                .iter()
                .find(|(code, _)| code == value)
                .map(|(_, text)| text.clone());
            // A multiple choice's condition names the option in its field name (SGQA + code).
            let ticked = codes
                .iter()
                .find(|(code, _)| field(row, "cfieldname").ends_with(code.as_str()))
                .map(|(_, text)| text.clone());
            let test = match (field(row, "method"), option, ticked) {
                ("==", Some(text), _) => json!({"equals": text}),
                ("!=", Some(text), _) => json!({"not_equals": text}),
                ("==", None, Some(text)) if value == "Y" => json!({"equals": text}),
                (">", _, _) if value.parse::<f64>().is_ok() => {
                    json!({"greater_than": value.parse::<f64>().ok()})
                }
                ("<", _, _) if value.parse::<f64>().is_ok() => {
                    json!({"less_than": value.parse::<f64>().ok()})
                }
                (method, _, _) => {
                    self.skip(
                        position,
                        question.code,
                        format!("a condition \"{method} {value}\" that does not map is left out: it is always shown"),
                    );
                    return None;
                }
            };
            let mut rule = test;
            rule["question"] = json!(id);
            by_question.entry(id).or_default().push(rule);
        }
        let mut all: Vec<Value> = by_question
            .into_values()
            .map(|mut rules| match rules.len() {
                1 => rules.remove(0),
                _ => json!({"any": rules}),
            })
            .collect();
        Some(match all.len() {
            1 => all.remove(0),
            _ => json!({"all": all}),
        })
    }
}

/// The codes and texts in the `default` language of options, for conditions.
fn codes(list: &[(String, Value)], default: &str) -> Vec<(String, String)> {
    list.iter()
        .map(|(code, text)| {
            let text = match text {
                Value::Object(map) => map.get(default).cloned().unwrap_or_default(),
                other => other.clone(),
            };
            (code.clone(), text.as_str().unwrap_or_default().to_owned())
        })
        .collect()
}

#[cfg(test)]
mod tests;
