//! Files respondents uploaded, for the survey's members. A member's path for a response's
//! file (what downloads and exports carry) leads, once signed in, to a link signed by the
//! server that works for `LINK_LIFETIME`; that link serves the file as an attachment, never
//! shown in the site's own pages (`nosniff`, a sandboxing policy). Respondents never get such
//! a link: what they uploaded cannot be fetched back once sent.

use actix_web::http::header::{
    CACHE_CONTROL, CONTENT_DISPOSITION, CONTENT_SECURITY_POLICY, LOCATION,
};
use actix_web::{HttpResponse, web};
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use time::OffsetDateTime;

use crate::domain::upload::FileAnswer;
use crate::domain::{Reference, SigningKey, SurveySlug, TenantSlug};
use crate::service::responses;
use crate::web::{Reply, State, WebError};

/// How long a signed download link works.
pub const LINK_LIFETIME: time::Duration = time::Duration::minutes(5);
/// What a download link is signed for.
const PURPOSE: &str = "download";

/// The file of one answer to one question, as a link names it.
struct Named {
    tenant: TenantSlug,
    survey: SurveySlug,
    reference: Reference,
    question: String,
    id: String,
    /// When the link stops working (Unix seconds).
    expires: i64,
}

impl Named {
    fn text(&self) -> String {
        format!(
            "{}|{}|{}|{}|{}|{}",
            self.tenant, self.survey, self.reference.0, self.question, self.id, self.expires
        )
    }

    fn parse(text: &str) -> Option<Self> {
        let mut parts = text.split('|');
        let named = Self {
            tenant: TenantSlug::parse(parts.next()?).ok()?,
            survey: SurveySlug::parse(parts.next()?).ok()?,
            reference: Reference(parts.next()?.parse().ok()?),
            question: parts.next()?.to_owned(),
            id: parts.next()?.to_owned(),
            expires: parts.next()?.parse().ok()?,
        };
        parts.next().is_none().then_some(named)
    }
}

/// A signed link to a file, working for `LINK_LIFETIME` from `now`.
pub fn signed_link(
    key: &SigningKey,
    tenant: &TenantSlug,
    survey: &SurveySlug,
    reference: Reference,
    question: &str,
    file: &FileAnswer,
    now: OffsetDateTime,
) -> String {
    let named = Named {
        tenant: tenant.clone(),
        survey: survey.clone(),
        reference,
        question: question.to_owned(),
        id: file.id.clone(),
        expires: (now + LINK_LIFETIME).unix_timestamp(),
    };
    let text = named.text();
    let signature = key.sign_for(PURPOSE, &text);
    format!("/files/{}.{signature}", URL_SAFE_NO_PAD.encode(text))
}

/// `GET /files/{token}`: the file a signed link names, while the link works.
pub async fn download(state: State, token: web::Path<String>) -> Reply {
    let gone = || {
        WebError::Gone("This download link no longer works: links to files work for 5 minutes. Open the response again for a new one.".into())
    };
    let (encoded, signature) = token.split_once('.').ok_or(WebError::NotFound)?;
    let text = URL_SAFE_NO_PAD
        .decode(encoded)
        .ok()
        .and_then(|bytes| String::from_utf8(bytes).ok())
        .ok_or(WebError::NotFound)?;
    if !state
        .app
        .signing_key()
        .signed_for(PURPOSE, &text, signature)
    {
        return Err(WebError::NotFound);
    }
    let named = Named::parse(&text).ok_or(WebError::NotFound)?;
    if OffsetDateTime::now_utc().unix_timestamp() > named.expires {
        return Err(gone());
    }
    let file = (named.reference, named.question.as_str(), named.id.as_str());
    let found = responses::file(&state.app, (&named.tenant, &named.survey), file).await?;
    let (file, body) = found.ok_or_else(gone)?;
    Ok(HttpResponse::Ok()
        .content_type(file.mime.as_str())
        .insert_header((CONTENT_DISPOSITION, attachment(&file.download_name())))
        .insert_header((CACHE_CONTROL, "private, no-store"))
        .insert_header((CONTENT_SECURITY_POLICY, "sandbox; default-src 'none'"))
        .body(body))
}

/// `attachment` with the file's name: an ASCII fallback and the name itself (RFC 6266).
fn attachment(name: &str) -> String {
    let ascii: String = deunicode::deunicode(name)
        .chars()
        .filter(|c| c.is_ascii_graphic() || *c == ' ')
        .filter(|c| !matches!(c, '"' | '\\'))
        .collect();
    let encoded = percent_encoding::utf8_percent_encode(name, percent_encoding::NON_ALPHANUMERIC);
    format!("attachment; filename=\"{ascii}\"; filename*=UTF-8''{encoded}")
}

/// A redirect to a signed link.
pub fn to_link(link: String) -> HttpResponse {
    HttpResponse::SeeOther()
        .insert_header((LOCATION, link))
        .insert_header((CACHE_CONTROL, "no-store"))
        .finish()
}
