//! Files respondents upload to a file question: the kinds a question may take (images, PDF,
//! office documents), told from a file's content, never its name; and the answer, which holds
//! the file's reference (its id), name, kind, type and size, never its bytes.

use serde::{Deserialize, Serialize};

/// Largest file a question may take, whatever the operator allows (100 MiB).
pub const MAX_FILE_BYTES: u64 = 100 * 1024 * 1024;
/// A question's limit when the owner names none (10 MiB).
pub const DEFAULT_FILE_BYTES: u64 = 10 * 1024 * 1024;
/// Longest file name kept, in characters (longer ones are cut, keeping the extension).
pub const MAX_FILE_NAME: usize = 200;

/// A kind of file a question may take.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    Deserialize,
    utoipa::ToSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum FileKind {
    /// JPEG, PNG, GIF, WebP or HEIF/HEIC pictures.
    Image,
    /// PDF documents.
    Pdf,
    /// Word, Excel and PowerPoint documents (old and new formats), and OpenDocument ones.
    Office,
}

/// Every kind, in the order forms list them.
pub const FILE_KINDS: [FileKind; 3] = [FileKind::Image, FileKind::Pdf, FileKind::Office];

impl FileKind {
    /// Its API name.
    pub fn name(self) -> &'static str {
        match self {
            FileKind::Image => "image",
            FileKind::Pdf => "pdf",
            FileKind::Office => "office",
        }
    }

    /// Reads an API name.
    pub fn parse(name: &str) -> Option<Self> {
        FILE_KINDS.into_iter().find(|kind| kind.name() == name)
    }

    /// What a file input's `accept` says for it (a hint to the browser's file picker; the
    /// server decides from the content).
    pub fn accept(self) -> &'static str {
        match self {
            FileKind::Image => "image/jpeg,image/png,image/gif,image/webp,image/heic,image/heif",
            FileKind::Pdf => "application/pdf,.pdf",
            FileKind::Office => {
                ".doc,.docx,.xls,.xlsx,.ppt,.pptx,.odt,.ods,.odp,application/msword,\
                 application/vnd.openxmlformats-officedocument.wordprocessingml.document,\
                 application/vnd.ms-excel,\
                 application/vnd.openxmlformats-officedocument.spreadsheetml.sheet,\
                 application/vnd.ms-powerpoint,\
                 application/vnd.openxmlformats-officedocument.presentationml.presentation,\
                 application/vnd.oasis.opendocument.text,\
                 application/vnd.oasis.opendocument.spreadsheet,\
                 application/vnd.oasis.opendocument.presentation"
            }
        }
    }
}

/// What a file's content says it is: its kind and media type; `None` for any other file.
pub fn kind_of(content: &[u8]) -> Option<(FileKind, &'static str)> {
    use infer::MatcherType;
    let found = infer::get(content)?;
    let mime = found.mime_type();
    let kind = match (found.matcher_type(), mime) {
        (
            MatcherType::Image,
            "image/jpeg" | "image/png" | "image/gif" | "image/webp" | "image/heif" | "image/heic",
        ) => FileKind::Image,
        (_, "application/pdf") => FileKind::Pdf,
        (MatcherType::Doc, _) => FileKind::Office,
        (
            _,
            "application/vnd.oasis.opendocument.text"
            | "application/vnd.oasis.opendocument.spreadsheet"
            | "application/vnd.oasis.opendocument.presentation",
        ) => FileKind::Office,
        _ => return None,
    };
    Some((kind, mime))
}

/// The usual extension of a media type a file question takes.
fn extension_of(mime: &str) -> Option<&'static str> {
    Some(match mime {
        "image/jpeg" => "jpg",
        "image/png" => "png",
        "image/gif" => "gif",
        "image/webp" => "webp",
        "image/heic" => "heic",
        "image/heif" => "heif",
        "application/pdf" => "pdf",
        "application/msword" => "doc",
        "application/vnd.openxmlformats-officedocument.wordprocessingml.document" => "docx",
        "application/vnd.ms-excel" => "xls",
        "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet" => "xlsx",
        "application/vnd.ms-powerpoint" => "ppt",
        "application/vnd.openxmlformats-officedocument.presentationml.presentation" => "pptx",
        "application/vnd.oasis.opendocument.text" => "odt",
        "application/vnd.oasis.opendocument.spreadsheet" => "ods",
        "application/vnd.oasis.opendocument.presentation" => "odp",
        _ => return None,
    })
}

/// A name without its last extension (the whole name when it has none, or is only one).
fn stem(name: &str) -> &str {
    match name.rsplit_once('.') {
        Some((stem, _)) if !stem.is_empty() => stem,
        _ => name,
    }
}

/// A file as a name for people: the name the respondent's device gave it, without folders or
/// invisible characters, cut to `MAX_FILE_NAME` characters (keeping its extension); "file"
/// when nothing is left.
pub fn clean_name(given: &str) -> String {
    let base = given.rsplit(['/', '\\']).next().unwrap_or(given);
    let visible: String = base
        .chars()
        .filter(|c| {
            !c.is_control() && !matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
        })
        .collect();
    let visible = visible.trim();
    if visible.is_empty() {
        return "file".into();
    }
    if visible.chars().count() <= MAX_FILE_NAME {
        return visible.to_owned();
    }
    let extension = visible
        .rsplit_once('.')
        .map(|(_, ext)| ext)
        .filter(|ext| ext.chars().count() <= 10)
        .unwrap_or("");
    let keep = MAX_FILE_NAME - extension.chars().count() - 1;
    let head: String = visible.chars().take(keep).collect();
    match extension.is_empty() {
        true => visible.chars().take(MAX_FILE_NAME).collect(),
        false => format!("{head}.{extension}"),
    }
}

