//! The remote tier against a real S3-compatible server on loopback.

mod support;

use std::sync::Arc;
use std::thread;

use sha2::{Digest, Sha256};
use support::{ANY_SIZE, S3Server, ServerOptions};
use tpuc_remote::{Bytes, Credentials, PutOutcome, RemoteError, RemoteObject, RemoteStore};

fn sha256(bytes: &[u8]) -> [u8; 32] {
    Sha256::digest(bytes).into()
}

#[test]
fn an_entry_is_created_once_and_never_overwritten() {
    tpuc_expect::skip_without!(S3Server);
    let server = S3Server::start();
    let store =
        RemoteStore::open(&server.bucket("create-once", "cache"), &server.options()).unwrap();

    let first = Bytes::from_static(b"executable built first");
    assert_eq!(
        store
            .put_if_absent("entries/ab/key", first.clone())
            .unwrap(),
        PutOutcome::Created
    );
    assert_eq!(
        store
            .put_if_absent("entries/ab/key", Bytes::from_static(b"a different payload"))
            .unwrap(),
        PutOutcome::AlreadyExists
    );
    assert_eq!(
        store.get("entries/ab/key", ANY_SIZE).unwrap(),
        Some(first.clone())
    );
    assert_eq!(
        store.head("entries/ab/key").unwrap(),
        Some(RemoteObject {
            key: "entries/ab/key".to_owned(),
            size: first.len() as u64
        })
    );
}

#[test]
fn absent_keys_read_as_none() {
    tpuc_expect::skip_without!(S3Server);
    let server = S3Server::start();
    let store = RemoteStore::open(&server.bucket("absent", "p"), &server.options()).unwrap();
    assert_eq!(store.get("entries/none", ANY_SIZE).unwrap(), None);
    assert_eq!(store.head("entries/none").unwrap(), None);
    assert_eq!(
        store
            .get_verified("entries/none", &[0; 32], ANY_SIZE)
            .unwrap(),
        None
    );
    assert_eq!(store.list("").unwrap(), vec![]);
}

#[test]
fn two_stores_on_one_bucket_share_entries_under_the_same_prefix_only() {
    tpuc_expect::skip_without!(S3Server);
    let server = S3Server::start();
    let url = server.bucket("shared", "team/v1");
    let writer = RemoteStore::open(&url, &server.options()).unwrap();
    let reader = RemoteStore::open(&url, &server.options()).unwrap();
    let other_prefix = RemoteStore::open("s3://shared/team/v2", &server.options()).unwrap();

    writer
        .put_if_absent("k/1", Bytes::from_static(b"one"))
        .unwrap();
    assert_eq!(
        reader.get("k/1", ANY_SIZE).unwrap().as_deref(),
        Some(&b"one"[..])
    );
    assert_eq!(other_prefix.get("k/1", ANY_SIZE).unwrap(), None);
}

#[test]
fn list_returns_sorted_keys_relative_to_the_prefix() {
    tpuc_expect::skip_without!(S3Server);
    let server = S3Server::start();
    let store = RemoteStore::open(&server.bucket("listing", "cache"), &server.options()).unwrap();
    let outside = RemoteStore::open("s3://listing/elsewhere", &server.options()).unwrap();
    outside
        .put_if_absent("entries/zz", Bytes::from_static(b"x"))
        .unwrap();
    for (key, bytes) in [
        ("entries/b/2", &b"22"[..]),
        ("entries/a/1", b"1"),
        ("manifests/m", b"mmm"),
    ] {
        store
            .put_if_absent(key, Bytes::copy_from_slice(bytes))
            .unwrap();
    }
    let object = |key: &str, size| RemoteObject {
        key: key.to_owned(),
        size,
    };
    assert_eq!(
        store.list("").unwrap(),
        vec![
            object("entries/a/1", 1),
            object("entries/b/2", 2),
            object("manifests/m", 3)
        ]
    );
    assert_eq!(
        store.list("entries").unwrap(),
        vec![object("entries/a/1", 1), object("entries/b/2", 2)]
    );
}

#[test]
fn verified_reads_refuse_a_digest_mismatch() {
    tpuc_expect::skip_without!(S3Server);
    let server = S3Server::start();
    let store = RemoteStore::open(&server.bucket("verify", "c"), &server.options()).unwrap();
    let payload = b"payload whose digest the cache knows";
    store
        .put_if_absent("e", Bytes::from_static(payload))
        .unwrap();

    let good = store.get_verified("e", &sha256(payload), ANY_SIZE).unwrap();
    assert_eq!(good.as_deref(), Some(&payload[..]));

    let error = store
        .get_verified("e", &sha256(b"what the key promised"), ANY_SIZE)
        .unwrap_err();
    match &error {
        RemoteError::DigestMismatch {
            key,
            expected,
            actual,
            ..
        } => {
            assert_eq!(key, "e");
            assert_eq!(actual.len(), 64);
            assert_ne!(expected, actual);
        }
        other => panic!("expected a digest mismatch, got {other:?}"),
    }
    assert!(!error.is_network_fault());
}

