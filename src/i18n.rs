//! The site's own words in the respondent's language: one Fluent message file per language
//! under `locales/`, built into the binary, read with each language's plural rules (CLDR,
//! through the Fluent library); and choosing a survey's language from a link, the browser's
//! `Accept-Language`, and the survey's own languages.

use std::borrow::Cow;
use std::collections::HashMap;

use fluent_templates::fluent_bundle::FluentValue;
use fluent_templates::{LanguageIdentifier, Loader};
use rustc_hash::FxHashMap;

fluent_templates::static_loader! {
    static LOCALES = {
        locales: "./locales",
        fallback_language: "en",
        // Unicode isolation marks around arguments would reach pages and mails as invisible
        // characters; the pages set `dir` themselves.
        customise: |bundle| {
            bundle.set_use_isolating(false);
            bundle.set_formatter(Some(grouped));
            // NUMBER(), for ordinals ("1st") by each language's rules.
            if let Err(errors) = bundle.add_builtins() {
                tracing::error!(?errors, "the Fluent built-in functions could not be added");
            }
        },
    };
}

/// A language's digit grouping (`200,000`, `200.000`, `200 000`), from CLDR's data as
/// `num-format` ships it; English's for a language it lacks.
struct Grouping(num_format::Locale);

impl intl_memoizer::Memoizable for Grouping {
    type Args = ();
    type Error = ();
    fn construct(lang: LanguageIdentifier, _: ()) -> Result<Self, ()> {
        Ok(Self(number_locale(lang.language.as_str())))
    }
}

/// How a language writes numbers (its grouping and decimal separators), from CLDR's data as
/// `num-format` ships it; English's for a language it lacks.
fn number_locale(language: &str) -> num_format::Locale {
    match language {
        // The site writes Arabic pages' digits in Latin (as their forms take them), and
        // Arabic's own separator between Latin digits is reordered by the browser's
        // right-to-left layout: Latin digits take the Latin separators.
        "ar" => num_format::Locale::en,
        language => num_format::Locale::from_name(language).unwrap_or(num_format::Locale::en),
    }
}

/// Whole numbers in a message, grouped as the message's language groups digits (Fluent's own
/// formatting does not group); other values as Fluent formats them.
fn grouped(
    value: &FluentValue,
    memoizer: &intl_memoizer::concurrent::IntlLangMemoizer,
) -> Option<String> {
    use num_format::ToFormattedString;
    let FluentValue::Number(number) = value else {
        return None;
    };
    if number.options.minimum_fraction_digits.is_some() {
        return None;
    }
    let n = whole(number.value)?;
    memoizer
        .with_try_get::<Grouping, _, _>((), |grouping| n.to_formatted_string(&grouping.0))
        .ok()
}

/// The languages the site's words ship in, English (the fallback) first.
pub const SHIPPED: [&str; 8] = ["en", "de", "fr", "es", "pt", "pl", "ja", "ar"];

/// A number a message counts or shows (plural forms follow it).
pub trait Number {
    /// As Fluent takes it.
    fn number(&self) -> f64;
}

macro_rules! numbers {
    ($($t:ty),*) => {$(
        impl Number for $t {
            fn number(&self) -> f64 {
                *self as f64
            }
        }
    )*};
}
numbers!(u8, u32, u64, usize, i64, f64);

impl<T: Number> Number for &T {
    fn number(&self) -> f64 {
        (**self).number()
    }
}

