//! A survey's languages and translations: the languages it is offered in, each text beside
//! the default one per language with what is missing, and the sheet for translators (XLSX or
//! CSV, one row per text, one column per language) downloaded and imported back.

use crate::web::tenant::survey_form::OwnSurvey;
use crate::web::tenant::survey_form::{SurveyForm, SurveySheet};
use std::collections::BTreeMap;
use std::sync::Arc;

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, web};
use askama::Template;
use serde::Deserialize;

use super::notice;
use super::session::SignedIn;
use crate::domain::Survey;
use crate::domain::language::{LanguageTag, known_languages};
use crate::domain::member::Role;
use crate::domain::translation::{describe, is_markdown};
use crate::export::SheetFormat;
use crate::export::text_sheet;
use crate::i18n::{Words, language_name};
use crate::service::translations;
use crate::web::download::attachment;
use crate::web::forms::field;
use crate::web::roles::Editor;
use crate::web::{Reply, State, WebError, render_with_status};

/// Largest translation sheet imported.
pub const MAX_SHEET_BYTES: usize = 2 * 1024 * 1024;

/// One of the survey's other languages, as a tab.
struct LanguageTab {
    tag: String,
    name: String,
    missing: usize,
    shown: bool,
}

/// One text beside its default.
struct TextView {
    key: String,
    label: String,
    default: String,
    translation: String,
    markdown: bool,
    error: Option<String>,
}

impl TextView {
    /// Lines the text box starts with: room for what the default says.
    fn rows(&self) -> usize {
        (self.default.chars().count() / 60 + 1).clamp(1, 8)
    }
}

#[derive(Template)]
#[template(path = "tenant/translations.html")]
struct TranslationsPage {
    csrf: String,
    role: Role,
    survey: Arc<Survey>,
    /// The languages as typed (or as they are), `en, de, ar`.
    languages_typed: String,
    languages_error: Option<String>,
    /// The default language's tag and name.
    default: (String, String),
    /// How many texts the survey has.
    total: usize,
    tabs: Vec<LanguageTab>,
    /// The language shown: tag, name, direction.
    shown: Option<(String, String, &'static str)>,
    texts: Vec<TextView>,
    /// Whether saving the texts shown was refused.
    refused: bool,
    import_problems: Vec<String>,
    notice: Option<String>,
    /// Languages to add, the site's own first: (tag, what the picker says).
    fully_translated: Vec<Choice>,
    others: Vec<Choice>,
}

impl TranslationsPage {
    fn address(&self) -> String {
        format!("/tenant/surveys/{}/translations", self.survey.slug)
    }

