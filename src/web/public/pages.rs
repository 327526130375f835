//! The respondent's pages: a tenant's surveys, a survey form, its submission, the thank-you.

use std::sync::Arc;

use actix_web::http::StatusCode;
use actix_web::http::header::LOCATION;
use actix_web::{HttpRequest, HttpResponse, web};
use askama::Template;

use super::language::{language_query, words_for};
use super::notice::{minutes, notice};
use super::participant::{Admission, admit};
use super::quotas;
use super::reach::{Reached, home_elsewhere, reach, survey_named, tenant_named};
use super::survey_page::{FormContext, Step, SurveyPage, step};
use super::uploads::{self, Keep, Taken};
use crate::domain::language::LanguageTag;
use crate::domain::markdown;
use crate::domain::participant::Access;
use crate::domain::progress::ResumeId;
use crate::domain::submission::{result_signature, result_signed};
use crate::domain::{Reference, Survey, Tenant, thanks_signature, thanks_signed};
use crate::i18n::Words;
use crate::service::answering::{self, Submitted};
use crate::web::{Reply, State, WebError, render};

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

#[derive(Template)]
#[template(path = "public/thanks.html")]
struct ThanksPage {
    tenant: Arc<Tenant>,
    words: Words,
    /// The survey's title in the page's language.
    title: String,
    /// "Your reference number is N ...", as safe HTML with the number in bold.
    reference_line: String,
    /// The owner's thank-you message (or the ending's), as safe HTML.
    message: Option<String>,
    /// The respondent's quiz result, when the survey shows it.
    quiz: Option<super::quiz::QuizResult>,
}

