//! What the process tells its operator, at the ground of the house (it imports nothing above
//! the domain): structured logs with tracing, set up once per process and written to stderr
//! in batches (`batched`); errors with their causes on one line; and the metrics registry
//! (`metrics`) recorded into from every layer.

pub mod batched;
pub mod metrics;

use tracing_subscriber::EnvFilter;

/// How logs are written.
#[derive(Clone, Debug)]
pub struct LogSettings {
    /// Which events to log, as a tracing filter (e.g. `info`, `canvass=debug`).
    pub filter: String,
    /// Text or JSON.
    pub log_format: LogFormat,
}

/// The filter when none is set.
pub const DEFAULT_FILTER: &str = "info";

/// A log line format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum LogFormat {
    /// Human-readable text.
    Text,
    /// One JSON object per line, for log collectors.
    Json,
}

/// Installs the global subscriber; logs go to stderr so stdout stays free for command output,
/// lines below a warning within `batched::FLUSH_EVERY` (call `batched::flush` before exiting).
pub fn init(settings: &LogSettings) {
    let filter = EnvFilter::try_new(&settings.filter).unwrap_or_else(|error| {
        eprintln!(
            "CANVASS_LOG={:?} is not a valid filter ({error}); using `info`",
            settings.filter
        );
        EnvFilter::new("info")
    });
    // Colours only for a person at a terminal: a log file or a collector gets plain text, and
    // the escape codes cost a twelfth of a busy server's instructions.
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .with_writer(batched::BatchedStderr);
    batched::start();
    // Another subscriber may already be installed (tests); keeping it is fine.
    let _ = match settings.log_format {
        LogFormat::Text => builder.try_init(),
        LogFormat::Json => builder.json().try_init(),
    };
}

/// An error with its whole cause chain, for one log line.
pub fn error_chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}
