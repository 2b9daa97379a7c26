//! Placing the arguments of a multi-device program on its devices and putting its results
//! back together.
//!
//! Two kinds of programs run on several devices:
//! - SPMD programs (`sdy.mesh`, `sdy.sharding` on `main`'s signature): partition `p` runs on
//!   device `p`; its coordinates on the mesh are `p` written in the mixed radix of the axis
//!   sizes, major axis first (the mesh's default iota device order). A dimension sharded on
//!   axes `[a, b]` (major to minor) is cut into `size(a) * size(b)` equal blocks, and the
//!   device at coordinates `(.., a=i, .., b=j, ..)` holds block `i * size(b) + j`. Axes a
//!   tensor does not use replicate it.
//! - Programs of one rank with collectives (`mhlo.num_replicas = N`): replica `r` runs on
//!   device `r`. Per-rank values (user inputs, every result) are stacked on a new leading
//!   dimension of size N, rank `r` at index `r`; weights are the same on every rank.

use std::borrow::Cow;

use tpuc_ir::{Attribute, Mesh, Module, NamedAttrs, TensorSharding};
use tpuc_pjrt::CompileOptions;

use crate::blocks::{Block, copy_block, element_count, paste_block};
use crate::error::{DriverError, Result};
use crate::runtime::device_options;
use crate::tensor::HostTensor;

/// Where each argument and result of a program lives on its devices.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Placement {
    kind: Kind,
    /// Mesh axes, major to minor: name and size. Replica programs have one axis of replicas.
    axes: Vec<(String, usize)>,
    arguments: Vec<Place>,
    results: Vec<Place>,
    /// The arguments whose buffers the program takes over for a result (`tf.aliasing_output`):
    /// they must be the runtime's own copies, never bytes lent in place.
    donated: Vec<usize>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Partitions,
    Replicas,
}

/// Where one value lives.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Place {
    /// Cut into blocks over mesh axes (no axes: whole on every device).
    Blocks(Layout),
    /// One value per device, stacked on a leading dimension.
    PerDevice,
}

/// The mesh axes each dimension of one tensor is split over (major to minor); no axes: the
/// dimension is whole on every device.
pub type Layout = Vec<Vec<String>>;

const REPLICAS: &str = "replicas";

impl Placement {
    /// The placement of `main`'s arguments and results. A module without a mesh or replicas
    /// runs on one device; a value without `sdy.sharding` is replicated. Every argument of a
    /// replica program is taken to be the same on all ranks until
    /// [`Placement::with_per_device_arguments`] says otherwise.
    pub fn of(module: &Module) -> Result<Placement> {
        let main = module
            .function("main")
            .ok_or_else(|| placement_error("the module has no `main` function".to_owned(), None))?;
        let donated: Vec<usize> = main
            .arg_attrs
            .iter()
            .enumerate()
            .filter(|(_, attrs)| {
                attrs
                    .get(tpuc_ir::program::attrs::ALIASING_OUTPUT)
                    .is_some()
            })
            .map(|(index, _)| index)
            .collect();
        let replicas = module.num_replicas.unwrap_or(1) as usize;
        if replicas > 1 {
            if !module.meshes.is_empty() {
                return Err(placement_error(
                    "the module has both replicas and a mesh; tpuc runs one or the other"
                        .to_owned(),
                    None,
                ));
            }
            return Ok(Placement {
                kind: Kind::Replicas,
                axes: vec![(REPLICAS.to_owned(), replicas)],
                arguments: vec![Place::Blocks(Layout::new()); main.arg_attrs.len()],
                results: vec![Place::PerDevice; main.result_attrs.len()],
                donated,
            });
        }
        let axes: Vec<(String, usize)> = single_mesh(module)?
            .map(|mesh| {
                mesh.axes
                    .iter()
                    .map(|axis| (axis.name.clone(), axis.size as usize))
                    .collect()
            })
            .unwrap_or_default();
        let places = |attrs: &[NamedAttrs], what: &str| -> Result<Vec<Place>> {
            attrs
                .iter()
                .enumerate()
                .map(|(index, attrs)| {
                    layout_of(attrs, &axes, &format!("{what} {index}")).map(Place::Blocks)
                })
                .collect()
        };
        Ok(Placement {
            kind: Kind::Partitions,
            arguments: places(&main.arg_attrs, "argument")?,
            results: places(&main.result_attrs, "result")?,
            axes,
            donated,
        })
    }

    /// The placement of a one-device program with `arguments` arguments.
    pub fn single(arguments: usize) -> Placement {
        Placement {
            kind: Kind::Partitions,
            axes: Vec::new(),
            arguments: vec![Place::Blocks(Layout::new()); arguments],
            results: Vec::new(),
            donated: Vec::new(),
        }
    }

