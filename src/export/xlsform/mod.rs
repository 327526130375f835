//! A survey as an XLSForm (the spreadsheet form format of ODK, KoboToolbox, SurveyCTO and
//! Survey123; https://xlsform.org): a `survey` sheet of questions, a `choices` sheet of their
//! options and a `settings` sheet. Pages become field-list groups, display conditions and
//! jumps become `relevant` (a jump over pages makes them not relevant when its condition
//! holds), bounds become `constraint`, recalls become `${name}`, and each language a
//! `label::Name (tag)` column. CEL expressions (variables, rules, endings, expression
//! conditions) have no XLSForm equivalent and are not carried; `skipped` lists them.

mod import;

pub use import::{Imported, Skipped, read};

use crate::domain::logic::{Bound, Condition, Target, Test};
use crate::domain::looping::LOOP_TOKEN;
use crate::domain::recall::{self, Piece};
use crate::domain::{Question, QuestionKind, Survey};

/// The three sheets, as rows of cells (the first row of each is its header).
#[derive(Debug, Default, PartialEq)]
pub struct XlsForm {
    /// The `survey` sheet.
    pub survey: Vec<Vec<String>>,
    /// The `choices` sheet.
    pub choices: Vec<Vec<String>>,
    /// The `settings` sheet.
    pub settings: Vec<Vec<String>>,
    /// What the form could not carry, in words.
    pub skipped: Vec<String>,
}

/// One row of the survey sheet before it is laid out in columns.
#[derive(Default)]
struct Row {
    kind: String,
    name: String,
    /// The label in each language, in the survey's order.
    labels: Vec<String>,
    hints: Vec<String>,
    required: bool,
    relevant: String,
    constraint: String,
    appearance: String,
    parameters: String,
    repeat_count: String,
}

/// The survey sheet's columns after the labels and hints.
const TAIL: [&str; 6] = [
    "required",
    "relevant",
    "constraint",
    "appearance",
    "parameters",
    "repeat_count",
];

impl XlsForm {
    /// The form of `survey`.
    pub fn of(survey: &Survey) -> Self {
        Writer::new(survey).form()
    }

    /// The workbook's bytes (XLSX).
    pub fn to_xlsx(&self) -> Result<Vec<u8>, rust_xlsxwriter::XlsxError> {
        let mut workbook = rust_xlsxwriter::Workbook::new();
        for (name, rows) in [
            ("survey", &self.survey),
            ("choices", &self.choices),
            ("settings", &self.settings),
        ] {
            let sheet = workbook.add_worksheet();
            sheet.set_name(name)?;
            for (r, row) in rows.iter().enumerate() {
                for (c, cell) in row.iter().enumerate() {
                    // Text only: nothing a respondent or owner wrote is read as a formula.
                    let (r, c) = (r as u32, c as u16);
                    sheet.write_string(r, c, cell)?;
                }
            }
        }
        workbook.save_to_buffer()
    }
}

struct Writer<'a> {
    survey: &'a Survey,
    /// The survey's languages, its default first.
    languages: Vec<crate::domain::language::LanguageTag>,
    rows: Vec<Row>,
    choices: Vec<Vec<String>>,
    skipped: Vec<String>,
}

impl<'a> Writer<'a> {
    fn new(survey: &'a Survey) -> Self {
        Self {
            survey,
            languages: survey.offered_languages(),
            rows: Vec::new(),
            choices: Vec::new(),
            skipped: Vec::new(),
        }
    }

    /// `text` (by `key`) in each language, recalls as `${name}`: the default's, then each
    /// translation there is (blank where there is none, so a form read back gains none).
    fn texts(&self, key: &str, text: &str) -> Vec<String> {
        let translated = |tag: &crate::domain::language::LanguageTag| {
            let theirs = self.survey.translations.get(tag)?.get(key)?;
            Some(recalls(theirs))
        };
        self.languages
            .iter()
            .enumerate()
            .map(|(at, tag)| match at {
                0 => recalls(text),
                _ => translated(tag).unwrap_or_default(),
            })
            .collect()
    }

