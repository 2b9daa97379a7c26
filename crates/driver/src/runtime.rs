//! Compiling and executing on the XLA:CPU PJRT plugin.

use std::borrow::Cow;
use std::path::Path;

use tpuc_pjrt::{
    Buffer, Client, CompileOptions, ElementType, HostBackedBuffer, LoadedExecutable, Plugin,
    PluginKind, Program,
};
use tpuc_pt2::DType;

use crate::error::{DriverError, Result};
use crate::shard_io::Placement;
use crate::tensor::HostTensor;

/// A client of the XLA:CPU plugin with one or more devices.
#[derive(Clone, Debug)]
pub struct Runtime {
    client: Client,
}

/// A module compiled for a [`Runtime`].
#[derive(Debug)]
pub struct Executable {
    loaded: LoadedExecutable,
}

impl Runtime {
    /// Loads the XLA:CPU plugin (`plugin`, else `$TPUC_CPU_PLUGIN`, else the plugin directory)
    /// and opens a one-device client.
    pub fn cpu(plugin: Option<&Path>) -> Result<Runtime> {
        Self::cpu_devices(plugin, 1)
    }

    /// [`Runtime::cpu`] with `devices` XLA:CPU devices, for SPMD programs.
    pub fn cpu_devices(plugin: Option<&Path>, devices: usize) -> Result<Runtime> {
        let stage = "loading the XLA:CPU plugin";
        let path = tpuc_pjrt::locate(PluginKind::Cpu, plugin).map_err(DriverError::pjrt(stage))?;
        let plugin = Plugin::load(path).map_err(DriverError::pjrt(stage))?;
        let client = plugin
            .cpu_client(devices)
            .map_err(DriverError::pjrt(stage))?;
        Ok(Runtime { client })
    }

    /// The number of devices programs run on.
    pub fn device_count(&self) -> usize {
        self.client.device_count()
    }

    /// Compiles StableHLO text (either form) for one replica and one partition.
    pub fn compile(&self, mlir: &str) -> Result<Executable> {
        self.compile_with(mlir, &CompileOptions::new())
    }

    /// Compiles StableHLO text (either form) with `options`.
    pub fn compile_with(&self, mlir: &str, options: &CompileOptions) -> Result<Executable> {
        let loaded = self
            .client
            .compile(&Program::mlir(mlir), options)
            .map_err(DriverError::pjrt("compiling the module on XLA:CPU"))?;
        Ok(Executable { loaded })
    }

    /// Compiles a module, handing its generic form to the plugin, for as many partitions as
    /// its mesh or replicas have devices.
    pub fn compile_module(&self, module: &tpuc_ir::Module) -> Result<Executable> {
        self.compile_with(
            &tpuc_ir::print::generic(module, &Default::default()),
            &Placement::of(module)?.compile_options(),
        )
    }

    /// Loads an executable serialized by the same plugin (`PJRT_Executable_DeserializeAndLoad`).
    pub fn deserialize(&self, bytes: &[u8]) -> Result<Executable> {
        let loaded = self
            .client
            .deserialize(bytes)
            .map_err(DriverError::pjrt("loading a cached executable"))?;
        Ok(Executable { loaded })
    }

    /// The plugin library the runtime's client belongs to.
    pub fn plugin_path(&self) -> &Path {
        self.client.plugin().path()
    }
}

impl Executable {
    /// The executable's serialized form, which [`Runtime::deserialize`] loads again.
    pub fn serialize(&self) -> Result<Vec<u8>> {
        self.loaded
            .serialize()
            .map_err(DriverError::pjrt("serializing the executable"))
    }

    /// What the plugin reports about the executable: memory statistics, cost analysis.
    pub fn report(&self) -> tpuc_pjrt::Result<tpuc_pjrt::ExecutableReport> {
        self.loaded.executable()?.report()
    }

    /// Runs the program once on one device with `arguments` (see [`Executable::execute_placed`]).
    pub fn execute(&self, arguments: &[HostTensor<'_>]) -> Result<Vec<HostTensor<'static>>> {
        let placement = Placement::single(arguments.len());
        self.execute_placed(&placement, arguments.iter().map(|a| Ok(a.borrowed())))
    }

    /// Runs the program on its devices. Arguments are moved to the devices one at a time, as
    /// they come: borrowed bytes (a weight in the mapped archive, an input) are handed to the
    /// plugin in place, which XLA:CPU uses as device memory without a copy; owned bytes (a
    /// materialised view, a device's block of a sharded argument) are copied and dropped at
    /// once. So no second copy of the weights is ever held. Each argument is cut into its
    /// devices' blocks as `placement` says, and each result is put back together.
    pub fn execute_placed<'a>(
        &self,
        placement: &Placement,
        arguments: impl IntoIterator<Item = Result<HostTensor<'a>>>,
    ) -> Result<Vec<HostTensor<'static>>> {
        let resident = self.upload_all(placement, arguments)?;
        let results = self.execute_resident(&resident)?;
        drop(resident);
        (0..results.count())
            .map(|index| results.to_host(placement, index))
            .collect()
    }

