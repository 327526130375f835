//! Mailings to a survey's participants: the invitation and reminder templates an owner
//! writes (Markdown, with placeholders), who a mailing goes to, and a mailing's progress.
//! Pure: the worker sends, the stores keep.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

use super::language::LanguageTag;
use super::participant::Participant;

/// Longest subject line, in characters.
pub const MAX_SUBJECT: usize = 200;
/// Longest template body, in characters.
pub const MAX_BODY: usize = 10_000;
/// Most mailings one survey keeps (each participant records the ones that reached them).
pub const MAX_MAILINGS: usize = 50;

/// The placeholders a template may hold.
pub const PLACEHOLDERS: [&str; 6] = ["first_name", "last_name", "name", "email", "survey", "link"];

/// What a mailing sends.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    Serialize,
    Deserialize,
    utoipa::ToSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum MailingKind {
    /// The first message: to participants never invited.
    Invitation,
    /// Again: to those invited who have not finished.
    Reminder,
}

impl MailingKind {
    /// Both kinds, in the order pages show them.
    pub const ALL: [MailingKind; 2] = [MailingKind::Invitation, MailingKind::Reminder];

    /// Its name in forms and storage.
    pub fn as_str(self) -> &'static str {
        match self {
            MailingKind::Invitation => "invitation",
            MailingKind::Reminder => "reminder",
        }
    }

    /// The kind a form names.
    pub fn parse(text: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|kind| kind.as_str() == text)
    }
}

/// A subject and a Markdown body with `{{placeholders}}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Template {
    pub subject: String,
    pub body: String,
}

/// What is wrong with a template.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TemplateError {
    #[error("the subject is empty")]
    NoSubject,
    #[error("the subject is longer than {MAX_SUBJECT} characters")]
    SubjectTooLong,
    #[error("the subject is one line")]
    SubjectLines,
    #[error("the message is longer than {MAX_BODY} characters")]
    BodyTooLong,
    #[error("the message must hold {{{{link}}}}, the participant's personal link")]
    NoLink,
    #[error(
        "{{{{{0}}}}} is not a placeholder: use first_name, last_name, name, email, survey or link"
    )]
    Unknown(String),
    #[error("a {{{{ is not closed by }}}}")]
    Unclosed,
}

/// The parts of a text: literal text and placeholder names, in order.
fn parts(text: &str) -> Result<Vec<Part<'_>>, TemplateError> {
    let mut parts = Vec::new();
    let mut rest = text;
    while let Some(open) = rest.find("{{") {
        parts.push(Part::Text(&rest[..open]));
        let after = &rest[open + 2..];
        let close = after.find("}}").ok_or(TemplateError::Unclosed)?;
        let name = after[..close].trim();
        if !PLACEHOLDERS.contains(&name) {
            return Err(TemplateError::Unknown(name.chars().take(40).collect()));
        }
        parts.push(Part::Placeholder(name));
        rest = &after[close + 2..];
    }
    parts.push(Part::Text(rest));
    Ok(parts)
}

