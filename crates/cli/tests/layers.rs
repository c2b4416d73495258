//! The workspace's layers, checked two ways (issues #21 and #45).
//!
//! Between crates: the crate graph is the architecture, read from
//! `cargo metadata`: each crate depends only on the crates below it
//! ([`RANKS`]), and nothing depends on a face (the CLI, the page, Python).
//! The compiler keeps the direction once it is in the manifests; this
//! test keeps the manifests from gaining a dependency that runs upward.
//!
//! Within a crate: no two modules import each other, directly or round a
//! longer circle. A source-level check: a module is a file (`a/b.rs` and
//! `a/b/mod.rs` are `a::b`); it imports another when its code, before its
//! test module and outside comments, names a path into it (`crate::a::b::…`,
//! `super::…`, `self::…`, `use` groups expanded). A path into a module's own
//! parent (or the parent's parent) does not count: a child names its
//! parent's items, the parent declares the child.

#![allow(clippy::unwrap_used, clippy::expect_used)] // helpers of tests: a panic here is a failed test
#![cfg(not(target_arch = "wasm32"))]
#![allow(clippy::disallowed_methods)] // tests, benches and tools read their own fixtures and files directly (#47)

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// A module's path from the crate root (`["bundle", "live"]`).
type Module = Vec<String>;

/// The workspace's crates from the bottom up, each with its rank: a crate
/// may depend on crates of a lower rank only. The faces share the top rank
/// and depend on nothing of it, so none depends on another face. The
/// allocator and the fetch of the page and its workers depend on nothing.
const RANKS: [(&str, u8); 11] = [
    ("knoblab-core", 0),
    ("knoblab-web-heap", 0),
    ("knoblab-web-fetch", 0),
    ("knoblab-score", 1),
    ("knoblab-eval", 1),
    ("knoblab-devicegen", 2),
    ("knoblab-app", 3),
    ("knoblab-cli", 5),
    ("knoblab-page", 5),
    ("knoblab-python", 5),
    ("knoblab-fuzz", 5),
];

/// The workspace's root folder (two above this crate's).
fn root() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Every module of the library under `src/` (the binary's `main.rs` is not
/// one of them), with its code: what precedes its test module, line
/// comments dropped.
fn modules(src: &Path) -> BTreeMap<Module, String> {
    let mut out = BTreeMap::new();
    let mut stack = vec![src.to_path_buf()];
    while let Some(dir) = stack.pop() {
        if !dir.is_dir() {
            continue;
        }
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            if path.extension().is_none_or(|e| e != "rs") || path == src.join("main.rs") {
                continue;
            }
            let relative = path.strip_prefix(src).unwrap().with_extension("");
            let mut module: Module = relative
                .iter()
                .map(|p| p.to_string_lossy().into_owned())
                .collect();
            if matches!(module.last().map(String::as_str), Some("mod" | "lib")) {
                module.pop();
            }
            out.insert(module, code(&std::fs::read_to_string(&path).unwrap()));
        }
    }
    out
}

