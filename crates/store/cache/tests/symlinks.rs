//! Maintenance never follows a symbolic link out of the cache: links where the cache keeps its
//! own directories or files are removed (the links) or skipped, and what they point to survives.

mod support;

use std::fs;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use support::manifest;
use tpuc_cache::{Cache, Lookup, Mode};

/// A directory outside the cache holding files (and a subdirectory) two days old.
fn outside_with_old_files(parent: &Path, name: &str) -> (PathBuf, Vec<PathBuf>) {
    let dir = parent.join(name);
    fs::create_dir_all(dir.join("sub")).unwrap();
    let files = [dir.join("precious.txt"), dir.join("sub/nested.txt")];
    let old = SystemTime::now() - Duration::from_secs(2 * 24 * 3600);
    for file in &files {
        fs::write(file, b"not the cache's").unwrap();
        fs::File::open(file).unwrap().set_modified(old).unwrap();
    }
    for path in [dir.join("sub"), dir.clone()] {
        fs::File::open(path).unwrap().set_modified(old).unwrap();
    }
    (dir, files.to_vec())
}

fn replace_with_link(path: &Path, target: &Path) {
    if path.exists() {
        fs::remove_dir_all(path).unwrap();
    }
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    symlink(target, path).unwrap();
}

fn assert_survive(files: &[PathBuf]) {
    for file in files {
        assert_eq!(
            fs::read(file).unwrap(),
            b"not the cache's",
            "{}",
            file.display()
        );
    }
}

/// A cache with one entry (so `tmp/` exists) in `work/cache`.
fn cache_with_an_entry(work: &Path) -> (Cache, tpuc_cache::Manifest) {
    let cache = Cache::open(work.join("cache"), Mode::ReadWrite);
    let entry = manifest("m", b"an executable");
    cache.insert(&entry, b"an executable").unwrap();
    (cache, entry)
}

#[test]
fn gc_never_deletes_through_a_symlinked_tmp_or_quarantine() {
    let work = tempfile::tempdir().unwrap();
    let (cache, _) = cache_with_an_entry(work.path());
    let (tmp_target, tmp_files) = outside_with_old_files(work.path(), "tmp-target");
    let (quarantine_target, quarantine_files) =
        outside_with_old_files(work.path(), "quarantine-target");
    let tmp = cache.root().join("v1/tmp");
    let quarantine = cache.root().join("v1/quarantine");
    replace_with_link(&tmp, &tmp_target);
    replace_with_link(&quarantine, &quarantine_target);

    let report = cache.gc(u64::MAX).unwrap();
    assert_survive(&tmp_files);
    assert_survive(&quarantine_files);
    assert_eq!(
        (report.kept_entries, report.removed_debris),
        (1, 0),
        "{report:?}"
    );
    assert_eq!(report.warnings.len(), 2, "{report:?}");
    for link in [&tmp, &quarantine] {
        let shown = link.display().to_string();
        assert!(
            report.warnings.iter().any(|w| w.contains(&shown)),
            "{report:?}"
        );
        assert!(
            fs::symlink_metadata(link).is_err(),
            "the link itself is removed"
        );
    }
    // The next write and removal use a real tmp/ again.
    cache.gc(0).unwrap();
    assert!(fs::symlink_metadata(&tmp).unwrap().is_dir());
    assert_survive(&tmp_files);
}

#[test]
fn a_bad_entry_is_never_quarantined_through_a_symlink() {
    let work = tempfile::tempdir().unwrap();
    let (cache, entry) = cache_with_an_entry(work.path());
    let (target, files) = outside_with_old_files(work.path(), "quarantine-target");
    let quarantine = cache.root().join("v1/quarantine");
    replace_with_link(&quarantine, &target);
    fs::write(cache.entry_path(&entry.key).join("executable"), b"damaged").unwrap();

    let report = cache.verify().unwrap();
    assert_eq!(report.corrupt.len(), 1, "{report:?}");
    assert_eq!(report.warnings.len(), 1, "{report:?}");
    assert_eq!(
        fs::read_dir(&target).unwrap().count(),
        2,
        "nothing moved out"
    );
    assert!(fs::symlink_metadata(&quarantine).unwrap().is_dir());
    assert_eq!(fs::read_dir(&quarantine).unwrap().count(), 1);
    assert_survive(&files);
}

