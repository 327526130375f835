//! A survey's participants in the tenant site: who may answer (anyone with the link, or only
//! participants through their personal links), the list (100 a page, searched by the start
//! of an address), one participant added or removed, and a CSV or XLSX list imported after a
//! preview. The rules are the API's (`service::participants`).

use crate::web::tenant::survey_form::OwnSurvey;
use crate::web::tenant::survey_form::{SurveyForm, SurveySheet};
use std::sync::Arc;

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use askama::Template;
use serde::Deserialize;

use super::notice;
use super::session::SignedIn;
use crate::domain::Survey;
use crate::domain::member::Role;
use crate::domain::participant::{
    Access, GivenParticipant, MAX_LISTED_PROBLEMS, Moment, Participant, ParticipantStatus,
    search_prefix,
};
use crate::export::{SheetFormat, text_sheet};
use crate::i18n::language_name;
use crate::service::participants::{self as service, Refusal};
use crate::web::download::attachment;
use crate::web::forms::field;
use crate::web::roles::Editor;
use crate::web::{AppState, Reply, State, WebError, render_with_status};

/// Largest participants sheet imported (100,000 rows of a few columns fit).
pub const MAX_SHEET_BYTES: usize = 20 * 1024 * 1024;
/// Participants a page.
const PER_PAGE: usize = 100;
/// Rows a preview shows.
const PREVIEWED: usize = 10;

/// One participant as a row of the list.
struct Row {
    id: String,
    email: String,
    name: String,
    language: String,
    status: &'static str,
    link: String,
}

/// A sheet checked and held, waiting for the owner to add it.
struct Preview {
    held: String,
    total: usize,
    columns: Vec<String>,
    rows: Vec<Vec<String>>,
}

#[derive(Template)]
#[template(path = "tenant/participants.html")]
struct ParticipantsPage {
    csrf: String,
    role: Role,
    survey: Arc<Survey>,
    invitation_only: bool,
    /// How many the survey has.
    total: usize,
    /// Where they stand, as bars, and answered of invited in percent.
    chart: super::charts::BarChart,
    response_rate: Option<u64>,
    rows: Vec<Row>,
    search: String,
    next: Option<String>,
    languages: Vec<(String, String)>,
    /// The one-participant form as typed, and its problem.
    typed: (String, String, String, String),
    add_problem: Option<String>,
    /// Whether its answers' anonymity may still change (no answer given yet).
    anonymity_open: bool,
    /// Why who may answer was not changed.
    access_problem: Option<String>,
    import_problems: Vec<String>,
    preview: Option<Preview>,
    notice: Option<String>,
    /// The attributes answers may be divided by.
    segment_choices: Vec<SegmentChoice>,
}

/// An attribute answers may be divided by.
struct SegmentChoice {
    name: String,
    /// Whether they are.
    picked: bool,
    /// Whether it takes too many values to be.
    varied: bool,
}

impl ParticipantsPage {
    fn address(&self) -> String {
        format!("/tenant/surveys/{}/participants", self.survey.slug)
    }
}

/// What the list shows of a status.
fn status_words(status: ParticipantStatus) -> &'static str {
    match status {
        ParticipantStatus::Added => "Not opened yet",
        ParticipantStatus::Invited => "Invited",
        ParticipantStatus::Started => "Opened, not answered",
        ParticipantStatus::Finished => "Answered",
        ParticipantStatus::OptedOut => "Opted out",
        ParticipantStatus::Bounced => "Bounced",
    }
}

fn row(participant: Participant, survey_url: &str) -> Row {
    let status = status_words(participant.status());
    let person = participant.person;
    let name = [person.first_name, person.last_name]
        .into_iter()
        .flatten()
        .collect::<Vec<_>>()
        .join(" ");
    Row {
        status,
        link: crate::links::personal(survey_url, &participant.link),
        id: participant.id,
        email: person.email.as_str().to_owned(),
        name,
        language: person
            .language
            .map(|tag| language_name(tag.as_str()))
            .unwrap_or_default(),
    }
}