    /// Whether the program takes over argument `index`'s buffer for a result.
    pub fn is_donated(&self, index: usize) -> bool {
        self.donated.contains(&index)
    }

    /// Whether this program's argument `argument` lives on the devices as `other`'s result
    /// `result` does, so that one's buffers can be the other's without a copy.
    pub fn argument_like_result(&self, argument: usize, other: &Placement, result: usize) -> bool {
        self.kind == other.kind
            && self.axes == other.axes
            && self.arguments.get(argument).is_some()
            && self.arguments.get(argument) == other.results.get(result)
    }

    /// Whether argument `index` is the same whole tensor on every device.
    pub fn is_whole(&self, index: usize) -> bool {
        match self.arguments.get(index) {
            Some(Place::Blocks(layout)) => layout.iter().all(Vec::is_empty),
            Some(Place::PerDevice) => false,
            None => self.device_count() <= 1,
        }
    }

    /// Marks arguments of a replica program that hold one value per rank (stacked).
    pub fn with_per_device_arguments(mut self, indices: impl IntoIterator<Item = usize>) -> Self {
        if self.kind == Kind::Replicas {
            for index in indices {
                if let Some(place) = self.arguments.get_mut(index) {
                    *place = Place::PerDevice;
                }
            }
        }
        self
    }

    /// How many devices the program runs on.
    pub fn device_count(&self) -> usize {
        self.axes.iter().map(|(_, size)| size).product()
    }

    /// How many ranks a replica program stacks per-rank values over (`None` for other programs).
    pub fn ranks(&self) -> Option<usize> {
        (self.kind == Kind::Replicas).then(|| self.device_count())
    }

    /// Compile options that run the program on devices `0..device_count()`: partition or
    /// replica `i` on device `i`, the Shardy partitioner for SPMD programs.
    pub fn compile_options(&self) -> CompileOptions {
        let devices = self.device_count() as u64;
        match self.kind {
            Kind::Partitions => device_options(devices, 1),
            Kind::Replicas => device_options(1, devices),
        }
    }

