//! The `canvass` command: parses the command line and wires the pieces together.

use std::process::ExitCode;
use std::time::Duration;

use canvass::cli::{
    Cli, Command, MemberAction, MemberRole, Plan, PoisonAction, TenantAction, WorkersAction,
};
use canvass::config::{BackendSettings, ServeSettings};
use canvass::domain::Subscription;
use canvass::domain::member::Role;
use canvass::loadgen::LoadSettings;
use canvass::metrics::Scraped;
use canvass::metrics::listener::MetricsServer;
use canvass::startup::{Application, open_stores, open_worker_stores};
use canvass::worker::{Worker, reconcile};
use canvass::{admin, signals, telemetry};
use clap::Parser;

// Serving a submission allocates many small, short-lived buffers on several threads; glibc's
// malloc spent ~18% of the web threads' time on them (perf under `canvass loadgen`).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

type Failure = Box<dyn std::error::Error>;

/// Prints a line to stdout; a closed pipe (`canvass summary | head`) is not an error.
macro_rules! outln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stdout().lock(), $($arg)*);
    }};
}

fn main() -> ExitCode {
    canvass::startup::return_large_allocations();
    match tokio::runtime::Runtime::new() {
        Ok(runtime) => runtime.block_on(run_cli()),
        Err(error) => {
            eprintln!("canvass: cannot start the async runtime: {error}");
            ExitCode::FAILURE
        }
    }
}

async fn run_cli() -> ExitCode {
    let cli = Cli::parse();
    telemetry::init(&cli.log.settings());
    let outcome = run(cli.command).await;
    // The log's last lines before the outcome's, in order.
    telemetry::batched::flush();
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("canvass: {}", telemetry::error_chain(error.as_ref()));
            ExitCode::FAILURE
        }
    }
}

