//! The survey `loadgen --quota` answers: one page like the demo's, with a quota every answer
//! meets and that never fills (1,000,000 places), so every submission claims a place: what a
//! quota adds to the submit path.

use crate::domain::{SurveySlug, TenantSlug};
use crate::stores::{Catalog, StoreError};

/// The slug of the survey.
pub const SLUG: &str = "loadgen-quota";

fn definition() -> serde_json::Value {
    serde_json::json!({"title": "Loadgen quota", "questions": [
        {"id": "stars", "text": "Your rating", "type": "five_stars", "required": true},
        {"id": "drink", "text": "What did you drink?", "type": "single_choice", "required": true,
         "options": ["Tea", "Coffee", "Water"]},
        {"id": "comments", "text": "Anything else?", "type": "long_text", "required": false}],
     "quotas": [{"id": "rated", "name": "Rated", "limit": 1000000,
                 "when": {"question": "stars", "answered": true}}]})
}

/// Makes the survey in `tenant` (published) unless it is there; returns its slug.
pub async fn ensure(stores: &Catalog, tenant: &TenantSlug) -> Result<SurveySlug, StoreError> {
    super::paged::ensure_survey(stores, tenant, SLUG, definition()).await
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::definition::SurveyInput;

    #[test]
    fn every_answer_meets_its_quota() {
        let input: SurveyInput = serde_json::from_value(definition()).expect("the shape");
        let checked = input.check(&[]).expect("valid");
        let quotas = checked.quotas.expect("quotas");
        assert_eq!(quotas.len(), 1);
        assert_eq!(quotas[0].limit, 1_000_000);
    }
}