/// `?search=&after=`: which page (by default, the first of everyone).
#[derive(Deserialize, Default)]
pub struct ListQuery {
    search: Option<String>,
    after: Option<String>,
}

/// The page of `survey`'s participants asked for.
async fn page(
    state: &AppState,
    request: &HttpRequest,
    signed_in: &SignedIn,
    survey: Arc<Survey>,
    query: &ListQuery,
) -> Result<ParticipantsPage, WebError> {
    // A search too long to match any address is no search.
    let typed = query.search.as_deref().unwrap_or_default();
    let search = search_prefix(typed).ok().flatten();
    let after = query.after.as_deref();
    let listed = service::page(&state.app, &survey, search.as_deref(), after, PER_PAGE).await?;
    let url = state.survey_url(request, &survey.tenant, &survey.slug);
    let totals = service::totals(&state.app, &survey).await?;
    let index = service::attributes(&state.app, &survey)
        .await?
        .unwrap_or_default();
    let segment_choices = index
        .names
        .iter()
        .map(|name| SegmentChoice {
            name: name.clone(),
            picked: survey.segment_attributes.contains(name),
            varied: index.too_varied(name),
        })
        .collect();
    Ok(ParticipantsPage {
        csrf: signed_in.session.csrf.clone(),
        role: signed_in.role,
        invitation_only: survey.access == Access::Invitation,
        total: totals.participants as usize,
        chart: super::charts::standing(&totals),
        response_rate: super::charts::response_rate(&totals),
        rows: listed
            .participants
            .into_iter()
            .map(|participant| row(participant, &url))
            .collect(),
        search: search.unwrap_or_default(),
        next: listed.next,
        languages: super::language_choices(&survey),
        typed: Default::default(),
        add_problem: None,
        anonymity_open: !crate::service::surveys::answers_given(&state.app, &survey).await?,
        access_problem: None,
        import_problems: Vec::new(),
        preview: None,
        notice: None,
        segment_choices,
        survey,
    })
}

/// `GET /tenant/surveys/{slug}/participants`
pub async fn show(
    state: State,
    OwnSurvey { signed_in, survey }: OwnSurvey<Editor>,
    request: HttpRequest,
    query: web::Query<ListQuery>,
) -> Reply {
    let mut shown = page(&state, &request, &signed_in, survey, &query).await?;
    shown.notice = notice::take(&request, &state);
    notice::render_once(&shown, shown.notice.is_some())
}

/// `POST /tenant/surveys/{slug}/participants`: adds one participant.
pub async fn add(state: State, posted: SurveyForm<Editor>, request: HttpRequest) -> Reply {
    let (signed_in, survey, form) = posted.parts();
    let value = |name| field(&form, name).unwrap_or_default().to_owned();
    let given = GivenParticipant {
        email: value("email"),
        first_name: Some(value("first_name")),
        last_name: Some(value("last_name")),
        language: Some(value("language")),
        attributes: Default::default(),
    };
    match service::add(&state.app, &survey, vec![(1, given)]).await? {
        Ok(added) => Ok(added_notice(&state, &survey, added.len())),
        Err(refusal) => {
            let first = ListQuery::default();
            let mut shown = page(&state, &request, &signed_in, survey, &first).await?;
            shown.typed = (
                value("email"),
                value("first_name"),
                value("last_name"),
                value("language"),
            );
            shown.add_problem = Some(one_line(refusal));
            render_with_status(StatusCode::UNPROCESSABLE_ENTITY, &shown)
        }
    }
}

/// A refusal of one participant, as a sentence or two beside the form.
fn one_line(refusal: Refusal) -> String {
    match refusal {
        Refusal::Rows(problems) => problems
            .into_iter()
            .map(|problem| capitalised(&problem.problem.to_string()))
            .collect::<Vec<_>>()
            .join(" "),
        other => capitalised(&other.to_string()),
    }
}

