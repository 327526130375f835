//! Where a respondent is sent on once their answer is stored, screened out, or the survey is
//! closed: a panel's (Prolific, MTurk, Cint) return address, usually with their id and a
//! completion code. An address is `https` only and may recall hidden fields (`{{h:NAME}}`),
//! answers (`{{q:ID}}`) and the answer's reference (`{{ref}}`), each URL-encoded where it is
//! put, so no value ever changes the address's shape.

use serde::{Deserialize, Serialize};

use super::QuestionId;
use super::hidden::HiddenValues;

/// Longest redirect address as written, in characters.
pub const MAX_ADDRESS: usize = 2000;
/// Most recalls in one address.
const MAX_RECALLS: usize = 20;

/// Where respondents are sent on, by how their visit ended; each optional.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Redirects {
    /// After their answer is stored (instead of the thank-you page).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(example = "https://app.prolific.com/submissions/complete?cc=C1A2B3&pid={{h:pid}}")]
    pub complete: Option<String>,
    /// When a full quota ends their visit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub screened_out: Option<String>,
    /// When they open the survey once it is closed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub closed: Option<String>,
}

impl Redirects {
    /// Whether none is set.
    pub fn is_empty(&self) -> bool {
        self.complete.is_none() && self.screened_out.is_none() && self.closed.is_none()
    }

    /// Each address set, by its field name.
    pub fn each(&self) -> impl Iterator<Item = (&'static str, &str)> {
        [
            ("complete", &self.complete),
            ("screened_out", &self.screened_out),
            ("closed", &self.closed),
        ]
        .into_iter()
        .filter_map(|(field, address)| Some((field, address.as_deref()?)))
    }

    /// The redirects as sent, blank ones dropped and the others trimmed.
    pub fn trimmed(&self) -> Self {
        let trim = |address: &Option<String>| {
            address
                .as_deref()
                .map(str::trim)
                .filter(|a| !a.is_empty())
                .map(str::to_owned)
        };
        Self {
            complete: trim(&self.complete),
            screened_out: trim(&self.screened_out),
            closed: trim(&self.closed),
        }
    }
}

/// One part of a redirect address as written.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Part<'a> {
    Text(&'a str),
    Hidden(&'a str),
    Answer(QuestionId),
    Reference,
}

/// Reads an address into its parts, or says what is wrong with a recall in it.
fn parts(address: &str) -> Result<Vec<Part<'_>>, String> {
    let mut parts = Vec::new();
    let mut rest = address;
    while let Some(at) = rest.find("{{") {
        if at > 0 {
            parts.push(Part::Text(&rest[..at]));
        }
        let inside = &rest[at + 2..];
        let end = inside
            .find("}}")
            .ok_or("a recall in an address is {{h:NAME}}, {{q:ID}} or {{ref}}: this one is not closed with }}")?;
        let recall = &inside[..end];
        parts.push(if recall == "ref" {
            Part::Reference
        } else if let Some(name) = recall.strip_prefix("h:") {
            Part::Hidden(name)
        } else if let Some(id) = recall.strip_prefix("q:") {
            Part::Answer(
                QuestionId::parse(id)
                    .ok_or_else(|| format!("\"{id}\" in {{{{q:...}}}} is not a question id"))?,
            )
        } else {
            return Err(format!(
                "{{{{{recall}}}}} is not a recall an address may hold: {{{{h:NAME}}}}, \
                 {{{{q:ID}}}} or {{{{ref}}}}"
            ));
        });
        rest = &inside[end + 2..];
    }
    if !rest.is_empty() {
        parts.push(Part::Text(rest));
    }
    if parts.iter().filter(|p| !matches!(p, Part::Text(_))).count() > MAX_RECALLS {
        return Err(format!("an address recalls at most {MAX_RECALLS} values"));
    }
    Ok(parts)
}

/// What is wrong with a redirect address, given the survey's hidden field names and whether a
/// question id is the survey's: not `https`, too long, not an address once its recalls are
/// filled, or a recall of something the survey does not have.
pub fn problem(
    address: &str,
    hidden: &[String],
    is_question: impl Fn(&QuestionId) -> bool,
) -> Option<String> {
    if address.chars().count() > MAX_ADDRESS {
        return Some(format!("an address is at most {MAX_ADDRESS} characters"));
    }
    if address.chars().any(|c| c.is_control() || c.is_whitespace()) {
        return Some("an address holds no spaces or control characters".into());
    }
    let parts = match parts(address) {
        Ok(parts) => parts,
        Err(problem) => return Some(problem),
    };
    for part in &parts {
        match part {
            Part::Hidden(name) if !hidden.iter().any(|h| h == name) => {
                return Some(format!(
                    "it recalls the hidden field \"{name}\", which the survey does not declare \
                     in hidden_fields"
                ));
            }
            Part::Answer(id) if !is_question(id) => {
                return Some(format!(
                    "it recalls \"{id}\", which is not a question of this survey"
                ));
            }
            _ => {}
        }
    }
    // Filled with sample values, it must still be an https address with a host, the same
    // whatever the values: a recall never chooses the site a respondent is sent to.
    let origin = |sample: &str| {
        let filled = fill_parts(
            &parts,
            |_| Some(sample.into()),
            |_| Some(sample.into()),
            sample,
        );
        let url = url::Url::parse(&filled).ok()?;
        (url.scheme() == "https" && url.host_str().is_some())
            .then(|| url.origin().ascii_serialization())
    };
    match (origin("x"), origin("y")) {
        (Some(x), Some(y)) if x == y => None,
        (Some(_), Some(_)) => {
            Some("a recall may stand in the address's path or query, not in its site".into())
        }
        _ if url::Url::parse(address).is_ok_and(|url| url.scheme() != "https") => {
            Some("a redirect goes to an https:// address".into())
        }
        _ => Some("this is not a web address (https://...)".into()),
    }
}

