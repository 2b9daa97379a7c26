//! Test servers: the real S3-compatible server of `tpuc-testkit`, and raw TCP listeners that
//! misbehave on purpose. Everything listens on 127.0.0.1 only.

#![allow(dead_code, unused_imports)] // each test binary uses a different part

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::thread;
use std::time::{Duration, Instant};

use std::collections::BTreeMap;

use tpuc_cache::{
    Digest, KeyParts, MANIFEST_FORMAT, Manifest, Payload, PluginInfo, Signature, TargetId, sha256,
};
use tpuc_remote::{Credentials, Limits, RemoteOptions};

/// Short limits, so the fault tests finish in seconds.
pub fn test_limits() -> Limits {
    Limits {
        connect: Duration::from_secs(1),
        idle: Duration::from_secs(1),
        overall: Duration::from_secs(10),
        min_rate: 1024 * 1024,
        retries: 2,
        backoff: Duration::from_millis(50),
    }
}

/// A manifest of `executable` for an XLA:CPU target of `topology`; each topology is a key.
pub fn manifest_for(executable: &[u8], topology: &str) -> Manifest {
    let parts = KeyParts {
        module_sha256: sha256(b"module text"),
        compile_options: "0a00".to_owned(),
        target: TargetId {
            platform: "cpu".to_owned(),
            platform_version: "test".to_owned(),
            pjrt_api_version: "0.1".to_owned(),
            plugin_sha256: Digest([7; 32]),
            topology: topology.to_owned(),
        },
        tpuc_version: tpuc_cache::TPUC_VERSION.to_owned(),
        env: BTreeMap::new(),
    };
    Manifest {
        format: MANIFEST_FORMAT.to_owned(),
        key: parts.key(),
        key_parts: parts,
        target: "cpu".to_owned(),
        model: None,
        plugin: PluginInfo {
            file: "plugin.so".to_owned(),
            attributes: BTreeMap::new(),
        },
        payload: Payload::of(executable),
        signature: Signature::default(),
        dims: BTreeMap::new(),
        compile_seconds: 1.5,
        created_unix: 0,
        report: Default::default(),
    }
}

/// A size bound for reads in tests that are not about size.
pub const ANY_SIZE: u64 = 1 << 30;

pub fn options_for(endpoint: &str) -> RemoteOptions {
    RemoteOptions {
        endpoint: Some(endpoint.to_owned()),
        region: Some("us-east-1".to_owned()),
        credentials: Some(Credentials {
            access_key_id: ACCESS_KEY.to_owned(),
            secret_access_key: SECRET_KEY.to_owned(),
            session_token: None,
        }),
        read_only: false,
        limits: test_limits(),
    }
}

/// The peak resident memory of this process so far (`VmHWM`), in bytes; `None` where
/// `/proc/self/status` does not exist.
pub fn peak_memory() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|line| line.starts_with("VmHWM:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

pub use tpuc_testkit::{
    ACCESS_KEY, S3Server, SECRET_KEY, TrickleServer, free_port, read_request_head,
};

pub trait ServerOptions {
    fn options(&self) -> RemoteOptions;
}

impl ServerOptions for S3Server {
    fn options(&self) -> RemoteOptions {
        options_for(&self.endpoint)
    }
}

/// A raw TCP listener on 127.0.0.1 that hands every connection to `behaviour`; it counts
/// connections, and stops accepting when dropped or after a minute, whichever comes first.
pub struct FakeServer {
    pub endpoint: String,
    connections: Arc<AtomicUsize>,
    stop: Arc<AtomicBool>,
}

impl FakeServer {
    pub fn spawn(behaviour: fn(TcpStream, &AtomicBool)) -> FakeServer {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let endpoint = format!("http://{}", listener.local_addr().unwrap());
        let connections = Arc::new(AtomicUsize::new(0));
        let stop = Arc::new(AtomicBool::new(false));
        let (count, stopping) = (Arc::clone(&connections), Arc::clone(&stop));
        thread::spawn(move || {
            let deadline = Instant::now() + Duration::from_secs(60);
            while !stopping.load(Ordering::SeqCst) && Instant::now() < deadline {
                match listener.accept() {
                    Ok((stream, _)) => {
                        count.fetch_add(1, Ordering::SeqCst);
                        stream.set_nonblocking(false).unwrap();
                        let stopping = Arc::clone(&stopping);
                        thread::spawn(move || behaviour(stream, &stopping));
                    }
                    Err(_) => thread::sleep(Duration::from_millis(10)),
                }
            }
        });
        FakeServer {
            endpoint,
            connections,
            stop,
        }
    }

    pub fn connections(&self) -> usize {
        self.connections.load(Ordering::SeqCst)
    }
}

impl Drop for FakeServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
    }
}

/// Accepts and then says nothing until the test ends.
pub fn silent(stream: TcpStream, stop: &AtomicBool) {
    while !stop.load(Ordering::SeqCst) {
        thread::sleep(Duration::from_millis(20));
    }
    drop(stream);
}

/// Answers every request with 503 and closes.
pub fn unavailable(mut stream: TcpStream, _: &AtomicBool) {
    if read_request_head(&mut stream) {
        let _ = stream.write_all(
            b"HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
        );
    }
}

/// Starts a 1 MB answer, sends 100 bytes of it and dies.
pub fn dies_mid_response(mut stream: TcpStream, _: &AtomicBool) {
    if read_request_head(&mut stream) {
        let _ = stream.write_all(
            b"HTTP/1.1 200 OK\r\nContent-Length: 1000000\r\nETag: \"e\"\r\n\
              Last-Modified: Mon, 30 Nov 2026 00:00:00 GMT\r\n\r\n",
        );
        let _ = stream.write_all(&[7u8; 100]);
    }
}

/// Reads the request head and a little of the body, then dies.
pub fn dies_mid_upload(mut stream: TcpStream, _: &AtomicBool) {
    if read_request_head(&mut stream) {
        let mut some = [0u8; 1024];
        let _ = stream.read(&mut some);
    }
}

/// The size of [`steady`]'s object: 100 bytes every 100 ms for 5 s.
pub const STEADY_SIZE: usize = 5000;

/// Answers with a [`STEADY_SIZE`]-byte object sent steadily in small pieces: a transfer that
/// takes 5 s but never stalls (as a large executable on a slow link does).
pub fn steady(mut stream: TcpStream, stop: &AtomicBool) {
    if !read_request_head(&mut stream) {
        return;
    }
    let head = format!(
        "HTTP/1.1 200 OK\r\nContent-Length: {STEADY_SIZE}\r\nETag: \"e\"\r\n\
         Last-Modified: Mon, 30 Nov 2026 00:00:00 GMT\r\n\r\n"
    );
    if stream.write_all(head.as_bytes()).is_err() {
        return;
    }
    for _ in 0..STEADY_SIZE / 100 {
        if stop.load(Ordering::SeqCst) || stream.write_all(&[b'x'; 100]).is_err() {
            return;
        }
        thread::sleep(Duration::from_millis(100));
    }
}
