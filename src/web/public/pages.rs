//! The respondent's pages: a tenant's surveys, a survey form, its submission, the thank-you.

use std::collections::HashSet;
use std::sync::Arc;

use actix_web::http::StatusCode;
use actix_web::http::header::LOCATION;
use actix_web::{HttpRequest, HttpResponse, web};
use askama::Template;
use time::OffsetDateTime;

use super::form::{self, QuestionView};
use crate::domain::language::LanguageTag;
use crate::domain::region::{RegionName, Residency};
use crate::domain::{
    Answer, FieldErrors, QuestionId, RawAnswers, Reference, SubmissionToken, Survey, SurveySlug,
    SurveyState, Target, Tenant, TenantSlug, thanks_signature, thanks_signed,
};
use crate::i18n::Words;
use crate::stores::hosted::HostedTenant;
use crate::web::{AppState, WebError, markdown, render, render_with_status};

#[derive(Template)]
#[template(path = "public/tenant.html")]
struct TenantPage {
    tenant: Arc<Tenant>,
    /// Each survey with its introduction as safe HTML (owners write it in Markdown).
    surveys: Vec<(Arc<Survey>, Option<String>)>,
    page: usize,
    pages: usize,
    words: Words,
}

/// Surveys listed per page of a tenant's public list.
const SURVEYS_PER_PAGE: usize = 20;

/// The page of a list asked for.
#[derive(serde::Deserialize)]
pub struct PageQuery {
    page: Option<usize>,
}

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
}

/// A language asked for in a link (`?lang=de`).
#[derive(serde::Deserialize)]
struct LanguageQuery {
    lang: Option<String>,
}

/// The language of a survey's page for this request (`?lang=`, else the browser's
/// `Accept-Language`, else the survey's default) and the site's words in it.
pub(crate) fn words_for(request: &HttpRequest, survey: &Survey) -> Words {
    // One language (most surveys): nothing to read from the request.
    if let [] | [_] = survey.languages.as_slice() {
        return Words::for_tag(survey.languages.first().map_or("en", LanguageTag::as_str));
    }
    let offered: Vec<String> = survey
        .offered_languages()
        .into_iter()
        .map(String::from)
        .collect();
    let asked = web::Query::<LanguageQuery>::from_query(request.query_string())
        .ok()
        .and_then(|query| query.into_inner().lang);
    let accept = request
        .headers()
        .get(actix_web::http::header::ACCEPT_LANGUAGE)
        .and_then(|value| value.to_str().ok());
    Words::for_tag(crate::i18n::choose(&offered, asked.as_deref(), accept))
}

/// `?lang=TAG` for a survey offered in several languages (so a choice carries from page to
/// page and to the thanks), else nothing.
pub(crate) fn language_query(survey: &Survey, words: &Words, first: char) -> String {
    match survey.languages.len() > 1 {
        true => format!("{first}lang={}", words.lang()),
        false => String::new(),
    }
}

/// The survey's languages for the switcher (its tag, its name, whether it is the page's),
/// when it has more than one.
fn switcher(survey: &Survey, words: &Words) -> Vec<(String, String, bool)> {
    match survey.languages.len() > 1 {
        true => survey
            .languages
            .iter()
            .map(|tag| {
                let current = tag.as_str() == words.lang();
                (
                    tag.to_string(),
                    crate::i18n::language_name(tag.as_str()),
                    current,
                )
            })
            .collect(),
        false => Vec::new(),
    }
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
}

