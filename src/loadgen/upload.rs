//! `loadgen --upload`: each client answers a survey of two pages whose first asks for a photo,
//! as a browser would: page 1 posted as multipart with a file (a PNG of `--file-kb`), then
//! page 2 posted with the signed reference to the file the server put in page 2's form.
//! Every respondent comes from an address of its own (`X-Forwarded-For`, which `serve`
//! believes only when `CANVASS_TRUSTED_PROXIES` names this machine), as real respondents do:
//! uploads are limited per client.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use crate::domain::{SubmissionToken, Survey, SurveySlug, TenantSlug};
use crate::stores::{Catalog, StoreError, Stores};

use super::report::{self, ClientRun, Report};

/// The slug of the survey.
pub const SLUG: &str = "loadgen-upload";

fn definition() -> serde_json::Value {
    serde_json::json!({"title": "Loadgen upload", "pages": [
        {"questions": [{"id": "photo", "text": "A photo", "type": "file", "required": true,
                        "accept": ["image"], "max_bytes": 5242880}]},
        {"questions": [{"id": "stars", "text": "Your rating", "type": "five_stars", "required": true}]}
    ]})
}

/// Makes the survey in `tenant` (published) unless it is there; returns its slug.
pub async fn ensure(stores: &Catalog, tenant: &TenantSlug) -> Result<SurveySlug, StoreError> {
    super::paged::ensure_survey(stores, tenant, SLUG, definition()).await
}

/// What every respondent sends as its photo: a PNG of `kb` kibibytes.
fn photo(kb: usize) -> Vec<u8> {
    let mut bytes = vec![0x89, b'P', b'N', b'G', 0x0D, 0x0A, 0x1A, 0x0A];
    bytes.resize((kb * 1024).max(bytes.len()), 0x5A);
    bytes
}

/// The boundary of every multipart body (the photo's bytes never hold it).
const BOUNDARY: &str = "canvass-loadgen-7f3a91";

/// Page 1 as multipart: the token, the page, Next, and the photo.
fn first_page(token: &str, photo: &[u8]) -> Vec<u8> {
    let mut body = Vec::with_capacity(photo.len() + 512);
    for (name, value) in [("token", token), ("page", "0"), ("nav", "next")] {
        body.extend_from_slice(
            format!(
                "--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"{name}\"\r\n\r\n{value}\r\n"
            )
            .as_bytes(),
        );
    }
    body.extend_from_slice(
        format!(
            "--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"q-photo\"; \
             filename=\"photo.png\"\r\nContent-Type: image/png\r\n\r\n"
        )
        .as_bytes(),
    );
    body.extend_from_slice(photo);
    body.extend_from_slice(format!("\r\n--{BOUNDARY}--\r\n").as_bytes());
    body
}

/// The signed file reference page 2's form carries.
fn carried(page: &str) -> Option<&str> {
    let start = page.find(r#"name="q-photo" value=""#)? + r#"name="q-photo" value=""#.len();
    let rest = &page[start..];
    Some(&rest[..rest.find('"')?])
}

/// The `n`th respondent's address: one of 16 million, never the same twice in a run.
fn address(n: u64) -> String {
    format!("10.{}.{}.{}", (n >> 16) & 255, (n >> 8) & 255, n & 255)
}

/// Runs `clients` respondents' loops against `url` for `duration`; the report's rate and
/// latencies are the submissions' (page 2), and it counts both POSTs.
pub async fn drive(
    stores: &Stores,
    survey: &Survey,
    url: &str,
    clients: usize,
    duration: Duration,
    file_kb: usize,
) -> Result<Report, reqwest::Error> {
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .pool_max_idle_per_host(clients)
        .build()?;
    let photo = Arc::new(photo(file_kb));
    let started = Instant::now();
    let deadline = started + duration;
    let (done, counter) = (Arc::new(AtomicU64::new(0)), Arc::new(AtomicU64::new(0)));
    let progress = tokio::spawn(report::progress(done.clone(), started, deadline));
    let loops: Vec<_> = (0..clients)
        .map(|_| {
            let (client, url, photo) = (client.clone(), url.to_owned(), photo.clone());
            let (stores, survey) = (stores.clone(), survey.survey_ref());
            let (done, counter) = (done.clone(), counter.clone());
            tokio::spawn(async move {
                let mut run = ClientRun::default();
                while Instant::now() < deadline {
                    let Ok(reference) = stores.answering.references.next().await else {
                        run.errors += 1;
                        continue;
                    };
                    let token = SubmissionToken {
                        reference,
                        survey: survey.clone(),
                    }
                    .sign(&stores.answering.signing_key);
                    let from = address(counter.fetch_add(1, Ordering::Relaxed));
                    match respond(&client, &url, &token, &photo, &from).await {
                        Some(took) => {
                            run.posts += 2;
                            run.latencies.push(took);
                            done.fetch_add(1, Ordering::Relaxed);
                        }
                        None => run.errors += 1,
                    }
                }
                run
            })
        })
        .collect();
    let mut runs = Vec::with_capacity(loops.len());
    for handle in loops {
        if let Ok(run) = handle.await {
            runs.push(run);
        }
    }
    progress.abort();
    Ok(Report::from_runs(runs, started.elapsed()))
}

/// One respondent: the photo on page 1, then page 2; how long page 2 took, or `None`.
async fn respond(
    client: &reqwest::Client,
    url: &str,
    token: &str,
    photo: &[u8],
    from: &str,
) -> Option<Duration> {
    let page = client
        .post(url)
        .header("x-forwarded-for", from)
        .header(
            "content-type",
            format!("multipart/form-data; boundary={BOUNDARY}"),
        )
        .body(first_page(token, photo))
        .send()
        .await
        .ok()?;
    if page.status() != 200 {
        return None;
    }
    let page = page.text().await.ok()?;
    let file = carried(&page)?;
    let body = serde_urlencoded::to_string([
        ("token", token),
        ("page", "1"),
        ("nav", "next"),
        ("q-photo", file),
        ("q-stars", "5"),
    ])
    .ok()?;
    let sent = Instant::now();
    let last = client
        .post(url)
        .header("x-forwarded-for", from)
        .header("content-type", "application/x-www-form-urlencoded")
        .body(body)
        .send()
        .await
        .ok()?;
    (last.status() == 303).then(|| sent.elapsed())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_survey_is_valid_and_the_photo_is_an_image() {
        let input: crate::domain::definition::SurveyInput =
            serde_json::from_value(definition()).expect("the shape");
        input.check(&[]).expect("valid");
        assert_eq!(
            crate::domain::upload::kind_of(&photo(100)).map(|(kind, _)| kind),
            Some(crate::domain::upload::FileKind::Image)
        );
        let body = first_page("t", b"x");
        assert!(String::from_utf8_lossy(&body).contains("filename=\"photo.png\""));
        assert_eq!(
            carried(r#"<input name="q-photo" value="a:b~c">"#),
            Some("a:b~c")
        );
        assert_ne!(address(1), address(256));
    }
}
