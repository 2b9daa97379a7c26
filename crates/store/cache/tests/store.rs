//! The store through its public API: hits, first writer wins, verification, quarantine,
//! read-only use and LRU eviction.

mod support;

use std::fs;
use std::path::Path;
use std::time::{Duration, SystemTime};

use support::{hit, libtpu_report, manifest};
use tpuc_cache::{Cache, Key, Lookup, Manifest, Mode, Payload, sha256};
use tpuc_report::ExecutableReport;

#[test]
fn an_inserted_entry_is_found_and_the_first_writer_wins() {
    let dir = tempfile::tempdir().unwrap();
    let cache = Cache::open(dir.path(), Mode::ReadWrite);
    let first = manifest("m", b"first executable");
    assert!(matches!(cache.lookup(&first.key).unwrap(), Lookup::Miss));
    let stored = cache.insert(&first, b"first executable").unwrap();
    assert!(!stored.already_present);
    assert_eq!(stored.path, cache.entry_path(&first.key));
    // A second writer of the same key keeps the first entry.
    let mut second = manifest("m", b"second");
    second.payload = Payload::of(b"second");
    let again = cache.insert(&second, b"second").unwrap();
    assert!(again.already_present);
    assert_eq!(hit(&cache, &first.key), b"first executable");
    assert_eq!(fs::read_dir(dir.path().join("v1/tmp")).unwrap().count(), 0);
}

#[test]
fn the_report_comes_back_exactly_and_entries_without_one_still_read() {
    let dir = tempfile::tempdir().unwrap();
    let cache = Cache::open(dir.path(), Mode::ReadWrite);
    let entry = manifest("m", b"executable");
    cache.insert(&entry, b"executable").unwrap();
    let Lookup::Hit(found) = cache.lookup(&entry.key).unwrap() else {
        panic!("no hit");
    };
    assert_eq!(found.envelope.manifest.report, libtpu_report());

    // An entry written before manifests had a report reads as reporting nothing.
    let path = cache.entry_path(&entry.key).join("manifest.json");
    let mut json: serde_json::Value = serde_json::from_slice(&fs::read(&path).unwrap()).unwrap();
    json.as_object_mut().unwrap().remove("report").unwrap();
    let bytes = serde_json::to_vec(&json).unwrap();
    fs::write(&path, &bytes).unwrap();
    let seal = format!("{}  manifest.json\n", sha256(&bytes));
    fs::write(path.with_file_name("manifest.sha256"), seal).unwrap();
    let Lookup::Hit(found) = cache.lookup(&entry.key).unwrap() else {
        panic!("no hit");
    };
    assert_eq!(found.envelope.manifest.report, ExecutableReport::default());
}

/// Replaces `from` (which must be there) by `to` in an entry's manifest.
fn edit_manifest(entry: &Path, from: &str, to: &str) {
    let path = entry.join("manifest.json");
    let text = fs::read_to_string(&path).unwrap();
    assert!(text.contains(from), "{from}");
    fs::write(path, text.replace(from, to)).unwrap();
}

#[test]
fn corrupt_entries_are_detected_quarantined_and_then_missing() {
    type Damage = fn(&Path);
    let damages: [(&str, Damage); 8] = [
        ("bit flip in the payload", |entry| {
            let path = entry.join("executable");
            let mut bytes = fs::read(&path).unwrap();
            bytes[3] ^= 0x10;
            fs::write(path, bytes).unwrap();
        }),
        ("truncated payload", |entry| {
            let path = entry.join("executable");
            let bytes = fs::read(&path).unwrap();
            fs::write(path, &bytes[..bytes.len() - 1]).unwrap();
        }),
        ("truncated manifest", |entry| {
            let path = entry.join("manifest.json");
            let bytes = fs::read(&path).unwrap();
            fs::write(path, &bytes[..bytes.len() / 2]).unwrap();
        }),
        ("bit flip in the manifest's key parts", |entry| {
            edit_manifest(entry, "\"cpu:1\"", "\"cpu:2\"")
        }),
        ("a report that does not parse", |entry| {
            edit_manifest(entry, "\"temp_bytes\": 0,", "\"temp_bytes\": -0.5,")
        }),
        ("an entry from before seals (no manifest.sha256)", |entry| {
            fs::remove_file(entry.join("manifest.sha256")).unwrap()
        }),
        ("an edited field no other check reads", |entry| {
            edit_manifest(
                entry,
                "\"compile_seconds\": 0.5",
                "\"compile_seconds\": 0.6",
            )
        }),
        ("missing payload", |entry| {
            fs::remove_file(entry.join("executable")).unwrap()
        }),
    ];
    for (what, damage) in damages {
        let dir = tempfile::tempdir().unwrap();
        let cache = Cache::open(dir.path(), Mode::ReadWrite);
        let entry = manifest("m", b"an executable of some length");
        cache
            .insert(&entry, b"an executable of some length")
            .unwrap();
        damage(&cache.entry_path(&entry.key));

        // A read-only consumer reports it and leaves it in place.
        let reader = Cache::open(dir.path(), Mode::ReadOnly);
        assert!(
            matches!(reader.lookup(&entry.key).unwrap(), Lookup::Corrupt { .. }),
            "{what}"
        );
        assert!(cache.entry_path(&entry.key).exists(), "{what}");

        let Lookup::Corrupt { path, reason } = cache.lookup(&entry.key).unwrap() else {
            panic!("{what}: not detected");
        };
        assert!(
            path.starts_with(dir.path().join("v1/quarantine")),
            "{what}: {reason}"
        );
        assert!(
            matches!(cache.lookup(&entry.key).unwrap(), Lookup::Miss),
            "{what}"
        );
        // Recompiling stores a good entry again.
        cache
            .insert(&entry, b"an executable of some length")
            .unwrap();
        assert_eq!(
            hit(&cache, &entry.key),
            b"an executable of some length",
            "{what}"
        );
    }
}