    fn form(mut self) -> XlsForm {
        let survey = self.survey;
        for name in &survey.hidden_fields {
            self.rows.push(Row {
                kind: "hidden".into(),
                name: name.clone(),
                ..Row::default()
            });
        }
        let pages = survey.pages();
        let paged = pages.len() > 1;
        // The page after a loop's last one, once a loop is open.
        let mut loop_end = None;
        for (index, page) in pages.iter().enumerate() {
            if loop_end == Some(index) {
                self.rows.push(end_repeat(index));
                loop_end = None;
            }
            let relevant = self.page_relevant(index);
            // A loop: a repeat counted by its source (a number, or the options chosen).
            if let Some(looped) = &page.repeat {
                let count = match (&looped.over, &looped.times) {
                    (Some(id), _) => format!("count-selected(${{{id}}})"),
                    (None, Some(id)) => format!("${{{id}}}"),
                    (None, None) => String::new(),
                };
                let title = page
                    .title
                    .clone()
                    .unwrap_or_else(|| format!("Loop {}", index + 1));
                let labels = self.texts(&format!("page:{index}:title"), &title);
                self.rows.push(Row {
                    kind: "begin_repeat".into(),
                    name: format!("loop_{}", index + 1),
                    labels,
                    repeat_count: count,
                    ..Row::default()
                });
                loop_end = Some(index + looped.pages.max(1));
                if survey.questions.iter().any(|q| q.text.contains(LOOP_TOKEN))
                    || page
                        .title
                        .as_deref()
                        .is_some_and(|t| t.contains(LOOP_TOKEN))
                {
                    self.skipped.push(format!(
                        "page {}: {LOOP_TOKEN} is kept as written (XLSForm names a repeat's \
                         item by position)",
                        index + 1
                    ));
                }
            }
            if paged {
                let title = page
                    .title
                    .clone()
                    .unwrap_or_else(|| format!("Page {}", index + 1));
                let labels = self.texts(&format!("page:{index}:title"), &title);
                self.rows.push(Row {
                    kind: "begin_group".into(),
                    name: format!("page_{}", index + 1),
                    labels,
                    relevant: relevant.clone(),
                    appearance: "field-list".into(),
                    ..Row::default()
                });
            }
            for question in survey.page_questions(index) {
                // One page: its condition is each question's (it has none to show).
                let outer = if paged {
                    String::new()
                } else {
                    relevant.clone()
                };
                self.question(question, outer);
            }
            if paged {
                self.rows.push(Row {
                    kind: "end_group".into(),
                    name: format!("page_{}", index + 1),
                    ..Row::default()
                });
            }
        }
        if loop_end.is_some() {
            self.rows.push(end_repeat(pages.len()));
        }
        if !survey.variables.is_empty() {
            self.skipped
                .push("variables: CEL expressions have no XLSForm equivalent".into());
        }
        if !survey.endings.is_empty() {
            self.skipped
                .push("endings: chosen by CEL expressions".into());
        }
        self.layout()
    }

    /// Whether page `index` is shown: its own condition, and not jumped over from an earlier
    /// page.
    fn page_relevant(&mut self, index: usize) -> String {
        let pages = self.survey.pages();
        let mut parts: Vec<String> = Vec::new();
        if let Some(condition) = &pages[index].show_if {
            parts.extend(self.condition(condition, &format!("page {}", index + 1)));
        }
        for (from, page) in pages.iter().enumerate().take(index) {
            for jump in &page.jumps {
                let over = match jump.to {
                    Target::End => true,
                    Target::Page(to) => to > index,
                };
                if over {
                    let what = format!("page {}'s jump", from + 1);
                    if let Some(holds) = self.condition(&jump.condition, &what) {
                        parts.push(format!("not({holds})"));
                    }
                }
            }
        }
        parts.join(" and ")
    }