impl SurveyPage {
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
        let language = form.words.lang();
        let translated =
            |key: String, default: &str| survey.text_in(language, &key, default).to_owned();
        let layout = survey.pages().get(page).cloned().unwrap_or_default();
        let on_page = survey.page_questions(page);
        let here: HashSet<&QuestionId> = on_page.iter().map(|q| &q.id).collect();
        let name_of = |id: &QuestionId| {
            survey.question(id).map_or_else(
                || format!("\"{id}\""),
                |q| {
                    let text = translated(format!("q:{id}:text"), &q.text);
                    form.words.s("condition-your-answer", "question", &text)
                },
            )
        };
        // An option tested, as the page names it; other values as they are.
        let value_of = |id: &QuestionId, tested: &str| {
            let options = survey.question(id).map_or(&[][..], |q| q.kind.options());
            match options.iter().position(|option| option == tested) {
                Some(at) => translated(format!("q:{id}:option:{at}"), tested),
                None => tested.to_owned(),
            }
        };
        // Numbers run on over the pages the respondent was shown before this one.
        let numbered_before: usize = walk
            .route
            .iter()
            .filter(|&&p| p != page)
            .flat_map(|&p| survey.page_questions(p))
            .filter(|q| !walk.hidden.contains(&q.id))
            .count();
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
                (Some(condition), None) => condition.holds(&walk.values),
            };
            if !shown {
                continue;
            }
            let number = numbered_before + questions.len() + 1;
            let mut view = QuestionView::new(
                &form.words,
                &survey.translations,
                number,
                question,
                posted,
                errors,
            );
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
            pages: survey.pages().len(),
            page_title: layout
                .title
                .as_deref()
                .map(|text| translated(format!("page:{page}:title"), text)),
            page_description: layout
                .description
                .as_deref()
                .map(|text| translated(format!("page:{page}:description"), text)),
            intro: survey
                .description
                .as_deref()
                .filter(|_| page == 0)
                .map(|text| markdown::to_html(&translated("description".into(), text))),
            title: translated("title".into(), &survey.title),
            // The script shows conditional questions, and the "Other" box's text only once
            // "Other" is picked.
            scripted: questions.iter().any(|q| q.show_if.is_some() || q.other),
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

/// Where a posted page of a survey leads.
pub(crate) enum Step {
    /// Another page (or the same one, with its errors), with its status.
    Page(StatusCode, Box<SurveyPage>),
    /// The end of the respondent's route, every page checked: the whole response.
    Done(crate::domain::answer::Walk),
}

/// Reads a posted page: Back goes to the page before on the respondent's route (input kept,
/// nothing checked); otherwise the route so far is checked from the first page, and a wrong
/// answer shows its page again (422), else the next page follows, or, past the last, `Done`.
pub(crate) fn step(
    tenant: &Arc<Tenant>,
    survey: &Arc<Survey>,
    form: &FormContext,
    posted: &form::PostedForm,
) -> Step {
    let walk = survey.walk(&posted.answers, Some(posted.page));
    let show = |status: StatusCode, page: usize, errors: &FieldErrors| {
        let page = SurveyPage::new(
            tenant.clone(),
            survey.clone(),
            form,
            page,
            &posted.answers,
            errors,
        );
        Step::Page(status, Box::new(page))
    };
    let reached = walk.route.last() == Some(&posted.page);
    // The same page in another language: answers kept, nothing checked yet.
    if posted.stay && reached {
        return show(StatusCode::OK, posted.page, &FieldErrors::new());
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
        return show(StatusCode::UNPROCESSABLE_ENTITY, page, &walk.errors);
    }
    if let Target::Page(next) = walk.next {
        return show(StatusCode::OK, next, &FieldErrors::new());
    }
    // This walk went through every page shown, so it is the whole response, checked again
    // from the first page (earlier pages' answers came back in hidden fields, which a
    // respondent could have changed).
    Step::Done(walk)
}

#[derive(Template)]
#[template(path = "public/thanks.html")]
struct ThanksPage {
    tenant: Arc<Tenant>,
    words: Words,
    /// The survey's title in the page's language.
    title: String,
    /// "Your reference number is N ...", as safe HTML with the number in bold.
    reference_line: String,
    /// The owner's thank-you message, as safe HTML.
    message: Option<String>,
}

/// How this region holds a tenant whose public address was asked for.
enum Standing {
    /// It lives here.
    Own(Arc<Tenant>),
    /// It lives elsewhere; this region hosts some of its surveys.
    Hosted(Arc<HostedTenant>),
}

/// The tenant at this address as this region holds it, or 404.
async fn standing(state: &AppState, tenant: &str) -> Result<Standing, WebError> {
    let slug = TenantSlug::parse(tenant).map_err(|_| WebError::NotFound)?;
    if let Some(own) = state.stores.tenants.get(&slug).await? {
        return Ok(Standing::Own(own));
    }
    if state.stores.regions.named()
        && let Some(hosted) = state.stores.hosted.tenant(&slug).await?
    {
        return Ok(Standing::Hosted(hosted));
    }
    Err(WebError::NotFound)
}

