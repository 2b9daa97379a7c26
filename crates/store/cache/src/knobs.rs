//! Every environment variable tpuc or its plugins read, classified as hashed into compile keys
//! or deliberately ignored. A test scans the workspace's sources and fails on a variable that
//! is not listed here; at run time, unlisted `XLA_*`, `LIBTPU_*` and `TPU_*` variables are
//! hashed too (better a miss than a stale hit) and reported.

use std::collections::BTreeMap;

/// How a knob is treated by compile keys.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Treatment {
    /// Its value (or its absence) is part of every compile key.
    Hashed,
    /// It cannot change a compiled executable, for the reason given.
    Ignored(&'static str),
}

/// One environment variable.
#[derive(Clone, Copy, Debug)]
pub struct Knob {
    pub name: &'static str,
    pub treatment: Treatment,
    /// What it does.
    pub doc: &'static str,
    /// The value tpuc itself gives it when it is unset (before loading libtpu, see
    /// `tpuc_pjrt::Plugin::load`): a hashed knob is hashed with the value the plugin sees.
    pub default: Option<&'static str>,
}

const fn hashed(name: &'static str, doc: &'static str) -> Knob {
    Knob {
        name,
        treatment: Treatment::Hashed,
        doc,
        default: None,
    }
}

const fn hashed_with_default(name: &'static str, doc: &'static str, default: &'static str) -> Knob {
    Knob {
        name,
        treatment: Treatment::Hashed,
        doc,
        default: Some(default),
    }
}

const fn ignored(name: &'static str, doc: &'static str, why: &'static str) -> Knob {
    Knob {
        name,
        treatment: Treatment::Ignored(why),
        doc,
        default: None,
    }
}

const PLUGIN_DIGEST: &str = "it only chooses the plugin file, whose SHA-256 is hashed";
const CACHE_ONLY: &str = "it only chooses where and how the cache is kept";

/// The registry, sorted by name.
pub const REGISTRY: &[Knob] = &[
    ignored(
        "ALLOW_MULTIPLE_LIBTPU_LOAD",
        "lets several processes load libtpu at once (tpuc sets it)",
        "it guards a lock file, not compilation",
    ),
    ignored(
        "AWS_ACCESS_KEY_ID",
        "credentials of the remote cache tier",
        "it only reaches the remote store",
    ),
    ignored(
        "AWS_ENDPOINT_URL",
        "the S3-compatible endpoint of the remote cache tier",
        "it only reaches the remote store",
    ),
    ignored(
        "AWS_REGION",
        "the region of the remote cache tier's bucket",
        "it only reaches the remote store",
    ),
    ignored(
        "AWS_SECRET_ACCESS_KEY",
        "credentials of the remote cache tier",
        "it only reaches the remote store",
    ),
    ignored(
        "AWS_SESSION_TOKEN",
        "temporary credentials of the remote cache tier",
        "it only reaches the remote store",
    ),
    ignored(
        "BLESS",
        "tests only: rewrite expected outputs (snapshots, file tests, generated docs) instead of comparing with them",
        "tests read it; tpuc never does",
    ),
    ignored(
        "HOME",
        "the default base of the cache and plugin directories",
        CACHE_ONLY,
    ),
    hashed(
        "LIBTPU_INIT_ARGS",
        "flags for libtpu's TPU compiler and runtime",
    ),
    ignored(
        "NO_COLOR",
        "turns off colours in diagnostics (miette reads it)",
        "it only changes how errors print",
    ),
    ignored(
        "OPINFO_GRAD_ONLY",
        "test-only: the OpInfo entries the OpInfo gradient test runs",
        "read by tests, never by tpuc",
    ),
    ignored(
        "OPINFO_ONLY",
        "test-only: the OpInfo entries the OpInfo test runs",
        "read by tests, never by tpuc",
    ),
    ignored(
        "TF_CPP_MIN_LOG_LEVEL",
        "the plugins' minimum log level (tpuc sets 3, fatal only, unless TPUC_PLUGIN_LOGS=1)",
        "it only changes what the plugins log",
    ),
    ignored(
        "TPUC_CACHE_DIR",
        "the cache directory (else $XDG_CACHE_HOME/tpuc)",
        CACHE_ONLY,
    ),
    ignored(
        "TPUC_CACHE_READ_ONLY",
        "`1`: use the cache without writing to it",
        CACHE_ONLY,
    ),
    ignored(
        "TPUC_CPU_PLUGIN",
        "path of the XLA:CPU plugin",
        PLUGIN_DIGEST,
    ),
    ignored(
        "TPUC_PLUGIN_DIR",
        "directory of the installed plugins",
        PLUGIN_DIGEST,
    ),
    ignored(
        "TPUC_PLUGIN_LOGS",
        "`1`: let the plugins log to stderr (tpuc keeps them quiet)",
        "it only changes what the plugins log",
    ),
    ignored(
        "TPUC_REMOTE",
        "the shared cache tier, s3://BUCKET/PREFIX",
        CACHE_ONLY,
    ),
    ignored(
        "TPUC_REMOTE_DEADLINE",
        "seconds before a shared-tier operation is given up as a fault",
        CACHE_ONLY,
    ),
    ignored(
        "TPUC_REMOTE_ENDPOINT",
        "the S3-compatible endpoint of the shared cache tier",
        CACHE_ONLY,
    ),
    ignored(
        "TPUC_REMOTE_READ_ONLY",
        "read the shared cache tier without writing to it",
        CACHE_ONLY,
    ),
    ignored(
        "TPUC_SIGN_KEY",
        "the secret key file that signs the entries compiled here",
        "a signature is stored next to an entry, never part of what it is compiled from",
    ),
    ignored(
        "TPUC_SKIP_LOG",
        "test-only: the file the no-plugins tier appends the skipped tests to",
        "read by tests, never by tpuc",
    ),
    ignored(
        "TPUC_TEST_PAUSE_BEFORE_COMMIT",
        "test-only, debug builds: hold a staged cache entry this many milliseconds",
        "it delays a write, never changes one",
    ),
    ignored(
        "TPUC_TEST_TIER",
        "test-only: `no-plugins` skips (and lists) the tests that need a plugin or the S3 test server",
        "read by tests, never by tpuc",
    ),
    ignored(
        "TPUC_TRUST_KEYS",
        "public key files: accept only shared entries signed by one of them",
        "it decides which entries are used, never what an entry holds",
    ),
    hashed_with_default(
        "TPU_ACCELERATOR_TYPE",
        "the accelerator libtpu assumes it runs on",
        "v5litepod-4",
    ),
    ignored("TPU_LIBRARY_PATH", "path of libtpu", PLUGIN_DIGEST),
    ignored(
        "TPU_PREMAPPED_BUFFER_SIZE",
        "size of libtpu's pinned host buffer (libtpu sets it when it loads)",
        "it sizes a run-time buffer; compile-only use never allocates it",
    ),
    ignored(
        "TPU_SKIP_MDS_QUERY",
        "stops libtpu querying the cloud metadata server (tpuc sets it)",
        "the topology is named explicitly at compile time",
    ),
    ignored(
        "TPU_WORKER_HOSTNAMES",
        "the hosts of a multi-host slice (tpuc sets localhost)",
        "compile-only use needs no other host",
    ),
    ignored(
        "TPU_WORKER_ID",
        "this host's index in a multi-host slice (libtpu sets it when it loads)",
        "compile-only use runs on one host",
    ),
    ignored(
        "XDG_CACHE_HOME",
        "the base of the default cache directory",
        CACHE_ONLY,
    ),
    ignored(
        "XDG_DATA_HOME",
        "the base of the default plugin directory",
        PLUGIN_DIGEST,
    ),
    hashed(
        "XLA_FLAGS",
        "flags for XLA's compiler passes (both plugins)",
    ),
];

