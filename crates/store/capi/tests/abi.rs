//! The C ABI at its boundary: a real cache entry (the mlp fixture compiled for XLA:CPU) read
//! by a C program compiled with `cc` against `tpuc_cache.h` and the cdylib, and by Python's
//! ctypes; both must print the same description, matching the manifest. A damaged entry is
//! refused by both.

use std::path::{Path, PathBuf};
use std::process::Command;

use tpuc_cache::{Cache, Mode};
use tpuc_driver::{PluginPaths, Target};

fn crate_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The cdylib cargo built for this test: in `deps/` beside it (where a clean `cargo test` leaves
/// it), or one level up when a `cargo build` copied it there.
fn library() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let deps = exe.parent().unwrap();
    let name = format!(
        "{}tpuc_capi{}",
        std::env::consts::DLL_PREFIX,
        std::env::consts::DLL_SUFFIX
    );
    let candidates = [deps.join(&name), deps.parent().unwrap().join(&name)];
    candidates
        .iter()
        .find(|library| library.exists())
        .unwrap_or_else(|| panic!("no {} beside {}", name, deps.display()))
        .clone()
}

/// A cache holding the mlp fixture's XLA:CPU executable; its directory and key.
fn cache_with_entry() -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    let model = crate_dir().join("../../../testdata/models/mlp.pt2");
    let report = tpuc_driver::compile(
        &model,
        &[Target::Cpu { devices: 1 }],
        &tpuc_driver::Options::default(),
        &PluginPaths::default(),
        &Cache::open(dir.path(), Mode::ReadWrite).into(),
    )
    .unwrap();
    let key = report.compiled[0].key.to_string();
    (dir, key)
}

fn compile_c_check(out: &Path) -> PathBuf {
    compile_c(out, "check_cache")
}

/// `tests/c/NAME.c` compiled with `cc` against the header and the cdylib.
fn compile_c(out: &Path, name: &str) -> PathBuf {
    let binary = out.join(name);
    let library = library();
    let status = Command::new("cc")
        .arg("-std=c11")
        .arg("-Wall")
        .arg("-Werror")
        .arg("-I")
        .arg(crate_dir().join("include"))
        .arg(crate_dir().join(format!("tests/c/{name}.c")))
        .arg("-o")
        .arg(&binary)
        .arg(&library)
        .arg(format!(
            "-Wl,-rpath,{}",
            library.parent().unwrap().display()
        ))
        .status()
        .expect("cc runs");
    assert!(status.success(), "cc failed");
    binary
}

fn run(command: &mut Command) -> (i32, String) {
    let out = command.output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
    )
}

fn ctypes(cache: &Path, key: &str) -> Command {
    let mut command = Command::new("python3");
    command
        .arg(crate_dir().join("tests/ctypes_check.py"))
        .arg(library())
        .arg(cache)
        .arg(key);
    command
}

#[test]
fn c_and_ctypes_read_the_entry_as_the_manifest_says() {
    tpuc_expect::skip_without!(CpuPlugin);
    let (cache, key) = cache_with_entry();
    let out = tempfile::tempdir().unwrap();
    let check = compile_c_check(out.path());
    let (code, from_c) = run(Command::new(&check).arg(cache.path()).arg(&key));
    assert_eq!(code, 0, "{from_c}");
    let (code, from_python) = run(&mut ctypes(cache.path(), &key));
    assert_eq!(code, 0, "{from_python}");
    assert_eq!(from_c, from_python);

    let hit = match Cache::open(cache.path(), Mode::ReadOnly)
        .lookup(&key.parse().unwrap())
        .unwrap()
    {
        tpuc_cache::Lookup::Hit(hit) => hit,
        _ => panic!("the entry is in the cache"),
    };
    let mut expected = vec![
        "verify 0".to_owned(),
        "target cpu".to_owned(),
        format!("executable {} bytes", hit.payload.len()),
        "manifest json".to_owned(),
    ];
    let describe = |what: &str, i: usize, b: &tpuc_cache::Binding| {
        let shape: Vec<String> = b.shape.iter().map(i64::to_string).collect();
        format!(
            "{what} {i} {} {} {} {} [{}] -",
            b.kind,
            b.name.as_deref().unwrap_or("-"),
            b.index.map_or(-1, |i| i as i64),
            b.dtype,
            shape.join(",")
        )
    };
    let signature = &hit.envelope.manifest.signature;
    for (i, b) in signature.arguments.iter().enumerate() {
        expected.push(describe("argument", i, b));
    }
    for (i, b) in signature.results.iter().enumerate() {
        expected.push(describe("result", i, b));
    }
    expected.push(format!(
        "out of range 3 argument 1000 does not exist: there are {}",
        signature.arguments.len()
    ));
    assert_eq!(from_c.lines().collect::<Vec<_>>(), expected);
    assert!(signature.arguments.iter().any(|b| b.kind == "parameter"));
}

