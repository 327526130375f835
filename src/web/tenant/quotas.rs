//! A survey's quotas in the tenant site: each with its places taken, and a form to change it
//! (its name, its limit, the answers it is for as ticked options of the survey's choice
//! questions, its message, what happens once it is full) or remove it; and a form to add one.
//! The rules are the API's (`service::surveys::set_quotas`).

use crate::web::tenant::survey_form::OwnSurvey;
use crate::web::tenant::survey_form::SurveyForm;
use std::collections::BTreeMap;
use std::sync::Arc;

use actix_web::HttpRequest;
use actix_web::http::StatusCode;
use askama::Template;

use super::notice;
use super::session::SignedIn;
use crate::domain::Survey;
use crate::domain::definition::quota::QuotaInput;
use crate::domain::logic::{Condition, Rule, Test};
use crate::domain::member::Role;
use crate::domain::quota::{Quota, WhenFull};
use crate::service::surveys as service;
use crate::web::forms::field;
use crate::web::roles::Editor;
use crate::web::{AppState, Reply, State, WebError, render_with_status};

/// A choice question a quota can be for, with the answers it offers.
struct ChoiceQuestion {
    id: String,
    number: usize,
    text: String,
    options: Vec<String>,
}

/// One quota's form, as saved or as typed.
#[derive(Default)]
struct QuotaForm {
    /// Its id; empty for the "add" form.
    id: String,
    name: String,
    limit: String,
    message: String,
    /// Whether answers are kept (marked over it) once it is full.
    counts_over: bool,
    /// The ticked options, by question id.
    ticked: BTreeMap<String, Vec<String>>,
    /// A condition set through the API that ticks cannot show, in words: kept as it is.
    kept: Option<String>,
    /// Places taken, of its limit.
    placed: Option<(u32, u32)>,
    /// What is wrong, by field.
    errors: BTreeMap<String, String>,
}

impl QuotaForm {
    /// The form of a saved quota.
    fn of(quota: &Quota, placed: u32) -> Self {
        let ticked = ticks_of(&quota.when);
        Self {
            id: quota.id.to_string(),
            name: quota.name.clone(),
            limit: quota.limit.to_string(),
            message: quota.message.clone().unwrap_or_default(),
            counts_over: quota.full == WhenFull::Count,
            kept: ticked.is_none().then(|| quota.when.describe()),
            ticked: ticked.unwrap_or_default(),
            placed: Some((placed, quota.limit)),
            errors: BTreeMap::new(),
        }
    }

    /// Whether `option` of `question` is ticked.
    fn ticks(&self, question: &str, option: &str) -> bool {
        self.ticked
            .get(question)
            .is_some_and(|options| options.iter().any(|o| o == option))
    }

    fn error(&self, field: &str) -> Option<&String> {
        self.errors.get(field)
    }

    /// Where its fields' ids start (`quota-new`, `quota-tea`).
    fn anchor(&self) -> String {
        match self.id.is_empty() {
            true => "quota-new".into(),
            false => format!("quota-{}", self.id),
        }
    }
}

/// The options ticked for a condition the page can show: one question's options, or several
/// questions' together (`all`); `None` for any other condition.
fn ticks_of(when: &Condition) -> Option<BTreeMap<String, Vec<String>>> {
    let rules: Vec<&Condition> = match when {
        Condition::All { all } => all.iter().collect(),
        rule @ Condition::Rule(_) => vec![rule],
        Condition::Any { .. } | Condition::Hidden(_) | Condition::Expression(_) => return None,
    };
    let mut ticked = BTreeMap::new();
    for rule in rules {
        let Condition::Rule(Rule { question, test }) = rule else {
            return None;
        };
        let options = match test {
            Test::AnyOf(options) => options.clone(),
            Test::Equals(option) => vec![option.clone()],
            _ => return None,
        };
        if ticked.insert(question.to_string(), options).is_some() {
            return None;
        }
    }
    Some(ticked)
}

