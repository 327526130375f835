//! The README and docs/ hold: the configuration reference is the one the code generates, and
//! every relative link and anchor points at a file and a heading that exist.
//! `scripts/docs` rewrites the generated files (`CANVASS_WRITE_DOCS=1`).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use pulldown_cmark::{Event, HeadingLevel, Parser, Tag, TagEnd};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn the_configuration_reference_is_the_one_the_code_generates() {
    let path = root().join("docs/configuration.md");
    let generated = canvass::cli::configuration_reference();
    if std::env::var("CANVASS_WRITE_DOCS").is_ok_and(|v| v == "1") {
        std::fs::write(&path, &generated).expect("written");
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == generated,
        "docs/configuration.md differs from the flags' definitions: run scripts/docs"
    );
    for variable in [
        "CANVASS_DATA_DIR",
        "CANVASS_LISTEN",
        "CANVASS_SMTP_URL",
        "CANVASS_LOG",
    ] {
        assert!(
            generated.contains(&format!("| `{variable}` |")),
            "{variable}"
        );
    }
}

/// GitHub's anchor for a heading: lowercase, punctuation dropped, spaces as hyphens.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// A Markdown file's heading anchors (a repeated heading gets `-1`, `-2`, ...) and its links.
fn read(path: &Path) -> (BTreeSet<String>, Vec<String>) {
    let text = std::fs::read_to_string(path).expect("a Markdown file");
    let mut anchors = BTreeSet::new();
    let mut links = Vec::new();
    let mut heading: Option<String> = None;
    for event in Parser::new(&text) {
        match event {
            Event::Start(Tag::Heading { level, .. }) if level <= HeadingLevel::H6 => {
                heading = Some(String::new());
            }
            Event::Text(text) | Event::Code(text) => {
                if let Some(heading) = heading.as_mut() {
                    heading.push_str(&text);
                }
            }
            Event::End(TagEnd::Heading(_)) => {
                let base = slug(&heading.take().unwrap_or_default());
                let mut anchor = base.clone();
                let mut n = 0;
                while anchors.contains(&anchor) {
                    n += 1;
                    anchor = format!("{base}-{n}");
                }
                anchors.insert(anchor);
            }
            Event::Start(Tag::Link { dest_url, .. } | Tag::Image { dest_url, .. }) => {
                links.push(dest_url.to_string());
            }
            _ => {}
        }
    }
    (anchors, links)
}

#[test]
fn every_relative_link_and_anchor_in_the_readme_and_docs_points_somewhere() {
    let root = root();
    let mut files = vec![root.join("README.md")];
    for entry in std::fs::read_dir(root.join("docs")).expect("docs/") {
        let path = entry.expect("an entry").path();
        if path.extension().is_some_and(|e| e == "md") {
            files.push(path);
        }
    }
    assert!(files.len() >= 7, "README and the docs: {files:?}");
    let mut broken = Vec::new();
    let mut checked = 0;
    for file in &files {
        let (own, links) = read(file);
        for link in links {
            if link.contains("://") || link.starts_with("mailto:") {
                continue;
            }
            checked += 1;
            let (target, anchor) = link.split_once('#').unwrap_or((&link, ""));
            let target_path = match target {
                "" => file.clone(),
                relative => file.parent().expect("a folder").join(relative),
            };
            if !target_path.exists() {
                broken.push(format!("{}: {link} (no such file)", file.display()));
                continue;
            }
            if anchor.is_empty() {
                continue;
            }
            let anchors = match target {
                "" => own.clone(),
                _ if target_path.extension().is_some_and(|e| e == "md") => read(&target_path).0,
                _ => continue,
            };
            if !anchors.contains(anchor) {
                broken.push(format!("{}: {link} (no such heading)", file.display()));
            }
        }
    }
    assert!(checked > 30, "only {checked} relative links");
    assert!(broken.is_empty(), "{broken:#?}");
}

