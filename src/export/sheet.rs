//! The layout of a spreadsheet of responses, shared by the CSV and XLSX downloads: one row
//! per response, one column per question, except that each option of a multiple-choice or
//! ranking question and each row of a matrix gets its own column (so a spreadsheet can count,
//! sort and filter them), with typed cells. Headers are the questions' texts; their ids, for
//! scripts, are a second, optional header row.

use time::{Date, OffsetDateTime};

use crate::domain::choice::OTHER;
use crate::domain::looping;
use crate::domain::quota::{QuotaId, WhenFull};
use crate::domain::{Answer, AnswerValue, QuestionId, QuestionKind, Survey, SurveySlug};

/// What a download holds besides the responses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SheetOptions {
    /// A UTF-8 byte order mark first (CSV only: Excel needs it to read accents).
    pub bom: bool,
    /// A second header row of question ids, for scripts.
    pub ids: bool,
}

impl Default for SheetOptions {
    fn default() -> Self {
        Self {
            bom: true,
            ids: false,
        }
    }
}

/// One cell of a response's row.
#[derive(Clone, Debug, PartialEq)]
pub enum Cell {
    /// Not answered.
    Empty,
    /// Text written by a respondent or an owner.
    Text(String),
    /// A number.
    Number(f64),
    /// A calendar date.
    Date(Date),
    /// A moment (when a response was submitted), in UTC.
    Moment(OffsetDateTime),
}

/// Where a column's cells come from.
#[derive(Clone, Debug)]
enum Source {
    Reference,
    Submitted,
    Version,
    /// The language it was answered in (the survey's default when none was recorded).
    Language(String),
    /// The quotas it was kept over (their names, by id), for a survey that keeps such answers.
    OverQuota(Vec<(QuotaId, String)>),
    /// The value of a hidden field, as the respondent's address gave it.
    Hidden(String),
    /// The orders drawn for the respondent, as JSON (`{"drink": ["Tea", "Coffee"]}`).
    Order,
    /// A variable's value (a number or text as it is; a list or map as JSON).
    Variable(String),
    /// The score.
    Score,
    /// How many quiz answers were correct.
    Correct,
    /// The ending reached.
    Ending,
    /// 1 for a response sent, 0 for a partial one.
    Complete,
    /// The whole answer to a question.
    Whole(QuestionId),
    /// 1 when a multiple-choice option was ticked, 0 when the question was answered without it.
    Ticked(QuestionId, String),
    /// What "Other" was said to mean.
    OtherText(QuestionId),
    /// The column picked in one row of a matrix.
    MatrixRow(QuestionId, String),
    /// The place (1 = first) given to an option of a ranking.
    Place(QuestionId, String),
    /// A part of a file answer: its name, kind, size or members' download path.
    File(QuestionId, FilePart),
    /// A detail of the participant who gave it through their personal link.
    Participant(Detail),
}

/// A detail of a participant, each a column of its own.
#[derive(Clone, Debug)]
enum Detail {
    Email,
    FirstName,
    LastName,
    Attribute(String),
}

/// A part of a file answer, each a column of its own.
#[derive(Clone, Debug)]
enum FilePart {
    Name,
    Kind,
    Bytes,
    /// The path a member downloads it at, in this survey.
    Path(SurveySlug),
}

/// One column: its header, its id and where its cells come from.
#[derive(Clone, Debug)]
pub struct Column {
    /// The header people read: the question's text (with the option or row).
    pub header: String,
    /// The header scripts read: the question's id (with the option or row).
    pub id: String,
    source: Source,
}

/// The columns of a survey's response sheet.
#[derive(Clone, Debug)]
pub struct Layout {
    /// The columns, left to right.
    pub columns: Vec<Column>,
}

/// What a column holds, for a tool that types its columns (R).
#[derive(Clone, Debug, PartialEq)]
pub enum Kind {
    /// Text as written.
    Text,
    /// Numbers (counts, ratings, 0/1 for a ticked option).
    Number,
    /// Calendar dates, `YYYY-MM-DD`.
    Date,
    /// Moments in UTC, `YYYY-MM-DDTHH:MM:SSZ`.
    Moment,
    /// One of these values, in this order.
    Choice(Vec<String>),
}

