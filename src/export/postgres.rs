//! The statements of an export: the survey's definition, upserted; responses and answers,
//! copied in bulk with `COPY` when they are new (the common case) or upserted with `unnest`
//! when some were there already; either way a batch of responses is two statements.

use sqlx::{PgPool, Postgres, Transaction};

use super::copy_text::{CopyRows, storable};
use crate::domain::{Answer, AnswerValue, QuestionKind, Survey, SurveySlug, TenantSlug};

/// The export schema's migrations, compiled into the binary.
pub static MIGRATOR: sqlx::migrate::Migrator = sqlx::migrate!("./migrations");

/// Upserts the survey, its versions, its questions (current ones first, then any only older
/// versions had) and their options.
pub(super) async fn write_definition(
    pool: &PgPool,
    survey: &Survey,
    versions: &[Survey],
) -> Result<(), sqlx::Error> {
    let (tenant, slug) = (survey.tenant.as_str(), survey.slug.as_str());
    let mut transaction = pool.begin().await?;
    forget_other_survey(&mut transaction, survey).await?;
    sqlx::query(
        "insert into canvass.survey (tenant, survey, survey_id, title, description, version, published)
         values ($1, $2, $3, $4, $5, $6, $7)
         on conflict (tenant, survey) do update set survey_id = excluded.survey_id,
             title = excluded.title, description = excluded.description,
             version = excluded.version, published = excluded.published",
    )
    .bind(tenant)
    .bind(slug)
    .bind(survey.id.as_str())
    .bind(storable(&survey.title))
    .bind(survey.description.as_deref().map(storable))
    .bind(survey.version as i32)
    .bind(survey.published)
    .execute(&mut *transaction)
    .await?;
    for version in versions.iter().chain(std::iter::once(survey)) {
        sqlx::query(
            "insert into canvass.survey_version (tenant, survey, version, title) values ($1, $2, $3, $4)
             on conflict (tenant, survey, version) do update set title = excluded.title",
        )
        .bind(tenant)
        .bind(slug)
        .bind(version.version as i32)
        .bind(storable(&version.title))
        .execute(&mut *transaction)
        .await?;
    }
    let mut seen = std::collections::HashSet::new();
    let questions = std::iter::once(survey)
        .chain(versions.iter().rev())
        .flat_map(|s| s.questions.iter())
        .filter(|q| seen.insert(q.id.clone()));
    for (position, question) in questions.enumerate() {
        let (min, max, integer) = match &question.kind {
            QuestionKind::Numeric { min, max, integer } => (*min, *max, *integer),
            _ => (None, None, false),
        };
        let (points, min_label, max_label) = match &question.kind {
            QuestionKind::Scale {
                points,
                min_label,
                max_label,
            } => (
                Some(i32::from(*points)),
                min_label.as_deref().map(storable),
                max_label.as_deref().map(storable),
            ),
            QuestionKind::Nps => (Some(11), None, None),
            _ => (None, None, None),
        };
        let (earliest, latest) = match &question.kind {
            QuestionKind::Date { earliest, latest } => (earliest.as_deref(), latest.as_deref()),
            _ => (None, None),
        };
        sqlx::query(
            "insert into canvass.question (tenant, survey, question, position, text, type, required, min, max,
                 integer_only, points, min_label, max_label, earliest, latest)
             values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14::date, $15::date)
             on conflict (tenant, survey, question) do update set position = excluded.position,
                 text = excluded.text, type = excluded.type, required = excluded.required,
                 min = excluded.min, max = excluded.max, integer_only = excluded.integer_only,
                 points = excluded.points, min_label = excluded.min_label,
                 max_label = excluded.max_label, earliest = excluded.earliest,
                 latest = excluded.latest",
        )
        .bind(tenant)
        .bind(slug)
        .bind(question.id.as_str())
        .bind(position as i32)
        .bind(storable(&question.text))
        .bind(question.kind.name())
        .bind(question.required)
        .bind(min)
        .bind(max)
        .bind(integer)
        .bind(points)
        .bind(min_label)
        .bind(max_label)
        .bind(earliest)
        .bind(latest)
        .execute(&mut *transaction)
        .await?;
        for (index, option) in question.kind.options().iter().enumerate() {
            sqlx::query(
                "insert into canvass.option (tenant, survey, question, position, text) values ($1, $2, $3, $4, $5)
                 on conflict (tenant, survey, question, position) do update set text = excluded.text",
            )
            .bind(tenant)
            .bind(slug)
            .bind(question.id.as_str())
            .bind(index as i32)
            .bind(storable(option))
            .execute(&mut *transaction)
            .await?;
        }
    }
    transaction.commit().await
}

