//! The house's layering, read from the source: every `crate::` and `super::` path a file of
//! `src/` names is an arrow to the file that defines it. Arrows run one way only: no file is
//! in a loop of imports, and no module imports from a layer above its own (the ground,
//! `domain/`, `storage/` and the cross-cutting modules, imports nothing of the service).
//! The picture and the reasons are in docs/architecture.md.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Each top-level module's layer, from the ground (0) up; a module may import from its own
/// layer and those below.
const LAYERS: &[(&str, u8)] = &[
    ("domain", 0),
    ("storage", 0),
    ("telemetry", 0),
    ("outbound", 0),
    ("signals", 0),
    ("crash", 0),
    ("i18n", 0),
    ("links", 1),
    ("mail", 1),
    ("sso", 1),
    ("regions", 1),
    ("stores", 2),
    ("export", 3),
    ("metrics", 3),
    ("demo", 3),
    ("service", 3),
    ("web", 4),
    ("worker", 4),
    ("config", 5),
    ("bench", 5),
    ("loadgen", 5),
    ("startup", 6),
    ("admin", 6),
    ("cli", 6),
];

/// A file's module path (`src/web/api/mod.rs` is `web::api`).
fn module_of(src: &Path, file: &Path) -> Vec<String> {
    let relative = file.strip_prefix(src).expect("under src");
    let mut parts: Vec<String> = relative
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    let last = parts.pop().expect("a file name");
    let stem = last.trim_end_matches(".rs");
    if stem != "mod" && stem != "lib" {
        parts.push(stem.to_owned());
    }
    parts
}

/// The file that defines the longest prefix of `path` that is a module.
fn file_of(src: &Path, path: &[String]) -> Option<PathBuf> {
    (1..=path.len()).rev().find_map(|n| {
        let base = src.join(path[..n].join("/"));
        [base.with_extension("rs"), base.join("mod.rs")]
            .into_iter()
            .find(|candidate| candidate.is_file())
    })
}

