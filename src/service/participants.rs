//! Adding a survey's participants, from the API's list or an uploaded sheet: every row
//! checked against the survey and those listed already, then all written, or none.

use bytes::Bytes;

use super::App;
use crate::domain::participant::{
    self, GivenParticipant, MAX_LISTED_PROBLEMS, Participant, RowError, SheetError,
};
use crate::domain::{PrivateLink, Survey};
use crate::export::workbook::Bounds;
use crate::stores::StoreError;
pub use crate::stores::participants::Totals;
use crate::stores::participants::{AddError, participants_of};

/// Why participants were not added.
#[derive(Debug, thiserror::Error)]
pub enum Refusal {
    #[error("no participants were given")]
    Empty,
    #[error("{}", rows_text(.0))]
    Rows(Vec<RowError>),
    #[error("a survey has at most {0} participants")]
    TooMany(usize),
    #[error("{0}")]
    Attributes(#[from] participant::AttributeLimit),
    #[error("{0}")]
    Sheet(#[from] SheetError),
    #[error("{0}")]
    Unreadable(String),
    /// The survey is answered in another region: its participants' links would not open.
    #[error("{}", super::surveys::PARTICIPANTS_AT_HOME_ADDING)]
    AnsweredAway,
}

/// How many rows are refused, and the first `MAX_LISTED_PROBLEMS` of them.
fn rows_text(problems: &[RowError]) -> String {
    let listed: Vec<String> = problems
        .iter()
        .take(MAX_LISTED_PROBLEMS)
        .map(ToString::to_string)
        .collect();
    let more = problems.len().saturating_sub(MAX_LISTED_PROBLEMS);
    let rows = match problems.len() {
        1 => "1 row is".to_owned(),
        n => format!("{n} rows are"),
    };
    let tail = match more {
        0 => String::new(),
        n => format!("; and {n} more"),
    };
    format!(
        "{rows} refused and nothing was added: {}{tail}",
        listed.join("; ")
    )
}

/// Adds `given` (each with its row number) to `survey`'s participants: all, or none.
pub async fn add(
    app: &App,
    survey: &Survey,
    given: Vec<(usize, GivenParticipant)>,
) -> Result<Result<Vec<Participant>, Refusal>, StoreError> {
    let stores = app.stores();
    let checked = match check(app, survey, &given).await? {
        Ok(checked) => checked,
        Err(refusal) => return Ok(Err(refusal)),
    };
    let filed = survey.survey_ref();
    // Indexed first, so the downloads' columns cover every participant's attributes.
    let segmenting = &survey.segment_attributes;
    let noted = stores
        .participants
        .note_attributes(&filed, &checked, segmenting);
    if let Err(limit) = noted.await? {
        return Ok(Err(Refusal::Attributes(limit)));
    }
    let now = time::OffsetDateTime::now_utc();
    let links = (0..checked.len())
        .map(|_| PrivateLink::generate())
        .collect::<Result<Vec<_>, _>>()
        .map_err(|_| StoreError::Refused {
            key: participants_of(&filed),
            reason: "the system's random source failed to make personal links",
        })?;
    match stores.participants.add(&filed, checked, now, links).await {
        Ok(added) => Ok(Ok(added)),
        Err(AddError::TooMany(most)) => Ok(Err(Refusal::TooMany(most))),
        Err(AddError::Store(error)) => Err(error),
        // Added by someone else meanwhile: said by row, as if listed before.
        Err(AddError::Listed(emails)) => {
            let problems = given
                .iter()
                .filter_map(|(row, one)| {
                    let email = crate::domain::Email::parse(&one.email)?;
                    emails.contains(&email).then(|| RowError {
                        row: *row,
                        problem: participant::RowProblem::AlreadyListed(email.as_str().to_owned()),
                    })
                })
                .collect();
            Ok(Err(Refusal::Rows(problems)))
        }
    }
}

/// Checks an uploaded sheet as adding it would, without adding anything: the participants
/// it gives, by row, or why it would be refused.
pub async fn check_sheet(
    app: &App,
    survey: &Survey,
    bytes: &Bytes,
) -> Result<Result<Vec<(usize, GivenParticipant)>, Refusal>, StoreError> {
    let given = match read_sheet(bytes).await {
        Ok(given) => given,
        Err(refusal) => return Ok(Err(refusal)),
    };
    Ok(check(app, survey, &given).await?.map(|_| given))
}

/// Checks `given` against the survey and those listed already.
async fn check(
    app: &App,
    survey: &Survey,
    given: &[(usize, GivenParticipant)],
) -> Result<Result<Vec<participant::NewParticipant>, Refusal>, StoreError> {
    let stores = app.stores();
    if given.is_empty() {
        return Ok(Err(Refusal::Empty));
    }
    if super::surveys::answered_away(app, &survey.regions) {
        return Ok(Err(Refusal::AnsweredAway));
    }
    if given.len() > participant::MAX_PARTICIPANTS {
        return Ok(Err(Refusal::TooMany(participant::MAX_PARTICIPANTS)));
    }
    let emails: Vec<_> = given
        .iter()
        .filter_map(|(_, one)| crate::domain::Email::parse(&one.email))
        .collect();
    let listed: std::collections::HashSet<_> = stores
        .participants
        .listed(&survey.survey_ref(), &emails)
        .await?
        .into_iter()
        .collect();
    let languages = survey.offered_languages();
    let checked =
        participant::check_list(given.to_vec(), &languages, |email| listed.contains(email));
    Ok(checked.map_err(Refusal::Rows))
}

/// Adds the participants of an uploaded sheet (CSV or XLSX): all rows, or none.
pub async fn add_sheet(
    app: &App,
    survey: &Survey,
    bytes: &Bytes,
) -> Result<Result<Vec<Participant>, Refusal>, StoreError> {
    match read_sheet(bytes).await {
        Ok(given) => add(app, survey, given).await,
        Err(refusal) => Ok(Err(refusal)),
    }
}

/// What a sheet of participants may hold: a header row and the most participants a survey
/// has, each in at most `SHEET_COLUMNS` columns, 2,000,000 cells in all (documented in
/// docs/tenants.md).
pub const SHEET_BOUNDS: Bounds =
    Bounds::sheet(participant::MAX_PARTICIPANTS + 1, SHEET_COLUMNS, 2_000_000);

/// Columns a sheet of participants may have: address, names, language and the attributes,
/// with room for columns the import leaves out.
pub const SHEET_COLUMNS: usize = 4 + participant::MAX_ATTRIBUTE_COLUMNS + 10;

/// The participants a sheet gives, by row, read on a blocking thread (a big sheet takes
/// seconds of CPU).
pub async fn read_sheet(bytes: &Bytes) -> Result<Vec<(usize, GivenParticipant)>, Refusal> {
    let bytes = bytes.clone();
    let read = tokio::task::spawn_blocking(move || {
        crate::export::text_sheet::read_rows(&bytes, &SHEET_BOUNDS)
    })
    .await
    .map_err(|error| Refusal::Unreadable(format!("the sheet could not be read ({error})")))?;
    let rows = read.map_err(|error| Refusal::Unreadable(error.to_string()))?;
    Ok(participant::from_sheet(rows)?)
}

/// Changes a participant's names and language (their address and link stay): checked as an
/// added participant is. `Ok(false)` when there is no such participant.
pub async fn edit(
    app: &App,
    survey: &Survey,
    id: &str,
    names: (String, String),
    language: String,
) -> Result<Result<bool, Refusal>, StoreError> {
    let stores = app.stores();
    let filed = survey.survey_ref();
    let Some(current) = stores.participants.get(&filed, id).await? else {
        return Ok(Ok(false));
    };
    let given = GivenParticipant {
        email: current.person.email.as_str().to_owned(),
        first_name: Some(names.0),
        last_name: Some(names.1),
        language: Some(language),
        attributes: current.person.attributes.clone(),
    };
    let languages = survey.offered_languages();
    let person = match participant::check_list(vec![(1, given)], &languages, |_| false) {
        Ok(mut checked) => match checked.pop() {
            Some(person) => person,
            None => return Ok(Ok(false)),
        },
        Err(problems) => return Ok(Err(Refusal::Rows(problems))),
    };
    let changed = stores
        .participants
        .change(&filed, id, |participant| {
            participant.person = person.clone()
        })
        .await?;
    Ok(Ok(changed))
}
