//! The shared tier's entry layout against the real S3-compatible server: what one writer
//! publishes another fetches, verified; what fails verification is rejected, never returned.

mod support;

use std::time::{Duration, Instant};

use support::{S3Server, ServerOptions, free_port, manifest_for, options_for, peak_memory};
use tpuc_cache::{Envelope, Manifest};
use tpuc_remote::{Fetched, PutOutcome, RemoteError, RemoteOptions, RemoteStore, SharedTier};

fn unsigned(manifest: &Manifest) -> Envelope {
    Envelope::new(manifest.clone())
}

fn tier(url: &str, options: &RemoteOptions) -> SharedTier {
    SharedTier::new(RemoteStore::open(url, options).unwrap())
}

/// Overwrites an object the way someone with write access to the bucket could.
fn tamper(server: &S3Server, bucket: &str, key: &str, bytes: &[u8]) {
    let path = server.objects().join(bucket).join(key);
    assert!(path.exists(), "{} is not there", path.display());
    std::fs::write(path, bytes).unwrap();
}

#[test]
fn a_published_entry_is_fetched_verified_by_another_client() {
    tpuc_expect::skip_without!(S3Server);
    let server = S3Server::start();
    let url = server.bucket("shared", "team");
    let executable = b"serialized executable".to_vec();
    let manifest = manifest_for(&executable, "cpu:1");

    let writer = tier(&url, &server.options());
    assert!(!writer.contains(&manifest.key).unwrap());
    assert_eq!(
        writer.publish(&unsigned(&manifest), &executable).unwrap(),
        PutOutcome::Created
    );
    assert_eq!(
        writer.publish(&unsigned(&manifest), &executable).unwrap(),
        PutOutcome::AlreadyExists
    );

    let reader = tier(&url, &server.options());
    assert!(reader.contains(&manifest.key).unwrap());
    match reader.fetch(&manifest.key).unwrap() {
        Fetched::Hit {
            envelope: fetched,
            payload,
        } => {
            assert_eq!(fetched.manifest, manifest);
            assert_eq!(fetched.signature, None);
            assert_eq!(&payload[..], &executable[..]);
        }
        other => panic!("expected a hit, got {other:?}"),
    }
    let absent = manifest_for(b"other", "cpu:2");
    assert!(matches!(reader.fetch(&absent.key).unwrap(), Fetched::Miss));
}

#[test]
fn tampered_entries_are_rejected() {
    tpuc_expect::skip_without!(S3Server);
    let server = S3Server::start();
    let url = server.bucket("tampered", "c");
    let shared = tier(&url, &server.options());
    let executable = b"the real executable".to_vec();
    let manifest = manifest_for(&executable, "cpu:1");
    shared.publish(&unsigned(&manifest), &executable).unwrap();
    let blob = format!("c/v1/blobs/{}", manifest.payload.sha256);
    let entry = format!("c/v1/entries/{}.json", manifest.key);

    // A different executable under the same blob name.
    tamper(&server, "tampered", &blob, b"the evil executable");
    let Fetched::Rejected { reason } = shared.fetch(&manifest.key).unwrap() else {
        panic!("a blob with the wrong digest was accepted");
    };
    assert!(reason.contains("SHA-256"), "{reason}");

    // A manifest whose key parts were edited (say, to another topology) no longer derives
    // to the key it is stored under.
    let forged = Manifest {
        key: manifest.key,
        ..manifest_for(&executable, "cpu:8")
    };
    tamper(
        &server,
        "tampered",
        &entry,
        &serde_json::to_vec(&forged).unwrap(),
    );
    let Fetched::Rejected { reason } = shared.fetch(&manifest.key).unwrap() else {
        panic!("a forged manifest was accepted");
    };
    assert!(reason.contains("does not belong"), "{reason}");

    tamper(&server, "tampered", &entry, b"{ not json");
    assert!(matches!(
        shared.fetch(&manifest.key).unwrap(),
        Fetched::Rejected { .. }
    ));
}

