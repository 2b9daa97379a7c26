//! Test servers: the real S3-compatible server started by `scripts/s3-server.sh`, and raw TCP
//! listeners that misbehave on purpose. Everything listens on 127.0.0.1 only.

#![allow(dead_code)] // each test binary uses a different part

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::Command;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Once};
use std::thread;
use std::time::{Duration, Instant};

use tempfile::TempDir;
use tpuc_remote::{Credentials, Limits, RemoteOptions};

pub const ACCESS_KEY: &str = "tpuc-test";
pub const SECRET_KEY: &str = "tpuc-test-secret";

fn script() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scripts/s3-server.sh")
}

fn run_script(args: &[&str]) -> String {
    let output = Command::new("bash")
        .arg(script())
        .args(args)
        .env("AWS_ACCESS_KEY_ID", ACCESS_KEY)
        .env("AWS_SECRET_ACCESS_KEY", SECRET_KEY)
        .output()
        .expect("bash runs");
    assert!(
        output.status.success(),
        "s3-server.sh {args:?} failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap().trim().to_owned()
}

/// A loopback port that nothing listens on (it was free a moment ago).
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Short limits, so the fault tests finish in seconds.
pub fn test_limits() -> Limits {
    Limits {
        connect: Duration::from_secs(1),
        idle: Duration::from_secs(1),
        request: Duration::from_secs(3),
        overall: Duration::from_secs(10),
        retries: 2,
        backoff: Duration::from_millis(50),
    }
}

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

/// The real server (s3s-fs) on a free loopback port, serving a fresh directory; stopped on drop.
pub struct S3Server {
    dir: TempDir,
    pub endpoint: String,
}

impl S3Server {
    pub fn start() -> S3Server {
        static INSTALL: Once = Once::new();
        INSTALL.call_once(|| {
            run_script(&["install"]);
        });
        let dir = tempfile::tempdir().unwrap();
        let dir_arg = dir.path().to_str().unwrap().to_owned();
        let endpoint = run_script(&["start", &dir_arg, &free_port().to_string()]);
        S3Server { dir, endpoint }
    }

    /// Creates a bucket and returns its `s3://` URL with `prefix`.
    pub fn bucket(&self, name: &str, prefix: &str) -> String {
        run_script(&["bucket", self.dir_arg(), name]);
        format!("s3://{name}/{prefix}")
    }

    pub fn options(&self) -> RemoteOptions {
        options_for(&self.endpoint)
    }

    /// Kills the server abruptly (SIGKILL), as a crash or a lost machine would.
    pub fn kill(&self) {
        let pid = std::fs::read_to_string(self.dir.path().join("server.pid")).unwrap();
        let status = Command::new("kill")
            .args(["-KILL", pid.trim()])
            .status()
            .unwrap();
        assert!(status.success());
        std::fs::remove_file(self.dir.path().join("server.pid")).unwrap();
    }

    fn dir_arg(&self) -> &str {
        self.dir.path().to_str().unwrap()
    }
}

impl Drop for S3Server {
    fn drop(&mut self) {
        let _ = Command::new("bash")
            .arg(script())
            .args(["stop", self.dir_arg()])
            .output();
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

/// Reads one request head (up to the blank line); returns false if the peer went away.
pub fn read_request_head(stream: &mut TcpStream) -> bool {
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        match stream.read(&mut byte) {
            Ok(1) => head.push(byte[0]),
            _ => return false,
        }
    }
    true
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