/// Prefixes of variables that XLA or libtpu may read: unknown ones are hashed and reported.
pub const WATCHED_PREFIXES: &[&str] = &["XLA_", "LIBTPU_", "TPU_"];

/// The registry entry of `name`.
pub fn find(name: &str) -> Option<&'static Knob> {
    REGISTRY.iter().find(|knob| knob.name == name)
}

/// The hashed knobs' values in `environment`, plus any unregistered variable with a watched
/// prefix; and the names of those unregistered ones, to warn about.
pub fn snapshot<I>(environment: I) -> (BTreeMap<String, Option<String>>, Vec<String>)
where
    I: IntoIterator<Item = (String, String)>,
{
    let mut values: BTreeMap<String, Option<String>> = REGISTRY
        .iter()
        .filter(|knob| knob.treatment == Treatment::Hashed)
        .map(|knob| (knob.name.to_owned(), knob.default.map(str::to_owned)))
        .collect();
    let mut unknown = Vec::new();
    for (name, value) in environment {
        match find(&name) {
            Some(knob) if knob.treatment == Treatment::Hashed => {
                values.insert(name, Some(value));
            }
            Some(_) => {}
            None if WATCHED_PREFIXES.iter().any(|p| name.starts_with(p)) => {
                unknown.push(name.clone());
                values.insert(name, Some(value));
            }
            None => {}
        }
    }
    unknown.sort();
    (values, unknown)
}

/// [`snapshot`] of this process's environment (variables that are not UTF-8 are skipped).
pub fn current() -> (BTreeMap<String, Option<String>>, Vec<String>) {
    snapshot(
        std::env::vars_os().filter_map(|(name, value)| {
            Some((name.into_string().ok()?, value.into_string().ok()?))
        }),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_registry_is_sorted_and_unique() {
        let names: Vec<&str> = REGISTRY.iter().map(|knob| knob.name).collect();
        let mut sorted = names.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(names, sorted);
    }

    #[test]
    fn hashed_knobs_are_always_present_and_unknown_xla_variables_are_hashed_and_reported() {
        let (values, unknown) = snapshot([
            ("XLA_FLAGS".to_owned(), "--xla_dump_to=x".to_owned()),
            ("XLA_PYTHON_CLIENT_MEM_FRACTION".to_owned(), ".5".to_owned()),
            ("TPUC_CACHE_DIR".to_owned(), "somewhere".to_owned()),
            ("PATH".to_owned(), "/bin".to_owned()),
        ]);
        assert_eq!(values["XLA_FLAGS"].as_deref(), Some("--xla_dump_to=x"));
        assert_eq!(values["LIBTPU_INIT_ARGS"], None);
        assert_eq!(
            values["TPU_ACCELERATOR_TYPE"].as_deref(),
            Some("v5litepod-4")
        );
        assert_eq!(
            values["XLA_PYTHON_CLIENT_MEM_FRACTION"].as_deref(),
            Some(".5")
        );
        assert!(!values.contains_key("TPUC_CACHE_DIR") && !values.contains_key("PATH"));
        assert_eq!(unknown, ["XLA_PYTHON_CLIENT_MEM_FRACTION"]);
    }
}
