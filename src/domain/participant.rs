//! Participants: the known people a survey by invitation is sent to. Each has an email
//! address (one per survey), optional names and language, attributes of the owner's own, and
//! a personal link. Rows of an uploaded list are checked here, all of them, so an import is
//! taken whole or refused with every bad row's number.

use std::collections::{BTreeMap, HashMap};

use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

use super::account::{Email, MAX_EMAIL};
use super::language::LanguageTag;

/// Most participants of one survey.
pub const MAX_PARTICIPANTS: usize = 100_000;
/// Longest first or last name.
pub const MAX_NAME: usize = 100;
/// Most attributes of one participant.
pub const MAX_ATTRIBUTES: usize = 20;
/// Longest attribute name.
pub const MAX_ATTRIBUTE_NAME: usize = 40;
/// Longest attribute value.
pub const MAX_ATTRIBUTE_VALUE: usize = 500;
/// Most attribute names a survey's participants have in all (each a column of the answers'
/// downloads).
pub const MAX_ATTRIBUTE_COLUMNS: usize = 50;
/// Most values an attribute that divides answers into segments takes among a survey's
/// participants (each is a segment with statistics of its own).
pub const MAX_SEGMENT_VALUES: usize = 50;
/// Most problems an import lists (then how many more).
pub const MAX_LISTED_PROBLEMS: usize = 50;

/// Who may answer a survey.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Access {
    /// Anyone with its link (the survey's public address).
    #[default]
    Open,
    /// Only its participants, each through their personal link, once.
    Invitation,
}

impl Access {
    /// Whether this is the default (left out of definitions).
    pub fn is_open(&self) -> bool {
        *self == Access::Open
    }
}

/// A participant as an owner gives it: checked, not yet stored.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct NewParticipant {
    pub email: Email,
    pub first_name: Option<String>,
    pub last_name: Option<String>,
    /// The language the survey is offered to them in (one of the survey's).
    pub language: Option<LanguageTag>,
    /// The owner's own columns (department, customer number, ...).
    pub attributes: BTreeMap<String, String>,
}

/// Where a participant stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ParticipantStatus {
    Added,
    Invited,
    Started,
    Finished,
    OptedOut,
    Bounced,
}

/// A stored participant.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Participant {
    /// Its id in the API (16 lowercase hex digits).
    pub id: String,
    #[serde(flatten)]
    pub person: NewParticipant,
    /// Their personal link's secret. Kept with the participant so the owner can see and
    /// send the link again; storage finds a participant from a link by a digest of it.
    pub link: String,
    #[serde(with = "time::serde::rfc3339")]
    pub added: OffsetDateTime,
    /// When they first opened their link.
    #[serde(default)]
    pub started: Option<Moment>,
    /// When their answer was sent through their link.
    #[serde(default)]
    pub finished: Option<Moment>,
    /// What mailings did.
    #[serde(default)]
    pub mail: MailTrack,
}

/// When something happened to a participant: its time, or only that it happened. A survey
/// whose answers are anonymous keeps no time of opening or answering, which could otherwise be
/// set beside its answers' references and times to tell whose each one is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Moment {
    At(OffsetDateTime),
    Untimed,
}

impl Moment {
    /// Now, or untimed when `anonymous`.
    pub fn now(anonymous: bool) -> Self {
        match anonymous {
            true => Moment::Untimed,
            false => Moment::At(OffsetDateTime::now_utc()),
        }
    }

    /// Its time, when it was kept.
    pub fn at(self) -> Option<OffsetDateTime> {
        match self {
            Moment::At(at) => Some(at),
            Moment::Untimed => None,
        }
    }
}