pub(super) fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => format!("{}{}.", first.to_uppercase(), chars.as_str()),
        None => String::new(),
    }
}

fn address(survey: &Survey) -> String {
    format!("/tenant/surveys/{}/participants", survey.slug)
}

/// Back to the list, saying how many were added.
fn added_notice(state: &AppState, survey: &Survey, count: usize) -> HttpResponse {
    let text = match count {
        1 => "Added one participant.".to_owned(),
        n => format!("Added {n} participants."),
    };
    notice::redirect(state, &address(survey), &text)
}

/// `POST /tenant/surveys/{slug}/participants/import`: checks an uploaded sheet and, when
/// every row is good, holds it and shows a preview with a button to add them all.
pub async fn import(
    state: State,
    request: HttpRequest,
    posted: SurveySheet<Editor, MAX_SHEET_BYTES>,
) -> Reply {
    let SurveySheet {
        signed_in,
        survey,
        sent,
    } = posted;
    let first = ListQuery::default();
    let mut shown = page(&state, &request, &signed_in, survey.clone(), &first).await?;
    let bytes = match sent.import_file() {
        Ok(bytes) => bytes,
        Err(problem) => {
            shown.import_problems = vec![problem];
            return render_with_status(StatusCode::UNPROCESSABLE_ENTITY, &shown);
        }
    };
    match service::check_sheet(&state.app, &survey, bytes).await? {
        Err(refusal) => {
            shown.import_problems = problems_of(refusal);
            render_with_status(StatusCode::UNPROCESSABLE_ENTITY, &shown)
        }
        Ok(given) => {
            let held = service::hold_sheet(&state.app, &survey, bytes.clone()).await?;
            let mut columns = vec!["Email".to_owned(), "Name".into(), "Language".into()];
            let attributes: Vec<String> = given
                .iter()
                .flat_map(|(_, one)| one.attributes.keys().cloned())
                .collect::<std::collections::BTreeSet<_>>()
                .into_iter()
                .collect();
            columns.extend(attributes.iter().cloned());
            let rows = given
                .iter()
                .take(PREVIEWED)
                .map(|(_, one)| {
                    let name = [&one.first_name, &one.last_name]
                        .into_iter()
                        .flatten()
                        .map(|s| s.trim())
                        .filter(|s| !s.is_empty())
                        .collect::<Vec<_>>()
                        .join(" ");
                    let mut cells = vec![
                        one.email.trim().to_lowercase(),
                        name,
                        one.language.clone().unwrap_or_default(),
                    ];
                    cells.extend(
                        attributes
                            .iter()
                            .map(|a| one.attributes.get(a).cloned().unwrap_or_default()),
                    );
                    cells
                })
                .collect();
            shown.preview = Some(Preview {
                held,
                total: given.len(),
                columns,
                rows,
            });
            render_with_status(StatusCode::OK, &shown)
        }
    }
}

/// A refusal as the lines the page lists.
fn problems_of(refusal: Refusal) -> Vec<String> {
    match refusal {
        Refusal::Rows(problems) => {
            let mut said: Vec<String> = problems
                .iter()
                .take(MAX_LISTED_PROBLEMS)
                .map(|problem| capitalised(&problem.to_string()))
                .collect();
            if problems.len() > MAX_LISTED_PROBLEMS {
                said.push(format!(
                    "And {} more rows.",
                    problems.len() - MAX_LISTED_PROBLEMS
                ));
            }
            said.insert(0, "Nothing was imported: every row must be right.".into());
            said
        }
        other => vec![format!("Nothing was imported: {other}.")],
    }
}

