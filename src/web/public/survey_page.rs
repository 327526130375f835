//! A page of a survey form as respondents (or an owner previewing it) see it, and where a
//! posted page leads: Back, the same page in another language, the page again with what is
//! wrong, the next page, or the whole response checked from the first page.

use std::collections::HashSet;
use std::sync::Arc;

use actix_web::http::StatusCode;
use askama::Template;

use super::form::{self, QuestionView};
use super::language::{language_query, switcher};
use crate::domain::order::Draw;
use crate::domain::participant::Participant;
use crate::domain::upload::{FileAnswer, FileKind};
use crate::domain::walk::Walk;
use crate::domain::{
    FieldErrors, Question, QuestionId, QuestionKind, RawAnswers, Reference, Survey, Target, Tenant,
    recall,
};
use crate::domain::{looping, markdown};
use crate::i18n::Words;
use crate::web::{AppState, Reply};

/// Where a survey form posts and what it carries besides the answers: the respondent's
/// signed token, or, in an owner's preview, the session's CSRF token.
pub(crate) struct FormContext {
    /// The submission token (`preview` in a preview, which stores nothing).
    pub(crate) token: String,
    /// The URL the form posts to.
    pub(crate) action: String,
    /// In a preview, the CSRF token of the owner's session.
    pub(crate) preview_csrf: Option<String>,
    /// The site's words in the respondent's language.
    pub(crate) words: Words,
    /// The resume link the form was opened from or saved under.
    pub(crate) resume: Option<String>,
    /// The participant answering it through their personal link.
    pub(crate) participant: Option<Participant>,
    /// The largest file the operator lets respondents upload.
    pub(crate) upload_max: u64,
}

/// A page of a survey form, as respondents (or an owner previewing it) see it.
#[derive(Template)]
#[template(path = "public/survey.html")]
pub(crate) struct SurveyPage {
    tenant: Arc<Tenant>,
    survey: Arc<Survey>,
    token: String,
    action: String,
    preview_csrf: Option<String>,
    /// The survey's title in the page's language.
    title: String,
    /// The page shown, from 0, and how many the survey has.
    page: usize,
    pages: usize,
    page_title: Option<String>,
    page_description: Option<String>,
    /// The survey's introduction (first page only), as safe HTML.
    intro: Option<String>,
    questions: Vec<QuestionView>,
    /// Answers to questions of other pages, carried in hidden fields: `(field, value)`.
    carried: Vec<(String, String)>,
    /// Whether a Back button is offered.
    back: bool,
    /// Whether the main button sends the answers (else it is Next).
    last: bool,
    error_count: usize,
    /// Whether the page's script is needed (a question under a condition on this page).
    scripted: bool,
    words: Words,
    /// The survey's languages to switch to: tag, name, whether it is this page's.
    languages: Vec<(String, String, bool)>,
    /// Where the switcher's buttons post (the form's address, without its language).
    switch_action: String,
    /// Whether "Save and continue later" is offered.
    saves: bool,
    /// Whether the page has a file question (its form is then posted as multipart).
    multipart: bool,
    /// The resume link the form was opened from or saved under.
    resume: Option<String>,
    /// The personal link of the participant answering it.
    participant: Option<String>,
    /// The hidden fields' values the address gave, carried from page to page.
    hidden: Vec<(String, String)>,
}

impl SurveyPage {
    /// The page shown, from 0.
    pub(crate) fn page(&self) -> usize {
        self.page
    }

    /// The first page, blank: what a respondent (or a previewing owner) sees first.
    pub(crate) fn first(tenant: Arc<Tenant>, survey: Arc<Survey>, form: &FormContext) -> Self {
        Self::new(
            tenant,
            survey,
            form,
            0,
            &RawAnswers::default(),
            &FieldErrors::new(),
        )
    }

    /// Page `page` of the survey, showing what `posted` holds and `errors`.
    pub(crate) fn new(
        tenant: Arc<Tenant>,
        survey: Arc<Survey>,
        form: &FormContext,
        page: usize,
        posted: &RawAnswers,
        errors: &FieldErrors,
    ) -> Self {
        let walk = survey.walk(posted, Some(page));
        Self::walked(tenant, survey, form, (page, &walk), posted, errors)
    }

