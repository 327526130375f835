//! Reading posted bodies: within the size limit and the time limit (a body that trickles in
//! is not waited for forever), and strict URL-encoding (a broken escape or invalid UTF-8 is
//! refused, never guessed at).

use std::borrow::Cow;

use actix_web::web;

use super::{AppState, WebError};

/// Reads the body, refusing it with 413 once it passes the size limit and with 408 once it
/// takes longer than the time limit.
pub async fn read_body(payload: web::Payload, state: &AppState) -> Result<web::Bytes, WebError> {
    let limit = state.settings.max_body_bytes;
    let read = payload.to_bytes_limited(limit);
    match tokio::time::timeout(state.settings.body_timeout, read).await {
        Err(_) => Err(WebError::RequestTimeout),
        Ok(Ok(Ok(body))) => Ok(body),
        Ok(Ok(Err(error))) => Err(WebError::BadRequest(format!(
            "The form could not be read ({error}). Please send it again."
        ))),
        Ok(Err(_)) => Err(WebError::PayloadTooLarge { limit }),
    }
}

fn malformed() -> WebError {
    WebError::BadRequest(
        "The form was not sent as a valid URL-encoded form. Please reload the page and send it \
         again."
            .into(),
    )
}

/// Decodes one URL-encoded component, refusing broken escapes and invalid UTF-8 rather than
/// guessing.
fn decode(raw: &str) -> Result<String, WebError> {
    let bytes = raw.as_bytes();
    let (mut at, mut escaped, mut spaced) = (0, false, false);
    while at < bytes.len() {
        match bytes[at] {
            b'%' => {
                let escape = bytes.get(at + 1..at + 3).ok_or_else(malformed)?;
                if !escape.iter().all(u8::is_ascii_hexdigit) {
                    return Err(malformed());
                }
                escaped = true;
                at += 3;
            }
            byte => {
                spaced |= byte == b'+';
                at += 1;
            }
        }
    }
    // Most names and many values hold no escape and no space: copied as they are.
    if !spaced && !escaped {
        return Ok(raw.to_owned());
    }
    let plain: Cow<str> = match spaced {
        true => Cow::Owned(raw.replace('+', " ")),
        false => Cow::Borrowed(raw),
    };
    percent_encoding::percent_decode_str(&plain)
        .decode_utf8()
        .map(|text| text.into_owned())
        .map_err(|_| malformed())
}

/// Parses an `application/x-www-form-urlencoded` body into its name/value pairs, in order.
pub fn parse_pairs(body: &[u8]) -> Result<Vec<(String, String)>, WebError> {
    let body = std::str::from_utf8(body).map_err(|_| malformed())?;
    body.split('&')
        .filter(|pair| !pair.is_empty())
        .map(|pair| {
            let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
            Ok((decode(name)?, decode(value)?))
        })
        .collect()
}

/// Reads and parses a posted form.
pub async fn read_form(
    payload: web::Payload,
    state: &AppState,
) -> Result<Vec<(String, String)>, WebError> {
    parse_pairs(&read_body(payload, state).await?)
}

/// The first value posted under `name`.
pub fn field<'a>(pairs: &'a [(String, String)], name: &str) -> Option<&'a str> {
    pairs
        .iter()
        .find(|(field, _)| field == name)
        .map(|(_, value)| value.as_str())
}

#[cfg(test)]
mod tests {
    use super::parse_pairs;

    #[test]
    fn pairs_are_decoded_in_order_and_broken_escapes_refused() {
        let pairs =
            parse_pairs(b"q-a=plain&q-b=two+words%21&q-c=&q-d=%C3%A9t%C3%A9&bare").expect("a form");
        let read: Vec<(&str, &str)> = pairs
            .iter()
            .map(|(name, value)| (name.as_str(), value.as_str()))
            .collect();
        assert_eq!(
            read,
            [
                ("q-a", "plain"),
                ("q-b", "two words!"),
                ("q-c", ""),
                ("q-d", "été"),
                ("bare", "")
            ]
        );
        for broken in [&b"a=%zz"[..], b"a=%4", b"a=%E9", b"a=\xff"] {
            assert!(parse_pairs(broken).is_err(), "{broken:?}");
        }
    }
}