/// `GET /s/{tenant}?page=N`: the tenant's published surveys, 20 to a page.
pub async fn tenant(
    state: State,
    request: HttpRequest,
    path: web::Path<String>,
    query: web::Query<PageQuery>,
) -> Reply {
    // A tenant of another region lists its surveys at home.
    if let Some(home) = home_elsewhere(&state, &path).await? {
        return Err(WebError::Elsewhere(format!("{home}{}", request.uri())));
    }
    let tenant = tenant_named(&state, &path).await?;
    let published = crate::service::finding::open_surveys(&state.app, &tenant).await?;
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
pub async fn form(state: State, request: HttpRequest, path: web::Path<(String, String)>) -> Reply {
    let (tenant, survey) = match reach(&state, &request, &path.0, &path.1).await? {
        Reached::Open(tenant, survey) => (tenant, survey),
        Reached::Closed(page) => return Ok(page),
    };
    let words = words_for(&request, &survey);
    // Only personal links open a survey by invitation.
    if survey.access == Access::Invitation {
        return super::participant::by_invitation(tenant, &survey, &words);
    }
    let seed = super::form::seeded(&survey, request.query_string(), &words)?;
    super::survey_page::fresh_form(&state, (tenant, survey), words, (None, None), &seed).await
}

/// `POST /s/{tenant}/{survey}`: validates the answers, queues them, redirects to the thanks.
pub async fn submit(
    state: State,
    request: HttpRequest,
    path: web::Path<(String, String)>,
    payload: web::Payload,
) -> Reply {
    let (tenant, survey) = match reach(&state, &request, &path.0, &path.1).await? {
        Reached::Open(tenant, survey) => (tenant, survey),
        Reached::Closed(page) => return Ok(page),
    };
    // Its file questions' limits decide how much of a file part is read.
    let (mut posted, files) = uploads::read(&request, payload, &state, &survey).await?;
    let words = words_for(&request, &survey);
    posted.checked_hidden(&survey, &words)?;
    let token = answering::check_token(&state.app, &survey, &posted.token).map_err(|error| {
        WebError::BadRequest(words.s("form-not-accepted", "reason", &error.to_string()))
    })?;
    let language = language_query(&survey, &words, '&');
    // A survey by invitation takes answers through personal links only, each once.
    let link = &posted.participant;
    let admitted = admit(
        &state,
        (&tenant, &survey),
        &words,
        link,
        Some(token.reference),
    )
    .await?;
    let participant = match admitted {
        Admission::Anyone => None,
        Admission::Participant(participant, _) => Some(participant),
        Admission::Refused(page) => return Ok(page),
    };
    let form = FormContext {
        token: posted.token.clone(),
        action: format!(
            "/s/{}/{}{}",
            tenant.slug,
            survey.slug,
            language_query(&survey, &words, '?')
        ),
        preview_csrf: None,
        resume: ResumeId::parse(&posted.resume).map(|id| id.as_str().to_owned()),
        participant: participant.clone(),
        upload_max: state.uploads.max_bytes,
        words,
    };
    let survey = super::survey_page::for_respondent(survey, &posted.token, &posted.answers);
    let keep = Keep::Answer(token.reference);
    match uploads::take(&state, &request, &survey, keep, &mut posted, files).await? {
        Taken::Checked(errors) if errors.is_empty() => {}
        Taken::Checked(mut errors) => {
            let page = posted.page;
            // The page's other answers are checked too: a refused file does not hide them.
            let walk = survey.walk(&posted.answers, Some(page));
            for question in survey.step_questions(page) {
                if let Some(problem) = walk.errors.get(&question.id) {
                    errors
                        .entry(question.id.clone())
                        .or_insert_with(|| problem.clone());
                }
            }
            let shown = SurveyPage::new(tenant, survey, &form, page, &posted.answers, &errors);
            return super::survey_page::respond(StatusCode::UNPROCESSABLE_ENTITY, &shown);
        }
        Taken::Limited(wait) => {
            let words = &form.words;
            let said = (
                words.t("form-file-choose"),
                words.n("problem-file-too-many", "minutes", minutes(wait)),
            );
            return notice(
                StatusCode::TOO_MANY_REQUESTS,
                tenant,
                &survey,
                words,
                said,
                None,
            );
        }
    }
    if posted.save {
        return super::resume::save(&state, &request, (tenant, survey), &form.words, &posted).await;
    }
    let resume = ResumeId::parse(&posted.resume);
    let walk = match step(&tenant, &survey, &form, &posted) {
        Step::Page(status, page) => return super::survey_page::respond(status, page.as_ref()),
        Step::Next(page, so_far) => {
            if let Some(walk) = &so_far {
                answering::keep_partial(
                    &state.app,
                    answering::SoFar {
                        tenant: &tenant,
                        survey: &survey,
                        reference: token.reference,
                        walk,
                        hidden: posted.answers.hidden(),
                        language: LanguageTag::parse(form.words.lang()).ok(),
                        participant: participant.as_ref(),
                    },
                )
                .await;
            }
            // Answers so far that fall in a full quota end here, not after the last page.
            if let Some(walk) = so_far.filter(|_| !survey.quotas.is_empty()) {
                let (shown, values) = (&walk.route, &walk.values);
                let route = answering::route_of(&state.app, &tenant, &survey).await?;
                let early = answering::ends_early(&state.app, &route, &survey, shown, values);
                if let Some(quota) = early.await? {
                    answering::forget_progress(&state.app, &survey, resume.as_ref()).await;
                    if let Some(address) = &survey.redirects.screened_out {
                        let hidden = posted.answers.hidden();
                        let reference = Some(token.reference);
                        return Ok(super::redirect::to(address, hidden, values, reference));
                    }
                    return quotas::ended(tenant.clone(), &survey, &form.words, quota);
                }
            }
            // Shown a later page: counted for the drop-off (in memory, merged in batches).
            let filed = survey.survey_ref();
            let to = survey.funnel_step(page.page());
            state
                .funnel
                .moved_on(&filed, token.reference, posted.page, to)
                .await;
            return super::survey_page::respond(StatusCode::OK, page.as_ref());
        }
        Step::Done(walk) => walk,
    };
    // Where a panel's respondent goes next, filled now: the submission takes the answers.
    let hidden = posted.answers.hidden();
    // Computed here, from the checked answers alone: nothing the form sends sets it.
    let outcome = survey.outcome(&walk.values, hidden);
    let result = outcome.result(&survey, &walk.values);
    let ending = outcome.ending.as_deref().and_then(|id| survey.ending(id));
    let onward =
        super::redirect::Onward::of(&survey, ending, hidden, &walk.values, token.reference);
    let order = survey.shown_order(
        &crate::domain::order::Draw::of_token(&posted.token),
        &walk.route,
        &walk.skipped,
    );
    let route = answering::route_of(&state.app, &tenant, &survey).await?;
    let submission = answering::Submission {
        tenant: &tenant,
        survey: &survey,
        route,
        reference: token.reference,
        values: walk.values,
        skipped: walk.skipped,
        hidden: hidden.clone(),
        order,
        language: LanguageTag::parse(form.words.lang()).ok(),
        participant: participant.as_ref(),
        resume,
        outcome,
    };
    let reference = match answering::submit(&state.app, submission).await? {
        Submitted::Thanked(reference) => reference,
        Submitted::Ended(quota) => {
            return match onward.screened_out() {
                Some(redirect) => Ok(redirect),
                None => quotas::ended(tenant.clone(), &survey, &form.words, quota),
            };
        }
        Submitted::LinkAnswered => {
            let participant = participant.as_ref().ok_or(WebError::NotFound)?;
            let words = &form.words;
            return super::participant::link_answered(tenant.clone(), &survey, words, participant);
        }
    };
    if let Some(redirect) = onward.complete() {
        return Ok(redirect);
    }
    let signature = thanks_signature(state.app.signing_key(), &survey.survey_ref(), reference);
    let shown = match result.is_empty() {
        true => String::new(),
        false => {
            let key = state.app.signing_key();
            let signed = result_signature(key, &survey.survey_ref(), reference, &result);
            format!("&result={result}&rsig={signed}")
        }
    };
    let thanks = format!(
        "/s/{}/{}/thanks/{}?sig={signature}{shown}{language}",
        tenant.slug, survey.slug, reference
    );
    Ok(HttpResponse::SeeOther()
        .insert_header((LOCATION, thanks))
        .finish())
}

/// The signature of a thank-you link.
#[derive(serde::Deserialize)]
pub struct ThanksQuery {
    sig: Option<String>,
    /// What the page shows of the outcome (see `Outcome::result`), and its signature.
    result: Option<String>,
    rsig: Option<String>,
}

/// `GET /s/{tenant}/{survey}/thanks/{reference}?sig=..`: the thank-you page with the reference,
/// only at the link the submission redirected to (a made-up reference is not confirmed) and
/// also once the survey has closed (its last respondents are thanked too).
pub async fn thanks(
    state: State,
    request: HttpRequest,
    path: web::Path<(String, String, String)>,
    query: web::Query<ThanksQuery>,
) -> Reply {
    let (tenant, survey) = survey_named(&state, &request, &path.0, &path.1).await?;
    let reference = path
        .2
        .parse()
        .map(Reference)
        .map_err(|_| WebError::NotFound)?;
    let signature = query.sig.as_deref().unwrap_or("");
    if !thanks_signed(
        state.app.signing_key(),
        &survey.survey_ref(),
        reference,
        signature,
    ) {
        return Err(WebError::NotFound);
    }
    let words = words_for(&request, &survey);
    let key = state.app.signing_key();
    let shown = match (&query.result, &query.rsig) {
        (Some(result), Some(rsig))
            if result_signed(key, &survey.survey_ref(), reference, result, rsig) =>
        {
            survey.read_result(result)
        }
        _ => None,
    }
    .unwrap_or_default();
    let quiz = super::quiz::QuizResult::of(&survey, &shown, &words);
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
    let message = match shown.ending.and_then(|e| Some((e, e.text.as_deref()?))) {
        Some((ending, text)) => {
            let key = format!("ending:{}:text", ending.id);
            Some(markdown::to_html(survey.text_in(language, &key, text)))
        }
        None => survey
            .thank_you
            .as_deref()
            .map(|text| markdown::to_html(survey.text_in(language, "thank_you", text))),
    };
    render(&ThanksPage {
        message,
        quiz,
        title: survey.text_in(language, "title", &survey.title).to_owned(),
        tenant,
        words: words.clone(),
        reference_line,
    })
}