async fn run(command: Command) -> Result<(), Failure> {
    match command {
        Command::Serve(settings) => serve(settings).await,
        Command::Worker {
            backend,
            worker,
            metrics,
        } => {
            // Listen for SIGTERM before opening storage, so a stop during start-up is clean.
            let stop = signals::shutdown();
            tokio::pin!(stop);
            // Opening a remote account retries for a while when it is unreachable; a stop
            // request ends the wait.
            let stores = tokio::select! {
                stores = open_worker_stores(&backend) => stores?,
                () = &mut stop => return Ok(()),
            };
            let metrics = match &metrics.listen {
                Some(listen) => Some(MetricsServer::start(
                    listen,
                    Scraped::new(stores.clone(), Vec::new()),
                )?),
                None => None,
            };
            tracing::info!("worker started");
            worker.warn_mail_without_site();
            Worker::new(stores, worker.settings()).run(stop).await;
            if let Some(metrics) = metrics {
                metrics.stop().await;
            }
            Ok(())
        }
        Command::Tenant {
            action:
                TenantAction::Create {
                    slug,
                    name,
                    plan,
                    region,
                },
            backend,
        } => {
            let subscription = match plan {
                Plan::Standard => Subscription::Standard,
                Plan::Premium => Subscription::Premium,
            };
            let stores = open_stores(&backend).await?;
            let home = admin::home_region(&stores, region.as_deref()).await?;
            let key = admin::create_tenant(&home, &slug, &name, subscription).await?;
            let region = home
                .residency
                .regions
                .here()
                .map(|here| format!(", at home in region {here}"))
                .unwrap_or_default();
            outln!(
                "created tenant {slug} ({}{region}); its API key, shown once:",
                subscription.as_str()
            );
            outln!("{key}");
            Ok(())
        }
        Command::Member {
            action,
            public_url,
            backend,
        } => {
            let stores = open_stores(&backend).await?;
            let site = canvass::config::site_address(public_url.as_deref());
            match action {
                MemberAction::Invite {
                    tenant,
                    email,
                    role,
                } => {
                    let role = match role {
                        MemberRole::Owner => Role::Owner,
                        MemberRole::Editor => Role::Editor,
                        MemberRole::Viewer => Role::Viewer,
                    };
                    let token = admin::invite(&stores, &tenant, &email, role).await?;
                    outln!(
                        "invited {email} to {tenant} as {role}; the link works once, for 7 days:"
                    );
                    outln!("{}", canvass::links::invitation(&site, &token));
                }
                MemberAction::ResetLink { email } => {
                    let token = admin::reset_link(&stores.membership, &email).await?;
                    outln!(
                        "a link that sets a new password for {email}; it works once, for an hour:"
                    );
                    outln!("{}", canvass::links::password_reset(&site, &token));
                }
            }
            Ok(())
        }
        Command::Summary {
            tenant,
            survey,
            backend,
        } => {
            let report = admin::summary(&open_stores(&backend).await?, &tenant, &survey).await?;
            outln!("{}", serde_json::to_string_pretty(&report)?);
            Ok(())
        }
        Command::Status { json, backend } => {
            let status = admin::status(&open_stores(&backend).await?).await?;
            if json {
                outln!("{}", serde_json::json!(status));
            } else {
                outln!(
                    "workers: {}",
                    match status.paused {
                        true => "paused (`canvass workers resume` releases them)",
                        false => "running",
                    }
                );
                for depth in &status.queues {
                    let holder = depth
                        .holder
                        .as_ref()
                        .map(|owner| format!(", claimed by worker {owner}"))
                        .unwrap_or_default();
                    outln!("{depth} waiting{holder}");
                }
            }
            Ok(())
        }
        Command::Queues { json, backend } => {
            let depths = admin::queues(&open_stores(&backend).await?).await?;
            if json {
                outln!("{}", serde_json::json!({ "queues": depths }));
            } else {
                for depth in depths {
                    outln!("{depth}");
                }
            }
            Ok(())
        }
        Command::Regions { json, backend } => {
            let reports = admin::regions(&open_stores(&backend).await?).await?;
            if json {
                outln!("{}", serde_json::json!({ "regions": reports }));
            } else {
                outln!(
                    "{:<10} {:<30} {:<12} {:>8}  {}",
                    "region",
                    "address",
                    "reachable",
                    "waiting",
                    "oldest"
                );
                for region in reports {
                    let name = match region.here {
                        true => format!("{} (here)", region.name),
                        false => region.name,
                    };
                    let reachable = match &region.unreachable {
                        None => "yes".to_owned(),
                        Some(_) => "NO".to_owned(),
                    };
                    let oldest = region
                        .oldest_secs
                        .map_or_else(|| "-".to_owned(), |secs| format!("{secs} s"));
                    outln!(
                        "{name:<10} {:<30} {reachable:<12} {:>8}  {oldest}",
                        region.public_url,
                        region.waiting
                    );
                    if let Some(why) = region.unreachable {
                        outln!("           {why}");
                    }
                }
            }
            Ok(())
        }
        Command::Workers { action, backend } => {
            let stores = open_stores(&backend).await?;
            match action {
                WorkersAction::Pause => {
                    stores.operations.control.pause().await?;
                    outln!("workers paused: they finish their batch and take no more messages");
                }
                WorkersAction::Resume => {
                    stores.operations.control.resume().await?;
                    outln!("workers resumed");
                }
            }
            Ok(())
        }
        Command::Reconcile {
            grace_secs,
            backend,
        } => {
            let stores = open_stores(&backend).await?;
            let progress = |report: &reconcile::ReconcileReport| {
                eprintln!(
                    "  scanned {:>9} answers, repaired {:>6}, completed {:>4} and rebuilt {:>4} summaries",
                    report.scanned,
                    report.repaired,
                    report.completed_summaries,
                    report.rebuilt_summaries
                );
            };
            let grace = Duration::from_secs(grace_secs);
            let Some(report) = reconcile::run_locked(&stores, grace, &progress).await? else {
                outln!("another instance is reconciling now; nothing done");
                return Ok(());
            };
            outln!(
                "reconciled: {} answers scanned, {} repaired, {} summaries completed, {} rebuilt, \
                 {} blobs of deleted surveys removed",
                report.scanned,
                report.repaired,
                report.completed_summaries,
                report.rebuilt_summaries,
                report.removed
            );
            for (survey, reason) in &report.failed {
                outln!("could not reconcile {survey}: {reason}");
            }
            if report.failed.is_empty() {
                Ok(())
            } else {
                Err(format!(
                    "{} surveys could not be reconciled (the others were)",
                    report.failed.len()
                )
                .into())
            }
        }
        Command::Poison {
            action,
            json,
            backend,
        } => poison(action, json, &backend).await,
        Command::Backup { dest, storage } => backup(&storage, dest).await,
        Command::Bench { bench } => Ok(canvass::bench::run(bench).await?),
        Command::Loadgen { load, backend } => loadgen(load, backend).await,
    }
}