    fn question(&mut self, question: &Question, outer: String) {
        let id = question.id.to_string();
        let mut row = Row {
            name: id.clone(),
            labels: self.texts(&format!("q:{id}:text"), &question.text),
            hints: question
                .help
                .as_ref()
                .map(|help| self.texts(&format!("q:{id}:help"), help))
                .unwrap_or_default(),
            required: question.required,
            ..Row::default()
        };
        let mut relevant = vec![outer]
            .into_iter()
            .filter(|r| !r.is_empty())
            .collect::<Vec<_>>();
        if let Some(condition) = &question.show_if {
            relevant.extend(self.condition(condition, &format!("question {id}")));
        }
        row.relevant = relevant.join(" and ");
        if question.validate.is_some() {
            self.skipped
                .push(format!("question {id}: its rule is a CEL expression"));
        }
        let list = format!("l_{id}");
        match &question.kind {
            QuestionKind::ShortText => row.kind = "text".into(),
            QuestionKind::LongText => {
                row.kind = "text".into();
                row.appearance = "multiline".into();
            }
            QuestionKind::SingleChoice { options, other } => {
                row.kind = format!("select_one {list}");
                self.options(&list, question, options, *other);
            }
            QuestionKind::MultipleChoice { options, other } => {
                row.kind = format!("select_multiple {list}");
                self.options(&list, question, options, *other);
            }
            QuestionKind::Dropdown { options } => {
                row.kind = format!("select_one {list}");
                row.appearance = "minimal".into();
                self.options(&list, question, options, false);
            }
            QuestionKind::Ranking { options } => {
                row.kind = format!("rank {list}");
                self.options(&list, question, options, false);
            }
            QuestionKind::FiveStars => {
                range(&mut row, 1, 5);
                row.appearance = "rating".into();
            }
            QuestionKind::Nps => range(&mut row, 0, 10),
            QuestionKind::Scale { points, .. } => range(&mut row, 1, u32::from(*points)),
            QuestionKind::Numeric { min, max, integer } => {
                row.kind = if *integer { "integer" } else { "decimal" }.into();
                let mut bounds = Vec::new();
                if let Some(min) = min {
                    bounds.push(format!(". >= {min}"));
                }
                if let Some(max) = max {
                    bounds.push(format!(". <= {max}"));
                }
                row.constraint = bounds.join(" and ");
            }
            QuestionKind::Date { earliest, latest } => {
                row.kind = "date".into();
                let mut bounds = Vec::new();
                if let Some(day) = earliest {
                    bounds.push(format!(". >= date('{day}')"));
                }
                if let Some(day) = latest {
                    bounds.push(format!(". <= date('{day}')"));
                }
                row.constraint = bounds.join(" and ");
            }
            QuestionKind::File { .. } => row.kind = "file".into(),
            QuestionKind::Matrix { rows, columns } => {
                // A group of one choice per row, the columns its options.
                self.options(&list, question, columns, false);
                let (required, relevant) = (row.required, row.relevant.clone());
                row.kind = "begin_group".into();
                row.appearance = "field-list".into();
                row.required = false;
                self.rows.push(row);
                for (at, text) in rows.iter().enumerate() {
                    self.rows.push(Row {
                        kind: format!("select_one {list}"),
                        name: format!("{id}_{}", at + 1),
                        labels: self.texts(&format!("q:{id}:row:{at}"), text),
                        required,
                        relevant: relevant.clone(),
                        ..Row::default()
                    });
                }
                self.rows.push(Row {
                    kind: "end_group".into(),
                    name: id,
                    ..Row::default()
                });
                return;
            }
        }
        self.rows.push(row);
    }

    /// The choices of list `list`: each option's code (`o1`, `o2`...) and label in each
    /// language; "Other" as the code `other`.
    fn options(&mut self, list: &str, question: &Question, options: &[String], other: bool) {
        let part = match question.kind {
            QuestionKind::Matrix { .. } => "column",
            _ => "option",
        };
        for (at, option) in options.iter().enumerate() {
            let key = format!("q:{}:{part}:{at}", question.id);
            let mut row = vec![list.to_owned(), format!("o{}", at + 1)];
            row.extend(self.texts(&key, option));
            self.choices.push(row);
        }
        if other {
            let mut row = vec![list.to_owned(), "other".to_owned()];
            row.extend(
                self.languages
                    .iter()
                    .map(|_| crate::domain::choice::OTHER.to_owned()),
            );
            self.choices.push(row);
        }
    }

    /// `condition` as an XPath expression, or `None` (listed in `skipped`) when it cannot
    /// be written as one.
    fn condition(&mut self, condition: &Condition, what: &str) -> Option<String> {
        let written = xpath(self.survey, condition);
        if written.is_none() {
            self.skipped
                .push(format!("{what}: its condition is a CEL expression"));
        }
        written
    }

