//! Network faults end in a bounded time with an error the caller can degrade on, never a hang.

mod support;

use std::thread;
use std::time::{Duration, Instant};

use support::{
    FakeServer, S3Server, ServerOptions, TrickleServer, free_port, options_for, test_limits,
};
use tpuc_remote::{Bytes, Limits, PutOutcome, RemoteError, RemoteOptions, RemoteStore};

/// The size bound of the reads below: more than the fake servers declare.
const BOUND: u64 = 1 << 20;

/// Retries, backoff and the deadline: nothing may take longer than this.
fn bound() -> Duration {
    test_limits().deadline_for(BOUND) + Duration::from_secs(2)
}

fn timed<T>(operation: impl FnOnce() -> T) -> (T, Duration) {
    let start = Instant::now();
    let value = operation();
    (value, start.elapsed())
}

fn assert_network_fault(error: &RemoteError) {
    assert!(
        error.is_network_fault(),
        "expected a network fault, got {error:?}"
    );
}

#[test]
fn nothing_listening_fails_fast() {
    let endpoint = format!("http://127.0.0.1:{}", free_port());
    let store = RemoteStore::open("s3://cache/p", &options_for(&endpoint)).unwrap();
    let (result, elapsed) = timed(|| store.get("k", BOUND));
    assert_network_fault(&result.unwrap_err());
    assert!(elapsed < Duration::from_secs(5), "{elapsed:?}");
    let put = store.put_if_absent("k", Bytes::from_static(b"x"));
    assert_network_fault(&put.unwrap_err());
    assert_network_fault(&store.check().unwrap_err());
}

#[test]
fn a_server_that_never_answers_times_out_after_bounded_retries() {
    let server = FakeServer::spawn(support::silent);
    let store = RemoteStore::open("s3://cache/p", &options_for(&server.endpoint)).unwrap();
    let (result, elapsed) = timed(|| store.get("k", BOUND));
    assert_network_fault(&result.unwrap_err());
    assert!(elapsed < bound(), "{elapsed:?}");
    let attempts = server.connections();
    assert!(
        (1..=test_limits().retries + 1).contains(&attempts),
        "{attempts} connections"
    );
}

#[test]
fn server_errors_are_retried_a_bounded_number_of_times() {
    let server = FakeServer::spawn(support::unavailable);
    let store = RemoteStore::open("s3://cache/p", &options_for(&server.endpoint)).unwrap();
    let (result, elapsed) = timed(|| store.head("k"));
    let error = result.unwrap_err();
    assert_network_fault(&error);
    assert!(elapsed < bound(), "{elapsed:?}");
    assert_eq!(server.connections(), test_limits().retries + 1);
    let rendered = format!("{:?}", miette::Report::new(error));
    assert!(rendered.contains("local cache keeps working"), "{rendered}");
}

#[test]
fn a_trickling_server_fails_within_the_deadline() {
    let server = TrickleServer::start();
    let limits = Limits {
        overall: Duration::from_secs(2),
        ..test_limits()
    };
    let options = RemoteOptions {
        limits,
        ..options_for(&server.endpoint)
    };
    let store = RemoteStore::open("s3://cache/p", &options).unwrap();
    let (result, elapsed) = timed(|| store.get("k", TrickleServer::BODY_SIZE as u64));
    let error = result.unwrap_err();
    assert!(
        matches!(error, RemoteError::TimedOut { .. }),
        "expected a timeout, got {error:?}"
    );
    assert_network_fault(&error);
    assert!(elapsed < Duration::from_secs(3), "{elapsed:?}");
}

#[test]
fn a_slow_transfer_that_never_stalls_completes_within_its_deadline() {
    // 5 s of steady bytes: longer than any fixed per-request cap short of the deadline would
    // allow (the test limits give each operation 10 s), shorter than the deadline.
    let server = FakeServer::spawn(support::steady);
    let store = RemoteStore::open("s3://cache/p", &options_for(&server.endpoint)).unwrap();
    let (result, elapsed) = timed(|| store.get("k", support::STEADY_SIZE as u64));
    let body = result.unwrap().expect("the object");
    assert_eq!(body.len(), support::STEADY_SIZE);
    assert!(elapsed >= Duration::from_secs(4), "{elapsed:?}");
    assert_eq!(server.connections(), 1, "never cut and retried");
}

#[test]
fn a_response_cut_short_is_an_error_not_a_truncated_entry() {
    let server = FakeServer::spawn(support::dies_mid_response);
    let store = RemoteStore::open("s3://cache/p", &options_for(&server.endpoint)).unwrap();
    let (result, elapsed) = timed(|| store.get("k", BOUND));
    assert_network_fault(&result.unwrap_err());
    assert!(elapsed < bound(), "{elapsed:?}");
}

#[test]
fn an_upload_cut_short_is_an_error() {
    let server = FakeServer::spawn(support::dies_mid_upload);
    let store = RemoteStore::open("s3://cache/p", &options_for(&server.endpoint)).unwrap();
    let payload = Bytes::from(vec![1u8; 4 * 1024 * 1024]);
    let (result, elapsed) = timed(|| store.put_if_absent("k", payload));
    assert_network_fault(&result.unwrap_err());
    assert!(elapsed < bound(), "{elapsed:?}");
}

#[test]
fn a_killed_server_degrades_every_operation_to_an_error() {
    tpuc_expect::skip_without!(S3Server);
    let server = S3Server::start();
    let store = RemoteStore::open(&server.bucket("killed", "c"), &server.options()).unwrap();
    store
        .put_if_absent("before", Bytes::from_static(b"b"))
        .unwrap();

    server.kill();
    let (get, get_time) = timed(|| store.get("before", BOUND));
    assert_network_fault(&get.unwrap_err());
    let (put, put_time) = timed(|| store.put_if_absent("after", Bytes::from_static(b"a")));
    assert_network_fault(&put.unwrap_err());
    let (list, list_time) = timed(|| store.list(""));
    assert_network_fault(&list.unwrap_err());
    for elapsed in [get_time, put_time, list_time] {
        assert!(elapsed < bound(), "{elapsed:?}");
    }
}

#[test]
fn a_server_killed_during_an_upload_ends_the_upload_in_bounded_time() {
    tpuc_expect::skip_without!(S3Server);
    let server = S3Server::start();
    let store = RemoteStore::open(&server.bucket("killed-mid", "c"), &server.options()).unwrap();
    let payload = Bytes::from(vec![3u8; 256 * 1024 * 1024]);
    let upload = thread::spawn(move || timed(|| store.put_if_absent("big", payload)));
    thread::sleep(Duration::from_millis(100));
    server.kill();
    let (result, elapsed) = upload.join().unwrap();
    // The upload may have finished before the kill; if not, it must fail as a network fault.
    match result {
        Ok(outcome) => assert_eq!(outcome, PutOutcome::Created),
        Err(error) => assert_network_fault(&error),
    }
    assert!(elapsed < bound(), "{elapsed:?}");
}
