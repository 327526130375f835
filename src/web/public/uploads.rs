//! Files respondents upload to file questions. A page with one posts its form as multipart,
//! read part by part within bounds: the text fields within the body limit, each file within
//! its question's limit, the files of one form together within the operator's limit, and at
//! most `UploadLimits::at_once` uploads read at once in a process, so uploads never hold more
//! than that many operator limits in memory.
//! Each file is checked (its kind read from its content, never its name), limited per client,
//! stored create-only through the blob port (outside the answer's message), and stands in the
//! form as a reference signed for this form's answer: a file carried from an earlier page, or
//! brought back from saved answers, counts only if its signature holds.

use std::sync::Arc;

use actix_multipart::Multipart;
use actix_web::HttpRequest;
use actix_web::web::{self, Bytes};
use futures_util::StreamExt;
use tokio::sync::Semaphore;

use super::form::{self, ANSWER_FIELD_PREFIX, PostedForm};
use crate::domain::upload::{FileAnswer, clean_name, kind_of};
use crate::domain::{AnswerProblem, FieldErrors, QuestionId, QuestionKind, Reference, Survey};
use crate::web::{AppState, WebError};

/// Most parts of a multipart survey form (a page of a hundred questions with their options
/// sends far fewer).
const MAX_PARTS: usize = 20_000;
/// How many times the body's time (`CANVASS_BODY_TIMEOUT_SECS`) an upload may take.
const UPLOAD_TIME_FACTOR: u32 = 4;
/// What a file reference is signed for.
const PURPOSE: &str = "file";

/// The operator's bounds on uploads.
#[derive(Clone, Debug)]
pub struct UploadLimits {
    /// The largest file a respondent may upload, whatever a question allows.
    pub max_bytes: u64,
    /// Uploads read at once in this process.
    at_once: Arc<Semaphore>,
}

impl UploadLimits {
    /// At most `max_bytes` a file, `at_once` uploads read at once.
    pub fn new(max_bytes: u64, at_once: usize) -> Self {
        Self {
            max_bytes,
            at_once: Arc::new(Semaphore::new(at_once.max(1))),
        }
    }

    /// The limit of a file question: its own, or the operator's if smaller.
    pub fn of(&self, question_max: u64) -> u64 {
        question_max.min(self.max_bytes)
    }
}

/// The files a form sent, with the turn their request holds among the uploads this process
/// reads at once (`CANVASS_UPLOAD_CONCURRENCY`): held from the first file read until they are
/// stored, so at most that many forms' files are in memory at once.
pub(crate) struct Files {
    parts: Vec<FilePart>,
    _turn: Option<tokio::sync::OwnedSemaphorePermit>,
}

impl Files {
    fn none() -> Self {
        Self {
            parts: Vec::new(),
            _turn: None,
        }
    }
}

/// A file a form sent.
pub(crate) struct FilePart {
    question: QuestionId,
    /// The name the respondent's device gave it.
    name: String,
    /// Its bytes, or the limit it went past.
    content: Result<Bytes, u64>,
}

