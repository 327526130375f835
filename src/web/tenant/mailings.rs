//! A survey's mailings in the tenant site: where its participants stand (a chart of the
//! totals), the invitation and reminder templates in each of its languages with a preview,
//! and the buttons that send them, with each mailing's progress. The rules are
//! `service::mailings`'; workers send.

use crate::web::tenant::survey_form::OwnSurvey;
use crate::web::tenant::survey_form::SurveyForm;
use std::sync::Arc;

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, web};
use askama::Template as Page;
use serde::Deserialize;

use super::charts::{BarChart, response_rate, standing};
use super::notice;
use super::participants::capitalised;
use super::session::SignedIn;
use crate::domain::Survey;
use crate::domain::language::LanguageTag;
use crate::domain::mailing::{
    MAX_BODY, MAX_SUBJECT, Mailing, MailingKind, MailingState, Template, Values,
};
use crate::domain::markdown;
use crate::domain::member::Role;
use crate::service::mailings as service;
use crate::service::participants::Totals;
use crate::web::forms::field;
use crate::web::roles::Editor;
use crate::web::{AppState, Reply, State, WebError, render_with_status};

/// A template as the editor shows it: as saved (or built in), or as typed with its problem.
struct TemplateEditor {
    kind: MailingKind,
    heading: &'static str,
    subject: String,
    body: String,
    problem: Option<String>,
    /// The preview asked for: the subject and the message's HTML (sanitised).
    preview: Option<(String, String)>,
}

/// One mailing as a row.
struct Row {
    kind: &'static str,
    started: String,
    by: String,
    sending: bool,
    sent: u64,
    bounced: u64,
    deferred: u64,
    pass: u32,
}

#[derive(Page)]
#[template(path = "tenant/mailings.html")]
struct MailingsPage {
    csrf: String,
    role: Role,
    survey: Arc<Survey>,
    notice: Option<String>,
    /// Whether email is set up (else nothing can be sent).
    mail: bool,
    totals: Totals,
    chart: BarChart,
    /// Finished of invited, in percent.
    response_rate: Option<u64>,
    rows: Vec<Row>,
    sending: bool,
    /// The language the templates are shown in, and the survey's languages.
    language: String,
    languages: Vec<(String, String)>,
    editors: Vec<TemplateEditor>,
    max_subject: usize,
    max_body: usize,
}

impl MailingsPage {
    fn address(&self) -> String {
        address(&self.survey)
    }
}

fn address(survey: &Survey) -> String {
    format!("/tenant/surveys/{}/mailings", survey.slug)
}

fn row(mailing: Mailing) -> Row {
    Row {
        kind: match mailing.kind {
            MailingKind::Invitation => "Invitation",
            MailingKind::Reminder => "Reminder",
        },
        started: mailing
            .started
            .format(&time::macros::format_description!(
                "[year]-[month]-[day] [hour]:[minute] UTC"
            ))
            .unwrap_or_default(),
        by: mailing.started_by,
        sending: mailing.state == MailingState::Sending,
        sent: mailing.sent,
        bounced: mailing.bounced,
        deferred: mailing.deferred,
        pass: mailing.pass,
    }
}

/// `?language=`: the templates' language (by default the survey's first).
#[derive(Deserialize, Default)]
pub struct LanguageQuery {
    language: Option<String>,
}

/// The language asked for, if it is one of the survey's, else its default.
fn language_of(survey: &Survey, asked: Option<&str>) -> LanguageTag {
    let offered = survey.offered_languages();
    asked
        .and_then(|asked| offered.iter().find(|tag| tag.as_str() == asked))
        .unwrap_or(&offered[0])
        .clone()
}

async fn page(
    state: &AppState,
    signed_in: &SignedIn,
    survey: Arc<Survey>,
    language: LanguageTag,
) -> Result<MailingsPage, WebError> {
    let totals = crate::service::participants::totals(&state.app, &survey).await?;
    let mailings = service::list(&state.app, &survey).await?;
    let templates = service::templates(&state.app, &survey).await?;
    let default = &survey.offered_languages()[0];
    let editors = MailingKind::ALL
        .into_iter()
        .map(|kind| {
            let template = templates.for_language(kind, Some(&language), default);
            TemplateEditor {
                kind,
                heading: match kind {
                    MailingKind::Invitation => "The invitation",
                    MailingKind::Reminder => "The reminder",
                },
                subject: template.subject,
                body: template.body,
                problem: None,
                preview: None,
            }
        })
        .collect();
    let rows: Vec<Row> = mailings.into_iter().map(row).collect();
    Ok(MailingsPage {
        csrf: signed_in.session.csrf.clone(),
        role: signed_in.role,
        notice: None,
        mail: state.mail_links().is_some(),
        chart: standing(&totals),
        response_rate: response_rate(&totals),
        totals,
        sending: rows.iter().any(|row| row.sending),
        rows,
        language: language.to_string(),
        languages: super::language_choices(&survey),
        editors,
        max_subject: MAX_SUBJECT,
        max_body: MAX_BODY,
        survey,
    })
}