/// A moment as stored: an RFC 3339 time, or `true` for one without a time.
#[derive(Serialize, Deserialize)]
#[serde(untagged)]
enum StoredMoment {
    At(#[serde(with = "time::serde::rfc3339")] OffsetDateTime),
    Untimed(bool),
}

impl Serialize for Moment {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match *self {
            Moment::At(at) => StoredMoment::At(at),
            Moment::Untimed => StoredMoment::Untimed(true),
        }
        .serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for Moment {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Ok(match StoredMoment::deserialize(deserializer)? {
            StoredMoment::At(at) => Moment::At(at),
            StoredMoment::Untimed(_) => Moment::Untimed,
        })
    }
}

/// What mailings did for a participant.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MailTrack {
    /// When their invitation went out.
    #[serde(default, with = "time::serde::rfc3339::option")]
    pub invited: Option<OffsetDateTime>,
    /// Reminders sent to them.
    #[serde(default)]
    pub reminded: u32,
    /// When the last reminder went out.
    #[serde(default, with = "time::serde::rfc3339::option")]
    pub last_reminded: Option<OffsetDateTime>,
    /// When they asked for no more mail (from this tenant).
    #[serde(default, with = "time::serde::rfc3339::option")]
    pub opted_out: Option<OffsetDateTime>,
    /// When their mail server refused a message for good.
    #[serde(default, with = "time::serde::rfc3339::option")]
    pub bounced: Option<OffsetDateTime>,
    /// The mailings that reached them, by id: a mailing reaches each participant once.
    #[serde(default)]
    pub mailings: Vec<String>,
}

impl Participant {
    /// Where they stand: finished first, then what stops mail, then how far mail got.
    pub fn status(&self) -> ParticipantStatus {
        let mail = &self.mail;
        if self.finished.is_some() {
            ParticipantStatus::Finished
        } else if mail.opted_out.is_some() {
            ParticipantStatus::OptedOut
        } else if mail.bounced.is_some() {
            ParticipantStatus::Bounced
        } else if self.started.is_some() {
            ParticipantStatus::Started
        } else if mail.invited.is_some() {
            ParticipantStatus::Invited
        } else {
            ParticipantStatus::Added
        }
    }
}

/// Who gave an answer through their personal link, as their list said then: kept with the
/// answer of a survey whose answers are not anonymous, for the downloads' columns.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Respondent {
    /// Their id in the participants API.
    pub id: String,
    pub email: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_name: Option<String>,
    /// The owner's own columns (department, customer number, ...).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub attributes: BTreeMap<String, String>,
}

#[cfg(test)]
impl Participant {
    /// Ann (ann@example.com), just added at `at`, as the tests of participants and mailings
    /// start with her.
    pub(crate) fn ann(at: OffsetDateTime) -> Self {
        let given = GivenParticipant {
            email: "ann@example.com".into(),
            ..Default::default()
        };
        Participant {
            id: "0123456789abcdef".into(),
            person: check_list(vec![(1, given)], &[], |_| false)
                .expect("valid")
                .remove(0),
            link: "link".into(),
            added: at,
            started: None,
            finished: None,
            mail: MailTrack::default(),
        }
    }
}

#[cfg(test)]
impl Respondent {
    /// Ann of Sales, as the tests of answers and downloads name a participant.
    pub(crate) fn ann() -> Self {
        Respondent {
            id: "0123456789abcdef".into(),
            email: "ann@example.com".into(),
            first_name: Some("Ann".into()),
            last_name: None,
            attributes: [("team".to_owned(), "Sales".to_owned())].into(),
        }
    }
}

impl Participant {
    /// Them, as an answer of theirs names them.
    pub fn respondent(&self) -> Respondent {
        let person = &self.person;
        Respondent {
            id: self.id.clone(),
            email: person.email.as_str().to_owned(),
            first_name: person.first_name.clone(),
            last_name: person.last_name.clone(),
            attributes: person.attributes.clone(),
        }
    }

    /// What `{{p:NAME}}` in a question's text shows them: their first or last name, or an
    /// attribute of theirs.
    pub fn recalled(&self, name: &str) -> Option<&str> {
        let person = &self.person;
        match name {
            FIRST_NAME => person.first_name.as_deref(),
            LAST_NAME => person.last_name.as_deref(),
            _ => person.attributes.get(name).map(String::as_str),
        }
    }
}

/// The attributes a survey's participants were given: every name (each a column of the
/// answers' downloads) and, up to one past `MAX_SEGMENT_VALUES`, the values of each (so an
/// attribute can divide answers into segments only while it has few).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct AttributeIndex {
    /// Every name, each list's new ones in alphabetical order after those before.
    pub names: Vec<String>,
    /// The values each name was given, up to one more than `MAX_SEGMENT_VALUES`.
    pub values: BTreeMap<String, std::collections::BTreeSet<String>>,
}

