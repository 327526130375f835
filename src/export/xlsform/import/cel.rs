//! XLSForm's XPath read into CEL where it maps, for what Canvass says in expressions: a
//! question's `constraint` beyond bounds (its rule) and `calculate` rows (variables). Read:
//! `.` (the question's own answer), `${name}` (an earlier question, hidden field or
//! calculation), numbers (as decimals), texts, `=` `!=` `<` `<=` `>` `>=`, `+` `-` `*` `div`
//! `mod`, `and` `or` `not()`, `string-length()`, `selected(${name}, 'code')` and parentheses;
//! a choice's code compared with its question is read as its label. Anything else is not
//! read (the row is listed as skipped), and what is read must parse as CEL.

use super::{Named, Reader, Token, tokens};
use crate::domain::expression::Expression;

impl Reader {
    /// `xpath` as CEL, `this` being the question's own id (`None` for a calculation), or
    /// `None` when it does not map.
    pub(super) fn cel_of(&self, xpath: &str, this: Option<&str>) -> Option<String> {
        let tokens = tokens(xpath)?;
        let mut out = String::new();
        let mut at = 0;
        // The question of the last reference, for a code compared with it.
        let mut compared: Option<String> = None;
        while let Some(token) = tokens.get(at) {
            at += 1;
            let piece = match token {
                Token::Number(n) if n == "." => self.cel_name(token, this)?,
                Token::Number(n) => {
                    let value: f64 = n.parse().ok()?;
                    format!("{value:?}")
                }
                Token::Reference(name) => {
                    compared = Some(name.clone());
                    self.cel_name(token, this)?
                }
                Token::Text(text) => {
                    let label = compared
                        .as_deref()
                        .and_then(|name| self.code_label(name, text))
                        .unwrap_or_else(|| text.clone());
                    serde_json::to_string(&label).ok()?
                }
                Token::Operator(op) => match op.as_str() {
                    "=" => "==".to_owned(),
                    "!=" | "<" | "<=" | ">" | ">=" | "+" | "-" | "*" => op.clone(),
                    _ => return None,
                },
                Token::Word(word) => match word.as_str() {
                    "and" => "&&".to_owned(),
                    "or" => "||".to_owned(),
                    "div" => "/".to_owned(),
                    "mod" => "%".to_owned(),
                    "not" if tokens.get(at) == Some(&Token::Open) => "!".to_owned(),
                    "string-length" if tokens.get(at) == Some(&Token::Open) => {
                        "double(size".to_owned() + &self.sized(&tokens, &mut at, this)? + ")"
                    }
                    "selected" => {
                        // selected(${name}, 'code'): the option's label among those ticked.
                        let [
                            Token::Open,
                            Token::Reference(name),
                            Token::Comma,
                            Token::Text(code),
                            Token::Close,
                        ] = tokens.get(at..at + 5)?
                        else {
                            return None;
                        };
                        at += 5;
                        let Named::Question { id, .. } = self.names.get(name)? else {
                            return None;
                        };
                        let label = self.code_label(name, code)?;
                        format!("({} in q.{id})", serde_json::to_string(&label).ok()?)
                    }
                    _ => return None,
                },
                Token::Open => "(".to_owned(),
                Token::Close => ")".to_owned(),
                Token::Comma => return None,
            };
            // Spaced between terms, not inside brackets or after a `!`.
            if !out.is_empty() && !out.ends_with(['(', '!']) && piece != ")" {
                out.push(' ');
            }
            out.push_str(&piece);
        }
        Expression::parse(&out).ok().map(|_| out)
    }

    /// The argument of `string-length(...)`, read from after its opening bracket.
    fn sized(&self, tokens: &[Token], at: &mut usize, this: Option<&str>) -> Option<String> {
        let [Token::Open, inner, Token::Close] = tokens.get(*at..*at + 3)? else {
            return None;
        };
        *at += 3;
        let inner = self.cel_name(inner, this)?;
        Some(format!("({inner})"))
    }

    /// What CEL calls `.` (the question's own answer, `this`) or `${name}` (a question, a
    /// hidden field or a calculation); `None` for any other token or a name not read.
    fn cel_name(&self, token: &Token, this: Option<&str>) -> Option<String> {
        match token {
            Token::Number(n) if n == "." => Some(format!("q.{}", this?)),
            Token::Reference(name) => Some(match self.names.get(name)? {
                Named::Question { id, .. } => format!("q.{id}"),
                Named::Hidden(field) => format!("h.{field}"),
                Named::Variable(id) => format!("v.{id}"),
            }),
            _ => None,
        }
    }

    /// The label (in the default language) of the option `code` of the question read by
    /// `name`, if it is a choice question's.
    fn code_label(&self, name: &str, code: &str) -> Option<String> {
        let Named::Question {
            list: Some(list), ..
        } = self.names.get(name)?
        else {
            return None;
        };
        if code == "other" {
            return Some(crate::domain::choice::OTHER.to_owned());
        }
        let (_, labels) = self.lists.get(list)?.iter().find(|(c, _)| c == code)?;
        let default = &self.languages[0];
        labels
            .get(default)
            .or_else(|| labels.values().next())
            .cloned()
    }
}
