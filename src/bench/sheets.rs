//! `canvass bench sheets`: the XLSX and CSV downloads, rows/s and peak memory, for surveys of
//! several sizes (memory must stay flat as the survey grows).
//!
//! Each size is prepared (submitted and drained) in this process; each download is then made
//! by a child process of its own (`canvass bench sheet-download`), so its peak resident memory
//! (`VmHWM`) is the download's alone, not the preparation's.

use std::path::Path;
use std::process::Command;
use std::time::Instant;

use futures_util::StreamExt;

use super::{BenchError, Scratch, answers, open, submit};
use crate::export::{SheetFormat, SheetOptions};
use crate::storage::local;
use crate::stores::Stores;
use crate::worker::{StepOutcome, Worker, WorkerSettings};

/// Prepares each size and measures both downloads of it.
pub(super) async fn run(sizes: &[u64]) -> Result<(), BenchError> {
    let exe = std::env::current_exe().map_err(BenchError::Spawn)?;
    println!("response downloads (local backend, one survey, 4-5 answered questions each):");
    for &count in sizes {
        let dir = Scratch::new();
        let stores = open(&dir, 1).await?;
        eprintln!("preparing a survey with {count} answers");
        submit(&stores.answering, count, false, 1).await?;
        let mut worker = Worker::new(stores.clone(), WorkerSettings::default());
        while let StepOutcome::BatchDone { .. } = worker.step().await? {}
        drop(worker);
        drop(stores);
        for (format, tool) in [
            ("xlsx", None),
            ("csv", None),
            ("csv", Some("r")),
            ("csv", Some("stata")),
            ("csv", Some("spss")),
        ] {
            let what = tool.unwrap_or(format);
            eprintln!("downloading {count} answers as {what} in a process of its own");
            let output = Command::new(&exe)
                .args(["bench", "sheet-download", "--format", format, "--data-dir"])
                .arg(&dir.0)
                .args(tool.map(|tool| ["--tool", tool]).into_iter().flatten())
                .output()
                .map_err(BenchError::Spawn)?;
            if !output.status.success() {
                return Err(BenchError::Setup(format!(
                    "the {format} download failed: {}",
                    String::from_utf8_lossy(&output.stderr)
                )));
            }
            print!("{}", String::from_utf8_lossy(&output.stdout));
        }
    }
    Ok(())
}

/// Makes one download of the benchmark survey in `dir`, discarding the bytes, and prints its
/// rows/s and this process's peak memory.
pub(super) async fn download(
    dir: &Path,
    format: SheetFormat,
    tool: Option<&str>,
) -> Result<(), BenchError> {
    let stores = Stores::open(local::storage(dir).await?, &Default::default()).await?;
    let at = answers::survey_ref(0);
    let survey = answers::first_survey(&stores.catalog).await?;
    let rows = stores.answering.summaries.read(&at).await?.doc.list_len;
    let options = SheetOptions::default();
    let started = Instant::now();
    let mut bytes = 0usize;
    let layout = crate::export::sheet_layout(&stores.panel, &survey).await?;
    use crate::export::ToolFile;
    let tool = match tool {
        Some("r") => Some((ToolFile::R, "R zip")),
        Some("stata") => Some((ToolFile::Stata, "Stata")),
        Some("spss") => Some((ToolFile::Spss, "SPSS")),
        Some(other) => return Err(BenchError::Setup(format!("no download for {other}"))),
        None => None,
    };
    let mut stream = match tool {
        Some((tool, _)) => tool.stream(stores.clone(), survey, layout),
        None => format.stream(stores.clone(), survey, layout, options),
    };
    let label = tool.map_or_else(|| format!("{format:?}"), |(_, label)| label.to_owned());
    let mut shown = Instant::now();
    while let Some(chunk) = stream.next().await {
        bytes += chunk?.len();
        if shown.elapsed().as_secs() >= 2 {
            eprintln!("  {:.1} MB written", bytes as f64 / 1e6);
            shown = Instant::now();
        }
    }
    let elapsed = started.elapsed().as_secs_f64();
    println!(
        "  {label:<6} {rows:>8} rows  {elapsed:>6.2} s  {:>8.0} rows/s  {:>6.1} MB file  peak memory {}",
        rows as f64 / elapsed,
        bytes as f64 / 1e6,
        super::peak_memory().map_or_else(
            || "unknown".to_owned(),
            |kib| format!("{:.1} MB", kib as f64 * 1024.0 / 1e6)
        ),
    );
    Ok(())
}