    /// Moves `arguments` to the devices (as [`Executable::execute_placed`] does) and keeps them
    /// there for [`Executable::execute_resident`].
    pub fn upload_all<'a>(
        &self,
        placement: &Placement,
        arguments: impl IntoIterator<Item = Result<HostTensor<'a>>>,
    ) -> Result<DeviceArguments<'a>> {
        let devices = self.check_devices(placement)?;
        let mut resident = DeviceArguments {
            per_device: (0..devices).map(|_| Vec::new()).collect(),
        };
        for (index, argument) in arguments.into_iter().enumerate() {
            let blocks = self.upload(placement, index, &argument?)?;
            for (list, block) in resident.per_device.iter_mut().zip(blocks) {
                list.push(block);
            }
        }
        Ok(resident)
    }

    /// Replaces resident argument `index` with `argument` (a new batch).
    pub fn replace_argument(
        &self,
        resident: &mut DeviceArguments<'_>,
        placement: &Placement,
        index: usize,
        argument: &HostTensor<'_>,
    ) -> Result<()> {
        let blocks = if placement.is_whole(index) {
            vec![argument.borrowed(); resident.per_device.len()]
        } else {
            placement.split_argument(index, argument)?
        };
        for (device, (list, block)) in resident.per_device.iter_mut().zip(blocks).enumerate() {
            list[index] = self.copied(&block, device)?;
        }
        Ok(())
    }

    /// Runs the program on resident arguments; the results stay on the devices. Donated
    /// arguments are used up: give them their results back with [`DeviceArguments::adopt`].
    pub fn execute_resident(&self, resident: &DeviceArguments<'_>) -> Result<DeviceResults> {
        let refs: Vec<Vec<&Buffer>> = resident
            .per_device
            .iter()
            .map(|list| list.iter().map(OnDevice::buffer).collect())
            .collect();
        let refs: Vec<&[&Buffer]> = refs.iter().map(Vec::as_slice).collect();
        let per_device = self
            .loaded
            .execute(&refs)
            .map_err(DriverError::pjrt("executing the program"))?;
        Ok(DeviceResults {
            per_device: per_device
                .into_iter()
                .map(|results| results.into_iter().map(Some).collect())
                .collect(),
        })
    }

    fn check_devices(&self, placement: &Placement) -> Result<usize> {
        let devices = placement.device_count().max(1);
        if self.loaded.device_count() != devices {
            return Err(DriverError::Placement {
                message: format!(
                    "the executable runs on {} device(s), but the program's placement has {devices}",
                    self.loaded.device_count()
                ),
                help: Some(format!("run it with --target cpu:{devices}")),
            });
        }
        Ok(devices)
    }

    /// Argument `index` on each device: borrowed bytes (a weight in the mapped archive, an
    /// input) handed to the plugin in place, which XLA:CPU uses as device memory without a
    /// copy; owned bytes (a materialised view, a device's block) copied and dropped at once.
    fn upload<'a>(
        &self,
        placement: &Placement,
        index: usize,
        argument: &HostTensor<'a>,
    ) -> Result<Vec<OnDevice<'a>>> {
        let devices = placement.device_count().max(1);
        if placement.is_whole(index) {
            (0..devices)
                .map(|device| match &argument.bytes {
                    // A donated buffer is written by the program: never the lent bytes.
                    Cow::Borrowed(bytes) if !placement.is_donated(index) => {
                        self.in_place(argument, bytes, device)
                    }
                    _ => self.copied(argument, device),
                })
                .collect()
        } else {
            placement
                .split_argument(index, argument)?
                .iter()
                .enumerate()
                .map(|(device, block)| self.copied(block, device))
                .collect()
        }
    }

    /// Hands `bytes`, the data of `argument`, to `device` to use in place.
    fn in_place<'a>(
        &self,
        argument: &HostTensor<'_>,
        bytes: &'a [u8],
        device: usize,
    ) -> Result<OnDevice<'a>> {
        let buffer = self
            .loaded
            .client()
            .buffer_in_place(bytes, element_type_of(argument)?, &argument.shape, device)
            .map_err(DriverError::pjrt("passing an argument to the device"))?;
        Ok(OnDevice::InPlace(buffer))
    }

    /// Copies `argument` to `device`.
    fn copied(&self, argument: &HostTensor<'_>, device: usize) -> Result<OnDevice<'static>> {
        let buffer = self
            .loaded
            .client()
            .buffer_from_host(
                &argument.bytes,
                element_type_of(argument)?,
                &argument.shape,
                device,
            )
            .map_err(DriverError::pjrt("copying an argument to the device"))?;
        Ok(OnDevice::Copied(buffer))
    }
}

fn element_type_of(argument: &HostTensor<'_>) -> Result<ElementType> {
    element_type(argument.dtype).ok_or_else(|| {
        DriverError::Unsupported(format!(
            "{} arguments cannot be passed to the device",
            argument.dtype
        ))
    })
}

/// An argument on a device.
enum OnDevice<'a> {
    InPlace(HostBackedBuffer<'a>),
    Copied(Buffer),
}

