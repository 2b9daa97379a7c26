//! Real servers for tpuc's own tests, started on loopback only: the S3-compatible store
//! (s3s-fs) that `scripts/s3-server.sh` installs from crates.io, pinned.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Once;

use tempfile::TempDir;

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
    pub fn start() -> S3Server {
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
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/s3-server.sh")
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
