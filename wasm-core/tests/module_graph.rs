//! The core's top-level modules depend on each other without a circle: a module that needs
//! another's types imports them, and nothing imports back (the house rule the leaf modules —
//! `record`, `locate`, `platform`, `text` — exist for). Read from the source files, test code
//! excluded, so a new `crate::x` path that closes a circle fails here, naming it.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// The `.rs` files of a module (its file and its folder), without test files.
fn files_of(src: &Path, module: &str) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let file = src.join(format!("{module}.rs"));
    if file.is_file() {
        out.push(file);
    }
    let mut dirs = vec![src.join(module)];
    while let Some(dir) = dirs.pop() {
        let Ok(entries) = fs::read_dir(&dir) else { continue };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                if path.file_name().is_some_and(|n| n != "tests") {
                    dirs.push(path);
                }
            } else if path.extension().is_some_and(|e| e == "rs")
                && !path.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.contains("tests"))
            {
                out.push(path);
            }
        }
    }
    out
}

/// The names after each `crate::` in `text` (`crate::agent::X`, `crate::{agent, text}`).
fn crate_paths(text: &str) -> BTreeSet<String> {
    let ident = |s: &str| -> String {
        s.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect()
    };
    let mut out = BTreeSet::new();
    for rest in text.split("crate::").skip(1) {
        if let Some(group) = rest.strip_prefix('{') {
            let inner = group.split('}').next().unwrap_or_default();
            for part in inner.split(',') {
                out.insert(ident(part.trim()));
            }
        } else {
            out.insert(ident(rest));
        }
    }
    out
}

#[test]
fn the_core_s_modules_form_no_circle() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let modules: BTreeSet<String> = fs::read_dir(&src)
        .expect("src")
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().into_string().ok()?;
            let module = name.strip_suffix(".rs").map(str::to_owned).unwrap_or(name);
            (module != "lib").then_some(module)
        })
        .collect();
    let mut edges: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for module in &modules {
        let mut deps = BTreeSet::new();
        for file in files_of(&src, module) {
            let text = fs::read_to_string(&file).expect("a source file");
            // An inline test module at the end of a file is test code.
            let text = text.split("#[cfg(test)]\nmod tests {").next().unwrap_or_default();
            for dep in crate_paths(text) {
                if let Some(known) = modules.get(&dep)
                    && known != module
                {
                    deps.insert(known.as_str());
                }
            }
        }
        edges.insert(module.as_str(), deps);
    }
    let reaches = |from: &str, to: &str| {
        let mut seen = BTreeSet::new();
        let mut next = vec![from];
        while let Some(m) = next.pop() {
            for d in edges.get(m).into_iter().flatten() {
                if *d == to {
                    return true;
                }
                if seen.insert(*d) {
                    next.push(d);
                }
            }
        }
        false
    };
    let circles: BTreeSet<String> = edges
        .iter()
        .flat_map(|(m, deps)| deps.iter().map(move |d| (*m, *d)))
        .filter(|(m, d)| reaches(d, m))
        .map(|(m, d)| if m < d { format!("{m} ↔ {d}") } else { format!("{d} ↔ {m}") })
        .collect();
    assert!(circles.is_empty(), "modules that import each other: {circles:?}\n{edges:#?}");
    // The leaves stay leaves.
    for leaf in ["platform", "text", "safety"] {
        assert!(edges[leaf].is_empty(), "{leaf} imports {:?}", edges[leaf]);
    }
}
