//! Signed cache entries with the real plugins and the real S3-compatible server: `tpuc cache
//! keygen` makes a key pair, a publisher signs what it compiles, and a consumer that trusts the
//! publisher's public key uses only entries it signed. The poisoning of issue 11 (a manifest
//! keeping one model's key but naming another model's executable) is rejected with trusted
//! keys, signed or not, and the model compiles locally with the right outputs; without trusted
//! keys tpuc behaves as before.

mod support;

use std::path::{Path, PathBuf};

use serde_json::Value;
use support::{command, fixture, json, tpuc};
use tpuc_testkit::S3Server;

/// `tpuc cache keygen DIR/NAME`: the secret and public key files.
fn keygen(dir: &Path, name: &str) -> (PathBuf, PathBuf) {
    let secret = dir.join(name);
    let (report, _) = json(dir, &["cache", "keygen", secret.to_str().unwrap()]);
    let public = PathBuf::from(report["public_key"].as_str().unwrap());
    assert_eq!(public, dir.join(format!("{name}.pub")));
    (secret, public)
}

/// `tpuc compile MODEL --target cpu --remote ... EXTRA --format json`.
fn compile_command(
    cache: &Path,
    server: &S3Server,
    url: &str,
    model: &str,
    extra: &[&str],
) -> std::process::Command {
    let model = fixture(model);
    let mut args = vec!["compile", model.to_str().unwrap(), "--target", "cpu"];
    args.extend([
        "--remote",
        url,
        "--endpoint",
        &server.endpoint,
        "--format",
        "json",
    ]);
    args.extend(extra);
    command(cache, &args)
}

/// Runs [`compile_command`], which must succeed: its target, with the run's `warnings` and
/// `stderr`.
fn run_compile(compile: &mut std::process::Command) -> Value {
    let out = compile.output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{stderr}");
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut target = report["targets"][0].clone();
    target["warnings"] = report["warnings"].clone();
    target["stderr"] = Value::from(stderr);
    target
}

fn compile(cache: &Path, server: &S3Server, url: &str, model: &str, extra: &[&str]) -> Value {
    run_compile(&mut compile_command(cache, server, url, model, extra))
}

fn key_of(target: &Value) -> &str {
    target["key"].as_str().unwrap()
}

/// The payload digest of the local entry `key`.
fn local_payload(cache: &Path, key: &str) -> String {
    let (entry, _) = json(cache, &["cache", "show", key]);
    entry["manifest"]["payload"]["sha256"]
        .as_str()
        .unwrap()
        .to_owned()
}

fn sha256_hex(bytes: &[u8]) -> String {
    tpuc_cache::sha256(bytes).to_string()
}

/// `tpuc run mlp.pt2` on the fixture input with its eager output as `--expect`.
fn run_mlp_matches_eager(cache: &Path) -> bool {
    let out_dir = tempfile::tempdir().unwrap();
    let out = tpuc(
        cache,
        &[
            "run",
            fixture("mlp.pt2").to_str().unwrap(),
            "--input",
            fixture("mlp.in0.npy").to_str().unwrap(),
            "--expect",
            fixture("mlp.out0.npy").to_str().unwrap(),
            "--output-dir",
            out_dir.path().to_str().unwrap(),
        ],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("loaded from the cache"), "{stderr}");
    out.status.success()
}

#[test]
fn keygen_writes_a_private_secret_key_and_never_prints_it() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let secret = dir.path().join("ci.key");
    let out = tpuc(dir.path(), &["cache", "keygen", secret.to_str().unwrap()]);
    assert!(out.status.success(), "{out:?}");
    let mode = std::fs::metadata(&secret).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o600);
    let pem = std::fs::read_to_string(&secret).unwrap();
    assert!(pem.starts_with("-----BEGIN PRIVATE KEY-----"), "{pem}");
    let public = std::fs::read_to_string(dir.path().join("ci.key.pub")).unwrap();
    assert!(public.starts_with("-----BEGIN PUBLIC KEY-----"), "{public}");
    let body = pem.lines().nth(1).unwrap();
    let printed = [out.stdout, out.stderr].concat();
    assert!(!String::from_utf8_lossy(&printed).contains(body));
    assert!(String::from_utf8_lossy(&printed).contains("key id"));

    // Never over an existing key.
    let again = tpuc(dir.path(), &["cache", "keygen", secret.to_str().unwrap()]);
    assert_eq!(again.status.code(), Some(1));
    assert_eq!(std::fs::read_to_string(&secret).unwrap(), pem);

    // A secret key others may read is refused.
    std::fs::set_permissions(&secret, std::fs::Permissions::from_mode(0o644)).unwrap();
    let model = fixture("mlp.pt2");
    let args = ["compile", model.to_str().unwrap(), "--target", "cpu"];
    let out = tpuc(
        &dir.path().join("cache"),
        &[&args[..], &["--sign-key", secret.to_str().unwrap()]].concat(),
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("tpuc::cache::key_permissions"), "{stderr}");
}