/// `GET /tenant/surveys/{slug}/mailings?language=`
pub async fn show(
    state: State,
    OwnSurvey { signed_in, survey }: OwnSurvey<Editor>,
    request: HttpRequest,
    query: web::Query<LanguageQuery>,
) -> Reply {
    let language = language_of(&survey, query.language.as_deref());
    let mut shown = page(&state, &signed_in, survey, language).await?;
    shown.notice = notice::take(&request, &state);
    notice::render_once(&shown, shown.notice.is_some())
}

/// What a sample letter is addressed to in a preview: the first participant, or a made-up
/// one.
async fn sample(state: &AppState, survey: &Survey) -> Result<Values, WebError> {
    let first = crate::service::participants::page(&state.app, survey, None, None, 1).await?;
    let url = format!(
        "{}/s/{}/{}",
        state
            .settings
            .public_url
            .as_deref()
            .unwrap_or("http://localhost:8080"),
        survey.tenant,
        survey.slug
    );
    Ok(match first.participants.first() {
        Some(participant) => Values::of(
            participant,
            &survey.title,
            crate::links::personal(&url, &participant.link),
        ),
        None => Values {
            first_name: "Ada".into(),
            last_name: "Lovelace".into(),
            email: "ada@example.com".into(),
            survey: survey.title.clone(),
            link: crate::links::personal(&url, "…"),
        },
    })
}

/// The kind of mailing a form names.
fn kind_of(form: &[(String, String)]) -> Result<MailingKind, WebError> {
    field(form, "kind")
        .and_then(MailingKind::parse)
        .ok_or_else(|| WebError::BadRequest("kind is invitation or reminder".into()))
}

/// `POST /tenant/surveys/{slug}/mailings/template`: saves a template, or previews it as
/// typed (`do=preview`).
pub async fn save_template(state: State, posted: SurveyForm<Editor>) -> Reply {
    let (signed_in, survey, form) = posted.parts();
    let kind = kind_of(&form)?;
    let language = language_of(&survey, field(&form, "language"));
    let subject = field(&form, "subject").unwrap_or_default().to_owned();
    let body = field(&form, "body").unwrap_or_default().to_owned();
    let previewing = field(&form, "do") == Some("preview");
    let checked = match previewing {
        true => Template::check(&subject, &body),
        false => {
            service::save_template(&state.app, &survey, kind, &language, (&subject, &body)).await?
        }
    };
    let saved = checked.is_ok() && !previewing;
    if saved {
        let there = format!("{}?language={language}", address(&survey));
        return Ok(notice::redirect(&state, &there, "The template was saved."));
    }
    let values = sample(&state, &survey).await?;
    let mut shown = page(&state, &signed_in, survey, language).await?;
    let status = match &checked {
        Ok(_) => StatusCode::OK,
        Err(_) => StatusCode::UNPROCESSABLE_ENTITY,
    };
    if let Some(editor) = shown.editors.iter_mut().find(|editor| editor.kind == kind) {
        editor.subject = subject;
        editor.body = body;
        match checked {
            Ok(template) => {
                let filled = template.fill(&values);
                editor.preview = Some((filled.subject, markdown::to_html(&filled.markdown)));
            }
            Err(problem) => editor.problem = Some(capitalised(&problem.to_string())),
        }
    }
    render_with_status(status, &shown)
}

/// `POST /tenant/surveys/{slug}/mailings/send`: starts a mailing of `kind`.
pub async fn send(state: State, posted: SurveyForm<Editor>) -> Reply {
    let (signed_in, survey, form) = posted.parts();
    let kind = kind_of(&form)?;
    let mail = state.mail_links().is_some();
    let said = match service::start(&state.app, signed_in.actor(), &survey, kind, mail).await? {
        Ok(_) => match kind {
            MailingKind::Invitation => {
                "The invitations are being sent: this page shows how far they got.".to_owned()
            }
            MailingKind::Reminder => {
                "The reminders are being sent: this page shows how far they got.".to_owned()
            }
        },
        Err(refusal) => capitalised(&refusal.to_string()),
    };
    Ok(notice::redirect(&state, &address(&survey), &said))
}