    /// Page `page` of the survey as `new` shows it, from `walk`: the walk of `posted`
    /// through that page (`Survey::walk`), which the caller has made already.
    fn walked(
        tenant: Arc<Tenant>,
        survey: Arc<Survey>,
        form: &FormContext,
        (page, walk): (usize, &Walk),
        posted: &RawAnswers,
        errors: &FieldErrors,
    ) -> Self {
        let language = form.words.lang();
        let translated = |key: std::fmt::Arguments<'_>, default: &str| {
            survey.text_in(language, key, default).to_owned()
        };
        // Earlier answers recalled in question texts: only those the walk kept, which are
        // answers to questions the respondent was shown.
        // Variables recalled are computed from those same answers.
        let variables = match survey.variables.is_empty() {
            true => Default::default(),
            false => survey.scope(&walk.values, posted.hidden()).1,
        };
        // On a loop's page, `{{loop}}` shows its item.
        let item = survey.loop_label(page, language);
        let recall = |text: &str| -> String {
            let theirs = |name: &str| form.participant.as_ref()?.recalled(name).map(str::to_owned);
            recall::render_all(
                &looping::with_item(text, item.as_deref()),
                |id| {
                    let value = walk.values.get(id)?;
                    Some(super::words::recalled(&form.words, &survey, id, value))
                },
                theirs,
                posted.hidden(),
                |name| variables.get(name).map(crate::domain::expression::shown),
            )
            .into_owned()
        };
        let steps = survey.steps();
        let layout = steps.get(page).cloned().unwrap_or_default();
        // A step's texts are its page's, translated by the page's keys.
        let text_page = survey.page_of_step(page);
        let on_page = survey.step_questions(page);
        let here: HashSet<&QuestionId> = on_page.iter().map(|q| &q.id).collect();
        let name_of = |id: &QuestionId| {
            survey.question(id).map_or_else(
                || format!("\"{id}\""),
                |q| {
                    let text = recall(&translated(format_args!("q:{id}:text"), &q.text));
                    form.words.s("condition-your-answer", "question", &text)
                },
            )
        };
        // An option tested, as the page names it; other values as they are.
        let value_of = |id: &QuestionId, tested: &str| {
            let options = survey.question(id).map_or(&[][..], |q| q.kind.options());
            match options.iter().position(|option| option == tested) {
                Some(at) => recall(&translated(format_args!("q:{id}:option:{at}"), tested)),
                None => tested.to_owned(),
            }
        };
        // Numbers run on over the pages the respondent was shown before this one.
        let numbered_before: usize = walk
            .route
            .iter()
            .filter(|&&p| p != page)
            .flat_map(|&p| survey.step_questions(p))
            .filter(|q| !walk.skipped.contains(&q.id))
            .count();
        // Drawn orders (a page's questions, a question's options) come from the form's token.
        let draw = std::cell::OnceCell::new();
        let draw = || draw.get_or_init(|| Draw::of_token(&form.token)).clone();
        let on_page: Vec<&Question> = match survey.draws_orders() {
            false => on_page.iter().collect(),
            true => match survey.question_order(page, &draw()) {
                Some(order) => order.iter().map(|&i| &on_page[i]).collect(),
                None => on_page.iter().collect(),
            },
        };
        let mut questions = Vec::new();
        for question in on_page {
            let same_page = question
                .show_if
                .as_ref()
                .filter(|c| c.rules().iter().any(|rule| here.contains(&rule.question)));
            let shown = match (&question.show_if, same_page) {
                (None, _) => true,
                // Decided by this page's answers: always in the page, the script hides it.
                (Some(_), Some(_)) => true,
                // Decided by earlier pages' answers: shown or not at all.
                (Some(condition), None) => condition.holds(&walk.values, posted.hidden()),
            };
            if !shown {
                continue;
            }
            let number = numbered_before + questions.len() + 1;
            let mut view = QuestionView::new(
                &form.words,
                &survey.translations,
                &recall,
                number,
                question,
                posted,
                errors,
            );
            if question.randomize_options
                && let Some(order) = Survey::option_order(question, &draw())
            {
                let mut drawn: Vec<Option<form::ChoiceView>> = std::mem::take(&mut view.choices)
                    .into_iter()
                    .map(Some)
                    .collect();
                view.choices = order
                    .iter()
                    .filter_map(|&at| drawn.get_mut(at)?.take())
                    .collect();
            }
            if let QuestionKind::File { accept, max_bytes } = &question.kind {
                file_view(
                    &mut view,
                    &form.words,
                    accept,
                    (*max_bytes).min(form.upload_max),
                );
            }
            if let Some(condition) = same_page {
                view.show_if = serde_json::to_string(condition).ok();
                view.hint = Some(super::words::condition_hint(
                    &form.words,
                    condition,
                    &name_of,
                    &value_of,
                ));
                // The browser must not insist on a question that may not apply.
                view.required = false;
            }
            questions.push(view);
        }
        // Fields of questions on other pages (`q-ID`, and `q-ID.other` beside "Other").
        let carried = posted
            .iter()
            .filter(|(name, _)| {
                let id = QuestionId::parse(name.split('.').next().unwrap_or_default());
                id.is_some_and(|id| survey.question(&id).is_some() && !here.contains(&id))
            })
            .flat_map(|(name, values)| {
                values.iter().map(move |value| {
                    (
                        format!("{}{name}", form::ANSWER_FIELD_PREFIX),
                        value.clone(),
                    )
                })
            })
            .collect();
        let reached = walk.route.last() == Some(&page);
        Self {
            pages: steps.len(),
            page_title: layout.title.as_deref().map(|text| {
                let text = translated(format_args!("page:{text_page}:title"), text);
                looping::with_item(&text, item.as_deref()).into_owned()
            }),
            page_description: layout.description.as_deref().map(|text| {
                let text = translated(format_args!("page:{text_page}:description"), text);
                looping::with_item(&text, item.as_deref()).into_owned()
            }),
            intro: survey
                .description
                .as_deref()
                .filter(|_| page == 0)
                .map(|text| markdown::to_html(&translated(format_args!("description"), text))),
            title: translated(format_args!("title"), &survey.title),
            // The script shows conditional questions, and the "Other" box's text only once
            // "Other" is picked.
            scripted: questions.iter().any(|q| q.show_if.is_some() || q.other),
            multipart: questions.iter().any(|q| q.kind == "file"),
            questions,
            carried,
            back: reached && walk.route.len() > 1,
            last: !reached || walk.next == Target::End,
            error_count: errors.len(),
            languages: switcher(&survey, &form.words),
            switch_action: form
                .action
                .split_once('?')
                .map_or(form.action.as_str(), |(path, _)| path)
                .to_owned(),
            saves: survey.offers_resume() && form.preview_csrf.is_none(),
            resume: form.resume.clone(),
            participant: form.participant.as_ref().map(|p| p.link.clone()),
            hidden: posted
                .hidden()
                .iter()
                .map(|(name, value)| (name.to_owned(), value.to_owned()))
                .collect(),
            tenant,
            survey,
            token: form.token.clone(),
            action: form.action.clone(),
            preview_csrf: form.preview_csrf.clone(),
            page,
            words: form.words.clone(),
        }
    }
}