#[derive(Template)]
#[template(path = "tenant/quotas.html")]
struct QuotasPage {
    csrf: String,
    role: Role,
    survey: Arc<Survey>,
    choices: Vec<ChoiceQuestion>,
    quotas: Vec<QuotaForm>,
    adding: QuotaForm,
    /// A problem of the quotas as a whole (how many, where answered).
    problem: Option<String>,
    notice: Option<String>,
}

impl QuotasPage {
    /// Every form of the page: each quota's, then the one that adds a quota.
    fn forms(&self) -> Vec<&QuotaForm> {
        self.quotas.iter().chain([&self.adding]).collect()
    }
}

/// The page for `survey`, each quota with its places taken.
async fn page(
    state: &AppState,
    signed_in: &SignedIn,
    survey: Arc<Survey>,
) -> Result<QuotasPage, WebError> {
    let quotas = places(state, &survey)
        .await?
        .into_iter()
        .zip(&survey.quotas)
        .map(|(placed, quota)| QuotaForm::of(quota, placed))
        .collect();
    let choices = survey
        .questions
        .iter()
        .enumerate()
        .filter(|(_, q)| q.kind.can_segment())
        .map(|(at, q)| ChoiceQuestion {
            id: q.id.to_string(),
            number: at + 1,
            text: q.text.clone(),
            options: q.kind.segment_options(),
        })
        .collect();
    Ok(QuotasPage {
        csrf: signed_in.session.csrf.clone(),
        role: signed_in.role,
        choices,
        quotas,
        adding: QuotaForm {
            limit: "100".into(),
            ..QuotaForm::default()
        },
        problem: None,
        notice: None,
        survey,
    })
}

/// How many places each of the survey's quotas has taken, in its order.
pub(super) async fn places(state: &AppState, survey: &Survey) -> Result<Vec<u32>, WebError> {
    Ok(crate::service::quotas::places_taken(&state.app, survey).await?)
}

/// `GET /tenant/surveys/{slug}/quotas`
pub async fn show(
    state: State,
    OwnSurvey { signed_in, survey }: OwnSurvey<Editor>,
    request: HttpRequest,
) -> Reply {
    let mut shown = page(&state, &signed_in, survey).await?;
    shown.notice = notice::take(&request, &state);
    notice::render_once(&shown, shown.notice.is_some())
}

/// A saved quota as the API would send it back.
fn input_of(quota: &Quota) -> QuotaInput {
    QuotaInput {
        id: Some(quota.id.to_string()),
        name: quota.name.clone(),
        limit: u64::from(quota.limit),
        when: serde_json::to_value(&quota.when).unwrap_or_default(),
        message: quota.message.clone(),
        full: quota.full,
    }
}

/// The quota a posted form describes, with the condition its ticks make (or, for one set
/// through the API, the one it has).
fn posted(form: &[(String, String)], current: Option<&Quota>) -> (QuotaForm, QuotaInput) {
    let get = |name: &str| field(form, name).unwrap_or("").trim().to_owned();
    let mut ticked: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (name, value) in form {
        if let Some(question) = name.strip_prefix("a:") {
            ticked
                .entry(question.to_owned())
                .or_default()
                .push(value.clone());
        }
    }
    let kept = current.filter(|quota| ticks_of(&quota.when).is_none());
    let when = match kept {
        Some(quota) => serde_json::to_value(&quota.when).unwrap_or_default(),
        None => {
            let rules: Vec<serde_json::Value> = ticked
                .iter()
                .map(|(question, options)| serde_json::json!({"question": question, "any_of": options}))
                .collect();
            serde_json::json!({ "all": rules })
        }
    };
    let counts_over = get("full") == "count";
    let shown = QuotaForm {
        id: get("quota"),
        name: get("name"),
        limit: get("limit"),
        message: field(form, "message").unwrap_or("").replace("\r\n", "\n"),
        counts_over,
        kept: kept.map(|quota| quota.when.describe()),
        ticked,
        placed: None,
        errors: BTreeMap::new(),
    };
    let input = QuotaInput {
        id: current.map(|quota| quota.id.to_string()),
        name: shown.name.clone(),
        limit: shown.limit.parse().unwrap_or(0),
        when,
        message: Some(shown.message.clone()),
        full: if counts_over {
            WhenFull::Count
        } else {
            WhenFull::End
        },
    };
    (shown, input)
}