/// `POST /tenant/surveys/{slug}/participants/import/{held}`: adds a previewed sheet's
/// participants, all or none.
pub async fn confirm(
    state: State,
    posted: SurveyForm<Editor>,
    request: HttpRequest,
    path: web::Path<(String, String)>,
) -> Reply {
    let (signed_in, survey, _) = posted.parts();
    let (_, held) = path.into_inner();
    let Some(result) = service::add_held_sheet(&state.app, &survey, &held).await? else {
        return Err(WebError::Gone(
            "This import was added already or has expired: import the file again.".into(),
        ));
    };
    match result {
        Ok(added) => Ok(added_notice(&state, &survey, added.len())),
        Err(refusal) => {
            let first = ListQuery::default();
            let mut shown = page(&state, &request, &signed_in, survey, &first).await?;
            shown.import_problems = problems_of(refusal);
            render_with_status(StatusCode::UNPROCESSABLE_ENTITY, &shown)
        }
    }
}

/// `POST /tenant/surveys/{slug}/participants/{id}/remove`
pub async fn remove(
    state: State,
    posted: SurveyForm<Editor>,
    path: web::Path<(String, String)>,
) -> Reply {
    let (_, survey, _) = posted.parts();
    let (_, id) = path.into_inner();
    match service::remove(&state.app, &survey, &id).await? {
        true => Ok(notice::redirect(
            &state,
            &address(&survey),
            "Removed the participant: their link no longer works.",
        )),
        false => Err(WebError::NotFound),
    }
}

/// `POST /tenant/surveys/{slug}/participants/access`: who may answer.
pub async fn access(state: State, posted: SurveyForm<Editor>, request: HttpRequest) -> Reply {
    let (signed_in, survey, form) = posted.parts();
    let access = match field(&form, "access") {
        Some("invitation") => Access::Invitation,
        _ => Access::Open,
    };
    // Chosen until the first answer is given (the page then shows it, fixed).
    let open = !crate::service::surveys::answers_given(&state.app, &survey).await?;
    let anonymous = open.then(|| field(&form, "anonymous") == Some("yes"));
    let set = crate::service::surveys::set_access(&state.app, &survey, access, anonymous).await?;
    if let Err(errors) = set {
        let said: Vec<String> = errors.into_values().collect();
        let first = ListQuery::default();
        let mut shown = page(&state, &request, &signed_in, survey, &first).await?;
        shown.access_problem = Some(format!("Not saved: {}.", said.join("; ")));
        return render_with_status(StatusCode::UNPROCESSABLE_ENTITY, &shown);
    }
    let who = match access {
        Access::Invitation => {
            "Only participants may answer now, each once, through their personal link."
        }
        Access::Open => "Anyone with the survey's link may answer now.",
    };
    let text = match anonymous {
        Some(true) => format!("{who} Answers are anonymous."),
        Some(false) => format!("{who} Answers are not anonymous."),
        None => who.to_owned(),
    };
    Ok(notice::redirect(&state, &address(&survey), &text))
}

/// `POST /tenant/surveys/{slug}/participants/segments`: the attributes answers are divided
/// by, each value a segment.
pub async fn segments(state: State, posted: SurveyForm<Editor>) -> Reply {
    let (_, survey, form) = posted.parts();
    let picked: Vec<String> = form
        .iter()
        .filter(|(name, _)| name == "segment")
        .map(|(_, value)| value.clone())
        .collect();
    if let Err(problem) = service::set_segments(&state.app, &survey, picked.clone()).await? {
        let said = capitalised(&problem);
        return Ok(notice::redirect(
            &state,
            &address(&survey),
            &format!("{said}."),
        ));
    }
    let text = match picked.as_slice() {
        [] => "Answers are not divided by any attribute.".to_owned(),
        names => format!(
            "Each value of {} is a segment of the summary and the responses.",
            names.join(" and ")
        ),
    };
    Ok(notice::redirect(&state, &address(&survey), &text))
}

