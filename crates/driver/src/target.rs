//! Where to compile for: a TPU topology (libtpu, ahead of time) or XLA:CPU with N devices.

use std::fmt;
use std::str::FromStr;

use tpuc_pjrt::PluginKind;

/// TPU generations libtpu compiles for, with a topology name of each that it accepts.
pub const TPU_TOPOLOGIES: &[(&str, &str)] = &[
    ("v4", "v4:2x2x1"),
    ("v5e", "v5e:2x2"),
    ("v5p", "v5p:2x2x1"),
    ("v6e", "v6e:2x2"),
];

/// One TPU chip's memory and peak rates, from Google's published specifications: what
/// `--shard auto` checks memory against and estimates a roofline with.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Chip {
    pub hbm_bytes: u64,
    /// bfloat16 FLOP/s.
    pub peak_flops: f64,
    pub hbm_bytes_per_second: f64,
}

/// Per generation: HBM, peak bfloat16 FLOP/s, HBM bandwidth.
const CHIPS: &[(&str, Chip)] = &[
    (
        "v4",
        Chip {
            hbm_bytes: 32 << 30,
            peak_flops: 275e12,
            hbm_bytes_per_second: 1228e9,
        },
    ),
    (
        "v5e",
        Chip {
            hbm_bytes: 16 << 30,
            peak_flops: 197e12,
            hbm_bytes_per_second: 819e9,
        },
    ),
    (
        "v5p",
        Chip {
            hbm_bytes: 95 << 30,
            peak_flops: 459e12,
            hbm_bytes_per_second: 2765e9,
        },
    ),
    (
        "v6e",
        Chip {
            hbm_bytes: 32 << 30,
            peak_flops: 918e12,
            hbm_bytes_per_second: 1640e9,
        },
    ),
];

/// Where to compile for.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Target {
    /// A TPU topology such as `v5e:2x2`, compiled ahead of time by libtpu.
    Tpu { topology: String },
    /// XLA:CPU with this many devices.
    Cpu { devices: usize },
}

impl FromStr for Target {
    type Err = String;

    /// `tpu:<topology>`, `cpu` or `cpu:<devices>`.
    fn from_str(text: &str) -> Result<Target, String> {
        parse_target(text).map_err(|error| {
            let examples: Vec<String> = TPU_TOPOLOGIES
                .iter()
                .map(|(_, topology)| format!("tpu:{topology}"))
                .collect();
            let suggestion = suggest_target(text)
                .map(|target| format!(" (did you mean `{target}`?)"))
                .unwrap_or_default();
            format!(
                "{error}{suggestion}; targets are tpu:<topology>, cpu or cpu:<devices>, with \
                 topologies such as {} (`tpuc targets` lists what libtpu accepts)",
                examples.join(", ")
            )
        })
    }
}

fn parse_target(text: &str) -> Result<Target, String> {
    let families: Vec<&str> = TPU_TOPOLOGIES.iter().map(|(family, _)| *family).collect();
    match text.split_once(':') {
        None if text == "cpu" => Ok(Target::Cpu { devices: 1 }),
        None if text == "tpu" => Err("`tpu` needs a topology".to_owned()),
        Some(("cpu", count)) => match count.parse() {
            Ok(devices) if devices > 0 => Ok(Target::Cpu { devices }),
            _ => Err(format!("`{count}` is not a device count")),
        },
        Some(("tpu", topology)) => {
            let family = topology.split(':').next().unwrap_or_default();
            let shape = topology.split_once(':').map(|(_, shape)| shape);
            let shape_ok = shape.is_some_and(|shape| {
                !shape.is_empty()
                    && shape
                        .split('x')
                        .all(|n| n.parse::<u32>().is_ok_and(|n| n > 0))
            });
            if families.contains(&family) && shape_ok {
                let shape = shape.unwrap_or_default();
                let rank = if matches!(family, "v4" | "v5p") { 3 } else { 2 };
                let dims = shape.split('x').count();
                if shape == "1" {
                    let one_chip = vec!["1"; rank].join("x");
                    return Ok(Target::Tpu {
                        topology: format!("{family}:{one_chip}"),
                    });
                }
                if dims != rank {
                    return Err(format!(
                        "`{topology}`: a {family} topology has {rank} dimensions (chips per axis, \
                         such as `{family}:{}`)",
                        vec!["2"; rank].join("x")
                    ));
                }
                Ok(Target::Tpu {
                    topology: topology.to_owned(),
                })
            } else {
                Err(format!(
                    "`{topology}` is not a TPU topology (generations {})",
                    families.join(", ")
                ))
            }
        }
        _ => Err(format!("unknown target `{text}`")),
    }
}