/// The code of a file without comments and without its test module (by the house's habit,
/// last in the file), where `super::` means the file itself.
fn code_of(text: &str) -> String {
    let text = text.split("#[cfg(test)]").next().unwrap_or_default();
    text.lines()
        .map(|line| match line.find("//") {
            Some(at) if !line[..at].contains('"') => &line[..at],
            _ => line,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Every path `code` names from `crate::` or `super::`, as segments (`super` kept), with
/// `use` groups (`crate::a::{b, c::d}`) spread out.
fn paths_in(code: &str) -> Vec<Vec<String>> {
    let mut found = Vec::new();
    let bytes = code.as_bytes();
    let mut at = 0;
    while at < code.len() {
        let rest = &code[at..];
        let start = ["crate::", "super::"]
            .iter()
            .filter_map(|word| rest.find(word))
            .min();
        let Some(start) = start else { break };
        let begin = at + start;
        // Only a path's first word: not `my_crate::` or `self.super::`.
        let boundary = begin == 0 || {
            let before = bytes[begin - 1];
            !(before.is_ascii_alphanumeric() || before == b'_')
        };
        let (consumed, paths) = parse_path(&code[begin..]);
        if boundary {
            found.extend(paths);
        }
        at = begin + consumed.max(1);
    }
    found
}

/// Parses a path (with groups) at the start of `text`: how many bytes it took, the paths.
fn parse_path(text: &str) -> (usize, Vec<Vec<String>>) {
    let mut segments = Vec::new();
    let mut at = 0;
    loop {
        let word: String = text[at..]
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        if word.is_empty() {
            break;
        }
        at += word.len();
        segments.push(word);
        if text[at..].starts_with("::{") {
            at += 3;
            let mut paths = Vec::new();
            loop {
                let inner = text[at..].trim_start();
                at = text.len() - inner.len();
                if inner.starts_with('}') {
                    at += 1;
                    break;
                }
                let (taken, items) = parse_path(inner);
                for item in items {
                    let mut whole = segments.clone();
                    whole.extend(item);
                    paths.push(whole);
                }
                at += taken;
                let after = text[at..].trim_start();
                at = text.len() - after.len();
                if after.starts_with(',') {
                    at += 1;
                } else if taken == 0 {
                    // `self`, `*` or something else not a name: skip one character.
                    at += after.chars().next().map_or(1, char::len_utf8);
                }
            }
            if paths.is_empty() {
                paths.push(segments);
            }
            return (at, paths);
        }
        if text[at..].starts_with("::") {
            at += 2;
        } else {
            break;
        }
    }
    (at, vec![segments])
}

/// Every file of `src/` with the files it imports from.
fn imports(src: &Path) -> BTreeMap<PathBuf, BTreeSet<PathBuf>> {
    let mut files = Vec::new();
    let mut folders = vec![src.to_path_buf()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).expect("a folder") {
            let path = entry.expect("an entry").path();
            if path.is_dir() {
                folders.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                files.push(path);
            }
        }
    }
    let mut graph = BTreeMap::new();
    for file in files {
        // The binary names the library as `canvass::`, from above everything.
        if file == src.join("main.rs") {
            continue;
        }
        let module = module_of(src, &file);
        let owner = file
            .file_name()
            .is_some_and(|n| n == "mod.rs" || n == "lib.rs");
        let text = std::fs::read_to_string(&file).expect("a source file");
        let mut targets = BTreeSet::new();
        for path in paths_in(&code_of(&text)) {
            let mut absolute = match path[0].as_str() {
                "crate" => Vec::new(),
                _ => {
                    // `super` is the parent of the file's module (of `a::b` in a/b.rs, of
                    // `a` in a/mod.rs).
                    let mut base = module.clone();
                    base.pop();
                    base
                }
            };
            let mut rest = &path[1..];
            while rest.first().is_some_and(|s| s == "super") {
                absolute.pop();
                rest = &rest[1..];
            }
            absolute.extend(rest.iter().cloned());
            let target = if absolute.is_empty() {
                Some(src.join("lib.rs"))
            } else {
                file_of(src, &absolute).or_else(|| Some(src.join("lib.rs")))
            };
            let Some(target) = target else { continue };
            // A folder's mod.rs owns its files: its re-exports are not arrows.
            let owned = owner && target.starts_with(file.parent().expect("a folder"));
            if target != file && !owned {
                targets.insert(target);
            }
        }
        graph.insert(file, targets);
    }
    graph
}

/// The layer of a file, by its top-level module.
fn layer(src: &Path, file: &Path) -> Option<(&'static str, u8)> {
    let top = module_of(src, file).into_iter().next()?;
    LAYERS
        .iter()
        .find(|(name, _)| *name == top)
        .map(|(name, layer)| (*name, *layer))
}

/// The loops of `graph`: its strongly connected parts of more than one file (Tarjan).
fn loops(graph: &BTreeMap<PathBuf, BTreeSet<PathBuf>>) -> Vec<Vec<PathBuf>> {
    struct Search<'g> {
        graph: &'g BTreeMap<PathBuf, BTreeSet<PathBuf>>,
        index: BTreeMap<&'g PathBuf, usize>,
        low: BTreeMap<&'g PathBuf, usize>,
        stack: Vec<&'g PathBuf>,
        on_stack: BTreeSet<&'g PathBuf>,
        found: Vec<Vec<PathBuf>>,
    }
    impl<'g> Search<'g> {
        fn visit(&mut self, file: &'g PathBuf) {
            let n = self.index.len();
            self.index.insert(file, n);
            self.low.insert(file, n);
            self.stack.push(file);
            self.on_stack.insert(file);
            for next in self.graph.get(file).into_iter().flatten() {
                if !self.graph.contains_key(next) {
                    continue;
                }
                if !self.index.contains_key(next) {
                    self.visit(next);
                    let low = self.low[file].min(self.low[next]);
                    self.low.insert(file, low);
                } else if self.on_stack.contains(next) {
                    let low = self.low[file].min(self.index[next]);
                    self.low.insert(file, low);
                }
            }
            if self.low[file] == self.index[file] {
                let mut part = Vec::new();
                while let Some(top) = self.stack.pop() {
                    self.on_stack.remove(top);
                    part.push(top.clone());
                    if top == file {
                        break;
                    }
                }
                if part.len() > 1 {
                    self.found.push(part);
                }
            }
        }
    }
    let mut search = Search {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        found: Vec::new(),
    };
    for file in graph.keys() {
        if !search.index.contains_key(file) {
            search.visit(file);
        }
    }
    search.found
}

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

#[test]
fn no_file_of_src_is_in_a_loop_of_imports() {
    let graph = imports(&src());
    let arrows: usize = graph.values().map(BTreeSet::len).sum();
    assert!(
        graph.len() > 150 && arrows > 500,
        "read {} files, {arrows} arrows",
        graph.len()
    );
    let found = loops(&graph);
    assert!(found.is_empty(), "import loops: {found:#?}");
}

/// Every arrow of the tree at `src` that runs up a layer, in words.
fn upward_imports(src: &Path) -> Vec<String> {
    let mut wrong = Vec::new();
    for (file, targets) in imports(src) {
        let Some((name, own)) = layer(src, &file) else {
            continue;
        };
        for target in targets {
            if let Some((above, theirs)) = layer(src, &target).filter(|(_, l)| *l > own) {
                wrong.push(format!(
                    "{} ({name}, layer {own}) imports {} ({above}, layer {theirs})",
                    file.display(),
                    target.display()
                ));
            }
        }
    }
    wrong
}

#[test]
fn no_module_imports_from_a_layer_above_its_own() {
    let src = src();
    let wrong = upward_imports(&src);
    assert!(wrong.is_empty(), "{wrong:#?}");
    // Every top-level module has its layer, so a new one must be placed.
    for entry in std::fs::read_dir(&src).expect("src") {
        let path = entry.expect("an entry").path();
        let name = path.file_stem().expect("a name").to_string_lossy();
        if matches!(name.as_ref(), "lib" | "main") {
            continue;
        }
        assert!(
            LAYERS.iter().any(|(layer, _)| *layer == name),
            "src/{name} has no layer in tests/api/layers.rs"
        );
    }
}

#[test]
fn the_reader_sees_groups_relative_paths_and_owned_files() {
    let paths = paths_in(
        "use crate::a::{b, c::{d, e}};\nuse super::super::f::G;\nlet x = my_crate::h; crate::i::j(1);",
    );
    let words: Vec<String> = paths.iter().map(|p| p.join("::")).collect();
    assert_eq!(
        words,
        [
            "crate::a::b",
            "crate::a::c::d",
            "crate::a::c::e",
            "super::super::f::G",
            "crate::i::j"
        ]
    );
    assert_eq!(code_of("a // crate::x\n#[cfg(test)]\ncrate::y"), "a ");
}

#[test]
fn an_upward_import_and_a_loop_are_caught() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let src = dir.path().join("src");
    for (file, text) in [
        ("lib.rs", "pub mod domain;\npub mod web;\n"),
        (
            "domain/mod.rs",
            "pub mod answer;\npub use answer::Answer;\n",
        ),
        (
            "domain/answer.rs",
            "use crate::web::page::Page;\npub struct Answer;\n",
        ),
        ("web/mod.rs", "pub mod page;\n"),
        (
            "web/page.rs",
            "use crate::domain::answer::Answer;\npub struct Page;\n",
        ),
    ] {
        let path = src.join(file);
        std::fs::create_dir_all(path.parent().expect("a folder")).expect("made");
        std::fs::write(path, text).expect("written");
    }
    let wrong = upward_imports(&src);
    assert_eq!(wrong.len(), 1, "{wrong:?}");
    assert!(
        wrong[0].contains("domain/answer.rs (domain, layer 0) imports"),
        "{wrong:?}"
    );
    let found = loops(&imports(&src));
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].len(), 2, "answer -> page -> answer: {found:?}");
}