    fn layout(self) -> XlsForm {
        let multilingual = self.languages.len() > 1;
        let column = |base: &str, tag: &crate::domain::language::LanguageTag| match multilingual {
            false => base.to_owned(),
            true => format!(
                "{base}::{} ({})",
                tag.english_name().unwrap_or(tag.as_str()),
                tag.as_str()
            ),
        };
        let mut header = vec!["type".to_owned(), "name".to_owned()];
        header.extend(self.languages.iter().map(|tag| column("label", tag)));
        header.extend(self.languages.iter().map(|tag| column("hint", tag)));
        header.extend(TAIL.iter().map(|c| (*c).to_owned()));
        let mut survey = vec![header];
        let count = self.languages.len();
        for row in self.rows {
            let mut cells = vec![row.kind, row.name];
            cells.extend((0..count).map(|at| row.labels.get(at).cloned().unwrap_or_default()));
            cells.extend((0..count).map(|at| row.hints.get(at).cloned().unwrap_or_default()));
            cells.push(if row.required {
                "yes".into()
            } else {
                String::new()
            });
            cells.extend([
                row.relevant,
                row.constraint,
                row.appearance,
                row.parameters,
                row.repeat_count,
            ]);
            survey.push(cells);
        }
        let mut choices_header = vec!["list_name".to_owned(), "name".to_owned()];
        choices_header.extend(self.languages.iter().map(|tag| column("label", tag)));
        let mut choices = vec![choices_header];
        choices.extend(self.choices);
        let default = &self.languages[0];
        let default_language = match multilingual {
            true => format!(
                "{} ({})",
                default.english_name().unwrap_or(default.as_str()),
                default.as_str()
            ),
            false => String::new(),
        };
        let settings = vec![
            vec![
                "form_title".to_owned(),
                "form_id".to_owned(),
                "version".to_owned(),
                "default_language".to_owned(),
            ],
            vec![
                self.survey.title.clone(),
                self.survey.slug.to_string().replace('-', "_"),
                self.survey.version.to_string(),
                default_language,
            ],
        ];
        XlsForm {
            survey,
            choices,
            settings,
            skipped: self.skipped,
        }
    }
}

/// The row that closes the repeat of the loop before page `next`.
fn end_repeat(next: usize) -> Row {
    Row {
        kind: "end_repeat".into(),
        name: format!("loop_before_{}", next + 1),
        ..Row::default()
    }
}

/// A `range` question from `start` to `end`.
fn range(row: &mut Row, start: u32, end: u32) {
    row.kind = "range".into();
    row.parameters = format!("start={start} end={end} step=1");
}

/// A text with its recalls written as XLSForm references: an answer or a hidden field as
/// `${name}`, anything else (a participant's detail, a variable) as its fallback.
fn recalls(text: &str) -> String {
    let Ok(pieces) = recall::pieces(text) else {
        return text.to_owned();
    };
    pieces
        .iter()
        .map(|piece| match piece {
            Piece::Text(words) => (*words).to_owned(),
            Piece::Recall { question, .. } => format!("${{{question}}}"),
            Piece::Hidden { name, .. } => format!("${{{name}}}"),
            Piece::Participant { fallback, .. } | Piece::Variable { fallback, .. } => {
                (*fallback).to_owned()
            }
        })
        .collect()
}

/// A condition as XPath, `None` when it holds an expression (CEL).
fn xpath(survey: &Survey, condition: &Condition) -> Option<String> {
    let group = |list: &[Condition], joint: &str, empty: &str| -> Option<String> {
        let parts = list
            .iter()
            .map(|c| xpath(survey, c))
            .collect::<Option<Vec<String>>>()?;
        Some(match parts.len() {
            0 => empty.to_owned(),
            _ => format!("({})", parts.join(joint)),
        })
    };
    match condition {
        Condition::All { all } => group(all, " and ", "true()"),
        Condition::Any { any } => group(any, " or ", "false()"),
        Condition::Expression(_) => None,
        Condition::Hidden(rule) => Some(test(&format!("${{{}}}", rule.hidden), &rule.test, None)),
        Condition::Rule(rule) => {
            let question = survey.question(&rule.question);
            Some(test(
                &format!("${{{}}}", rule.question),
                &rule.test,
                question,
            ))
        }
    }
}