/// Removes every row of an earlier survey that had this slug (deleted since, and another made
/// under its slug): the new one's export starts from nothing, never from the old one's mark.
async fn forget_other_survey(
    transaction: &mut Transaction<'_, Postgres>,
    survey: &Survey,
) -> Result<(), sqlx::Error> {
    let (tenant, slug) = (survey.tenant.as_str(), survey.slug.as_str());
    let exported: Option<String> = sqlx::query_scalar(
        "select survey_id from canvass.survey where tenant = $1 and survey = $2 for update",
    )
    .bind(tenant)
    .bind(slug)
    .fetch_optional(&mut **transaction)
    .await?;
    if exported.is_none_or(|id| id == survey.id.as_str()) {
        return Ok(());
    }
    for statement in [
        "delete from canvass.answer where tenant = $1 and survey = $2",
        "delete from canvass.response where tenant = $1 and survey = $2",
        "delete from canvass.option where tenant = $1 and survey = $2",
        "delete from canvass.question where tenant = $1 and survey = $2",
        "delete from canvass.survey_version where tenant = $1 and survey = $2",
        "delete from canvass.survey where tenant = $1 and survey = $2",
    ] {
        sqlx::query(statement)
            .bind(tenant)
            .bind(slug)
            .execute(&mut **transaction)
            .await?;
    }
    Ok(())
}

/// Removes the rows of deleted responses (and their answers), wherever the earlier exports
/// put them.
pub(super) async fn forget_responses(
    pool: &sqlx::PgPool,
    tenant: &TenantSlug,
    survey: &SurveySlug,
    deleted: &[i64],
) -> Result<(), sqlx::Error> {
    if deleted.is_empty() {
        return Ok(());
    }
    let mut transaction = pool.begin().await?;
    for statement in [
        "delete from canvass.answer where tenant = $1 and survey = $2 and reference = any($3)",
        "delete from canvass.response where tenant = $1 and survey = $2 and reference = any($3)",
    ] {
        sqlx::query(statement)
            .bind(tenant.as_str())
            .bind(survey.as_str())
            .bind(deleted)
            .execute(&mut *transaction)
            .await?;
    }
    transaction.commit().await
}

/// Locks the survey's row for this batch and returns how far it was exported.
pub(super) async fn lock_progress(
    transaction: &mut Transaction<'_, Postgres>,
    tenant: &TenantSlug,
    survey: &SurveySlug,
) -> Result<u64, sqlx::Error> {
    let through: i64 = sqlx::query_scalar(
        "select exported_through from canvass.survey where tenant = $1 and survey = $2 for update",
    )
    .bind(tenant.as_str())
    .bind(survey.as_str())
    .fetch_one(&mut **transaction)
    .await?;
    Ok(u64::try_from(through).unwrap_or(0))
}

/// Records how far the survey is exported.
pub(super) async fn set_progress(
    transaction: &mut Transaction<'_, Postgres>,
    tenant: &TenantSlug,
    survey: &SurveySlug,
    through: u64,
) -> Result<(), sqlx::Error> {
    sqlx::query(
        "update canvass.survey set exported_through = $3, exported_at = now()
         where tenant = $1 and survey = $2",
    )
    .bind(tenant.as_str())
    .bind(survey.as_str())
    .bind(through as i64)
    .execute(&mut **transaction)
    .await?;
    Ok(())
}

