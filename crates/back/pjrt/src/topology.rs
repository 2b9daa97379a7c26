//! Device topologies: compiling ahead of time for devices that are not present.

use crate::api::{Api, borrowed_str, entry};
use crate::client::raw_program;
use crate::error::Result;
use crate::ffi::{self, Args};
use crate::{CompileOptions, Executable, Plugin, Program};

/// A topology description such as `v5e:2x2`. Destroyed on drop.
pub struct Topology {
    plugin: &'static Plugin,
    raw: *mut ffi::PJRT_TopologyDescription,
}

// SAFETY: topology descriptions are immutable once created; the pointer is only passed to the
// plugin.
unsafe impl Send for Topology {}
// SAFETY: as above.
unsafe impl Sync for Topology {}

impl Topology {
    pub(crate) fn new(plugin: &'static Plugin, name: &str) -> Result<Topology> {
        let api = plugin.api();
        let create = entry!(api, PJRT_TopologyDescription_Create)?;
        let mut args = ffi::PJRT_TopologyDescription_Create_Args::new();
        args.topology_name = name.as_ptr().cast();
        args.topology_name_size = name.len();
        // SAFETY: `name` outlives the call; no options are passed.
        let error = unsafe { (create.f)(&mut args) };
        api.check(create.name, error)?;
        Ok(Topology {
            plugin,
            raw: args.topology,
        })
    }

    fn api(&self) -> &'static Api {
        self.plugin.api()
    }

    /// The platform name, e.g. `tpu`.
    pub fn platform_name(&self) -> Result<String> {
        let api = self.api();
        let name = entry!(api, PJRT_TopologyDescription_PlatformName)?;
        let mut args = ffi::PJRT_TopologyDescription_PlatformName_Args::new();
        args.topology = self.raw;
        // SAFETY: the topology is live; `args` is initialised.
        let error = unsafe { (name.f)(&mut args) };
        api.check(name.name, error)?;
        // SAFETY: the name is owned by the topology, which outlives this copy.
        Ok(unsafe { borrowed_str(args.platform_name, args.platform_name_size) })
    }

    /// The platform version, e.g. libtpu's build description.
    pub fn platform_version(&self) -> Result<String> {
        let api = self.api();
        let version = entry!(api, PJRT_TopologyDescription_PlatformVersion)?;
        let mut args = ffi::PJRT_TopologyDescription_PlatformVersion_Args::new();
        args.topology = self.raw;
        // SAFETY: the topology is live; `args` is initialised.
        let error = unsafe { (version.f)(&mut args) };
        api.check(version.name, error)?;
        // SAFETY: the string is owned by the topology, which outlives this copy.
        Ok(unsafe { borrowed_str(args.platform_version, args.platform_version_size) })
    }

    /// Number of devices in the topology.
    pub fn device_count(&self) -> Result<usize> {
        let api = self.api();
        let describe = entry!(api, PJRT_TopologyDescription_GetDeviceDescriptions)?;
        let mut args = ffi::PJRT_TopologyDescription_GetDeviceDescriptions_Args::new();
        args.topology = self.raw;
        // SAFETY: the topology is live; `args` is initialised.
        let error = unsafe { (describe.f)(&mut args) };
        api.check(describe.name, error)?;
        Ok(args.num_descriptions)
    }

    /// Compiles `program` for this topology without a client (`PJRT_Compile`).
    pub fn compile(&self, program: &Program, options: &CompileOptions) -> Result<Executable> {
        let api = self.api();
        let compile = entry!(api, PJRT_Compile)?;
        let raw_program = raw_program(program);
        let options = options.encode();
        let mut args = ffi::PJRT_Compile_Args::new();
        args.topology = self.raw;
        args.program = &raw_program;
        args.compile_options = options.as_ptr().cast();
        args.compile_options_size = options.len();
        // SAFETY: the program, its format and the options bytes outlive the call; no client.
        let error = unsafe { (compile.f)(&mut args) };
        api.check(compile.name, error)?;
        Ok(Executable::new(self.plugin, args.executable, None))
    }
}

impl std::fmt::Debug for Topology {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Topology")
            .field("platform", &self.platform_name().ok())
            .field("devices", &self.device_count().ok())
            .finish()
    }
}

impl Drop for Topology {
    fn drop(&mut self) {
        let api = self.api();
        let result = entry!(api, PJRT_TopologyDescription_Destroy).and_then(|destroy| {
            let mut args = ffi::PJRT_TopologyDescription_Destroy_Args::new();
            args.topology = self.raw;
            // SAFETY: owned by `self`, destroyed exactly once.
            let error = unsafe { (destroy.f)(&mut args) };
            api.check(destroy.name, error)
        });
        api.destroy_quietly("a PJRT topology", result);
    }
}