enum Part<'a> {
    Text(&'a str),
    Placeholder(&'a str),
}

impl Template {
    /// Checks a template as an owner typed it (trimmed).
    pub fn check(subject: &str, body: &str) -> Result<Template, TemplateError> {
        let subject = subject.trim();
        let body = body.trim();
        if subject.is_empty() {
            return Err(TemplateError::NoSubject);
        }
        if subject.chars().count() > MAX_SUBJECT {
            return Err(TemplateError::SubjectTooLong);
        }
        if subject.contains(['\r', '\n']) {
            return Err(TemplateError::SubjectLines);
        }
        if body.chars().count() > MAX_BODY {
            return Err(TemplateError::BodyTooLong);
        }
        parts(subject)?;
        let body_parts = parts(body)?;
        if !body_parts
            .iter()
            .any(|part| matches!(part, Part::Placeholder("link")))
        {
            return Err(TemplateError::NoLink);
        }
        Ok(Template {
            subject: subject.to_owned(),
            body: body.to_owned(),
        })
    }

    /// The built-in template of `kind` in `language` where the site speaks it (its eight
    /// languages), else in English.
    pub fn built_in(kind: MailingKind, language: &LanguageTag) -> Template {
        let primary = language.to_string();
        let primary = primary.split('-').next().unwrap_or_default();
        match BUILT_IN.iter().find(|(tag, ..)| *tag == primary) {
            Some((_, invitation, reminder)) => {
                let (subject, body) = match kind {
                    MailingKind::Invitation => invitation,
                    MailingKind::Reminder => reminder,
                };
                Template {
                    subject: (*subject).into(),
                    body: (*body).into(),
                }
            }
            None => Template::default_for(kind),
        }
    }

    /// The template a survey starts with, in English.
    pub fn default_for(kind: MailingKind) -> Template {
        let (_, invitation, reminder) = BUILT_IN[0];
        let (subject, body) = match kind {
            MailingKind::Invitation => invitation,
            MailingKind::Reminder => reminder,
        };
        Template {
            subject: subject.into(),
            body: body.into(),
        }
    }

    /// The message for one participant: its subject, its plain text (the Markdown's text,
    /// without its marks) and the Markdown to render as HTML (the values escaped, so a name
    /// cannot make a link or emphasis).
    pub fn fill(&self, values: &Values) -> Filled {
        // Checked templates always split; an unchecked one is filled as it reads.
        let fill = |text: &str, how: Fill| match parts(text) {
            Ok(parts) => parts
                .into_iter()
                .map(|part| match part {
                    Part::Text(text) => text.to_owned(),
                    Part::Placeholder(name) => {
                        let value = values.get(name);
                        match how {
                            Fill::Markdown if name != "link" => escape_markdown(&value),
                            // A subject is one line, whatever a value holds.
                            Fill::Line => value.replace(['\r', '\n', '\t'], " "),
                            _ => value,
                        }
                    }
                })
                .collect(),
            Err(_) => text.to_owned(),
        };
        let markdown = fill(&self.body, Fill::Markdown);
        Filled {
            subject: fill(&self.subject, Fill::Line),
            // The plain part reads as the HTML part does, without Markdown's marks.
            text: super::markdown::to_plain(&markdown),
            markdown,
        }
    }
}

/// How a value goes into a filled text.
#[derive(Clone, Copy)]
enum Fill {
    Line,
    Markdown,
}

/// A template filled for one participant.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Filled {
    pub subject: String,
    pub text: String,
    pub markdown: String,
}

/// Backslash-escapes every ASCII punctuation character, so the text reads as itself in
/// Markdown.
fn escape_markdown(text: &str) -> String {
    let mut escaped = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if c.is_ascii_punctuation() {
            escaped.push('\\');
        }
        escaped.push(c);
    }
    escaped
}

/// The values of a participant's placeholders.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Values {
    pub first_name: String,
    pub last_name: String,
    pub email: String,
    pub survey: String,
    pub link: String,
}

impl Values {
    /// The values for `participant`, of the survey titled `survey`, with their personal link.
    pub fn of(participant: &Participant, survey: &str, link: String) -> Values {
        let person = &participant.person;
        Values {
            first_name: person.first_name.clone().unwrap_or_default(),
            last_name: person.last_name.clone().unwrap_or_default(),
            email: person.email.as_str().to_owned(),
            survey: survey.to_owned(),
            link,
        }
    }

    fn get(&self, name: &str) -> String {
        match name {
            "first_name" => self.first_name.clone(),
            "last_name" => self.last_name.clone(),
            "email" => self.email.clone(),
            "survey" => self.survey.clone(),
            "link" => self.link.clone(),
            // The full name, or the address when there is none.
            _ => {
                let name = format!("{} {}", self.first_name, self.last_name);
                match name.trim() {
                    "" => self.email.clone(),
                    name => name.to_owned(),
                }
            }
        }
    }
}

/// A survey's templates: per kind, per language (the survey's default language's template
/// serves a participant whose language has none).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Templates {
    #[serde(default)]
    pub invitation: BTreeMap<String, Template>,
    #[serde(default)]
    pub reminder: BTreeMap<String, Template>,
}

