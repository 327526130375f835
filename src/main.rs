//! The `canvass` command: parses the command line and wires the pieces together.

use std::process::ExitCode;

use canvass::config::{LogSettings, ServeSettings, StorageSettings, StoreArgs};
use canvass::loadgen::LoadSettings;
use canvass::startup::Application;
use canvass::startup::open_storage;
use canvass::stores::Stores;
use canvass::telemetry;
use clap::{Parser, Subcommand};

/// Canvass: a multi-tenant survey service.
#[derive(Parser)]
#[command(version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,

    #[command(flatten)]
    log: LogSettings,
}

#[derive(Subcommand)]
enum Command {
    /// Serve the public site, the tenant site and the JSON API.
    Serve(ServeSettings),
    /// Measure submissions/s and latency of a running serve against a trivial handler.
    Loadgen {
        #[command(flatten)]
        load: LoadSettings,
        #[command(flatten)]
        storage: StorageSettings,
        #[command(flatten)]
        stores: StoreArgs,
    },
}

#[tokio::main]
async fn main() -> ExitCode {
    let cli = Cli::parse();
    telemetry::init(&cli.log);
    let outcome = match cli.command {
        Command::Serve(settings) => serve(settings).await,
        Command::Loadgen {
            load,
            storage,
            stores,
        } => loadgen(load, storage, stores).await,
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            let mut message = error.to_string();
            let mut source = error.source();
            while let Some(cause) = source {
                message.push_str(&format!(": {cause}"));
                source = cause.source();
            }
            eprintln!("canvass: {message}");
            ExitCode::FAILURE
        }
    }
}

async fn serve(settings: ServeSettings) -> Result<(), Box<dyn std::error::Error>> {
    let host = settings
        .listen
        .rsplit_once(':')
        .map_or("127.0.0.1", |(host, _)| host)
        .to_owned();
    let demo = settings.demo;
    let application = Application::build(settings).await?;
    let url = format!("http://{host}:{}", application.port());
    tracing::info!(%url, "Canvass is listening");
    println!("Canvass is running at {url}/ (Ctrl-C to stop)");
    if application.demo_created() {
        println!("Created the demo tenant and survey.");
    }
    if demo {
        let (tenant, survey) = (canvass::demo::TENANT, canvass::demo::SURVEY);
        println!("Demo tenant's surveys: {url}/s/{tenant}");
        println!("Demo survey:           {url}/s/{tenant}/{survey}");
    }
    application.run_until_stopped().await?;
    Ok(())
}

async fn loadgen(
    load: LoadSettings,
    storage: StorageSettings,
    stores: StoreArgs,
) -> Result<(), Box<dyn std::error::Error>> {
    let stores = Stores::open(open_storage(&storage).await?, &stores.settings()).await?;
    let (serve, ceiling) = canvass::loadgen::run(&stores, &load).await?;
    println!("{}", serve.line("canvass serve (POST a survey form)"));
    if let Some(ceiling) = ceiling {
        println!("{}", ceiling.line("ceiling (trivial actix POST)"));
        println!(
            "serve / ceiling: {:.0}%",
            100.0 * serve.per_second / ceiling.per_second.max(f64::EPSILON)
        );
    }
    Ok(())
}
