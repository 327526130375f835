//! Settings, read from `CANVASS_*` environment variables or the matching command-line flags.
//! Every setting has a safe default, so `canvass serve` runs with none.

use std::path::PathBuf;

use clap::{Args, ValueEnum};

/// Which adapter stands behind the storage ports.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum StorageKind {
    /// One SQLite database in the data directory (the embedded default).
    Local,
    /// Nothing kept: everything is gone when the process stops. For trials and tests.
    Memory,
}

/// Where state lives; every command that touches storage reads the same settings.
#[derive(Clone, Debug, Args)]
pub struct StorageSettings {
    /// The storage backend.
    #[arg(long, env = "CANVASS_STORAGE", value_enum, default_value_t = StorageKind::Local)]
    pub storage: StorageKind,

    /// The data directory of the local backend.
    #[arg(long, env = "CANVASS_DATA_DIR", default_value = "./data")]
    pub data_dir: PathBuf,
}

/// Settings of the web server.
#[derive(Clone, Debug, Args)]
pub struct ServeSettings {
    /// Address and port to listen on (port 0 picks a free one).
    #[arg(long, env = "CANVASS_LISTEN", default_value = "127.0.0.1:8080")]
    pub listen: String,

    /// Where state lives.
    #[command(flatten)]
    pub storage: StorageSettings,
}

/// How logs are written.
#[derive(Clone, Debug, Args)]
pub struct LogSettings {
    /// Which events to log, as a tracing filter (e.g. `info`, `canvass=debug`).
    #[arg(
        long = "log",
        env = "CANVASS_LOG",
        default_value = "info",
        global = true
    )]
    pub filter: String,

    /// Log as human-readable text or one JSON object per line.
    #[arg(long, env = "CANVASS_LOG_FORMAT", value_enum, default_value_t = LogFormat::Text, global = true)]
    pub log_format: LogFormat,
}

/// A log line format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum LogFormat {
    /// Human-readable text.
    Text,
    /// One JSON object per line, for log collectors.
    Json,
}