#[derive(Template)]
#[template(path = "tenant/participant.html")]
struct EditPage {
    csrf: String,
    role: Role,
    survey: Arc<Survey>,
    id: String,
    email: String,
    status: &'static str,
    link: String,
    /// The names and language, as saved or as typed.
    typed: (String, String, String),
    languages: Vec<(String, String)>,
    attributes: Vec<(String, String)>,
    /// What happened to them, in order: (when, what).
    history: Vec<(String, String)>,
    problem: Option<String>,
}

/// A participant's history, oldest first: added, invited, reminded, opened, answered, opted
/// out, bounced.
fn history(participant: &Participant) -> Vec<(String, String)> {
    let mail = &participant.mail;
    let reminded = match mail.reminded {
        0 => None,
        1 => Some("Reminded".to_owned()),
        n => Some(format!("Reminded {n} times (the last)")),
    };
    let mut events: Vec<(time::OffsetDateTime, String)> = [
        (Some(participant.added), Some("Added".to_owned())),
        (mail.invited, Some("Invited by email".to_owned())),
        (mail.last_reminded, reminded),
        (
            participant.started.and_then(Moment::at),
            Some("Opened their link".to_owned()),
        ),
        (
            participant.finished.and_then(Moment::at),
            Some("Answered".to_owned()),
        ),
        (mail.opted_out, Some("Asked for no more email".to_owned())),
        (
            mail.bounced,
            Some("Their mail server refused a message".to_owned()),
        ),
    ]
    .into_iter()
    .filter_map(|(at, what)| Some((at?, what?)))
    .collect();
    events.sort_by_key(|(at, _)| *at);
    let format = time::macros::format_description!("[year]-[month]-[day] [hour]:[minute] UTC");
    let mut history: Vec<(String, String)> = events
        .into_iter()
        .map(|(at, what)| (at.format(&format).unwrap_or_default(), what))
        .collect();
    // An anonymous survey keeps no time for these (see `Moment`): last, as what happened since.
    let untimed = [
        (participant.started, "Opened their link"),
        (participant.finished, "Answered"),
    ];
    for (moment, what) in untimed {
        if moment == Some(Moment::Untimed) {
            history.push(("Time not kept (anonymous)".to_owned(), what.to_owned()));
        }
    }
    history
}

/// The page that changes one participant, as `typed` when given.
async fn edit_page(
    state: &AppState,
    request: &HttpRequest,
    signed_in: &SignedIn,
    survey: Arc<Survey>,
    id: &str,
) -> Result<EditPage, WebError> {
    let participant = service::get(&state.app, &survey, id)
        .await?
        .ok_or(WebError::NotFound)?;
    let url = state.survey_url(request, &survey.tenant, &survey.slug);
    let person = &participant.person;
    Ok(EditPage {
        csrf: signed_in.session.csrf.clone(),
        role: signed_in.role,
        id: participant.id.clone(),
        email: person.email.as_str().to_owned(),
        status: status_words(participant.status()),
        link: crate::links::personal(&url, &participant.link),
        typed: (
            person.first_name.clone().unwrap_or_default(),
            person.last_name.clone().unwrap_or_default(),
            person
                .language
                .as_ref()
                .map(ToString::to_string)
                .unwrap_or_default(),
        ),
        languages: super::language_choices(&survey),
        attributes: person
            .attributes
            .iter()
            .map(|(name, value)| (name.clone(), value.clone()))
            .collect(),
        history: history(&participant),
        problem: None,
        survey,
    })
}

/// `GET /tenant/surveys/{slug}/participants/{id}`: one participant, to change.
pub async fn show_one(
    state: State,
    OwnSurvey { signed_in, survey }: OwnSurvey<Editor>,
    request: HttpRequest,
    path: web::Path<(String, String)>,
) -> Reply {
    let (_, id) = path.into_inner();
    render_with_status(
        StatusCode::OK,
        &edit_page(&state, &request, &signed_in, survey, &id).await?,
    )
}