/// The tenant at this address (living here, or hosted here), or 404.
pub(crate) async fn tenant_named(state: &AppState, tenant: &str) -> Result<Arc<Tenant>, WebError> {
    Ok(match standing(state, tenant).await? {
        Standing::Own(tenant) => tenant,
        Standing::Hosted(hosted) => hosted.tenant.clone(),
    })
}

/// Where the tenant at this address lives when that is another region: its address there.
pub(crate) async fn home_elsewhere(
    state: &AppState,
    tenant: &str,
) -> Result<Option<String>, WebError> {
    Ok(match standing(state, tenant).await? {
        Standing::Own(_) => None,
        Standing::Hosted(hosted) => Some(region_url(state, &hosted.home)?),
    })
}

/// A region's public address.
fn region_url(state: &AppState, region: &RegionName) -> Result<String, WebError> {
    state
        .stores
        .regions
        .get(region)
        .map(|region| region.public_url.clone())
        .ok_or_else(|| WebError::Internal(format!("{region} is not a region of this installation")))
}

/// The tenant and one of its surveys; 404 unless both exist and the survey was published
/// at some time (a draft never published is not there for respondents). A survey answered in
/// another region is a 307 to the same address there (`request` gives the address).
pub(super) async fn survey_named(
    state: &AppState,
    request: &HttpRequest,
    tenant: &str,
    survey: &str,
) -> Result<(Arc<Tenant>, Arc<Survey>), WebError> {
    let slug = SurveySlug::parse(survey).map_err(|_| WebError::NotFound)?;
    let answered = |survey: &Survey| survey.published || survey.was_published;
    let elsewhere = |region: &RegionName| -> Result<WebError, WebError> {
        Ok(WebError::Elsewhere(format!(
            "{}{}",
            region_url(state, region)?,
            request.uri()
        )))
    };
    match standing(state, tenant).await? {
        Standing::Own(tenant) => {
            let survey = state
                .stores
                .surveys
                .get(&tenant.slug, &slug)
                .await?
                .filter(|survey| answered(survey))
                .ok_or(WebError::NotFound)?;
            if let Some(here) = state.stores.regions.here() {
                let hosts = survey.hosting_regions(here);
                if !hosts.contains(here) {
                    return Err(elsewhere(&hosts[0])?);
                }
            }
            Ok((tenant, survey))
        }
        Standing::Hosted(hosted) => {
            let here = state.stores.regions.here();
            let copy = state
                .stores
                .hosted
                .survey(&hosted.tenant.slug, &slug)
                .await?
                .filter(|survey| answered(survey))
                .filter(|survey| {
                    here.is_some_and(|here| survey.hosting_regions(&hosted.home).contains(here))
                });
            match copy {
                Some(survey) => Ok((hosted.tenant.clone(), survey)),
                // Not answered here (or no longer): its home says where it is.
                None => Err(elsewhere(&hosted.home)?),
            }
        }
    }
}

/// A survey of a tenant living here, published at some time, wherever it is answered (`None`
/// for any other).
pub(super) async fn own_survey(
    state: &AppState,
    tenant: &str,
    survey: &str,
) -> Result<Option<(Arc<Tenant>, Arc<Survey>)>, WebError> {
    let (Ok(tenant), Ok(slug)) = (TenantSlug::parse(tenant), SurveySlug::parse(survey)) else {
        return Ok(None);
    };
    let Some(tenant) = state.stores.tenants.get(&tenant).await? else {
        return Ok(None);
    };
    let survey = state.stores.surveys.get(&tenant.slug, &slug).await?;
    Ok(survey
        .filter(|survey| survey.published || survey.was_published)
        .map(|survey| (tenant, survey)))
}

/// Whether `tenant` lives in another region and its surveys are hosted here.
async fn hosted_here(state: &AppState, tenant: &Tenant) -> Result<bool, WebError> {
    if !state.stores.regions.named() {
        return Ok(false);
    }
    Ok(state.stores.tenants.get(&tenant.slug).await?.is_none())
}

/// Whether answers to `survey` move home from here: it is hosted here for a tenant living in
/// another region, and its answers may leave.
async fn moves_home(state: &AppState, tenant: &Tenant, survey: &Survey) -> Result<bool, WebError> {
    if survey.residency == Residency::Region {
        return Ok(false);
    }
    hosted_here(state, tenant).await
}

/// A survey respondents can answer now, or the page saying it is closed (410).
enum Reached {
    Open(Arc<Tenant>, Arc<Survey>),
    Closed(HttpResponse),
}