#[test]
fn a_poisoned_shared_entry_is_rejected_by_consumers_that_trust_the_publisher() {
    tpuc_expect::skip_without!(Plugins, S3Server);
    let server = S3Server::start();
    let url = server.bucket("signed", "ci");
    let work = tempfile::tempdir().unwrap();
    let (secret, public) = keygen(work.path(), "ci.key");
    let sign = ["--sign-key", secret.to_str().unwrap()];
    let trust = ["--trust-key", public.to_str().unwrap()];

    // The publisher (a main-branch job) signs and publishes two models.
    let publisher = work.path().join("publisher");
    let a = compile(&publisher, &server, &url, "mlp.pt2", &sign);
    let b = compile(&publisher, &server, &url, "cnn.pt2", &sign);
    assert_eq!(
        (&a["origin"], &b["origin"]),
        (&"compiled".into(), &"compiled".into())
    );
    let (verified, _) = json(&publisher, &["cache", "verify", trust[0], trust[1]]);
    assert_eq!(
        (verified["ok"].as_u64(), verified["signed"].as_u64()),
        (Some(2), Some(2))
    );

    let objects = server.objects().join("signed/ci/v1");
    let manifest_object = |key: &str| objects.join(format!("entries/{key}.json"));
    let signature_object = |key: &str, manifest: &[u8]| {
        objects.join(format!("signatures/{key}/{}.json", sha256_hex(manifest)))
    };
    let genuine_a = std::fs::read(manifest_object(key_of(&a))).unwrap();
    let genuine_signature = std::fs::read(signature_object(key_of(&a), &genuine_a)).unwrap();
    let manifest_b: Value =
        serde_json::from_slice(&std::fs::read(manifest_object(key_of(&b))).unwrap()).unwrap();
    let payload_b = manifest_b["payload"]["sha256"].as_str().unwrap().to_owned();

    // Poisoning: A's manifest keeps A's key and key parts but names B's executable.
    let mut poisoned: Value = serde_json::from_slice(&genuine_a).unwrap();
    poisoned["payload"] = manifest_b["payload"].clone();
    let poisoned = serde_json::to_vec_pretty(&poisoned).unwrap();
    std::fs::write(manifest_object(key_of(&a)), &poisoned).unwrap();

    // Unsigned: a consumer that trusts the publisher compiles A locally, with A's outputs.
    let consumer = work.path().join("consumer");
    let fetched = compile(&consumer, &server, &url, "mlp.pt2", &trust);
    assert_eq!(fetched["origin"], "compiled", "{}", fetched["stderr"]);
    let warning = fetched["warnings"][0].as_str().unwrap();
    assert!(
        warning.contains("is not used") && warning.contains("it is not signed"),
        "{warning}"
    );
    assert_ne!(local_payload(&consumer, key_of(&a)), payload_b);
    assert!(run_mlp_matches_eager(&consumer));

    // With A's genuine signature where the poisoned manifest's would be; keys from the
    // environment, as a CI job sets them.
    std::fs::write(signature_object(key_of(&a), &poisoned), &genuine_signature).unwrap();
    let second = work.path().join("second");
    let mut from_env = compile_command(&second, &server, &url, "mlp.pt2", &[]);
    let fetched = run_compile(from_env.env("TPUC_TRUST_KEYS", &public));
    assert_eq!(fetched["origin"], "compiled", "{}", fetched["stderr"]);
    let warning = fetched["warnings"][0].as_str().unwrap();
    assert!(warning.contains("does not match the manifest"), "{warning}");
    assert!(run_mlp_matches_eager(&second));

    // The untouched entry B is fetched, and keeps its signature in the local cache.
    let fetched_b = compile(&consumer, &server, &url, "cnn.pt2", &trust);
    assert_eq!(fetched_b["origin"], "shared", "{}", fetched_b["stderr"]);
    let (verified, _) = json(&consumer, &["cache", "verify"]);
    assert_eq!(
        (verified["ok"].as_u64(), verified["signed"].as_u64()),
        (Some(2), Some(1))
    );
    // With the trusted key, the locally compiled A is listed as not signed by it (exit 5).
    let out = tpuc(
        &consumer,
        &["cache", "verify", trust[0], trust[1], "--format", "json"],
    );
    assert_eq!(out.status.code(), Some(5));
    let verified: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(verified["untrusted"][0][0], key_of(&a), "{verified}");

    // Without trusted keys, behaviour is as it always was: the poisoned entry is used.
    let trusting_nobody = work.path().join("nobody");
    let used = compile(&trusting_nobody, &server, &url, "mlp.pt2", &[]);
    assert_eq!(used["origin"], "shared", "{}", used["stderr"]);
    assert_eq!(local_payload(&trusting_nobody, key_of(&a)), payload_b);
}

