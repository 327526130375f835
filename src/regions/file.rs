//! The regions file (`CANVASS_REGIONS_FILE`): each region's storage and public address, read
//! and checked as a whole, each refusal naming the line to mend.

use std::collections::BTreeMap;
use std::ops::Range;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use toml::Spanned;

use super::{Region, Regions};
use crate::domain::region::RegionName;
use crate::storage::Backend;

/// Largest regions file read.
pub const MAX_FILE_BYTES: u64 = 64 * 1024;

/// Most regions an installation names.
pub const MAX_REGIONS: usize = 32;

/// How many reference blocks there are; a region draws its references from one of them.
pub const REFERENCE_BLOCKS: u16 = 899;

/// Why the regions file (or the process's region) cannot be used.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("{}{}: {problem}", file.display(), line.map(|line| format!(":{line}")).unwrap_or_default())]
pub struct RegionsFileError {
    /// The file.
    pub file: PathBuf,
    /// The line to mend, from 1, when one is to blame.
    pub line: Option<usize>,
    /// What is wrong, in words for the operator.
    pub problem: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileDoc {
    regions: BTreeMap<Spanned<String>, Spanned<EntryDoc>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct EntryDoc {
    storage: Option<Spanned<String>>,
    data_dir: Option<Spanned<PathBuf>>,
    azure_connection_string: Option<Spanned<String>>,
    public_url: Option<Spanned<String>>,
    label: Option<Spanned<String>>,
    reference_block: Option<Spanned<u16>>,
}

/// Reads the regions file at `path`, for a process running in `here`.
pub fn load(path: &Path, here: Option<&str>) -> Result<Regions, RegionsFileError> {
    let refuse = |problem: String| RegionsFileError {
        file: path.to_owned(),
        line: None,
        problem,
    };
    let size = std::fs::metadata(path)
        .map_err(|error| refuse(format!("cannot read it: {error}")))?
        .len();
    if size > MAX_FILE_BYTES {
        return Err(refuse(format!(
            "it is {size} bytes, more than the {MAX_FILE_BYTES} a regions file may be"
        )));
    }
    let text = std::fs::read_to_string(path)
        .map_err(|error| refuse(format!("cannot read it: {error}")))?;
    parse(path, &text, here)
}

/// Reads a regions file's `text` (`path` names it in refusals).
pub fn parse(path: &Path, text: &str, here: Option<&str>) -> Result<Regions, RegionsFileError> {
    let at = |span: Range<usize>, problem: String| RegionsFileError {
        file: path.to_owned(),
        line: Some(line_of(text, span.start)),
        problem,
    };
    let doc: FileDoc = toml::from_str(text).map_err(|error| RegionsFileError {
        file: path.to_owned(),
        line: error.span().map(|span| line_of(text, span.start)),
        problem: error.message().trim().to_owned(),
    })?;
    if doc.regions.is_empty() {
        return Err(RegionsFileError {
            file: path.to_owned(),
            line: None,
            problem: "it names no region: add a [regions.NAME] table for each".into(),
        });
    }
    if doc.regions.len() > MAX_REGIONS {
        return Err(RegionsFileError {
            file: path.to_owned(),
            line: None,
            problem: format!(
                "it names {} regions, more than {MAX_REGIONS}",
                doc.regions.len()
            ),
        });
    }
    let mut all = BTreeMap::new();
    // Where each storage and reference block is first claimed, to refuse a second claim.
    let mut places: BTreeMap<String, RegionName> = BTreeMap::new();
    let mut blocks: BTreeMap<u16, RegionName> = BTreeMap::new();
    // In the file's order, so a refusal blames the later of two clashing regions.
    let mut entries: Vec<_> = doc.regions.iter().collect();
    entries.sort_by_key(|(key, _)| key.span().start);
    for (key, entry) in entries {
        let name = RegionName::parse(key.get_ref()).map_err(|e| at(key.span(), e.to_string()))?;
        let entry_span = key.span();
        let entry = entry.get_ref();
        let backend = backend(&name, entry, entry_span.clone(), &at)?;
        let storage_span = entry
            .storage
            .as_ref()
            .map_or(entry_span.clone(), Spanned::span);
        let place = backend
            .place()
            .map_err(|error| at(storage_span.clone(), error.to_string()))?
            .ok_or_else(|| at(storage_span.clone(), "regions need shared storage".into()))?;
        if let Some(first) = places.insert(place.clone(), name.clone()) {
            return Err(at(
                storage_span,
                format!(
                    "regions {first} and {name} both use {place}: each region needs a storage of its own"
                ),
            ));
        }
        let public_url = match &entry.public_url {
            Some(url) => check_public_url(url.get_ref()).map_err(|e| at(url.span(), e))?,
            None => {
                return Err(at(
                    entry_span,
                    format!(
                        "region {name} has no public_url: give the address respondents reach it at, like \"https://eu.surveys.example.com\""
                    ),
                ));
            }
        };
        let (block, block_span) = match &entry.reference_block {
            Some(block) => {
                if !(1..=REFERENCE_BLOCKS).contains(block.get_ref()) {
                    return Err(at(
                        block.span(),
                        format!("reference_block is from 1 to {REFERENCE_BLOCKS}"),
                    ));
                }
                (*block.get_ref(), block.span())
            }
            None => (default_block(&name), entry_span.clone()),
        };
        if let Some(first) = blocks.insert(block, name.clone()) {
            return Err(at(
                block_span,
                format!(
                    "regions {first} and {name} would number their answers from the same block ({block}): give one of them reference_block = N (1 to {REFERENCE_BLOCKS}), unused by the others"
                ),
            ));
        }
        let label = entry
            .label
            .as_ref()
            .map(|label| label.get_ref().trim().to_owned())
            .filter(|label| !label.is_empty())
            .unwrap_or_else(|| name.to_string());
        if label.chars().count() > 60 {
            let span = entry.label.as_ref().map_or(entry_span, Spanned::span);
            return Err(at(span, "a label is at most 60 characters".into()));
        }
        all.insert(
            name.clone(),
            Region {
                name,
                label,
                backend,
                public_url,
                reference_block: block,
            },
        );
    }
    let names = || {
        all.keys()
            .map(RegionName::as_str)
            .collect::<Vec<_>>()
            .join(", ")
    };
    let here = match here {
        Some(here) => RegionName::parse(here)
            .ok()
            .filter(|name| all.contains_key(name))
            .ok_or_else(|| RegionsFileError {
                file: path.to_owned(),
                line: None,
                problem: format!(
                    "CANVASS_REGION={here} is not one of its regions ({})",
                    names()
                ),
            })?,
        None if all.len() == 1 => all.keys().next().cloned().expect("one region"),
        None => {
            return Err(RegionsFileError {
                file: path.to_owned(),
                line: None,
                problem: format!(
                    "say which region this process runs in with CANVASS_REGION (one of {})",
                    names()
                ),
            });
        }
    };
    Ok(Regions {
        here: Some(here),
        all,
    })
}

/// The storage an entry names.
fn backend(
    name: &RegionName,
    entry: &EntryDoc,
    entry_span: Range<usize>,
    at: &impl Fn(Range<usize>, String) -> RegionsFileError,
) -> Result<Backend, RegionsFileError> {
    let Some(storage) = &entry.storage else {
        return Err(at(
            entry_span,
            format!(
                "region {name} has no storage: add storage = \"local\" with data_dir, or storage = \"azure\" with azure_connection_string"
            ),
        ));
    };
    match storage.get_ref().as_str() {
        "local" => match &entry.data_dir {
            Some(dir) if !dir.get_ref().as_os_str().is_empty() => Ok(Backend::Local {
                data_dir: dir.get_ref().clone(),
            }),
            Some(dir) => Err(at(dir.span(), "data_dir is empty".into())),
            None => Err(at(
                storage.span(),
                format!("region {name} keeps its data locally: give its data_dir"),
            )),
        },
        "azure" => match &entry.azure_connection_string {
            Some(connection) => Ok(Backend::Azure {
                connection_string: connection.get_ref().clone(),
            }),
            None => Err(at(
                storage.span(),
                format!("region {name} keeps its data in Azure: give its azure_connection_string"),
            )),
        },
        other => Err(at(
            storage.span(),
            format!(
                "storage {other:?} is not one regions can use: \"local\" or \"azure\" (a region's storage must outlive its processes)"
            ),
        )),
    }
}

/// A public address: an http(s) URL with a host and no query, without its trailing slash.
fn check_public_url(text: &str) -> Result<String, String> {
    let url = url::Url::parse(text.trim()).map_err(|_| {
        format!("public_url {text:?} is not a URL like https://eu.surveys.example.com")
    })?;
    if !matches!(url.scheme(), "http" | "https") || url.host().is_none() {
        return Err(format!(
            "public_url {text:?} must be an http or https address"
        ));
    }
    if url.query().is_some() || url.fragment().is_some() || !url.username().is_empty() {
        return Err(format!(
            "public_url {text:?} must not carry a query, a fragment or a user"
        ));
    }
    Ok(url.as_str().trim_end_matches('/').to_owned())
}

/// The reference block a region draws from unless the file says: a hash of its name, so
/// adding a region never moves another's.
fn default_block(name: &RegionName) -> u16 {
    // FNV-1a: stable across builds and platforms, unlike the standard library's hasher.
    let hash = name
        .as_str()
        .bytes()
        .fold(0xcbf2_9ce4_8422_2325_u64, |hash, byte| {
            (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3)
        });
    (hash % u64::from(REFERENCE_BLOCKS)) as u16 + 1
}

/// The line (from 1) holding byte `offset` of `text`.
fn line_of(text: &str, offset: usize) -> usize {
    text.as_bytes()
        .iter()
        .take(offset)
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

#[cfg(test)]
mod tests {
    use super::*;

    const TWO: &str = r#"[regions.us]
storage = "local"            # or "azure" with azure_connection_string = "..."
data_dir = "/var/lib/canvass/us"
public_url = "http://127.0.0.1:8080"

[regions.eu]
storage = "local"
data_dir = "/var/lib/canvass/eu"
public_url = "http://127.0.0.1:8081"
"#;

    fn read(text: &str, here: Option<&str>) -> Result<Regions, RegionsFileError> {
        parse(Path::new("regions.toml"), text, here)
    }

    fn refusal(text: &str, here: Option<&str>) -> (Option<usize>, String) {
        let error = read(text, here).expect_err("refused");
        (error.line, error.problem)
    }

    #[test]
    fn the_documented_form_reads() {
        let regions = read(TWO, Some("eu")).expect("read");
        assert_eq!(regions.here().map(RegionName::as_str), Some("eu"));
        let us = regions
            .get(&RegionName::parse("us").expect("a name"))
            .expect("us");
        assert_eq!(us.public_url, "http://127.0.0.1:8080");
        assert_eq!(
            us.backend,
            Backend::Local {
                data_dir: "/var/lib/canvass/us".into()
            }
        );
        assert_ne!(
            regions
                .get(regions.here().expect("here"))
                .expect("eu")
                .reference_block,
            us.reference_block
        );
    }

    #[test]
    fn refusals_name_the_line_to_mend() {
        let shared = TWO.replace("/var/lib/canvass/eu", "/var/lib/canvass/us");
        let (line, problem) = refusal(&shared, Some("us"));
        assert_eq!(line, Some(7), "{problem}");
        assert!(
            problem.contains("eu and us") || problem.contains("us and eu"),
            "{problem}"
        );
        assert!(problem.contains("storage of its own"), "{problem}");

        let missing = TWO.replace(
            "storage = \"local\"\ndata_dir = \"/var/lib/canvass/eu\"\n",
            "",
        );
        let (line, problem) = refusal(&missing, Some("us"));
        assert_eq!(line, Some(6), "{problem}");
        assert!(problem.contains("region eu has no storage"), "{problem}");

        let (line, problem) = refusal(&TWO.replace("\"local\"            #", "\"disk\" #"), None);
        assert_eq!(line, Some(2), "{problem}");
        assert!(problem.contains("\"disk\""), "{problem}");

        let (line, problem) = refusal(
            &TWO.replace("data_dir = \"/var/lib/canvass/eu\"\n", ""),
            None,
        );
        assert_eq!(line, Some(7), "{problem}");
        assert!(problem.contains("data_dir"), "{problem}");

        let (line, problem) = refusal(
            &TWO.replace(
                "public_url = \"http://127.0.0.1:8081\"",
                "public_url = \"ftp://x\"",
            ),
            None,
        );
        assert_eq!(line, Some(9), "{problem}");

        let (line, problem) = refusal(&TWO.replace("[regions.eu]", "[regions.EU]"), None);
        assert_eq!(line, Some(6), "{problem}");
        assert!(problem.contains("not a region name"), "{problem}");

        let (line, problem) = refusal(
            &TWO.replace(
                "data_dir = \"/var/lib/canvass/eu\"",
                "data_dir = \"/var/lib/canvass/eu\"\ncolour = \"blue\"",
            ),
            None,
        );
        assert_eq!(line, Some(9), "{problem}");
        assert!(problem.contains("colour"), "{problem}");

        let (line, problem) = refusal("[regions.us\nstorage = 1", None);
        assert_eq!(line, Some(1), "{problem}");
    }

    #[test]
    fn the_process_region_must_be_one_of_them() {
        let (line, problem) = refusal(TWO, Some("asia"));
        assert_eq!(line, None);
        assert!(problem.contains("CANVASS_REGION=asia"), "{problem}");
        assert!(problem.contains("eu, us"), "{problem}");
        let (_, problem) = refusal(TWO, None);
        assert!(problem.contains("CANVASS_REGION"), "{problem}");
        let one = TWO.split("[regions.eu]").next().expect("the first table");
        assert!(
            read(one, None).is_ok(),
            "one region needs no CANVASS_REGION"
        );
    }

    #[test]
    fn a_shared_reference_block_is_refused_and_can_be_moved() {
        let same = TWO
            .replace(
                "public_url = \"http://127.0.0.1:8080\"",
                "public_url = \"http://127.0.0.1:8080\"\nreference_block = 5",
            )
            .replace(
                "public_url = \"http://127.0.0.1:8081\"",
                "public_url = \"http://127.0.0.1:8081\"\nreference_block = 5",
            );
        let (line, problem) = refusal(&same, None);
        assert_eq!(line, Some(11), "{problem}");
        assert!(problem.contains("same block"), "{problem}");
        assert!(
            read(
                &same.replacen("reference_block = 5", "reference_block = 6", 1),
                Some("us")
            )
            .is_ok()
        );
    }

    #[test]
    fn the_error_says_file_and_line() {
        let error = read(&TWO.replace("[regions.eu]", "[regions.EU]"), None).expect_err("refused");
        assert!(error.to_string().starts_with("regions.toml:6: "), "{error}");
    }
}
