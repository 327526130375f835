//! Exports a survey's responses to PostgreSQL, incrementally, exactly and with bounded memory.
//!
//! The schema (migrations/, schema `canvass`) has one row per survey, version, question,
//! option, response and answered question, each carrying its tenant and survey. The survey
//! row records how far its answer list was exported (`exported_through`), so a later export
//! adds only new answers and a worker killed half-way leaves the next one to resume. Responses
//! are read a batch of list positions at a time and written in one transaction per batch,
//! which also advances `exported_through`: a job is marked done only after the last batch
//! committed. New rows are copied (`COPY`); definitions, and any response row found already
//! there, are upserted, so exporting again updates in place and never duplicates.

mod copy_text;
mod csv;
mod labelled;
pub mod limesurvey;
mod postgres;
pub mod r;
mod responses;
mod sheet;
mod spss;
mod stata;
mod target;
pub mod text_sheet;
pub mod workbook;
#[cfg(test)]
mod workbook_tests;
pub mod xlsform;
mod xlsx;

pub use csv::{csv_stream, formula_safe};
pub use postgres::MIGRATOR;
pub use sheet::{Cell, Column, Layout, SheetOptions};
pub use target::{TargetProblem, check_target};

use crate::outbound::AllowedHosts;
pub use xlsx::xlsx_stream;

use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use futures_util::StreamExt;
use futures_util::stream::BoxStream;

use sqlx::postgres::PgPoolOptions;
use time::OffsetDateTime;

use crate::domain::Answer;
use crate::stores::exports::{ExportJob, ExportStatus, HeldRequest};
use crate::stores::{Panel, StoreError, Stores};

/// A response download's file type (`responses.csv`, `responses.xlsx`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum, utoipa::ToSchema)]
#[schema(rename_all = "lowercase")]
pub enum SheetFormat {
    /// Comma-separated values.
    Csv,
    /// An Excel workbook.
    Xlsx,
}

impl SheetFormat {
    /// The format a file name's extension names, if any.
    pub fn from_extension(extension: &str) -> Option<Self> {
        [SheetFormat::Csv, SheetFormat::Xlsx]
            .into_iter()
            .find(|format| format.extension() == extension)
    }

    /// The file name's extension.
    pub fn extension(self) -> &'static str {
        match self {
            SheetFormat::Csv => "csv",
            SheetFormat::Xlsx => "xlsx",
        }
    }

    /// The HTTP content type.
    pub fn content_type(self) -> &'static str {
        match self {
            SheetFormat::Csv => "text/csv; charset=utf-8",
            SheetFormat::Xlsx => {
                "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
            }
        }
    }

    /// The survey's responses in this format, in the columns of `layout`, streamed.
    pub fn stream(
        self,
        stores: Stores,
        survey: Arc<crate::domain::Survey>,
        layout: Layout,
        options: SheetOptions,
    ) -> BoxStream<'static, Result<Bytes, StoreError>> {
        match self {
            SheetFormat::Csv => csv_stream(stores, survey, layout, options).boxed(),
            SheetFormat::Xlsx => xlsx_stream(stores, survey, layout, options).boxed(),
        }
    }
}

/// A response download for an analysts' tool, labelled (`responses.zip`, `.dta`, `.sav`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ToolFile {
    /// R: the CSV and a script that reads it typed and labelled.
    R,
    /// Stata: a `.dta` file.
    Stata,
    /// SPSS: a `.sav` system file.
    Spss,
}

impl ToolFile {
    /// The file a name's extension names, if any.
    pub fn from_extension(extension: &str) -> Option<Self> {
        [ToolFile::R, ToolFile::Stata, ToolFile::Spss]
            .into_iter()
            .find(|tool| tool.extension() == extension)
    }