impl Templates {
    fn of_kind(&self, kind: MailingKind) -> &BTreeMap<String, Template> {
        match kind {
            MailingKind::Invitation => &self.invitation,
            MailingKind::Reminder => &self.reminder,
        }
    }

    /// Sets the template of `kind` in `language`.
    pub fn set(&mut self, kind: MailingKind, language: &LanguageTag, template: Template) {
        let templates = match kind {
            MailingKind::Invitation => &mut self.invitation,
            MailingKind::Reminder => &mut self.reminder,
        };
        templates.insert(language.to_string(), template);
    }

    /// The template set for `kind` in `language`, if the owner wrote one.
    pub fn written(&self, kind: MailingKind, language: &LanguageTag) -> Option<&Template> {
        self.of_kind(kind).get(&language.to_string())
    }

    /// The template a participant of `language` gets: the owner's in their language, else the
    /// built-in one in their language when the site speaks it (an email they can read beats
    /// the owner's words in another language), else the owner's in the survey's `default`
    /// language, else the built-in one in that language.
    pub fn for_language(
        &self,
        kind: MailingKind,
        language: Option<&LanguageTag>,
        default: &LanguageTag,
    ) -> Template {
        if let Some(written) = language.and_then(|language| self.written(kind, language)) {
            return written.clone();
        }
        match language.filter(|language| *language != default && site_speaks(language)) {
            Some(theirs) => Template::built_in(kind, theirs),
            None => self
                .written(kind, default)
                .cloned()
                .unwrap_or_else(|| Template::built_in(kind, default)),
        }
    }
}

/// Whether the built-in templates come in `language` (the site's eight languages).
fn site_speaks(language: &LanguageTag) -> bool {
    let tag = language.to_string();
    let primary = tag.split('-').next().unwrap_or_default();
    BUILT_IN.iter().any(|(known, ..)| *known == primary)
}

/// A letter's subject and body.
type Letter = (&'static str, &'static str);