impl OnDevice<'_> {
    fn buffer(&self) -> &Buffer {
        match self {
            OnDevice::InPlace(buffer) => buffer,
            OnDevice::Copied(buffer) => buffer,
        }
    }
}

/// A program's arguments on its devices, kept there between executions.
pub struct DeviceArguments<'a> {
    /// Per device, per argument.
    per_device: Vec<Vec<OnDevice<'a>>>,
}

impl DeviceArguments<'_> {
    /// Makes result `result` of `results` the new argument `argument` on every device (the
    /// state a step updated, donated or not, is the next step's).
    pub fn adopt(&mut self, results: &mut DeviceResults, updates: &[(usize, usize)]) {
        for (list, device_results) in self.per_device.iter_mut().zip(&mut results.per_device) {
            for &(argument, result) in updates {
                if let Some(buffer) = device_results.get_mut(result).and_then(Option::take) {
                    list[argument] = OnDevice::Copied(buffer);
                }
            }
        }
    }
}

/// The results of one execution, on the devices.
pub struct DeviceResults {
    /// Per device, per result (`None` once adopted as an argument).
    per_device: Vec<Vec<Option<Buffer>>>,
}

impl DeviceResults {
    pub fn count(&self) -> usize {
        self.per_device.first().map_or(0, Vec::len)
    }

    /// Result `index`, copied to the host and put back together from its devices' blocks.
    pub fn to_host(&self, placement: &Placement, index: usize) -> Result<HostTensor<'static>> {
        let shards = self
            .per_device
            .iter()
            .map(|results| match &results[index] {
                Some(buffer) => to_host(buffer),
                None => Err(DriverError::Unsupported(format!(
                    "result {index} was handed to the next step"
                ))),
            })
            .collect::<Result<Vec<_>>>()?;
        placement.assemble_result(index, shards)
    }
}

fn to_host(buffer: &Buffer) -> Result<HostTensor<'static>> {
    let stage = "copying a result to the host";
    let element_type = buffer.element_type().map_err(DriverError::pjrt(stage))?;
    let dtype = dtype(element_type).ok_or_else(|| {
        DriverError::Unsupported(format!(
            "the program returned a {} array, which has no torch dtype",
            element_type.mlir_name()
        ))
    })?;
    Ok(HostTensor {
        dtype,
        shape: buffer.dims().map_err(DriverError::pjrt(stage))?,
        bytes: Cow::Owned(buffer.to_host().map_err(DriverError::pjrt(stage))?),
    })
}

/// Compile options that run a program on devices `0..partitions * replicas`: `partitions`
/// SPMD partitions with the Shardy partitioner (partition `i` on device `i`), or `replicas`
/// replicas (replica `r` on device `r`), or one device.
pub(crate) fn device_options(partitions: u64, replicas: u64) -> CompileOptions {
    let ids = |count: u64| (0..count as i64).collect::<Vec<i64>>();
    if partitions > 1 {
        CompileOptions::new()
            .partition_devices(&ids(partitions))
            .shardy(true)
    } else if replicas > 1 {
        CompileOptions::new()
            .replicas(replicas as i64)
            .device_assignment(vec![ids(replicas)])
    } else {
        CompileOptions::new()
    }
}

/// Pairs of torch dtypes and PJRT element types with the same host representation.
const ELEMENT_TYPES: [(DType, ElementType); 23] = [
    (DType::Bool, ElementType::Pred),
    (DType::U8, ElementType::U8),
    (DType::I8, ElementType::S8),
    (DType::I4, ElementType::S4),
    (DType::U4, ElementType::U4),
    (DType::I16, ElementType::S16),
    (DType::I32, ElementType::S32),
    (DType::I64, ElementType::S64),
    (DType::U16, ElementType::U16),
    (DType::U32, ElementType::U32),
    (DType::U64, ElementType::U64),
    (DType::F16, ElementType::F16),
    (DType::BF16, ElementType::Bf16),
    (DType::F32, ElementType::F32),
    (DType::F64, ElementType::F64),
    (DType::C64, ElementType::C64),
    (DType::C128, ElementType::C128),
    (DType::F8E4M3FN, ElementType::F8E4M3FN),
    (DType::F8E5M2, ElementType::F8E5M2),
    (DType::F8E4M3FNUZ, ElementType::F8E4M3FNUZ),
    (DType::F8E5M2FNUZ, ElementType::F8E5M2FNUZ),
    (DType::F8E8M0FNU, ElementType::F8E8M0FNU),
    (DType::F8E8M0FNU, ElementType::F8E8M0FNU),
];

fn element_type(dtype: DType) -> Option<ElementType> {
    ELEMENT_TYPES
        .iter()
        .find(|(d, _)| *d == dtype)
        .map(|&(_, e)| e)
}

fn dtype(element_type: ElementType) -> Option<DType> {
    ELEMENT_TYPES
        .iter()
        .find(|(_, e)| *e == element_type)
        .map(|&(d, _)| d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn element_types_have_the_torch_width() {
        for (dtype, element_type) in ELEMENT_TYPES {
            assert_eq!(element_type.byte_width(), Some(dtype.itemsize()), "{dtype}");
        }
        assert_eq!(element_type(DType::C32), None);
    }
}
