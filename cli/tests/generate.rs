//! `tpuc generate` end to end on the real XLA:CPU plugin: every family of
//! testdata/serving/manifest.json decodes the greedy tokens PyTorch decoded from the same
//! exported programs (checked there against `model.generate`), with the logits within the
//! manifest's tolerance: token by token, through the prefill archive, from the non-strict export
//! (cache tensors lifted as constants), and split by head over two devices; and the refusals.

mod support;

use std::path::{Path, PathBuf};

use serde_json::Value;
use tpuc_npy::Array;

fn serving() -> PathBuf {
    support::repo_root().join("testdata/serving")
}

fn manifest() -> Value {
    let text = std::fs::read_to_string(serving().join("manifest.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// Runs `tpuc generate` into a fresh directory; `Err` holds its stderr.
fn generate(cache: &Path, args: &[&str]) -> Result<tempfile::TempDir, String> {
    let out = tempfile::tempdir().unwrap();
    let mut all = vec!["generate"];
    all.extend(args);
    all.extend(["--output-dir", out.path().to_str().unwrap()]);
    let output = support::command(cache, &all).output().unwrap();
    if output.status.success() {
        Ok(out)
    } else {
        Err(String::from_utf8_lossy(&output.stderr).into_owned())
    }
}

/// The differences of one run from the family's reference.
fn check(name: &str, out: &Path, family: &Value, tolerance: &Value) -> Vec<String> {
    let read = |path: PathBuf| Array::read(&path).map_err(|e| format!("{name}: {e}"));
    let (tokens, logits) = match (read(out.join("tokens.npy")), read(out.join("logits.npy"))) {
        (Ok(tokens), Ok(logits)) => (tokens, logits),
        (Err(e), _) | (_, Err(e)) => return vec![e],
    };
    let reference = |key: &str| Array::read(serving().join(family[key].as_str().unwrap())).unwrap();
    let (want_tokens, want_logits) = (reference("tokens"), reference("logits"));
    let mut failures = Vec::new();
    if tokens.to_f64() != want_tokens.to_f64() {
        failures.push(format!(
            "{name}: tokens {:?}, PyTorch {:?}",
            tokens.to_f64(),
            want_tokens.to_f64()
        ));
    }
    if logits.shape() != want_logits.shape() {
        failures.push(format!(
            "{name}: logits {:?}, PyTorch {:?}",
            logits.shape(),
            want_logits.shape()
        ));
        return failures;
    }
    let (rtol, atol) = (
        tolerance["rtol"].as_f64().unwrap(),
        tolerance["atol"].as_f64().unwrap(),
    );
    let worst = logits
        .to_f64()
        .iter()
        .zip(want_logits.to_f64())
        .map(|(g, w)| (g - w).abs() - rtol * w.abs())
        .fold(f64::MIN, f64::max);
    if worst > atol {
        failures.push(format!("{name}: logits off by {worst:.3e} beyond rtol"));
    }
    failures
}

/// Every family, each way of decoding: `(name, extra arguments)`.
fn runs(family: &str, f: &Value) -> Vec<(String, Vec<String>)> {
    let path = |key: &str| serving().join(f[key]["file"].as_str().unwrap());
    let decode = path("decode").display().to_string();
    let prompt = serving().join(f["prompt"].as_str().unwrap());
    let new = manifest()["new_tokens"].to_string();
    let base = |model: String| {
        vec![
            model,
            "--prompt".to_owned(),
            prompt.display().to_string(),
            "--max-new-tokens".to_owned(),
            new.clone(),
        ]
    };
    let with = |mut args: Vec<String>, extra: &[&str]| {
        args.extend(extra.iter().map(|s| s.to_string()));
        args
    };
    let prefill = path("prefill").display().to_string();
    let mut runs = vec![
        (format!("{family} decode"), base(decode.clone())),
        (
            format!("{family} prefill"),
            with(base(decode.clone()), &["--prefill", &prefill]),
        ),
        (
            format!("{family} tp cpu:2 prefill"),
            with(
                base(decode),
                &["--prefill", &prefill, "--target", "cpu:2", "--shard", "tp"],
            ),
        ),
    ];
    if f["decode_nonstrict"].is_object() {
        let nonstrict = path("decode_nonstrict").display().to_string();
        runs.push((format!("{family} non-strict decode"), base(nonstrict)));
    }
    if f["decode_dynamic"].is_object() {
        let dynamic = path("decode_dynamic").display().to_string();
        let cache_len = manifest()["cache_len"].to_string();
        runs.push((
            format!("{family} cache-inputs decode"),
            with(base(dynamic.clone()), &["--cache-length", &cache_len]),
        ));
        runs.push((
            format!("{family} cache-inputs decode, twice the cache, tp cpu:2"),
            with(
                base(dynamic),
                &["--cache-length", "64", "--target", "cpu:2", "--shard", "tp"],
            ),
        ));
    }
    if f["decode_aten"].is_object() {
        let aten = path("decode_aten").display().to_string();
        runs.push((format!("{family} ATen-dialect decode"), base(aten)));
    }
    runs
}

#[test]
fn every_family_decodes_the_tokens_pytorch_does() {
    tpuc_expect::skip_without!(CpuPlugin);
    let manifest = manifest();
    let cache = tempfile::tempdir().unwrap();
    let mut failures = Vec::new();
    let mut count = 0;
    for (family, f) in manifest["families"].as_object().unwrap() {
        for (name, args) in runs(family, f) {
            count += 1;
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            match generate(cache.path(), &args) {
                Ok(out) => failures.extend(check(&name, out.path(), f, &manifest["tolerance"])),
                Err(stderr) => failures.push(format!("{name}: tpuc generate failed:\n{stderr}")),
            }
        }
    }
    assert!(count >= 21, "only {count} runs");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn the_kv_cache_is_split_by_head_and_donated_under_tp() {
    let manifest = manifest();
    for (family, f) in manifest["families"].as_object().unwrap() {
        let decode = serving().join(f["decode"]["file"].as_str().unwrap());
        let text = support::stdout_of(&[
            "lower",
            decode.to_str().unwrap(),
            "--target",
            "cpu:2",
            "--shard",
            "tp",
        ]);
        let heads = f["cache_heads"].as_object().unwrap();
        assert!(!heads.is_empty(), "{family}: no cache buffers");
        for (name, dim) in heads {
            let arg = cache_argument(&text, name);
            assert!(
                arg.contains("tf.aliasing_output"),
                "{family}: not donated: {arg}"
            );
            let ty = &arg[arg.find("tensor<").unwrap()..];
            let rank = ty[..ty.find('>').unwrap()].matches('x').count();
            let mut dims = vec!["{}"; rank];
            dims[dim.as_u64().unwrap() as usize] = r#"{"tp"}"#;
            let split = format!("#sdy.sharding<@mesh, [{}]>", dims.join(", "));
            assert!(
                arg.contains(&split),
                "{family}: {name} not split by head: {arg}"
            );
        }
    }
}

/// The text of `main`'s argument holding buffer `name` in a printed module.
fn cache_argument<'a>(text: &'a str, name: &str) -> &'a str {
    let arg = text
        .split("%arg")
        .find(|arg| arg.contains(&format!("jax.arg_info = \"{name}\"")))
        .unwrap_or_else(|| panic!("no argument `{name}`"));
    &arg[..arg
        .find("]>}")
        .or_else(|| arg.find("}, "))
        .map_or(arg.len(), |end| end + 3)]
}

fn refusal(args: &[&str]) -> String {
    let cache = tempfile::tempdir().unwrap();
    match generate(cache.path(), args) {
        Ok(_) => panic!("tpuc generate {args:?} succeeded"),
        Err(stderr) => support::unwrapped(&stderr),
    }
}

#[test]
fn requests_the_cache_cannot_hold_are_refused_with_the_numbers() {
    tpuc_expect::skip_without!(CpuPlugin);
    let dir = tempfile::tempdir().unwrap();
    let decode = serving().join("llama.decode.pt2");
    let decode = decode.to_str().unwrap();
    let prompt = serving().join("llama.prompt.npy");
    let prompt = prompt.to_str().unwrap();
    let cache_len = manifest()["cache_len"].as_u64().unwrap();
    let prompt_len = manifest()["prompt_len"].as_u64().unwrap();

    let too_many = (cache_len - prompt_len + 2).to_string();
    let stderr = refusal(&[decode, "--prompt", prompt, "--max-new-tokens", &too_many]);
    assert!(
        stderr.contains(&format!("holds {cache_len}"))
            && stderr.contains(&format!("at most {}", cache_len - prompt_len + 1)),
        "{stderr}"
    );

    let long = dir.path().join("long.npy");
    let ids: Vec<u8> = (0..cache_len + 1)
        .flat_map(|i| (i as i64).to_le_bytes())
        .collect();
    let array = Array::new(tpuc_npy::Dtype::I64, vec![1, cache_len as usize + 1], ids).unwrap();
    std::fs::write(&long, array.to_npy_bytes()).unwrap();
    let stderr = refusal(&[
        decode,
        "--prompt",
        long.to_str().unwrap(),
        "--max-new-tokens",
        "1",
    ]);
    assert!(
        stderr.contains(&format!("{} tokens", cache_len + 1))
            && stderr.contains(&cache_len.to_string()),
        "{stderr}"
    );

    let prefill = serving().join("llama.prefill.pt2");
    let stderr = refusal(&[
        decode,
        "--prompt",
        long.to_str().unwrap(),
        "--max-new-tokens",
        "1",
        "--prefill",
        prefill.to_str().unwrap(),
    ]);
    assert!(stderr.contains(&format!("takes {prompt_len}")), "{stderr}");

    let floats = dir.path().join("floats.npy");
    let array = Array::new(tpuc_npy::Dtype::F32, vec![3], vec![0; 12]).unwrap();
    std::fs::write(&floats, array.to_npy_bytes()).unwrap();
    let stderr = refusal(&[
        decode,
        "--prompt",
        floats.to_str().unwrap(),
        "--max-new-tokens",
        "1",
    ]);
    assert!(stderr.contains("integer token ids"), "{stderr}");

    let not_a_step = support::fixture("mlp.core.pt2");
    let stderr = refusal(&[
        not_a_step.to_str().unwrap(),
        "--prompt",
        prompt,
        "--max-new-tokens",
        "1",
    ]);
    assert!(stderr.contains("not a decode or prefill step"), "{stderr}");
    assert!(!dir.path().join("tokens.npy").exists());
}

/// `(agreement, max |logit error|)` of a run against the family's float32 reference.
fn agreement(out: &Path, family: &Value) -> (f64, f64) {
    let reference = |key: &str| Array::read(serving().join(family[key].as_str().unwrap())).unwrap();
    let tokens = Array::read(out.join("tokens.npy")).unwrap().to_f64();
    let want = reference("tokens").to_f64();
    let same = tokens.iter().zip(&want).filter(|(a, b)| a == b).count();
    let logits = Array::read(out.join("logits.npy")).unwrap().to_f64();
    let error = logits
        .iter()
        .zip(reference("logits").to_f64())
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f64::max);
    (same as f64 / want.len() as f64, error)
}

#[test]
fn a_narrow_kv_cache_is_stored_narrow_and_decodes_close_to_float32() {
    tpuc_expect::skip_without!(CpuPlugin);
    let manifest = manifest();
    let cache = tempfile::tempdir().unwrap();
    let new = manifest["new_tokens"].to_string();
    let mut failures = Vec::new();
    for (family, f) in manifest["families"].as_object().unwrap() {
        let decode = serving().join(f["decode"]["file"].as_str().unwrap());
        let decode = decode.to_str().unwrap();
        let prompt = serving().join(f["prompt"].as_str().unwrap());
        // (type, its MLIR name, least token agreement, largest logit error): measured
        // 8/8 tokens and 0.062 for bfloat16, 6/8 and 3.7 for float8_e4m3fn (tiny random models
        // whose keys and values are far from unit scale).
        for (kv, mlir, least, largest) in [
            ("bf16", "bf16", 1.0, 0.1),
            ("f8e4m3fn", "f8E4M3FN", 0.5, 5.0),
        ] {
            let text = support::stdout_of(&["lower", decode, "--kv-dtype", kv]);
            let caches: Vec<&str> = f["cache_heads"]
                .as_object()
                .unwrap()
                .keys()
                .map(|name| cache_argument(&text, name))
                .collect();
            assert!(
                caches
                    .iter()
                    .all(|arg| arg.contains(&format!("x{mlir}>"))
                        && arg.contains("tf.aliasing_output")),
                "{family} {kv}: {caches:#?}"
            );
            let args = [
                decode,
                "--prompt",
                prompt.to_str().unwrap(),
                "--max-new-tokens",
                &new,
                "--kv-dtype",
                kv,
            ];
            match generate(cache.path(), &args) {
                Ok(out) => {
                    let (same, error) = agreement(out.path(), f);
                    if same < least || error > largest {
                        failures.push(format!(
                            "{family} {kv}: {same} of the tokens, logits off by {error}"
                        ));
                    }
                }
                Err(stderr) => failures.push(format!("{family} {kv}: {stderr}")),
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn kv_dtype_refuses_programs_without_a_cache_and_unknown_types() {
    let mlp = support::fixture("mlp.core.pt2");
    let output = support::uncached(&["lower", mlp.to_str().unwrap(), "--kv-dtype", "bf16"]);
    let stderr = support::unwrapped(&String::from_utf8_lossy(&output.stderr));
    assert!(
        !output.status.success() && stderr.contains("no KV"),
        "{stderr}"
    );
    for bad in ["f8", "bf16:2", "f8e4m3fn:-1"] {
        let output = support::uncached(&["lower", mlp.to_str().unwrap(), "--kv-dtype", bad]);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{bad}: {stderr}");
        assert!(stderr.contains("f8e4m3fn"), "{bad}: {stderr}");
    }
}

/// A prewarm plan's decode step (with its cache type) is the executable `generate` loads; a
/// misspelt cache type fails its item.
#[test]
fn a_prewarmed_decode_step_is_the_one_generate_loads() {
    tpuc_expect::skip_without!(CpuPlugin);
    let cache = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let decode = serving().join("llama.decode.pt2");
    let plan = dir.path().join("plan.toml");
    std::fs::write(
        &plan,
        format!(
            "[[models]]\npath = {:?}\ntargets = [\"cpu\"]\nkv_dtype = \"bf16\"\n\n\
             [[models]]\npath = {:?}\ntargets = [\"cpu\"]\nkv_dtype = \"bf61\"\n",
            decode.display(),
            decode.display()
        ),
    )
    .unwrap();
    let output = support::command(cache.path(), &["prewarm", plan.to_str().unwrap()])
        .output()
        .unwrap();
    let stderr = support::unwrapped(&String::from_utf8_lossy(&output.stderr));
    assert!(!output.status.success(), "the misspelt item must fail");
    assert!(
        stderr.contains("bf61") && stderr.contains("f8e4m3fn"),
        "{stderr}"
    );
    let prompt = serving().join("llama.prompt.npy");
    let out = dir.path().join("out");
    let output = support::command(
        cache.path(),
        &[
            "generate",
            decode.to_str().unwrap(),
            "--prompt",
            prompt.to_str().unwrap(),
            "--max-new-tokens",
            "2",
            "--kv-dtype",
            "bf16",
            "--output-dir",
            out.to_str().unwrap(),
        ],
    )
    .output()
    .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(stderr.contains("loaded from the cache"), "{stderr}");
}

/// A decode step whose cache is inputs of symbolic batch and length (exported with `Dim`): one
/// key per bucket of batch size and cache length, the one `generate --cache-length` compiles
/// among them.
#[test]
fn a_cache_of_symbolic_length_is_bucketed_one_key_each() {
    tpuc_expect::skip_without!(CpuPlugin);
    let cache = tempfile::tempdir().unwrap();
    let decode = serving().join("llama.decode-dynamic.pt2");
    let decode = decode.to_str().unwrap();
    let prompt = serving().join("llama.prompt.npy");
    let args = [
        decode,
        "--prompt",
        prompt.to_str().unwrap(),
        "--max-new-tokens",
        "2",
        "--cache-length",
        "128",
    ];
    if let Err(stderr) = generate(cache.path(), &args) {
        panic!("{stderr}");
    }
    let (keys, stderr) = support::json(
        cache.path(),
        &[
            "key",
            decode,
            "--target",
            "cpu",
            "--buckets",
            "keys.3=pow2:64..256",
            "--buckets",
            "input_ids.0=pow2:1..4",
        ],
    );
    let targets = keys["targets"]
        .as_array()
        .unwrap_or_else(|| panic!("{stderr}"));
    let distinct: std::collections::BTreeSet<&str> =
        targets.iter().map(|t| t["key"].as_str().unwrap()).collect();
    assert_eq!((targets.len(), distinct.len()), (9, 9), "{keys:#}");
    let cached: Vec<&serde_json::Value> = targets
        .iter()
        .filter(|t| t["cached"] == true)
        .map(|t| &t["dims"])
        .collect();
    assert_eq!(cached.len(), 1, "{keys:#}");
    let dims: Vec<i64> = cached[0]
        .as_object()
        .unwrap()
        .values()
        .map(|v| v.as_i64().unwrap())
        .collect();
    assert!(dims.contains(&128) && dims.contains(&1), "{keys:#}");
    let stderr = refusal(&[
        decode,
        "--prompt",
        prompt.to_str().unwrap(),
        "--max-new-tokens",
        "2",
    ]);
    assert!(stderr.contains("--cache-length"), "{stderr}");

    // A prewarm plan's buckets compile them all; generate then loads its bucket.
    let warm = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let plan = dir.path().join("plan.toml");
    std::fs::write(
        &plan,
        format!(
            "[[models]]\npath = {decode:?}\ntargets = [\"cpu\"]\n\
             buckets = {{ \"keys.3\" = \"pow2:64..128\", \"input_ids.0\" = \"pow2:1..2\" }}\n"
        ),
    )
    .unwrap();
    let output = support::command(warm.path(), &["prewarm", plan.to_str().unwrap()])
        .output()
        .unwrap();
    let report = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let out = dir.path().join("out");
    let args = [
        "generate",
        decode,
        "--prompt",
        prompt.to_str().unwrap(),
        "--max-new-tokens",
        "2",
        "--cache-length",
        "64",
        "--output-dir",
        out.to_str().unwrap(),
    ];
    let output = support::command(warm.path(), &args).output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(
        stderr.contains("loaded from the cache"),
        "{stderr}\n{report}"
    );
}
