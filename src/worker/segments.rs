//! Building segments from the answers counted before their question became a segment
//! question, on a queue of its own served beside the worker loop (so a build of a million
//! answers never holds up counting).
//!
//! A job first makes the summary's segment questions those of the survey's definition (read
//! fresh). Then, for each segment question still unbuilt, it reads the survey's answer list
//! up to the question's `from` (fixed when its segments started), and for every answer not
//! deleted that holds an option: writes it to that option's list from position 0, and sums
//! its statistics and days. Positions from `from` on are where the segment's own answers go,
//! so the two never meet. Finally one commit merges the sums into the segments and marks the
//! question built, under If-Match, again from a fresh read on a lost race: the sums do not
//! depend on anything a concurrent commit changes, since answers counted meanwhile are at
//! positions from `from` on, and deletions wait for builds (see `worker::deletions`).
//!
//! A build reports after each chunk of the list how far it has come and what it has summed,
//! once that chunk's entries are on disk: one that dies half-way is resumed from there when its
//! message comes back (entries are written idempotently, so a chunk done twice is harmless).
//! The commit checks the question is still unbuilt, with the same lists; a question dropped or
//! started afresh meanwhile is left alone.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use crate::domain::segment::{SegmentKey, segment_keys};
use crate::domain::{Reference, SurveyRef};
use crate::storage::Message;
use crate::stores::segments::{BuildState, SegmentJob};
use crate::stores::{Answering, DaySpan, LIST_CHUNK, Operations, StoreError, Stores, keys};

/// Answers read per storage call.
const READ: usize = 64;

/// What a job did.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Built {
    /// Segment questions built by this job.
    pub questions: usize,
    /// Earlier answers looked at.
    pub answers: u64,
}

/// Serves the segment queue until the worker stops: one job at a time, its message hidden
/// for `visibility` and kept hidden while it runs.
pub async fn run(stores: Stores, visibility: Duration, mut looping: super::idle::Looping) {
    while looping.going() {
        // A build resumes from its message after a pause, and a failed one is tried again.
        let built = step(&stores, visibility, &looping.stop);
        let found = looping.unless_paused(built).await;
        looping
            .rest_after(found, "a segment build", Duration::from_secs(1))
            .await;
    }
}

/// A job being run: its message, kept hidden while it runs, and the stop signal.
struct Running<'a> {
    message: Message,
    visibility: Duration,
    extended: Instant,
    stop: &'a tokio::sync::watch::Receiver<bool>,
}

impl Running<'_> {
    /// Between chunks: whether to go on (a stop leaves the message to come back), keeping the
    /// message hidden.
    async fn go_on(&mut self, stores: &Operations) -> Result<bool, StoreError> {
        if *self.stop.borrow() {
            return Ok(false);
        }
        if self.extended.elapsed() > self.visibility / 3 {
            stores
                .segments
                .queue()
                .extend(&mut self.message, self.visibility)
                .await?;
            self.extended = Instant::now();
        }
        Ok(true)
    }
}

/// Runs the next job, if any; whether there was one.
pub async fn step(
    stores: &Stores,
    visibility: Duration,
    stop: &tokio::sync::watch::Receiver<bool>,
) -> Result<bool, StoreError> {
    let queue = stores.operations.segments.queue();
    let Some((message, content)) = queue.receive::<SegmentJob>(visibility).await? else {
        return Ok(false);
    };
    let Some(job) = queue.readable(&message, content).await? else {
        return Ok(true);
    };
    let survey = job.survey();
    let mut running = Running {
        message,
        visibility,
        extended: Instant::now(),
        stop,
    };
    match build(stores, &survey, &mut running).await? {
        Some(built) => {
            if built.questions > 0 {
                tracing::info!(%survey, questions = built.questions, answers = built.answers, "built segments from earlier answers");
            }
            queue.finish(&running.message).await?;
        }
        None => tracing::info!(%survey, "a segment build stopped half-way; it will resume"),
    }
    Ok(true)
}

