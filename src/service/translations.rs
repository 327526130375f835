//! A survey's languages and translations: the languages it is offered in, one language's texts
//! as a translator typed them, and a translators' sheet imported back. Each is checked by the
//! domain's rules, then stored as every change of a definition is (`surveys::amend`).

use std::collections::BTreeMap;

use bytes::Bytes;

use super::App;
use crate::domain::Survey;
use crate::domain::definition::{DefinitionErrors, language_list};
use crate::domain::language::{LanguageTag, MAX_LANGUAGES};
use crate::domain::translation::{self, MAX_SHEET_ROWS};
use crate::export::text_sheet;
use crate::export::workbook::Bounds;
use crate::stores::StoreError;

/// What a translations sheet may hold: its rows, a key column, a column per language and
/// notes beside them (documented in docs/tenants.md).
pub const SHEET_BOUNDS: Bounds = Bounds::sheet(
    MAX_SHEET_ROWS,
    SHEET_COLUMNS,
    MAX_SHEET_ROWS * SHEET_COLUMNS,
);

/// Columns a translations sheet may have.
const SHEET_COLUMNS: usize = 2 + MAX_LANGUAGES + 10;
/// Most problems of an import listed (the last line says how many more).
pub const LISTED_PROBLEMS: usize = 50;

/// Why no language list was saved: the first problem, in words.
const NO_LANGUAGE: &str = "name at least one language, such as en";

/// Offers `survey` in `sent` (the default first); translations of languages still offered
/// stay. The first problem if the list is refused.
pub async fn set_languages(
    app: &App,
    survey: &Survey,
    sent: &[String],
) -> Result<Result<Survey, String>, StoreError> {
    let mut errors = DefinitionErrors::new();
    let languages = language_list(sent, &mut errors);
    if sent.is_empty() || !errors.is_empty() {
        let first = errors.into_values().next();
        return Ok(Err(first.unwrap_or_else(|| NO_LANGUAGE.into())));
    }
    let mut definition = survey.definition();
    definition.translations = None;
    definition.languages = languages;
    let saved = super::surveys::amend(app, survey, definition).await?;
    Ok(saved.map_err(first_problem))
}

/// Saves `posted` (text key to translation) as `survey`'s texts in `language`, every other
/// language's as they are. The problems by field (`translations.TAG.KEY`) if refused.
pub async fn save_texts(
    app: &App,
    survey: &Survey,
    language: &LanguageTag,
    posted: BTreeMap<String, String>,
) -> Result<Result<Survey, DefinitionErrors>, StoreError> {
    let mut sent: BTreeMap<String, BTreeMap<String, String>> = survey
        .translations
        .iter()
        .map(|(language, texts)| (language.to_string(), texts.clone()))
        .collect();
    sent.insert(language.to_string(), posted);
    let mut errors = DefinitionErrors::new();
    let languages = survey.offered_languages();
    let kept = translation::check(&sent, &languages, &survey.owner_texts(), &mut errors);
    if !errors.is_empty() {
        return Ok(Err(errors));
    }
    let mut definition = survey.definition();
    definition.translations = Some(kept);
    super::surveys::amend(app, survey, definition).await
}

/// A translators' sheet imported.
pub struct Imported {
    /// The survey as saved.
    pub survey: Survey,
    /// How many texts changed.
    pub changed: usize,
}

/// Imports a filled-in translators' sheet into `survey`: all or nothing, every problem listed
/// by row (at most `LISTED_PROBLEMS`, then how many more), and nothing changes until there
/// are none. The sheet is read within `SHEET_BOUNDS`, off the async runtime.
pub async fn import_sheet(
    app: &App,
    survey: &Survey,
    bytes: Bytes,
) -> Result<Result<Imported, Vec<String>>, StoreError> {
    let read = tokio::task::spawn_blocking(move || text_sheet::read_rows(&bytes, &SHEET_BOUNDS))
        .await
        .map_err(|error| format!("the sheet could not be read ({error})"));
    let rows = match read {
        Ok(Ok(rows)) => rows,
        Ok(Err(error)) => return Ok(Err(vec![format!("Nothing was imported: {error}.")])),
        Err(problem) => return Ok(Err(vec![format!("Nothing was imported: {problem}.")])),
    };
    let languages = survey.offered_languages();
    let read = translation::read_sheet(
        &rows,
        &languages,
        &survey.owner_texts(),
        &survey.translations,
    );
    let merged = match read {
        Ok(merged) => merged,
        Err(problems) => {
            let mut said: Vec<String> = problems
                .iter()
                .take(LISTED_PROBLEMS)
                .map(ToString::to_string)
                .collect();
            if problems.len() > LISTED_PROBLEMS {
                said.push(format!("and {} more.", problems.len() - LISTED_PROBLEMS));
            }
            return Ok(Err(said));
        }
    };
    let changed: usize = merged
        .iter()
        .map(|(language, texts)| {
            let before = survey.translations.get(language);
            texts
                .iter()
                .filter(|(key, text)| before.and_then(|b| b.get(*key)) != Some(*text))
                .count()
        })
        .sum();
    let mut definition = survey.definition();
    definition.translations = Some(merged);
    let saved = super::surveys::amend(app, survey, definition).await?;
    Ok(match saved {
        Ok(survey) => Ok(Imported { survey, changed }),
        Err(errors) => Err(errors.into_values().collect()),
    })
}

/// The first of a definition's problems, for a form that shows one.
fn first_problem(errors: DefinitionErrors) -> String {
    errors
        .into_values()
        .next()
        .unwrap_or_else(|| NO_LANGUAGE.into())
}