impl Column {
    /// What the column holds in `survey`.
    pub fn kind(&self, survey: &Survey) -> Kind {
        match &self.source {
            Source::Submitted => Kind::Moment,
            Source::Reference | Source::Version | Source::Score | Source::Correct => Kind::Number,
            Source::Complete => Kind::Number,
            Source::Ticked(..) | Source::Place(..) => Kind::Number,
            Source::Ending => Kind::Choice(survey.endings.iter().map(|e| e.id.clone()).collect()),
            Source::MatrixRow(id, _) => match survey.question_answered(id).map(|q| &q.kind) {
                Some(QuestionKind::Matrix { columns, .. }) => Kind::Choice(columns.clone()),
                _ => Kind::Text,
            },
            Source::Whole(id) => match survey.question_answered(id).map(|q| &q.kind) {
                Some(
                    QuestionKind::SingleChoice {
                        options,
                        other: false,
                    }
                    | QuestionKind::Dropdown { options },
                ) => Kind::Choice(options.clone()),
                Some(
                    QuestionKind::FiveStars
                    | QuestionKind::Nps
                    | QuestionKind::Scale { .. }
                    | QuestionKind::Numeric { .. },
                ) => Kind::Number,
                Some(QuestionKind::Date { .. }) => Kind::Date,
                _ => Kind::Text,
            },
            _ => Kind::Text,
        }
    }
}

/// The columns of one question's answers, under `id` (the question's, or its answer's for one
/// item of a loop) and headed by `text`.
fn question_columns(
    columns: &mut Vec<Column>,
    survey: &Survey,
    question: &crate::domain::Question,
    id: &QuestionId,
    text: String,
) {
    let part = |part: &str, source: Source| {
        column(format!("{text}: {part}"), format!("{id}[{part}]"), source)
    };
    match &question.kind {
        QuestionKind::MultipleChoice { options, other } => {
            columns.extend(
                options
                    .iter()
                    .map(|option| part(option, Source::Ticked(id.clone(), option.clone()))),
            );
            if *other {
                columns.push(part(OTHER, Source::OtherText(id.clone())));
            }
        }
        QuestionKind::SingleChoice { other: true, .. } => {
            columns.push(column(
                text.clone(),
                id.to_string(),
                Source::Whole(id.clone()),
            ));
            columns.push(part(OTHER, Source::OtherText(id.clone())));
        }
        QuestionKind::Matrix { rows, .. } => columns.extend(
            rows.iter()
                .map(|row| part(row, Source::MatrixRow(id.clone(), row.clone()))),
        ),
        QuestionKind::File { .. } => columns.extend(
            [
                ("file", FilePart::Name),
                ("kind", FilePart::Kind),
                ("bytes", FilePart::Bytes),
                ("path", FilePart::Path(survey.slug.clone())),
            ]
            .into_iter()
            .map(|(name, what)| part(name, Source::File(id.clone(), what))),
        ),
        QuestionKind::Ranking { options } => columns.extend(
            options
                .iter()
                .map(|option| part(option, Source::Place(id.clone(), option.clone()))),
        ),
        _ => columns.push(column(
            text.clone(),
            id.to_string(),
            Source::Whole(id.clone()),
        )),
    }
}

fn column(header: String, id: String, source: Source) -> Column {
    Column { header, id, source }
}