/// The code of a file before its test module, without line comments (doc
/// comments included: their paths are links, not imports).
fn code(text: &str) -> String {
    let before_tests = text.split("#[cfg(test)]").next().unwrap_or("");
    before_tests
        .lines()
        .map(|line| match line.find("//") {
            Some(i) => &line[..i],
            None => line,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Every path that starts at `crate`, `super` or `self` in `code`, with
/// `use` groups expanded (`super::{a::X, b}` is `super::a::X` and
/// `super::b`), each as its segments.
fn paths(code: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let bytes = code.as_bytes();
    let word = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let mut i = 0;
    while i < bytes.len() {
        let starts_word = i == 0 || !word(bytes[i - 1]);
        // Past a character of several bytes, `get` gives nothing: no path
        // starts inside one.
        let rest = code.get(i..).unwrap_or("");
        let head = ["crate::", "super::", "self::"]
            .into_iter()
            .find(|h| rest.starts_with(h));
        match head {
            Some(h) if starts_word => {
                let (found, used) = tree(rest, 0);
                out.extend(found);
                i += used.max(h.len());
            }
            _ => i += 1,
        }
    }
    out
}

/// Reads one path tree at the start of `text` (`a::b::{c, d::e}`), at
/// nesting `depth`: the paths it names, and how many bytes it took.
fn tree(text: &str, depth: usize) -> (Vec<Vec<String>>, usize) {
    let bytes = text.as_bytes();
    let mut segments: Vec<String> = Vec::new();
    let mut i = 0;
    loop {
        let start = i;
        while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
            i += 1;
        }
        if i > start {
            segments.push(text[start..i].to_string());
        }
        if text.get(i..).unwrap_or("").starts_with("::{") && depth < 8 {
            i += 3;
            let mut found = Vec::new();
            loop {
                while i < bytes.len() && bytes[i].is_ascii_whitespace() {
                    i += 1;
                }
                if i >= bytes.len() || bytes[i] == b'}' {
                    i += 1;
                    break;
                }
                let (inner, used) = tree(text.get(i..).unwrap_or(""), depth + 1);
                for path in inner {
                    found.push(segments.iter().cloned().chain(path).collect());
                }
                i += used.max(1);
                while i < bytes.len() && bytes[i] != b',' && bytes[i] != b'}' {
                    i += 1;
                }
                if i < bytes.len() && bytes[i] == b',' {
                    i += 1;
                }
            }
            if found.is_empty() {
                found.push(segments);
            }
            return (found, i);
        }
        if text.get(i..).unwrap_or("").starts_with("::") {
            i += 2;
            continue;
        }
        return (vec![segments], i);
    }
}

/// The module a path leads into from `from`, when it is another module
/// than `from` and not one of its ancestors. `super` is the parent module
/// (for `a/mod.rs`, the crate root), `self` the module itself.
fn target(from: &Module, path: &[String], known: &BTreeSet<Module>) -> Option<Module> {
    let (at, rest): (Module, &[String]) = match path.first()?.as_str() {
        "crate" => (Vec::new(), &path[1..]),
        "self" => (from.clone(), &path[1..]),
        "super" => {
            let climbs = path.iter().take_while(|s| *s == "super").count();
            let mut at = from.clone();
            for _ in 0..climbs {
                at.pop()?;
            }
            (at, &path[climbs..])
        }
        _ => return None,
    };
    let mut module: Module = at.into_iter().chain(rest.iter().cloned()).collect();
    while !module.is_empty() && !known.contains(&module) {
        module.pop();
    }
    let ancestor = module.len() <= from.len() && from[..module.len()] == module[..];
    (!module.is_empty() && !ancestor).then_some(module)
}

/// Every module's imports of other modules.
fn graph(src: &Path) -> BTreeMap<Module, BTreeSet<Module>> {
    let modules = modules(src);
    let known: BTreeSet<Module> = modules.keys().cloned().collect();
    let mut out = BTreeMap::new();
    for (module, code) in &modules {
        let imports: BTreeSet<Module> = paths(code)
            .iter()
            .filter_map(|p| target(module, p, &known))
            .collect();
        out.insert(module.clone(), imports);
    }
    out
}

/// The circles: the strongly connected components of more than one module
/// (Tarjan's algorithm), each sorted, named `a/b <-> c/d`.
fn circles(graph: &BTreeMap<Module, BTreeSet<Module>>) -> Vec<String> {
    struct Walk<'a> {
        graph: &'a BTreeMap<Module, BTreeSet<Module>>,
        index: BTreeMap<&'a Module, usize>,
        low: BTreeMap<&'a Module, usize>,
        stack: Vec<&'a Module>,
        on_stack: BTreeSet<&'a Module>,
        found: Vec<String>,
    }
    impl<'a> Walk<'a> {
        fn visit(&mut self, v: &'a Module) {
            let n = self.index.len();
            self.index.insert(v, n);
            self.low.insert(v, n);
            self.stack.push(v);
            self.on_stack.insert(v);
            for w in self.graph.get(v).into_iter().flatten() {
                if !self.index.contains_key(w) {
                    self.visit(w);
                    let low = self.low[v].min(self.low[w]);
                    self.low.insert(v, low);
                } else if self.on_stack.contains(w) {
                    let low = self.low[v].min(self.index[w]);
                    self.low.insert(v, low);
                }
            }
            if self.low[v] == self.index[v] {
                let mut component = Vec::new();
                loop {
                    let w = self.stack.pop().unwrap();
                    self.on_stack.remove(w);
                    component.push(w.join("/"));
                    if w == v {
                        break;
                    }
                }
                if component.len() > 1 {
                    component.sort();
                    self.found.push(component.join(" <-> "));
                }
            }
        }
    }
    let mut walk = Walk {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        found: Vec::new(),
    };
    for v in graph.keys() {
        if !walk.index.contains_key(v) {
            walk.visit(v);
        }
    }
    walk.found.sort();
    walk.found
}

/// Every crate's source folder: `crates/*/src`, the page's `src`, the
/// Python extension's.
fn sources() -> Vec<std::path::PathBuf> {
    let mut out = vec![root().join("src"), root().join("bindings/python/src")];
    for entry in std::fs::read_dir(root().join("crates")).unwrap() {
        out.push(entry.unwrap().path().join("src"));
    }
    out.sort();
    out
}

#[test]
fn no_two_modules_of_a_crate_import_each_other() {
    let mut found = Vec::new();
    for src in sources() {
        for circle in circles(&graph(&src)) {
            found.push(format!("{}: {circle}", src.display()));
        }
    }
    assert!(
        found.is_empty(),
        "import circles (break each by moving the shared piece where both sides can \
         depend on it):\n{}",
        found.join("\n")
    );
}

/// Each dependency of a workspace crate on one that is not below it, named
/// `a depends on b`, from `cargo metadata`'s JSON (`packages`, each with
/// `name` and `dependencies`, each of those with `name`), of every kind
/// (normal, build and dev: a test that reaches upward is an upward reach).
/// A knoblab crate that [`RANKS`] does not list is named too.
fn upward(metadata: &serde_json::Value) -> Vec<String> {
    let rank = |name: &str| RANKS.iter().find(|(n, _)| *n == name).map(|(_, r)| *r);
    let mut wrong = Vec::new();
    for package in metadata["packages"].as_array().unwrap() {
        let name = package["name"].as_str().unwrap();
        let Some(own) = rank(name) else {
            wrong.push(format!(
                "{name} is not in RANKS: give it its place in the graph"
            ));
            continue;
        };
        for dependency in package["dependencies"].as_array().unwrap() {
            let on = dependency["name"].as_str().unwrap();
            if !on.starts_with("knoblab") {
                continue;
            }
            match rank(on) {
                Some(r) if r < own => {}
                _ => wrong.push(format!("{name} depends on {on}")),
            }
        }
    }
    wrong.sort();
    wrong
}

#[test]
fn each_crate_depends_only_on_the_crates_below_it() {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = std::process::Command::new(cargo)
        .args([
            "metadata",
            "--format-version",
            "1",
            "--no-deps",
            "--offline",
        ])
        .current_dir(root())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let metadata: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let names: BTreeSet<&str> = metadata["packages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    for crate_name in ["knoblab-core", "knoblab-app", "knoblab-cli", "knoblab-page"] {
        assert!(
            names.contains(crate_name),
            "{crate_name} missing from {names:?}"
        );
    }
    let wrong = upward(&metadata);
    assert!(
        wrong.is_empty(),
        "dependencies that run up the layers (docs/architecture.md):\n{}",
        wrong.join("\n")
    );
}

/// The checks find what they are for: a planted circle across a folder
/// and one round a `use` group; a core crate depending on the app, a face
/// depending on a face, and a crate of no rank.
#[test]
fn the_checks_find_a_planted_circle_and_an_upward_dependency() {
    let dir = std::env::temp_dir().join(format!("knoblab-layers-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let write = |path: &str, text: &str| {
        let path = dir.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    write("lib.rs", "pub mod a;\npub mod b;\npub mod ui;\n");
    write("a/mod.rs", "pub mod x;\npub mod y;\n");
    // a/x -> b (a group), b -> a/y, a/y -> a/x (super): one circle of three.
    write("a/x.rs", "use crate::{b::B, ui};\n");
    write("a/y.rs", "pub struct Y(super::x::X);\n");
    write(
        "b.rs",
        "// crate::ui in a comment is no import\npub use crate::a::y::Y;\n#[cfg(test)]\nmod tests { use crate::ui::Z; }\n",
    );
    write("ui.rs", "pub struct Z;\n");
    let graph = graph(&dir);
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(circles(&graph), ["a/x <-> a/y <-> b"]);

    let metadata = serde_json::json!({"packages": [
        {"name": "knoblab-core", "dependencies": [{"name": "serde"}, {"name": "knoblab-app"}]},
        {"name": "knoblab-app", "dependencies": [{"name": "knoblab-core"}]},
        {"name": "knoblab-page", "dependencies": [{"name": "knoblab-cli"}]},
        {"name": "knoblab-extra", "dependencies": []},
    ]});
    assert_eq!(
        upward(&metadata),
        [
            "knoblab-core depends on knoblab-app",
            "knoblab-extra is not in RANKS: give it its place in the graph",
            "knoblab-page depends on knoblab-cli",
        ]
    );
}
