//! The `canvass` command line: every command, flag and environment variable, as clap reads
//! them (`main` runs them). The configuration reference in docs/ is generated from these
//! definitions (`configuration_reference`), so it cannot fall behind them.

use clap::{Parser, Subcommand};

use crate::config::{BackendSettings, LogArgs, MetricsArgs, ServeSettings, WorkerArgs};
use crate::loadgen::LoadSettings;
use crate::worker::reconcile;

/// Canvass: a multi-tenant survey service.
#[derive(Parser)]
#[command(version, about)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,

    #[command(flatten)]
    pub log: LogArgs,
}

#[derive(Subcommand)]
pub enum Command {
    /// Serve the public site, the tenant site and the JSON API (and run a worker unless
    /// --no-worker).
    Serve(ServeSettings),
    /// Process queued answers until stopped; start as many as you like.
    Worker {
        #[command(flatten)]
        backend: BackendSettings,
        #[command(flatten)]
        worker: WorkerArgs,
        #[command(flatten)]
        metrics: MetricsArgs,
    },
    /// Manage tenants.
    Tenant {
        #[command(subcommand)]
        action: TenantAction,
        #[command(flatten)]
        backend: BackendSettings,
    },
    /// Invite members and make password-reset links (links print alone on the last line).
    Member {
        #[command(subcommand)]
        action: MemberAction,
        /// The site's address, which the links start with.
        #[arg(long, env = "CANVASS_PUBLIC_URL", global = true)]
        public_url: Option<String>,
        #[command(flatten)]
        backend: BackendSettings,
    },
    /// Print a survey's current summary as one JSON object.
    Summary {
        /// The tenant's slug.
        tenant: String,
        /// The survey's slug.
        survey: String,
        #[command(flatten)]
        backend: BackendSettings,
    },
    /// Print whether workers are paused and what waits for them: each queue (answers,
    /// exports, deletions, email, mailings, webhook deliveries, segment builds) and its length.
    Status {
        /// Print JSON instead of lines.
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        backend: BackendSettings,
    },
    /// Print every queue with its approximate length.
    Queues {
        /// Print JSON instead of a table.
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        backend: BackendSettings,
    },
    /// List the installation's regions: each one's address, whether it can be reached from
    /// here, and how many answers wait there to move home (and how long the oldest has).
    Regions {
        /// Print JSON instead of a table.
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        backend: BackendSettings,
    },
    /// Hold or release every worker (a flag in storage that workers poll).
    Workers {
        #[command(subcommand)]
        action: WorkersAction,
        #[command(flatten)]
        backend: BackendSettings,
    },
    /// Repair answers that never reached their list and summary (one instance at a time).
    Reconcile {
        /// Only answers stored at least this many seconds ago are looked at.
        #[arg(long, default_value_t = reconcile::GRACE.as_secs())]
        grace_secs: u64,
        #[command(flatten)]
        backend: BackendSettings,
    },
    /// List or requeue the messages in the poison queue.
    Poison {
        #[command(subcommand)]
        action: PoisonAction,
        /// Print JSON instead of lines.
        #[arg(long, global = true)]
        json: bool,
        #[command(flatten)]
        backend: BackendSettings,
    },
    /// Back up the local data directory while serve and workers keep running, into the new
    /// or empty directory DEST (with a manifest, each copy integrity-checked and verified).
    Backup {
        /// Where the backup goes: a new or empty directory.
        dest: std::path::PathBuf,
        #[command(flatten)]
        storage: crate::config::StorageSettings,
    },
    /// Run one of the worker's benchmarks on a fresh local data directory.
    Bench {
        #[command(subcommand)]
        bench: crate::bench::Bench,
    },
    /// Measure submissions/s and latency of a running serve against a trivial handler.
    Loadgen {
        #[command(flatten)]
        load: LoadSettings,
        #[command(flatten)]
        backend: BackendSettings,
    },
}

#[derive(Subcommand)]
pub enum TenantAction {
    /// Create a tenant and print its new API key alone on the last line.
    Create {
        /// The tenant's slug (lowercase letters, digits and dashes).
        #[arg(long)]
        slug: String,
        /// Its display name.
        #[arg(long)]
        name: String,
        /// Its subscription.
        #[arg(long, value_enum, default_value_t = Plan::Standard)]
        plan: Plan,
        /// Its home region, one of the regions file's (by default this process's region);
        /// its account, surveys and results live there.
        #[arg(long)]
        region: Option<String>,
    },
}

