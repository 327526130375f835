//! One question block of the designer form, as typed: read from a survey or from the posted
//! form, and turned into the definition's input. Each question type uses only some of the
//! block's fields; the others are neither shown for it nor read.

use std::collections::BTreeMap;

use super::logic::LogicEdit;
use crate::domain::definition::{PageInput, QuestionInput};
use crate::domain::{QuestionKind, Survey};

/// The groups of fields beyond a question's text, type and "required", with the types that
/// use each.
const FIELD_GROUPS: [(&str, &[&str]); 9] = [
    (
        "options",
        &[
            "single_choice",
            "multiple_choice",
            "dropdown",
            "ranking",
            "matrix",
        ],
    ),
    ("rows", &["matrix"]),
    ("other", &["single_choice", "multiple_choice"]),
    ("range", &["numeric"]),
    ("scale", &["scale"]),
    ("dates", &["date"]),
    ("file", &["file"]),
    ("shuffle", &["single_choice", "multiple_choice", "dropdown"]),
    (
        "segment",
        &[
            "single_choice",
            "multiple_choice",
            "dropdown",
            "five_stars",
            "nps",
            "scale",
        ],
    ),
];

/// The types that use a group of fields, separated by spaces (for the page's script).
pub(super) fn types_using(group: &str) -> String {
    FIELD_GROUPS
        .iter()
        .find(|(name, _)| *name == group)
        .map(|(_, types)| types.join(" "))
        .unwrap_or_default()
}

/// One question block of the form.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct QuestionEdit {
    pub(super) index: usize,
    pub(super) id: String,
    pub(super) text: String,
    /// What helps to answer it, shown under it.
    pub(super) help: String,
    pub(super) kind: String,
    pub(super) required: bool,
    pub(super) options: String,
    pub(super) min: String,
    pub(super) max: String,
    pub(super) integer: bool,
    /// Whether a choice question offers "Other, please specify".
    pub(super) other: bool,
    /// The rows of a matrix, one per line (its columns are the options).
    pub(super) rows: String,
    /// Points of a scale, and the meanings of its ends.
    pub(super) points: String,
    pub(super) min_label: String,
    pub(super) max_label: String,
    /// Bounds of a date question.
    pub(super) earliest: String,
    pub(super) latest: String,
    /// The kinds of file a file question takes (`image`, `pdf`, `office`), and its largest
    /// file in MB.
    pub(super) accept: Vec<String>,
    pub(super) max_mb: String,
    /// Whether its options segment the results.
    pub(super) segment: bool,
    /// Whether its options are shown in an order drawn for each respondent, and how many of
    /// the last stay last.
    pub(super) randomize: bool,
    pub(super) fixed_last: String,
    /// Points per option, in the options' order ("1, 0, 0"), and the correct options (one
    /// per line).
    pub(super) scores: String,
    pub(super) correct: String,
    /// Its validation: what must be true, and what the respondent reads when it is not.
    pub(super) validate: String,
    pub(super) validate_message: String,
    /// Whether it starts a page, that page's texts and jump, and the rule that shows it.
    pub(super) logic: LogicEdit,
    /// Whether its owner removed it: it stays in the form, collapsed with an Undo button,
    /// until the form is saved, which leaves it out.
    pub(super) removed: bool,
    /// Whether it was added in this form: it has its id from the start (so rules and recalls
    /// can name it before it is saved), and is left out while it is still blank.
    pub(super) new: bool,
}

impl QuestionEdit {
    pub(super) fn blank(index: usize) -> Self {
        Self {
            index,
            id: String::new(),
            text: String::new(),
            help: String::new(),
            kind: "short_text".into(),
            required: false,
            options: String::new(),
            min: String::new(),
            max: String::new(),
            integer: false,
            other: false,
            rows: String::new(),
            points: String::new(),
            min_label: String::new(),
            max_label: String::new(),
            earliest: String::new(),
            latest: String::new(),
            accept: Vec::new(),
            max_mb: String::new(),
            segment: false,
            randomize: false,
            fixed_last: String::new(),
            scores: String::new(),
            correct: String::new(),
            validate: String::new(),
            validate_message: String::new(),
            logic: LogicEdit::default(),
            removed: false,
            new: false,
        }
    }

    /// A new question of the form, with an id of its own from the start.
    pub(super) fn fresh(index: usize) -> Self {
        Self {
            id: crate::domain::QuestionId::generate().to_string(),
            new: true,
            ..Self::blank(index)
        }
    }