/// A page of a survey form as the response to a request, with `status`. A survey that sends
/// respondents on to other sites lets its forms end there (the security policy's
/// `form-action`), since the last page's answer is redirected there.
pub(crate) fn respond(status: StatusCode, page: &SurveyPage) -> Reply {
    let mut response = crate::web::render_with_status(status, page)?;
    let origins = page.survey.redirects.origins();
    if !origins.is_empty() {
        let policy = crate::web::headers::form_ending_at(&origins);
        if let Ok(value) = actix_web::http::header::HeaderValue::from_str(&policy) {
            response
                .headers_mut()
                .insert(actix_web::http::header::CONTENT_SECURITY_POLICY, value);
        }
    }
    Ok(response)
}

/// Where a posted page of a survey leads.
pub(crate) enum Step {
    /// The same page again or an earlier one (Back, another language, what is wrong), with
    /// its status.
    Page(StatusCode, Box<SurveyPage>),
    /// The next page on the respondent's route, every page so far answered validly; with the
    /// walk through the page posted when the survey keeps answers so far (its quotas, its
    /// partial responses).
    Next(Box<SurveyPage>, Option<Walk>),
    /// The end of the respondent's route, every page checked: the whole response.
    Done(crate::domain::walk::Walk),
}

/// Reads a posted page: Back goes to the page before on the respondent's route (input kept,
/// nothing checked); otherwise the route so far is checked from the first page, and a wrong
/// answer shows its page again (422), else the next page follows (`Next`), or, past the last,
/// `Done`.
pub(crate) fn step(
    tenant: &Arc<Tenant>,
    survey: &Arc<Survey>,
    form: &FormContext,
    posted: &form::PostedForm,
) -> Step {
    let walk = survey.walk(&posted.answers, Some(posted.page));
    // A page from its walk: the one through the posted page, or that walk gone on.
    let page_of = |(page, walk): (usize, &Walk), errors: &FieldErrors| {
        let answers = &posted.answers;
        let (tenant, survey) = (tenant.clone(), survey.clone());
        Box::new(SurveyPage::walked(
            tenant,
            survey,
            form,
            (page, walk),
            answers,
            errors,
        ))
    };
    let show_walked = |status: StatusCode, at: (usize, &Walk), errors: &FieldErrors| {
        Step::Page(status, page_of(at, errors))
    };
    let show = |status: StatusCode, page: usize, errors: &FieldErrors| {
        let walk = survey.walk(&posted.answers, Some(page));
        show_walked(status, (page, &walk), errors)
    };
    let reached = walk.route.last() == Some(&posted.page);
    // The same page in another language: answers kept, nothing checked yet.
    if posted.stay && reached {
        return show_walked(StatusCode::OK, (posted.page, &walk), &FieldErrors::new());
    }
    if posted.back || !reached {
        // A page that is not on the respondent's route (answers changed under it, or a forged
        // page number) goes back to the last page before it that is.
        let previous = match (posted.back, reached) {
            (true, true) => walk.route.iter().rev().nth(1).copied().unwrap_or(0),
            _ => walk
                .route
                .iter()
                .copied()
                .rfind(|&p| p < posted.page)
                .unwrap_or(0),
        };
        return show(StatusCode::OK, previous, &FieldErrors::new());
    }
    if let Some(page) = walk.first_page_with_errors(survey) {
        let status = StatusCode::UNPROCESSABLE_ENTITY;
        return match page == posted.page {
            true => show_walked(status, (page, &walk), &walk.errors),
            false => show(status, page, &walk.errors),
        };
    }
    if let Target::Page(next) = walk.next {
        let so_far = (!survey.quotas.is_empty() || survey.keep_partial).then(|| walk.clone());
        // The next page's walk goes on from this one: the pages before are checked already.
        let walk = survey.walk_on(&posted.answers, walk, Some(next));
        return Step::Next(page_of((next, &walk), &FieldErrors::new()), so_far);
    }
    // This walk went through every page shown, so it is the whole response, checked again
    // from the first page (earlier pages' answers came back in hidden fields, which a
    // respondent could have changed).
    Step::Done(walk)
}