#[derive(Subcommand)]
pub enum MemberAction {
    /// Invite someone to a tenant; prints the invitation link (single use, 7 days).
    Invite {
        /// The tenant's slug.
        #[arg(long)]
        tenant: String,
        /// Who is invited.
        #[arg(long)]
        email: String,
        /// The role they will have.
        #[arg(long, value_enum)]
        role: MemberRole,
    },
    /// Make a link that sets a new password for the account with this address (single use,
    /// one hour).
    ResetLink {
        /// The account's email address.
        email: String,
    },
}

#[derive(Clone, Copy, clap::ValueEnum)]
pub enum MemberRole {
    Owner,
    Editor,
    Viewer,
}

#[derive(Clone, Copy, clap::ValueEnum)]
pub enum Plan {
    Standard,
    Premium,
}

#[derive(Subcommand)]
pub enum WorkersAction {
    /// Hold every worker: they finish their batch and take no more messages.
    Pause,
    /// Release every worker.
    Resume,
}

#[derive(Subcommand)]
pub enum PoisonAction {
    /// Show the poison messages (they stay in the poison queue).
    List,
    /// Move every readable poison message back to its tenant's queue.
    Requeue,
}

/// The configuration reference (docs/configuration.md): every environment variable the
/// commands read, with its flag, default, the commands that read it and its help text, in
/// the order the commands define them.
pub fn configuration_reference() -> String {
    use clap::CommandFactory;
    struct Row {
        flag: String,
        default: String,
        commands: Vec<String>,
        help: String,
    }
    let mut rows: Vec<(String, Row)> = Vec::new();
    let root = Cli::command();
    let mut pending: Vec<(String, clap::Command)> = root
        .get_subcommands()
        .map(|c| (c.get_name().to_owned(), c.clone()))
        .collect();
    pending.reverse();
    let globals: Vec<clap::Arg> = root.get_arguments().cloned().collect();
    let mut visit = |command: &str, arg: &clap::Arg| {
        let Some(env) = arg.get_env().map(|e| e.to_string_lossy().into_owned()) else {
            return;
        };
        if arg.is_hide_set() {
            return;
        }
        let top = match command {
            "every command" => command.to_owned(),
            path => path.split(' ').next().unwrap_or(path).to_owned(),
        };
        if let Some((_, row)) = rows.iter_mut().find(|(name, _)| *name == env) {
            if !row.commands.contains(&top) {
                row.commands.push(top);
            }
            return;
        }
        let help = arg
            .get_long_help()
            .or(arg.get_help())
            .map(|h| h.to_string())
            .unwrap_or_default();
        let default = arg
            .get_default_values()
            .iter()
            .map(|v| v.to_string_lossy().into_owned())
            .collect::<Vec<_>>()
            .join(", ");
        rows.push((
            env,
            Row {
                flag: arg.get_long().map(|l| format!("--{l}")).unwrap_or_default(),
                default,
                commands: vec![top],
                help: help.split_whitespace().collect::<Vec<_>>().join(" "),
            },
        ));
    };
    for arg in &globals {
        visit("every command", arg);
    }
    while let Some((path, command)) = pending.pop() {
        for arg in command.get_arguments() {
            visit(&path, arg);
        }
        let mut children: Vec<(String, clap::Command)> = command
            .get_subcommands()
            .map(|c| (format!("{path} {}", c.get_name()), c.clone()))
            .collect();
        children.reverse();
        pending.extend(children);
    }
    let cell = |text: &str| text.replace('|', "\\|");
    let mut out = String::from(
        "# Configuration reference\n\n\
         Every setting is an environment variable and a flag of the same meaning (the flag wins).\n\
         This file is generated from the command's own definitions (`src/cli.rs`, \
         `src/config.rs`) by `scripts/docs`; a test fails when it differs from what the code \
         generates. How to combine them for a deployment is in [operators.md](operators.md).\n\n\
         | variable | flag | default | read by | what it does |\n|---|---|---|---|---|\n",
    );
    for (env, row) in rows {
        let default = match row.default.as_str() {
            "" => "none".to_owned(),
            value => format!("`{}`", cell(value)),
        };
        out.push_str(&format!(
            "| `{env}` | `{}` | {default} | {} | {} |\n",
            row.flag,
            row.commands.join(", "),
            cell(&row.help)
        ));
    }
    out
}
