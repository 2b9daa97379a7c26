//! A tensor's requested sharding: per dimension, mesh axes (major to minor) and whether
//! propagation may add more (`open`), checked against the tensor's shape and the mesh.

use tpuc_ir::{DimSharding, TensorSharding};

use super::error::PlanError;
use super::mesh::{MESH_NAME, MeshSpec};

#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct DimSpec {
    pub axes: Vec<String>,
    /// Propagation decides the rest (`?` in Shardy's syntax).
    pub open: bool,
}

impl DimSpec {
    pub fn sharded(axes: &[&str]) -> DimSpec {
        DimSpec {
            axes: axes.iter().map(|&a| a.to_owned()).collect(),
            open: false,
        }
    }
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct TensorSpec {
    pub dims: Vec<DimSpec>,
}

impl TensorSpec {
    pub fn replicated(rank: usize) -> TensorSpec {
        TensorSpec {
            dims: vec![DimSpec::default(); rank],
        }
    }

    /// Every dimension open and unsharded: propagation decides.
    pub fn open(rank: usize) -> TensorSpec {
        TensorSpec {
            dims: vec![
                DimSpec {
                    axes: Vec::new(),
                    open: true
                };
                rank
            ],
        }
    }

    /// Replicated except `dim`, sharded over `axes`.
    pub fn on_dim(rank: usize, dim: usize, axes: &[&str]) -> TensorSpec {
        let mut spec = TensorSpec::replicated(rank);
        spec.dims[dim] = DimSpec::sharded(axes);
        spec
    }

    /// Whether some dimension is sharded.
    pub fn is_sharded(&self) -> bool {
        self.dims.iter().any(|d| !d.axes.is_empty())
    }

    /// Checks the spec against the tensor (`tensor` names it in errors) and the mesh.
    pub fn check(&self, tensor: &str, shape: &[u64], mesh: &MeshSpec) -> Result<(), PlanError> {
        if self.dims.len() != shape.len() {
            return Err(PlanError::RankMismatch {
                tensor: tensor.to_owned(),
                shape: shape.to_vec(),
                rank: shape.len(),
                given: self.dims.len(),
            });
        }
        let mut seen: Vec<&str> = Vec::new();
        for (dim, (spec, &size)) in self.dims.iter().zip(shape).enumerate() {
            let mut shards = 1;
            for axis in &spec.axes {
                let Some(axis_size) = mesh.size(axis) else {
                    let known: Vec<String> =
                        mesh.axes.iter().map(|(n, _)| format!("`{n}`")).collect();
                    return Err(PlanError::UnknownAxis {
                        tensor: tensor.to_owned(),
                        shape: shape.to_vec(),
                        axis: axis.clone(),
                        known: known.join(", "),
                    });
                };
                if seen.contains(&axis.as_str()) {
                    return Err(PlanError::AxisTwice {
                        tensor: tensor.to_owned(),
                        shape: shape.to_vec(),
                        axis: axis.clone(),
                    });
                }
                seen.push(axis);
                shards *= axis_size;
            }
            if size % shards != 0 {
                let axes: Vec<String> = spec
                    .axes
                    .iter()
                    .map(|a| format!("axis `{a}` ({})", mesh.size(a).unwrap_or(1)))
                    .collect();
                return Err(PlanError::NotDivisible {
                    tensor: tensor.to_owned(),
                    shape: shape.to_vec(),
                    dim,
                    size,
                    axes: axes.join(" × "),
                    shards,
                });
            }
        }
        Ok(())
    }

    /// The Shardy attribute.
    pub fn to_ir(&self) -> TensorSharding {
        TensorSharding {
            mesh: MESH_NAME.to_owned(),
            dims: self
                .dims
                .iter()
                .map(|d| DimSharding {
                    axes: d.axes.clone(),
                    is_open: d.open,
                    priority: None,
                })
                .collect(),
            replicated: Vec::new(),
        }
    }
}

/// The static shape of a type (empty for a scalar or a shape with dynamic dimensions).
pub(crate) fn static_shape(ty: &tpuc_ir::Type) -> Vec<u64> {
    ty.as_tensor()
        .and_then(|t| t.static_shape())
        .unwrap_or_default()
}