/// Which limit a list of participants would pass.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum AttributeLimit {
    #[error(
        "a survey's participants have at most {MAX_ATTRIBUTE_COLUMNS} attribute names in all (each is a column of the answers' downloads)"
    )]
    Names,
    #[error(
        "the answers are divided by {0}, which can take at most {MAX_SEGMENT_VALUES} different values among the participants (each is a segment)"
    )]
    Values(String),
}

impl AttributeIndex {
    /// Takes in what `people` were given; refused, unchanged, when that passes a limit:
    /// `MAX_ATTRIBUTE_COLUMNS` names, or `MAX_SEGMENT_VALUES` values of an attribute in
    /// `segmenting`. Whether anything changed.
    pub fn add(
        &mut self,
        people: &[NewParticipant],
        segmenting: &[String],
    ) -> Result<bool, AttributeLimit> {
        let mut grown = self.clone();
        let new: std::collections::BTreeSet<&String> = people
            .iter()
            .flat_map(|person| person.attributes.keys())
            .filter(|name| !self.names.contains(name))
            .collect();
        grown.names.extend(new.into_iter().cloned());
        if grown.names.len() > MAX_ATTRIBUTE_COLUMNS {
            return Err(AttributeLimit::Names);
        }
        for (name, value) in people.iter().flat_map(|person| &person.attributes) {
            let values = grown.values.entry(name.clone()).or_default();
            if values.len() <= MAX_SEGMENT_VALUES {
                values.insert(value.clone());
            }
        }
        if let Some(name) = segmenting.iter().find(|name| grown.too_varied(name)) {
            return Err(AttributeLimit::Values(name.clone()));
        }
        let changed = grown != *self;
        *self = grown;
        Ok(changed)
    }

    /// Whether `name` takes more values than answers can be divided by.
    pub fn too_varied(&self, name: &str) -> bool {
        self.values
            .get(name)
            .is_some_and(|values| values.len() > MAX_SEGMENT_VALUES)
    }
}

/// What is wrong with one given participant.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RowProblem {
    #[error("{0:?} is not an email address")]
    BadEmail(String),
    #[error("{email} is given twice (first in row {first})")]
    Duplicate { email: String, first: usize },
    #[error("{0} is a participant already")]
    AlreadyListed(String),
    #[error("{0:?} is not one of the survey's languages")]
    UnknownLanguage(String),
    #[error("a name is longer than {MAX_NAME} characters")]
    NameTooLong,
    #[error("{0:?} is not an attribute name: use 1 to {MAX_ATTRIBUTE_NAME} letters, digits or _")]
    BadAttributeName(String),
    #[error("more than {MAX_ATTRIBUTES} attributes")]
    TooManyAttributes,
    #[error("the value of {0} is longer than {MAX_ATTRIBUTE_VALUE} characters")]
    AttributeTooLong(String),
    #[error("{0} has a character that cannot be kept (a control or bidirectional character)")]
    BadCharacter(String),
}

/// A problem and the row (or list position) it is in, counted from 1 as people count rows.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("row {row}: {problem}")]
pub struct RowError {
    pub row: usize,
    pub problem: RowProblem,
}

/// A participant as given, before checking.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize, utoipa::ToSchema)]
pub struct GivenParticipant {
    pub email: String,
    #[serde(default)]
    pub first_name: Option<String>,
    #[serde(default)]
    pub last_name: Option<String>,
    #[serde(default)]
    pub language: Option<String>,
    #[serde(default)]
    pub attributes: BTreeMap<String, String>,
}

/// Whether a text holds a character Canvass never keeps (controls but tab and line breaks,
/// bidirectional embeddings, overrides and isolates).
fn unkeepable(text: &str) -> bool {
    text.chars().any(|c| {
        (c.is_control() && !matches!(c, '\t' | '\n' | '\r'))
            || matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
    })
}

/// An optional text, trimmed; `None` when blank.
fn optional(text: Option<String>) -> Option<String> {
    text.map(|text| text.trim().to_owned())
        .filter(|text| !text.is_empty())
}