    /// The file name's extension.
    pub fn extension(self) -> &'static str {
        match self {
            ToolFile::R => "zip",
            ToolFile::Stata => "dta",
            ToolFile::Spss => "sav",
        }
    }

    /// The HTTP content type.
    pub fn content_type(self) -> &'static str {
        match self {
            ToolFile::R => "application/zip",
            ToolFile::Stata => "application/x-stata-dta",
            ToolFile::Spss => "application/x-spss-sav",
        }
    }

    /// The survey's responses as this file, in the columns of `layout`, streamed.
    pub fn stream(
        self,
        stores: Stores,
        survey: Arc<crate::domain::Survey>,
        layout: Layout,
    ) -> BoxStream<'static, Result<Bytes, StoreError>> {
        match self {
            ToolFile::R => r::r_zip_stream(stores, survey, layout).boxed(),
            ToolFile::Stata => {
                labelled::labelled_stream(stores, survey, layout, &stata::NAMING, stata::write)
                    .boxed()
            }
            ToolFile::Spss => {
                labelled::labelled_stream(stores, survey, layout, &spss::NAMING, spss::write)
                    .boxed()
            }
        }
    }
}

/// The columns of a survey's response sheet: its questions', and who gave each response
/// when its answers are not anonymous and it was given participants.
pub async fn sheet_layout(
    stores: &Panel,
    survey: &crate::domain::Survey,
) -> Result<Layout, StoreError> {
    let layout = Layout::of(survey);
    if survey.anonymous {
        return Ok(layout);
    }
    let index = stores.participants.attributes(&survey.survey_ref()).await?;
    Ok(match index {
        Some(index) => layout.with_participants(&index.names),
        None => layout,
    })
}

/// Responses written per transaction: big enough that commits and COPY start-ups are a small
/// part of the time (5,000 exported 100,000 answers 1.5x as fast as 1,000), small enough that
/// a batch is a few megabytes and progress shows often.
pub const BATCH: u64 = 5000;