/// The built-in invitation and reminder (subject, body) in each of the site's languages.
const BUILT_IN: [(&str, Letter, Letter); 8] = [
    (
        "en",
        (
            "You are invited: {{survey}}",
            "Hello {{name}},\n\nYou are invited to answer **{{survey}}**. It takes a few minutes, \
             and the link below is yours alone: it answers once.\n\n[Answer the survey]({{link}})\n\n\
             Thank you!",
        ),
        (
            "A reminder: {{survey}}",
            "Hello {{name}},\n\nWe have not had your answer to **{{survey}}** yet. There is still \
             time, and it takes a few minutes.\n\n[Answer the survey]({{link}})\n\nThank you!",
        ),
    ),
    (
        "de",
        (
            "Einladung: {{survey}}",
            "Hallo {{name}},\n\nSie sind eingeladen, **{{survey}}** zu beantworten. Es dauert nur \
             wenige Minuten, und der Link unten gehört Ihnen allein: Er gilt für eine Antwort.\n\n\
             [Zur Umfrage]({{link}})\n\nVielen Dank!",
        ),
        (
            "Erinnerung: {{survey}}",
            "Hallo {{name}},\n\nwir haben Ihre Antwort auf **{{survey}}** noch nicht erhalten. Es \
             ist noch Zeit, und es dauert nur wenige Minuten.\n\n[Zur Umfrage]({{link}})\n\n\
             Vielen Dank!",
        ),
    ),
    (
        "fr",
        (
            "Invitation : {{survey}}",
            "Bonjour {{name}},\n\nVous êtes invité(e) à répondre à **{{survey}}**. Cela prend \
             quelques minutes, et le lien ci-dessous vous est personnel : il permet une seule \
             réponse.\n\n[Répondre à l'enquête]({{link}})\n\nMerci !",
        ),
        (
            "Rappel : {{survey}}",
            "Bonjour {{name}},\n\nNous n'avons pas encore reçu votre réponse à **{{survey}}**. Il \
             est encore temps, et cela prend quelques minutes.\n\n[Répondre à l'enquête]({{link}})\n\n\
             Merci !",
        ),
    ),
    (
        "es",
        (
            "Invitación: {{survey}}",
            "Hola, {{name}}:\n\nLe invitamos a responder **{{survey}}**. Solo lleva unos minutos, y \
             el enlace de abajo es solo suyo: sirve para una respuesta.\n\n\
             [Responder la encuesta]({{link}})\n\n¡Gracias!",
        ),
        (
            "Recordatorio: {{survey}}",
            "Hola, {{name}}:\n\nAún no hemos recibido su respuesta a **{{survey}}**. Todavía está \
             a tiempo, y solo lleva unos minutos.\n\n[Responder la encuesta]({{link}})\n\n¡Gracias!",
        ),
    ),
    (
        "pt",
        (
            "Convite: {{survey}}",
            "Olá, {{name}},\n\nEstá convidado(a) a responder a **{{survey}}**. Demora poucos \
             minutos, e a ligação abaixo é só sua: serve para uma resposta.\n\n\
             [Responder ao inquérito]({{link}})\n\nObrigado!",
        ),
        (
            "Lembrete: {{survey}}",
            "Olá, {{name}},\n\nAinda não recebemos a sua resposta a **{{survey}}**. Ainda vai a \
             tempo, e demora poucos minutos.\n\n[Responder ao inquérito]({{link}})\n\nObrigado!",
        ),
    ),
    (
        "pl",
        (
            "Zaproszenie: {{survey}}",
            "Dzień dobry, {{name}},\n\nzapraszamy do wypełnienia ankiety **{{survey}}**. Zajmie to \
             kilka minut, a poniższy link jest przeznaczony tylko dla Ciebie: pozwala odpowiedzieć \
             raz.\n\n[Wypełnij ankietę]({{link}})\n\nDziękujemy!",
        ),
        (
            "Przypomnienie: {{survey}}",
            "Dzień dobry, {{name}},\n\nnie otrzymaliśmy jeszcze Twojej odpowiedzi na ankietę \
             **{{survey}}**. Wciąż jest czas, a zajmie to kilka minut.\n\n\
             [Wypełnij ankietę]({{link}})\n\nDziękujemy!",
        ),
    ),
    (
        "ja",
        (
            "ご招待：{{survey}}",
            "{{name}} 様\n\n**{{survey}}** へのご回答をお願いいたします。所要時間は数分です。下のリンクは\
             あなた専用で、1回だけ回答できます。\n\n[アンケートに回答する]({{link}})\n\n\
             よろしくお願いいたします。",
        ),
        (
            "リマインダー：{{survey}}",
            "{{name}} 様\n\n**{{survey}}** へのご回答をまだいただいておりません。まだ間に合います。\
             所要時間は数分です。\n\n[アンケートに回答する]({{link}})\n\nよろしくお願いいたします。",
        ),
    ),
    (
        "ar",
        (
            "دعوة: {{survey}}",
            "مرحبًا {{name}}،\n\nندعوك للإجابة عن **{{survey}}**. يستغرق ذلك بضع دقائق، والرابط \
             أدناه خاص بك وحدك: يتيح إجابة واحدة.\n\n[أجب عن الاستبيان]({{link}})\n\nشكرًا لك!",
        ),
        (
            "تذكير: {{survey}}",
            "مرحبًا {{name}}،\n\nلم نتلقَّ إجابتك عن **{{survey}}** بعد. ما زال هناك وقت، ويستغرق \
             ذلك بضع دقائق.\n\n[أجب عن الاستبيان]({{link}})\n\nشكرًا لك!",
        ),
    ),
];

/// Whether a mailing of `kind` goes to `participant`: never to one who finished, opted out
/// or bounced, or whom this mailing reached already; an invitation to those never invited,
/// a reminder to those invited.
pub fn goes_to(kind: MailingKind, mailing: &str, participant: &Participant) -> bool {
    let track = &participant.mail;
    if participant.finished.is_some()
        || track.opted_out.is_some()
        || track.bounced.is_some()
        || track.mailings.iter().any(|id| id == mailing)
    {
        return false;
    }
    match kind {
        MailingKind::Invitation => track.invited.is_none(),
        MailingKind::Reminder => track.invited.is_some(),
    }
}

