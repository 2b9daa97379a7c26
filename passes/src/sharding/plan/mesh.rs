//! Device meshes: `--mesh dp=2,tp=2` and how a plan's mesh is fitted to a target.

use std::fmt;
use std::str::FromStr;

use super::error::PlanError;

/// The name of the one mesh tpuc declares (`sdy.mesh @mesh`).
pub const MESH_NAME: &str = "mesh";

/// Named mesh axes and their sizes, major to minor.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct MeshSpec {
    pub axes: Vec<(String, u64)>,
}

impl MeshSpec {
    /// One axis over `devices`.
    pub fn single(axis: &str, devices: u64) -> MeshSpec {
        MeshSpec {
            axes: vec![(axis.to_owned(), devices)],
        }
    }

    pub fn devices(&self) -> u64 {
        self.axes.iter().map(|(_, size)| size).product()
    }

    pub fn size(&self, axis: &str) -> Option<u64> {
        self.axes
            .iter()
            .find(|(name, _)| name == axis)
            .map(|(_, size)| *size)
    }

    /// The Shardy declaration.
    pub fn to_ir(&self) -> tpuc_ir::Mesh {
        tpuc_ir::Mesh {
            name: MESH_NAME.to_owned(),
            axes: self
                .axes
                .iter()
                .map(|(name, size)| tpuc_ir::MeshAxis {
                    name: name.clone(),
                    size: *size,
                })
                .collect(),
        }
    }

    /// Checks that the mesh uses exactly the target's `devices`.
    pub fn check_fits(&self, devices: u64) -> Result<(), PlanError> {
        if self.devices() == devices {
            Ok(())
        } else {
            Err(PlanError::MeshDoesNotFit {
                mesh: self.to_string(),
                mesh_devices: self.devices(),
                devices,
            })
        }
    }
}

impl FromStr for MeshSpec {
    type Err = PlanError;

    /// `dp=2,tp=2`
    fn from_str(text: &str) -> Result<MeshSpec, PlanError> {
        let bad = |reason: String| PlanError::MeshSyntax {
            text: text.to_owned(),
            reason,
        };
        let mut axes: Vec<(String, u64)> = Vec::new();
        for part in text.split(',').map(str::trim) {
            let (name, size) = part
                .split_once('=')
                .ok_or_else(|| bad(format!("`{part}` is not NAME=SIZE")))?;
            let valid_name =
                !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
            if !valid_name {
                return Err(bad(format!(
                    "`{name}` is not an axis name (letters, digits, _)"
                )));
            }
            let size: u64 = match size.parse() {
                Ok(size) if size > 0 => size,
                _ => return Err(bad(format!("`{size}` is not a positive axis size"))),
            };
            if axes.iter().any(|(known, _)| known == name) {
                return Err(bad(format!("axis `{name}` is given twice")));
            }
            axes.push((name.to_owned(), size));
        }
        Ok(MeshSpec { axes })
    }
}

impl fmt::Display for MeshSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let parts: Vec<String> = self.axes.iter().map(|(n, s)| format!("{n}={s}")).collect();
        f.write_str(&parts.join(","))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn meshes_parse_print_and_fit() {
        let mesh: MeshSpec = "dp=2,tp=4".parse().unwrap();
        assert_eq!(mesh.to_string(), "dp=2,tp=4");
        assert_eq!(mesh.devices(), 8);
        assert!(mesh.check_fits(8).is_ok());
        assert!(matches!(
            mesh.check_fits(4),
            Err(PlanError::MeshDoesNotFit { devices: 4, .. })
        ));
        for bad in ["", "dp", "dp=0", "dp=x", "dp=2,dp=2", "d-p=2"] {
            assert!(bad.parse::<MeshSpec>().is_err(), "{bad}");
        }
    }
}