    /// Every language the site's own words come in, named in its own language.
    fn site_languages(&self) -> String {
        crate::i18n::SHIPPED
            .iter()
            .map(|tag| format!("{} ({tag})", language_name(tag)))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// `?lang=TAG`: the language to show.
#[derive(Deserialize)]
pub struct LanguageQuery {
    lang: Option<String>,
}

/// The page for `survey`, showing `asked` (else its first other language).
fn page(signed_in: &SignedIn, survey: Arc<Survey>, asked: Option<&str>) -> TranslationsPage {
    let languages = survey.offered_languages();
    let missing = survey.missing_translations();
    let texts = survey.owner_texts();
    let shown_tag = languages
        .iter()
        .skip(1)
        .find(|tag| Some(tag.as_str()) == asked)
        .or_else(|| languages.get(1))
        .cloned();
    let tabs = languages
        .iter()
        .skip(1)
        .map(|tag| LanguageTab {
            tag: tag.to_string(),
            name: language_name(tag.as_str()),
            missing: missing
                .iter()
                .find(|(lacking, _, _)| lacking == tag)
                .map_or(0, |(_, count, _)| *count),
            shown: Some(tag) == shown_tag.as_ref(),
        })
        .collect();
    let views = match &shown_tag {
        None => Vec::new(),
        Some(tag) => texts
            .iter()
            .map(|(key, default)| TextView {
                key: key.clone(),
                label: describe(key, &survey.questions),
                default: default.clone(),
                translation: survey
                    .translations
                    .get(tag)
                    .and_then(|given| given.get(key))
                    .cloned()
                    .unwrap_or_default(),
                markdown: is_markdown(key),
                error: None,
            })
            .collect(),
    };
    let default = languages
        .first()
        .map(ToString::to_string)
        .unwrap_or_default();
    let (fully_translated, others) = addable(&languages);
    TranslationsPage {
        fully_translated,
        others,
        csrf: signed_in.session.csrf.clone(),
        role: signed_in.role,
        languages_typed: languages
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join(", "),
        languages_error: None,
        default: (default.clone(), language_name(&default)),
        total: texts.len(),
        tabs,
        shown: shown_tag.map(|tag| {
            let dir = Words::for_tag(tag.as_str()).dir();
            (tag.to_string(), language_name(tag.as_str()), dir)
        }),
        texts: views,
        refused: false,
        import_problems: Vec::new(),
        notice: None,
        survey,
    }
}

/// A language the picker offers: its tag, and what the picker says.
type Choice = (String, String);

/// The languages the picker offers to add (those not offered yet): the site's eight, whose
/// buttons and messages are translated too, then every other ISO 639-1 language.
fn addable(offered: &[LanguageTag]) -> (Vec<Choice>, Vec<Choice>) {
    let fresh = |tag: &str| !offered.iter().any(|kept| kept.as_str() == tag);
    let shipped = crate::i18n::SHIPPED
        .iter()
        .filter(|tag| fresh(tag))
        .map(|tag| (tag.to_string(), format!("{} ({tag})", language_name(tag))))
        .collect();
    let others = known_languages()
        .iter()
        .filter(|known| fresh(known.tag) && !crate::i18n::SHIPPED.contains(&known.tag))
        .map(|known| {
            let said = match known.autonym {
                Some(own) if !own.eq_ignore_ascii_case(known.english) => {
                    format!("{} – {own} ({})", known.english, known.tag)
                }
                _ => format!("{} ({})", known.english, known.tag),
            };
            (known.tag.to_owned(), said)
        })
        .collect();
    (shipped, others)
}

/// Where the page of `survey` showing `language` is.
fn address(survey: &Survey, language: Option<&str>) -> String {
    let base = format!("/tenant/surveys/{}/translations", survey.slug);
    match language {
        Some(tag) => format!("{base}?lang={tag}"),
        None => base,
    }
}

/// `GET /tenant/surveys/{slug}/translations?lang=TAG`
pub async fn show(
    state: State,
    OwnSurvey { signed_in, survey }: OwnSurvey<Editor>,
    request: HttpRequest,
    query: web::Query<LanguageQuery>,
) -> Reply {
    let mut shown = page(&signed_in, survey, query.lang.as_deref());
    shown.notice = notice::take(&request, &state);
    notice::render_once(&shown, shown.notice.is_some())
}

/// `POST /tenant/surveys/{slug}/languages`: the languages it is offered in, the default
/// first. Translations of languages still offered stay.
pub async fn save_languages(state: State, posted: SurveyForm<Editor>) -> Reply {
    let (signed_in, survey, form) = posted.parts();
    let mut typed = field(&form, "languages").unwrap_or_default().to_owned();
    // The picker's button adds its language to the list as it is.
    if let Some(added) = field(&form, "add").filter(|tag| !tag.trim().is_empty()) {
        typed = format!("{typed}, {added}");
    }
    let sent: Vec<String> = typed
        .split([',', ';', ' '])
        .filter(|tag| !tag.trim().is_empty())
        .map(str::to_owned)
        .collect();
    let saved = match translations::set_languages(&state.app, &survey, &sent).await? {
        Ok(saved) => saved,
        Err(problem) => {
            let mut shown = page(&signed_in, survey, None);
            shown.languages_error = Some(problem);
            shown.languages_typed = typed.chars().take(400).collect();
            return render_with_status(StatusCode::UNPROCESSABLE_ENTITY, &shown);
        }
    };
    let said: Vec<String> = saved
        .offered_languages()
        .iter()
        .map(|tag| format!("{} ({tag})", language_name(tag.as_str())))
        .collect();
    Ok(notice::redirect(
        &state,
        &address(&saved, None),
        &format!("Saved: offered in {}.", said.join(", ")),
    ))
}

/// `POST /tenant/surveys/{slug}/translations?lang=TAG`: that language's texts.
pub async fn save_texts(
    state: State,
    posted: SurveyForm<Editor>,
    query: web::Query<LanguageQuery>,
) -> Reply {
    let (signed_in, survey, form) = posted.parts();
    let languages = survey.offered_languages();
    let Some(tag) = languages
        .iter()
        .skip(1)
        .find(|tag| Some(tag.as_str()) == query.lang.as_deref())
    else {
        return Err(WebError::BadRequest(
            "Choose one of the survey's other languages to translate.".into(),
        ));
    };
    let posted: BTreeMap<String, String> = form
        .iter()
        .filter_map(|(name, text)| Some((name.strip_prefix("t:")?.to_owned(), text.clone())))
        .collect();
    let saved = match translations::save_texts(&state.app, &survey, tag, posted.clone()).await? {
        Ok(saved) => saved,
        Err(errors) => {
            let mut shown = page(&signed_in, survey.clone(), Some(tag.as_str()));
            let prefix = format!("translations.{tag}.");
            for text in &mut shown.texts {
                text.translation = posted.get(&text.key).cloned().unwrap_or_default();
                text.error = errors.get(&format!("{prefix}{}", text.key)).cloned();
            }
            shown.refused = true;
            return render_with_status(StatusCode::UNPROCESSABLE_ENTITY, &shown);
        }
    };
    let missing = saved
        .missing_translations()
        .into_iter()
        .find(|(language, _, _)| language == tag)
        .map_or(0, |(_, count, _)| count);
    let said = match missing {
        0 => "every text is translated".to_owned(),
        1 => "1 text is missing".to_owned(),
        n => format!("{n} texts are missing"),
    };
    Ok(notice::redirect(
        &state,
        &address(&saved, Some(tag.as_str())),
        &format!("Saved {} ({tag}): {said}.", language_name(tag.as_str())),
    ))
}

/// `GET /tenant/surveys/{slug}/translations.{format}`: the sheet for translators.
pub async fn download(
    _state: State,
    OwnSurvey { survey, .. }: OwnSurvey<Editor>,
    path: web::Path<(String, String)>,
) -> Reply {
    let (_, extension) = path.into_inner();
    let format = SheetFormat::from_extension(&extension).ok_or(WebError::NotFound)?;
    let rows = survey.translation_sheet();
    let body = match format {
        SheetFormat::Csv => text_sheet::csv_bytes(&rows),
        SheetFormat::Xlsx => text_sheet::xlsx_bytes(&rows, "Translations").map_err(|error| {
            WebError::Internal(format!("writing the translation sheet: {error}"))
        })?,
    };
    let filename = format!(
        "{}-{}-translations.{}",
        survey.tenant,
        survey.slug,
        format.extension()
    );
    Ok(attachment(format, &filename).body(body))
}

/// `POST /tenant/surveys/{slug}/translations/import` (multipart): a filled-in sheet. All or
/// nothing: every problem is listed by row, and nothing changes until there are none.
pub async fn import(state: State, posted: SurveySheet<Editor, MAX_SHEET_BYTES>) -> Reply {
    let SurveySheet {
        signed_in,
        survey,
        sent,
    } = posted;
    let refuse = |problems: Vec<String>| {
        let mut shown = page(&signed_in, survey.clone(), None);
        shown.import_problems = problems;
        render_with_status(StatusCode::UNPROCESSABLE_ENTITY, &shown)
    };
    let bytes = match sent.import_file() {
        Ok(bytes) => bytes,
        Err(problem) => return refuse(vec![problem]),
    };
    let imported = match translations::import_sheet(&state.app, &survey, bytes.clone()).await? {
        Ok(imported) => imported,
        Err(problems) => return refuse(problems),
    };
    let (saved, changed) = (imported.survey, imported.changed);
    let text = match changed {
        1 => "Imported: 1 text changed.".to_owned(),
        n => format!("Imported: {n} texts changed."),
    };
    Ok(notice::redirect(&state, &address(&saved, None), &text))
}
