//! `canvass loadgen`: N concurrent clients submit valid answers to a running `serve` for D
//! seconds and report throughput and latency; the same load against a trivial actix-web POST
//! handler in this process gives the ceiling to compare with.
//!
//! Each submission carries its own freshly signed token (minted here from the shared signing
//! key and reference allocator, as the form page would), so every POST is a distinct answer
//! and the run measures the submit path alone. The ceiling gets bodies made the same way
//! (its handler ignores the token), so both runs put the same work on the client.
//!
//! With `--pages`, each client answers a survey of three pages with display and skip logic
//! as a browser would: a POST per page on its route (Next), the last one sending; only that
//! one is a submission. Both POST rates are reported against the ceiling's. With `--quota`,
//! each answer claims a place in a quota (see `quota`); with `--upload`, each uploads a photo
//! before sending (see `upload`); with `--research`, each answers a survey using hidden
//! fields, drawn orders, a rule, scores, variables, endings and a loop (see `research`).

mod answers;
mod ceiling;
mod paged;
mod quota;
mod report;
mod research;
mod upload;

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use clap::Args;

use crate::domain::{SubmissionToken, SurveySlug, TenantSlug};
use crate::stores::{StoreError, Stores};
pub use report::Report;

/// What to load and for how long.
#[derive(Clone, Debug, Args)]
pub struct LoadSettings {
    /// Base URL of the running `canvass serve`.
    #[arg(long, default_value = "http://127.0.0.1:8080")]
    pub url: String,
    /// The tenant whose survey is answered.
    #[arg(long, default_value = crate::demo::TENANT)]
    pub tenant: String,
    /// The survey answered.
    #[arg(long, default_value = crate::demo::SURVEY)]
    pub survey: String,
    /// Concurrent clients.
    #[arg(long, default_value_t = 64)]
    pub clients: usize,
    /// Seconds each measurement runs.
    #[arg(long, default_value_t = 10)]
    pub duration: u64,
    /// Skip the ceiling measurement against the trivial handler.
    #[arg(long)]
    pub no_ceiling: bool,
    /// Answer a survey of three pages with logic (made in the tenant if it is not there)
    /// instead of `--survey`.
    #[arg(long, conflicts_with = "quota")]
    pub pages: bool,
    /// With `--pages`: the same survey keeping partial responses (a storage write each time
    /// a page is left), to measure what that costs.
    #[arg(long, requires = "pages")]
    pub keep_partial: bool,
    /// Answer a survey of one page with a quota every answer meets (made in the tenant if it
    /// is not there; it never fills), so each submission claims a place.
    #[arg(long, conflicts_with = "upload")]
    pub quota: bool,
    /// Answer a survey of two pages whose first asks for a photo (made in the tenant if it is
    /// not there): page 1 posted as multipart with a file of `--file-kb`, each respondent from
    /// an address of its own (run `serve` with CANVASS_TRUSTED_PROXIES=127.0.0.1). No ceiling.
    #[arg(long, conflicts_with = "pages")]
    pub upload: bool,
    /// Answer a survey that uses hidden fields, drawn orders, a rule, scores, variables,
    /// endings and a loop (made in the tenant if it is not there).
    #[arg(long, conflicts_with_all = ["pages", "quota", "upload"])]
    pub research: bool,
    /// The size of each uploaded file, in KiB (with `--upload`).
    #[arg(long, default_value_t = 100)]
    pub file_kb: usize,
}