/// `POST /tenant/surveys/{slug}/participants/{id}`: saves their names and language.
pub async fn edit(
    state: State,
    posted: SurveyForm<Editor>,
    request: HttpRequest,
    path: web::Path<(String, String)>,
) -> Reply {
    let (signed_in, survey, form) = posted.parts();
    let (_, id) = path.into_inner();
    let value = |name| field(&form, name).unwrap_or_default().to_owned();
    let typed = (value("first_name"), value("last_name"), value("language"));
    let names = (typed.0.clone(), typed.1.clone());
    match service::edit(&state.app, &survey, &id, names, typed.2.clone()).await? {
        Ok(true) => Ok(notice::redirect(
            &state,
            &address(&survey),
            "Saved the participant.",
        )),
        Ok(false) => Err(WebError::NotFound),
        Err(refusal) => {
            let mut shown = edit_page(&state, &request, &signed_in, survey, &id).await?;
            shown.typed = typed;
            shown.problem = Some(one_line(refusal));
            render_with_status(StatusCode::UNPROCESSABLE_ENTITY, &shown)
        }
    }
}

/// `GET /tenant/surveys/{slug}/participants.{csv,xlsx}`: every participant, a row each, in
/// email order: their address, names, language, status, when added and when they answered,
/// their personal link, and a column per attribute.
pub async fn download(
    state: State,
    OwnSurvey { survey, .. }: OwnSurvey<Editor>,
    request: HttpRequest,
    path: web::Path<(String, String)>,
) -> Reply {
    let (_, format) = path.into_inner();
    let format = match format.as_str() {
        "csv" => SheetFormat::Csv,
        "xlsx" => SheetFormat::Xlsx,
        _ => return Err(WebError::NotFound),
    };
    let url = state.survey_url(&request, &survey.tenant, &survey.slug);
    let everyone = service::everyone(&state.app, &survey).await?;
    let attributes: std::collections::BTreeSet<String> = everyone
        .iter()
        .flat_map(|p| p.person.attributes.keys().cloned())
        .collect();
    let when = |at: Option<time::OffsetDateTime>| {
        at.and_then(|at| {
            at.format(&time::format_description::well_known::Rfc3339)
                .ok()
        })
        .unwrap_or_default()
    };
    let mut rows = vec![
        [
            "email",
            "first_name",
            "last_name",
            "language",
            "status",
            "added",
            "answered",
            "invited",
            "reminded",
            "opted_out",
            "bounced",
            "link",
        ]
        .into_iter()
        .map(str::to_owned)
        .chain(attributes.iter().cloned())
        .collect::<Vec<_>>(),
    ];
    for participant in &everyone {
        let person = &participant.person;
        let mut row = vec![
            person.email.as_str().to_owned(),
            person.first_name.clone().unwrap_or_default(),
            person.last_name.clone().unwrap_or_default(),
            person
                .language
                .as_ref()
                .map(ToString::to_string)
                .unwrap_or_default(),
            status_words(participant.status()).to_owned(),
            when(Some(participant.added)),
            match participant.finished {
                Some(Moment::Untimed) => "yes".to_owned(),
                finished => when(finished.and_then(Moment::at)),
            },
            when(participant.mail.invited),
            participant.mail.reminded.to_string(),
            when(participant.mail.opted_out),
            when(participant.mail.bounced),
            crate::links::personal(&url, &participant.link),
        ];
        row.extend(
            attributes
                .iter()
                .map(|name| person.attributes.get(name).cloned().unwrap_or_default()),
        );
        rows.push(row);
    }
    let body = match format {
        SheetFormat::Csv => text_sheet::csv_bytes(&rows),
        SheetFormat::Xlsx => text_sheet::xlsx_bytes(&rows, "Participants")
            .map_err(|error| WebError::Internal(format!("writing the participants: {error}")))?,
    };
    let filename = format!("{}-participants.{}", survey.slug, format.extension());
    Ok(attachment(format, &filename).body(body))
}
