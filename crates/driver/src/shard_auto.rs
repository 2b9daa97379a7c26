//! `--shard auto`: every preset on every mesh the target's device count allows (`dp`, `fsdp`,
//! `tp` over all devices; `dp+tp` and `fsdp+tp` on each two-axis factorisation), compiled
//! through the cache in parallel, and the fastest by libtpu's estimate among those whose peak
//! memory fits the chip. The estimate is libtpu's `optimal_seconds` where it gives one, else a
//! roofline of its flops and bytes accessed (per device) on the chip's peak rates. The choice
//! enters cache keys only through the plan it picks.

use std::path::Path;

use tpuc_passes::sharding::{MeshSpec, PlanSource, Preset, ShardRequest};

use crate::compile::compile;
use crate::error::{DriverError, Result};
use crate::options::Options;
use crate::plugins::PluginPaths;
use crate::target::{Chip, Target};
use crate::tiers::CacheTiers;

/// One plan tried.
#[derive(Clone, Debug)]
pub struct Candidate {
    pub preset: Preset,
    pub mesh: MeshSpec,
    /// What its executable costs, or why it did not compile.
    pub outcome: std::result::Result<Estimate, String>,
}

impl Candidate {
    /// The sharding request it stands for.
    pub fn request(&self) -> ShardRequest {
        request(self.preset, &self.mesh)
    }
}

fn request(preset: Preset, mesh: &MeshSpec) -> ShardRequest {
    ShardRequest::new(PlanSource::Preset(preset), Some(mesh.clone()))
}

/// What a candidate's executable costs on one device.
#[derive(Clone, Debug, PartialEq)]
pub struct Estimate {
    /// The estimated time of one execution.
    pub seconds: f64,
    /// `optimal_seconds` (libtpu's) or `roofline`.
    pub source: &'static str,
    pub flops: Option<f64>,
    pub bytes_accessed: Option<f64>,
    /// Peak device memory (or arguments, outputs, scratch and code when no peak is reported).
    pub memory_bytes: i64,
    /// Whether that fits the chip's HBM.
    pub fits: bool,
}

/// The candidates for one target and the one picked.
#[derive(Clone, Debug)]
pub struct AutoShard {
    pub target: Target,
    pub candidates: Vec<Candidate>,
    /// The fastest candidate that fits; the first of equals.
    pub chosen: usize,
}

impl AutoShard {
    pub fn chosen(&self) -> &Candidate {
        &self.candidates[self.chosen]
    }
}

/// The presets and meshes `--shard auto` tries on `devices` devices, in a fixed order.
pub fn candidates(devices: u64) -> Vec<(Preset, MeshSpec)> {
    let mut plans = vec![
        (Preset::Dp, MeshSpec::single("dp", devices)),
        (Preset::Fsdp, MeshSpec::single("dp", devices)),
        (Preset::Tp, MeshSpec::single("tp", devices)),
    ];
    for preset in [Preset::DpTp, Preset::FsdpTp] {
        for data in (2..devices).filter(|&d| devices.is_multiple_of(d) && devices / d >= 2) {
            let mesh = MeshSpec {
                axes: vec![("dp".to_owned(), data), ("tp".to_owned(), devices / data)],
            };
            plans.push((preset, mesh));
        }
    }
    plans
}

