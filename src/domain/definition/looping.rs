//! Checking a definition's loops: each repeats a run of pages over an earlier question of the
//! right type, runs neither overlap nor nest, no jump leads into the middle of one or leaves
//! from one, and no quota or block of pages drawn in order reaches into one.

use crate::domain::arrangement::PageBlock;
use crate::domain::logic::{PageLayout, Target};
use crate::domain::looping::Loop;
use crate::domain::quota::Quota;
use crate::domain::{Question, QuestionKind};

/// The first problem of the loops of `layout`, by field.
pub(super) fn problem(
    layout: &[PageLayout],
    questions: &[Question],
    block: Option<PageBlock>,
) -> Option<(String, String)> {
    let mut covered = 0;
    for (first, page) in layout.iter().enumerate() {
        let Some(looped) = &page.repeat else {
            continue;
        };
        let field = format!("pages[{first}].loop");
        let found = |problem: String| Some((field.clone(), problem));
        let pages = looped.pages;
        if pages == 0 || first + pages > layout.len() {
            return found(format!(
                "a loop repeats 1 to {} pages from page {} (`pages`)",
                layout.len() - first,
                first + 1
            ));
        }
        if first < covered {
            return found(format!(
                "page {} is already repeated by an earlier loop: loops may not overlap or nest",
                first + 1
            ));
        }
        covered = first + pages;
        let end = layout
            .get(first + pages)
            .map_or(questions.len(), |p| p.start);
        if let Some(problem) = source_problem(looped, &questions[..page.start]) {
            return found(format!("page {}: {problem}", first + 1));
        }
        if let Some(at) = (first..first + pages).find(|&at| !layout[at].jumps.is_empty()) {
            return found(format!(
                "page {} is repeated by a loop, so it may not jump (each time round leads on \
                 to the next)",
                at + 1
            ));
        }
        let inside = |to: usize| to > first && to < first + pages;
        for (at, earlier) in layout.iter().enumerate().take(first) {
            if let Some(to) = earlier.jumps.iter().find_map(|jump| match jump.to {
                Target::Page(to) if inside(to) => Some(to),
                _ => None,
            }) {
                return found(format!(
                    "page {} jumps to page {}, inside a loop: a jump may lead only to its \
                     first page, page {}",
                    at + 1,
                    to + 1,
                    first + 1
                ));
            }
        }
        if let Some(PageBlock(from, to)) = block
            && from < first + pages
            && first <= to
        {
            return found(
                "a loop's pages may not be in the block of pages shown in a random order".into(),
            );
        }
        // A later loop may not repeat over a question this one repeats.
        let run: Vec<&str> = questions[page.start..end]
            .iter()
            .map(|q| q.id.as_str())
            .collect();
        for (later, other) in layout.iter().enumerate().skip(first + pages) {
            if let Some(source) = other.repeat.as_ref().and_then(Loop::source)
                && run.contains(&source.as_str())
            {
                return Some((
                    format!("pages[{later}].loop"),
                    format!(
                        "page {}: a loop may not repeat over a question that is itself repeated \
                         (loops do not nest)",
                        later + 1
                    ),
                ));
            }
        }
    }
    None
}

/// What is wrong with a loop's source, given the questions of the pages before it.
fn source_problem(looped: &Loop, earlier: &[Question]) -> Option<String> {
    let (id, over) = match (&looped.over, &looped.times) {
        (Some(id), None) => (id, true),
        (None, Some(id)) => (id, false),
        _ => {
            return Some(
                "a loop names one question: `over` (a multiple choice) or `times` (a number)"
                    .into(),
            );
        }
    };
    let Some(source) = earlier.iter().find(|q| q.id == *id) else {
        return Some(format!(
            "a loop repeats over a question on an earlier page; \"{id}\" is not one"
        ));
    };
    match (&source.kind, over) {
        (QuestionKind::MultipleChoice { .. }, true) => None,
        (QuestionKind::Numeric { .. }, false) => None,
        (_, true) => Some(format!(
            "`over` names a multiple-choice question; \"{id}\" is a {}",
            source.kind.name()
        )),
        (_, false) => Some(format!(
            "`times` names a number question; \"{id}\" is a {}",
            source.kind.name()
        )),
    }
}

/// A quota that tests a question repeated by a loop (a quota counts a response once, and a
/// loop's question has an answer per item).
pub(super) fn quota_problem(
    quotas: &[Quota],
    layout: &[PageLayout],
    questions: &[Question],
) -> Option<(String, String)> {
    let repeated = |id: &crate::domain::QuestionId| {
        layout.iter().enumerate().any(|(first, page)| {
            page.repeat.as_ref().is_some_and(|looped| {
                let end = layout
                    .get(first + looped.pages)
                    .map_or(questions.len(), |p| p.start);
                questions[page.start.min(end)..end]
                    .iter()
                    .any(|q| q.id == *id)
            })
        })
    };
    quotas.iter().enumerate().find_map(|(at, quota)| {
        quota
            .when
            .rules()
            .iter()
            .find(|rule| repeated(&rule.question))
            .map(|rule| {
                (
                    format!("quotas[{at}].when"),
                    format!(
                        "quota \"{}\" tests \"{}\", which a loop repeats: a quota may test only \
                         questions answered once",
                        quota.name, rule.question
                    ),
                )
            })
    })
}