/// Whether `name` can name an attribute: 1 to `MAX_ATTRIBUTE_NAME` letters, digits or `_`.
pub fn valid_attribute_name(name: &str) -> bool {
    (1..=MAX_ATTRIBUTE_NAME).contains(&name.len())
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

/// Checks one given participant against the survey's `languages`.
fn check_one(
    given: GivenParticipant,
    languages: &[LanguageTag],
) -> Result<NewParticipant, RowProblem> {
    let email = Email::parse(&given.email)
        .ok_or_else(|| RowProblem::BadEmail(given.email.trim().to_owned()))?;
    let first_name = optional(given.first_name);
    let last_name = optional(given.last_name);
    for name in [&first_name, &last_name].into_iter().flatten() {
        if name.chars().count() > MAX_NAME {
            return Err(RowProblem::NameTooLong);
        }
        if unkeepable(name) {
            return Err(RowProblem::BadCharacter("a name".into()));
        }
    }
    let language = match optional(given.language) {
        None => None,
        Some(text) => Some(
            LanguageTag::parse(&text)
                .ok()
                .filter(|tag| languages.contains(tag))
                .ok_or(RowProblem::UnknownLanguage(text))?,
        ),
    };
    let mut attributes = BTreeMap::new();
    for (name, value) in given.attributes {
        let name = name.trim().to_owned();
        if !valid_attribute_name(&name) {
            return Err(RowProblem::BadAttributeName(name));
        }
        let value = value.trim().to_owned();
        if value.chars().count() > MAX_ATTRIBUTE_VALUE {
            return Err(RowProblem::AttributeTooLong(name));
        }
        if unkeepable(&value) {
            return Err(RowProblem::BadCharacter(name));
        }
        if !value.is_empty() {
            attributes.insert(name, value);
        }
    }
    if attributes.len() > MAX_ATTRIBUTES {
        return Err(RowProblem::TooManyAttributes);
    }
    Ok(NewParticipant {
        email,
        first_name,
        last_name,
        language,
        attributes,
    })
}

/// Checks a list of given participants, each at its row number: every one valid, none given
/// twice, none `listed` already. All of them, or every problem found.
pub fn check_list(
    given: Vec<(usize, GivenParticipant)>,
    languages: &[LanguageTag],
    listed: impl Fn(&Email) -> bool,
) -> Result<Vec<NewParticipant>, Vec<RowError>> {
    let mut seen: HashMap<Email, usize> = HashMap::new();
    let mut checked = Vec::with_capacity(given.len());
    let mut problems = Vec::new();
    for (row, one) in given {
        let problem = match check_one(one, languages) {
            Err(problem) => problem,
            Ok(person) => match seen.get(&person.email) {
                Some(&first) => RowProblem::Duplicate {
                    email: person.email.as_str().to_owned(),
                    first,
                },
                None if listed(&person.email) => {
                    RowProblem::AlreadyListed(person.email.as_str().to_owned())
                }
                None => {
                    seen.insert(person.email.clone(), row);
                    checked.push(person);
                    continue;
                }
            },
        };
        problems.push(RowError { row, problem });
    }
    match problems.is_empty() {
        true => Ok(checked),
        false => Err(problems),
    }
}

/// A search of a list by the start of an address, as typed: trimmed and lowercased as
/// addresses are kept; `None` when blank; refused when longer than any address.
pub fn search_prefix(typed: &str) -> Result<Option<String>, &'static str> {
    let search = typed.trim().to_lowercase();
    match search.len() {
        0 => Ok(None),
        1..=MAX_EMAIL => Ok(Some(search)),
        _ => Err("a search is at most 254 characters, the longest address"),
    }
}

/// The columns a participants sheet names in its first row.
const EMAIL: &str = "email";
const FIRST_NAME: &str = "first_name";
const LAST_NAME: &str = "last_name";
const LANGUAGE: &str = "language";

/// A column heading as a key: lowercase, spaces as `_` ("First name" is `first_name`).
fn heading(text: &str) -> String {
    text.trim().to_lowercase().replace([' ', '-'], "_")
}

/// Why a sheet is not a participants list at all.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SheetError {
    #[error("the first row must name the columns, one of them email")]
    NoEmailColumn,
    #[error("the column {0:?} is named twice")]
    ColumnTwice(String),
    #[error("the sheet has no participants under its first row")]
    Empty,
}