/// Copies a batch of responses (with their list positions) and their answers that are not in
/// the target yet. Fails with a unique violation if any of them is.
pub(super) async fn copy_responses(
    transaction: &mut Transaction<'_, Postgres>,
    tenant: &TenantSlug,
    survey: &SurveySlug,
    answers: &[(u64, Answer)],
) -> Result<(), sqlx::Error> {
    let (mut responses, mut rows) = (CopyRows::default(), CopyRows::default());
    for (position, answer) in answers {
        responses
            .text(tenant.as_str())
            .text(survey.as_str())
            .plain(answer.reference.0)
            .text(&submitted_at(answer))
            .plain(answer.survey_version)
            .plain(position)
            .or_null(
                answer.language.as_ref().map(|tag| tag.as_str()),
                CopyRows::text,
            )
            .or_null(over_quota(answer), |rows, ids| {
                rows.text_array(ids.iter().map(String::as_str))
            })
            .or_null(participant(answer).as_deref(), CopyRows::text)
            .or_null(hidden(answer).as_deref(), CopyRows::text)
            .or_null(shown_order(answer).as_deref(), CopyRows::text)
            .or_null(variables(answer).as_deref(), CopyRows::text)
            .or_null(answer.score, CopyRows::plain)
            .or_null(answer.correct, CopyRows::plain)
            .or_null(answer.ending.as_deref(), CopyRows::text)
            .end_row();
        for (question, value) in &answer.values {
            let columns = AnswerColumns::of(value);
            let path = file_path(survey, answer, question.as_str(), value);
            let (id, item) = row_key(question);
            rows.text(tenant.as_str())
                .text(survey.as_str())
                .plain(answer.reference.0)
                .text(&id)
                .text(&item)
                .or_null(columns.text, CopyRows::text)
                .or_null(columns.choice, CopyRows::text)
                .or_null(columns.choices, |rows, choices| {
                    rows.text_array(choices.iter().map(String::as_str))
                })
                .or_null(columns.number, CopyRows::plain)
                .or_null(columns.date, CopyRows::text)
                .or_null(path.as_deref(), CopyRows::text)
                .end_row();
        }
    }
    copy_in(
        transaction,
        "copy canvass.response (tenant, survey, reference, submitted_at, version, position, language, over_quota, participant, hidden, shown_order, variables, score, correct, ending) from stdin",
        responses,
    )
    .await?;
    copy_in(
        transaction,
        "copy canvass.answer (tenant, survey, reference, question, item, text, choice, choices, number, date, file_path) from stdin",
        rows,
    )
    .await
}

async fn copy_in(
    transaction: &mut Transaction<'_, Postgres>,
    statement: &str,
    rows: CopyRows,
) -> Result<(), sqlx::Error> {
    let mut copy = transaction.copy_in_raw(statement).await?;
    if let Err(error) = copy.send(rows.into_bytes()).await {
        // The connection must leave copy mode before it can report anything else.
        let _ = copy.abort(error.to_string()).await;
        return Err(error);
    }
    copy.finish().await.map(drop)
}

/// The `question` and `item` of an answer's row: a loop's answer (`ID[item]`) is a row per
/// item under the question's own id; any other has the empty item.
fn row_key(question: &crate::domain::QuestionId) -> (String, String) {
    match question.looped() {
        Some((id, item)) => (id.to_string(), item.to_owned()),
        None => (question.to_string(), String::new()),
    }
}

/// The quotas an answer was kept over, by id (`None`: none, written as NULL).
fn over_quota(answer: &Answer) -> Option<Vec<String>> {
    (!answer.over_quota.is_empty())
        .then(|| answer.over_quota.iter().map(ToString::to_string).collect())
}

/// Who gave an answer, as JSON (`None`: not a named participant, written as NULL).
fn participant(answer: &Answer) -> Option<String> {
    let who = answer.participant.as_ref()?;
    serde_json::to_string(who).ok()
}

/// The hidden fields' values an answer's address gave, as JSON (`None`: none, written as
/// NULL).
fn hidden(answer: &Answer) -> Option<String> {
    (!answer.hidden.is_empty())
        .then(|| serde_json::to_string(&answer.hidden).ok())
        .flatten()
}

/// The orders drawn for an answer's respondent, as JSON (`None`: none drawn, written as
/// NULL).
fn shown_order(answer: &Answer) -> Option<String> {
    (!answer.order.is_empty())
        .then(|| serde_json::to_string(&answer.order).ok())
        .flatten()
}

/// The variables computed for an answer, as JSON (`None`: none had a value, written as
/// NULL).
fn variables(answer: &Answer) -> Option<String> {
    (!answer.variables.is_empty())
        .then(|| serde_json::to_string(&answer.variables).ok())
        .flatten()
}

/// Whether `error` says a row was there already.
pub(super) fn is_duplicate(error: &sqlx::Error) -> bool {
    error
        .as_database_error()
        .is_some_and(|error| error.kind() == sqlx::error::ErrorKind::UniqueViolation)
}

