//! A survey's results on the tenant site: the summary with charts, pages of responses, and
//! one response at a time.

use crate::web::tenant::survey_form::OwnSurvey;
use std::sync::Arc;

use actix_web::{HttpRequest, web};
use askama::Template;
use serde::Deserialize;
use time::OffsetDateTime;

use super::charts::{BarChart, Grid, chart, every_value, grid, number};
use super::notice;
use super::segments::SegmentPicker;
use super::session::SignedIn;
use crate::domain::looping;
use crate::domain::member::Role;
use crate::domain::summary::{QuestionReport, Stats, median, nps_groups};
use crate::domain::{Answer, AnswerValue, Reference, SegmentId, Survey};
use crate::service::results::{self, Asked, DateRange, Filter, MAX_SEARCH_CHARS};
use crate::web::roles::Viewer;
use crate::web::{AppState, Reply, State, WebError, render};

struct QuestionView {
    number: usize,
    report: QuestionReport,
    chart: BarChart,
    /// A matrix question's counts as a grid.
    grid: Option<Grid>,
    /// A number question's every value and count, when the chart shows ranges.
    every_value: Option<Vec<(String, u64)>>,
    facts: Vec<(&'static str, String)>,
    /// The frequent words of what "Other" was said to mean, as "word (count)".
    other_words: Vec<String>,
    /// A text question's newest answers, newest first.
    latest: Vec<LatestText>,
}

/// One of a text question's newest answers, as the summary page lists it.
struct LatestText {
    text: String,
    cut: bool,
    reference: String,
    submitted: String,
}

/// A question's report as its owner reads it: a recall in its text or an option's label as the
/// recalled question's label (`[Rating]`), never `{{q:ID}}`.
fn labelled(survey: &Survey, report: &QuestionReport) -> QuestionReport {
    let mut shown = report.clone();
    shown.text = report
        .text
        .as_deref()
        .map(|text| survey.labelled(text).into_owned());
    if let Stats::Options { options, .. } = &mut shown.stats {
        for option in options {
            option.option = survey.labelled(&option.option).into_owned();
        }
    }
    if let Stats::Ranking { ranking } = &mut shown.stats {
        for ranked in ranking {
            ranked.option = survey.labelled(&ranked.option).into_owned();
        }
    }
    shown
}

fn latest(report: &QuestionReport) -> Vec<LatestText> {
    match &report.stats {
        Stats::Words { latest, .. } => latest
            .iter()
            .map(|recent| LatestText {
                text: recent.text.clone(),
                cut: recent.cut,
                reference: recent.reference.to_string(),
                submitted: minute(recent.submitted_at),
            })
            .collect(),
        _ => Vec::new(),
    }
}

#[derive(Template)]
#[template(path = "tenant/summary.html")]
struct SummaryPage {
    csrf: String,
    role: Role,
    survey: Arc<Survey>,
    total: u64,
    updated: String,
    waiting: u64,
    questions: Vec<QuestionView>,
    /// Whether exports to PostgreSQL are set up (the server's database or the tenant's own).
    exports: bool,
    /// Deleted responses still in min, max and frequent words until the recount.
    recounting: Option<u64>,
    /// The segments, and the one shown.
    picker: SegmentPicker,
    /// Where respondents stop (every respondent's, not a segment's).
    dropoff: Option<super::dropoff::Dropoff>,
    /// Each quota (name, places taken, limit).
    quotas: Vec<(String, u32, u32)>,
    /// Each ending (id, responses that reached it, their share in percent).
    endings: Vec<(String, u64, String)>,
    /// Each item the loops go through (key, label, times answered), the one shown (empty:
    /// pooled), and what is wrong with the one asked for.
    items: Vec<(String, String, u64)>,
    item: String,
    item_error: Option<&'static str>,
    /// How many partial responses are counted in, when asked for.
    partial: Option<u64>,
}

fn facts(report: &QuestionReport) -> Vec<(&'static str, String)> {
    let mut facts = Vec::new();
    if let (Some(nps), Stats::Numbers { histogram, .. }) = (report.nps, &report.stats) {
        facts.push(("Net Promoter Score", number(nps)));
        let share = |count: u64| {
            format!(
                "{count} ({}%)",
                super::charts::share(count, report.answered)
            )
        };
        let [promoters, passives, detractors] = nps_groups(histogram);
        facts.push(("Promoters (9 to 10)", share(promoters)));
        facts.push(("Passives (7 to 8)", share(passives)));
        facts.push(("Detractors (0 to 6)", share(detractors)));
    }
    facts.extend(match &report.stats {
        Stats::Numbers {
            mean: Some(mean),
            std_dev: Some(sd),
            min: Some(min),
            max: Some(max),
            histogram,
        } => [
            Some(("Mean", number(*mean))),
            median(histogram).map(|m| ("Median", number(m))),
            Some(("Standard deviation", number(*sd))),
            Some(("Lowest", number(*min))),
            Some(("Highest", number(*max))),
        ]
        .into_iter()
        .flatten()
        .collect(),
        Stats::Files { files, bytes } => vec![
            ("Files", files.to_string()),
            ("Their size together", size(*bytes)),
        ],
        _ => Vec::new(),
    });
    facts
}

/// A size as people read it: `340 KB`, `2.4 MB`.
pub(super) fn size(bytes: u64) -> String {
    const KIB: f64 = 1024.0;
    let bytes = bytes as f64;
    match bytes {
        b if b < KIB => format!("{b} bytes"),
        b if b < KIB * KIB => format!("{} KB", number((b / KIB).round())),
        b => format!("{} MB", number((b / KIB / KIB * 10.0).round() / 10.0)),
    }
}

/// What the page says of a segment filter it cannot use (the API's answer names the rule; an
/// owner only needs to pick again).
const UNKNOWN_SEGMENT: &str =
    "This link names a segment this survey does not have. Pick one from the list instead.";

/// What the page says of a loop item it cannot show.
const UNKNOWN_ITEM: &str =
    "This link names an item the survey's loops do not have: the answers of every item are shown.";

/// The segment a page shows, the loop item (absent: pooled), and whether partial responses
/// are counted in (`partial=1`).
#[derive(Deserialize)]
pub struct SegmentQuery {
    segment: Option<String>,
    item: Option<String>,
    partial: Option<String>,
}

/// `GET /tenant/surveys/{slug}/summary?segment=QUESTION_ID:OPTION`: of every response, or of
/// one segment's.
pub async fn summary(
    state: State,
    OwnSurvey { signed_in, survey }: OwnSurvey<Viewer>,
    query: web::Query<SegmentQuery>,
) -> Reply {
    let (segment, segment_error) = match SegmentId::asked(query.segment.as_deref(), &survey) {
        Ok(segment) => (segment, None),
        Err(_) => (None, Some(UNKNOWN_SEGMENT.to_owned())),
    };
    let (item, item_error) = match survey.item_asked(query.item.as_deref()) {
        Ok(item) => (item, None),
        Err(_) => (None, Some(UNKNOWN_ITEM)),
    };
    let partial = query.partial.as_deref().is_some_and(|p| !p.is_empty());
    let asked = results::summary_with_partial(&state.app, &survey, segment.as_ref(), item, partial);
    let mut report = asked.await?;
    let items: Vec<(String, String, u64)> = std::mem::take(&mut report.items)
        .into_iter()
        .map(|i| (i.key, i.label, i.answered))
        .collect();
    // A loop's `{{loop}}` reads as the item shown, or as every item when pooled.
    let shown_item = match item {
        Some(key) => items
            .iter()
            .find(|(k, ..)| k == key)
            .map_or_else(|| key.to_owned(), |(_, label, _)| label.clone()),
        None => "[each item]".to_owned(),
    };
    let mut picker = SegmentPicker::new(std::mem::take(&mut report.segments), segment.as_ref());
    picker.error = segment_error;
    // The queue its answers wait on: at home, or in the region they stay in.
    let waiting = results::waiting(&state.app, &survey, signed_in.tenant.subscription).await?;
    let labelled: Vec<QuestionReport> = report
        .questions
        .iter()
        .map(|question| {
            let mut shown = labelled(&survey, question);
            shown.text = shown
                .text
                .map(|text| looping::with_item(&text, Some(&shown_item)).into_owned());
            shown
        })
        .collect();
    let questions = labelled
        .iter()
        .enumerate()
        .map(|(i, question)| QuestionView {
            number: i + 1,
            chart: chart(question),
            every_value: every_value(question),
            grid: grid(question),
            facts: facts(question),
            latest: latest(question),
            other_words: match &question.stats {
                Stats::Options { other_words, .. } => other_words
                    .iter()
                    .map(|w| format!("{} ({})", w.word, w.count))
                    .collect(),
                _ => Vec::new(),
            },
            report: question.clone(),
        })
        .collect();
    let exports = state.settings.server_exports
        || crate::service::settings::read(&state.app, &signed_in.tenant.slug)
            .await?
            .export_database_url
            .is_some();
    let dropoff = match segment {
        None => Some(super::dropoff::dropoff(&state, &survey, report.total).await?),
        Some(_) => None,
    };
    let quotas = super::quotas::places(&state, &survey)
        .await?
        .into_iter()
        .zip(&survey.quotas)
        .map(|(placed, quota)| (quota.name.clone(), placed, quota.limit))
        .collect();
    let endings = report
        .endings
        .iter()
        .map(|e| {
            (
                e.id.clone(),
                e.count,
                super::charts::share(e.count, report.total),
            )
        })
        .collect();
    render(&SummaryPage {
        partial: report.partial,
        items,
        item: item.unwrap_or_default().to_owned(),
        item_error,
        endings,
        quotas,
        picker,
        dropoff,
        exports,
        recounting: report.recounting,
        csrf: signed_in.session.csrf.clone(),
        role: signed_in.role,
        updated: report
            .updated
            .map(|t| {
                format!(
                    "{} {:02}:{:02}:{:02} UTC",
                    t.date(),
                    t.hour(),
                    t.minute(),
                    t.second()
                )
            })
            .unwrap_or_else(|| "never".into()),
        total: report.total,
        survey,
        waiting,
        questions,
    })
}

/// One answer, as a line of text (stars said in words, numbers as people write them).
fn shown(value: &AnswerValue) -> String {
    match value {
        AnswerValue::Stars(stars) => format!("{stars} of 5 stars"),
        other => other.to_text(number),
    }
}

/// A response as a line of a list.
pub(super) struct ResponseRow {
    pub(super) reference: String,
    pub(super) submitted: String,
    /// Its first answers, cut at 120 characters.
    pub(super) preview: String,
    /// Its answer to each column's question, cut at `CELL_CHARS` (blank: not answered).
    pub(super) cells: Vec<String>,
    /// Who gave it, when it came through a participant's personal link.
    pub(super) participant: Option<String>,
}

/// Most questions the responses table shows as columns (each response opens in full).
pub(super) const TABLE_COLUMNS: usize = 20;
/// Most characters of an answer in a cell of the responses table.
const CELL_CHARS: usize = 60;

/// `text` cut to `most` characters, with an ellipsis when cut.
fn cut(text: &str, most: usize) -> String {
    match text.char_indices().nth(most) {
        None => text.to_owned(),
        Some((at, _)) => format!("{}…", text[..at].trim_end()),
    }
}

/// The responses table's columns: the first `TABLE_COLUMNS` questions, by their labels.
pub(super) fn table_columns(survey: &Survey) -> Vec<String> {
    survey
        .questions
        .iter()
        .take(TABLE_COLUMNS)
        .map(|q| cut(&survey.labelled(&q.text), 40))
        .collect()
}

/// The line of a list showing `answer`.
pub(super) fn response_row(survey: &Survey, answer: &Answer) -> ResponseRow {
    ResponseRow {
        reference: answer.reference.to_string(),
        submitted: when(answer),
        preview: survey
            .questions
            .iter()
            .filter_map(|q| answer.values.get(&q.id).map(shown))
            .take(3)
            .collect::<Vec<_>>()
            .join(" · ")
            .chars()
            .take(120)
            .collect(),
        cells: survey
            .questions
            .iter()
            .take(TABLE_COLUMNS)
            .map(|q| {
                answer
                    .values
                    .get(&q.id)
                    .map_or_else(String::new, |value| cut(&shown(value), CELL_CHARS))
            })
            .collect(),
        participant: answer.participant.as_ref().map(|who| {
            let name = [who.first_name.as_deref(), who.last_name.as_deref()]
                .into_iter()
                .flatten()
                .collect::<Vec<_>>()
                .join(" ");
            match name.trim() {
                "" => who.email.clone(),
                name => name.to_owned(),
            }
        }),
    }
}

/// A deletion as the responses page lists it.
struct DeletionLine {
    reference: String,
    by: String,
    at: String,
}

/// Deletions listed on the responses page, newest first.
const DELETIONS_SHOWN: usize = 10;

#[derive(Template)]
#[template(path = "tenant/responses.html")]
struct ResponsesPage {
    csrf: String,
    role: Role,
    survey: Arc<Survey>,
    notice: Option<String>,
    total: u64,
    page: u64,
    pages: u64,
    /// Each response with its place, newest first.
    rows: Vec<(u64, ResponseRow)>,
    deletions: Vec<DeletionLine>,
    deleted: usize,
    /// Deletions asked for that a worker has not applied yet (their rows are left out).
    pending: usize,
    /// Whether every response of the page comes selected.
    all_selected: bool,
    /// The search text as typed.
    q: String,
    /// What a text search found, when one was asked for.
    search: Option<SearchView>,
    /// Whether `total` counts every response (see `stores::responses::window`).
    exact: bool,
    /// The date filter as typed.
    from: String,
    to: String,
    /// The filter as it goes on page links (`&from=...&to=...`), empty without one.
    filter: String,
    /// Why the filter was not applied.
    filter_error: Option<String>,
    /// The segments, and the one shown.
    picker: SegmentPicker,
    /// The questions shown as columns, by their labels.
    columns: Vec<String>,
    /// Whether the survey has more questions than columns.
    more_questions: bool,
    /// The partial responses of a survey that keeps them.
    partials: Vec<ResponseRow>,
}

impl ResponsesPage {
    /// Whether any response listed came through a personal link (a participant column).
    fn named(&self) -> bool {
        self.rows.iter().any(|(_, row)| row.participant.is_some())
    }

