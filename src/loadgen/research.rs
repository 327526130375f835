//! The survey `loadgen --research` answers: a page like the demo's, then a loop, using what a
//! study adds on the answer path: a hidden field from the link (recalled in a text), options
//! and questions in orders drawn per respondent, a rule on an answer, points and a correct
//! answer, variables, an ending chosen by an expression, and a page repeated for each option
//! ticked on the first (none to three times), all worked out on the server at each step.

use crate::domain::{SurveySlug, TenantSlug};
use crate::stores::{Catalog, StoreError};

/// The slug of the survey.
pub const SLUG: &str = "loadgen-research";

fn definition() -> serde_json::Value {
    serde_json::json!({"title": "Loadgen research",
     "hidden_fields": ["pid"],
     "variables": [
        {"id": "total", "expression": "score * 10.0 + (has(q.stars) ? q.stars : 0.0)"},
        {"id": "band", "expression": "v.total >= 20.0 ? 'high' : 'low'"}],
     "endings": [
        {"id": "high", "if": "v.total >= 20.0", "text": "Well done."},
        {"id": "low", "text": "Thank you."}],
     "quiz": {"show_score": true},
     "pages": [{"randomize_questions": true, "questions": [
        {"id": "stars", "text": "Your rating", "type": "five_stars", "required": true},
        {"id": "drink", "text": "What did you drink?", "type": "single_choice", "required": true,
         "options": ["Tea", "Coffee", "Water", "None of these"], "randomize_options": true,
         "fixed_last": 1, "scores": [3, 2, 1, 0], "correct": ["Tea"]},
        {"id": "age", "text": "Your age", "type": "numeric", "required": true, "min": 18,
         "max": 99, "validate": {"expression": "q.age >= 18.0 && q.age <= 99.0",
                                 "message": "An adult's age, please."}},
        {"id": "comments", "text": "Anything else, {{h:pid|friend}}?", "type": "long_text",
         "required": false},
        {"id": "also", "text": "What else did you try?", "type": "multiple_choice",
         "options": ["Cake", "Biscuits", "Fruit"]}]},
       {"title": "About the {{loop}}", "loop": {"over": "also"}, "questions": [
        {"id": "liked", "text": "How much did you like the {{loop}}?", "type": "scale",
         "points": 5, "required": true,
         "validate": {"expression": "q.liked >= 1.0", "message": "Pick a point."}}]}]})
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
    fn the_survey_uses_every_study_feature_and_a_loop() {
        let input: SurveyInput = serde_json::from_value(definition()).expect("the shape");
        let checked = input.check(&[]).expect("valid");
        assert_eq!(checked.variables.len(), 2);
        assert_eq!(checked.endings.len(), 2);
        assert_eq!(checked.hidden_fields, ["pid"]);
        assert_eq!(checked.layout.len(), 2);
        assert!(checked.layout[1].repeat.is_some());
        assert!(checked.questions[2].validate.is_some());
    }
}
