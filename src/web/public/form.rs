//! Reading a posted survey form: the body within its limit, strict URL-encoding, and the view
//! of each question the form template shows (with the respondent's input and its errors).

use crate::domain::hidden::{HiddenValues, MAX_HIDDEN_FIELDS, ValueProblem};
use crate::domain::translation::{Translations, text_in};
use crate::domain::{AnswerProblem, FieldErrors, Question, QuestionKind, RawAnswers, Survey};
use crate::i18n::Words;
use crate::web::WebError;
use crate::web::forms::parse_pairs;
pub use crate::web::forms::read_body;

/// The form field that carries the submission token.
pub const TOKEN_FIELD: &str = "token";
/// Answer fields are named `q-{question id}`.
pub const ANSWER_FIELD_PREFIX: &str = "q-";
/// The field that says which page was shown (absent: the first).
pub const PAGE_FIELD: &str = "page";
/// The id of the resume link a form was opened from or saved under.
pub const RESUME_FIELD: &str = "resume";
/// The personal link a participant's form was opened from.
pub const PARTICIPANT_FIELD: &str = "participant";
/// Hidden fields' values are carried as `h-{name}`.
pub const HIDDEN_FIELD_PREFIX: &str = "h-";
/// The button pressed: `back`, `save` (save and continue later), `stay` (a language of the switcher: the same page again, in
/// that language), or anything else (Next, or Send on the last page).
pub const NAV_FIELD: &str = "nav";

/// A posted survey form.
#[derive(Debug, Default)]
pub struct PostedForm {
    /// The submission token, empty if none was posted.
    pub token: String,
    /// The answers by question id: the page's, and earlier pages' carried in hidden fields.
    pub answers: RawAnswers,
    /// The page the respondent was on.
    pub page: usize,
    /// Whether they pressed Back.
    pub back: bool,
    /// Whether they asked for the same page again (in another language).
    pub stay: bool,
    /// Whether they asked to save their answers and continue later.
    pub save: bool,
    /// The resume link's id the form was opened from or saved under (empty for none).
    pub resume: String,
    /// The CSRF token an owner's preview carries (empty on the public form).
    pub csrf: String,
    /// The personal link the form was opened from (empty for none).
    pub participant: String,
    /// The hidden fields' values as posted (`h-` taken off), checked against the survey by
    /// `PostedForm::checked_hidden`.
    pub hidden: Vec<(String, String)>,
}

impl PostedForm {
    /// Reads the posted hidden fields' values that `survey` declares into its answers, for its
    /// conditions and recalls; a value out of bounds is refused, as it would be in the address.
    pub fn checked_hidden(&mut self, survey: &Survey, words: &Words) -> Result<(), WebError> {
        let pairs = self.hidden.iter().map(|(n, v)| (n.as_str(), v.as_str()));
        let hidden = HiddenValues::read(&survey.hidden_fields, pairs)
            .map_err(|problem| refused(words, &problem))?;
        self.answers.set_hidden(hidden);
        Ok(())
    }
}

/// A hidden field's value out of bounds, answered clearly (400).
pub fn refused(words: &Words, problem: &ValueProblem) -> WebError {
    WebError::BadRequest(words.s("form-not-accepted", "reason", &problem.to_string()))
}

/// What a survey's address gives a fresh form (`?pid=abc&q.age=30`): the hidden fields'
/// values, checked, and the answers it fills in, each kept only where it is a valid answer.
pub fn seeded(survey: &Survey, query: &str, words: &Words) -> Result<RawAnswers, WebError> {
    if survey.hidden_fields.is_empty() && !query.contains("q.") {
        return Ok(RawAnswers::default());
    }
    let pairs: Vec<(String, String)> = url::form_urlencoded::parse(query.as_bytes())
        .into_owned()
        .collect();
    let hidden = HiddenValues::read(
        &survey.hidden_fields,
        pairs.iter().map(|(n, v)| (n.as_str(), v.as_str())),
    )
    .map_err(|problem| refused(words, &problem))?;
    let filled = pairs
        .iter()
        .filter_map(|(name, value)| Some((name.strip_prefix("q.")?, value.as_str())));
    let mut seed = survey.prefill(filled);
    seed.set_hidden(hidden);
    Ok(seed)
}