/// The survey at this address as respondents reach it: 404 for a draft never published, the
/// closing page for one closed (by its owner, its date or its response limit).
async fn reach(
    state: &AppState,
    request: &HttpRequest,
    tenant: &str,
    survey: &str,
) -> Result<Reached, WebError> {
    let (tenant, survey) = survey_named(state, request, tenant, survey).await?;
    let now = match hosted_here(state, &tenant).await? {
        true => state.stores.hosted_survey_state(&survey).await?,
        false => state.stores.survey_state(&survey).await?,
    };
    if now == SurveyState::Open {
        return Ok(Reached::Open(tenant, survey));
    }
    let words = words_for(request, &survey);
    let language = words.lang();
    let message = survey.closed_message.as_deref().map_or_else(
        || {
            let said = askama::filters::escape(words.t("closed-message"), askama::filters::Html)
                .map(|escaped| escaped.to_string())
                .unwrap_or_default();
            format!("<p>{said}</p>")
        },
        |text| markdown::to_html(survey.text_in(language, "closed_message", text)),
    );
    let page = ClosedPage {
        title: survey.text_in(language, "title", &survey.title).to_owned(),
        tenant,
        message,
        words: words.clone(),
    };
    render_with_status(StatusCode::GONE, &page).map(Reached::Closed)
}

#[derive(Template)]
#[template(path = "public/closed.html")]
struct ClosedPage {
    tenant: Arc<Tenant>,
    /// The owner's closing message, as safe HTML.
    message: String,
    words: Words,
    /// The survey's title in the page's language.
    title: String,
}

/// `GET /s/{tenant}?page=N`: the tenant's published surveys, 20 to a page.
pub async fn tenant(
    state: web::Data<AppState>,
    request: HttpRequest,
    path: web::Path<String>,
    query: web::Query<PageQuery>,
) -> Result<HttpResponse, WebError> {
    // A tenant of another region lists its surveys at home.
    if let Some(home) = home_elsewhere(&state, &path).await? {
        return Err(WebError::Elsewhere(format!("{home}{}", request.uri())));
    }
    let tenant = tenant_named(&state, &path).await?;
    let mut published = Vec::new();
    for survey in state.stores.surveys.published(&tenant.slug).await? {
        if state.stores.survey_state(&survey).await? == SurveyState::Open {
            published.push(survey);
        }
    }
    let pages = published.len().div_ceil(SURVEYS_PER_PAGE).max(1);
    let page = query.page.unwrap_or(1).clamp(1, pages);
    let surveys = published
        .into_iter()
        .skip((page - 1) * SURVEYS_PER_PAGE)
        .take(SURVEYS_PER_PAGE)
        .map(|survey: Arc<Survey>| {
            let intro = survey.description.as_deref().map(markdown::to_html);
            (survey, intro)
        })
        .collect();
    // No survey says which languages it offers here: the site's own, as the browser asks.
    let shipped: Vec<String> = crate::i18n::SHIPPED
        .iter()
        .map(|t| (*t).to_owned())
        .collect();
    let accept = request
        .headers()
        .get(actix_web::http::header::ACCEPT_LANGUAGE)
        .and_then(|value| value.to_str().ok());
    let words = Words::for_tag(crate::i18n::choose(&shipped, None, accept));
    render(&TenantPage {
        tenant,
        surveys,
        page,
        pages,
        words,
    })
}

/// `GET /s/{tenant}/{survey}`: the form, carrying a fresh signed submission token.
pub async fn form(
    state: web::Data<AppState>,
    request: HttpRequest,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, WebError> {
    let (tenant, survey) = match reach(&state, &request, &path.0, &path.1).await? {
        Reached::Open(tenant, survey) => (tenant, survey),
        Reached::Closed(page) => return Ok(page),
    };
    let token = SubmissionToken {
        reference: state.stores.references.next().await?,
        survey: survey.survey_ref(),
    }
    .sign(&state.stores.signing_key);
    let words = words_for(&request, &survey);
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
    };
    render(&SurveyPage::first(tenant, survey, &form))
}

