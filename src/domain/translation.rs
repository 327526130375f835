//! A survey's texts in its other languages: each owner text has a key (`title`,
//! `q:overall:text`, `q:drink:option:2`, `page:1:title`), and a translation gives some of them
//! in one language. What is not translated is shown in the default language, text by text;
//! answers keep the default language's option labels, so every language pools into one summary.

use std::collections::BTreeMap;

use super::answer::has_control_characters;
use super::language::LanguageTag;
use super::logic::PageLayout;
use super::question::{Question, QuestionKind};
use super::quota::Quota;
use super::recall;

/// Longest translated text.
pub const MAX_TRANSLATED_TEXT: usize = 2_000;

/// What is wrong, by field (the definition's errors).
type Problems = BTreeMap<String, String>;

/// Per language (never the default), the translated texts by key.
pub type Translations = BTreeMap<LanguageTag, BTreeMap<String, String>>;

/// The parts of a survey (or of a definition) that hold owner texts.
pub struct TextSources<'a> {
    pub title: &'a str,
    pub description: Option<&'a str>,
    pub questions: &'a [Question],
    pub layout: &'a [PageLayout],
    pub thank_you: Option<&'a str>,
    pub closed_message: Option<&'a str>,
    pub quotas: &'a [Quota],
    pub endings: &'a [super::calculation::Ending],
}

/// Every owner text of a survey, by key, in the order a translator reads them, with its text
/// in the default language.
pub fn owner_texts(of: &TextSources<'_>) -> Vec<(String, String)> {
    let TextSources {
        title,
        description,
        questions,
        layout,
        thank_you,
        closed_message,
        quotas,
        endings,
    } = *of;
    let mut texts = vec![("title".to_owned(), title.to_owned())];
    let optional = |texts: &mut Vec<(String, String)>, key: String, text: Option<&str>| {
        if let Some(text) = text.filter(|t| !t.is_empty()) {
            texts.push((key, text.to_owned()));
        }
    };
    optional(&mut texts, "description".into(), description);
    for (index, page) in layout.iter().enumerate() {
        optional(
            &mut texts,
            format!("page:{index}:title"),
            page.title.as_deref(),
        );
        optional(
            &mut texts,
            format!("page:{index}:description"),
            page.description.as_deref(),
        );
    }
    for question in questions {
        let id = &question.id;
        texts.push((format!("q:{id}:text"), question.text.clone()));
        optional(&mut texts, format!("q:{id}:help"), question.help.as_deref());
        let refusal = question.validate.as_ref().map(|v| v.message.as_str());
        optional(&mut texts, format!("q:{id}:validate"), refusal);
        let listed = |texts: &mut Vec<(String, String)>, part: &str, items: &[String]| {
            for (at, item) in items.iter().enumerate() {
                texts.push((format!("q:{id}:{part}:{at}"), item.clone()));
            }
        };
        match &question.kind {
            QuestionKind::Matrix { rows, columns } => {
                listed(&mut texts, "row", rows);
                listed(&mut texts, "column", columns);
            }
            QuestionKind::Scale {
                min_label,
                max_label,
                ..
            } => {
                optional(
                    &mut texts,
                    format!("q:{id}:min_label"),
                    min_label.as_deref(),
                );
                optional(
                    &mut texts,
                    format!("q:{id}:max_label"),
                    max_label.as_deref(),
                );
            }
            kind => listed(&mut texts, "option", kind.options()),
        }
    }
    optional(&mut texts, "thank_you".into(), thank_you);
    optional(&mut texts, "closed_message".into(), closed_message);
    for quota in quotas {
        let key = format!("quota:{}:message", quota.id);
        optional(&mut texts, key, quota.message.as_deref());
    }
    for ending in endings {
        let key = format!("ending:{}:text", ending.id);
        optional(&mut texts, key, ending.text.as_deref());
    }
    texts
}

