//! Cost against archive size: `open`, `lower`, `compile` (XLA:CPU, no cache) and `run` of real
//! programs from 0.1 to 4 GB of weights (the `mlp` fixture widened, random weights, zip64),
//! each stage in a fresh process so its peak resident memory is its own. Goals: open, lower
//! and compile cost about the same at every size; `run` holds one copy of the weights (the
//! mapped archive, handed to XLA:CPU in place).
//!
//! This program is essentially one weight matrix whose width is not a multiple of 64, the case
//! where XLA:CPU's YNNPACK dot fusion would repack it on every execution (and `run` peak at 2x);
//! tpuc's compiles turn that fusion off.
//!
//!     cargo bench -p tpuc-benches --bench scale [-- --sizes 0.1,1,4]
//!
//! Writes the archives (about the sum of the sizes) to a temporary directory.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use tpuc_driver::{Input, Options, Runtime};
use tpuc_npy::{Array, Dtype};
use tpuc_testkit::widened::{Fill, weight_bytes, widened_mlp};

const STAGES: [&str; 4] = ["open", "lower", "compile", "run"];

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let value_of = |flag: &str| {
        args.iter()
            .position(|a| a == flag)
            .map(|i| args[i + 1].clone())
    };
    if let Some(stage) = value_of("--stage") {
        let model = PathBuf::from(value_of("--model").expect("--model PATH"));
        run_stage(&stage, &model, &model.with_extension("in0.npy"));
        return;
    }
    let sizes = sizes_from_args();
    let dir = tempfile::tempdir().expect("a temporary directory");
    println!(
        "{:>8} {:>9} | {:>18} {:>18} {:>18} {:>18}",
        "weights", "archive", "open s / peak", "lower s / peak", "compile s / peak", "run s / peak"
    );
    for gigabytes in sizes {
        let width = width_for(gigabytes);
        let model = dir.path().join(format!("mlp{width}.pt2"));
        let archive = widened_mlp(&fixture(), &model, width, width, Fill::Random)
            .expect("writes the archive");
        write_input(&model.with_extension("in0.npy"), width);
        let weights = weight_bytes(width, width);
        let mut row = format!("{:>7.2}G {:>8.2}G |", gb(weights), gb(archive));
        for stage in STAGES {
            let (seconds, peak) = measure(stage, &model);
            row += &format!(
                " {seconds:>7.2} {:>5.2}G {:>4.2}x",
                gb(peak),
                peak as f64 / weights as f64
            );
        }
        println!("{row}");
        std::fs::remove_file(&model).ok();
    }
    println!(
        "(peak: the stage's process's peak resident memory, and its ratio to the weight bytes)"
    );
}

fn sizes_from_args() -> Vec<f64> {
    let args: Vec<String> = std::env::args().collect();
    let list = args
        .iter()
        .position(|a| a == "--sizes")
        .and_then(|i| args.get(i + 1))
        .map_or("0.1,1,4", String::as_str);
    list.split(',')
        .map(|s| s.parse().expect("--sizes takes gigabytes such as 0.1,1,4"))
        .collect()
}

/// The width `w` of a `Linear(w -> w)` first layer holding `gigabytes` of f32 weights.
fn width_for(gigabytes: f64) -> u64 {
    ((gigabytes * 1e9 / 4.0).sqrt() as u64).max(16)
}

fn gb(bytes: u64) -> f64 {
    bytes as f64 / 1e9
}

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata/models/mlp.pt2")
}

fn write_input(path: &Path, width: u64) {
    let data: Vec<u8> = (0..2 * width)
        .flat_map(|i| ((i % 7) as f32 * 0.25 - 0.75).to_le_bytes())
        .collect();
    let array = Array::new(Dtype::F32, vec![2, width as usize], data).expect("an input array");
    std::fs::write(path, array.to_npy_bytes()).expect("writes the input");
}

/// Runs one stage in a child process: its wall time and peak resident bytes.
fn measure(stage: &str, model: &Path) -> (f64, u64) {
    let out = Command::new(std::env::current_exe().expect("the bench binary"))
        .args(["--stage", stage, "--model"])
        .arg(model)
        .output()
        .expect("the stage runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stage} failed: {stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let field = |name: &str| -> f64 {
        stdout
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or_else(|| panic!("{stage}: no {name} in {stdout}"))
    };
    (field("seconds="), field("peak_bytes=") as u64)
}

fn run_stage(stage: &str, model: &Path, input: &Path) {
    let started = Instant::now();
    let options = Options::default();
    match stage {
        "open" => {
            tpuc_pt2::Archive::open(model).expect("opens");
        }
        "lower" => {
            tpuc_driver::lower(model, &options).expect("lowers");
        }
        "compile" => {
            let lowered = tpuc_driver::lower(model, &options).expect("lowers");
            let runtime = Runtime::cpu(None).expect("the XLA:CPU plugin");
            runtime
                .compile_module(&lowered.built.program.module)
                .expect("compiles");
        }
        "run" => {
            let runtime = Runtime::cpu(None).expect("the XLA:CPU plugin");
            let inputs = [Input::read(input).expect("the input")];
            let run = tpuc_driver::run(&runtime, model, &inputs, &options).expect("runs");
            assert_eq!(run.outputs[0].shape, [2, 3]);
        }
        other => panic!("unknown stage {other}"),
    }
    println!("seconds={}", started.elapsed().as_secs_f64());
    println!("peak_bytes={}", peak_resident_bytes());
}

/// `VmHWM` of this process, from `/proc/self/status`.
fn peak_resident_bytes() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").expect("/proc/self/status");
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map(|kb| kb * 1024)
        .expect("VmHWM in /proc/self/status")
}