#[test]
fn a_damaged_or_missing_entry_is_refused() {
    tpuc_expect::skip_without!(CpuPlugin);
    let (cache, key) = cache_with_entry();
    let out = tempfile::tempdir().unwrap();
    let check = compile_c_check(out.path());
    let missing = "0".repeat(64);
    let (code, text) = run(Command::new(&check).arg(cache.path()).arg(&missing));
    assert_eq!(code, 1, "{text}");
    assert!(text.contains("lookup 1 no cache entry"), "{text}");

    let (code, text) = run(Command::new(&check).arg(cache.path()).arg("not-a-key"));
    assert_eq!(code, 3, "{text}");

    let entry = Cache::open(cache.path(), Mode::ReadOnly).entry_path(&key.parse().unwrap());
    let payload = entry.join("executable");
    let mut bytes = std::fs::read(&payload).unwrap();
    bytes[100] ^= 0xff;
    std::fs::write(&payload, bytes).unwrap();
    let (code, text) = run(Command::new(&check).arg(cache.path()).arg(&key));
    assert_eq!(code, 2, "{text}");
    assert!(text.starts_with("verify 2\n"), "{text}");
    let (code, text) = run(&mut ctypes(cache.path(), &key));
    assert_eq!(code, 2, "{text}");
}

#[test]
fn a_runtime_finds_the_smallest_bucket_for_a_request() {
    tpuc_expect::skip_without!(CpuPlugin);
    let dir = tempfile::tempdir().unwrap();
    let model = crate_dir().join("../../../testdata/models/dyn_seq.pt2");
    let options = tpuc_driver::Options::default();
    let shapes: Vec<_> = [8, 32]
        .into_iter()
        .map(|seq| std::collections::BTreeMap::from([("s27".to_owned(), seq)]))
        .collect();
    let compiles = tpuc_driver::compile_shapes(
        &model,
        &[Target::Cpu { devices: 1 }],
        &options,
        &shapes,
        2,
        &PluginPaths::default(),
        &Cache::open(dir.path(), Mode::ReadWrite).into(),
    )
    .unwrap();
    let key_at = |i: usize| compiles[i].report.compiled[0].key.to_string();
    let family = tpuc_driver::family_key(&model, &Target::Cpu { devices: 1 }, &options)
        .unwrap()
        .to_string();
    let out = tempfile::tempdir().unwrap();
    let find = compile_c(out.path(), "find_bucket");
    let ask = |target: &str, shape: &str| {
        run(Command::new(&find)
            .arg(dir.path())
            .arg(&family)
            .arg(target)
            .arg(shape))
    };
    let (code, text) = ask("cpu", "tokens=2x9");
    assert_eq!(code, 0, "{text}");
    assert_eq!(text, format!("bucket {}\ninput tokens 2x32\n", key_at(1)));
    let (code, text) = ask("cpu", "tokens=2x8");
    assert_eq!(
        (code, text.lines().next().unwrap()),
        (0, format!("bucket {}", key_at(0)).as_str())
    );
    let (code, text) = ask("cpu", "tokens=2x33");
    assert_eq!(code, 1, "{text}");
    assert!(
        text.contains("the buckets are: tokens=2x8; tokens=2x32"),
        "{text}"
    );
    let (code, text) = ask("tpu:v5e:2x2", "tokens=2x8");
    assert_eq!(code, 1, "{text}");
    let (code, text) = ask("cpu", "tokens=2by8");
    assert_eq!(code, 3, "{text}");
}

#[test]
fn a_sharded_entry_gives_each_argument_its_axes() {
    tpuc_expect::skip_without!(CpuPlugin);
    let dir = tempfile::tempdir().unwrap();
    let model = crate_dir().join("../../../testdata/models/mlp.pt2");
    let mut options = tpuc_driver::Options::default();
    options.pipeline.sharding = Some(tpuc_passes::sharding::ShardRequest::new(
        tpuc_passes::sharding::PlanSource::parse("fsdp").unwrap(),
        None,
    ));
    let report = tpuc_driver::compile(
        &model,
        &[Target::Cpu { devices: 2 }],
        &options,
        &PluginPaths::default(),
        &Cache::open(dir.path(), Mode::ReadWrite).into(),
    )
    .unwrap();
    let compiled = &report.compiled[0];
    let out = tempfile::tempdir().unwrap();
    let check = compile_c_check(out.path());
    let (code, text) = run(Command::new(&check)
        .arg(dir.path())
        .arg(compiled.key.to_string()));
    assert_eq!(code, 0, "{text}");
    let arguments = &compiled.manifest.signature.arguments;
    let shown: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("argument "))
        .map(|l| l.rsplit(' ').next().unwrap())
        .collect();
    let expected: Vec<String> = arguments
        .iter()
        .map(|b| {
            b.sharding
                .as_ref()
                .map_or("-".to_owned(), |s| serde_json::to_string(s).unwrap())
        })
        .collect();
    assert_eq!(shown, expected);
    assert!(expected.iter().any(|s| s.contains("dp")), "{expected:?}");
}