    /// The blocks of a saved survey.
    pub(super) fn all_of(survey: &Survey) -> Vec<Self> {
        survey
            .questions
            .iter()
            .enumerate()
            .map(|(index, q)| {
                let mut block = Self::blank(index);
                block.id = q.id.to_string();
                block.text = q.text.clone();
                block.help = q.help.clone().unwrap_or_default();
                block.kind = q.kind.name().into();
                block.required = q.required;
                block.other = q.kind.has_other();
                block.segment = q.segment;
                block.randomize = q.randomize_options;
                block.fixed_last = match q.fixed_last {
                    0 => String::new(),
                    n => n.to_string(),
                };
                block.options = q.kind.options().join("\n");
                block.scores = q
                    .scoring
                    .scores
                    .iter()
                    .map(|n| crate::web::tenant::charts::number(*n))
                    .collect::<Vec<_>>()
                    .join(", ");
                block.correct = q.scoring.correct.join("\n");
                if let Some(validation) = &q.validate {
                    block.validate = validation.expression.to_string();
                    block.validate_message = validation.message.clone();
                }
                match &q.kind {
                    QuestionKind::Numeric { min, max, integer } => {
                        block.min = min.map(|n| n.to_string()).unwrap_or_default();
                        block.max = max.map(|n| n.to_string()).unwrap_or_default();
                        block.integer = *integer;
                    }
                    QuestionKind::Scale {
                        points,
                        min_label,
                        max_label,
                    } => {
                        block.points = points.to_string();
                        block.min_label = min_label.clone().unwrap_or_default();
                        block.max_label = max_label.clone().unwrap_or_default();
                    }
                    QuestionKind::Date { earliest, latest } => {
                        block.earliest = earliest.clone().unwrap_or_default();
                        block.latest = latest.clone().unwrap_or_default();
                    }
                    QuestionKind::File { accept, max_bytes } => {
                        block.accept = accept.iter().map(|k| k.name().to_owned()).collect();
                        let mb = *max_bytes as f64 / (1024.0 * 1024.0);
                        block.max_mb = crate::web::tenant::charts::number(mb);
                    }
                    // A matrix's columns are written where a choice question's options are.
                    QuestionKind::Matrix { rows, columns } => {
                        block.options = columns.join("\n");
                        block.rows = rows.join("\n");
                    }
                    _ => {}
                }
                block.logic = LogicEdit::of(survey, index);
                block
            })
            .collect()
    }

    /// Block `index` of the posted form, read with `get` (blank for a missing field).
    pub(super) fn posted(index: usize, get: impl Fn(&str) -> String) -> Self {
        let q = |name: &str| get(&format!("q{index}.{name}"));
        Self {
            index,
            id: q("id"),
            text: q("text"),
            help: q("help"),
            kind: q("type"),
            required: !q("required").is_empty(),
            options: q("options"),
            min: q("min"),
            max: q("max"),
            integer: !q("integer").is_empty(),
            other: !q("other").is_empty(),
            rows: q("rows"),
            points: q("points"),
            min_label: q("min_label"),
            max_label: q("max_label"),
            earliest: q("earliest"),
            latest: q("latest"),
            // Each kind has a box of its own (`accept_image`, ...).
            accept: crate::domain::upload::FILE_KINDS
                .iter()
                .map(|kind| kind.name())
                .filter(|name| !q(&format!("accept_{name}")).is_empty())
                .map(str::to_owned)
                .collect(),
            max_mb: q("max_mb"),
            segment: !q("segment").is_empty(),
            randomize: !q("randomize").is_empty(),
            fixed_last: q("fixed_last"),
            scores: q("scores"),
            correct: q("correct"),
            validate: q("validate"),
            validate_message: q("validate_message"),
            removed: !q("removed").is_empty(),
            new: !q("new").is_empty(),
            logic: LogicEdit::posted(q),
        }
    }

    /// How an expression names its answer: `q.ID`, or `q["ID"]` for an id that starts with
    /// a digit (made before ids started with a letter).
    pub(super) fn in_expressions(&self) -> String {
        match self.id.chars().next() {
            None => "q.ID".into(),
            Some(first) if first.is_ascii_digit() => format!("q[\"{}\"]", self.id),
            Some(_) => format!("q.{}", self.id),
        }
    }

    pub(super) fn is_blank(&self) -> bool {
        (self.id.is_empty() || self.new)
            && self.text.trim().is_empty()
            && self.options.trim().is_empty()
    }

    /// Whether a save keeps it: neither blank nor removed.
    pub(super) fn is_kept(&self) -> bool {
        !self.removed && !self.is_blank()
    }