#[test]
fn read_only_stores_read_but_refuse_writes() {
    tpuc_expect::skip_without!(S3Server);
    let server = S3Server::start();
    let url = server.bucket("read-only", "c");
    let writer = RemoteStore::open(&url, &server.options()).unwrap();
    writer
        .put_if_absent("present", Bytes::from_static(b"p"))
        .unwrap();

    let mut options = server.options();
    options.read_only = true;
    let reader = RemoteStore::open(&url, &options).unwrap();
    assert!(reader.is_read_only());
    assert_eq!(
        reader.get("present", ANY_SIZE).unwrap().as_deref(),
        Some(&b"p"[..])
    );
    let error = reader
        .put_if_absent("new", Bytes::from_static(b"n"))
        .unwrap_err();
    assert!(
        matches!(&error, RemoteError::ReadOnly { key, .. } if key == "new"),
        "{error:?}"
    );
    assert_eq!(writer.head("new").unwrap(), None);
}

#[test]
fn concurrent_creators_of_one_key_all_succeed_and_agree() {
    tpuc_expect::skip_without!(S3Server);
    let server = S3Server::start();
    let url = server.bucket("race", "c");
    let shared = Arc::new(RemoteStore::open(&url, &server.options()).unwrap());
    let payload = Bytes::from(vec![42u8; 256 * 1024]);

    let workers: Vec<_> = (0..8)
        .map(|i| {
            // Half share one handle, half open their own, as separate machines would.
            let store = if i % 2 == 0 {
                Arc::clone(&shared)
            } else {
                Arc::new(RemoteStore::open(&url, &server.options()).unwrap())
            };
            let payload = payload.clone();
            thread::spawn(move || store.put_if_absent("entries/same", payload).unwrap())
        })
        .collect();
    let outcomes: Vec<PutOutcome> = workers.into_iter().map(|w| w.join().unwrap()).collect();

    assert!(outcomes.contains(&PutOutcome::Created), "{outcomes:?}");
    assert_eq!(
        shared
            .get_verified("entries/same", &sha256(&payload), ANY_SIZE)
            .unwrap(),
        Some(payload)
    );
    assert_eq!(
        shared
            .put_if_absent("entries/same", Bytes::from_static(b"late"))
            .unwrap(),
        PutOutcome::AlreadyExists
    );
}

#[test]
fn a_read_is_refused_past_its_bound_and_within_its_bound_is_whole() {
    tpuc_expect::skip_without!(S3Server);
    let server = S3Server::start();
    let store = RemoteStore::open(&server.bucket("bounded", "c"), &server.options()).unwrap();
    let payload = Bytes::from(vec![5u8; 64 * 1024]);
    store.put_if_absent("obj", payload.clone()).unwrap();
    let exact = store.get_verified("obj", &sha256(&payload), 64 * 1024);
    assert_eq!(exact.unwrap().as_deref(), Some(&payload[..]));
    match store.get("obj", 64 * 1024 - 1) {
        Err(RemoteError::TooLarge {
            limit, received, ..
        }) => {
            assert_eq!(limit, 64 * 1024 - 1);
            assert!(received < limit, "{received} bytes read");
        }
        Ok(read) => panic!("expected TooLarge, read {:?} bytes", read.map(|b| b.len())),
        Err(other) => panic!("expected TooLarge, got {other:?}"),
    }
}

#[test]
fn large_entries_round_trip() {
    tpuc_expect::skip_without!(S3Server);
    let server = S3Server::start();
    let store = RemoteStore::open(&server.bucket("large", "c"), &server.options()).unwrap();
    let payload: Bytes = (0..32 * 1024 * 1024u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 24) as u8)
        .collect::<Vec<u8>>()
        .into();
    assert_eq!(
        store.put_if_absent("big", payload.clone()).unwrap(),
        PutOutcome::Created
    );
    let read = store
        .get_verified("big", &sha256(&payload), ANY_SIZE)
        .unwrap()
        .unwrap();
    assert_eq!(read.len(), payload.len());
}

#[test]
fn wrong_credentials_are_denied_with_help() {
    tpuc_expect::skip_without!(S3Server);
    let server = S3Server::start();
    let url = server.bucket("denied", "c");
    let mut options = server.options();
    options.credentials = Some(Credentials {
        access_key_id: support::ACCESS_KEY.to_owned(),
        secret_access_key: "not-the-secret".to_owned(),
        session_token: None,
    });
    let store = RemoteStore::open(&url, &options).unwrap();
    let error = store
        .put_if_absent("k", Bytes::from_static(b"x"))
        .unwrap_err();
    assert!(matches!(error, RemoteError::Denied { .. }), "{error:?}");
    assert!(!error.is_network_fault());
    let rendered = format!("{:?}", miette::Report::new(error));
    assert!(rendered.contains("AWS_SECRET_ACCESS_KEY"), "{rendered}");
}

#[test]
fn malformed_keys_are_refused_before_any_request() {
    tpuc_expect::skip_without!(S3Server);
    let server = S3Server::start();
    let store = RemoteStore::open(&server.bucket("keys", "c"), &server.options()).unwrap();
    for key in ["", "/a", "a//b", "a/../b", "a/"] {
        let error = store.get(key, ANY_SIZE).unwrap_err();
        assert!(
            matches!(error, RemoteError::InvalidKey { .. }),
            "{key:?}: {error:?}"
        );
    }
}

#[test]
fn check_tells_a_missing_bucket_from_a_working_one() {
    tpuc_expect::skip_without!(S3Server);
    let server = S3Server::start();
    let present = RemoteStore::open(&server.bucket("present", "c"), &server.options()).unwrap();
    present.check().unwrap();
    let missing = RemoteStore::open("s3://missing/c", &server.options()).unwrap();
    let error = missing.check().unwrap_err();
    assert!(
        matches!(&error, RemoteError::NoSuchBucket { bucket, .. } if bucket == "missing"),
        "{error:?}"
    );
}