/// A message, its whole-number arguments and its text argument chosen in the code, by name:
/// what `Words::formatted` keeps.
type MessageKey = (
    &'static str,
    Option<(&'static str, i64)>,
    Option<(&'static str, i64)>,
    Option<(&'static str, &'static str)>,
);

/// At most two number arguments of a message, by name.
pub type NumberArgs = [Option<(&'static str, f64)>; 2];

/// Most messages one thread keeps formatted (each a short text: well under a megabyte).
const MOST_FORMATTED: usize = 4096;

thread_local! {
    /// Messages formatted on this thread, by the shipped language (its address in
    /// `SHIPPED_IDS`, which never moves) and `MessageKey`.
    static FORMATTED: std::cell::RefCell<FxHashMap<(usize, MessageKey), String>> =
        std::cell::RefCell::new(FxHashMap::default());
}

/// `value` as a whole number, when it is one a message may show exactly.
fn whole(value: f64) -> Option<i64> {
    (value.fract() == 0.0 && value.abs() < 1e15).then_some(value as i64)
}

/// The shipped languages, parsed once.
static SHIPPED_IDS: std::sync::LazyLock<Vec<LanguageIdentifier>> =
    std::sync::LazyLock::new(|| SHIPPED.iter().filter_map(|tag| tag.parse().ok()).collect());

/// The site's words in one language, for one page.
#[derive(Clone, Debug)]
pub struct Words {
    /// The language the page is in, as `<html lang>` names it (a survey's language tag).
    tag: String,
    /// The shipped language its words come from: `tag`'s own language (`pt` for `pt-BR`),
    /// else English.
    site: &'static LanguageIdentifier,
}

impl Default for Words {
    fn default() -> Self {
        Self::for_tag("en")
    }
}

impl Words {
    /// The words for a page in language `tag` (`de`, `pt-BR`): that language's own, or
    /// English when the site does not ship it.
    pub fn for_tag(tag: &str) -> Self {
        let wanted: Option<LanguageIdentifier> = tag.parse().ok();
        let shipped = SHIPPED_IDS.as_slice();
        let site = wanted
            .and_then(|wanted| shipped.iter().find(|s| s.language == wanted.language))
            .or_else(|| shipped.first())
            .expect("English is shipped");
        Self {
            tag: tag.to_owned(),
            site,
        }
    }

    /// `<html lang>`.
    pub fn lang(&self) -> &str {
        &self.tag
    }

    /// `<html dir>`: `rtl` for a language written right to left (Arabic, Hebrew, ...).
    pub fn dir(&self) -> &'static str {
        let written: Option<LanguageIdentifier> = self.tag.parse().ok();
        match written.map(|tag| tag.character_direction()) {
            Some(unic_langid::CharacterDirection::RTL) => "rtl",
            _ => "ltr",
        }
    }

    /// A number as the page's language writes it: digits grouped, its own decimal separator
    /// (`1,234.5`, `1.234,5`), at most six decimals.
    pub fn number(&self, value: f64) -> String {
        use num_format::ToFormattedString;
        let locale = number_locale(self.site.language.as_str());
        let text = format!("{:.6}", value.abs());
        let (whole, fraction) = text.split_once('.').unwrap_or((&text, ""));
        let fraction = fraction.trim_end_matches('0');
        // Answers are at most 1e15 in magnitude (`MAX_NUMBER`): whole parts fit.
        let whole: u64 = whole.parse().unwrap_or(0);
        let mut written = String::new();
        if value < 0.0 && (whole > 0 || !fraction.is_empty()) {
            written.push('-');
        }
        written.push_str(&whole.to_formatted_string(&locale));
        if !fraction.is_empty() {
            written.push_str(locale.decimal());
            written.push_str(fraction);
        }
        written
    }

    /// Message `id`, without arguments.
    pub fn t(&self, id: &'static str) -> String {
        self.numbers(id, [None, None], None)
    }

    /// Message `id` with one number argument `name`.
    pub fn n(&self, id: &'static str, name: &'static str, value: impl Number) -> String {
        self.numbers(id, [Some((name, value.number())), None], None)
    }

    /// Message `id` with two number arguments, `first` and `second`.
    pub fn n2(
        &self,
        id: &'static str,
        first: &'static str,
        a: impl Number,
        second: &'static str,
        b: impl Number,
    ) -> String {
        let numbers = [Some((first, a.number())), Some((second, b.number()))];
        self.numbers(id, numbers, None)
    }

    /// Message `id` with up to two number arguments and, if given, one text argument that
    /// the code chooses from a few (`whole`: `yes` or `no`); kept formatted (see `formatted`)
    /// when the numbers are whole.
    pub fn numbers(
        &self,
        id: &'static str,
        numbers: NumberArgs,
        text: Option<(&'static str, &'static str)>,
    ) -> String {
        let format = || {
            let mut args: Vec<(&str, FluentValue<'static>)> = numbers
                .iter()
                .flatten()
                .map(|&(name, value)| (name, FluentValue::from(value)))
                .collect();
            args.extend(text.map(|(name, value)| (name, FluentValue::from(value))));
            match args.is_empty() {
                true => self.lookup(id, None),
                false => self.with(id, &args),
            }
        };
        // Each argument as a whole number, or none given; a fraction is formatted each time.
        let kept = |arg: Option<(&'static str, f64)>| match arg {
            None => Some(None),
            Some((name, value)) => whole(value).map(|n| Some((name, n))),
        };
        match (kept(numbers[0]), kept(numbers[1])) {
            (Some(a), Some(b)) => self.formatted((id, a, b, text), format),
            _ => format(),
        }
    }

    /// The message `key` names in this page's language, formatted once per thread: the site's
    /// words are built into the binary, so the same message with the same whole numbers
    /// always reads the same, and Fluent's lookup, plural rules and number formatting cost
    /// thousands of instructions a message where a form page shows dozens.
    fn formatted(&self, key: MessageKey, format: impl FnOnce() -> String) -> String {
        let key = (std::ptr::from_ref(self.site) as usize, key);
        let known = FORMATTED.with(|formatted| formatted.borrow().get(&key).cloned());
        if let Some(text) = known {
            return text;
        }
        let text = format();
        FORMATTED.with(|formatted| {
            let mut formatted = formatted.borrow_mut();
            // Bounded: whole numbers could be many; the common ones are in by then.
            if formatted.len() < MOST_FORMATTED {
                formatted.insert(key, text.clone());
            }
        });
        text
    }

    /// Message `id` with one text argument `name`.
    pub fn s(&self, id: &str, name: &str, value: &str) -> String {
        self.with(id, &[(name, FluentValue::from(value.to_owned()))])
    }

    /// Message `id` with any arguments.
    pub fn with(&self, id: &str, args: &[(&str, FluentValue<'static>)]) -> String {
        let args: HashMap<Cow<'static, str>, FluentValue<'static>> = args
            .iter()
            .map(|(name, value)| (Cow::Owned((*name).to_owned()), value.clone()))
            .collect();
        self.lookup(id, Some(&args))
    }

    fn lookup(
        &self,
        id: &str,
        args: Option<&HashMap<Cow<'static, str>, FluentValue<'_>>>,
    ) -> String {
        // The site's language is always one of the shipped ones: look there first, without
        // the loader negotiating languages on every call (a tenth of a form page's time);
        // only a message missing there goes down the fallback chain.
        let found = LOCALES
            .lookup_single_language(self.site, id, args)
            .ok()
            .or_else(|| match args {
                Some(args) => LOCALES.try_lookup_with_args(self.site, id, args),
                None => LOCALES.try_lookup(self.site, id),
            });
        found.unwrap_or_else(|| {
            // Every id the site uses is checked against the files by a test; this is a slip.
            tracing::error!(id, language = %self.site, "a message id no file defines");
            id.to_owned()
        })
    }
}

/// The name of language `tag` in that language (`Deutsch`, `Kiswahili`), for a language
/// switcher; its English name where ISO 639 has no autonym, the tag itself for one unknown.
pub fn language_name(tag: &str) -> String {
    let words = Words::for_tag(tag);
    if words.site.language.as_str() == tag.split('-').next().unwrap_or(tag) {
        return words.t("language-name");
    }
    // Another language: its own name where ISO 639's list has one, else its English one.
    let known = crate::domain::language::LanguageTag::parse(tag).ok();
    known
        .as_ref()
        .and_then(|tag| tag.autonym().or(tag.english_name()))
        .map_or_else(|| tag.to_owned(), str::to_owned)
}

/// The language of a page among `offered` (a survey's languages, its default first): the one
/// asked for in the link (`?lang=`), else the best match of the browser's `Accept-Language`,
/// else the default.
pub fn choose<'a>(offered: &'a [String], asked: Option<&str>, accept: Option<&str>) -> &'a str {
    let Some(default) = offered.first() else {
        return "en";
    };
    // One language: nothing to choose (the common case, on every form and submission).
    if offered.len() == 1 {
        return default;
    }
    if let Some(asked) = asked
        && let Some(found) = offered
            .iter()
            .find(|tag| tag.eq_ignore_ascii_case(asked.trim()))
    {
        return found;
    }
    let available: Vec<LanguageIdentifier> =
        offered.iter().filter_map(|t| t.parse().ok()).collect();
    let requested = fluent_langneg::accepted_languages::parse(accept.unwrap_or(""));
    let chosen = fluent_langneg::negotiate_languages(
        &requested,
        &available,
        None,
        fluent_langneg::NegotiationStrategy::Lookup,
    );
    chosen
        .first()
        .and_then(|found| {
            let found = found.to_string();
            offered.iter().find(|tag| tag.eq_ignore_ascii_case(&found))
        })
        .map_or(default.as_str(), String::as_str)
}

#[cfg(test)]
mod tests {

    #[test]
    fn a_message_formatted_again_reads_the_same_in_its_own_language() {
        let (english, german) = (Words::for_tag("en"), Words::for_tag("de-AT"));
        for _ in 0..2 {
            assert_eq!(english.n("form-stars", "count", 1_u32), "star");
            assert_eq!(german.n("form-stars", "count", 1_u32), "Stern");
            assert_eq!(german.n("form-stars", "count", 3_u32), "Sterne");
            assert_eq!(
                german.n2("form-page", "page", 2_usize, "pages", 3_usize),
                "Seite 2 von 3"
            );
            assert_eq!(
                english.n2("form-page", "page", 2_usize, "pages", 3_usize),
                "Page 2 of 3"
            );
            assert_eq!(german.t("form-next"), "Weiter");
            // A text argument is part of what is kept: each choice keeps its own words.
            let range = |whole| {
                let numbers = [Some(("min", 1.0)), Some(("max", 31.0))];
                english.numbers("form-number-between", numbers, Some(("whole", whole)))
            };
            assert_eq!(range("yes"), "A whole number from 1 to 31.");
            assert_eq!(range("no"), "A number from 1 to 31.");
        }
        // Numbers that are not whole, or too large to be exact, are formatted each time, as
        // Fluent writes them.
        assert_eq!(english.n("form-stars", "count", 2.5), "stars");
        for min in ["0.5", "0.25", "0.5"] {
            let numbers = [
                Some(("min", min.parse().expect("a number"))),
                Some(("max", 1e16)),
            ];
            let range = english.numbers("form-number-between", numbers, Some(("whole", "no")));
            assert!(
                range.starts_with(&format!("A number from {min} to ")),
                "{range}"
            );
        }
    }

    use std::collections::BTreeSet;
    use std::path::Path;

    use super::*;

    /// The message ids a language's file defines.
    fn ids(language: &str) -> BTreeSet<String> {
        let path =
            Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("locales/{language}/site.ftl"));
        let text = std::fs::read_to_string(&path).expect("a message file");
        text.lines()
            .filter_map(|line| line.split_once(" ="))
            .map(|(id, _)| id)
            .filter(|id| id.chars().next().is_some_and(|c| c.is_ascii_lowercase()))
            .filter(|id| {
                id.chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
            })
            .map(str::to_owned)
            .collect()
    }

    #[test]
    fn every_shipped_language_has_every_message_english_has_and_no_other() {
        let english = ids("en");
        assert!(english.len() > 50, "{english:?}");
        for language in &SHIPPED[1..] {
            let theirs = ids(language);
            let missing: Vec<&String> = english.difference(&theirs).collect();
            let extra: Vec<&String> = theirs.difference(&english).collect();
            assert!(missing.is_empty(), "{language} lacks {missing:?}");
            assert!(
                extra.is_empty(),
                "{language} has ids English lacks: {extra:?}"
            );
        }
    }

    /// The message ids the code and the templates ask for: the first argument of each
    /// `.t(`, `.n(`, `.n2(`, `.s(` and `.with(` call on the site's words.
    fn used_ids() -> BTreeSet<String> {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut files = Vec::new();
        let mut dirs = vec![root.join("src"), root.join("templates")];
        while let Some(dir) = dirs.pop() {
            for entry in std::fs::read_dir(&dir).expect("a directory") {
                let path = entry.expect("an entry").path();
                if path.is_dir() {
                    dirs.push(path);
                } else {
                    files.push(path);
                }
            }
        }
        let mut used = BTreeSet::new();
        for file in files {
            let Ok(text) = std::fs::read_to_string(&file) else {
                continue;
            };
            for call in [
                "words.t(\"",
                "words.n(\"",
                "words.n2(\"",
                "words.s(\"",
                "words.with(\"",
            ] {
                for (at, _) in text.match_indices(call) {
                    let rest = &text[at + call.len()..];
                    if let Some(end) = rest.find('"') {
                        used.insert(rest[..end].to_owned());
                    }
                }
            }
        }
        used
    }

    #[test]
    fn every_message_the_site_asks_for_is_defined() {
        let used = used_ids();
        assert!(used.len() > 40, "the scan finds the calls: {used:?}");
        let english = ids("en");
        let undefined: Vec<&String> = used.iter().filter(|id| !english.contains(*id)).collect();
        assert!(
            undefined.is_empty(),
            "asked for but defined nowhere: {undefined:?}"
        );
        // And a lookup of an unknown id says which, rather than nothing.
        assert_eq!(Words::default().t("no-such-message"), "no-such-message");
    }

    #[test]
    fn numbers_are_written_as_each_language_writes_them() {
        let said = |tag: &str, n: f64| Words::for_tag(tag).number(n);
        assert_eq!(said("en", 1234.5), "1,234.5");
        assert_eq!(said("de", 1234.5), "1.234,5");
        assert_eq!(said("fr", -0.25), "-0,25");
        assert_eq!(said("en", 2026.0), "2,026");
        assert_eq!(
            said("ar", 1234.5),
            "1,234.5",
            "Latin digits, Latin separators"
        );
        assert_eq!(said("en", -0.0), "0");
        assert_eq!(said("en", 1e15), "1,000,000,000,000,000");
    }

    #[test]
    fn plurals_follow_each_languages_rules() {
        let said =
            |tag: &str, count: usize| Words::for_tag(tag).n("form-check-answers", "count", count);
        assert_eq!(said("en", 1), "Please check one answer");
        assert_eq!(said("en", 3), "Please check 3 answers");
        assert_eq!(said("pl", 3), "Sprawdź 3 odpowiedzi");
        assert_eq!(said("ar", 2), "يرجى مراجعة إجابتين");
        assert_eq!(said("ar", 3), "يرجى مراجعة 3 إجابات");
        assert_eq!(said("ar", 11), "يرجى مراجعة 11 إجابة");
        let stars = |tag: &str, count: u8| Words::for_tag(tag).n("form-stars", "count", count);
        assert_eq!(stars("pl", 1), "gwiazdka");
        assert_eq!(stars("pl", 2), "gwiazdki");
        assert_eq!(stars("pl", 5), "gwiazdek");
        let place = |tag: &str, n: usize| Words::for_tag(tag).n("form-place", "place", n);
        assert_eq!(
            (1..=4).map(|n| place("en", n)).collect::<Vec<_>>(),
            ["1st", "2nd", "3rd", "4th"]
        );
        assert_eq!(place("en", 22), "22nd");
        assert_eq!(place("fr", 1), "1er");
        // Numbers are grouped as each language groups them.
        let limit = |tag: &str| {
            Words::for_tag(tag).n2(
                "problem-too-long",
                "limit",
                100_000usize,
                "length",
                2_500usize,
            )
        };
        assert!(
            limit("en").contains("100,000 characters (it has 2,500)"),
            "{}",
            limit("en")
        );
        assert!(limit("de").contains("100.000 Zeichen"), "{}", limit("de"));
        assert_eq!(
            Words::default().n("form-question", "number", 3.5),
            "Question 3.5"
        );
    }

    #[test]
    fn a_page_is_in_the_language_asked_for_else_the_browsers_best_else_the_default() {
        let offered: Vec<String> = ["en", "de", "ar"].map(String::from).to_vec();
        assert_eq!(choose(&offered, Some("ar"), Some("de")), "ar");
        assert_eq!(choose(&offered, Some("it"), Some("de-AT, en;q=0.5")), "de");
        assert_eq!(choose(&offered, None, Some("fr, ar;q=0.8, en;q=0.1")), "ar");
        assert_eq!(choose(&offered, None, Some("ja")), "en");
        assert_eq!(choose(&offered, None, None), "en");
        let brazil: Vec<String> = ["pt-BR", "en"].map(String::from).to_vec();
        assert_eq!(choose(&brazil, None, Some("pt")), "pt-BR");
        // A language the site does not ship gets English words; right to left is known.
        assert_eq!(Words::for_tag("it").t("form-next"), "Next");
        assert_eq!(Words::for_tag("pt-BR").t("form-next"), "Seguinte");
        assert_eq!(Words::for_tag("ar").dir(), "rtl");
        assert_eq!(Words::for_tag("he").dir(), "rtl");
        assert_eq!(Words::for_tag("de").dir(), "ltr");
        assert_eq!(language_name("ja"), "日本語");
        // Languages the site does not ship are named by ISO 639's autonyms, else in English.
        assert_eq!(language_name("it"), "italiano");
        assert_eq!(language_name("sw"), "Kiswahili");
        assert_eq!(language_name("x-private"), "x-private");
    }
}
