//! Forms that send one file (multipart): read with bounds on how many fields they have, how
//! long each small field is and how large the file is, so an upload never holds more than its
//! limit in memory. A malformed form is the site's 400 page.

use actix_multipart::Multipart;
use actix_web::{HttpRequest, web};
use futures_util::StreamExt;

use super::WebError;

/// Most bytes of a field other than the file.
const SMALL_FIELD: usize = 4096;

/// A file larger than its limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TooLarge;

/// What an upload form sent.
pub struct Upload {
    /// The other fields, as text.
    pub fields: Vec<(String, String)>,
    /// The file, unless none was chosen (an empty part): its bytes, or `TooLarge`.
    pub file: Option<Result<web::Bytes, TooLarge>>,
    /// The most bytes the file could have.
    limit: usize,
}

impl Upload {
    /// The first value sent under `name`.
    pub fn field(&self, name: &str) -> Option<&str> {
        super::forms::field(&self.fields, name)
    }

    /// The file sent to be imported, or what to tell its sender: none was chosen, or it is
    /// larger than an import takes.
    pub fn import_file(&self) -> Result<&web::Bytes, String> {
        match &self.file {
            None => Err("Choose a file to import.".into()),
            Some(Err(TooLarge)) => Err(format!(
                "This file is larger than {} MB, the most an import takes.",
                self.limit / (1024 * 1024)
            )),
            Some(Ok(bytes)) => Ok(bytes),
        }
    }
}

/// Reads a multipart form whose file is `file` (at most `limit` bytes) and which has at most
/// `most_fields` parts.
pub async fn read(
    request: &HttpRequest,
    payload: web::Payload,
    file: &str,
    limit: usize,
    most_fields: usize,
) -> Result<Upload, WebError> {
    // Built here rather than extracted, so a malformed upload gets the site's 400 page.
    let mut form = Multipart::new(request.headers(), payload);
    let refused = || WebError::BadRequest("This form could not be read.".into());
    let mut upload = Upload {
        fields: Vec::new(),
        file: None,
        limit,
    };
    let mut parts = 0;
    while let Some(part) = form.next().await {
        parts += 1;
        if parts > most_fields {
            return Err(refused());
        }
        let mut part = part.map_err(|_| refused())?;
        let name = part.name().unwrap_or_default().to_owned();
        if name == file {
            upload.file = match part.bytes(limit).await {
                Ok(read) => Some(read.map_err(|_| refused())?)
                    .filter(|b| !b.is_empty())
                    .map(Ok),
                Err(_) => Some(Err(TooLarge)),
            };
            continue;
        }
        let bytes = part
            .bytes(SMALL_FIELD)
            .await
            .map_err(|_| refused())?
            .map_err(|_| refused())?;
        upload
            .fields
            .push((name, String::from_utf8_lossy(&bytes).into_owned()));
    }
    Ok(upload)
}