/// Parses an `application/x-www-form-urlencoded` body into the token and the answers.
pub fn parse(body: &[u8]) -> Result<PostedForm, WebError> {
    from_pairs(parse_pairs(body)?)
}

/// The token and the answers of a form's fields, however they were encoded.
pub fn from_pairs(pairs: Vec<(String, String)>) -> Result<PostedForm, WebError> {
    let mut form = PostedForm::default();
    for (name, value) in pairs {
        if name == TOKEN_FIELD {
            form.token = value;
        } else if name == PAGE_FIELD {
            form.page = value.parse().map_err(|_| {
                WebError::BadRequest("The form's page number is not a number.".into())
            })?;
        } else if name == "csrf" {
            form.csrf = value;
        } else if name == NAV_FIELD {
            form.back = value == "back";
            form.stay = value == "stay";
            form.save = value == "save";
        } else if name == RESUME_FIELD {
            form.resume = value;
        } else if name == PARTICIPANT_FIELD {
            form.participant = value;
        } else if let Some(question) = name.strip_prefix(ANSWER_FIELD_PREFIX) {
            form.answers.push(question, value);
        } else if let Some(hidden) = name.strip_prefix(HIDDEN_FIELD_PREFIX) {
            // Bounded like any field: a form carries at most MAX_HIDDEN_FIELDS of them.
            if form.hidden.len() < 4 * MAX_HIDDEN_FIELDS {
                form.hidden.push((hidden.to_owned(), value));
            }
        }
    }
    Ok(form)
}

/// One option of a choice or rating question, as the form shows it.
pub struct ChoiceView {
    /// The value posted when it is picked.
    pub value: String,
    /// Whether the respondent picked it.
    pub checked: bool,
    /// What the respondent reads: the value, or its translation.
    pub label: String,
    /// Words a screen reader says after the value (a star rating's "stars"), else blank.
    pub spoken: String,
}

/// One question as the form shows it.
pub struct QuestionView {
    /// The question id (field `q-{id}`).
    pub id: String,
    /// Its position, from 1.
    pub number: usize,
    /// What is asked.
    pub text: String,
    /// What helps to answer it, if anything.
    pub help: Option<String>,
    /// Whether an answer is needed.
    pub required: bool,
    /// The type's API name, which picks the input in the template.
    pub kind: &'static str,
    /// Options of choice and rating questions.
    pub choices: Vec<ChoiceView>,
    /// The respondent's text or number, kept across a failed submit.
    pub value: String,
    /// What is wrong with the answer, if anything.
    pub error: Option<String>,
    /// What a number question accepts, in words (`A whole number from 0 to 120.`).
    pub range: Option<String>,
    /// Bounds and step of a numeric input, as HTML attribute values.
    pub min: Option<String>,
    /// Upper bound of a numeric input.
    pub max: Option<String>,
    /// `1` for whole numbers, `any` otherwise.
    pub step: &'static str,
    /// Longest text accepted, for `maxlength`.
    pub max_length: usize,
    /// A condition on answers of this same page, as JSON for the page's script (which shows
    /// the question only while it holds); without the script the question is always shown,
    /// with `hint` saying when to answer it.
    pub show_if: Option<String>,
    /// When to answer it, in words, for a question under a condition on this page.
    pub hint: Option<String>,
    /// What the lowest and highest points of an NPS question or a scale mean.
    pub low_label: Option<String>,
    /// What the highest point means.
    pub high_label: Option<String>,
    /// Whether "Other, please specify" is offered, whether it is picked, and its text.
    pub other: bool,
    /// Whether "Other" is picked (or its text written).
    pub other_checked: bool,
    /// What the respondent wrote beside "Other".
    pub other_text: String,
    /// A ranking's places, first to last: the place's name and the option put there.
    pub places: Vec<(String, String)>,
    /// A matrix's columns (the value posted, and what the respondent reads), and its rows:
    /// each row's field name, text and the column picked.
    pub columns: Vec<(String, String)>,
    /// The rows of a matrix.
    pub rows: Vec<MatrixRowView>,
    /// What a file question's picker offers (`accept`).
    pub accept: String,
    /// A file question's kinds and limit, in words.
    pub file_limit: String,
    /// The file uploaded already, in words ("Uploaded: photo.jpg (1.2 MB).").
    pub file_line: Option<String>,
}