/// One test of `field` (a reference) as XPath; options are compared by their codes.
fn test(field: &str, test: &Test, question: Option<&Question>) -> String {
    let options = question.map(|q| q.kind.options()).unwrap_or_default();
    let multiple = question.is_some_and(|q| matches!(q.kind, QuestionKind::MultipleChoice { .. }));
    let numeric = question.is_some_and(|q| {
        matches!(
            q.kind,
            QuestionKind::Numeric { .. }
                | QuestionKind::FiveStars
                | QuestionKind::Nps
                | QuestionKind::Scale { .. }
        )
    });
    // An option's code, "other", or the value itself as a literal.
    let literal = |value: &str| -> String {
        if let Some(at) = options.iter().position(|o| o == value) {
            return format!("'o{}'", at + 1);
        }
        if value == crate::domain::choice::OTHER && question.is_some_and(|q| q.kind.has_other()) {
            return "'other'".into();
        }
        match numeric && value.parse::<f64>().is_ok() {
            true => value.to_owned(),
            false => format!("'{}'", value.replace('\'', "\u{2019}")),
        }
    };
    let is = |value: &str| match multiple {
        true => format!("selected({field}, {})", literal(value)),
        false => format!("{field} = {}", literal(value)),
    };
    match test {
        Test::Equals(value) => is(value),
        Test::NotEquals(value) => format!("({field} != '' and not({}))", is(value)),
        Test::AnyOf(values) => {
            let each: Vec<String> = values.iter().map(|v| is(v)).collect();
            format!("({})", each.join(" or "))
        }
        Test::GreaterThan(bound) => format!("{field} > {}", bound_xpath(bound)),
        Test::LessThan(bound) => format!("{field} < {}", bound_xpath(bound)),
        Test::Answered(true) => format!("{field} != ''"),
        Test::Answered(false) => format!("{field} = ''"),
        Test::Contains(part) => format!("contains({field}, {})", literal(part)),
    }
}

fn bound_xpath(bound: &Bound) -> String {
    match bound {
        Bound::Number(n) => n.to_string(),
        Bound::Date(day) => format!("date('{day}')"),
    }
}

/// The question ids a form names, for tests.
#[cfg(test)]
fn names(form: &XlsForm) -> Vec<&str> {
    form.survey
        .iter()
        .skip(1)
        .map(|row| row[1].as_str())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::definition::SurveyInput;
    use crate::domain::definition::checked::for_one_region;

    fn survey(json: serde_json::Value) -> Survey {
        let input: SurveyInput = serde_json::from_value(json).expect("the shape");
        let definition = input.check(&[]).and_then(for_one_region).expect("valid");
        Survey::draft(
            crate::domain::TenantSlug::parse("acme").expect("a slug"),
            crate::domain::SurveySlug::parse("visit").expect("a slug"),
            definition,
            time::OffsetDateTime::UNIX_EPOCH,
        )
    }

    #[test]
    fn pages_become_groups_and_a_jump_over_a_page_makes_it_not_relevant() {
        let form = XlsForm::of(&survey(serde_json::json!({"title": "Visit", "pages": [
            {"questions": [
                {"id": "first", "text": "First visit?", "type": "single_choice",
                 "options": ["Yes", "No"], "required": true}],
             "jumps": [{"if": {"question": "first", "equals": "Yes"}, "to": 2}]},
            {"title": "Regulars", "questions": [
                {"id": "often", "text": "How often, {{q:first}}?", "type": "numeric", "min": 1}]},
            {"questions": [{"id": "stars", "text": "Rating", "type": "five_stars"}]}]})));
        assert_eq!(
            names(&form),
            [
                "page_1", "first", "page_1", "page_2", "often", "page_2", "page_3", "stars",
                "page_3"
            ]
        );
        let header = &form.survey[0];
        let column = |name: &str| header.iter().position(|h| h == name).expect(name);
        let often = &form.survey[5];
        assert_eq!(often[column("label")], "How often, ${first}?");
        assert_eq!(often[column("constraint")], ". >= 1");
        let page_two = &form.survey[4];
        assert_eq!(page_two[column("relevant")], "not(${first} = 'o1')");
        assert_eq!(page_two[column("appearance")], "field-list");
        assert_eq!(form.survey[2][0], "select_one l_first");
        assert_eq!(form.choices[1], ["l_first", "o1", "Yes"]);
        assert_eq!(form.survey[8][column("parameters")], "start=1 end=5 step=1");
        assert!(form.skipped.is_empty());
    }
}