async fn serve(settings: ServeSettings) -> Result<(), Failure> {
    // Listen for SIGTERM before opening storage, so a stop during start-up is clean.
    let stop = signals::shutdown();
    let host = settings
        .listen
        .rsplit_once(':')
        .map_or("127.0.0.1", |(host, _)| host)
        .to_owned();
    let demo = settings.demo;
    settings.worker.warn_mail_without_site();
    let application = Application::build(settings).await?;
    let url = format!("http://{host}:{}", application.port());
    tracing::info!(%url, "Canvass is listening");
    outln!("Canvass is running at {url}/ (Ctrl-C to stop)");
    if demo {
        let (tenant, survey) = (canvass::demo::TENANT, canvass::demo::SURVEY);
        if let Some(welcome) = application.demo_created() {
            outln!(
                "Created the demo: a tenant, its survey and {} sample responses.",
                welcome.responses
            );
            outln!("Sign in as the demo owner at {url}/tenant/sign-in (shown only this once):");
            outln!("  email:    {}", canvass::demo::OWNER_EMAIL);
            outln!("  password: {}", welcome.password);
        }
        outln!("Demo survey:           {url}/s/{tenant}/{survey}");
        outln!("Demo tenant's surveys: {url}/s/{tenant}");
        outln!("Its results:           {url}/tenant/surveys/{survey}/summary (signed in)");
    }
    application.run_until(stop).await?;
    Ok(())
}

async fn backup(
    storage: &canvass::config::StorageSettings,
    dest: std::path::PathBuf,
) -> Result<(), Failure> {
    let started = std::time::Instant::now();
    let manifest = admin::backup(storage, dest.clone()).await?;
    let bytes: u64 = manifest.files.iter().map(|file| file.bytes).sum();
    outln!(
        "backed up {} files ({:.1} MB) into {} in {:.1} s; writers were held for {} ms; \
         every copy passed its integrity check and matches {}",
        manifest.files.len(),
        bytes as f64 / 1e6,
        dest.display(),
        started.elapsed().as_secs_f64(),
        manifest.writers_held_ms,
        canvass::storage::local::backup::MANIFEST,
    );
    Ok(())
}

async fn poison(
    action: PoisonAction,
    json: bool,
    backend: &BackendSettings,
) -> Result<(), Failure> {
    let stores = open_stores(backend).await?;
    match action {
        PoisonAction::List => {
            let entries = admin::poison_list(&stores).await?;
            if json {
                outln!("{}", serde_json::json!({ "messages": entries }));
            } else if entries.is_empty() {
                outln!("the poison queue is empty");
            } else {
                for entry in entries {
                    outln!(
                        "{:>8}  dequeued {:>3}x  {}",
                        entry.id,
                        entry.dequeue_count,
                        entry.content
                    );
                }
            }
        }
        PoisonAction::Requeue => {
            let (moved, stayed) = admin::poison_requeue(&stores).await?;
            outln!("requeued {moved} messages; {stayed} unreadable ones stay in the poison queue");
        }
    }
    Ok(())
}

async fn loadgen(load: LoadSettings, mut backend: BackendSettings) -> Result<(), Failure> {
    // The client mints a token per POST, tens of thousands a second: reserving references a
    // million at a time keeps that from waiting on a storage write every thousand.
    backend.stores.reference_range = backend.stores.reference_range.max(1_000_000);
    let stores = open_stores(&backend).await?;
    let (serve, ceiling) = canvass::loadgen::run(&stores, &load).await?;
    let share = |part: f64, whole: f64| 100.0 * part / whole.max(f64::EPSILON);
    if !load.pages {
        outln!("{}", serve.line("canvass serve (POST a survey form)"));
        if let Some(ceiling) = ceiling {
            outln!("{}", ceiling.line("ceiling (trivial actix POST)"));
            outln!(
                "serve / ceiling: {:.0}%",
                share(serve.per_second, ceiling.per_second)
            );
        }
        return Ok(());
    }
    outln!("{}", serve.line("canvass serve, last page (submits)"));
    outln!("  every POST of the pages: {:.0}/s", serve.posts_per_second);
    if let Some(ceiling) = ceiling {
        outln!("{}", ceiling.line("ceiling, last POST of each walk"));
        outln!("  every POST: {:.0}/s", ceiling.posts_per_second);
        outln!(
            "serve / ceiling: submissions {:.0}%, every POST {:.0}%",
            share(serve.per_second, ceiling.per_second),
            share(serve.posts_per_second, ceiling.posts_per_second)
        );
    }
    Ok(())
}
