//! The layers of docs/architecture.md hold: every crate of the workspace has a row in its crate
//! table, depends (normal dependencies) only on the tpuc crates its row allows, and no driver
//! file is over 500 lines.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The workspace members' directories, from the root `Cargo.toml`.
fn members() -> Vec<String> {
    let manifest = std::fs::read_to_string(root().join("Cargo.toml")).unwrap();
    let line = manifest
        .lines()
        .find(|line| line.starts_with("members = ["))
        .expect("a members list");
    line.trim_start_matches("members = [")
        .trim_end_matches(']')
        .split(',')
        .map(|member| member.trim().trim_matches('"').to_owned())
        .collect()
}

/// A crate's name and the tpuc crates of its `[dependencies]` section.
fn dependencies(member: &str) -> (String, BTreeSet<String>) {
    let manifest = std::fs::read_to_string(root().join(member).join("Cargo.toml")).unwrap();
    let mut section = "";
    let mut name = None;
    let mut tpuc = BTreeSet::new();
    for line in manifest.lines().map(str::trim) {
        if line.starts_with('[') {
            section = line;
            continue;
        }
        let key = line.split(['=', '.', ' ']).next().unwrap_or_default();
        if section == "[package]" && key == "name" {
            name = line.split('"').nth(1).map(str::to_owned);
        }
        if section == "[dependencies]" && key.starts_with("tpuc-") {
            tpuc.insert(key.to_owned());
        }
    }
    (name.expect("a package name"), tpuc)
}

/// The crate table of docs/architecture.md: crate → (path, the crates it may use).
fn documented_layers() -> BTreeMap<String, (String, BTreeSet<String>)> {
    let doc = std::fs::read_to_string(root().join("docs/architecture.md")).unwrap();
    let unquote = |cell: &str| cell.trim().trim_matches('`').to_owned();
    doc.lines()
        .filter(|line| line.starts_with("| `tpuc-"))
        .map(|line| {
            let cells: Vec<&str> = line.split('|').collect();
            let allowed = cells[4]
                .split(',')
                .map(unquote)
                .filter(|name| !name.is_empty())
                .collect();
            let path = unquote(cells[2]).trim_end_matches('/').to_owned();
            (unquote(cells[1]), (path, allowed))
        })
        .collect()
}

#[test]
fn every_crate_uses_only_what_its_layer_allows() {
    let layers = documented_layers();
    let mut problems = Vec::new();
    for member in members() {
        let (name, used) = dependencies(&member);
        let Some((path, allowed)) = layers.get(&name) else {
            problems.push(format!(
                "{name} ({member}) has no row in docs/architecture.md"
            ));
            continue;
        };
        if *path != member {
            problems.push(format!(
                "{name} is at {member}, docs/architecture.md says {path}"
            ));
        }
        for dependency in used.difference(allowed) {
            problems.push(format!(
                "{name} depends on {dependency}, which its layer does not allow"
            ));
        }
    }
    assert!(problems.is_empty(), "{problems:#?}");
}

#[test]
fn lowering_needs_no_middle_end() {
    let (_, used) = dependencies("crates/front/lower");
    assert!(!used.contains("tpuc-passes"), "{used:?}");
    let (_, used) = dependencies("crates/store/cache");
    assert!(!used.contains("tpuc-pjrt"), "{used:?}");
}

#[test]
fn driver_files_have_one_job_each() {
    let mut dirs = vec![root().join("crates/driver/src")];
    let mut files = 0;
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
                continue;
            }
            files += 1;
            let lines = std::fs::read_to_string(&path).unwrap().lines().count();
            assert!(lines <= 500, "{} has {lines} lines", path.display());
        }
    }
    assert!(files > 30, "only {files} driver files");
}
