//! Page order drawn per respondent: a survey whose `randomize_pages` names a block of pages
//! shows that block's pages in an order drawn from the respondent's form token. The survey is
//! arranged for the respondent (its pages and their questions put in the drawn order, jumps
//! into the block led to its first place), so every step of the answer path works on it as on
//! any survey; each page keeps its index as defined (`PageLayout::origin`), by which its texts
//! are translated and its question orders drawn and recorded.

use serde::{Deserialize, Serialize};

use super::logic::{PageLayout, Target};
use super::order::Draw;
use super::{Question, Survey};

/// A block of pages shown in a drawn order: `[FIRST, LAST]`, page indices from 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct PageBlock(pub usize, pub usize);

impl PageBlock {
    /// Whether page `index` is in the block.
    pub fn holds(&self, index: usize) -> bool {
        (self.0..=self.1).contains(&index)
    }

    /// How many pages it has.
    pub fn len(&self) -> usize {
        self.1.saturating_sub(self.0) + 1
    }

    /// Never empty: a block has at least one page (checked ones, two).
    pub fn is_empty(&self) -> bool {
        false
    }
}

/// What the order of a block's pages is recorded under in a response's `order`.
pub const PAGES_KEY: &str = "pages";

impl Survey {
    /// The survey as a respondent with `draw` sees it, when it draws an order of pages.
    pub fn arranged(&self, draw: &Draw) -> Option<Survey> {
        let block = self.randomize_pages?;
        if block.1 >= self.layout.len() || block.0 >= block.1 {
            return None;
        }
        let drawn = draw.permutation(PAGES_KEY, block.len(), 0);
        // Position → page as defined.
        let order: Vec<usize> = (0..self.layout.len())
            .map(|at| match block.holds(at) {
                true => block.0 + drawn[at - block.0],
                false => at,
            })
            .collect();
        let mut questions: Vec<Question> = Vec::with_capacity(self.questions.len());
        let mut layout: Vec<PageLayout> = Vec::with_capacity(self.layout.len());
        for &page in &order {
            let mut moved = self.layout[page].clone();
            moved.start = questions.len();
            moved.origin = Some(page);
            // Jumps lead into the block only at its first page, which is now its first place;
            // and the block's own pages have none (both checked), so every target stays.
            for jump in &mut moved.jumps {
                if let Target::Page(to) = jump.to
                    && block.holds(to)
                {
                    jump.to = Target::Page(block.0);
                }
            }
            questions.extend_from_slice(self.page_questions(page));
            layout.push(moved);
        }
        Some(Survey {
            questions,
            layout,
            ..self.clone()
        })
    }

    /// The block's pages as defined, in the order shown (for a survey arranged by
    /// `arranged`): what a response records under `PAGES_KEY`.
    pub fn shown_pages(&self) -> Option<Vec<String>> {
        let block = self.randomize_pages?;
        let shown: Vec<String> = self
            .layout
            .iter()
            .enumerate()
            .map(|(at, page)| page.origin.unwrap_or(at))
            .filter(|&origin| block.holds(origin))
            .map(|origin| origin.to_string())
            .collect();
        Some(shown)
    }

    /// The index as defined of the page at `index` (its texts' keys are by it).
    pub fn page_origin(&self, index: usize) -> usize {
        self.layout
            .get(index)
            .and_then(|page| page.origin)
            .unwrap_or(index)
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::domain::logic::Jump;
    use crate::domain::{QuestionId, QuestionKind};

    fn survey() -> Survey {
        let question = |id: &str| {
            Question::new(
                QuestionId::parse(id).expect("an id"),
                id,
                QuestionKind::ShortText,
            )
        };
        let definition = crate::domain::definition::Definition {
            title: "Blocks".into(),
            questions: ["a", "b", "c", "d", "e"].map(question).to_vec(),
            ..Default::default()
        };
        let mut survey = Survey::draft(
            crate::domain::TenantSlug::parse("acme").expect("a slug"),
            crate::domain::SurveySlug::parse("blocks").expect("a slug"),
            crate::domain::definition::checked::for_one_region(definition).expect("checked"),
            time::OffsetDateTime::UNIX_EPOCH,
        );
        let page = |start: usize| PageLayout {
            start,
            ..PageLayout::default()
        };
        // Pages: [a] [b] [c d] [e]; the first jumps to the block's start.
        survey.layout = vec![page(0), page(1), page(2), page(4)];
        survey.layout[0].jumps = vec![Jump {
            condition: crate::domain::logic::Condition::All { all: vec![] },
            to: Target::Page(1),
        }];
        survey.randomize_pages = Some(PageBlock(1, 2));
        survey
    }

    #[test]
    fn a_block_is_shown_in_each_drawn_order_with_its_questions_and_origins() {
        let survey = survey();
        let mut seen = BTreeMap::new();
        for n in 0..200 {
            let draw = Draw::of_token(&format!("token-{n}"));
            let arranged = survey.arranged(&draw).expect("arranged");
            let ids: Vec<&str> = arranged.questions.iter().map(|q| q.id.as_str()).collect();
            let pages = arranged.shown_pages().expect("pages");
            match pages.as_slice() {
                [first, second] if first == "1" && second == "2" => {
                    assert_eq!(ids, ["a", "b", "c", "d", "e"]);
                }
                [first, second] if first == "2" && second == "1" => {
                    assert_eq!(ids, ["a", "c", "d", "b", "e"]);
                    assert_eq!(arranged.page_questions(1).len(), 2);
                    assert_eq!(arranged.page_origin(1), 2);
                }
                other => panic!("not the block's pages: {other:?}"),
            }
            // The jump into the block still leads to its first place; the last page stays.
            assert_eq!(arranged.layout[0].jumps[0].to, Target::Page(1));
            assert_eq!(arranged.page_origin(3), 3);
            *seen.entry(pages).or_insert(0) += 1;
        }
        assert_eq!(seen.len(), 2, "both orders are drawn: {seen:?}");
    }

    #[test]
    fn a_survey_without_a_block_is_not_arranged() {
        let mut survey = survey();
        survey.randomize_pages = None;
        assert!(survey.arranged(&Draw::of_token("t")).is_none());
    }
}
