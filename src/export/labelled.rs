//! What the labelled downloads for analysts' tools (R, Stata, SPSS) share: variable names,
//! each tool's rules shaping a column's id into a name it accepts and one loop making the
//! names different from each other (cutting a name to make room for the number that tells it
//! apart); and the variables (name, label, what they hold) of a file written on a thread.

use std::collections::HashSet;
use std::sync::Arc;

use bytes::Bytes;
use futures_util::Stream;

use super::responses::{Batches, Written, written_on_a_thread};
use super::sheet::{Kind, Layout};
use crate::domain::Survey;
use crate::stores::{StoreError, Stores};

/// One variable of a labelled file.
pub(super) struct Variable {
    /// Its name, by the tool's rules.
    pub(super) name: String,
    /// Its label: the column's header.
    pub(super) label: String,
    /// What it holds.
    pub(super) kind: Kind,
}

/// What writes one tool's file: the survey's title, the sheet's layout and its variables, the
/// responses' batches, and where the bytes go.
pub(super) type Writer = fn(&str, &Layout, &[Variable], Batches, Written) -> Result<(), StoreError>;

/// The survey's responses as a stream of the file `write` makes, its variables named under
/// `naming`.
pub(super) fn labelled_stream(
    stores: Stores,
    survey: Arc<Survey>,
    layout: Layout,
    naming: &Naming,
    write: Writer,
) -> impl Stream<Item = Result<Bytes, StoreError>> + use<> {
    let variables: Vec<Variable> = names(&layout, naming)
        .into_iter()
        .zip(&layout.columns)
        .map(|(name, column)| Variable {
            name,
            label: column.header.clone(),
            kind: column.kind(&survey),
        })
        .collect();
    let title = survey.title.clone();
    written_on_a_thread(stores, survey, move |batches, out| {
        write(&title, &layout, &variables, batches, out)
    })
}

/// One tool's rules for names.
pub(super) struct Naming {
    /// A column's id as a name the tool accepts, before it is made unique (at most `longest`
    /// bytes, ASCII).
    pub(super) shape: fn(&str) -> String,
    /// Longest name, in bytes.
    pub(super) longest: usize,
    /// Between a name and the number that makes it unique (`_` makes `age_1`).
    pub(super) joint: char,
    /// Whether the tool takes names that differ only in case for the same name.
    pub(super) case_blind: bool,
}

/// Each column's name under `naming`, all different.
pub(super) fn names(layout: &Layout, naming: &Naming) -> Vec<String> {
    let mut taken: HashSet<String> = HashSet::new();
    let key = |name: &str| match naming.case_blind {
        true => name.to_ascii_uppercase(),
        false => name.to_owned(),
    };
    layout
        .columns
        .iter()
        .map(|column| {
            let base = (naming.shape)(&column.id);
            let mut name = base.clone();
            let mut n = 1;
            while !taken.insert(key(&name)) {
                let suffix = format!("{}{n}", naming.joint);
                let room = naming.longest.saturating_sub(suffix.len());
                name = format!("{}{suffix}", &base[..base.len().min(room)]);
                n += 1;
            }
            name
        })
        .collect()
}

/// `id` with every character `keep` refuses made `with`, and those at its end dropped.
pub(super) fn replaced(id: &str, keep: fn(char) -> bool, with: char) -> String {
    let name: String = id.chars().map(|c| if keep(c) { c } else { with }).collect();
    name.trim_end_matches(with).to_owned()
}