/// Why an export failed.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    /// No target database is configured.
    #[error("no export database is configured: set CANVASS_EXPORT_DATABASE_URL")]
    NoTarget,
    /// The target database could not be reached (the network detail goes to the log only: a
    /// tenant must not learn from it what the server can reach).
    #[error("could not connect to the export database")]
    Connect,
    /// The tenant's own database is not one the operator allows.
    #[error("{0}")]
    Refused(#[from] TargetProblem),
    /// The target database refused a statement.
    #[error("the export database refused the export: {0}")]
    Database(#[from] sqlx::Error),
    /// The schema could not be created or migrated.
    #[error("cannot prepare the export schema: {0}")]
    Migrate(#[from] sqlx::migrate::MigrateError),
    /// The survey no longer exists.
    #[error("the survey was deleted")]
    SurveyGone,
    /// Canvass's own storage failed.
    #[error("reading the answers failed: {0}")]
    Store(#[from] StoreError),
}

impl ExportError {
    /// Whether trying again later may succeed without anyone changing anything.
    pub fn is_transient(&self) -> bool {
        matches!(self, ExportError::Store(_))
    }
}

/// The database a job writes to.
#[derive(Clone, Copy, Debug)]
pub enum Target<'a> {
    /// The server's own, set by the operator.
    Server(&'a str),
    /// The tenant's, checked against the operator's allowed hosts before every connection
    /// (it may have been saved under an older rule).
    Tenant(&'a str, &'a AllowedHosts),
    /// None is set up.
    Nowhere,
}

/// Runs (or resumes) a job, saving its progress and keeping its request held after every
/// batch.
pub async fn run(
    stores: &Stores,
    job: &mut ExportJob,
    target: Target<'_>,
    held: &mut HeldRequest,
) -> Result<(), ExportError> {
    let url = match target {
        Target::Server(url) => url,
        Target::Tenant(url, allowed) => {
            check_target(allowed, url)?;
            url
        }
        Target::Nowhere => return Err(ExportError::NoTarget),
    };
    let pool = PgPoolOptions::new()
        .max_connections(2)
        .acquire_timeout(Duration::from_secs(5))
        .connect(url)
        .await
        .map_err(|error| {
            tracing::warn!(tenant = %job.tenant, id = %job.id, %error, "cannot connect to an export database");
            ExportError::Connect
        })?;
    let outcome = export(stores, job, held, &pool).await;
    pool.close().await;
    outcome
}

/// A batch being read ahead: the answers with their list positions.
type ReadAhead = tokio::task::JoinHandle<Result<Vec<(u64, Answer)>, StoreError>>;

/// Reads the answers at list positions `range`, with their positions.
async fn read_batch(
    stores: Stores,
    job: ExportJob,
    doc: std::sync::Arc<crate::stores::SummaryDoc>,
    range: std::ops::Range<u64>,
) -> Result<Vec<(u64, Answer)>, StoreError> {
    let first = range.start;
    let references = stores
        .answering
        .lists
        .references(&doc.list_view(&job.survey_ref()), range)
        .await?;
    let read = stores
        .answering
        .answers
        .get_many(&job.survey_ref(), &references)
        .await?;
    Ok((first..)
        .zip(read)
        .filter_map(|(position, answer)| answer.map(|answer| (position, answer)))
        .filter(|(_, answer)| !doc.deleted.contains(&answer.reference))
        .collect())
}

async fn export(
    stores: &Stores,
    job: &mut ExportJob,
    held: &mut HeldRequest,
    pool: &sqlx::PgPool,
) -> Result<(), ExportError> {
    MIGRATOR.run(pool).await?;
    // The job exports the survey it was asked for, not a later one with the same slug.
    let survey = stores
        .catalog
        .surveys
        .get(&job.tenant, &job.survey)
        .await?
        .filter(|survey| survey.id == job.survey_id)
        .ok_or(ExportError::SurveyGone)?;
    let versions = stores.catalog.surveys.versions(&job.survey_ref()).await?;
    postgres::write_definition(pool, &survey, &versions).await?;
    // The answers are read where they are kept (in their region, for a survey whose answers
    // stay there); the job's progress stays with the job, at home.
    let results = stores.results_of(&survey).await?.into_owned();
    let doc = results
        .answering
        .summaries
        .read(&job.survey_ref())
        .await?
        .doc;
    job.total = doc.list_len;
    job.status = ExportStatus::Running;
    job.started.get_or_insert_with(OffsetDateTime::now_utc);
    stores.operations.exports.save(job).await?;
    let doc = std::sync::Arc::new(doc);
    // The next batch is read from Canvass's storage while the current one is written to
    // PostgreSQL: reading is the slower half.
    let mut prefetched: Option<(u64, ReadAhead)> = None;
    loop {
        let mut transaction = pool.begin().await?;
        let through = postgres::lock_progress(&mut transaction, &job.tenant, &job.survey).await?;
        if through >= doc.list_len {
            transaction.commit().await?;
            break;
        }
        let end = (through + BATCH).min(doc.list_len);
        let answers = match prefetched.take() {
            Some((start, read)) if start == through => {
                read.await.map_err(|error| StoreError::Storage {
                    doing: "reading answers to export".into(),
                    source: crate::storage::Error::backend(error.to_string()),
                })??
            }
            // Another worker moved on meanwhile (or nothing was read ahead): read here.
            _ => read_batch(results.clone(), job.clone(), doc.clone(), through..end).await?,
        };
        if end < doc.list_len {
            let range = end..(end + BATCH).min(doc.list_len);
            let read = read_batch(results.clone(), job.clone(), doc.clone(), range);
            prefetched = Some((end, tokio::spawn(read)));
        }
        // Rows past the progress mark are not in the target (they commit together with the
        // mark), so they are copied; if some are there after all (written by other means),
        // the copy is undone to a savepoint and the batch upserted instead.
        let mut copy = sqlx::Connection::begin(&mut *transaction).await?;
        match postgres::copy_responses(&mut copy, &job.tenant, &job.survey, &answers).await {
            Ok(()) => copy.commit().await?,
            Err(error) if postgres::is_duplicate(&error) => {
                copy.rollback().await?;
                postgres::write_responses(&mut transaction, &job.tenant, &job.survey, &answers)
                    .await?;
            }
            Err(error) => return Err(error.into()),
        }
        postgres::set_progress(&mut transaction, &job.tenant, &job.survey, end).await?;
        transaction.commit().await?;
        job.exported = end;
        stores.operations.exports.save(job).await?;
        stores.operations.exports.keep(held).await?;
    }
    // Responses deleted since an earlier export ran leave the target now.
    let deleted: Vec<i64> = doc.deleted.iter().map(|r| r.0 as i64).collect();
    postgres::forget_responses(pool, &job.tenant, &job.survey, &deleted).await?;
    job.exported = job.total;
    job.status = ExportStatus::Done;
    job.finished = Some(OffsetDateTime::now_utc());
    stores.operations.exports.save(job).await?;
    Ok(())
}