    /// Whether a file question takes files of kind `name`.
    pub(super) fn accepts(&self, name: &str) -> bool {
        self.accept.iter().any(|kind| kind == name)
    }

    /// Whether its type uses a group of fields (see `FIELD_GROUPS`).
    pub(super) fn uses(&self, group: &str) -> bool {
        FIELD_GROUPS
            .iter()
            .any(|(name, types)| *name == group && types.contains(&self.kind.as_str()))
    }

    /// The answers a rule may compare it with, where they are a known few: its options (and
    /// "Other"), its stars or its points; none for numbers, texts and dates.
    pub(super) fn values(&self) -> Vec<String> {
        let options = || {
            self.options
                .lines()
                .map(str::trim)
                .filter(|o| !o.is_empty())
                .map(str::to_owned)
                .collect::<Vec<_>>()
        };
        match self.kind.as_str() {
            "single_choice" | "multiple_choice" | "dropdown" | "ranking" => {
                let mut values = options();
                if self.other && self.kind != "dropdown" {
                    values.push(crate::domain::choice::OTHER.to_owned());
                }
                values
            }
            "five_stars" => (1..=5).map(|n| n.to_string()).collect(),
            "nps" => (0..=10).map(|n| n.to_string()).collect(),
            "scale" => {
                let points = self.points.trim().parse::<u8>().unwrap_or(5).clamp(3, 10);
                (1..=points).map(|n| n.to_string()).collect()
            }
            _ => Vec::new(),
        }
    }

    /// A copy to place after it: a new question (no id) on the same page, with the same rule.
    pub(super) fn duplicate(&self) -> Self {
        let mut copy = self.clone();
        copy.id = crate::domain::QuestionId::generate().to_string();
        copy.new = true;
        copy.logic = self.logic.for_copy();
        copy
    }