/// What the text by `key` is, for a person: "Title", "Page 2 title", "Question 3",
/// "Question 3, option 2" (questions and items counted from 1).
pub fn describe(key: &str, questions: &[Question]) -> String {
    let fixed = match key {
        "title" => Some("Title"),
        "description" => Some("Introduction"),
        "thank_you" => Some("Thank-you message"),
        "closed_message" => Some("Closed message"),
        _ => None,
    };
    if let Some(fixed) = fixed {
        return fixed.to_owned();
    }
    let parts: Vec<&str> = key.split(':').collect();
    let count = |at: &str| at.parse::<usize>().map_or(0, |n| n + 1);
    match parts.as_slice() {
        ["page", at, "title"] => format!("Page {} title", count(at)),
        ["page", at, "description"] => format!("Page {} introduction", count(at)),
        ["quota", id, "message"] => format!("Message of quota {id}"),
        ["ending", id, "text"] => format!("Text of ending {id}"),
        ["q", id, rest @ ..] => {
            let number = questions
                .iter()
                .position(|q| q.id.as_str() == *id)
                .map_or(0, |at| at + 1);
            let question = format!("Question {number}");
            match rest {
                ["text"] => question,
                ["help"] => format!("{question}, help text"),
                ["validate"] => format!("{question}, message when its rule fails"),
                ["min_label"] => format!("{question}, low end label"),
                ["max_label"] => format!("{question}, high end label"),
                [part, at] => format!("{question}, {part} {}", count(at)),
                _ => question,
            }
        }
        _ => key.to_owned(),
    }
}

/// Whether the text by `key` is Markdown (the introduction, thank-you, closed and quota
/// messages).
pub fn is_markdown(key: &str) -> bool {
    matches!(key, "description" | "thank_you" | "closed_message")
        || (key.starts_with("quota:") && key.ends_with(":message"))
        || (key.starts_with("ending:") && key.ends_with(":text"))
}

/// What a translation of a Markdown text breaks, if anything: it must link to the addresses
/// the default text links to, no fewer and no others (a link typed wrong, `[site(https://..)`,
/// is no link), and hold no HTML the default does not (shown as text, never as HTML).
pub fn markdown_problem(default: &str, translated: &str) -> Option<String> {
    use pulldown_cmark::{Event, Parser, Tag};
    let read = |text: &str| {
        let (mut links, mut html) = (Vec::new(), 0usize);
        for event in Parser::new(text) {
            match event {
                Event::Start(Tag::Link { dest_url, .. }) => links.push(dest_url.into_string()),
                Event::Html(_) | Event::InlineHtml(_) => html += 1,
                _ => {}
            }
        }
        links.sort();
        (links, html)
    };
    let ((wanted, html_before), (given, html_now)) = (read(default), read(translated));
    if let Some(lost) = wanted.iter().find(|link| !given.contains(link)) {
        return Some(format!(
            "the default text links to {lost} and this translation does not (write links as [words]({lost}))"
        ));
    }
    if let Some(other) = given.iter().find(|link| !wanted.contains(link)) {
        return Some(format!(
            "this translation links to {other}, which the default text does not"
        ));
    }
    if wanted.len() != given.len() {
        return Some(
            "this translation has a different number of links than the default text".into(),
        );
    }
    (html_now > html_before)
        .then(|| "this translation holds HTML, which is shown as text: write Markdown".into())
}

/// What a translation's recalls of earlier answers break, if anything: each must be well
/// formed and recall a question its default text recalls (which the definition check placed).
fn recall_problem(default: &str, translated: &str) -> Option<String> {
    if !recall::mentions_recall(translated) {
        return None;
    }
    let allowed = recall::recalled(default).unwrap_or_default();
    match recall::recalled(translated) {
        Err(problem) => Some(problem),
        Ok(ids) => ids.iter().find(|id| !allowed.contains(id)).map(|id| {
            format!("this translation recalls {{{{q:{id}}}}}, which the default text does not")
        }),
    }
}