/// A file answer: which uploaded file, and what it is.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct FileAnswer {
    /// The upload's id (16 hex digits): with the survey, the answer's reference and the
    /// question, where the file is stored.
    pub id: String,
    /// Its name, as the respondent's device gave it (cleaned).
    pub name: String,
    /// Its kind, read from its content.
    pub kind: FileKind,
    /// Its media type, read from its content.
    pub mime: String,
    /// Its size in bytes.
    pub bytes: u64,
}

impl FileAnswer {
    /// The name a member's download is saved under: the respondent's, ending in the extension
    /// of the kind read from its content (a `photo.png.html` that is a PNG is saved as
    /// `photo.png.png`), so no program opens it as what its name claimed.
    pub fn download_name(&self) -> String {
        let Some(extension) = extension_of(&self.mime) else {
            return format!("{}.bin", stem(&self.name));
        };
        let given = self
            .name
            .rsplit_once('.')
            .map(|(_, given)| given.to_ascii_lowercase());
        let same = given
            .as_deref()
            .is_some_and(|given| given == extension || (extension == "jpg" && given == "jpeg"));
        match same {
            true => self.name.clone(),
            false => format!("{}.{extension}", stem(&self.name)),
        }
    }

    /// The file as a form carries it between pages (before the web tier's signature):
    /// `id:kind:bytes:mime:name`.
    pub fn to_field(&self) -> String {
        format!(
            "{}:{}:{}:{}:{}",
            self.id,
            self.kind.name(),
            self.bytes,
            self.mime,
            self.name
        )
    }

    /// Reads what `to_field` wrote; a signature after `~` (checked by the web tier before
    /// any form reaches the domain) is left aside.
    pub fn from_field(field: &str) -> Option<Self> {
        let field = field.rsplit_once('~').map_or(field, |(text, _)| text);
        let mut parts = field.splitn(5, ':');
        let id = parts.next()?;
        let kind = FileKind::parse(parts.next()?)?;
        let bytes = parts.next()?.parse().ok()?;
        let mime = parts.next()?;
        let name = parts.next()?;
        let hex = id.len() == 16 && id.bytes().all(|b| b.is_ascii_hexdigit());
        (hex && !name.is_empty() && name.chars().count() <= MAX_FILE_NAME).then(|| Self {
            id: id.to_owned(),
            name: name.to_owned(),
            kind,
            mime: mime.to_owned(),
            bytes,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_files_kind_comes_from_its_content_never_its_name() {
        let png = [
            0x89, b'P', b'N', b'G', 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13, b'I', b'H', b'D', b'R',
        ];
        assert_eq!(kind_of(&png), Some((FileKind::Image, "image/png")));
        assert_eq!(
            kind_of(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n"),
            Some((FileKind::Pdf, "application/pdf"))
        );
        assert_eq!(
            kind_of(b"MZ\x90\x00\x03\x00\x00\x00"),
            None,
            "a program is no kind"
        );
        assert_eq!(kind_of(b"just some text, named photo.png"), None);
        assert_eq!(kind_of(b""), None);
    }

    #[test]
    fn names_lose_their_folders_and_invisible_characters_and_keep_their_extension() {
        assert_eq!(clean_name("C:\\Users\\ada\\photo.jpg"), "photo.jpg");
        assert_eq!(clean_name("../../etc/passwd"), "passwd");
        assert_eq!(clean_name("evil\u{202E}gpj.exe"), "evilgpj.exe");
        assert_eq!(clean_name("  "), "file");
        let long = format!("{}.pdf", "a".repeat(300));
        let cut = clean_name(&long);
        assert_eq!(cut.chars().count(), MAX_FILE_NAME);
        assert!(cut.ends_with(".pdf"));
    }

    #[test]
    fn a_file_answer_travels_as_a_field_and_back() {
        let file = FileAnswer {
            id: "0123456789abcdef".into(),
            name: "my: report.pdf".into(),
            kind: FileKind::Pdf,
            mime: "application/pdf".into(),
            bytes: 1234,
        };
        assert_eq!(FileAnswer::from_field(&file.to_field()), Some(file.clone()));
        let signed = format!("{}~c2lnbmF0dXJl", file.to_field());
        assert_eq!(FileAnswer::from_field(&signed), Some(file));
        for bad in [
            "",
            "x:pdf:1:a:b",
            "0123456789abcdef:zip:1:a:b",
            "0123456789abcdef:pdf:big:a:b",
        ] {
            assert_eq!(FileAnswer::from_field(bad), None, "{bad}");
        }
    }

    #[test]
    fn a_download_is_named_for_the_kind_its_content_is() {
        let file = |name: &str, mime: &str| FileAnswer {
            id: "0123456789abcdef".into(),
            name: name.into(),
            kind: FileKind::Image,
            mime: mime.into(),
            bytes: 1,
        };
        let cases = [
            ("photo.png.html", "image/png", "photo.png.png"),
            ("photo.PNG", "image/png", "photo.PNG"),
            ("holiday.jpeg", "image/jpeg", "holiday.jpeg"),
            ("holiday", "image/jpeg", "holiday.jpg"),
            ("report.exe", "application/pdf", "report.pdf"),
            (".htaccess", "application/pdf", ".htaccess.pdf"),
            ("notes.txt", "text/html", "notes.bin"),
        ];
        for (name, mime, saved) in cases {
            assert_eq!(file(name, mime).download_name(), saved, "{name} ({mime})");
        }
    }
}