#[test]
fn read_only_caches_are_never_written() {
    let dir = tempfile::tempdir().unwrap();
    let cache = Cache::open(dir.path(), Mode::ReadOnly);
    let entry = manifest("m", b"x");
    let error = cache.insert(&entry, b"x").unwrap_err();
    assert!(error.to_string().contains("read-only"), "{error}");
    assert!(cache.gc(0).is_err() && cache.remove(&entry.key).is_err());
    assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 0);
}

#[test]
fn an_unusable_directory_fails_with_the_path_in_the_message() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("not-a-directory");
    fs::write(&file, b"").unwrap();
    let cache = Cache::open(&file, Mode::ReadWrite);
    let entry = manifest("m", b"x");
    let error = cache.insert(&entry, b"x").unwrap_err().to_string();
    assert!(error.contains("not-a-directory"), "{error}");
    assert!(matches!(
        cache.lookup(&entry.key),
        Ok(Lookup::Miss) | Err(_)
    ));
}

#[test]
fn gc_evicts_the_least_recently_used_entries_first() {
    let dir = tempfile::tempdir().unwrap();
    let cache = Cache::open(dir.path(), Mode::ReadWrite);
    let payload = vec![7u8; 10_000];
    let entries: Vec<Manifest> = ["a", "b", "c"]
        .iter()
        .map(|m| manifest(m, &payload))
        .collect();
    let now = SystemTime::now();
    for (age, entry) in [300, 100, 200].into_iter().zip(&entries) {
        cache.insert(entry, &payload).unwrap();
        let manifest = fs::File::open(cache.entry_path(&entry.key).join("manifest.json")).unwrap();
        manifest
            .set_modified(now - Duration::from_secs(age))
            .unwrap();
    }
    // "b" is the most recently used, then "c"; a lookup makes "a" the newest.
    hit(&cache, &entries[0].key);
    let one_entry = cache.list().unwrap().entries[0].size;
    let report = cache.gc(one_entry * 2).unwrap();
    assert_eq!((report.removed_entries, report.kept_entries), (1, 2));
    let kept: Vec<Key> = cache
        .list()
        .unwrap()
        .entries
        .iter()
        .map(|e| e.key)
        .collect();
    assert_eq!(kept, [entries[0].key, entries[1].key]);
    assert_eq!(cache.verify().unwrap().ok, 2);
    cache.gc(0).unwrap();
    assert!(cache.list().unwrap().entries.is_empty());
}

#[test]
fn sizes_parse() {
    assert_eq!(tpuc_cache::parse_size("20G").unwrap(), 20 << 30);
    assert_eq!(tpuc_cache::parse_size("1.5k").unwrap(), 1536);
    assert_eq!(tpuc_cache::parse_size("100").unwrap(), 100);
    assert!(tpuc_cache::parse_size("20Q").is_err() && tpuc_cache::parse_size("-1G").is_err());
    for form in ["20G", "20GB", "20GiB", "20g", "20gib", " 20 GB "] {
        assert_eq!(tpuc_cache::parse_size(form).unwrap(), 20 << 30, "{form}");
    }
    assert_eq!(tpuc_cache::parse_size("512MB").unwrap(), 512 << 20);
    assert_eq!(tpuc_cache::parse_size("100B").unwrap(), 100);
    for bad in ["20iB", "20GBB", "20 G B", "G", ""] {
        assert!(tpuc_cache::parse_size(bad).is_err(), "{bad}");
    }
}