/// Reads a participants sheet: a first row naming the columns (`email`, and optionally
/// `first_name`, `last_name`, `language`; any other column an attribute), then one
/// participant a row, numbered as the spreadsheet numbers rows. Blank rows are skipped.
pub fn from_sheet(rows: Vec<Vec<String>>) -> Result<Vec<(usize, GivenParticipant)>, SheetError> {
    let mut rows = rows.into_iter().enumerate();
    let header: Vec<String> = loop {
        match rows.next() {
            None => return Err(SheetError::NoEmailColumn),
            Some((_, row)) if row.iter().all(|cell| cell.trim().is_empty()) => continue,
            Some((_, row)) => break row.iter().map(|cell| heading(cell)).collect(),
        }
    };
    if !header.iter().any(|name| name == EMAIL) {
        return Err(SheetError::NoEmailColumn);
    }
    for (at, name) in header.iter().enumerate() {
        if !name.is_empty() && header[..at].contains(name) {
            return Err(SheetError::ColumnTwice(name.clone()));
        }
    }
    let mut given = Vec::new();
    for (index, row) in rows {
        if row.iter().all(|cell| cell.trim().is_empty()) {
            continue;
        }
        let mut one = GivenParticipant::default();
        for (name, cell) in header.iter().zip(row) {
            match name.as_str() {
                "" => {}
                EMAIL => one.email = cell,
                FIRST_NAME => one.first_name = Some(cell),
                LAST_NAME => one.last_name = Some(cell),
                LANGUAGE => one.language = Some(cell),
                other => {
                    one.attributes.insert(other.to_owned(), cell);
                }
            }
        }
        given.push((index + 1, one));
    }
    match given.is_empty() {
        true => Err(SheetError::Empty),
        false => Ok(given),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn given(email: &str) -> GivenParticipant {
        GivenParticipant {
            email: email.into(),
            ..GivenParticipant::default()
        }
    }

    fn languages() -> Vec<LanguageTag> {
        ["en", "de"]
            .into_iter()
            .map(|tag| LanguageTag::parse(tag).expect("a tag"))
            .collect()
    }

    #[test]
    fn a_sheet_names_its_columns_and_its_rows_keep_the_spreadsheets_numbers() {
        let rows = vec![
            vec![
                "Email".into(),
                "First name".into(),
                "Language".into(),
                "Team".into(),
            ],
            vec![
                "ann@example.com".into(),
                "Ann".into(),
                "de".into(),
                "Sales".into(),
            ],
            vec![String::new(), String::new()],
            vec![
                "bob@example.com".into(),
                String::new(),
                String::new(),
                String::new(),
            ],
        ];
        let read = from_sheet(rows).expect("a list");
        assert_eq!(read.len(), 2);
        assert_eq!(read[0].0, 2);
        assert_eq!(read[1].0, 4, "the blank row 3 is skipped, not renumbered");
        assert_eq!(read[0].1.attributes["team"], "Sales");
        let checked = check_list(read, &languages(), |_| false).expect("valid");
        assert_eq!(checked[0].first_name.as_deref(), Some("Ann"));
        assert_eq!(checked[1].first_name, None);
        assert!(
            checked[1].attributes.is_empty(),
            "a blank attribute is no attribute"
        );
        assert_eq!(
            from_sheet(vec![vec!["name".into()], vec!["x".into()]]),
            Err(SheetError::NoEmailColumn)
        );
        assert_eq!(
            from_sheet(vec![vec!["email".into(), "Email".into()]]),
            Err(SheetError::ColumnTwice("email".into()))
        );
        assert_eq!(
            from_sheet(vec![vec!["email".into()]]),
            Err(SheetError::Empty)
        );
    }

    #[test]
    fn every_bad_row_is_named_and_nothing_is_taken() {
        let list = vec![
            (2, given("ann@example.com")),
            (3, given("not an address")),
            (4, given("ANN@example.com ")),
            (
                5,
                GivenParticipant {
                    language: Some("fr".into()),
                    ..given("cy@example.com")
                },
            ),
            (6, given("dee@example.com")),
            (
                7,
                GivenParticipant {
                    attributes: BTreeMap::from([("bad name".into(), "x".into())]),
                    ..given("eve@example.com")
                },
            ),
        ];
        let listed = |email: &Email| email.as_str() == "dee@example.com";
        let problems = check_list(list, &languages(), listed).expect_err("refused");
        let rows: Vec<usize> = problems.iter().map(|p| p.row).collect();
        assert_eq!(rows, [3, 4, 5, 6, 7]);
        assert_eq!(
            problems[1].problem,
            RowProblem::Duplicate {
                email: "ann@example.com".into(),
                first: 2
            }
        );
        assert_eq!(
            problems[1].to_string(),
            "row 4: ann@example.com is given twice (first in row 2)"
        );
        assert_eq!(
            problems[2].problem,
            RowProblem::UnknownLanguage("fr".into())
        );
    }

    #[test]
    fn each_limit_takes_its_largest_value_and_refuses_one_more() {
        let check = |one: GivenParticipant| check_list(vec![(2, one)], &languages(), |_| false);
        let refused = |one: GivenParticipant| check(one).expect_err("refused")[0].problem.clone();
        let named = |name: String| GivenParticipant {
            first_name: Some(name),
            ..given("ann@example.com")
        };
        assert!(check(named("a".repeat(MAX_NAME))).is_ok());
        assert_eq!(
            refused(named("a".repeat(MAX_NAME + 1))),
            RowProblem::NameTooLong
        );
        assert_eq!(
            refused(named("Ann\u{202E}".into())),
            RowProblem::BadCharacter("a name".into())
        );
        let with = |attributes: Vec<(String, String)>| GivenParticipant {
            attributes: attributes.into_iter().collect(),
            ..given("ann@example.com")
        };
        let many = |n: usize| (0..n).map(|i| (format!("a{i}"), "x".to_owned())).collect();
        assert!(check(with(many(MAX_ATTRIBUTES))).is_ok());
        assert_eq!(
            refused(with(many(MAX_ATTRIBUTES + 1))),
            RowProblem::TooManyAttributes
        );
        let value = |n: usize| vec![("team".to_owned(), "x".repeat(n))];
        assert!(check(with(value(MAX_ATTRIBUTE_VALUE))).is_ok());
        assert_eq!(
            refused(with(value(MAX_ATTRIBUTE_VALUE + 1))),
            RowProblem::AttributeTooLong("team".into())
        );
        let name = |n: usize| vec![("a".repeat(n), "x".to_owned())];
        assert!(check(with(name(MAX_ATTRIBUTE_NAME))).is_ok());
        for bad in [
            String::new(),
            "a".repeat(MAX_ATTRIBUTE_NAME + 1),
            "team name".into(),
        ] {
            let attributes = vec![(bad.clone(), "x".to_owned())];
            assert_eq!(refused(with(attributes)), RowProblem::BadAttributeName(bad));
        }
        // Blank names, languages and values are no values; an empty list is nothing taken.
        let blank = GivenParticipant {
            first_name: Some("  ".into()),
            language: Some(" ".into()),
            ..with(value(0))
        };
        let taken = check(blank).expect("valid");
        assert_eq!(
            (taken[0].first_name.clone(), taken[0].language.clone()),
            (None, None)
        );
        assert!(taken[0].attributes.is_empty());
        assert_eq!(
            check_list(Vec::new(), &languages(), |_| false),
            Ok(Vec::new())
        );
    }

    #[test]
    fn a_search_is_the_start_of_an_address_as_addresses_are_kept() {
        assert_eq!(search_prefix("  Ann@ "), Ok(Some("ann@".into())));
        assert_eq!(search_prefix("   "), Ok(None));
        assert_eq!(
            search_prefix(&"a".repeat(MAX_EMAIL)),
            Ok(Some("a".repeat(MAX_EMAIL)))
        );
        assert!(search_prefix(&"a".repeat(MAX_EMAIL + 1)).is_err());
    }

    #[test]
    fn a_participant_is_added_then_started_then_finished() {
        let at = OffsetDateTime::UNIX_EPOCH;
        let mut participant = Participant::ann(at);
        assert_eq!(participant.status(), ParticipantStatus::Added);
        participant.mail.invited = Some(at);
        assert_eq!(participant.status(), ParticipantStatus::Invited);
        participant.started = Some(Moment::At(at));
        assert_eq!(participant.status(), ParticipantStatus::Started);
        participant.mail.bounced = Some(at);
        assert_eq!(participant.status(), ParticipantStatus::Bounced);
        participant.mail.opted_out = Some(at);
        assert_eq!(participant.status(), ParticipantStatus::OptedOut);
        participant.finished = Some(Moment::Untimed);
        assert_eq!(participant.status(), ParticipantStatus::Finished);
        // Answered without a recorded opening (that write failed): finished all the same.
        participant.started = None;
        assert_eq!(participant.status(), ParticipantStatus::Finished);
    }

    #[test]
    fn a_moment_is_stored_as_its_time_or_as_true_and_read_back() {
        let at = OffsetDateTime::UNIX_EPOCH;
        let stored = |moment: Option<Moment>| serde_json::to_string(&moment).expect("stored");

        assert_eq!(stored(Some(Moment::At(at))), "\"1970-01-01T00:00:00Z\"");
        assert_eq!(stored(Some(Moment::Untimed)), "true");
        for moment in [None, Some(Moment::At(at)), Some(Moment::Untimed)] {
            let read: Option<Moment> = serde_json::from_str(&stored(moment)).expect("read");
            assert_eq!(read, moment);
        }
        assert_eq!(Moment::Untimed.at(), None);
        assert_eq!(Moment::now(true), Moment::Untimed);
        assert!(Moment::now(false).at().is_some());
    }

    #[test]
    fn attributes_are_indexed_within_their_limits() {
        let person = |n: usize, attributes: &[(&str, &str)]| NewParticipant {
            email: Email::parse(&format!("p{n}@example.com")).expect("an address"),
            first_name: None,
            last_name: None,
            language: None,
            attributes: attributes
                .iter()
                .map(|(name, value)| ((*name).to_owned(), (*value).to_owned()))
                .collect(),
        };
        let mut index = AttributeIndex::default();
        let first = [person(1, &[("team", "Sales"), ("site", "Leeds")])];
        assert_eq!(index.add(&first, &[]), Ok(true));
        assert_eq!(index.names, ["site", "team"]);
        assert_eq!(index.add(&first, &[]), Ok(false), "nothing new");
        assert_eq!(index.add(&[person(2, &[("age", "40")])], &[]), Ok(true));
        assert_eq!(
            index.names,
            ["site", "team", "age"],
            "new names after those before"
        );

        // 51 values of a segment attribute are refused, and change nothing.
        let many: Vec<NewParticipant> = (0..MAX_SEGMENT_VALUES)
            .map(|n| person(n, &[("team", &format!("t{n}"))]))
            .collect();
        let segmenting = ["team".to_owned()];
        let before = index.clone();
        assert_eq!(
            index.add(&many, &segmenting),
            Err(AttributeLimit::Values("team".into()))
        );
        assert_eq!(index, before);
        // Not a segment: taken, and known as too varied to become one.
        assert_eq!(index.add(&many, &[]), Ok(true));
        assert!(index.too_varied("team"));
        assert!(!index.too_varied("site"));
        assert!(
            index.values["team"].len() == MAX_SEGMENT_VALUES + 1,
            "kept bounded"
        );

        let names: Vec<NewParticipant> = (0..3)
            .map(|n| {
                let attributes: Vec<(String, String)> = (0..20)
                    .map(|a| (format!("a{n}_{a}"), "x".to_owned()))
                    .collect();
                let pairs: Vec<(&str, &str)> = attributes
                    .iter()
                    .map(|(k, v)| (k.as_str(), v.as_str()))
                    .collect();
                person(n, &pairs)
            })
            .collect();
        assert_eq!(index.add(&names, &[]), Err(AttributeLimit::Names));
    }

    proptest! {
        /// A list is taken whole exactly when no row has a problem, and then every address
        /// in it is different.
        #[test]
        fn a_list_is_taken_whole_or_refused_with_its_rows(
            emails in proptest::collection::vec("[a-c]{1,2}(@example\\.com|@x)", 1..30),
        ) {
            let list: Vec<(usize, GivenParticipant)> =
                emails.iter().enumerate().map(|(at, email)| (at + 2, given(email))).collect();
            match check_list(list, &languages(), |_| false) {
                Ok(taken) => {
                    prop_assert_eq!(taken.len(), emails.len());
                    let mut seen: Vec<&str> = taken.iter().map(|p| p.email.as_str()).collect();
                    seen.sort_unstable();
                    seen.dedup();
                    prop_assert_eq!(seen.len(), emails.len());
                }
                Err(problems) => {
                    prop_assert!(!problems.is_empty());
                    let bad = emails.iter().any(|email| email.ends_with("@x"));
                    let mut sorted = emails.clone();
                    sorted.sort_unstable();
                    sorted.dedup();
                    prop_assert!(bad || sorted.len() < emails.len());
                    for problem in &problems {
                        prop_assert!((2..emails.len() + 2).contains(&problem.row));
                    }
                }
            }
        }
    }
}
