//! The survey `loadgen --pages` answers: three pages with a display condition and a jump,
//! made in the tenant the first time (as an owner would through the API).

use crate::domain::SurveySlug;
use crate::domain::TenantSlug;
use crate::domain::definition::SurveyInput;
use crate::domain::definition::checked::for_one_region;
use crate::stores::{Catalog, StoreError};

/// The slug of the survey.
pub const SLUG: &str = "loadgen-pages";

/// Its definition: regulars see page 2, first-timers jump to page 3; "Why not?" is shown only
/// to those who did not like it.
fn definition() -> serde_json::Value {
    serde_json::json!({"title": "Loadgen pages", "pages": [
        {"title": "About your visit", "questions": [
            {"id": "visit", "text": "First visit?", "type": "single_choice", "required": true,
             "options": ["First time", "Regular", "Now and then"]},
            {"id": "likes", "text": "Did you like it?", "type": "single_choice", "required": true,
             "options": ["Yes", "No"]},
            {"id": "why", "text": "Why not?", "type": "short_text", "required": true,
             "show_if": {"question": "likes", "equals": "No"}}],
         "jumps": [{"if": {"question": "visit", "equals": "First time"}, "to": 2}]},
        {"title": "Regulars", "questions": [
            {"id": "often", "text": "Visits a month?", "type": "numeric", "required": true,
             "min": 1, "max": 31, "integer": true}]},
        {"title": "Last words", "questions": [
            {"id": "stars", "text": "Your rating", "type": "five_stars", "required": true},
            {"id": "comments", "text": "Anything else?", "type": "long_text", "required": false}]}
    ]})
}

/// The slug of the same survey keeping partial responses.
pub const PARTIAL_SLUG: &str = "loadgen-pages-partial";

/// Makes the survey in `tenant` (published) unless it is there, keeping partial responses
/// when `keep_partial` asks; returns its slug.
pub async fn ensure(
    stores: &Catalog,
    tenant: &TenantSlug,
    keep_partial: bool,
) -> Result<SurveySlug, StoreError> {
    match keep_partial {
        false => ensure_survey(stores, tenant, SLUG, definition()).await,
        true => {
            let mut definition = definition();
            definition["title"] = "Loadgen pages partial".into();
            definition["keep_partial"] = true.into();
            ensure_survey(stores, tenant, PARTIAL_SLUG, definition).await
        }
    }
}

/// Makes the survey `slug` of `definition` in `tenant`, published, unless it is there.
pub(super) async fn ensure_survey(
    stores: &Catalog,
    tenant: &TenantSlug,
    slug: &str,
    definition: serde_json::Value,
) -> Result<SurveySlug, StoreError> {
    let slug = SurveySlug::parse(slug).unwrap_or_else(|_| unreachable!("a valid slug"));
    if stores.surveys.get(tenant, &slug).await?.is_some() {
        return Ok(slug);
    }
    let input: SurveyInput = serde_json::from_value(definition)
        .unwrap_or_else(|error| unreachable!("the definition's shape: {error}"));
    let definition = input
        .check(&[])
        .and_then(for_one_region)
        .unwrap_or_else(|errors| unreachable!("a valid definition: {errors:?}"));
    if let Some(survey) = stores.surveys.create(tenant, definition).await? {
        stores.surveys.set_published(&survey, true).await?;
        return Ok(survey.slug);
    }
    Ok(slug)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::Target;

    #[test]
    fn the_survey_is_valid_and_its_routes_take_one_to_three_pages() {
        let input: SurveyInput = serde_json::from_value(definition()).expect("the shape");
        let checked = input.check(&[]).expect("valid");
        assert_eq!(checked.layout.len(), 3);
        assert_eq!(checked.layout[0].jumps[0].to, Target::Page(2));
    }
}