    /// The question input it describes and, if it starts a page, that page; problems go to
    /// `errors` under `questions[index].field`. `first` says whether it is the first kept
    /// block (which always starts the first page).
    pub(super) fn input(
        &self,
        first: bool,
        errors: &mut BTreeMap<String, String>,
    ) -> (Option<PageInput>, QuestionInput) {
        let at = |field: &str| format!("questions[{}].{field}", self.index);
        let mut number = |text: &str, field: &str, message: &str, ok: &dyn Fn(&str) -> bool| {
            let text = text.trim();
            if !text.is_empty() && !ok(text) {
                errors.insert(at(field), message.into());
            }
        };
        let finite = |t: &str| t.parse::<f64>().is_ok_and(f64::is_finite);
        let range = self.uses("range");
        let scale = self.uses("scale");
        if range {
            number(&self.min, "min", "Enter a number.", &finite);
            number(&self.max, "max", "Enter a number.", &finite);
        }
        if self.uses("file") {
            number(
                &self.max_mb,
                "max_bytes",
                "Enter a size in MB, such as 10 or 2.5.",
                &|t| t.parse::<f64>().is_ok_and(|mb| mb.is_finite() && mb > 0.0),
            );
        }
        if scale {
            number(
                &self.points,
                "points",
                "Enter a whole number from 3 to 10.",
                &|t| t.parse::<u8>().is_ok(),
            );
        }
        let bound = |text: &str| text.trim().parse::<f64>().ok().filter(|n| n.is_finite());
        let given =
            |text: &str, used: bool| Some(text.trim().to_owned()).filter(|t| used && !t.is_empty());
        let lines = |text: &str, used: bool| -> Vec<String> {
            if used {
                text.lines().map(str::to_owned).collect()
            } else {
                Vec::new()
            }
        };
        let matrix = self.kind == "matrix";
        let show_if = self.logic.condition().unwrap_or_else(|message| {
            errors.insert(at("show_if"), message);
            None
        });
        let starts = self.logic.page(first).unwrap_or_else(|message| {
            errors.insert(at("pages"), message);
            None
        });
        let dates = self.uses("dates");
        let shuffles = self.uses("shuffle") && self.randomize;
        let fixed_last = match self.fixed_last.trim() {
            "" => 0,
            typed => typed.parse().unwrap_or_else(|_| {
                errors.insert(
                    at("fixed_last"),
                    "Enter how many of the last options stay last, or leave it blank.".into(),
                );
                0
            }),
        };
        let scored = self.uses("shuffle");
        let scores = match self.scores.trim() {
            "" => Vec::new(),
            _ if !scored => Vec::new(),
            typed => typed
                .split([',', ';', '\n'])
                .map(|n| n.trim().parse::<f64>())
                .collect::<Result<Vec<f64>, _>>()
                .unwrap_or_else(|_| {
                    errors.insert(
                        at("scores"),
                        "Enter one number per option, in order, separated by commas (1, 0, 0)."
                            .into(),
                    );
                    Vec::new()
                }),
        };
        let validate = match (self.validate.trim(), self.validate_message.trim()) {
            ("", "") => None,
            (expression, message) => Some(crate::domain::definition::ValidationInput {
                expression: expression.to_owned(),
                message: message.to_owned(),
            }),
        };
        let question = QuestionInput {
            validate,
            scores,
            correct: lines(&self.correct, scored)
                .into_iter()
                .map(|c| c.trim().to_owned())
                .filter(|c| !c.is_empty())
                .collect(),
            randomize_options: shuffles,
            fixed_last: if shuffles { fixed_last } else { 0 },
            id: (!self.id.is_empty()).then(|| self.id.clone()),
            text: self.text.clone(),
            help: given(&self.help, true),
            kind: self.kind.clone(),
            required: self.required,
            options: lines(&self.options, self.uses("options") && !matrix),
            min: bound(&self.min).filter(|_| range),
            max: bound(&self.max).filter(|_| range),
            integer: range && self.integer,
            other: self.uses("other") && self.other,
            rows: lines(&self.rows, matrix),
            columns: lines(&self.options, matrix),
            points: self.points.trim().parse().ok().filter(|_| scale),
            min_label: given(&self.min_label, scale),
            max_label: given(&self.max_label, scale),
            earliest: given(&self.earliest, dates),
            latest: given(&self.latest, dates),
            accept: match self.uses("file") {
                true => self.accept.clone(),
                false => Vec::new(),
            },
            max_bytes: self
                .max_mb
                .trim()
                .parse::<f64>()
                .ok()
                .filter(|mb| self.uses("file") && mb.is_finite() && *mb > 0.0)
                .map(|mb| (mb * 1024.0 * 1024.0).round() as u64),
            show_if,
            segment: self.uses("segment") && self.segment,
        };
        (starts, question)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block(kind: &str) -> QuestionEdit {
        let mut block = QuestionEdit::blank(0);
        block.text = "How many?".into();
        block.kind = kind.into();
        block.options = "A\nB".into();
        block.min = "1".into();
        block.max = "zero".into();
        block.other = true;
        block.points = "7".into();
        block
    }

    #[test]
    fn each_type_reads_only_the_fields_it_uses() {
        let mut errors = BTreeMap::new();
        let (_, short) = block("short_text").input(true, &mut errors);
        assert!(
            errors.is_empty(),
            "an unused bad bound is not read: {errors:?}"
        );
        assert!(short.options.is_empty() && !short.other && short.min.is_none());
        assert_eq!(short.points, None);

        let (_, choice) = block("single_choice").input(true, &mut errors);
        assert_eq!(choice.options, ["A", "B"]);
        assert!(choice.other && choice.columns.is_empty());

        let (_, matrix) = block("matrix").input(true, &mut errors);
        assert_eq!(matrix.columns, ["A", "B"]);
        assert!(matrix.options.is_empty() && !matrix.other);

        let (_, scale) = block("scale").input(true, &mut errors);
        assert_eq!(scale.points, Some(7));
        assert!(errors.is_empty());

        let (_, numeric) = block("numeric").input(true, &mut errors);
        assert_eq!(numeric.min, Some(1.0));
        assert_eq!(errors["questions[0].max"], "Enter a number.");
    }

    #[test]
    fn every_type_offered_is_known_to_the_groups() {
        for (group, types) in FIELD_GROUPS {
            for kind in types {
                let mut block = QuestionEdit::blank(0);
                block.kind = (*kind).into();
                assert!(block.uses(group));
                assert!(types_using(group).split(' ').any(|t| t == *kind));
            }
        }
        assert!(!QuestionEdit::blank(0).uses("options"));
        assert_eq!(types_using("nothing"), "");
    }

    #[test]
    fn a_duplicate_is_a_new_question_in_the_same_page() {
        let mut original = block("single_choice");
        original.id = "q1".into();
        original.logic.page_break = true;
        original.logic.page_title = "Second".into();
        let copy = original.duplicate();
        assert!(copy.new && !copy.id.is_empty() && copy.id != original.id);
        assert_eq!(copy.text, original.text);
        assert_eq!(copy.options, original.options);
        assert!(!copy.logic.page_break && copy.logic.page_title.is_empty());
    }
}
