//! The segment picker of the summary and responses pages: every segment of the survey,
//! grouped by question, with the one shown.

use crate::domain::SegmentId;
use crate::domain::segment::SegmentReport;

/// What the picker shows.
pub(super) struct SegmentPicker {
    /// Each segment question's text with its segments, in the survey's order.
    pub(super) groups: Vec<(String, Vec<SegmentReport>)>,
    /// The id of the segment shown (empty for every response).
    pub(super) selected: String,
    /// The segment shown.
    pub(super) shown: Option<SegmentReport>,
    /// Why the segment asked for is not shown.
    pub(super) error: Option<String>,
}

impl SegmentPicker {
    /// The picker for `segments` (as reports list them), with `shown` picked.
    pub(super) fn new(segments: Vec<SegmentReport>, shown: Option<&SegmentId>) -> Self {
        let selected = shown.map(|s| s.to_string()).unwrap_or_default();
        let shown = segments.iter().find(|s| s.id == selected).cloned();
        let mut groups: Vec<(String, Vec<SegmentReport>)> = Vec::new();
        for segment in segments {
            match groups.last_mut() {
                Some((_, group)) if group[0].question == segment.question => group.push(segment),
                _ => groups.push((segment.question_text.clone(), vec![segment])),
            }
        }
        Self {
            groups,
            selected,
            shown,
            error: None,
        }
    }

    /// A segment as the picker names it: its option, or its language's name with its tag.
    pub(super) fn label(&self, segment: &SegmentReport) -> String {
        match is_language(segment) {
            true => format!(
                "{} ({})",
                crate::i18n::language_name(&segment.option),
                segment.option
            ),
            false => segment.option.clone(),
        }
    }

    /// Whether the segment shown is a language's.
    pub(super) fn shows_language(&self) -> bool {
        self.shown.as_ref().is_some_and(is_language)
    }

    /// Whether the survey has segments to pick from.
    pub(super) fn offered(&self) -> bool {
        !self.groups.is_empty()
    }

    /// The segment as it goes on a link (`&segment=...`), empty for every response.
    pub(super) fn query(&self) -> String {
        if self.selected.is_empty() {
            return String::new();
        }
        let encoded: String =
            url::form_urlencoded::byte_serialize(self.selected.as_bytes()).collect();
        format!("&segment={encoded}")
    }
}

/// Whether a segment is that of a language rather than of a question's option.
fn is_language(segment: &SegmentReport) -> bool {
    segment.id.starts_with(&format!(
        "{}:",
        crate::domain::segment::SegmentKey::Language
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report(question: &str, option: &str, total: u64) -> SegmentReport {
        SegmentReport {
            id: format!("{question}:{option}"),
            question: question.into(),
            question_text: format!("About {question}?"),
            option: option.into(),
            total,
            complete: true,
            build: None,
        }
    }

    #[test]
    fn segments_are_grouped_by_question_and_the_shown_one_goes_on_links() {
        let picked = SegmentId::parse("place:Beach & sea").expect("valid");
        let picker = SegmentPicker::new(
            vec![
                report("place", "Beach & sea", 3),
                report("place", "Hills", 1),
                report("rating", "5", 2),
            ],
            Some(&picked),
        );
        assert_eq!(picker.groups.len(), 2);
        assert_eq!(picker.groups[0].1.len(), 2);
        assert_eq!(picker.shown.as_ref().map(|s| s.total), Some(3));
        assert_eq!(picker.query(), "&segment=place%3ABeach+%26+sea");
        assert!(SegmentPicker::new(Vec::new(), None).query().is_empty());
    }
}