/// Checks translations sent for a survey offered in `languages` (its default first) whose
/// texts are `texts` (from `owner_texts`): each language one of the others, each key one of
/// its texts, each text at most 2,000 characters without control characters, and a Markdown
/// text's translation keeping its links (`markdown_problem`). Blank texts are dropped (shown
/// in the default language). What is wrong goes to `errors` by field
/// (`translations.de.q:overall:text`).
pub fn check(
    sent: &BTreeMap<String, BTreeMap<String, String>>,
    languages: &[LanguageTag],
    texts: &[(String, String)],
    errors: &mut Problems,
) -> Translations {
    let mut kept = Translations::new();
    for (language, given) in sent {
        let field = format!("translations.{language}");
        let tag = match LanguageTag::parse(language) {
            Ok(tag) => tag,
            Err(problem) => {
                errors.insert(field, problem.to_string());
                continue;
            }
        };
        match languages.iter().position(|offered| *offered == tag) {
            Some(0) => {
                errors.insert(
                    field,
                    format!(
                        "{tag} is the survey's default language: its texts are the survey's own"
                    ),
                );
                continue;
            }
            None => {
                errors.insert(
                    field,
                    format!(
                        "{tag} is not one of the survey's languages: add it to languages first"
                    ),
                );
                continue;
            }
            Some(_) => {}
        }
        let mut texts_of_language = BTreeMap::new();
        for (key, text) in given {
            let field = format!("translations.{tag}.{key}");
            let Some((_, default)) = texts.iter().find(|(known, _)| known == key) else {
                errors.insert(field, "the survey has no text by this key".into());
                continue;
            };
            let text = text.trim();
            let broken = || {
                (is_markdown(key) && !text.is_empty())
                    .then(|| markdown_problem(default, text))
                    .flatten()
                    .or_else(|| recall_problem(default, text))
            };
            if text.chars().count() > MAX_TRANSLATED_TEXT {
                errors.insert(
                    field,
                    format!("a translated text is at most {MAX_TRANSLATED_TEXT} characters"),
                );
            } else if has_control_characters(text) {
                errors.insert(field, "remove the control characters".into());
            } else if let Some(problem) = broken() {
                errors.insert(field, problem);
            } else if !text.is_empty() {
                texts_of_language.insert(key.clone(), text.to_owned());
            }
        }
        if !texts_of_language.is_empty() {
            kept.insert(tag, texts_of_language);
        }
    }
    kept
}

/// The first cell of a translation sheet's header.
pub const KEY_HEADER: &str = "key";

/// Most rows an imported translation sheet may have: far more than the texts of any survey.
pub const MAX_SHEET_ROWS: usize = 10_000;

/// A survey's translations as a sheet for translators: a header (`key`, then each language,
/// the default first) and one row per text: its key, its default text, and each translation
/// (blank where there is none).
pub fn sheet(
    languages: &[LanguageTag],
    texts: &[(String, String)],
    translations: &Translations,
) -> Vec<Vec<String>> {
    let mut rows = Vec::with_capacity(texts.len() + 1);
    let mut header = vec![KEY_HEADER.to_owned()];
    header.extend(languages.iter().map(ToString::to_string));
    rows.push(header);
    for (key, default) in texts {
        let mut row = vec![key.clone(), default.clone()];
        for language in languages.iter().skip(1) {
            let given = translations.get(language).and_then(|texts| texts.get(key));
            row.push(given.cloned().unwrap_or_default());
        }
        rows.push(row);
    }
    rows
}

/// What is wrong in one place of an imported sheet.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SheetProblem {
    /// The row, counted from 1 as spreadsheets count them (the header is row 1).
    pub row: usize,
    /// The language column, when the problem is one cell's.
    pub language: Option<String>,
    /// What is wrong.
    pub problem: String,
}

impl std::fmt::Display for SheetProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.language {
            Some(language) => write!(f, "Row {}, {language}: {}", self.row, self.problem),
            None => write!(f, "Row {}: {}", self.row, self.problem),
        }
    }
}