/// Upserts a batch of responses (with their list positions) and their answers.
pub(super) async fn write_responses(
    transaction: &mut Transaction<'_, Postgres>,
    tenant: &TenantSlug,
    survey: &SurveySlug,
    answers: &[(u64, Answer)],
) -> Result<(), sqlx::Error> {
    let references: Vec<i64> = answers.iter().map(|(_, a)| a.reference.0 as i64).collect();
    let submitted: Vec<String> = answers.iter().map(|(_, a)| submitted_at(a)).collect();
    let versions: Vec<i32> = answers
        .iter()
        .map(|(_, a)| a.survey_version as i32)
        .collect();
    let positions: Vec<i64> = answers.iter().map(|(p, _)| *p as i64).collect();
    let languages: Vec<Option<String>> = answers
        .iter()
        .map(|(_, a)| a.language.as_ref().map(ToString::to_string))
        .collect();
    // Arrays of arrays do not unnest: each response's quotas travel as a JSON array.
    let over: Vec<Option<String>> = answers
        .iter()
        .map(|(_, a)| over_quota(a).and_then(|ids| serde_json::to_string(&ids).ok()))
        .collect();
    let participants: Vec<Option<String>> = answers.iter().map(|(_, a)| participant(a)).collect();
    let hiddens: Vec<Option<String>> = answers.iter().map(|(_, a)| hidden(a)).collect();
    let orders: Vec<Option<String>> = answers.iter().map(|(_, a)| shown_order(a)).collect();
    let variables: Vec<Option<String>> = answers.iter().map(|(_, a)| variables(a)).collect();
    let scores: Vec<Option<f64>> = answers.iter().map(|(_, a)| a.score).collect();
    let corrects: Vec<Option<i32>> = answers
        .iter()
        .map(|(_, a)| a.correct.map(|n| i32::try_from(n).unwrap_or(i32::MAX)))
        .collect();
    let endings: Vec<Option<String>> = answers.iter().map(|(_, a)| a.ending.clone()).collect();
    sqlx::query(
        "insert into canvass.response (tenant, survey, reference, submitted_at, version, position, language, over_quota, participant, hidden, shown_order, variables, score, correct, ending)
         select $1, $2, r, s::timestamptz, v, p, l,
             case when o is null then null else array(select jsonb_array_elements_text(o::jsonb)) end,
             w::jsonb, h::jsonb, d::jsonb, x::jsonb, sc, co, en
         from unnest($3::bigint[], $4::text[], $5::int[], $6::bigint[], $7::text[], $8::text[], $9::text[], $10::text[], $11::text[], $12::text[], $13::float8[], $14::int[], $15::text[]) as u(r, s, v, p, l, o, w, h, d, x, sc, co, en)
         on conflict (tenant, survey, reference) do update set submitted_at = excluded.submitted_at,
             version = excluded.version, position = excluded.position, language = excluded.language,
             over_quota = excluded.over_quota, participant = excluded.participant, hidden = excluded.hidden,
             shown_order = excluded.shown_order, variables = excluded.variables, score = excluded.score,
             correct = excluded.correct, ending = excluded.ending",
    )
    .bind(tenant.as_str())
    .bind(survey.as_str())
    .bind(&references)
    .bind(&submitted)
    .bind(&versions)
    .bind(&positions)
    .bind(&languages)
    .bind(&over)
    .bind(&participants)
    .bind(&hiddens)
    .bind(&orders)
    .bind(&variables)
    .bind(&scores)
    .bind(&corrects)
    .bind(&endings)
    .execute(&mut **transaction)
    .await?;

    let mut rows = AnswerRows::default();
    for (_, answer) in answers {
        for (question, value) in &answer.values {
            let path = file_path(survey, answer, question.as_str(), value);
            rows.push(answer.reference.0 as i64, row_key(question), value, path);
        }
    }
    sqlx::query(
        "insert into canvass.answer (tenant, survey, reference, question, item, text, choice, choices, number, date, file_path)
         select $1, $2, r, q, i, t, c,
             case when cs is null then null else array(select jsonb_array_elements_text(cs::jsonb)) end, n,
             d::date, f
         from unnest($3::bigint[], $4::text[], $5::text[], $6::text[], $7::text[], $8::float8[], $9::text[], $10::text[], $11::text[])
             as u(r, q, t, c, cs, n, d, f, i)
         on conflict (tenant, survey, reference, question, item) do update set text = excluded.text,
             choice = excluded.choice, choices = excluded.choices, number = excluded.number,
             date = excluded.date, file_path = excluded.file_path",
    )
    .bind(tenant.as_str())
    .bind(survey.as_str())
    .bind(&rows.references)
    .bind(&rows.questions)
    .bind(&rows.texts)
    .bind(&rows.choices)
    .bind(&rows.choice_lists)
    .bind(&rows.numbers)
    .bind(&rows.dates)
    .bind(&rows.paths)
    .bind(&rows.items)
    .execute(&mut **transaction)
    .await?;
    Ok(())
}

