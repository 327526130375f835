//! `canvass bench responses`: what one page of responses costs in a large survey, unfiltered,
//! filtered by submission date, and of one segment: storage reads and time per page, at any
//! depth.

use std::time::{Duration, Instant};

use futures_util::future::join_all;
use time::OffsetDateTime;

use super::{BenchError, Scratch, answers, subscription};
use crate::domain::SegmentId;
use crate::storage::Operation;
use crate::stores::Stores;
use crate::stores::responses::{DateRange, Filter};
use crate::worker::{StepOutcome, Worker, WorkerSettings};

/// Times each page is read to take its mean time.
const REPEATS: u32 = 50;

/// Prepares a survey of `count` answers submitted over `days` days, then measures pages.
pub(super) async fn run(count: u64, days: u64) -> Result<(), BenchError> {
    let dir = Scratch::new();
    // `drink` a segment question, so pages of one segment are measured too.
    let target = super::drain::DrainTarget {
        segments: 1,
        ..super::drain::DrainTarget::LOCAL
    };
    let stores = target.open(&dir, 1).await?;
    let days = days.max(1);
    let end = OffsetDateTime::now_utc();
    let start = end - Duration::from_secs(days * 86_400);
    eprintln!("preparing a survey with {count} answers over {days} days");
    let mut done = 0;
    let mut worker = Worker::new(stores.clone(), WorkerSettings::default());
    while done < count {
        let chunk = (count - done).min(128);
        let mut batch = Vec::with_capacity(chunk as usize);
        for n in done..done + chunk {
            let mut answer =
                answers::answer(stores.answering.references.next().await?, n, false, 1);
            answer.submitted_at = start + Duration::from_secs(n * days * 86_400 / count);
            batch.push(answer);
        }
        for queued in join_all(
            batch
                .iter()
                .map(|a| stores.answering.queues.submit(a, subscription(false))),
        )
        .await
        {
            queued?;
        }
        done += chunk;
        // Drained as it goes, so the queue stays small.
        if done % 4096 == 0 || done == count {
            while let StepOutcome::BatchDone { .. } = worker.step().await? {}
        }
        if done % 100_000 == 0 {
            eprintln!("  {done} / {count} submitted and counted");
        }
    }
    let survey = answers::survey_ref(0);
    let one_day = start.date() + time::Duration::days(days as i64 / 2);
    let day = DateRange {
        from: one_day,
        to: one_day,
    };
    let week = DateRange {
        from: one_day,
        to: one_day + time::Duration::days(6),
    };
    let day_pages = (count / days).div_ceil(25);
    let tea = SegmentId::parse("drink:Tea").expect("the bench segment is valid");
    let tea_pages = (count / 3).div_ceil(25);
    let cases: Vec<(String, u64, Option<DateRange>, Option<SegmentId>)> = vec![
        ("newest page, no filter".into(), 1, None, None),
        (
            format!("oldest page ({}), no filter", count.div_ceil(25)),
            count.div_ceil(25),
            None,
            None,
        ),
        (
            format!("one day ({one_day}), its first page"),
            1,
            Some(day),
            None,
        ),
        (
            format!("one day ({one_day}), its last page ({day_pages})"),
            day_pages,
            Some(day),
            None,
        ),
        ("a week, its 5th page".into(), 5, Some(week), None),
        (
            "segment drink:Tea, newest page".into(),
            1,
            None,
            Some(tea.clone()),
        ),
        (
            format!("segment drink:Tea, oldest page ({tea_pages})"),
            tea_pages,
            None,
            Some(tea.clone()),
        ),
        (
            "segment drink:Tea and one day, 2nd page".into(),
            2,
            Some(day),
            Some(tea),
        ),
    ];
    println!(
        "a page of responses in a survey of {count} answers over {days} days (local backend):"
    );
    for (label, page, range, segment) in cases {
        let filter = Filter { range, segment };
        let (reads, shown, total) = measure_once(&stores, &survey, page, &filter).await?;
        let started = Instant::now();
        for _ in 0..REPEATS {
            stores.response_page(&survey, page, &filter).await?;
        }
        let mean = started.elapsed() / REPEATS;
        println!(
            "  {label:<42} {shown:>2} shown of {total:>7}  {reads:>3} blob reads  {:>7.2} ms",
            mean.as_secs_f64() * 1e3
        );
    }
    Ok(())
}

/// One page's blob reads, responses shown and total.
async fn measure_once(
    stores: &Stores,
    survey: &crate::domain::SurveyRef,
    page: u64,
    filter: &Filter,
) -> Result<(u64, usize, u64), BenchError> {
    let before = stores.operations.storage.transactions();
    let found = stores.response_page(survey, page, filter).await?;
    let reads = stores
        .operations
        .storage
        .transactions()
        .since(&before)
        .of(Operation::Get);
    Ok((reads, found.responses.len(), found.total))
}
