//! Pages of a survey's responses, newest first: one summary read, one or two answer-list
//! chunks and the page's answers, whatever the survey's size.

use super::{StoreError, Stores};
use crate::domain::{Answer, SurveyRef};

/// Responses per page.
pub const PER_PAGE: u64 = 25;

/// One page of responses.
#[derive(Debug)]
pub struct ResponsePage {
    /// Responses counted in all.
    pub total: u64,
    /// This page's number, from 1.
    pub page: u64,
    /// How many pages there are (at least 1).
    pub pages: u64,
    /// The responses, newest first.
    pub responses: Vec<Answer>,
}

/// The positions of page `page` (from 1) in a list of `total`, newest first: page 1 ends at
/// the last position.
pub fn page_positions(total: u64, page: u64, per_page: u64) -> std::ops::Range<u64> {
    let end = total.saturating_sub((page.max(1) - 1) * per_page);
    end.saturating_sub(per_page)..end
}

impl Stores {
    /// Page `page` (from 1) of the survey's responses, newest first.
    pub async fn response_page(
        &self,
        survey: &SurveyRef,
        page: u64,
    ) -> Result<ResponsePage, StoreError> {
        let doc = self.summaries.read(survey).await?.doc;
        let total = doc.list_len;
        let pages = total.div_ceil(PER_PAGE).max(1);
        let page = page.clamp(1, pages);
        let mut references = self
            .answer_list
            .references(survey, &doc, page_positions(total, page, PER_PAGE))
            .await?;
        references.reverse();
        let responses = self
            .answers
            .get_many(survey, &references)
            .await?
            .into_iter()
            .flatten()
            .collect();
        Ok(ResponsePage {
            total,
            page,
            pages,
            responses,
        })
    }

    /// The `n`th newest response (from 1) with the count of responses, for a viewer that
    /// steps through them one by one.
    pub async fn response_at(
        &self,
        survey: &SurveyRef,
        n: u64,
    ) -> Result<Option<(Answer, u64)>, StoreError> {
        let doc = self.summaries.read(survey).await?.doc;
        let total = doc.list_len;
        if n == 0 || n > total {
            return Ok(None);
        }
        let position = total - n;
        let found = self
            .answer_list
            .references(survey, &doc, position..position + 1)
            .await?;
        let Some(reference) = found.first() else {
            return Ok(None);
        };
        Ok(self
            .answers
            .get(survey, *reference)
            .await?
            .map(|answer| (answer, total)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_count_back_from_the_newest() {
        assert_eq!(page_positions(60, 1, 25), 35..60);
        assert_eq!(page_positions(60, 2, 25), 10..35);
        assert_eq!(page_positions(60, 3, 25), 0..10);
        assert_eq!(page_positions(0, 1, 25), 0..0);
        assert_eq!(page_positions(10, 9, 25), 0..0);
    }
}
