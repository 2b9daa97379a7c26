//! What the user asked for: `--shard PRESET|PLAN.toml` and `--mesh`, and the device count of
//! the target it is applied for.

use std::fmt;
use std::path::Path;
use std::str::FromStr;

use super::error::PlanError;
use super::mesh::MeshSpec;
use super::plan_file::PlanFile;

/// The built-in plans.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Preset {
    /// User inputs split on their batch dimension over `dp`; weights replicated.
    Dp,
    /// `dp`, and every weight split along one divisible dimension over `dp` (FSDP2's
    /// `Shard(0)` where it divides).
    Fsdp,
    /// Megatron-style tensor parallelism over `tp`, found from the graph.
    Tp,
    /// `dp` and `tp` on a two-axis mesh.
    DpTp,
    /// `fsdp` and `tp` on a two-axis mesh.
    FsdpTp,
}

/// The data axis of the presets.
pub const DATA_AXIS: &str = "dp";
/// The model axis of the presets.
pub const MODEL_AXIS: &str = "tp";

impl Preset {
    pub const ALL: [Preset; 5] = [
        Preset::Dp,
        Preset::Fsdp,
        Preset::Tp,
        Preset::DpTp,
        Preset::FsdpTp,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Preset::Dp => "dp",
            Preset::Fsdp => "fsdp",
            Preset::Tp => "tp",
            Preset::DpTp => "dp+tp",
            Preset::FsdpTp => "fsdp+tp",
        }
    }

    pub fn from_name(name: &str) -> Option<Preset> {
        Preset::ALL.into_iter().find(|p| p.name() == name)
    }

    /// Whether inputs split over the data axis.
    pub fn splits_batch(self) -> bool {
        self != Preset::Tp
    }

    /// Whether weights split over the data axis.
    pub fn splits_weights_on_data(self) -> bool {
        matches!(self, Preset::Fsdp | Preset::FsdpTp)
    }

    pub fn tensor_parallel(self) -> bool {
        matches!(self, Preset::Tp | Preset::DpTp | Preset::FsdpTp)
    }

    /// The axes the preset uses, in mesh order.
    pub fn axes(self) -> Vec<&'static str> {
        match self {
            Preset::Dp | Preset::Fsdp => vec![DATA_AXIS],
            Preset::Tp => vec![MODEL_AXIS],
            Preset::DpTp | Preset::FsdpTp => vec![DATA_AXIS, MODEL_AXIS],
        }
    }
}

impl fmt::Display for Preset {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A preset, or a plan file read and parsed.
#[derive(Clone, Debug, PartialEq)]
pub enum PlanSource {
    Preset(Preset),
    File(PlanFile),
}

impl PlanSource {
    /// A preset name, else the path of a TOML plan, read now.
    pub fn parse(text: &str) -> Result<PlanSource, PlanError> {
        if let Some(preset) = Preset::from_name(text) {
            return Ok(PlanSource::Preset(preset));
        }
        let path = Path::new(text);
        if path.extension().is_none_or(|e| e != "toml") && !path.exists() {
            return Err(PlanError::UnknownPlan {
                name: text.to_owned(),
                reason: "no preset has this name and it is not a .toml file".to_owned(),
            });
        }
        let contents = std::fs::read_to_string(path).map_err(|error| PlanError::UnknownPlan {
            name: text.to_owned(),
            reason: format!("cannot read it: {error}"),
        })?;
        Ok(PlanSource::File(PlanFile::parse(
            &path.display().to_string(),
            &contents,
        )?))
    }
}

impl FromStr for PlanSource {
    type Err = PlanError;

    fn from_str(text: &str) -> Result<PlanSource, PlanError> {
        PlanSource::parse(text)
    }
}

/// A plan, the mesh the user gave (if any) and the device count of the target.
#[derive(Clone, Debug, PartialEq)]
pub struct ShardRequest {
    pub plan: PlanSource,
    /// `--mesh`; else the plan file's, else one axis over all devices.
    pub mesh: Option<MeshSpec>,
    /// The target's device count, when there is a target.
    pub devices: Option<u64>,
}

impl ShardRequest {
    pub fn new(plan: PlanSource, mesh: Option<MeshSpec>) -> ShardRequest {
        ShardRequest {
            plan,
            mesh,
            devices: None,
        }
    }

    /// The request for a target with `devices` devices.
    pub fn for_devices(&self, devices: u64) -> ShardRequest {
        ShardRequest {
            devices: Some(devices),
            ..self.clone()
        }
    }

    /// The mesh the plan applies on, checked against the target.
    pub fn mesh(&self) -> Result<MeshSpec, PlanError> {
        let (preset, file_mesh) = match &self.plan {
            PlanSource::Preset(preset) => (Some(*preset), None),
            PlanSource::File(file) => (file.preset, file.mesh.clone()),
        };
        let mesh = match (self.mesh.clone().or(file_mesh), self.devices) {
            (Some(mesh), devices) => {
                if let Some(devices) = devices {
                    mesh.check_fits(devices)?;
                }
                mesh
            }
            (None, Some(devices)) => {
                let axes = preset.map_or(vec![super::request::DATA_AXIS], Preset::axes);
                if axes.len() > 1 {
                    return Err(PlanError::PresetAxis {
                        preset: preset.map_or_else(String::new, |p| p.name().to_owned()),
                        axis: axes[1].to_owned(),
                        mesh: MeshSpec::single(axes[0], devices).to_string(),
                    });
                }
                MeshSpec::single(axes[0], devices)
            }
            (None, None) => return Err(PlanError::NoDevices),
        };
        if let Some(preset) = preset {
            for axis in preset.axes() {
                if mesh.size(axis).is_none() {
                    return Err(PlanError::PresetAxis {
                        preset: preset.name().to_owned(),
                        axis: axis.to_owned(),
                        mesh: mesh.to_string(),
                    });
                }
            }
        }
        Ok(mesh)
    }

    /// A canonical description for cache keys: the preset or the plan file's contents, and the
    /// mesh.
    pub fn key_text(&self) -> Result<String, PlanError> {
        let plan = match &self.plan {
            PlanSource::Preset(preset) => format!("preset:{preset}"),
            PlanSource::File(file) => format!("file:{}", file.contents),
        };
        Ok(format!("{plan};mesh:{}", self.mesh()?))
    }
}
