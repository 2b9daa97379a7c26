//! `tpuc prewarm` of a plan of 3 models × 2 shapes × 2 targets (12 items: `dyn_batch`,
//! `dyn_conv`, `dyn_seq`, each at two sizes of its symbolic dimension, for XLA:CPU and
//! `tpu:v5e:2x2`), through the driver as the command runs it:
//! - cold with `-j 1` and cold with `-j 2`, each into an empty cache, alternated over several
//!   rounds so that both see the same machine load; the ratio of their medians is the speed-up;
//! - the same two with a cache that already knows the plugins' digests, so only compiles remain;
//! - the second run over a warm cache (12 hits).
//!
//!     cargo bench -p tpuc-benches --bench prewarm [-- ROUNDS]
//!
//! An empty cache also knows no plugin digests, so each cold run hashes the plugin files once,
//! as a fresh CI machine does.

use std::path::Path;
use std::time::{Duration, Instant};

use tpuc_benches::{copy_dir, fixture_dir};
use tpuc_cache::{Cache, Mode};
use tpuc_driver::prewarm::{ItemOutcome, Mode as RunMode, Progress, Status, prewarm};
use tpuc_driver::{CacheTiers, Options, PluginPaths, Target};
use tpuc_prewarm::Plan;

const PLAN: &str = r#"
[[models]]
path = "models/dyn_[bc]*.pt2"
targets = ["cpu", "tpu:v5e:2x2"]
dims = { s77 = [2, 8] }

[[models]]
path = "models/dyn_seq.pt2"
targets = ["cpu", "tpu:v5e:2x2"]
dims = { s27 = [8, 32] }
"#;

struct Quiet;

impl Progress for Quiet {
    fn finished(&self, _index: usize, _outcome: &ItemOutcome) {}
}

/// One run of the plan into the cache at `dir`; its wall time. Every item must end `expected`.
fn run(plan: &Plan<Target>, jobs: usize, dir: &Path, expected: Status) -> Duration {
    let caches = CacheTiers::from(Cache::open(dir, Mode::ReadWrite));
    let started = Instant::now();
    let outcomes = prewarm(
        plan,
        RunMode::Compile,
        jobs,
        &Options::default(),
        &PluginPaths::default(),
        &caches,
        &Quiet,
    );
    let elapsed = started.elapsed();
    assert_eq!(outcomes.len(), 12);
    for outcome in &outcomes {
        assert_eq!(outcome.status, expected, "{outcome:?}");
    }
    elapsed
}

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

fn main() {
    let rounds: usize = std::env::args()
        .skip(1)
        .find_map(|arg| arg.parse().ok())
        .unwrap_or(3);
    let work = tempfile::tempdir().unwrap();
    let models = fixture_dir();
    std::fs::create_dir(work.path().join("models")).unwrap();
    for name in ["dyn_batch.pt2", "dyn_conv.pt2", "dyn_seq.pt2"] {
        std::fs::copy(models.join(name), work.path().join("models").join(name)).unwrap();
    }
    std::fs::write(work.path().join("plan.toml"), PLAN).unwrap();
    let plan = Plan::<Target>::load(&work.path().join("plan.toml")).expect("the plan loads");

    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    println!("prewarm of 12 items, {rounds} rounds, {cores} cores");
    // A cache that already knows the plugins' digests (`v1/memo`): only the compiles remain.
    let known_plugins = tempfile::tempdir().unwrap();
    run(&plan, 2, known_plugins.path(), Status::Compiled);
    let memo = known_plugins.path().join("v1/memo");

    let mut times: [[Vec<Duration>; 2]; 2] = Default::default();
    for round in 0..rounds {
        for (fresh, start) in [(0, "fresh cache"), (1, "plugins known")] {
            for (slot, jobs) in [(0, 1), (1, 2)] {
                let dir = tempfile::tempdir().unwrap();
                if fresh == 1 {
                    copy_dir(&memo, &dir.path().join("v1/memo"));
                }
                let time = run(&plan, jobs, dir.path(), Status::Compiled);
                println!(
                    "round {round}: {start}, -j {jobs}: {:.2} s",
                    time.as_secs_f64()
                );
                times[fresh][slot].push(time);
            }
        }
    }
    let warm: Vec<Duration> = (0..rounds)
        .map(|_| run(&plan, 2, known_plugins.path(), Status::Hit))
        .collect();

    for (fresh, start) in [(0, "fresh cache"), (1, "plugins known")] {
        let [serial, parallel] = times[fresh].clone().map(median);
        println!(
            "{start}: median -j 1 {:.2} s, -j 2 {:.2} s; -j 2 / -j 1 = {:.2}",
            serial.as_secs_f64(),
            parallel.as_secs_f64(),
            parallel.as_secs_f64() / serial.as_secs_f64()
        );
    }
    println!(
        "second run (12 hits): median {:.3} s",
        median(warm).as_secs_f64()
    );
}