/// A file question's view: what its file picker offers, its limit in words, and the file
/// uploaded already (carried in `value`), if any.
fn file_view(view: &mut QuestionView, words: &Words, accept: &[FileKind], limit: u64) {
    use fluent_templates::fluent_bundle::FluentValue;
    view.accept = accept
        .iter()
        .map(|kind| kind.accept())
        .collect::<Vec<_>>()
        .join(",");
    let kinds = super::words::file_kinds(words, accept);
    let limit = super::words::megabytes(words, limit);
    view.file_limit = words.with(
        "form-file-limit",
        &[
            ("kinds", FluentValue::from(kinds)),
            ("limit", FluentValue::from(limit)),
        ],
    );
    view.file_line = FileAnswer::from_field(&view.value).map(|file| {
        let size = super::words::megabytes(words, file.bytes);
        words.with(
            "form-file-uploaded",
            &[
                ("name", FluentValue::from(file.name)),
                ("size", FluentValue::from(size)),
            ],
        )
    });
}

/// The survey as the respondent of form `token` who posted `raw` sees it: its block of pages in
/// the order drawn for them, if it draws one (see `arrangement`), and its loops' pages once per
/// item of their answers (see `looping`).
pub(super) fn for_respondent(survey: Arc<Survey>, token: &str, raw: &RawAnswers) -> Arc<Survey> {
    let survey = match survey.arranged(&Draw::of_token(token)) {
        Some(arranged) => Arc::new(arranged),
        None => survey,
    };
    as_answered(survey, raw)
}

/// The survey with its loops' pages once per item of the answers `raw` holds (itself, if it
/// has no loops).
pub(crate) fn as_answered(survey: Arc<Survey>, raw: &RawAnswers) -> Arc<Survey> {
    match survey.unrolled(raw) {
        Some(unrolled) => Arc::new(unrolled),
        None => survey,
    }
}

/// A survey's first page with a fresh signed token (counted as opened), answered in `words`'
/// language, by `participant` (through their personal link) when given.
pub(super) async fn fresh_form(
    state: &AppState,
    (tenant, survey): (Arc<Tenant>, Arc<Survey>),
    words: Words,
    (participant, pinned): (Option<Participant>, Option<Reference>),
    seed: &RawAnswers,
) -> Reply {
    let filed = survey.survey_ref();
    state.funnel.opened(&filed);
    // A personal link whose answer is being sent (or was cut off) is that answer's form.
    let token = crate::service::answering::new_token(&state.app, &survey, pinned).await?;
    let survey = for_respondent(survey, &token, seed);
    let form = FormContext {
        action: format!(
            "/s/{}/{}{}",
            tenant.slug,
            survey.slug,
            language_query(&survey, &words, '?')
        ),
        token,
        preview_csrf: None,
        words,
        resume: None,
        participant,
        upload_max: state.uploads.max_bytes,
    };
    let errors = FieldErrors::new();
    respond(
        StatusCode::OK,
        &SurveyPage::new(tenant, survey, &form, 0, seed, &errors),
    )
}