#[test]
fn anchors_are_made_as_github_makes_them() {
    assert_eq!(
        slug("Backups (`canvass backup DEST`)"),
        "backups-canvass-backup-dest"
    );
    assert_eq!(slug("What a tenant sees"), "what-a-tenant-sees");
    let dir = tempfile::tempdir().expect("a dir");
    let file = dir.path().join("a.md");
    std::fs::write(&file, "# One\n## One\n[x](b.md#two) ![i](images/p.png)\n").expect("written");
    let (anchors, links) = read(&file);
    assert_eq!(anchors.into_iter().collect::<Vec<_>>(), ["one", "one-1"]);
    assert_eq!(links, ["b.md#two", "images/p.png"]);
}

/// The entries of docs/architecture.md's source tree: each line indented by two spaces names
/// a file or folder of `src/` (`name.rs` or `name/`), and the lines indented further continue
/// its description. Returns (name, description) in the order written.
fn source_tree(text: &str) -> Vec<(String, String)> {
    let start = text.find("## Source tree").expect("a Source tree section");
    let block = &text[start..];
    let open = block.find("```\n").expect("the tree's block") + 4;
    let close = open + block[open..].find("```").expect("the block's end");
    let mut entries: Vec<(String, String)> = Vec::new();
    for line in block[open..close].lines() {
        if line.starts_with("src/") {
            continue;
        }
        let Some(rest) = line.strip_prefix("  ") else {
            // A top-level folder beside src/ (templates/, docs/ ...) ends the src/ entries.
            if !line.trim().is_empty() && !line.starts_with(' ') {
                break;
            }
            continue;
        };
        match rest.starts_with(' ') {
            true => {
                if let Some((_, description)) = entries.last_mut() {
                    description.push(' ');
                    description.push_str(rest.trim());
                }
            }
            false => {
                let (name, description) = rest.split_once(' ').unwrap_or((rest, ""));
                entries.push((name.to_owned(), description.trim().to_owned()));
            }
        }
    }
    entries
}

/// The source tree in docs/architecture.md names every file and folder of `src/` and nothing
/// that is not there, and its `service/` entry names every use-case module, so the map a
/// newcomer reads first cannot drift from the code.
#[test]
fn the_architecture_source_tree_is_the_one_in_src() {
    let root = root();
    let text = std::fs::read_to_string(root.join("docs/architecture.md")).expect("the doc");
    let tree = source_tree(&text);
    let written: BTreeSet<String> = tree.iter().map(|(name, _)| name.clone()).collect();
    let mut present = BTreeSet::new();
    for entry in std::fs::read_dir(root.join("src")).expect("src/") {
        let entry = entry.expect("an entry");
        let name = entry.file_name().to_string_lossy().into_owned();
        let folder = entry.file_type().expect("a type").is_dir();
        present.insert(if folder { format!("{name}/") } else { name });
    }
    let missing: Vec<_> = present.difference(&written).collect();
    let gone: Vec<_> = written.difference(&present).collect();
    assert!(
        missing.is_empty() && gone.is_empty(),
        "docs/architecture.md's source tree lacks {missing:?} and names {gone:?}, which src/ \
         does not have"
    );
    let service = &tree
        .iter()
        .find(|(name, _)| name == "service/")
        .expect("a service/ entry")
        .1;
    let mut unnamed = Vec::new();
    for entry in std::fs::read_dir(root.join("src/service")).expect("src/service/") {
        let name = entry
            .expect("an entry")
            .file_name()
            .to_string_lossy()
            .into_owned();
        let stem = name.trim_end_matches(".rs");
        if stem != "mod" && !service.contains(stem) {
            unnamed.push(name);
        }
    }
    assert!(
        unnamed.is_empty(),
        "service/ in the source tree does not name {unnamed:?}"
    );
    // The check reads what it should.
    let sample =
        "## Source tree\n\n```\nsrc/\n  a.rs   one\n  b/     two,\n         more\ndocs/  x\n```\n";
    assert_eq!(
        source_tree(sample),
        [
            ("a.rs".to_owned(), "one".to_owned()),
            ("b/".to_owned(), "two, more".to_owned())
        ]
    );
}