    /// Whether a date filter or a segment applies.
    fn filtered(&self) -> bool {
        !self.filter.is_empty() || !self.picker.selected.is_empty()
    }

    /// Both filters as they go on page links.
    fn filters(&self) -> String {
        format!("{}{}", self.filter, self.picker.query())
    }
}

/// A time to the minute, in UTC.
fn minute(t: OffsetDateTime) -> String {
    format!("{} {:02}:{:02} UTC", t.date(), t.hour(), t.minute())
}

fn when(answer: &Answer) -> String {
    minute(answer.submitted_at)
}

/// The page asked for, and the filters.
#[derive(Deserialize)]
pub struct PageQuery {
    page: Option<u64>,
    from: Option<String>,
    to: Option<String>,
    segment: Option<String>,
    /// `all`: every response of the page comes selected (select-all without JavaScript).
    select: Option<String>,
    /// Text to find in written answers.
    q: Option<String>,
    /// Where a search of older responses starts (a list position).
    before: Option<u64>,
}

/// A text search as the responses page shows it.
struct SearchView {
    text: String,
    /// The numbers of the newest and oldest response searched.
    searched: Option<(u64, u64)>,
    /// Where a search of older responses starts.
    older: Option<u64>,
}

/// `GET /tenant/surveys/{slug}/responses?page=N`: 25 per page, newest first, with the latest
/// deletions.
pub async fn responses(
    request: HttpRequest,
    state: State,
    OwnSurvey { signed_in, survey }: OwnSurvey<Viewer>,
    query: web::Query<PageQuery>,
) -> Reply {
    let (from, to) = (
        query.from.as_deref().map(str::trim),
        query.to.as_deref().map(str::trim),
    );
    let (range, mut filter_error) = match DateRange::parse(from, to) {
        Ok(range) => (range, None),
        Err(problem) => (None, Some(problem)),
    };
    let (segment, segment_error) = match SegmentId::asked(query.segment.as_deref(), &survey) {
        Ok(segment) => (segment, None),
        Err(_) => (None, Some(UNKNOWN_SEGMENT.to_owned())),
    };
    let filter = Filter {
        range,
        segment: segment.clone(),
    };
    let text = query.q.as_deref().map(str::trim).filter(|q| !q.is_empty());
    if text.is_some_and(|text| text.chars().count() > MAX_SEARCH_CHARS) {
        filter_error = Some(format!("search for at most {MAX_SEARCH_CHARS} characters"));
    }
    let asked = match text.filter(|_| filter_error.is_none()) {
        Some(text) => Asked::Words(text, query.before),
        None => Asked::Page(query.page.unwrap_or(1), &filter),
    };
    let listing = results::listing(&state.app, &survey, asked).await?;
    let search = match (listing.searched, text) {
        (Some(searched), Some(text)) => Some(SearchView {
            text: text.to_owned(),
            searched: searched.range,
            older: searched.older,
        }),
        _ => None,
    };
    let (found, records, pending) = (listing.found, listing.deletions, listing.pending);
    let mut picker = SegmentPicker::new(listing.segments, segment.as_ref());
    picker.error = segment_error;
    // Dates are digits and dashes once parsed: safe in a link as they are.
    let filter = range.map_or_else(String::new, |_| {
        format!("&from={}&to={}", from.unwrap_or(""), to.unwrap_or(""))
    });
    let rows = found
        .numbers
        .iter()
        .zip(&found.responses)
        .map(|(n, answer)| (*n, response_row(&survey, answer)))
        .collect();
    let unfiltered = range.is_none() && segment.is_none() && search.is_none();
    let deletions = records
        .iter()
        .rev()
        .take(DELETIONS_SHOWN)
        .map(|record| DeletionLine {
            reference: record.reference.to_string(),
            by: record.by.clone(),
            at: minute(record.at),
        })
        .collect();
    // A survey that keeps them: the partial responses, below the sent ones.
    let partials = results::partials(&state.app, &survey)
        .await?
        .iter()
        .map(|answer| response_row(&survey, answer))
        .collect();
    let notice = notice::take(&request, &state);
    let shown = notice.is_some();
    let columns = table_columns(&survey);
    let more_questions = survey.questions.len() > TABLE_COLUMNS;
    notice::render_once(
        &ResponsesPage {
            csrf: signed_in.session.csrf.clone(),
            role: signed_in.role,
            notice,
            survey,
            total: match unfiltered {
                true => found.total.saturating_sub(pending.len() as u64),
                false => found.total,
            },
            pending: pending.len(),
            q: text.unwrap_or("").to_owned(),
            search,
            all_selected: query.select.as_deref() == Some("all"),
            exact: found.exact,
            page: found.page,
            pages: found.pages,
            rows,
            deletions,
            deleted: records.len(),
            from: from.unwrap_or("").to_owned(),
            to: to.unwrap_or("").to_owned(),
            filter,
            filter_error,
            picker,
            columns,
            more_questions,
            partials,
        },
        shown,
    )
}

#[derive(Template)]
#[template(path = "tenant/response.html")]
struct ResponsePage {
    csrf: String,
    role: Role,
    survey: Arc<Survey>,
    /// Its place, newest first, and the count of responses (absent when found by reference).
    place: Option<(u64, u64)>,
    reference: String,
    submitted: String,
    version: u32,
    /// The language it was given in (its name and tag), for a survey in several languages.
    language: Option<(String, String)>,
    /// The quotas it was kept over, by name.
    over_quota: Vec<String>,
    answers: Vec<(String, String)>,
    /// The files it gave: the question's text, the file's name, its kind and size, and
    /// where a member downloads it.
    files: Vec<(String, String, String, String)>,
    /// The hidden fields' values its address gave, by name.
    hidden: Vec<(String, String)>,
    /// What the survey computed for it: the score, correct answers, ending, then each
    /// variable (what it is, its value).
    computed: Vec<(String, String)>,
}

impl ResponsePage {
    /// The page of one response: every question of the survey in order, then answers to
    /// questions removed since.
    async fn new(
        state: &AppState,
        signed_in: &SignedIn,
        survey: Arc<Survey>,
        answer: &Answer,
        place: Option<(u64, u64)>,
    ) -> Result<Self, WebError> {
        let known = crate::service::surveys::known_questions(&state.app, &survey).await?;
        let mut answers: Vec<(String, String)> = survey
            .questions
            .iter()
            .flat_map(|q| {
                let text = survey.labelled(&q.text).into_owned();
                // A loop's question: its answer for each item, in the order given.
                let items: Vec<(String, String)> = answer
                    .values
                    .iter()
                    .filter_map(|(id, value)| {
                        let (base, item) = id.looped()?;
                        (base == q.id).then(|| (format!("{text} [{item}]"), shown(value)))
                    })
                    .collect();
                match (items.is_empty(), answer.values.get(&q.id)) {
                    (false, _) => items,
                    (true, value) => vec![(
                        text,
                        value.map(shown).unwrap_or_else(|| "(no answer)".into()),
                    )],
                }
            })
            .collect();
        answers.extend(
            answer
                .values
                .iter()
                .filter(|(id, _)| survey.question_answered(id).is_none())
                .map(|(id, value)| {
                    let text = known
                        .iter()
                        .find(|q| &q.id == id)
                        .map_or_else(|| id.to_string(), |q| q.text.clone());
                    (format!("{text} (removed question)"), shown(value))
                }),
        );
        Ok(Self {
            csrf: signed_in.session.csrf.clone(),
            role: signed_in.role,
            place,
            reference: answer.reference.to_string(),
            submitted: when(answer),
            version: answer.survey_version,
            language: answer
                .language
                .as_ref()
                .map(|tag| (crate::i18n::language_name(tag.as_str()), tag.to_string())),
            files: survey
                .questions
                .iter()
                .filter_map(|q| {
                    let file = answer.file(q.id.as_str())?;
                    let path =
                        crate::links::file_download(&survey.slug, answer.reference, q.id.as_str());
                    let about = format!("{}, {}", file.kind.name(), size(file.bytes));
                    let text = survey.labelled(&q.text).into_owned();
                    Some((text, file.name.clone(), about, path))
                })
                .collect(),
            over_quota: answer
                .over_quota
                .iter()
                .map(|id| {
                    let quota = survey.quotas.iter().find(|quota| &quota.id == id);
                    quota.map_or_else(|| id.to_string(), |quota| quota.name.clone())
                })
                .collect(),
            hidden: answer
                .hidden
                .iter()
                .map(|(name, value)| (name.to_owned(), value.to_owned()))
                .collect(),
            computed: computed(answer),
            survey,
            answers,
        })
    }
}

/// What the survey computed for `answer`, as the response's page lists it.
fn computed(answer: &Answer) -> Vec<(String, String)> {
    let mut shown = Vec::new();
    if let Some(score) = answer.score {
        shown.push(("Score".to_owned(), number(score)));
    }
    if let Some(correct) = answer.correct {
        shown.push(("Correct answers".to_owned(), correct.to_string()));
    }
    if let Some(ending) = &answer.ending {
        shown.push(("Ending".to_owned(), ending.clone()));
    }
    shown.extend(
        answer
            .variables
            .iter()
            .map(|(id, value)| (format!("v.{id}"), crate::domain::expression::shown(value))),
    );
    shown
}

/// `GET /tenant/surveys/{slug}/responses/{n}`: the `n`th newest response, with previous/next.
pub async fn response(
    state: State,
    OwnSurvey { signed_in, survey }: OwnSurvey<Viewer>,
    path: web::Path<(String, u64)>,
) -> Reply {
    let (_, n) = path.into_inner();
    let (answer, total) = results::response_at(&state.app, &survey, n)
        .await?
        .ok_or(WebError::NotFound)?;
    render(&ResponsePage::new(&state, &signed_in, survey, &answer, Some((n, total))).await?)
}

/// `GET /tenant/surveys/{slug}/responses/ref/{reference}/files/{question}`: the file the
/// response gave to a file question, through a link signed for 5 minutes.
pub async fn file(
    state: State,
    OwnSurvey { survey, .. }: OwnSurvey<Viewer>,
    path: web::Path<(String, u64, String)>,
) -> Reply {
    let (_, reference, question) = path.into_inner();
    let reference = Reference(reference);
    let answer = results::response(&state.app, &survey, reference)
        .await?
        .ok_or(WebError::NotFound)?;
    let file = answer.file(&question).ok_or(WebError::NotFound)?;
    let now = time::OffsetDateTime::now_utc();
    let link = crate::web::files::signed_link(
        state.app.signing_key(),
        &survey.tenant,
        &survey.slug,
        reference,
        &question,
        file,
        now,
    );
    Ok(crate::web::files::to_link(link))
}

/// `GET /tenant/surveys/{slug}/responses/ref/{reference}`: one response by its reference
/// number (the summary's latest text answers link here): one read.
pub async fn response_by_reference(
    state: State,
    OwnSurvey { signed_in, survey }: OwnSurvey<Viewer>,
    path: web::Path<(String, u64)>,
) -> Reply {
    let (_, reference) = path.into_inner();
    let answer = results::response(&state.app, &survey, Reference(reference))
        .await?
        .ok_or(WebError::NotFound)?;
    render(&ResponsePage::new(&state, &signed_in, survey, &answer, None).await?)
}