/// Answer rows as columns, for `unnest`.
#[derive(Default)]
struct AnswerRows {
    references: Vec<i64>,
    questions: Vec<String>,
    texts: Vec<Option<String>>,
    choices: Vec<Option<String>>,
    choice_lists: Vec<Option<String>>,
    numbers: Vec<Option<f64>>,
    dates: Vec<Option<String>>,
    paths: Vec<Option<String>>,
    items: Vec<String>,
}

impl AnswerRows {
    fn push(
        &mut self,
        reference: i64,
        (question, item): (String, String),
        value: &AnswerValue,
        path: Option<String>,
    ) {
        self.paths.push(path);
        let columns = AnswerColumns::of(value);
        self.references.push(reference);
        self.questions.push(question);
        self.items.push(item);
        self.texts
            .push(columns.text.map(|t| storable(t).into_owned()));
        self.choices
            .push(columns.choice.map(|c| storable(c).into_owned()));
        self.choice_lists.push(columns.choices.and_then(|cs| {
            let cs: Vec<_> = cs.iter().map(|c| storable(c)).collect();
            serde_json::to_string(&cs).ok()
        }));
        self.numbers.push(columns.number);
        self.dates.push(columns.date.map(str::to_owned));
    }
}

/// The typed columns of `canvass.answer` for one value: the one that holds it, the rest NULL.
struct AnswerColumns<'a> {
    text: Option<&'a str>,
    choice: Option<&'a str>,
    choices: Option<std::borrow::Cow<'a, [String]>>,
    number: Option<f64>,
    date: Option<&'a str>,
}

impl<'a> AnswerColumns<'a> {
    fn of(value: &'a AnswerValue) -> Self {
        let mut columns = Self {
            text: None,
            choice: None,
            choices: None,
            number: None,
            date: None,
        };
        match value {
            AnswerValue::Text(text) => columns.text = Some(text),
            AnswerValue::Choice(choice) => columns.choice = Some(choice),
            AnswerValue::Choices(choices) | AnswerValue::Ranking(choices) => {
                columns.choices = Some(choices.into())
            }
            // Each row answered, as "row: column".
            AnswerValue::Matrix(picked) => {
                let cells: Vec<String> = picked
                    .iter()
                    .map(|(row, column)| format!("{row}: {column}"))
                    .collect();
                columns.choices = Some(cells.into());
            }
            AnswerValue::Stars(stars) => columns.number = Some(f64::from(*stars)),
            AnswerValue::Number(number) => columns.number = Some(*number),
            AnswerValue::Point(point) => columns.number = Some(f64::from(*point)),
            AnswerValue::Date(date) => columns.date = Some(date),
            // Its name, kind and size; its download path goes in `file_path`.
            AnswerValue::File(file) => {
                columns.text = Some(&file.name);
                columns.choice = Some(file.kind.name());
                columns.number = Some(file.bytes as f64);
            }
            // The choice (or choices) with "Other", and what it means in the text column.
            AnswerValue::Other { picked, text } => {
                columns.text = Some(text);
                if picked.is_empty() {
                    columns.choice = Some(crate::domain::choice::OTHER);
                } else {
                    let with_other: Vec<String> = picked
                        .iter()
                        .cloned()
                        .chain([crate::domain::choice::OTHER.to_owned()])
                        .collect();
                    columns.choices = Some(with_other.into());
                }
            }
        }
        columns
    }
}

/// A file answer's download path for members; `None` for other answers.
fn file_path(
    survey: &SurveySlug,
    answer: &Answer,
    question: &str,
    value: &AnswerValue,
) -> Option<String> {
    matches!(value, AnswerValue::File(_))
        .then(|| crate::links::file_download(survey, answer.reference, question))
}

/// When the answer was given, as `timestamptz` input.
fn submitted_at(answer: &Answer) -> String {
    answer
        .submitted_at
        .format(&time::format_description::well_known::Rfc3339)
        .unwrap_or_default()
}