/// Every arrow from the sites (`web/`) into storage (`stores/`, `storage/`), in words.
fn sites_reaching_storage(src: &Path) -> Vec<String> {
    let stored = [src.join("stores"), src.join("storage")];
    imports(src)
        .into_iter()
        .filter(|(file, _)| file.starts_with(src.join("web")))
        .flat_map(|(file, targets)| {
            targets
                .into_iter()
                .filter(|target| stored.iter().any(|below| target.starts_with(below)))
                .map(move |target| format!("{} imports {}", file.display(), target.display()))
        })
        .collect()
}

/// The sites and the API parse requests and render results; every use case, and so every
/// read and write of storage, is a function of `service/` (docs/architecture.md).
#[test]
fn the_sites_reach_storage_only_through_the_service() {
    let src = src();
    let wrong = sites_reaching_storage(&src);
    assert!(wrong.is_empty(), "{wrong:#?}");
    // The check sees an arrow when there is one.
    let dir = tempfile::tempdir().expect("a temp dir");
    let fake = dir.path().join("src");
    for (file, text) in [
        ("lib.rs", "pub mod stores;\npub mod web;\n"),
        ("stores/mod.rs", "pub struct Stores;\n"),
        ("web/mod.rs", "use crate::stores::Stores;\n"),
    ] {
        let path = fake.join(file);
        std::fs::create_dir_all(path.parent().expect("a folder")).expect("made");
        std::fs::write(path, text).expect("written");
    }
    assert_eq!(sites_reaching_storage(&fake).len(), 1);
}
