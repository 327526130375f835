//! `canvass bench participants`: a list of N participants imported from a CSV sheet as the
//! tenant site imports it (read, checked whole, written under one import), its time and this
//! process's peak memory; then a page of the list and a search, with the storage transactions
//! each costs (a page must cost the same whatever the list's length), and the totals.

use std::fmt::Write as _;
use std::time::Instant;

use super::{BenchError, Scratch, answers, open, peak_memory};
use crate::service::participants as service;

/// Imports `count` participants into a fresh survey and reads a page and a search back.
pub(super) async fn run(count: u64) -> Result<(), BenchError> {
    let dir = Scratch::new();
    let stores = open(&dir, 1).await?;
    let survey = answers::first_survey(&stores.catalog).await?;
    let mut sheet = String::from("email,first_name,last_name,team\n");
    for n in 0..count {
        let _ = writeln!(
            sheet,
            "person{n:07}@example.com,First{n},Last{n},Team {}",
            n % 20
        );
    }
    let memory = |kib: Option<u64>| {
        kib.map_or_else(
            || "unknown".to_owned(),
            |kib| format!("{:.1} MB", kib as f64 / 1024.0),
        )
    };
    eprintln!(
        "importing {count} participants from a {:.1} MB CSV (peak memory before: {})",
        sheet.len() as f64 / 1e6,
        memory(peak_memory())
    );
    let before = stores.operations.storage.transactions();
    let started = Instant::now();
    let added = service::add_sheet(
        &crate::service::App::new(stores.clone()),
        &survey,
        &bytes::Bytes::from(sheet),
    )
    .await?
    .map_err(|refusal| BenchError::Setup(refusal.to_string()))?;
    let took = started.elapsed().as_secs_f64();
    let imported = stores.operations.storage.transactions().since(&before);
    println!("participants (local backend, one survey):");
    println!(
        "  import of {}: {took:.1} s, {:.0} participants/s, {:.2} storage transactions each, peak memory {}",
        added.len(),
        added.len() as f64 / took,
        imported.total() as f64 / added.len().max(1) as f64,
        memory(peak_memory()),
    );
    let filed = survey.survey_ref();
    let store = &stores.panel.participants;
    // Half-way through by following each page's token, as a reader paging on would.
    eprintln!("paging half-way through the list");
    let mut halfway = None;
    for _ in 0..(count / 2 / 100) {
        halfway = store
            .page(&filed, None, halfway.as_deref(), 100)
            .await?
            .next;
    }
    for (what, search, after) in [
        ("the first page of 100", None, None),
        ("a page of 100 half-way", None, halfway),
        ("a search (\"person00999\")", Some("person00999"), None),
    ] {
        let before = stores.operations.storage.transactions();
        let started = Instant::now();
        let page = store.page(&filed, search, after.as_deref(), 100).await?;
        let took = started.elapsed().as_secs_f64() * 1000.0;
        let cost = stores.operations.storage.transactions().since(&before);
        println!(
            "  {what}: {} participants in {took:.1} ms, {} storage transactions",
            page.participants.len(),
            cost.total()
        );
    }
    // The totals the Participants and Mailings pages show: listings of keys, no reads.
    let before = stores.operations.storage.transactions();
    let started = Instant::now();
    let totals = store.totals(&filed).await?;
    let took = started.elapsed().as_secs_f64() * 1000.0;
    let cost = stores.operations.storage.transactions().since(&before);
    println!(
        "  the totals ({} participants): {took:.1} ms, {} storage transactions",
        totals.participants,
        cost.total()
    );
    Ok(())
}
