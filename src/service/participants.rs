//! A survey's participants: adding them, from the API's list or an uploaded sheet (every row
//! checked against the survey and those listed already, then all written, or none), listing,
//! changing and removing them, and the attributes its answers are divided by.

use bytes::Bytes;

use super::App;
use crate::domain::participant::{
    self, AttributeIndex, GivenParticipant, MAX_LISTED_PROBLEMS, Participant, RowError, SheetError,
};
use crate::domain::{PrivateLink, Survey};
use crate::export::workbook::Bounds;
use crate::stores::StoreError;
use crate::stores::participants::{AddError, participants_of};
pub use crate::stores::participants::{ParticipantPage, Totals};

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
        .panel
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
    match stores
        .panel
        .participants
        .add(&filed, checked, now, links)
        .await
    {
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
        .panel
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
    let Some(current) = stores.panel.participants.get(&filed, id).await? else {
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
        .panel
        .participants
        .change(&filed, id, |participant| {
            participant.person = person.clone()
        })
        .await?;
    Ok(Ok(changed))
}

/// One page of `survey`'s participants, in email order, from `after`, whose address starts
/// with `search` when given.
pub async fn page(
    app: &App,
    survey: &Survey,
    search: Option<&str>,
    after: Option<&str>,
    count: usize,
) -> Result<ParticipantPage, StoreError> {
    let filed = survey.survey_ref();
    app.stores()
        .panel
        .participants
        .page(&filed, search, after, count)
        .await
}

/// Every participant of `survey`, in email order (for the download: at most
/// `participant::MAX_PARTICIPANTS`).
pub async fn everyone(app: &App, survey: &Survey) -> Result<Vec<Participant>, StoreError> {
    let mut everyone = Vec::new();
    let mut after = None;
    loop {
        let page = page(app, survey, None, after.as_deref(), 1000).await?;
        everyone.extend(page.participants);
        match page.next {
            Some(next) => after = Some(next),
            None => return Ok(everyone),
        }
    }
}

/// How far `survey`'s participants have got, in counts.
pub async fn totals(app: &App, survey: &Survey) -> Result<Totals, StoreError> {
    app.stores()
        .panel
        .participants
        .totals(&survey.survey_ref())
        .await
}

/// The attributes `survey`'s participants were given; `None` if it never had participants.
pub async fn attributes(app: &App, survey: &Survey) -> Result<Option<AttributeIndex>, StoreError> {
    app.stores()
        .panel
        .participants
        .attributes(&survey.survey_ref())
        .await
}

/// One participant of `survey`.
pub async fn get(app: &App, survey: &Survey, id: &str) -> Result<Option<Participant>, StoreError> {
    app.stores()
        .panel
        .participants
        .get(&survey.survey_ref(), id)
        .await
}

/// Removes a participant: their link stops working. Whether there was one to remove.
pub async fn remove(app: &App, survey: &Survey, id: &str) -> Result<bool, StoreError> {
    app.stores()
        .panel
        .participants
        .remove(&survey.survey_ref(), id)
        .await
}

/// Keeps a checked sheet for a while, until its owner confirms the preview; its id.
pub async fn hold_sheet(app: &App, survey: &Survey, sheet: Bytes) -> Result<String, StoreError> {
    app.stores()
        .panel
        .participants
        .hold_sheet(&survey.survey_ref(), sheet)
        .await
}

/// Adds the participants of the sheet held as `held` (all rows, or none), then lets the
/// sheet go; `None` if it was added already or has expired.
pub async fn add_held_sheet(
    app: &App,
    survey: &Survey,
    held: &str,
) -> Result<Option<Result<Vec<Participant>, Refusal>>, StoreError> {
    let store = &app.stores().panel.participants;
    let filed = survey.survey_ref();
    let Some(bytes) = store.held_sheet(&filed, held).await? else {
        return Ok(None);
    };
    let result = add_sheet(app, survey, &bytes).await?;
    store.drop_sheet(&filed, held).await?;
    Ok(Some(result))
}

/// Divides `survey`'s answers by these participant attributes, each value a segment; why
/// not, if they cannot be (an anonymous survey, an attribute nobody was given or one with too
/// many values).
pub async fn set_segments(
    app: &App,
    survey: &Survey,
    picked: Vec<String>,
) -> Result<Result<(), String>, StoreError> {
    let mut definition = survey.definition();
    definition.segment_attributes = Some(picked);
    let amended = super::surveys::amend(app, survey, definition).await?;
    // Checked as every definition is (`checked::Pending`): the attributes must divide the
    // answers of this survey's participants into few enough segments.
    Ok(amended.map(|_| ()).map_err(|errors| {
        let said: Vec<String> = errors.into_values().collect();
        said.join("; ")
    }))
}
