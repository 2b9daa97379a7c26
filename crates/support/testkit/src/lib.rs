//! Real servers for tpuc's own tests, started on loopback only: the S3-compatible store
//! (s3s-fs) that `scripts/s3-server.sh` installs from crates.io, pinned, and a server that is
//! alive but hopelessly slow ([`TrickleServer`]); [`zip::edit_records`], which alters a real
//! archive's records with consistent checksums; [`widened::widened_mlp`], a real program
//! at any size (multi-GB, zip64) written by [`archive::write_zip`]; and
//! [`attention::Attention`], attention modules as the lowering writes them at any shape.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::sync::Once;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;
use std::time::{Duration, Instant};

use tempfile::TempDir;

pub mod archive;
pub mod attention;
pub mod widened;
pub mod zip;

/// The credentials every test server accepts.
pub const ACCESS_KEY: &str = "tpuc-test";
pub const SECRET_KEY: &str = "tpuc-test-secret";

/// A loopback port that nothing listens on (it was free a moment ago).
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .expect("binds a loopback port")
        .local_addr()
        .expect("has an address")
        .port()
}

/// The real server on a free loopback port, serving a fresh directory; stopped on drop.
pub struct S3Server {
    dir: TempDir,
    pub endpoint: String,
}

impl S3Server {
    /// Installs the server once per test process (a no-op when present) and starts it.
    /// In the no-plugins tier it panics instead: the test should have been skipped with
    /// `tpuc_expect::skip_without!(S3Server)`.
    pub fn start() -> S3Server {
        assert!(
            !tpuc_expect::tier::no_plugins(),
            "this test needs the S3 test server, which the no-plugins tier does not install: \
             begin it with `tpuc_expect::skip_without!(S3Server);`"
        );
        static INSTALL: Once = Once::new();
        INSTALL.call_once(|| {
            run_script(&["install"]);
        });
        let dir = tempfile::tempdir().expect("a temporary directory");
        let dir_arg = utf8(dir.path()).to_owned();
        let endpoint = run_script(&["start", &dir_arg, &free_port().to_string()]);
        S3Server { dir, endpoint }
    }

    /// Creates a bucket and returns its `s3://` URL with `prefix`.
    pub fn bucket(&self, name: &str, prefix: &str) -> String {
        run_script(&["bucket", utf8(self.dir.path()), name]);
        format!("s3://{name}/{prefix}")
    }

    /// Where the server keeps objects as files: `<this>/<bucket>/<key>`.
    pub fn objects(&self) -> PathBuf {
        self.dir.path().join("data")
    }

    /// The environment a client process needs: credentials and region.
    pub fn client_env() -> [(&'static str, &'static str); 3] {
        [
            ("AWS_ACCESS_KEY_ID", ACCESS_KEY),
            ("AWS_SECRET_ACCESS_KEY", SECRET_KEY),
            ("AWS_REGION", "us-east-1"),
        ]
    }

    /// Kills the server abruptly (SIGKILL), as a crash or a lost machine would.
    pub fn kill(&self) {
        let pid_file = self.dir.path().join("server.pid");
        let pid = std::fs::read_to_string(&pid_file).expect("the server wrote its pid");
        let status = Command::new("kill")
            .args(["-KILL", pid.trim()])
            .status()
            .expect("kill runs");
        assert!(status.success(), "kill -KILL {pid} failed");
        std::fs::remove_file(pid_file).expect("the pid file is removable");
    }
}

impl Drop for S3Server {
    fn drop(&mut self) {
        let _ = Command::new("bash")
            .arg(script())
            .args(["stop", utf8(self.dir.path())])
            .output();
    }
}

fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../scripts/s3-server.sh")
}

fn run_script(args: &[&str]) -> String {
    let output = Command::new("bash")
        .arg(script())
        .args(args)
        .envs(S3Server::client_env())
        .output()
        .expect("bash runs");
    assert!(
        output.status.success(),
        "s3-server.sh {args:?} failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout)
        .expect("the script prints UTF-8")
        .trim()
        .to_owned()
}

fn utf8(path: &Path) -> &str {
    path.to_str().expect("temporary paths are UTF-8")
}

/// A loopback HTTP server that answers every request with the head of an 11 KiB object, then
/// trickles its body at 16 bytes every 200 ms: often enough that no idle timeout fires, far
/// too slowly to finish in reasonable time. It stops when dropped, and by itself after 60 s
/// (each answer after 30 s).
pub struct TrickleServer {
    pub endpoint: String,
    stop: Arc<AtomicBool>,
}

impl TrickleServer {
    pub const BODY_SIZE: usize = 11 * 1024;

    pub fn start() -> TrickleServer {
        let listener = TcpListener::bind("127.0.0.1:0").expect("binds a loopback port");
        listener
            .set_nonblocking(true)
            .expect("a non-blocking listener");
        let endpoint = format!("http://{}", listener.local_addr().expect("has an address"));
        let stop = Arc::new(AtomicBool::new(false));
        let stopping = Arc::clone(&stop);
        thread::spawn(move || {
            let give_up = Instant::now() + Duration::from_secs(60);
            while !stopping.load(Ordering::SeqCst) && Instant::now() < give_up {
                match listener.accept() {
                    Ok((stream, _)) => {
                        let stopping = Arc::clone(&stopping);
                        thread::spawn(move || trickle(stream, &stopping));
                    }
                    Err(_) => thread::sleep(Duration::from_millis(10)),
                }
            }
        });
        TrickleServer { endpoint, stop }
    }
}

impl Drop for TrickleServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
    }
}

fn trickle(mut stream: TcpStream, stop: &AtomicBool) {
    if stream.set_nonblocking(false).is_err() || !read_request_head(&mut stream) {
        return;
    }
    let head = format!(
        "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nETag: \"e\"\r\n\
         Last-Modified: Mon, 30 Nov 2026 00:00:00 GMT\r\n\r\n",
        TrickleServer::BODY_SIZE
    );
    if stream.write_all(head.as_bytes()).is_err() {
        return;
    }
    let give_up = Instant::now() + Duration::from_secs(30);
    let mut sent = 0;
    while sent < TrickleServer::BODY_SIZE
        && !stop.load(Ordering::SeqCst)
        && Instant::now() < give_up
    {
        if stream.write_all(&[b' '; 16]).is_err() {
            return;
        }
        sent += 16;
        thread::sleep(Duration::from_millis(200));
    }
}

/// Reads one request head (up to the blank line); false if the peer went away first.
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