/// A valid target close to `text`: a generation's example topology for a bare `tpu` or
/// `tpu:<generation>`, `-` read as `:` (`tpu:v5e-2x2`), a missing `tpu:` prefix.
fn suggest_target(text: &str) -> Option<String> {
    let generation = text.strip_prefix("tpu:").unwrap_or(text);
    if text == "tpu" {
        return TPU_TOPOLOGIES
            .iter()
            .find(|(family, _)| *family == "v5e")
            .map(|(_, topology)| format!("tpu:{topology}"));
    }
    if let Some((_, topology)) = TPU_TOPOLOGIES
        .iter()
        .find(|(family, _)| *family == generation)
    {
        return Some(format!("tpu:{topology}"));
    }
    [
        text.replace('-', ":"),
        format!("tpu:{text}"),
        format!("tpu:{}", text.replace('-', ":")),
    ]
    .into_iter()
    .find(|candidate| candidate != text && parse_target(candidate).is_ok())
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Target::Tpu { topology } => write!(f, "tpu:{topology}"),
            Target::Cpu { devices: 1 } => f.write_str("cpu"),
            Target::Cpu { devices } => write!(f, "cpu:{devices}"),
        }
    }
}

impl Target {
    pub fn plugin_kind(&self) -> PluginKind {
        match self {
            Target::Tpu { .. } => PluginKind::Tpu,
            Target::Cpu { .. } => PluginKind::Cpu,
        }
    }

    /// The number of devices: `cpu:N` has N, a TPU topology the product of its chip grid
    /// (`v5e:2x4` has 8; one device per chip).
    pub fn devices(&self) -> u64 {
        match self {
            Target::Cpu { devices } => *devices as u64,
            Target::Tpu { topology } => topology.split_once(':').map_or(1, |(_, grid)| {
                grid.split('x')
                    .filter_map(|n| n.parse::<u64>().ok())
                    .product()
            }),
        }
    }

    /// The chip of a TPU target; `None` for XLA:CPU.
    pub fn chip(&self) -> Option<Chip> {
        let Target::Tpu { topology } = self else {
            return None;
        };
        let generation = topology.split(':').next()?;
        CHIPS
            .iter()
            .find(|(name, _)| *name == generation)
            .map(|&(_, chip)| chip)
    }

    /// The topology as it enters the key: `v5e:2x2`, `cpu:1`.
    pub(crate) fn topology(&self) -> String {
        match self {
            Target::Tpu { topology } => topology.clone(),
            Target::Cpu { devices } => format!("cpu:{devices}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_parse_and_print() {
        for text in ["cpu", "cpu:4", "tpu:v5e:2x2", "tpu:v4:2x2x1", "tpu:v6e:2x2"] {
            assert_eq!(text.parse::<Target>().unwrap().to_string(), text);
        }
        assert_eq!("cpu:1".parse::<Target>().unwrap().to_string(), "cpu");
        for bad in [
            "gpu",
            "cpu:0",
            "cpu:x",
            "tpu:v9:2x2",
            "tpu:v5e",
            "tpu:v5e:2xa",
            "tpu",
        ] {
            let error = bad.parse::<Target>().unwrap_err();
            assert!(error.contains("tpu:v5e:2x2"), "{bad}: {error}");
            assert!(error.contains("tpu:v4:2x2x1"), "{bad}: {error}");
        }
    }

    #[test]
    fn near_misses_get_a_suggestion() {
        for (bad, meant) in [
            ("tpu", "tpu:v5e:2x2"),
            ("tpu:v5e-2x2", "tpu:v5e:2x2"),
            ("v5e:2x2", "tpu:v5e:2x2"),
            ("v5e-4x4", "tpu:v5e:4x4"),
            ("tpu:v5e", "tpu:v5e:2x2"),
            ("tpu:v4", "tpu:v4:2x2x1"),
        ] {
            let error = bad.parse::<Target>().unwrap_err();
            assert!(
                error.contains(&format!("did you mean `{meant}`?")),
                "{bad}: {error}"
            );
        }
        let error = "gpu".parse::<Target>().unwrap_err();
        assert!(!error.contains("did you mean"), "{error}");
    }

    #[test]
    fn one_chip_has_its_obvious_spellings() {
        for (text, topology) in [
            ("tpu:v5e:1", "v5e:1x1"),
            ("tpu:v6e:1", "v6e:1x1"),
            ("tpu:v4:1", "v4:1x1x1"),
            ("tpu:v5p:1x1x1", "v5p:1x1x1"),
        ] {
            assert_eq!(
                text.parse::<Target>().unwrap(),
                Target::Tpu {
                    topology: topology.to_owned()
                },
                "{text}"
            );
        }
        let error = "tpu:v5e:4".parse::<Target>().unwrap_err();
        assert!(error.contains("2 dimensions"), "{error}");
    }
}