impl Layout {
    /// The sheet of the survey's current questions.
    pub fn of(survey: &Survey) -> Self {
        let mut columns = vec![
            column("Reference".into(), "reference".into(), Source::Reference),
            column(
                "Submitted (UTC)".into(),
                "submitted_at".into(),
                Source::Submitted,
            ),
            column(
                "Survey version".into(),
                "survey_version".into(),
                Source::Version,
            ),
        ];
        // A survey that keeps partial responses: whether each was sent.
        if survey.keep_partial {
            columns.push(column(
                "Complete".into(),
                "complete".into(),
                Source::Complete,
            ));
        }
        // A survey in several languages: which one each response was given in.
        if survey.languages.len() > 1 {
            let default = survey.languages[0].to_string();
            columns.push(column(
                "Language".into(),
                "language".into(),
                Source::Language(default),
            ));
        }
        // A survey whose quotas keep answers once full: which quotas each response is over.
        if survey
            .quotas
            .iter()
            .any(|quota| quota.full == WhenFull::Count)
        {
            let names = survey
                .quotas
                .iter()
                .map(|quota| (quota.id.clone(), quota.name.clone()))
                .collect();
            columns.push(column(
                "Over quota".into(),
                "over_quota".into(),
                Source::OverQuota(names),
            ));
        }
        // The hidden fields' values, each a column headed as scripts name it.
        columns.extend(survey.hidden_fields.iter().map(|name| {
            let id = format!("hidden.{name}");
            column(id.clone(), id, Source::Hidden(name.clone()))
        }));
        // A survey that draws orders: the orders each respondent was shown.
        if survey.draws_orders() {
            columns.push(column("Order shown".into(), "order".into(), Source::Order));
        }
        // What the survey computed: variables, score, correct answers, ending.
        columns.extend(survey.variables.iter().map(|variable| {
            let id = format!("v.{}", variable.id);
            column(id.clone(), id, Source::Variable(variable.id.clone()))
        }));
        if survey
            .questions
            .iter()
            .any(|q| !q.scoring.scores.is_empty())
        {
            columns.push(column("Score".into(), "score".into(), Source::Score));
        }
        if survey.quiz_questions() > 0 {
            columns.push(column("Correct".into(), "correct".into(), Source::Correct));
        }
        if !survey.endings.is_empty() {
            columns.push(column("Ending".into(), "ending".into(), Source::Ending));
        }
        for question in &survey.questions {
            // A recall in a question's text is headed by the recalled question's label.
            let text = survey.labelled(&question.text).into_owned();
            // A loop's question: its columns once per item its loop can go through.
            let looped = survey.loop_of(&question.id).and_then(|looped| {
                let source = survey.question(looped.source()?)?;
                Some(looping::possible_items(looped, source))
            });
            match looped {
                None => question_columns(&mut columns, survey, question, &question.id, text),
                Some(items) => {
                    for (key, label) in items {
                        let id = question.id.for_item(&key);
                        // The item named where the text shows it, else after the text.
                        let text = match text.contains(looping::LOOP_TOKEN) {
                            true => looping::with_item(&text, Some(&label)).into_owned(),
                            false => format!("{text} [{label}]"),
                        };
                        question_columns(&mut columns, survey, question, &id, text);
                    }
                }
            }
        }
        Self { columns }
    }

    /// The sheet with, after its first columns, who gave each response: the participant's
    /// address, names and each of `attributes` (for a survey whose answers are not anonymous,
    /// given participants; responses not given through a personal link leave them empty).
    pub fn with_participants(mut self, attributes: &[String]) -> Self {
        let mut details = vec![
            column(
                "Participant".into(),
                "participant".into(),
                Source::Participant(Detail::Email),
            ),
            column(
                "First name".into(),
                "participant.first_name".into(),
                Source::Participant(Detail::FirstName),
            ),
            column(
                "Last name".into(),
                "participant.last_name".into(),
                Source::Participant(Detail::LastName),
            ),
        ];
        details.extend(attributes.iter().map(|name| {
            column(
                name.clone(),
                format!("participant.{name}"),
                Source::Participant(Detail::Attribute(name.clone())),
            )
        }));
        let first_question = self
            .columns
            .iter()
            .position(|column| {
                !matches!(
                    column.source,
                    Source::Reference
                        | Source::Submitted
                        | Source::Version
                        | Source::Language(_)
                        | Source::OverQuota(_)
                        | Source::Hidden(_)
                        | Source::Order
                )
            })
            .unwrap_or(self.columns.len());
        self.columns.splice(first_question..first_question, details);
        self
    }

    /// The row of one response.
    pub fn row(&self, answer: &Answer) -> Vec<Cell> {
        self.columns
            .iter()
            .map(|column| cell(&column.source, answer))
            .collect()
    }
}

