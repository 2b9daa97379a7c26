//! What an op lowering works with: the builder, the node, its outputs' metadata.

use std::cell::{Cell, RefCell};
use std::collections::HashSet;

use tpuc_ir::{FunctionBuilder, Value};
use tpuc_pt2::DType;
use tpuc_pt2::schema::{Argument, Graph, Node, TensorMeta};

use crate::env::Val;
use crate::error::{LowerError, OpError, OpResult};
use crate::specialize::Symbols;
use crate::support;

/// What op lowerings ask of the walker that runs them: the program's symbols and world size,
/// the enclosing `torch.autocast` dtype, the `--debug` checks so far, and lowering a subgraph
/// (a higher-order op's branch or body).
pub(crate) trait Walk {
    fn symbols(&self) -> &Symbols;
    fn world(&self) -> Option<u32>;
    fn autocast(&self) -> &Cell<Option<DType>>;
    fn checks(&self) -> Option<&RefCell<Vec<(tpuc_ir::ResultRole, tpuc_ir::Value)>>>;
    fn lower_graph(
        &self,
        b: &mut FunctionBuilder,
        graph: &Graph,
        inputs: Vec<Val>,
    ) -> Result<Vec<Val>, LowerError>;
}

pub(crate) struct Cx<'a> {
    pub b: &'a mut FunctionBuilder,
    pub node: &'a Node,
    pub(crate) graph: &'a Graph,
    pub(crate) used: &'a HashSet<String>,
    pub(crate) walker: &'a dyn Walk,
    /// New values of written arguments that are not among the results, by argument name.
    pub(crate) writes: Vec<(String, tpuc_ir::Value)>,
}

impl Cx<'_> {
    pub fn symbols(&self) -> &Symbols {
        self.walker.symbols()
    }

    /// Records the new value of argument `name`, which the op writes in place without returning
    /// it (`_native_batch_norm_legit`'s running statistics).
    pub fn write(&mut self, name: &str, value: tpuc_ir::Value) {
        self.writes.push((name.to_owned(), value));
    }

    /// `--debug`: checks that every element of `index` lies in `[low, high)`; the run reports
    /// this node when one does not. Nothing without `--debug`.
    pub fn check_index(&mut self, index: tpuc_ir::Value, low: i64, high: i64) -> OpResult<()> {
        let Some(checks) = self.walker.checks() else {
            return Ok(());
        };
        let value = crate::checks::index_check(self.b, index, low, high)?;
        let source = tpuc_ir::ResultRole::Check {
            kind: tpuc_ir::CheckKind::Index { low, high },
            node: crate::node::node_name(self.node),
            target: self.node.target.clone(),
            source_line: crate::node::source_line(self.node).map(|s| s.to_string()),
        };
        checks.borrow_mut().push((source, value));
        Ok(())
    }

    /// The number of ranks a program with collectives runs on.
    pub fn world_size(&self) -> OpResult<u32> {
        self.walker
            .world()
            .ok_or_else(|| OpError::new("internal: a collective in a program without a world size"))
    }

    fn output(&self, i: usize) -> OpResult<&Argument> {
        self.node
            .outputs
            .get(i)
            .ok_or_else(|| OpError::new(format!("the node has no output {i}")))
    }

    /// Torch's metadata of tensor output `i`.
    pub fn out_meta(&self, i: usize) -> OpResult<&TensorMeta> {
        let output = self.output(i)?;
        let name = output
            .as_tensor_name()
            .ok_or_else(|| OpError::new(format!("output {i} is not a tensor")))?;
        self.graph
            .tensor_values
            .get(name)
            .ok_or_else(|| OpError::new(format!("output `{name}` has no tensor metadata")))
    }

    /// The static shape of tensor output `i`.
    pub fn out_shape(&self, i: usize) -> OpResult<Vec<i64>> {
        self.symbols().sizes(self.out_meta(i)?)
    }

    pub fn out_dtype(&self, i: usize) -> OpResult<DType> {
        Symbols::dtype(self.out_meta(i)?)
    }

    /// Whether anything uses output `i` (multi-output ops skip the others).
    pub fn used(&self, i: usize) -> bool {
        match self.node.outputs.get(i) {
            Some(Argument::AsTensors(list)) => list.iter().any(|t| self.used.contains(&t.name)),
            Some(arg) => arg.value_name().is_some_and(|n| self.used.contains(n)),
            None => false,
        }
    }

    /// The dtype `torch.autocast` asks matrix products to compute in, inside its region.
    pub fn autocast(&self) -> Option<DType> {
        self.walker.autocast().get()
    }

    /// Float operands of an op `torch.autocast` runs in its lower precision (matrix products,
    /// convolutions, attention) converted to the region's dtype; unchanged outside a region.
    pub fn autocast_floats<const N: usize>(&mut self, values: [Value; N]) -> OpResult<[Value; N]> {
        let Some(dtype) = self.autocast() else {
            return Ok(values);
        };
        let mut out = values;
        for v in &mut out {
            if support::element(self.b, *v)?.is_float() {
                *v = support::convert(self.b, *v, dtype)?;
            }
        }
        Ok(out)
    }

    /// Float operands of an op `torch.autocast` runs in float32 (losses) converted to it
    /// inside a region.
    pub fn autocast_f32<const N: usize>(&mut self, values: [Value; N]) -> OpResult<[Value; N]> {
        if self.autocast().is_none() {
            return Ok(values);
        }
        let mut out = values;
        for v in &mut out {
            if support::element(self.b, *v)?.is_float() {
                *v = support::convert(self.b, *v, DType::F32)?;
            }
        }
        Ok(out)
    }

    /// Lowers a subgraph (a higher-order op's branch or body) into the current block.
    pub fn lower_subgraph(&mut self, graph: &Graph, inputs: Vec<Val>) -> OpResult<Vec<Val>> {
        self.walker
            .lower_graph(self.b, graph, inputs)
            .map_err(OpError::nested)
    }
}