/// Where a mailing stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum MailingState {
    /// Queued or sending.
    Sending,
    /// Every participant it goes to was sent to (or refused for good).
    Finished,
}

/// A mailing: what it sends, how far it got, and what happened.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Mailing {
    /// Its id (32 lowercase hex digits).
    pub id: String,
    pub kind: MailingKind,
    pub state: MailingState,
    /// Participants it reached (the server took the message), counted over the pass under
    /// way: exact once it is finished.
    pub sent: u64,
    /// Participants whose mail server refused the message for good (now `bounced`).
    pub bounced: u64,
    /// Sends that failed for now and wait for the next pass.
    pub deferred: u64,
    /// Passes through the list so far (a pass sends to those the last one could not reach).
    pub pass: u32,
    /// Who started it.
    pub started_by: String,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub started: OffsetDateTime,
    #[serde(default, with = "time::serde::rfc3339::option")]
    #[schema(value_type = Option<String>, format = DateTime)]
    pub finished: Option<OffsetDateTime>,
    /// Where the pass under way goes on (a storage continuation), not shown.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(ignore)]
    pub cursor: Option<String>,
}

/// Most passes a mailing makes through its list before it stops retrying those it could not
/// reach.
pub const MAX_PASSES: u32 = 4;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::participant::Moment;

    fn values() -> Values {
        Values {
            first_name: "Ada".into(),
            last_name: "*Lovelace*".into(),
            email: "ada@example.com".into(),
            survey: "Team [pulse](http://evil)".into(),
            link: "http://x/s/t/s/p/abc_def".into(),
        }
    }

    #[test]
    fn a_template_needs_a_subject_the_link_and_known_placeholders() {
        assert_eq!(
            Template::check(" ", "{{link}}"),
            Err(TemplateError::NoSubject)
        );
        assert_eq!(Template::check("Hi", "no link"), Err(TemplateError::NoLink));
        assert_eq!(
            Template::check("Hi {{nmae}}", "{{link}}"),
            Err(TemplateError::Unknown("nmae".into()))
        );
        assert_eq!(
            Template::check("Hi", "{{link"),
            Err(TemplateError::Unclosed)
        );
        assert_eq!(
            Template::check("a\nb", "{{link}}"),
            Err(TemplateError::SubjectLines)
        );
        assert_eq!(
            Template::check(&"s".repeat(MAX_SUBJECT + 1), "{{link}}"),
            Err(TemplateError::SubjectTooLong)
        );
        assert!(Template::check(&"s".repeat(MAX_SUBJECT), "{{link}}").is_ok());
        let long = format!("{{{{link}}}}{}", "b".repeat(MAX_BODY));
        assert_eq!(Template::check("s", &long), Err(TemplateError::BodyTooLong));
        for kind in MailingKind::ALL {
            for (language, ..) in BUILT_IN {
                let tag = LanguageTag::parse(language).expect("a tag");
                let built_in = Template::built_in(kind, &tag);
                assert_eq!(
                    Template::check(&built_in.subject, &built_in.body),
                    Ok(built_in.clone()),
                    "{language}"
                );
                assert!(built_in.body.contains("({{link}})"), "{language}");
                if language != "en" {
                    assert_ne!(built_in, Template::default_for(kind), "{language}");
                }
            }
        }
    }

    #[test]
    fn filling_escapes_values_in_markdown_but_not_in_text_or_the_link() {
        let template = Template::check(
            "{{survey}} for {{ first_name }}",
            "Dear {{name}}, [go]({{link}})",
        )
        .unwrap();
        let filled = template.fill(&values());
        assert_eq!(filled.subject, "Team [pulse](http://evil) for Ada");
        assert_eq!(
            filled.text, "Dear Ada *Lovelace*, go: http://x/s/t/s/p/abc_def",
            "the plain part has no Markdown marks, the values read as they are"
        );
        assert_eq!(
            filled.markdown,
            "Dear Ada \\*Lovelace\\*, [go](http://x/s/t/s/p/abc_def)"
        );
        let split = Values {
            first_name: "Ann\r\nBcc: all@example.com".into(),
            ..values()
        };
        assert_eq!(
            template.fill(&split).subject,
            "Team [pulse](http://evil) for Ann  Bcc: all@example.com"
        );
        let nameless = Values {
            first_name: String::new(),
            last_name: String::new(),
            ..values()
        };
        assert!(
            template
                .fill(&nameless)
                .text
                .starts_with("Dear ada@example.com,")
        );
    }

    #[test]
    fn a_participant_without_a_template_in_their_language_gets_the_built_in_one_in_it() {
        let en = LanguageTag::parse("en").expect("a tag");
        let de = LanguageTag::parse("de").expect("a tag");
        let sv = LanguageTag::parse("sv").expect("a tag");
        let mut templates = Templates::default();
        let custom = Template::check("Hi: {{survey}}", "Go: {{link}}").expect("valid");
        templates.set(MailingKind::Invitation, &en, custom.clone());
        let german = templates.for_language(MailingKind::Invitation, Some(&de), &en);
        assert_eq!(german.subject, "Einladung: {{survey}}");
        assert_eq!(
            templates.for_language(MailingKind::Invitation, Some(&sv), &en),
            custom,
            "a language the site does not speak gets the owner's default"
        );
        assert_eq!(
            templates
                .for_language(MailingKind::Reminder, None, &de)
                .subject,
            "Erinnerung: {{survey}}",
            "the built-in one in the survey's default language"
        );
    }

    #[test]
    fn a_participant_gets_the_template_of_their_language_else_the_default_one() {
        let en = LanguageTag::parse("en").unwrap();
        let fr = LanguageTag::parse("fr").unwrap();
        let de = LanguageTag::parse("de").unwrap();
        let mut templates = Templates::default();
        assert_eq!(
            templates.for_language(MailingKind::Invitation, Some(&fr), &en),
            Template::built_in(MailingKind::Invitation, &fr),
            "the built-in one, in their language"
        );
        let french = Template::check("Bonjour", "{{link}}").unwrap();
        let english = Template::check("Hello", "{{link}}").unwrap();
        templates.set(MailingKind::Invitation, &fr, french.clone());
        templates.set(MailingKind::Invitation, &en, english.clone());
        let pick = |language| templates.for_language(MailingKind::Invitation, language, &en);
        assert_eq!(pick(Some(&fr)), french);
        assert_eq!(
            pick(Some(&de)),
            Template::built_in(MailingKind::Invitation, &de)
        );
        assert_eq!(pick(Some(&en)), english);
        assert_eq!(pick(None), english);
        assert_eq!(
            templates.for_language(MailingKind::Reminder, Some(&fr), &en),
            Template::built_in(MailingKind::Reminder, &fr)
        );
    }

    #[test]
    fn a_mailing_goes_only_to_those_it_is_for_and_once() {
        use crate::domain::participant::Participant;
        let at = OffsetDateTime::UNIX_EPOCH;
        let mut ann = Participant::ann(at);
        use MailingKind::{Invitation, Reminder};
        assert!(goes_to(Invitation, "m1", &ann) && !goes_to(Reminder, "m1", &ann));
        ann.mail.invited = Some(at);
        ann.mail.mailings.push("m1".into());
        assert!(
            !goes_to(Invitation, "m2", &ann),
            "invited once, never again"
        );
        assert!(
            !goes_to(Reminder, "m1", &ann),
            "a mailing reaches them once"
        );
        assert!(goes_to(Reminder, "m2", &ann));
        ann.started = Some(Moment::At(at));
        assert!(
            goes_to(Reminder, "m2", &ann),
            "opened but not answered: reminded"
        );
        for stop in 0..3 {
            let mut stopped = ann.clone();
            match stop {
                0 => stopped.finished = Some(Moment::At(at)),
                1 => stopped.mail.opted_out = Some(at),
                _ => stopped.mail.bounced = Some(at),
            }
            assert!(!goes_to(Reminder, "m2", &stopped) && !goes_to(Invitation, "m2", &stopped));
        }
    }
}