fn cell(source: &Source, answer: &Answer) -> Cell {
    let value = |id: &QuestionId| answer.values.get(id);
    match source {
        Source::Participant(detail) => {
            let Some(who) = &answer.participant else {
                return Cell::Empty;
            };
            let text = match detail {
                Detail::Email => Some(&who.email),
                Detail::FirstName => who.first_name.as_ref(),
                Detail::LastName => who.last_name.as_ref(),
                Detail::Attribute(name) => who.attributes.get(name),
            };
            text.map_or(Cell::Empty, |text| Cell::Text(text.clone()))
        }
        Source::Hidden(name) => answer
            .hidden
            .get(name)
            .map_or(Cell::Empty, |value| Cell::Text(value.to_owned())),
        Source::Variable(id) => match answer.variables.get(id) {
            None | Some(serde_json::Value::Null) => Cell::Empty,
            Some(serde_json::Value::Number(n)) => n.as_f64().map_or(Cell::Empty, Cell::Number),
            Some(serde_json::Value::String(text)) => Cell::Text(text.clone()),
            Some(other) => Cell::Text(other.to_string()),
        },
        Source::Score => answer.score.map_or(Cell::Empty, Cell::Number),
        Source::Correct => answer
            .correct
            .map_or(Cell::Empty, |n| Cell::Number(f64::from(n))),
        Source::Ending => answer.ending.clone().map_or(Cell::Empty, Cell::Text),
        Source::Complete => Cell::Number(if answer.partial { 0.0 } else { 1.0 }),
        Source::Order => match answer.order.is_empty() {
            true => Cell::Empty,
            false => serde_json::to_string(&answer.order).map_or(Cell::Empty, Cell::Text),
        },
        Source::Reference => Cell::Number(answer.reference.0 as f64),
        Source::Submitted => Cell::Moment(answer.submitted_at),
        Source::Version => Cell::Number(f64::from(answer.survey_version)),
        Source::Language(default) => Cell::Text(
            answer
                .language
                .as_ref()
                .map_or_else(|| default.clone(), ToString::to_string),
        ),
        Source::OverQuota(names) => match answer.over_quota.is_empty() {
            true => Cell::Empty,
            false => Cell::Text(
                answer
                    .over_quota
                    .iter()
                    .map(|id| {
                        names
                            .iter()
                            .find(|(known, _)| known == id)
                            .map_or_else(|| id.to_string(), |(_, name)| name.clone())
                    })
                    .collect::<Vec<_>>()
                    .join(crate::domain::answer::TEXT_SEPARATOR),
            ),
        },
        Source::Whole(id) => value(id).map_or(Cell::Empty, whole),
        Source::Ticked(id, option) => match value(id) {
            Some(AnswerValue::Choices(picked) | AnswerValue::Other { picked, .. }) => {
                Cell::Number(if picked.contains(option) { 1.0 } else { 0.0 })
            }
            _ => Cell::Empty,
        },
        Source::OtherText(id) => match value(id) {
            Some(AnswerValue::Other { text, .. }) => Cell::Text(text.clone()),
            _ => Cell::Empty,
        },
        Source::MatrixRow(id, row) => match value(id) {
            Some(AnswerValue::Matrix(picked)) => picked
                .get(row)
                .map_or(Cell::Empty, |c| Cell::Text(c.clone())),
            _ => Cell::Empty,
        },
        Source::File(id, what) => match value(id) {
            Some(AnswerValue::File(file)) => match what {
                FilePart::Name => Cell::Text(file.name.clone()),
                FilePart::Kind => Cell::Text(file.kind.name().to_owned()),
                FilePart::Bytes => Cell::Number(file.bytes as f64),
                FilePart::Path(slug) => Cell::Text(crate::links::file_download(
                    slug,
                    answer.reference,
                    id.as_str(),
                )),
            },
            _ => Cell::Empty,
        },
        Source::Place(id, option) => match value(id) {
            Some(AnswerValue::Ranking(order)) => order
                .iter()
                .position(|o| o == option)
                .map_or(Cell::Empty, |place| Cell::Number(place as f64 + 1.0)),
            _ => Cell::Empty,
        },
    }
}