#[test]
fn every_bit_flip_in_an_entrys_signature_is_detected() {
    tpuc_expect::skip_without!(Plugins);
    use std::os::unix::fs::FileExt;
    use tpuc_cache::{Cache, Key, Lookup, Mode};

    let work = tempfile::tempdir().unwrap();
    let (secret, _) = keygen(work.path(), "k");
    let cache_dir = work.path().join("cache");
    let model = fixture("mlp.pt2");
    let (report, _) = json(
        &cache_dir,
        &[
            "compile",
            model.to_str().unwrap(),
            "--target",
            "cpu",
            "--sign-key",
            secret.to_str().unwrap(),
        ],
    );
    let key: Key = report["targets"][0]["key"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    let cache = Cache::open(&cache_dir, Mode::ReadOnly);
    let path = cache.entry_path(&key).join("manifest.sig");
    let original = std::fs::read(&path).unwrap();
    assert_eq!(cache.verify().unwrap().signed, 1);
    let file = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
    for (offset, &byte) in original.iter().enumerate() {
        for bit in 0..8 {
            file.write_all_at(&[byte ^ (1 << bit)], offset as u64)
                .unwrap();
            let verified = cache.verify().unwrap();
            assert_eq!(
                (verified.ok, verified.corrupt.len()),
                (0, 1),
                "byte {offset} bit {bit}"
            );
            assert!(
                matches!(cache.lookup(&key).unwrap(), Lookup::Corrupt { .. }),
                "byte {offset} bit {bit}"
            );
        }
        file.write_all_at(&[byte], offset as u64).unwrap();
    }
    assert_eq!(cache.verify().unwrap().ok, 1, "restored");
}

#[test]
fn a_plans_trusted_keys_make_prewarm_compile_unsigned_entries_locally() {
    tpuc_expect::skip_without!(Plugins, S3Server);
    let server = S3Server::start();
    let url = server.bucket("plan", "p");
    let work = tempfile::tempdir().unwrap();
    let (secret, _) = keygen(work.path(), "ci.key");
    // An unsigned writer publishes cnn; the signer publishes mlp.
    compile(&work.path().join("unsigned"), &server, &url, "cnn.pt2", &[]);
    let sign = ["--sign-key", secret.to_str().unwrap()];
    compile(&work.path().join("signer"), &server, &url, "mlp.pt2", &sign);

    for model in ["mlp.pt2", "cnn.pt2"] {
        std::fs::copy(fixture(model), work.path().join(model)).unwrap();
    }
    let plan = "[options]\ntrust_keys = [\"ci.key.pub\"]\n\n[[models]]\n\
                path = \"*.pt2\"\ntargets = [\"cpu\"]\n";
    std::fs::write(work.path().join("plan.toml"), plan).unwrap();
    let remote = [
        "--remote",
        url.as_str(),
        "--endpoint",
        server.endpoint.as_str(),
    ];
    let mut args = vec!["prewarm", "plan.toml", "--report", "report.json"];
    args.extend(remote);
    let out = command(&work.path().join("consumer"), &args)
        .current_dir(work.path())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let report: Value =
        serde_json::from_slice(&std::fs::read(work.path().join("report.json")).unwrap()).unwrap();
    let items = report["items"].as_array().unwrap();
    let status = |model: &str| {
        let item = items
            .iter()
            .find(|i| i["model"].as_str().unwrap().ends_with(model))
            .unwrap();
        (
            item["status"].as_str().unwrap(),
            item["warnings"].to_string(),
        )
    };
    assert_eq!(status("mlp.pt2").0, "fetched", "{stderr}");
    let (cnn, warnings) = status("cnn.pt2");
    assert_eq!(cnn, "compiled", "{stderr}");
    assert!(warnings.contains("it is not signed"), "{warnings}");
}
