//! An archive past 4 GiB, as torch writes large checkpoints (zip64 sizes and offsets): the
//! `mlp` fixture widened to a 4.4 GB first weight, written as a sparse file (the weights are
//! holes of zeros, so it costs no disk). Every command reads it; `run` reads records that lie
//! past 4 GiB in the file and computes with them.

mod support;

use std::path::Path;

use support::{fixture, json, tpuc};
use tpuc_npy::{Array, Dtype};
use tpuc_testkit::widened::{Fill, weight_bytes, widened_mlp};

/// 33,000 x 33,000 f32: 4.36e9 bytes, more than 4 GiB (4.29e9) in one record.
const WIDTH: u64 = 33_000;

#[test]
fn an_archive_past_4_gib_inspects_lowers_compiles_and_runs() {
    tpuc_expect::skip_without!(Plugins);
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("wide.pt2");
    let size = widened_mlp(&fixture("mlp.pt2"), &model, WIDTH, WIDTH, Fill::Zeros).unwrap();
    assert!(size > 1 << 32, "{size}");
    let cache = dir.path().join("cache");
    let model_arg = model.to_str().unwrap();

    let (inspected, _) = json(&cache, &["inspect", model_arg]);
    assert_eq!(
        inspected["weights"]["storage_bytes"].as_u64(),
        Some(weight_bytes(WIDTH, WIDTH))
    );
    assert_eq!(
        inspected["inputs"][0]["shape"],
        serde_json::json!([2, WIDTH])
    );

    let lowered = tpuc(&cache, &["lower", model_arg]);
    assert!(lowered.status.success());
    let text = String::from_utf8_lossy(&lowered.stdout);
    assert!(
        text.contains(&format!("tensor<{WIDTH}x{WIDTH}xf32>")),
        "{text}"
    );

    let inlined = tpuc(&cache, &["lower", model_arg, "--inline-weights"]);
    let stderr = String::from_utf8_lossy(&inlined.stderr);
    assert!(!inlined.status.success());
    assert!(
        stderr.contains("would embed more than 1024 MiB"),
        "{stderr}"
    );

    let (compiled, _) = json(&cache, &["compile", model_arg, "--target", "cpu"]);
    assert_eq!(
        compiled["targets"][0]["memory"]["argument_bytes"].as_u64(),
        Some(weight_bytes(WIDTH, WIDTH) + 2 * WIDTH * 4),
        "every weight and the input"
    );

    // Zero weights: the output is fc2.bias, the fixture's values, read from past 4 GiB.
    let input = dir.path().join("x.npy");
    let zeros = Array::new(
        Dtype::F32,
        vec![2, WIDTH as usize],
        vec![0; 8 * WIDTH as usize],
    );
    std::fs::write(&input, zeros.unwrap().to_npy_bytes()).unwrap();
    let out_dir = dir.path().join("out");
    let ran = tpuc(
        &cache,
        &[
            "run",
            model_arg,
            "--input",
            input.to_str().unwrap(),
            "--output-dir",
            out_dir.to_str().unwrap(),
        ],
    );
    assert!(
        ran.status.success(),
        "{}",
        String::from_utf8_lossy(&ran.stderr)
    );
    let out = Array::read(out_dir.join("out0.npy")).unwrap().to_f64();
    let bias = fc2_bias(&fixture("mlp.pt2"));
    assert_eq!(out, [bias.clone(), bias].concat());
}

fn fc2_bias(archive: &Path) -> Vec<f64> {
    let archive = tpuc_pt2::Archive::open(archive).unwrap();
    let bytes = archive
        .tensor("fc2.bias")
        .unwrap()
        .to_contiguous_bytes()
        .unwrap()
        .into_owned();
    bytes
        .chunks(4)
        .map(|c| f64::from(f32::from_le_bytes(c.try_into().unwrap())))
        .collect()
}