/// Makes the survey's segments follow its definition and builds those that need it; `None` if
/// asked to stop half-way.
async fn build(
    stores: &Stores,
    survey: &SurveyRef,
    running: &mut Running<'_>,
) -> Result<Option<Built>, StoreError> {
    let wanted = match stores
        .fresh_counted_here(&survey.tenant, &survey.slug)
        .await?
    {
        Some(current) if current.id == survey.id => segment_keys(&current),
        // Deleted with its survey.
        _ => return Ok(Some(Built::default())),
    };
    let doc = loop {
        let mut read = stores.answering.summaries.read(survey).await?;
        if !read.doc.sync_segments(&wanted)
            || stores
                .answering
                .summaries
                .write(survey, &read.doc, read.etag.as_ref())
                .await?
        {
            break read.doc;
        }
    };
    let mut built = Built::default();
    for (question, segments) in &doc.segments {
        if segments.built {
            continue;
        }
        let Some(sums) = sum(stores, survey, &doc, question, running).await? else {
            return Ok(None);
        };
        built.answers += segments.from;
        if commit(&stores.answering, survey, question, &segments.lists, &sums).await? {
            built.questions += 1;
        }
    }
    Ok(Some(built))
}

/// Reads the answers before the question's `from`, writes their segment list entries, and
/// sums them; `None` if asked to stop. Resumes from where an earlier run of the same build
/// reported it had come.
async fn sum(
    stores: &Stores,
    survey: &SurveyRef,
    doc: &crate::stores::SummaryDoc,
    question: &SegmentKey,
    running: &mut Running<'_>,
) -> Result<Option<BuildState>, StoreError> {
    let segments = &doc.segments[question];
    let list = doc.list_view(survey);
    let mut state = match stores
        .operations
        .segments
        .progress(survey)
        .await?
        .remove(question)
    {
        Some(state) if state.lists == segments.lists && state.of == segments.from => state,
        _ => BuildState {
            lists: segments.lists.clone(),
            done: 0,
            of: segments.from,
            options: BTreeMap::new(),
        },
    };
    if state.done == 0 {
        stores
            .operations
            .segments
            .report(survey, question, &state)
            .await?;
    }
    while state.done < segments.from {
        let end = (state.done + LIST_CHUNK).min(segments.from);
        let placed: Vec<Reference> = stores
            .answering
            .lists
            .references(&list, state.done..end)
            .await?
            .into_iter()
            .filter(|reference| !doc.deleted.contains(reference))
            .collect();
        let mut entries: BTreeMap<String, BTreeMap<u64, Reference>> = BTreeMap::new();
        for part in placed.chunks(READ) {
            for answer in stores
                .answering
                .answers
                .get_many(survey, part)
                .await?
                .into_iter()
                .flatten()
            {
                let day = crate::stores::day_of(&answer);
                for option in question.options_in(&answer) {
                    // A value's segment is kept only for the first values seen.
                    let full = state.options.len() >= crate::domain::segment::MAX_VALUE_SEGMENTS;
                    if question.takes_values_seen() && full && !state.options.contains_key(&option)
                    {
                        continue;
                    }
                    let built = state.options.entry(option.clone()).or_default();
                    entries
                        .entry(option)
                        .or_default()
                        .insert(built.count, answer.reference);
                    built.summary.add(&answer);
                    DaySpan::place(&mut built.days, day.clone(), built.count);
                    built.count += 1;
                }
            }
        }
        for (option, entries) in &entries {
            let key = keys::segment_list(survey, &segments.lists, option);
            stores.answering.lists.set(&key, entries).await?;
        }
        state.done = end;
        // The entries on disk before the state that says they are written.
        stores.operations.flush().await?;
        stores
            .operations
            .segments
            .report(survey, question, &state)
            .await?;
        if !running.go_on(&stores.operations).await? {
            return Ok(None);
        }
    }
    Ok(Some(state))
}

/// Merges a build's sums into the question's segments and marks it built; `false` if it was
/// built already or is no longer the question's segments of the build.
async fn commit(
    stores: &Answering,
    survey: &SurveyRef,
    question: &SegmentKey,
    lists: &str,
    built: &BuildState,
) -> Result<bool, StoreError> {
    loop {
        let mut read = stores.summaries.read(survey).await?;
        let Some(segments) = read
            .doc
            .segments
            .get_mut(question)
            .filter(|s| !s.built && s.lists == lists)
        else {
            return Ok(false);
        };
        for (option, sums) in &built.options {
            let tally = segments.options.entry(option.clone()).or_default();
            tally.before = sums.count;
            tally.summary.merge(&sums.summary);
            DaySpan::merge_all(&mut tally.days, &sums.days);
        }
        segments.built = true;
        if stores
            .summaries
            .write(survey, &read.doc, read.etag.as_ref())
            .await?
        {
            return Ok(true);
        }
    }
}