/// `POST /s/{tenant}/{survey}`: validates the answers, queues them, redirects to the thanks.
pub async fn submit(
    state: web::Data<AppState>,
    request: HttpRequest,
    path: web::Path<(String, String)>,
    payload: web::Payload,
) -> Result<HttpResponse, WebError> {
    let body = form::read_body(payload, &state).await?;
    let posted = form::parse(&body)?;
    let (tenant, survey) = match reach(&state, &request, &path.0, &path.1).await? {
        Reached::Open(tenant, survey) => (tenant, survey),
        Reached::Closed(page) => return Ok(page),
    };
    let words = words_for(&request, &survey);
    let token = SubmissionToken::verify(
        &state.stores.signing_key,
        &posted.token,
        &survey.survey_ref(),
    )
    .map_err(|error| {
        WebError::BadRequest(words.s("form-not-accepted", "reason", &error.to_string()))
    })?;
    let language = language_query(&survey, &words, '&');
    let form = FormContext {
        token: posted.token.clone(),
        action: format!(
            "/s/{}/{}{}",
            tenant.slug,
            survey.slug,
            language_query(&survey, &words, '?')
        ),
        preview_csrf: None,
        words,
    };
    let walk = match step(&tenant, &survey, &form, &posted) {
        Step::Page(status, page) => return render_with_status(status, page.as_ref()),
        Step::Done(walk) => walk,
    };
    let (values, hidden) = (walk.values, walk.hidden);
    let answer = Answer {
        tenant: tenant.slug.clone(),
        survey: survey.slug.clone(),
        survey_id: survey.id.clone(),
        survey_version: survey.version,
        reference: token.reference,
        submitted_at: OffsetDateTime::now_utc(),
        values,
        hidden,
        // Kept for every survey: one that gains a language later segments its earlier
        // answers by the language they were given in.
        language: LanguageTag::parse(form.words.lang()).ok(),
    };
    let queues = &state.stores.answer_queues;
    match moves_home(&state, &tenant, &survey).await? {
        true => queues.submit_for_transfer(&answer).await?,
        false => queues.submit(&answer, tenant.subscription).await?,
    };
    crate::telemetry::metrics::submission(tenant.subscription);
    let signature = thanks_signature(
        &state.stores.signing_key,
        &survey.survey_ref(),
        answer.reference,
    );
    let thanks = format!(
        "/s/{}/{}/thanks/{}?sig={signature}{language}",
        tenant.slug, survey.slug, answer.reference
    );
    Ok(HttpResponse::SeeOther()
        .insert_header((LOCATION, thanks))
        .finish())
}

/// The signature of a thank-you link.
#[derive(serde::Deserialize)]
pub struct ThanksQuery {
    sig: Option<String>,
}

/// `GET /s/{tenant}/{survey}/thanks/{reference}?sig=..`: the thank-you page with the reference,
/// only at the link the submission redirected to (a made-up reference is not confirmed) and
/// also once the survey has closed (its last respondents are thanked too).
pub async fn thanks(
    state: web::Data<AppState>,
    request: HttpRequest,
    path: web::Path<(String, String, String)>,
    query: web::Query<ThanksQuery>,
) -> Result<HttpResponse, WebError> {
    let (tenant, survey) = survey_named(&state, &request, &path.0, &path.1).await?;
    let reference = path
        .2
        .parse()
        .map(Reference)
        .map_err(|_| WebError::NotFound)?;
    let signature = query.sig.as_deref().unwrap_or("");
    if !thanks_signed(
        &state.stores.signing_key,
        &survey.survey_ref(),
        reference,
        signature,
    ) {
        return Err(WebError::NotFound);
    }
    let words = words_for(&request, &survey);
    // The number in bold inside the sentence, wherever the language puts it.
    const NUMBER: &str = "\u{E000}";
    let reference_line = askama::filters::escape(
        words.with(
            "thanks-reference",
            &[
                ("reference", NUMBER.into()),
                ("tenant", tenant.name.clone().into()),
            ],
        ),
        askama::filters::Html,
    )
    .map(|escaped| escaped.to_string())
    .unwrap_or_default()
    .replace(
        NUMBER,
        &format!(r#"<strong class="reference">{reference}</strong>"#),
    );
    let language = words.lang();
    render(&ThanksPage {
        message: survey
            .thank_you
            .as_deref()
            .map(|text| markdown::to_html(survey.text_in(language, "thank_you", text))),
        title: survey.text_in(language, "title", &survey.title).to_owned(),
        tenant,
        words: words.clone(),
        reference_line,
    })
}
