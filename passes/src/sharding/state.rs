//! What propagation knows about each value: per dimension, its mesh axes (major to minor) and
//! whether they are fixed (a user's sharding) or may still grow.

use std::collections::HashMap;

use tpuc_ir::{DimSharding, Mesh, TensorSharding, Value};

/// One dimension's sharding.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DimState {
    pub axes: Vec<String>,
    /// Given by the user (an argument's closed dimension, a sharding constraint): propagation
    /// reads it and never changes it.
    pub fixed: bool,
}

/// The shardings of the values propagation has seen; a value it has not seen is unsharded and
/// open.
#[derive(Debug)]
pub struct State<'m> {
    pub mesh: &'m Mesh,
    values: HashMap<Value, Vec<DimState>>,
}

impl<'m> State<'m> {
    pub fn new(mesh: &'m Mesh) -> Self {
        State {
            mesh,
            values: HashMap::new(),
        }
    }

    pub fn axis_size(&self, axis: &str) -> u64 {
        self.mesh
            .axes
            .iter()
            .find(|a| a.name == axis)
            .map_or(1, |a| a.size)
    }

    /// The product of the sizes of `axes`.
    pub fn axes_size(&self, axes: &[String]) -> u64 {
        axes.iter().map(|a| self.axis_size(a)).product()
    }

    pub fn get(&self, value: Value, rank: usize) -> Vec<DimState> {
        self.values
            .get(&value)
            .cloned()
            .unwrap_or_else(|| vec![DimState::default(); rank])
    }

    pub fn set(&mut self, value: Value, dims: Vec<DimState>) {
        self.values.insert(value, dims);
    }

    /// Seeds `value` from an `#sdy.sharding`: closed dimensions are fixed, open ones may grow.
    pub fn seed(&mut self, value: Value, sharding: &TensorSharding) {
        let dims = sharding
            .dims
            .iter()
            .map(|dim| DimState {
                axes: dim.axes.clone(),
                fixed: !dim.is_open,
            })
            .collect();
        self.values.insert(value, dims);
    }

    /// The sharding of `value` in `#sdy.sharding` form: closed dimensions when `closed`, else
    /// every dimension open (XLA may refine what propagation chose).
    pub fn sharding(&self, value: Value, rank: usize, closed: bool) -> TensorSharding {
        let dims = self
            .get(value, rank)
            .into_iter()
            .map(|dim| DimSharding {
                is_open: !closed && !dim.fixed,
                axes: dim.axes,
                priority: None,
            })
            .collect();
        TensorSharding {
            mesh: self.mesh.name.clone(),
            dims,
            replicated: Vec::new(),
        }
    }
}