    /// Argument `index`'s block for each device, in device order.
    pub fn split_argument(
        &self,
        index: usize,
        tensor: &HostTensor<'_>,
    ) -> Result<Vec<HostTensor<'static>>> {
        let what = format!("argument {index}");
        let rank = tensor.shape.len();
        let (layout, stacked) = self.layout(&self.arguments, index, rank, &what)?;
        let blocks = self.blocks(&layout, &tensor.shape, &what)?;
        Ok(blocks
            .iter()
            .map(|block| HostTensor {
                dtype: tensor.dtype,
                shape: block.sizes[usize::from(stacked)..].to_vec(),
                bytes: Cow::Owned(copy_block(tensor, block)),
            })
            .collect())
    }

    /// Result `index` whole, from each device's block of it (in device order).
    pub fn assemble_result(
        &self,
        index: usize,
        shards: Vec<HostTensor<'static>>,
    ) -> Result<HostTensor<'static>> {
        let what = format!("result {index}");
        let first = shards
            .first()
            .ok_or_else(|| placement_error(format!("no device returned {what}"), None))?;
        let (layout, stacked) = self.layout(&self.results, index, first.shape.len(), &what)?;
        let local = std::iter::repeat_n(1, usize::from(stacked)).chain(first.shape.iter().copied());
        let shape: Vec<i64> = local
            .enumerate()
            .map(|(dim, size)| size * layout.get(dim).map_or(1, |axes| self.product(axes)) as i64)
            .collect();
        let blocks = self.blocks(&layout, &shape, &what)?;
        let itemsize = first.dtype.itemsize();
        let mut whole = HostTensor {
            dtype: first.dtype,
            bytes: Cow::Owned(vec![0; element_count(&shape) * itemsize]),
            shape,
        };
        for (device, (shard, block)) in shards.iter().zip(&blocks).enumerate() {
            let expected = &block.sizes[usize::from(stacked)..];
            if shard.shape != expected || shard.dtype != whole.dtype {
                return Err(placement_error(
                    format!(
                        "device {device} returned {}{:?} for {what}, expected {}{expected:?}",
                        shard.dtype, shard.shape, whole.dtype
                    ),
                    None,
                ));
            }
            if block.is_primary {
                paste_block(&mut whole, block, &shard.bytes);
            }
        }
        Ok(whole)
    }

    /// The layout of value `index` of `places` on the whole (for per-device values: stacked)
    /// tensor, and whether it is stacked; `rank` is the rank of the value given.
    fn layout(
        &self,
        places: &[Place],
        index: usize,
        rank: usize,
        what: &str,
    ) -> Result<(Layout, bool)> {
        let place = match places.get(index) {
            Some(place) => place,
            None if self.device_count() <= 1 => return Ok((Layout::new(), false)),
            None => {
                return Err(placement_error(
                    format!("the module's `main` has no {what}"),
                    None,
                ));
            }
        };
        match place {
            Place::PerDevice => {
                let all: Vec<String> = self.axes.iter().map(|(name, _)| name.clone()).collect();
                Ok((vec![all], true))
            }
            Place::Blocks(layout) if !layout.is_empty() && layout.len() != rank => {
                Err(placement_error(
                    format!(
                        "{what} has rank {rank}, but its sharding names {} dimensions",
                        layout.len()
                    ),
                    None,
                ))
            }
            Place::Blocks(layout) => Ok((layout.clone(), false)),
        }
    }

    /// Each device's block of a tensor of `shape` laid out as `layout`.
    fn blocks(&self, layout: &Layout, shape: &[i64], what: &str) -> Result<Vec<Block>> {
        if layout.len() > shape.len() {
            return Err(placement_error(
                format!(
                    "{what} has rank {}, but is placed as one value per rank",
                    shape.len()
                ),
                Some("stack per-rank values on a leading dimension, one entry per rank".to_owned()),
            ));
        }
        let mut sizes = shape.to_vec();
        for (dim, axes) in layout.iter().enumerate() {
            let parts = self.product(axes) as i64;
            if shape[dim] % parts != 0 {
                return Err(placement_error(
                    format!(
                        "{what}: dimension {dim} of size {} does not split into {parts} equal \
                         blocks over mesh axes {axes:?}",
                        shape[dim]
                    ),
                    Some("shard only dimensions the axes' sizes divide".to_owned()),
                ));
            }
            sizes[dim] = shape[dim] / parts;
        }
        Ok((0..self.device_count().max(1))
            .map(|device| {
                let coords = self.coordinates(device);
                let starts = (0..shape.len())
                    .map(|dim| match layout.get(dim) {
                        Some(axes) => self.block_index(axes, &coords) as i64 * sizes[dim],
                        None => 0,
                    })
                    .collect();
                let is_primary = self.axes.iter().zip(&coords).all(|((name, _), &coord)| {
                    coord == 0 || layout.iter().flatten().any(|a| a == name)
                });
                Block {
                    starts,
                    sizes: sizes.clone(),
                    full: shape.to_vec(),
                    is_primary,
                }
            })
            .collect())
    }

    /// The device's coordinate on each mesh axis.
    fn coordinates(&self, device: usize) -> Vec<usize> {
        let mut rest = device;
        let mut coords = vec![0; self.axes.len()];
        for (coord, (_, size)) in coords.iter_mut().zip(&self.axes).rev() {
            *coord = rest % size;
            rest /= size;
        }
        coords
    }

    /// Which block along one dimension split over `axes` the device at `coords` holds.
    fn block_index(&self, axes: &[String], coords: &[usize]) -> usize {
        axes.iter().fold(0, |index, name| {
            let position = self.axes.iter().position(|(axis, _)| axis == name);
            let (size, coord) = position.map_or((1, 0), |p| (self.axes[p].1, coords[p]));
            index * size + coord
        })
    }

    fn product(&self, axes: &[String]) -> usize {
        axes.iter()
            .filter_map(|name| self.axes.iter().find(|(axis, _)| axis == name))
            .map(|(_, size)| size)
            .product()
    }
}

fn single_mesh(module: &Module) -> Result<Option<&Mesh>> {
    match module.meshes.as_slice() {
        [] => Ok(None),
        [mesh] => Ok(Some(mesh)),
        meshes => Err(placement_error(
            format!(
                "the module declares {} meshes; tpuc runs programs on one mesh",
                meshes.len()
            ),
            None,
        )),
    }
}

fn layout_of(attrs: &NamedAttrs, axes: &[(String, usize)], what: &str) -> Result<Layout> {
    let Some(attribute) = attrs.get("sdy.sharding") else {
        return Ok(Layout::new());
    };
    let Attribute::Sharding(TensorSharding { dims, .. }) = attribute else {
        return Err(placement_error(
            format!("{what}: `sdy.sharding` is not a `#sdy.sharding<...>`"),
            None,
        ));
    };
    for axis in dims.iter().flat_map(|dim| &dim.axes) {
        if !axes.iter().any(|(name, _)| name == axis) {
            return Err(placement_error(
                format!("{what} is sharded on axis \"{axis}\", which the mesh lacks"),
                None,
            ));
        }
    }
    Ok(dims.iter().map(|dim| dim.axes.clone()).collect())
}

fn placement_error(message: String, help: Option<String>) -> DriverError {
    DriverError::Placement { message, help }
}

#[cfg(test)]
mod tests;