/// Publishes an entry with an 8.6 KB executable to a fresh bucket, replaces one of its objects
/// (`object` names it under the prefix `c/`) by a sparse file of `size` bytes, large on the
/// wire but free on disk, then fetches the entry: it must be rejected for its size, within a
/// few seconds, without the peak memory of the process growing by anything like `size`.
fn assert_inflated_entry_is_rejected(object: fn(&Manifest) -> String, size: u64) {
    let server = S3Server::start();
    let shared = tier(&server.bucket("inflated", "c"), &server.options());
    let executable = vec![9u8; 8600];
    let manifest = manifest_for(&executable, "cpu:1");
    shared.publish(&unsigned(&manifest), &executable).unwrap();
    let path = server.objects().join("inflated/c").join(object(&manifest));
    assert!(path.exists(), "{} is not there", path.display());
    std::fs::File::create(path).unwrap().set_len(size).unwrap();

    let before = peak_memory();
    let started = Instant::now();
    let fetched = shared.fetch(&manifest.key).unwrap();
    let elapsed = started.elapsed();
    if let (Some(before), Some(after)) = (before, peak_memory()) {
        let grown = after.saturating_sub(before);
        assert!(
            grown < 64 * 1024 * 1024,
            "peak memory grew by {grown} bytes"
        );
    }
    assert!(elapsed < Duration::from_secs(3), "{elapsed:?}");
    let Fetched::Rejected { reason } = fetched else {
        panic!("an oversized object was accepted: {fetched:?}");
    };
    assert!(reason.contains("larger than"), "{reason}");
}

#[test]
fn an_oversized_blob_is_rejected_before_it_is_read() {
    tpuc_expect::skip_without!(S3Server);
    assert_inflated_entry_is_rejected(
        |manifest| format!("v1/blobs/{}", manifest.payload.sha256),
        1 << 30,
    );
}

#[test]
fn an_oversized_manifest_is_rejected_before_it_is_read() {
    tpuc_expect::skip_without!(S3Server);
    assert_inflated_entry_is_rejected(
        |manifest| format!("v1/entries/{}.json", manifest.key),
        512 << 20,
    );
}

#[test]
fn a_read_only_tier_reads_but_never_writes() {
    tpuc_expect::skip_without!(S3Server);
    let server = S3Server::start();
    let url = server.bucket("readonly", "");
    let executable = b"exe".to_vec();
    let manifest = manifest_for(&executable, "cpu:1");
    tier(&url, &server.options())
        .publish(&unsigned(&manifest), &executable)
        .unwrap();

    let options = RemoteOptions {
        read_only: true,
        ..server.options()
    };
    let untrusted = tier(&url, &options);
    assert!(matches!(
        untrusted.fetch(&manifest.key).unwrap(),
        Fetched::Hit { .. }
    ));
    let other = manifest_for(b"exe 2", "cpu:2");
    assert!(matches!(
        untrusted.publish(&unsigned(&other), b"exe 2"),
        Err(RemoteError::ReadOnly { .. })
    ));
    assert!(!untrusted.contains(&other.key).unwrap());
}

#[test]
fn after_a_network_fault_the_tier_rests_instead_of_waiting_again() {
    let dead = format!("http://127.0.0.1:{}", free_port());
    let shared = SharedTier::with_cooldown(
        RemoteStore::open("s3://nobody/x", &options_for(&dead)).unwrap(),
        Duration::from_secs(60),
    );
    let key = manifest_for(b"x", "cpu:1").key;
    let first = shared.fetch(&key).unwrap_err();
    assert!(
        matches!(first, RemoteError::Unavailable { .. }),
        "{first:?}"
    );
    let started = std::time::Instant::now();
    for _ in 0..10 {
        let error = shared.contains(&key).unwrap_err();
        assert!(matches!(error, RemoteError::Resting { .. }), "{error:?}");
        assert!(error.is_network_fault());
    }
    assert!(started.elapsed() < Duration::from_secs(1));
}