/// Whether a request carries a multipart form.
fn is_multipart(request: &HttpRequest) -> bool {
    request
        .headers()
        .get(actix_web::http::header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .is_some_and(|value| value.trim_start().starts_with("multipart/form-data"))
}

/// Reads a posted survey form, URL-encoded or multipart (with files for `survey`'s file
/// questions).
pub(crate) async fn read(
    request: &HttpRequest,
    payload: web::Payload,
    state: &AppState,
    survey: &Survey,
) -> Result<(PostedForm, Files), WebError> {
    if !is_multipart(request) {
        let body = form::read_body(payload, state).await?;
        return Ok((form::parse(&body)?, Files::none()));
    }
    let time = state.settings.body_timeout * UPLOAD_TIME_FACTOR;
    tokio::time::timeout(time, read_multipart(request, payload, state, survey))
        .await
        .map_err(|_| WebError::RequestTimeout)?
}

async fn read_multipart(
    request: &HttpRequest,
    payload: web::Payload,
    state: &AppState,
    survey: &Survey,
) -> Result<(PostedForm, Files), WebError> {
    let refused = || WebError::BadRequest("This form could not be read.".into());
    let mut parts = Multipart::new(request.headers(), payload);
    let (mut fields, mut files) = (Vec::new(), Vec::new());
    let (mut count, mut text_bytes, mut file_bytes) = (0, 0, 0u64);
    // Taken at the first file, held until its files are stored.
    let mut permit = None;
    // What the request says its body holds: the most a file in it can be.
    let declared = request
        .headers()
        .get(actix_web::http::header::CONTENT_LENGTH)
        .and_then(|value| value.to_str().ok()?.parse::<u64>().ok());
    while let Some(part) = parts.next().await {
        count += 1;
        if count > MAX_PARTS {
            return Err(refused());
        }
        let mut part = part.map_err(|_| refused())?;
        let name = part.name().unwrap_or_default().to_owned();
        let filename = part
            .content_disposition()
            .and_then(|disposition| disposition.get_filename().map(str::to_owned));
        if let Some(filename) = filename {
            let question = name
                .strip_prefix(ANSWER_FIELD_PREFIX)
                .and_then(QuestionId::parse)
                .and_then(|id| survey.question(&id));
            let Some(QuestionKind::File { max_bytes, .. }) = question.map(|q| &q.kind) else {
                return Err(refused());
            };
            // One file a question: a second part for it is not a form's.
            if files
                .iter()
                .any(|file: &FilePart| Some(&file.question) == question.map(|q| &q.id))
            {
                return Err(refused());
            }
            if permit.is_none() {
                let at_once = state.uploads.at_once.clone();
                permit = Some(at_once.acquire_owned().await.map_err(|_| refused())?);
            }
            // Its question's limit, within what the form's earlier files left of the operator's.
            let limit = state
                .uploads
                .of(*max_bytes)
                .min(state.uploads.max_bytes.saturating_sub(file_bytes));
            let content = match read_file(&mut part, limit, declared).await {
                Ok(Ok(bytes)) => {
                    file_bytes += bytes.len() as u64;
                    Ok(bytes)
                }
                Ok(Err(limit)) => Err(limit),
                Err(_) => return Err(refused()),
            };
            // No file chosen: an empty part with no name.
            if filename.is_empty() && content.as_ref().is_ok_and(Bytes::is_empty) {
                continue;
            }
            files.push(FilePart {
                question: question.map(|q| q.id.clone()).ok_or_else(refused)?,
                name: filename,
                content,
            });
            continue;
        }
        let room = state.settings.max_body_bytes.saturating_sub(text_bytes);
        let bytes = match part.bytes(room).await {
            Ok(read) => read.map_err(|_| refused())?,
            Err(_) => {
                return Err(WebError::PayloadTooLarge {
                    limit: state.settings.max_body_bytes,
                });
            }
        };
        text_bytes += bytes.len();
        let value = String::from_utf8(bytes.to_vec()).map_err(|_| refused())?;
        fields.push((name, value));
    }
    let files = Files {
        parts: files,
        _turn: permit,
    };
    Ok((form::from_pairs(fields)?, files))
}

/// A file part's bytes, at most `limit` of them (else `Err(limit)`, the rest left unread),
/// copied out of the parser's buffer as they come (so it is reused) into one buffer sized at
/// once from what the request said it holds (`expected`), so a file is held about once while
/// it is read rather than in every buffer a growing one leaves behind.
async fn read_file(
    part: &mut actix_multipart::Field,
    limit: u64,
    expected: Option<u64>,
) -> Result<Result<Bytes, u64>, actix_multipart::MultipartError> {
    let room = expected.map_or(0, |expected| expected.min(limit));
    let mut whole = bytes::BytesMut::with_capacity(usize::try_from(room).unwrap_or(0));
    while let Some(chunk) = part.next().await {
        let chunk = chunk?;
        if (whole.len() + chunk.len()) as u64 > limit {
            return Ok(Err(limit));
        }
        whole.extend_from_slice(&chunk);
    }
    Ok(Ok(whole.freeze()))
}

/// Where the files a form sends go.
pub(crate) enum Keep {
    /// Stored for the answer with this reference.
    Answer(Reference),
    /// Not stored: an owner's preview.
    Preview,
}

/// What the files of a form made of it.
pub(crate) enum Taken {
    /// Checked: what is wrong with each file question's file (none: all is well).
    Checked(FieldErrors),
    /// The client uploaded too much in a short while: it may try again after this long.
    Limited(Option<std::time::Duration>),
}

/// The text a file reference signs: the survey, the answer, the question, the file.
fn signed_text(survey: &Survey, reference: Reference, question: &QuestionId, file: &str) -> String {
    format!("{}|{}|{question}|{file}", survey.survey_ref(), reference.0)
}

/// Puts a form's files in it: a reference carried from an earlier page (or saved answers)
/// stays only if its signature holds for this form's answer, and "remove" drops it; each new
/// file is checked, limited per client, stored (unless previewing) and put in its question's
/// field as a reference signed for this answer.
pub(crate) async fn take(
    state: &AppState,
    request: &HttpRequest,
    survey: &Survey,
    keep: Keep,
    posted: &mut PostedForm,
    files: Files,
) -> Result<Taken, WebError> {
    // The turn among uploads is given back when this returns, its files stored.
    let Files {
        parts: files,
        _turn,
    } = files;
    let reference = match keep {
        Keep::Answer(reference) => reference,
        Keep::Preview => Reference(0),
    };
    let key = state.app.signing_key();
    for question in &survey.questions {
        if !matches!(question.kind, QuestionKind::File { .. }) {
            continue;
        }
        let removed = posted.answers.take(&format!("{}.remove", question.id));
        let carried: Vec<String> = posted
            .answers
            .take(question.id.as_str())
            .into_iter()
            .filter(|_| removed.is_empty())
            .filter(|field| {
                field.rsplit_once('~').is_some_and(|(file, signature)| {
                    let text = signed_text(survey, reference, &question.id, file);
                    key.signed_for(PURPOSE, &text, signature)
                })
            })
            .take(1)
            .collect();
        for field in carried {
            posted.answers.push(question.id.as_str(), field);
        }
    }
    if files.is_empty() {
        return Ok(Taken::Checked(FieldErrors::new()));
    }
    let client = crate::web::client::of_request(request, state);
    let limits = &state.client_limits;
    let total: u64 = files
        .iter()
        .map(|file| file.content.as_ref().map_or(0, |bytes| bytes.len() as u64))
        .sum();
    let mebibytes = u32::try_from(total.div_ceil(1024 * 1024)).unwrap_or(u32::MAX);
    let count = u32::try_from(files.len()).unwrap_or(u32::MAX);
    if let Err(wait) = limits
        .uploads
        .take(&client, count)
        .and_then(|()| limits.upload_mib.take(&client, mebibytes))
    {
        return Ok(Taken::Limited(wait));
    }
    let mut errors = FieldErrors::new();
    for file in files {
        let Some(question) = survey.question(&file.question) else {
            continue;
        };
        let QuestionKind::File { accept, max_bytes } = &question.kind else {
            continue;
        };
        let limit = state.uploads.of(*max_bytes);
        let bytes = match file.content {
            Ok(bytes) if bytes.len() as u64 <= limit => bytes,
            // Past its question's limit, or past what the form's other files left.
            Ok(_) | Err(_) => {
                let limit = file.content.err().unwrap_or(limit).min(limit);
                errors.insert(question.id.clone(), AnswerProblem::FileTooLarge { limit });
                continue;
            }
        };
        let Some((kind, mime)) = kind_of(&bytes).filter(|(kind, _)| accept.contains(kind)) else {
            let allowed = accept.clone();
            errors.insert(question.id.clone(), AnswerProblem::FileKind { allowed });
            continue;
        };
        let answer = FileAnswer {
            id: uuid::Uuid::new_v4().simple().to_string()[..16].to_owned(),
            name: clean_name(&file.name),
            kind,
            mime: mime.to_owned(),
            bytes: bytes.len() as u64,
        };
        if let Keep::Answer(reference) = keep {
            let filed = survey.survey_ref();
            let file = (reference, question.id.as_str(), answer.id.as_str());
            crate::service::answering::keep_file(&state.app, &filed, file, bytes).await?;
        }
        let field = answer.to_field();
        let text = signed_text(survey, reference, &question.id, &field);
        let signature = key.sign_for(PURPOSE, &text);
        posted.answers.take(question.id.as_str());
        posted
            .answers
            .push(question.id.as_str(), format!("{field}~{signature}"));
    }
    Ok(Taken::Checked(errors))
}