/// Why a load run could not be made.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// The stores (signing key, survey) could not be read.
    #[error("cannot read the survey to answer")]
    Store(#[from] StoreError),
    /// The tenant or survey named does not exist.
    #[error("{0}")]
    NoSuchSurvey(String),
    /// The ceiling server could not start.
    #[error("cannot start the ceiling server")]
    Ceiling(#[source] std::io::Error),
    /// The HTTP client could not be built.
    #[error("cannot build the HTTP client")]
    Client(#[source] reqwest::Error),
}

/// Runs the load against `serve` and, unless told not to, the ceiling; prints progress and
/// returns both reports.
pub async fn run(
    stores: &Stores,
    settings: &LoadSettings,
) -> Result<(Report, Option<Report>), LoadError> {
    let tenant = TenantSlug::parse(&settings.tenant).map_err(|_| no_such_survey(settings))?;
    let slug = if settings.pages {
        paged::ensure(&stores.catalog, &tenant, settings.keep_partial).await?
    } else if settings.upload {
        upload::ensure(&stores.catalog, &tenant).await?
    } else if settings.quota {
        quota::ensure(&stores.catalog, &tenant).await?
    } else if settings.research {
        research::ensure(&stores.catalog, &tenant).await?
    } else {
        SurveySlug::parse(&settings.survey).map_err(|_| no_such_survey(settings))?
    };
    let survey = stores
        .catalog
        .surveys
        .get(&tenant, &slug)
        .await?
        .ok_or_else(|| no_such_survey(settings))?;
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .pool_max_idle_per_host(settings.clients)
        .build()
        .map_err(LoadError::Client)?;
    let url = format!("{}/s/{tenant}/{slug}", settings.url.trim_end_matches('/'));
    if settings.upload {
        eprintln!(
            "loading {url} with {} clients for {} s, a {} KiB photo each",
            settings.clients, settings.duration, settings.file_kb
        );
        let duration = Duration::from_secs(settings.duration);
        let report = upload::drive(
            stores,
            &survey,
            &url,
            settings.clients,
            duration,
            settings.file_kb,
        )
        .await
        .map_err(LoadError::Client)?;
        return Ok((report, None));
    }
    let counter = Arc::new(AtomicU64::new(0));
    let bodies = {
        let (stores, survey, counter) = (stores.clone(), survey.clone(), counter.clone());
        let forms = answers::FormBodies::new(&survey);
        move || {
            let (stores, survey, counter, forms) = (
                stores.clone(),
                survey.clone(),
                counter.clone(),
                forms.clone(),
            );
            async move {
                let reference = stores.answering.references.next().await?;
                let token = SubmissionToken {
                    reference,
                    survey: survey.survey_ref(),
                }
                .sign(&stores.answering.signing_key);
                let n = counter.fetch_add(1, Ordering::Relaxed);
                Ok::<_, StoreError>(forms.bodies(&token, n))
            }
        }
    };
    eprintln!(
        "loading {url} with {} clients for {} s",
        settings.clients, settings.duration
    );
    let serve = drive(&client, &url, settings, bodies.clone(), Target::Serve).await;
    let ceiling = if settings.no_ceiling {
        None
    } else {
        let server = ceiling::start().await.map_err(LoadError::Ceiling)?;
        eprintln!(
            "loading the trivial handler at {} for {} s",
            server.url, settings.duration
        );
        // The same load: each body is made exactly as for `serve` (a fresh reference and
        // signed token), so the client, which shares the machine, costs both runs the same.
        let report = drive(&client, &server.url, settings, bodies, Target::Ceiling).await;
        server.stop().await;
        Some(report)
    };
    Ok((serve, ceiling))
}

fn no_such_survey(settings: &LoadSettings) -> LoadError {
    LoadError::NoSuchSurvey(format!(
        "no survey {}/{} in this storage: point loadgen at the CANVASS_STORAGE and \
         CANVASS_DATA_DIR of the running serve",
        settings.tenant, settings.survey
    ))
}

/// What is loaded: `serve` answers each page but the last with the next page (200) and the
/// last with the redirect to the thanks (303); the ceiling answers every POST with 200.
#[derive(Clone, Copy)]
enum Target {
    Serve,
    Ceiling,
}

impl Target {
    fn expected(self, last: bool) -> u16 {
        match (self, last) {
            (Target::Serve, true) => 303,
            _ => 200,
        }
    }
}

/// Runs `settings.clients` loops, each POSTing a respondent's bodies in turn, to `url` until
/// the duration passes. The report's latencies are those of the last POST of each respondent;
/// it also counts every POST.
async fn drive<F, Fut>(
    client: &reqwest::Client,
    url: &str,
    settings: &LoadSettings,
    bodies: F,
    target: Target,
) -> Report
where
    F: Fn() -> Fut + Clone + Send + 'static,
    Fut: std::future::Future<Output = Result<Vec<String>, StoreError>> + Send,
{
    let started = Instant::now();
    let deadline = started + Duration::from_secs(settings.duration);
    let done = Arc::new(AtomicU64::new(0));
    let progress = tokio::spawn(report::progress(done.clone(), started, deadline));
    let clients: Vec<_> = (0..settings.clients)
        .map(|_| {
            let (client, url, bodies, done) =
                (client.clone(), url.to_owned(), bodies.clone(), done.clone());
            tokio::spawn(async move {
                let mut run = report::ClientRun::default();
                'respondents: while Instant::now() < deadline {
                    let Ok(steps) = bodies().await else {
                        run.errors += 1;
                        continue;
                    };
                    let count = steps.len();
                    for (step, body) in steps.into_iter().enumerate() {
                        let last = step + 1 == count;
                        let sent = Instant::now();
                        let outcome = client
                            .post(&url)
                            .header("content-type", "application/x-www-form-urlencoded")
                            .body(body)
                            .send()
                            .await;
                        let expected = target.expected(last);
                        match outcome {
                            Ok(response) if response.status().as_u16() == expected => {
                                // The page's HTML is read, as a browser would.
                                let _ = response.bytes().await;
                                run.posts += 1;
                                if last {
                                    run.latencies.push(sent.elapsed());
                                    done.fetch_add(1, Ordering::Relaxed);
                                }
                            }
                            _ => {
                                run.errors += 1;
                                continue 'respondents;
                            }
                        }
                    }
                }
                run
            })
        })
        .collect();
    let mut runs = Vec::with_capacity(clients.len());
    for client in clients {
        if let Ok(run) = client.await {
            runs.push(run);
        }
    }
    progress.abort();
    Report::from_runs(runs, started.elapsed())
}