#[test]
fn symlinked_entries_and_shards_are_neither_followed_nor_their_targets_deleted() {
    let work = tempfile::tempdir().unwrap();
    let (cache, entry) = cache_with_an_entry(work.path());
    let real = cache.entry_path(&entry.key);
    // An entry directory elsewhere, linked in as a second entry and as a whole shard.
    let (elsewhere, files) = outside_with_old_files(work.path(), "elsewhere");
    for file in fs::read_dir(&real).unwrap() {
        let file = file.unwrap().path();
        fs::copy(&file, elsewhere.join(file.file_name().unwrap())).unwrap();
    }
    let (shard_target, shard_files) = outside_with_old_files(work.path(), "shard");
    let other = manifest("another module", b"an executable");
    replace_with_link(&cache.entry_path(&other.key), &elsewhere);
    replace_with_link(&cache.root().join("v1/entries/zz"), &shard_target);

    let listing = cache.list().unwrap();
    assert_eq!(listing.entries.len(), 1, "{listing:?}");
    assert_eq!(listing.warnings.len(), 2, "{listing:?}");
    let stats = cache.stats().unwrap();
    assert_eq!((stats.entries, stats.warnings.len()), (1, 2), "{stats:?}");
    let read_only = Cache::open(cache.root(), Mode::ReadOnly);
    let verified = read_only.verify().unwrap();
    assert_eq!(
        (verified.ok, verified.warnings.len()),
        (1, 2),
        "{verified:?}"
    );
    assert!(
        fs::symlink_metadata(cache.entry_path(&other.key)).is_ok(),
        "read-only keeps links"
    );

    let report = cache.gc(0).unwrap();
    assert_eq!(report.removed_entries, 1, "{report:?}");
    assert_eq!(report.warnings.len(), 2, "{report:?}");
    assert_survive(&files);
    assert_survive(&shard_files);
    assert!(elsewhere.join("executable").exists() && elsewhere.join("manifest.json").exists());
}

#[test]
fn a_symlinked_file_in_an_entry_makes_it_corrupt_and_its_target_survives() {
    let work = tempfile::tempdir().unwrap();
    let (cache, entry) = cache_with_an_entry(work.path());
    let payload = cache.entry_path(&entry.key).join("executable");
    let outside = work.path().join("executable-elsewhere");
    fs::rename(&payload, &outside).unwrap();
    symlink(&outside, &payload).unwrap();

    let read_only = Cache::open(cache.root(), Mode::ReadOnly);
    let Lookup::Corrupt { reason, .. } = read_only.lookup(&entry.key).unwrap() else {
        panic!("a linked payload is not trusted");
    };
    assert!(reason.contains("symbolic link"), "{reason}");
    assert_eq!(cache.verify().unwrap().corrupt.len(), 1);
    cache.gc(0).unwrap();
    assert_eq!(fs::read(&outside).unwrap(), b"an executable");
}

#[test]
fn gc_deletes_stale_temporaries_but_not_writes_in_progress() {
    let work = tempfile::tempdir().unwrap();
    let (cache, _) = cache_with_an_entry(work.path());
    let tmp = cache.root().join("v1/tmp");
    let (fresh, stale) = (tmp.join("fresh"), tmp.join("stale"));
    fs::write(&fresh, b"being written").unwrap();
    fs::write(&stale, b"left by a dead writer").unwrap();
    let old = SystemTime::now() - Duration::from_secs(2 * 3600);
    fs::File::open(&stale).unwrap().set_modified(old).unwrap();

    let report = cache.gc(u64::MAX).unwrap();
    assert_eq!(report.removed_debris, 1, "{report:?}");
    assert!(fresh.exists() && !stale.exists());
}