impl Redirects {
    /// The sites its addresses send respondents to (`https://panel.example`), which the form's
    /// pages must allow their forms to end at.
    pub fn origins(&self) -> Vec<String> {
        let mut origins: Vec<String> = self
            .each()
            .filter_map(|(_, address)| {
                let parts = parts(address).ok()?;
                let filled = fill_parts(&parts, |_| None, |_| None, "");
                Some(
                    url::Url::parse(&filled)
                        .ok()?
                        .origin()
                        .ascii_serialization(),
                )
            })
            .filter(|origin| origin.starts_with("https://"))
            .collect();
        origins.sort();
        origins.dedup();
        origins
    }
}

/// The address with each recall filled and URL-encoded: a hidden field's value, an answer as
/// text (`answer`), the reference; blank where there is none.
pub fn fill(
    address: &str,
    hidden: &HiddenValues,
    answer: impl Fn(&QuestionId) -> Option<String>,
    reference: &str,
) -> String {
    match parts(address) {
        Ok(parts) => fill_parts(
            &parts,
            |name| hidden.get(name).map(str::to_owned),
            answer,
            reference,
        ),
        // A stored address was checked: this is never reached.
        Err(_) => address.to_owned(),
    }
}

fn fill_parts(
    parts: &[Part<'_>],
    hidden: impl Fn(&str) -> Option<String>,
    answer: impl Fn(&QuestionId) -> Option<String>,
    reference: &str,
) -> String {
    let encode = |value: &str| -> String {
        percent_encoding::utf8_percent_encode(value, percent_encoding::NON_ALPHANUMERIC).to_string()
    };
    let mut filled = String::new();
    for part in parts {
        match part {
            Part::Text(text) => filled.push_str(text),
            Part::Hidden(name) => filled.push_str(&encode(&hidden(name).unwrap_or_default())),
            Part::Answer(id) => filled.push_str(&encode(&answer(id).unwrap_or_default())),
            Part::Reference => filled.push_str(&encode(reference)),
        }
    }
    filled
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn hidden(pairs: &[(&str, &str)]) -> HiddenValues {
        let names: Vec<String> = pairs.iter().map(|(n, _)| (*n).to_owned()).collect();
        HiddenValues::read(&names, pairs.iter().copied()).expect("values")
    }

    #[test]
    fn addresses_are_https_and_recall_only_what_the_survey_has() {
        let names = vec!["pid".to_owned()];
        let known = |id: &QuestionId| id.as_str() == "age";
        let fine = "https://panel.example/done?cc=X1&pid={{h:pid}}&age={{q:age}}&r={{ref}}";
        assert_eq!(problem(fine, &names, known), None);
        for (bad, said) in [
            ("http://panel.example/done", "https"),
            ("javascript:alert(1)", "https"),
            ("https://panel.example/{{h:source}}", "does not declare"),
            ("https://panel.example/{{q:other}}", "not a question"),
            ("https://panel.example/{{x}}", "not a recall"),
            ("https://panel.example/{{h:pid", "not closed"),
            ("https://panel.example/a b", "no spaces"),
            ("not an address", "no spaces"),
            ("https//panel", "not a web address"),
            ("https://{{h:pid}}.example/done", "not in its site"),
            ("https://panel.example{{h:pid}}/done", "not in its site"),
        ] {
            let problem = problem(bad, &names, known).expect(bad);
            assert!(problem.contains(said), "{bad}: {problem}");
        }
        let long = format!("https://panel.example/{}", "a".repeat(MAX_ADDRESS));
        assert!(problem(&long, &names, known).is_some());
    }

    #[test]
    fn the_sites_respondents_are_sent_to_are_known_without_any_value() {
        let redirects = Redirects {
            complete: Some("https://panel.example/done?pid={{h:pid}}".into()),
            screened_out: Some("https://panel.example:8443/out".into()),
            closed: Some("https://other.example/{{ref}}".into()),
        };
        assert_eq!(
            redirects.origins(),
            [
                "https://other.example",
                "https://panel.example",
                "https://panel.example:8443"
            ]
        );
    }

    #[test]
    fn recalled_values_are_url_encoded_where_they_stand() {
        let values = hidden(&[("pid", "a&b=c/d?#é")]);
        let filled = fill(
            "https://panel.example/done?pid={{h:pid}}&age={{q:age}}&r={{ref}}&none={{h:none}}",
            &values,
            |_| Some("30 years".into()),
            "1234",
        );
        assert_eq!(
            filled,
            "https://panel.example/done?pid=a%26b%3Dc%2Fd%3F%23%C3%A9&age=30%20years&r=1234&none="
        );
    }

    proptest! {
        /// Whatever the values, a filled address keeps its host and path: a value can only
        /// ever be one query value.
        #[test]
        fn a_value_never_changes_the_addresss_shape(value in "\\PC{1,60}") {
            let names = vec!["pid".to_owned()];
            let values = HiddenValues::read(&names, [("pid", value.as_str())]);
            if let Ok(values) = values {
                let filled = fill("https://panel.example/done?pid={{h:pid}}", &values, |_| None, "1");
                let url = url::Url::parse(&filled).expect("an address");
                prop_assert_eq!(url.host_str(), Some("panel.example"));
                prop_assert_eq!(url.path(), "/done");
                let pairs: Vec<(String, String)> = url.query_pairs().into_owned().collect();
                prop_assert_eq!(pairs.len(), 1);
                prop_assert_eq!(&pairs[0].1, values.get("pid").unwrap_or_default());
            }
        }
    }
}