/// Reads a translation sheet back (as `sheet` writes it, after a translator filled it in):
/// each language column other than the default's replaces that language's translations (a
/// blank cell: no translation); languages without a column keep theirs (`current`). The
/// default language's column is for reference and is not read. All or nothing: every
/// problem found, by row, or the survey's new translations.
pub fn read_sheet(
    rows: &[Vec<String>],
    languages: &[LanguageTag],
    texts: &[(String, String)],
    current: &Translations,
) -> Result<Translations, Vec<SheetProblem>> {
    let mut problems = Vec::new();
    let at = |row: usize, language: Option<&str>, problem: String| SheetProblem {
        row,
        language: language.map(str::to_owned),
        problem,
    };
    let Some(header) = rows.first() else {
        return Err(vec![at(
            1,
            None,
            "the sheet is empty: its first row names key and the languages".into(),
        )]);
    };
    if rows.len() > MAX_SHEET_ROWS {
        return Err(vec![at(
            MAX_SHEET_ROWS + 1,
            None,
            format!("a translation sheet has at most {MAX_SHEET_ROWS} rows"),
        )]);
    }
    if header.first().map(|cell| cell.trim().to_lowercase()) != Some(KEY_HEADER.to_owned()) {
        problems.push(at(
            1,
            None,
            "the first row names the columns: key, then a language tag per column (en, de, ...)"
                .into(),
        ));
        return Err(problems);
    }
    // The language columns read: position in the row, and tag.
    let mut columns: Vec<(usize, LanguageTag)> = Vec::new();
    for (index, cell) in header.iter().enumerate().skip(1) {
        let cell = cell.trim();
        if cell.is_empty() {
            continue;
        }
        let tag = match LanguageTag::parse(cell) {
            Ok(tag) => tag,
            Err(problem) => {
                problems.push(at(1, Some(cell), problem.to_string()));
                continue;
            }
        };
        if columns.iter().any(|(_, seen)| *seen == tag) {
            problems.push(at(1, Some(cell), "this language has two columns".into()));
        } else if !languages.contains(&tag) {
            problems.push(at(
                1,
                Some(cell),
                format!("{tag} is not one of the survey's languages: add it to the survey first"),
            ));
        } else if languages.first() != Some(&tag) {
            columns.push((index, tag));
        }
    }
    let mut sent: BTreeMap<String, BTreeMap<String, String>> = columns
        .iter()
        .map(|(_, tag)| (tag.to_string(), BTreeMap::new()))
        .collect();
    // Where each key is, for the problems the texts' check finds.
    let mut row_of: BTreeMap<String, usize> = BTreeMap::new();
    for (index, cells) in rows.iter().enumerate().skip(1) {
        let row = index + 1;
        if cells.iter().all(|cell| cell.trim().is_empty()) {
            continue;
        }
        let key = cells.first().map_or("", |cell| cell.trim());
        if key.is_empty() {
            problems.push(at(
                row,
                None,
                "this row has no key: the first column names the text".into(),
            ));
            continue;
        }
        if !texts.iter().any(|(known, _)| known == key) {
            problems.push(at(
                row,
                None,
                format!("the survey has no text by the key {key}"),
            ));
            continue;
        }
        if let Some(first) = row_of.get(key) {
            problems.push(at(row, None, format!("{key} is on row {first} already")));
            continue;
        }
        row_of.insert(key.to_owned(), row);
        for (column, tag) in &columns {
            let text = cells.get(*column).cloned().unwrap_or_default();
            if let Some(texts) = sent.get_mut(tag.as_str()) {
                texts.insert(key.to_owned(), text);
            }
        }
    }
    let mut errors = Problems::new();
    let kept = check(&sent, languages, texts, &mut errors);
    for (field, problem) in errors {
        // `translations.TAG.KEY`: a language tag has no dot.
        let (language, key) = field
            .trim_start_matches("translations.")
            .split_once('.')
            .unwrap_or(("", ""));
        let row = row_of.get(key).copied().unwrap_or(1);
        problems.push(at(row, Some(language), problem));
    }
    if !problems.is_empty() {
        problems.sort_by_key(|problem| problem.row);
        return Err(problems);
    }
    let mut merged = current.clone();
    for (_, tag) in &columns {
        merged.remove(tag);
    }
    merged.extend(kept);
    Ok(merged)
}