/// One row of a matrix as the form shows it.
pub struct MatrixRowView {
    /// Its field (`q-ID.N`).
    pub field: String,
    /// Its text.
    pub text: String,
    /// The column picked, if any.
    pub picked: String,
}

impl QuestionView {
    /// The ids of what describes its input, in reading order: its help, the range a number
    /// takes, what is wrong with the answer; `None` when nothing does.
    pub fn described_by(&self) -> Option<String> {
        let mut ids = Vec::new();
        if self.help.is_some() {
            ids.push(format!("q-{}-help", self.id));
        }
        if self.range.is_some() {
            ids.push(format!("q-{}-range", self.id));
        }
        if !self.file_limit.is_empty() {
            ids.push(format!("q-{}-limit", self.id));
        }
        if self.file_line.is_some() {
            ids.push(format!("q-{}-uploaded", self.id));
        }
        if self.error.is_some() {
            ids.push(format!("q-{}-error", self.id));
        }
        (!ids.is_empty()).then(|| ids.join(" "))
    }

    /// The view of `question` at `number`, showing `posted` input and `errors` when
    /// re-rendered, with the site's `words` and the survey's `translations` in the
    /// respondent's language (values posted stay the default language's), and earlier
    /// answers recalled in its texts by `recall`.
    pub fn new(
        words: &Words,
        translations: &Translations,
        recall: &dyn Fn(&str) -> String,
        number: usize,
        question: &Question,
        posted: &RawAnswers,
        errors: &FieldErrors,
    ) -> Self {
        let values = posted.values(&question.id);
        let id = &question.id;
        let translated = |key: std::fmt::Arguments<'_>, default: &str| {
            recall(text_in(translations, words.lang(), key, default))
        };
        let choice = |value: String| ChoiceView {
            checked: values.contains(&value.as_str()),
            label: value.clone(),
            value,
            spoken: String::new(),
        };
        let choices = match &question.kind {
            QuestionKind::FiveStars => (1..=5u8)
                .map(|n| ChoiceView {
                    spoken: words.n("form-stars", "count", n),
                    ..choice(n.to_string())
                })
                .collect(),
            kind => match kind.points() {
                Some(points) => points.map(|n| choice(n.to_string())).collect(),
                None => kind
                    .options()
                    .iter()
                    .enumerate()
                    .map(|(at, option)| ChoiceView {
                        label: translated(format_args!("q:{id}:option:{at}"), option),
                        ..choice(option.clone())
                    })
                    .collect(),
            },
        };
        let (min, max, step) = match &question.kind {
            QuestionKind::Numeric { min, max, integer } => (
                min.map(|n| n.to_string()),
                max.map(|n| n.to_string()),
                if *integer { "1" } else { "any" },
            ),
            QuestionKind::Date { earliest, latest } => (earliest.clone(), latest.clone(), "any"),
            _ => (None, None, "any"),
        };
        let (low_label, high_label) = match &question.kind {
            QuestionKind::Nps => (
                Some(words.t("form-nps-low")),
                Some(words.t("form-nps-high")),
            ),
            QuestionKind::Scale {
                min_label,
                max_label,
                ..
            } => (
                min_label
                    .as_deref()
                    .map(|label| translated(format_args!("q:{id}:min_label"), label)),
                max_label
                    .as_deref()
                    .map(|label| translated(format_args!("q:{id}:max_label"), label)),
            ),
            _ => (None, None),
        };
        let max_length = match question.kind {
            QuestionKind::ShortText => crate::domain::question::MAX_SHORT_TEXT,
            _ => crate::domain::question::MAX_LONG_TEXT,
        };
        Self {
            id: question.id.to_string(),
            number,
            text: translated(format_args!("q:{id}:text"), &question.text),
            help: question
                .help
                .as_deref()
                .map(|help| translated(format_args!("q:{id}:help"), help)),
            required: question.required,
            kind: question.kind.name(),
            choices,
            value: values.first().map(|v| (*v).to_owned()).unwrap_or_default(),
            error: errors.get(&question.id).map(|found| match found {
                // The owner's own message, in the page's language where it is translated.
                AnswerProblem::Refused { message } => {
                    translated(format_args!("q:{id}:validate"), message).to_owned()
                }
                found => super::words::problem(words, found),
            }),
            range: match &question.kind {
                QuestionKind::Numeric { min, max, integer } => {
                    super::words::number_range(words, *min, *max, *integer)
                }
                _ => None,
            },
            min,
            max,
            step,
            max_length,
            show_if: None,
            hint: None,
            low_label,
            high_label,
            places: match &question.kind {
                QuestionKind::Ranking { options } => (0..options.len())
                    .map(|place| {
                        let chosen = posted
                            .raw_values(&question.id)
                            .get(place)
                            .map(|v| v.trim().to_owned())
                            .unwrap_or_default();
                        (words.n("form-place", "place", place + 1), chosen)
                    })
                    .collect(),
                _ => Vec::new(),
            },
            columns: match &question.kind {
                QuestionKind::Matrix { columns, .. } => columns
                    .iter()
                    .enumerate()
                    .map(|(at, column)| {
                        let label = translated(format_args!("q:{id}:column:{at}"), column);
                        (column.clone(), label)
                    })
                    .collect(),
                _ => Vec::new(),
            },
            rows: match &question.kind {
                QuestionKind::Matrix { rows, .. } => rows
                    .iter()
                    .enumerate()
                    .map(|(index, text)| {
                        let name = format!("{}.{index}", question.id);
                        MatrixRowView {
                            picked: posted.first(&name).unwrap_or_default().to_owned(),
                            field: format!("{ANSWER_FIELD_PREFIX}{name}"),
                            text: translated(format_args!("q:{id}:row:{index}"), text),
                        }
                    })
                    .collect(),
                _ => Vec::new(),
            },
            accept: String::new(),
            file_limit: String::new(),
            file_line: None,
            other: question.kind.has_other(),
            other_checked: values.contains(&crate::domain::choice::OTHER)
                || posted.first(&format!("{}.other", question.id)).is_some(),
            other_text: posted
                .first(&format!("{}.other", question.id))
                .unwrap_or_default()
                .to_owned(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_url_encoded_form_gives_its_token_and_answers() {
        let form = parse(b"token=abc.1&q-name=Ada+Lovelace&q-many=A&q-many=B%26C&other=x")
            .expect("parses");

        assert_eq!(form.token, "abc.1");
        let name = crate::domain::QuestionId::parse("name").expect("an id");
        let many = crate::domain::QuestionId::parse("many").expect("an id");
        assert_eq!(form.answers.values(&name), vec!["Ada Lovelace"]);
        assert_eq!(form.answers.values(&many), vec!["A", "B&C"]);
    }

    #[test]
    fn broken_encodings_are_refused_not_guessed() {
        for body in [
            &b"q-a=%ZZ"[..],
            b"q-a=%4",
            b"q-a=%",
            b"q-a=%FF%FE",
            b"q-a=\xff",
        ] {
            let result = parse(body);
            assert!(
                matches!(result, Err(WebError::BadRequest(_))),
                "case {:?}",
                String::from_utf8_lossy(body)
            );
        }
    }

    #[test]
    fn a_number_question_states_the_range_it_accepts() {
        let hint = |min: Option<f64>, max: Option<f64>, integer: bool| {
            let question = crate::domain::Question::new(
                crate::domain::QuestionId::parse("n").expect("an id"),
                "How many?",
                QuestionKind::Numeric { min, max, integer },
            );
            QuestionView::new(
                &Words::default(),
                &Default::default(),
                &|text| text.to_owned(),
                1,
                &question,
                &RawAnswers::default(),
                &Default::default(),
            )
            .range
        };
        assert_eq!(
            hint(Some(0.0), Some(120.0), true).as_deref(),
            Some("A whole number from 0 to 120.")
        );
        assert_eq!(
            hint(Some(-2.5), None, false).as_deref(),
            Some("A number of at least -2.5.")
        );
        assert_eq!(
            hint(None, Some(1e15), false).as_deref(),
            Some("A number of at most 1000000000000000.")
        );
        assert_eq!(hint(None, None, true).as_deref(), Some("A whole number."));
        assert_eq!(hint(None, None, false), None, "any number: nothing to say");
    }

    #[test]
    fn empty_pairs_and_valueless_names_are_tolerated() {
        let form = parse(b"&&token&q-a=1&").expect("parses");
        assert_eq!(form.token, "");
    }
}