/// The confirmation asked before a quota (and its places) is removed.
#[derive(Template)]
#[template(path = "tenant/remove-quota.html")]
struct RemovePage {
    csrf: String,
    role: Role,
    survey: Arc<Survey>,
    id: String,
    name: String,
    placed: u32,
}

/// `POST /tenant/surveys/{slug}/quotas`: saves (`action=save`) or removes (`action=remove`,
/// asked first, then `confirm=yes`) the quota named by `quota` (empty: a new one).
pub async fn save(state: State, sent: SurveyForm<Editor>) -> Reply {
    let (signed_in, survey, form) = sent.parts();
    let named = field(&form, "quota").unwrap_or("").trim();
    let current = survey
        .quotas
        .iter()
        .find(|quota| quota.id.as_str() == named);
    if !named.is_empty() && current.is_none() {
        return Err(WebError::NotFound);
    }
    let remove = field(&form, "action") == Some("remove");
    if let (true, Some(quota), false) = (remove, current, field(&form, "confirm") == Some("yes")) {
        let placed = crate::service::quotas::placed(&state.app, &survey, &quota.id).await?;
        return render_with_status(
            StatusCode::OK,
            &RemovePage {
                csrf: signed_in.session.csrf.clone(),
                role: signed_in.role,
                id: quota.id.to_string(),
                name: quota.name.clone(),
                placed,
                survey: survey.clone(),
            },
        );
    }
    let (mut shown, input) = posted(&form, current);
    if let (true, Some(quota)) = (remove, current) {
        shown.name = quota.name.clone();
    }
    if !remove && shown.ticked.is_empty() && shown.kept.is_none() {
        let mut errors = BTreeMap::new();
        errors.insert(
            "when".into(),
            "Tick at least one answer the quota is for.".into(),
        );
        return refused(&state, &signed_in, survey, shown, errors).await;
    }
    let mut sent: Vec<QuotaInput> = survey
        .quotas
        .iter()
        .filter(|quota| Some(*quota) != current)
        .map(input_of)
        .collect();
    let at = match current {
        Some(quota) => survey.quotas.iter().position(|q| q == quota).unwrap_or(0),
        None => sent.len(),
    };
    if !remove {
        sent.insert(at.min(sent.len()), input);
    }
    let saved = match service::set_quotas(&state.app, &survey, sent).await? {
        Ok(saved) => saved,
        Err(errors) => {
            // This quota's problems, by field (`quotas[N].name` → `name`).
            let prefix = format!("quotas[{at}].");
            let errors = errors
                .into_iter()
                .map(|(key, problem)| match key.strip_prefix(&prefix) {
                    Some(field) => (field.to_owned(), problem),
                    None => ("quotas".to_owned(), problem),
                })
                .collect();
            return refused(&state, &signed_in, survey, shown, errors).await;
        }
    };
    let said = match (remove, current) {
        (true, _) => format!(
            "Quota \u{201c}{}\u{201d} removed, with its places.",
            shown.name
        ),
        (false, Some(_)) => format!("Quota \u{201c}{}\u{201d} saved.", shown.name),
        (false, None) => format!("Quota \u{201c}{}\u{201d} added.", shown.name),
    };
    Ok(notice::redirect(
        &state,
        &format!("/tenant/surveys/{}/quotas", saved.slug),
        &said,
    ))
}

/// The page again with the quota as typed and what is wrong with it (422).
async fn refused(
    state: &AppState,
    signed_in: &SignedIn,
    survey: Arc<Survey>,
    mut shown: QuotaForm,
    errors: BTreeMap<String, String>,
) -> Reply {
    let mut page = page(state, signed_in, survey).await?;
    page.problem = errors.get("quotas").cloned();
    shown.errors = errors;
    match page
        .quotas
        .iter_mut()
        .find(|form| form.id == shown.id && !shown.id.is_empty())
    {
        Some(form) => {
            shown.placed = form.placed;
            *form = shown;
        }
        None => page.adding = shown,
    }
    render_with_status(StatusCode::UNPROCESSABLE_ENTITY, &page)
}