/// The text by `key` in `language`: its translation, else `default` (never a blank). The key
/// is written out only when `language` has texts (`format_args!("q:{id}:text")`): most
/// surveys have none, and a page asks for several texts of each question.
pub fn text_in<'a>(
    translations: &'a Translations,
    language: &str,
    key: impl std::fmt::Display,
    default: &'a str,
) -> &'a str {
    translations
        .iter()
        .find(|(tag, _)| tag.as_str() == language)
        .and_then(|(_, texts)| texts.get(key.to_string().as_str()))
        .map_or(default, String::as_str)
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::domain::QuestionId;

    fn question(id: &str, kind: QuestionKind) -> Question {
        let text = format!("Question {id}?");
        Question::new(QuestionId::parse(id).expect("an id"), text, kind)
    }

    fn sample() -> Vec<(String, String)> {
        let questions = [
            question(
                "drink",
                QuestionKind::SingleChoice {
                    options: vec!["Tea".into(), "Coffee".into()],
                    other: false,
                },
            ),
            question(
                "grid",
                QuestionKind::Matrix {
                    rows: vec!["Food".into()],
                    columns: vec!["Good".into(), "Poor".into()],
                },
            ),
        ];
        owner_texts(&TextSources {
            title: "Lunch",
            description: Some("Tell us"),
            questions: &questions,
            layout: &[],
            thank_you: Some("Thanks!"),
            closed_message: None,
            quotas: &[],
            endings: &[],
        })
    }

    #[test]
    fn every_owner_text_has_a_key() {
        let keys: Vec<String> = sample().into_iter().map(|(key, _)| key).collect();
        assert_eq!(
            keys,
            [
                "title",
                "description",
                "q:drink:text",
                "q:drink:option:0",
                "q:drink:option:1",
                "q:grid:text",
                "q:grid:row:0",
                "q:grid:column:0",
                "q:grid:column:1",
                "thank_you",
            ]
        );
    }

    #[test]
    fn translations_name_only_other_languages_and_known_texts() {
        let languages = ["en", "de"].map(|t| LanguageTag::parse(t).expect("a tag"));
        let sent: BTreeMap<String, BTreeMap<String, String>> = [
            (
                "de",
                vec![
                    ("title", " Mittag "),
                    ("q:nope:text", "x"),
                    ("description", " "),
                ],
            ),
            ("en", vec![("title", "Lunch")]),
            ("fr", vec![("title", "Déjeuner")]),
        ]
        .into_iter()
        .map(|(language, texts)| {
            let texts = texts
                .into_iter()
                .map(|(k, t)| (k.to_owned(), t.to_owned()))
                .collect();
            (language.to_owned(), texts)
        })
        .collect();
        let mut errors = Problems::new();
        let kept = check(&sent, &languages, &sample(), &mut errors);
        assert_eq!(kept.len(), 1);
        let german = &kept[&languages[1]];
        assert_eq!(german.get("title").map(String::as_str), Some("Mittag"));
        assert!(
            !german.contains_key("description"),
            "a blank is no translation"
        );
        assert!(errors["translations.de.q:nope:text"].contains("no text by this key"));
        assert!(errors["translations.en"].contains("default language"));
        assert!(errors["translations.fr"].contains("not one of the survey's languages"));
    }

    fn tags(list: &[&str]) -> Vec<LanguageTag> {
        list.iter()
            .map(|t| LanguageTag::parse(t).expect("a tag"))
            .collect()
    }

    fn cells(rows: &[&[&str]]) -> Vec<Vec<String>> {
        rows.iter()
            .map(|row| row.iter().map(|cell| (*cell).to_owned()).collect())
            .collect()
    }

    #[test]
    fn each_key_is_described_for_a_person() {
        let questions = [question("drink", QuestionKind::ShortText)];
        let said: Vec<String> = [
            "title",
            "page:1:title",
            "q:drink:text",
            "q:drink:option:0",
            "q:drink:max_label",
            "thank_you",
        ]
        .iter()
        .map(|key| describe(key, &questions))
        .collect();
        assert_eq!(
            said,
            [
                "Title",
                "Page 2 title",
                "Question 1",
                "Question 1, option 1",
                "Question 1, high end label",
                "Thank-you message"
            ]
        );
    }

    #[test]
    fn a_markdown_translation_keeps_the_links_and_adds_no_html() {
        let default = "See [our site](https://example.com) for *more*.";
        assert_eq!(
            markdown_problem(default, "Siehe [unsere Seite](https://example.com)."),
            None
        );
        let broken = markdown_problem(default, "Siehe [unsere Seite(https://example.com).");
        assert!(broken.is_some_and(|p| p.contains("links to https://example.com")));
        let other = markdown_problem(default, "[a](https://example.com) [b](https://evil.test)");
        assert!(other.is_some_and(|p| p.contains("evil.test")));
        let html = markdown_problem("Thanks", "Danke <b>sehr</b>");
        assert!(html.is_some_and(|p| p.contains("HTML")));
    }

    #[test]
    fn an_imported_sheet_names_each_problem_by_row_and_changes_nothing() {
        let languages = tags(&["en", "de", "ar"]);
        let texts = sample();
        let rows = cells(&[
            &["key", "en", "de", "fr"],
            &["title", "Lunch", "Mittag", ""],
            &["q:nope:text", "x", "y", ""],
            &["", "", "", ""],
            &["title", "Lunch", "Nochmal", ""],
            &["description", "Tell us", "Sag [es](https://x.test)", ""],
            &["", "orphan", "", ""],
        ]);
        let problems =
            read_sheet(&rows, &languages, &texts, &Translations::new()).expect_err("refused");
        let said: Vec<String> = problems.iter().map(ToString::to_string).collect();
        assert_eq!(said.len(), 5, "{said:#?}");
        assert!(said[0].starts_with("Row 1, fr: fr is not one of the survey's languages"));
        assert!(said[1].starts_with("Row 3: the survey has no text by the key q:nope:text"));
        assert!(said[2].starts_with("Row 5: title is on row 2 already"));
        assert!(said[3].starts_with("Row 6, de: this translation links to https://x.test"));
        assert!(said[4].starts_with("Row 7: this row has no key"));
        let header = read_sheet(
            &cells(&[&["text", "de"]]),
            &languages,
            &texts,
            &Translations::new(),
        );
        assert_eq!(header.expect_err("refused")[0].row, 1);
        assert_eq!(
            read_sheet(&[], &languages, &texts, &Translations::new()).expect_err("empty")[0].row,
            1
        );
    }

    #[test]
    fn an_imported_sheet_replaces_its_languages_and_keeps_the_others() {
        let languages = tags(&["en", "de", "ar"]);
        let texts = sample();
        let current: Translations = [
            (
                languages[1].clone(),
                BTreeMap::from([("description".to_owned(), "Alt".to_owned())]),
            ),
            (
                languages[2].clone(),
                BTreeMap::from([("title".to_owned(), "غداء".to_owned())]),
            ),
        ]
        .into();
        let rows = cells(&[
            &["Key", "de", "en"],
            &[
                "title",
                " Mittag ",
                "ignored: the default's column is for reference",
            ],
            &["description", "", ""],
        ]);
        let merged = read_sheet(&rows, &languages, &texts, &current).expect("read");
        assert_eq!(
            merged[&languages[1]],
            BTreeMap::from([("title".to_owned(), "Mittag".to_owned())]),
            "German replaced: a blank cell is no translation"
        );
        assert_eq!(merged[&languages[2]], current[&languages[2]], "Arabic kept");
    }

    proptest! {
        /// For any subset of translated texts, every text shown is the chosen language's
        /// translation or the default's, and never blank.
        #[test]
        fn a_text_is_its_translation_or_the_default_and_never_blank(
            translated in proptest::collection::vec(any::<bool>(), 10),
            words in proptest::collection::vec("[a-zA-Z ]{0,12}", 10),
            language in prop::sample::select(vec!["en", "de", "ar"]),
        ) {
            let languages = ["en", "de", "ar"].map(|t| LanguageTag::parse(t).expect("a tag"));
            let texts = sample();
            let given: BTreeMap<String, String> = texts
                .iter()
                .zip(translated.iter().zip(&words))
                .filter(|(_, (yes, _))| **yes)
                .map(|((key, _), (_, word))| (key.clone(), word.clone()))
                .collect();
            let sent = BTreeMap::from([("de".to_owned(), given.clone())]);
            let mut errors = Problems::new();
            let kept = check(&sent, &languages, &texts, &mut errors);
            prop_assert!(errors.is_empty(), "{errors:?}");
            for (key, default) in &texts {
                let shown = text_in(&kept, language, key, default);
                prop_assert!(!shown.trim().is_empty());
                // The key written out from pieces (as pages pass it) finds the same text.
                let (head, tail) = key.split_at(key.len() / 2);
                let pieced = text_in(&kept, language, format_args!("{head}{tail}"), default);
                prop_assert_eq!(pieced, shown);
                let translation = given.get(key).map(|t| t.trim()).filter(|t| !t.is_empty());
                match (language, translation) {
                    ("de", Some(translated)) => prop_assert_eq!(shown, translated),
                    _ => prop_assert_eq!(shown, default.as_str()),
                }
            }
        }

        /// A sheet written and read back unchanged gives the same translations.
        #[test]
        fn a_sheet_reads_back_as_written(
            translated in proptest::collection::vec(any::<bool>(), 10),
            words in proptest::collection::vec("[a-zA-Z][a-zA-Z ]{0,11}", 10),
        ) {
            let languages = tags(&["en", "de"]);
            let texts = sample();
            let given: BTreeMap<String, String> = texts
                .iter()
                .zip(translated.iter().zip(&words))
                .filter(|(_, (yes, _))| **yes)
                .map(|((key, _), (_, word))| (key.clone(), word.trim().to_owned()))
                .collect();
            let mut translations = Translations::new();
            if !given.is_empty() {
                translations.insert(languages[1].clone(), given);
            }
            let rows = sheet(&languages, &texts, &translations);
            prop_assert_eq!(rows.len(), texts.len() + 1);
            let read = read_sheet(&rows, &languages, &texts, &Translations::new());
            prop_assert_eq!(read, Ok(translations));
        }
    }
}
