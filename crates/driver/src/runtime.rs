//! Compiling and executing on the XLA:CPU PJRT plugin.

use std::borrow::Cow;
use std::path::Path;

use tpuc_pjrt::{
    Client, CompileOptions, ElementType, LoadedExecutable, Plugin, PluginKind, Program,
};
use tpuc_pt2::DType;

use crate::error::{DriverError, Result};
use crate::tensor::HostTensor;

/// A client of the XLA:CPU plugin with one device.
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
        let stage = "loading the XLA:CPU plugin";
        let path = tpuc_pjrt::locate(PluginKind::Cpu, plugin).map_err(DriverError::pjrt(stage))?;
        let plugin = Plugin::load(path).map_err(DriverError::pjrt(stage))?;
        let client = plugin.cpu_client(1).map_err(DriverError::pjrt(stage))?;
        Ok(Runtime { client })
    }

    /// Compiles StableHLO text (either form) for one replica and one partition.
    pub fn compile(&self, mlir: &str) -> Result<Executable> {
        let loaded = self
            .client
            .compile(&Program::mlir(mlir), &CompileOptions::new())
            .map_err(DriverError::pjrt("compiling the module on XLA:CPU"))?;
        Ok(Executable { loaded })
    }

    /// Compiles a module, handing its generic form to the plugin.
    pub fn compile_module(&self, module: &tpuc_ir::Module) -> Result<Executable> {
        self.compile(&tpuc_ir::print::generic(module, &Default::default()))
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

    /// Copies `arguments` to the device (borrowed bytes straight from where they lie), runs
    /// the program once and copies every result back.
    pub fn execute(&self, arguments: &[HostTensor<'_>]) -> Result<Vec<HostTensor<'static>>> {
        let client = self.loaded.client();
        let to_device = "copying an argument to the device";
        let buffers = arguments
            .iter()
            .map(|argument| {
                let element_type = element_type(argument.dtype).ok_or_else(|| {
                    DriverError::Unsupported(format!(
                        "{} arguments cannot be passed to the device",
                        argument.dtype
                    ))
                })?;
                client
                    .buffer_from_host(&argument.bytes, element_type, &argument.shape, 0)
                    .map_err(DriverError::pjrt(to_device))
            })
            .collect::<Result<Vec<_>>>()?;
        let refs: Vec<_> = buffers.iter().collect();
        let mut results = self
            .loaded
            .execute(&[&refs])
            .map_err(DriverError::pjrt("executing the program"))?;
        let from_device = "copying a result to the host";
        results
            .pop()
            .unwrap_or_default()
            .iter()
            .map(|buffer| {
                let element_type = buffer
                    .element_type()
                    .map_err(DriverError::pjrt(from_device))?;
                let dtype = dtype(element_type).ok_or_else(|| {
                    DriverError::Unsupported(format!(
                        "the program returned a {} array, which has no torch dtype",
                        element_type.mlir_name()
                    ))
                })?;
                Ok(HostTensor {
                    dtype,
                    shape: buffer.dims().map_err(DriverError::pjrt(from_device))?,
                    bytes: Cow::Owned(buffer.to_host().map_err(DriverError::pjrt(from_device))?),
                })
            })
            .collect()
    }
}

/// Pairs of torch dtypes and PJRT element types with the same host representation.
const ELEMENT_TYPES: [(DType, ElementType); 20] = [
    (DType::Bool, ElementType::Pred),
    (DType::U8, ElementType::U8),
    (DType::I8, ElementType::S8),
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