/// A whole answer in one cell: numbers and dates as such, the rest as the domain's one line of
/// text.
fn whole(value: &AnswerValue) -> Cell {
    match value {
        AnswerValue::Stars(stars) => Cell::Number(f64::from(*stars)),
        AnswerValue::Point(point) => Cell::Number(f64::from(*point)),
        AnswerValue::Number(number) => Cell::Number(*number),
        AnswerValue::Date(day) => {
            crate::domain::answer::date(day).map_or_else(|| Cell::Text(day.clone()), Cell::Date)
        }
        // A single choice's "Other": the text has a column of its own.
        AnswerValue::Other { picked, .. } if picked.is_empty() => Cell::Text(OTHER.into()),
        other => Cell::Text(other.to_text(|n| n.to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::Reference;

    fn survey() -> Survey {
        serde_json::from_value(serde_json::json!({
            "tenant": "acme", "slug": "s", "title": "T", "version": 1, "published": true,
            "created": "2026-01-01T00:00:00Z", "updated": "2026-01-01T00:00:00Z",
            "questions": [
                {"id": "say", "text": "Say", "type": "short_text"},
                {"id": "many", "text": "Toppings", "type": "multiple_choice",
                 "options": ["Cheese", "Ham"], "other": true},
                {"id": "grid", "text": "Rate", "type": "matrix",
                 "rows": ["Food", "Service"], "columns": ["Bad", "Good"]},
                {"id": "order", "text": "Order", "type": "ranking", "options": ["A", "B"]},
                {"id": "when", "text": "When", "type": "date"},
                {"id": "stars", "text": "Stars", "type": "five_stars"}
            ]
        }))
        .expect("a survey")
    }

    /// The layout's column headers, between ` | `.
    fn headers(layout: &Layout) -> String {
        let headers: Vec<&str> = layout.columns.iter().map(|c| c.header.as_str()).collect();
        headers.join(" | ")
    }

    #[test]
    fn options_rows_and_places_get_their_own_typed_columns() {
        let survey = survey();
        let layout = Layout::of(&survey);
        assert_eq!(
            headers(&layout),
            "Reference | Submitted (UTC) | Survey version | Say | Toppings: Cheese | Toppings: Ham \
             | Toppings: Other | Rate: Food | Rate: Service | Order: A | Order: B | When | Stars"
        );
        assert_eq!(layout.columns[4].id, "many[Cheese]");
        // A survey without questions still lists who answered when.
        let bare = Survey {
            questions: Vec::new(),
            ..survey.clone()
        };
        assert_eq!(Layout::of(&bare).columns.len(), 3);
        let id = |text: &str| QuestionId::parse(text).expect("an id");
        let answer = Answer::new(
            survey.tenant.clone(),
            survey.slug.clone(),
            Reference(1234),
            OffsetDateTime::UNIX_EPOCH,
            [
                (
                    id("many"),
                    AnswerValue::Other {
                        picked: vec!["Ham".into()],
                        text: "Olives".into(),
                    },
                ),
                (
                    id("grid"),
                    AnswerValue::Matrix([("Service".into(), "Good".into())].into()),
                ),
                (
                    id("order"),
                    AnswerValue::Ranking(vec!["B".into(), "A".into()]),
                ),
                (id("when"), AnswerValue::Date("2026-03-01".into())),
                (id("stars"), AnswerValue::Stars(4)),
            ]
            .into(),
        );
        let row = layout.row(&answer);
        assert_eq!(
            row,
            [
                Cell::Number(1234.0),
                Cell::Moment(OffsetDateTime::UNIX_EPOCH),
                Cell::Number(1.0),
                Cell::Empty,
                Cell::Number(0.0),
                Cell::Number(1.0),
                Cell::Text("Olives".into()),
                Cell::Empty,
                Cell::Text("Good".into()),
                Cell::Number(2.0),
                Cell::Number(1.0),
                Cell::Date(time::macros::date!(2026 - 03 - 01)),
                Cell::Number(4.0),
            ]
        );

        // Who answered, after the first columns; what they lack is empty.
        let named = layout.with_participants(&["team".into(), "site".into()]);
        let named_headers = headers(&named);
        assert!(
            named_headers.starts_with(
                "Reference | Submitted (UTC) | Survey version | Participant | First name \
                 | Last name | team | site | Say | "
            ),
            "{named_headers}"
        );
        assert_eq!(named.columns[6].id, "participant.team");
        let theirs = Answer {
            participant: Some(Box::new(crate::domain::participant::Respondent::ann())),
            ..answer.clone()
        };
        assert_eq!(
            named.row(&theirs)[3..8],
            [
                Cell::Text("ann@example.com".into()),
                Cell::Text("Ann".into()),
                Cell::Empty,
                Cell::Text("Sales".into()),
                Cell::Empty,
            ]
        );
        assert_eq!(named.row(&answer)[3..8], [const { Cell::Empty }; 5]);
        assert_eq!(named.row(&answer)[8..], row[3..]);
    }
}