/// Compiles `model` for `target` with every candidate plan (`jobs` at a time) and picks one.
pub fn choose(
    model: &Path,
    target: &Target,
    options: &Options,
    jobs: usize,
    plugins: &PluginPaths,
    caches: &CacheTiers,
) -> Result<AutoShard> {
    let chip = target.chip().ok_or_else(|| {
        DriverError::Unsupported(format!(
            "--shard auto ranks plans by libtpu's cost model, and {target} is not a TPU: give a \
             tpu: target, or a preset (`--shard tp`)"
        ))
    })?;
    let plans = candidates(target.devices());
    let outcomes = crate::parallel::map(&plans, jobs, |_, (preset, mesh)| {
        let mut options = options.clone();
        options.pipeline.sharding = Some(request(*preset, mesh));
        compile(
            model,
            std::slice::from_ref(target),
            &options,
            plugins,
            caches,
        )
    });
    let candidates: Vec<Candidate> = plans
        .into_iter()
        .zip(outcomes)
        .map(|((preset, mesh), outcome)| {
            let outcome = outcome
                .map_err(|error| first_line(&error.to_string()))
                .and_then(|report| {
                    let compiled = report.compiled.first().ok_or("nothing was compiled")?;
                    estimate(&compiled.manifest.report, &chip)
                });
            Candidate {
                preset,
                mesh,
                outcome,
            }
        })
        .collect();
    let chosen = candidates
        .iter()
        .enumerate()
        .filter_map(|(i, c)| c.outcome.as_ref().ok().filter(|e| e.fits).map(|e| (i, e)))
        .min_by(|(i, a), (j, b)| a.seconds.total_cmp(&b.seconds).then(i.cmp(j)))
        .map(|(i, _)| i)
        .ok_or_else(|| {
            DriverError::Unsupported(format!(
                "--shard auto: no plan for {target} compiles and fits the chip's {} of HBM: {}",
                gib(chip.hbm_bytes),
                candidates_summary(&candidates)
            ))
        })?;
    Ok(AutoShard {
        target: target.clone(),
        candidates,
        chosen,
    })
}

fn estimate(
    report: &tpuc_pjrt::ExecutableReport,
    chip: &Chip,
) -> std::result::Result<Estimate, String> {
    let cost = report.cost.as_ref().ok_or("the plugin reported no cost")?;
    let memory = report
        .memory
        .as_ref()
        .ok_or("the plugin reported no memory")?;
    let (flops, bytes) = (cost.flops, cost.bytes_accessed);
    let (seconds, source) = match cost.optimal_seconds.filter(|s| *s > 0.0) {
        Some(seconds) => (seconds, "optimal_seconds"),
        None => {
            let compute = flops.unwrap_or(0.0) / chip.peak_flops;
            let traffic = bytes.unwrap_or(0.0) / chip.hbm_bytes_per_second;
            (compute.max(traffic), "roofline")
        }
    };
    let memory_bytes = memory.peak_bytes.unwrap_or(
        memory.argument_bytes + memory.output_bytes - memory.alias_bytes
            + memory.temp_bytes
            + memory.generated_code_bytes,
    );
    Ok(Estimate {
        seconds,
        source,
        flops,
        bytes_accessed: bytes,
        memory_bytes,
        fits: u64::try_from(memory_bytes).is_ok_and(|m| m <= chip.hbm_bytes),
    })
}

fn first_line(text: &str) -> String {
    text.lines().next().unwrap_or_default().to_owned()
}

fn gib(bytes: u64) -> String {
    format!("{} GiB", bytes >> 30)
}

fn candidates_summary(candidates: &[Candidate]) -> String {
    let parts: Vec<String> = candidates
        .iter()
        .map(|c| match &c.outcome {
            Ok(estimate) => format!(
                "{} on {} needs {} bytes",
                c.preset, c.mesh, estimate.memory_bytes
            ),
            Err(reason) => format!("{} on {}: {reason}", c.preset, c.mesh),
        })
        .collect();
    parts.join("; ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_preset_on_every_mesh_of_the_devices() {
        let names = |devices| -> Vec<String> {
            candidates(devices)
                .iter()
                .map(|(preset, mesh)| format!("{preset} {mesh}"))
                .collect()
        };
        assert_eq!(
            names(4),
            [
                "dp dp=4",
                "fsdp dp=4",
                "tp tp=4",
                "dp+tp dp=2,tp=2",
                "fsdp+tp dp=2,tp=2"
            ]
        );
        assert_eq!(
            names(8),
            [
                "dp dp=8",
                "fsdp dp=8",
                "tp tp=8",
                "dp+tp dp=2,tp=4",
                "dp+tp dp=4,tp=2",
                "fsdp+tp dp=2,tp=4",
                "fsdp+tp dp=4,tp=2"
            ]
        );
        assert_eq!(names(2), ["dp dp=2", "fsdp dp=2", "tp tp=2"]);
    }
}
