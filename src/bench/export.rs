//! `canvass bench export`: export rows/s against a raw `\copy` of the same rows through psql,
//! in the same run, on a scratch database.

use std::process::Command;
use std::time::Instant;

use sqlx::{Connection, PgConnection};

use super::{BenchError, Scratch, answers, open, submit};
use crate::stores::exports::ExportStatus;
use crate::worker::{StepOutcome, Worker, WorkerSettings};

fn database(error: impl std::fmt::Display) -> BenchError {
    BenchError::Database(error.to_string())
}

fn psql(url: &str, command: &str) -> Result<(), BenchError> {
    let status = Command::new("psql")
        .args([url, "-q", "-v", "ON_ERROR_STOP=1", "-c", command])
        .status()
        .map_err(|error| database(format!("cannot run psql: {error}")))?;
    status
        .success()
        .then_some(())
        .ok_or_else(|| database(format!("psql failed: {command}")))
}

/// Runs the benchmark.
pub(super) async fn run(count: u64, server_url: &str) -> Result<(), BenchError> {
    let name = format!("canvass_bench_{}", uuid::Uuid::new_v4().simple());
    let url = match server_url.rsplit_once('/') {
        Some((server, _)) => format!("{server}/{name}"),
        None => return Err(database(format!("{server_url} names no database"))),
    };
    let mut admin = PgConnection::connect(server_url).await.map_err(database)?;
    sqlx::raw_sql(sqlx::AssertSqlSafe(format!("create database {name}")))
        .execute(&mut admin)
        .await
        .map_err(database)?;
    let outcome = measure(count, &url).await;
    let drop = format!("drop database if exists {name} with (force)");
    let _ = sqlx::raw_sql(sqlx::AssertSqlSafe(drop))
        .execute(&mut admin)
        .await;
    outcome
}

async fn measure(count: u64, url: &str) -> Result<(), BenchError> {
    let dir = Scratch::new();
    let stores = open(&dir, 1).await?;
    eprintln!("preparing a survey with {count} answers");
    submit(&stores.answering, count, false, 1).await?;
    let settings = WorkerSettings {
        export_database_url: Some(url.to_owned()),
        ..WorkerSettings::default()
    };
    let mut worker = Worker::new(stores.clone(), settings);
    while let StepOutcome::BatchDone { .. } = worker.step().await? {}

    let job = stores
        .operations
        .exports
        .request(&answers::survey_ref(0))
        .await?;
    eprintln!("exporting");
    let started = Instant::now();
    worker.step().await?;
    let elapsed = started.elapsed();
    let job = stores
        .operations
        .exports
        .get(&job.tenant, &job.id)
        .await?
        .ok_or_else(|| database("the job vanished"))?;
    if job.status != ExportStatus::Done {
        return Err(database(format!(
            "the export ended {:?}: {:?}",
            job.status, job.error
        )));
    }
    let mut connection = PgConnection::connect(url).await.map_err(database)?;
    let rows: i64 = sqlx::query_scalar(
        "select (select count(*) from canvass.response) + (select count(*) from canvass.answer)",
    )
    .fetch_one(&mut connection)
    .await
    .map_err(database)?;

    // The same rows, copied raw into tables of the same shape and keys.
    let files = dir.0.join("copy");
    std::fs::create_dir_all(&files).map_err(database)?;
    let (responses, answers) = (files.join("response.csv"), files.join("answer.csv"));
    psql(
        url,
        "create table copy_response (like canvass.response including all); create table copy_answer (like canvass.answer including all)",
    )?;
    psql(
        url,
        &format!("\\copy canvass.response to '{}' csv", responses.display()),
    )?;
    psql(
        url,
        &format!("\\copy canvass.answer to '{}' csv", answers.display()),
    )?;
    let copy_started = Instant::now();
    psql(
        url,
        &format!("\\copy copy_response from '{}' csv", responses.display()),
    )?;
    psql(
        url,
        &format!("\\copy copy_answer from '{}' csv", answers.display()),
    )?;
    let copy_elapsed = copy_started.elapsed();

    let ours = rows as f64 / elapsed.as_secs_f64();
    let raw = rows as f64 / copy_elapsed.as_secs_f64();
    println!("export of {count} answers = {rows} rows (responses + answers) to PostgreSQL:");
    println!(
        "  canvass export: {:>7.2} s  {ours:>9.0} rows/s",
        elapsed.as_secs_f64()
    );
    println!(
        "  psql \\copy:     {:>7.2} s  {raw:>9.0} rows/s",
        copy_elapsed.as_secs_f64()
    );
    println!("  export / raw copy: {:.0}%", 100.0 * ours / raw);
    match super::peak_memory() {
        Some(kib) => println!(
            "  peak memory of this process (preparing and exporting): {:.1} MB",
            kib as f64 * 1024.0 / 1e6
        ),
        None => println!("  peak memory: not known on this system (no /proc/self/status)"),
    }
    Ok(())
}
