//! Compiled programs: [`Executable`] (portable, serialisable) and [`LoadedExecutable`]
//! (bound to a client's devices, runnable).

use std::sync::Arc;

use crate::api::{Api, borrowed_slice, entry};
use crate::error::{Error, Result};
use crate::ffi::{self, Args};
use crate::{Buffer, Client, ElementType, Plugin};

/// A compiled program not bound to devices: from [`crate::Topology::compile`] or
/// [`LoadedExecutable::executable`]. Destroyed on drop.
pub struct Executable {
    plugin: &'static Plugin,
    raw: *mut ffi::PJRT_Executable,
    /// The loaded executable this is a view of, if it is one: the view is only valid while
    /// the loaded executable (and its client) lives.
    _loaded: Option<Arc<LoadedHandle>>,
}

// SAFETY: PJRT executables are immutable, thread-safe objects; the pointer is only passed to
// the plugin.
unsafe impl Send for Executable {}
// SAFETY: as above.
unsafe impl Sync for Executable {}

impl Executable {
    pub(crate) fn new(
        plugin: &'static Plugin,
        raw: *mut ffi::PJRT_Executable,
        loaded: Option<Arc<LoadedHandle>>,
    ) -> Executable {
        Executable {
            plugin,
            raw,
            _loaded: loaded,
        }
    }

    pub(crate) fn api(&self) -> &'static Api {
        self.plugin.api()
    }

    pub(crate) fn raw(&self) -> *mut ffi::PJRT_Executable {
        self.raw
    }

    /// Platform-specific bytes that [`Client::deserialize`] loads again.
    pub fn serialize(&self) -> Result<Vec<u8>> {
        let api = self.api();
        let serialize = entry!(api, PJRT_Executable_Serialize)?;
        let mut args = ffi::PJRT_Executable_Serialize_Args::new();
        args.executable = self.raw;
        // SAFETY: the executable is live; `args` is initialised.
        let error = unsafe { (serialize.f)(&mut args) };
        api.check(serialize.name, error)?;
        // SAFETY: the bytes live until the deleter runs, just below.
        let bytes = unsafe {
            borrowed_slice(
                args.serialized_bytes.cast::<u8>(),
                args.serialized_bytes_size,
            )
        }
        .to_vec();
        if let Some(deleter) = args.serialized_executable_deleter {
            // SAFETY: called exactly once on the object the plugin returned, after the copy.
            unsafe { deleter(args.serialized_executable) };
        }
        Ok(bytes)
    }

    /// Number of outputs per device.
    pub fn num_outputs(&self) -> Result<usize> {
        let api = self.api();
        let outputs = entry!(api, PJRT_Executable_NumOutputs)?;
        let mut args = ffi::PJRT_Executable_NumOutputs_Args::new();
        args.executable = self.raw;
        // SAFETY: the executable is live; `args` is initialised.
        let error = unsafe { (outputs.f)(&mut args) };
        api.check(outputs.name, error)?;
        Ok(args.num_outputs)
    }

    /// Element type of each output.
    pub fn output_element_types(&self) -> Result<Vec<ElementType>> {
        let api = self.api();
        let types = entry!(api, PJRT_Executable_OutputElementTypes)?;
        let mut args = ffi::PJRT_Executable_OutputElementTypes_Args::new();
        args.executable = self.raw;
        // SAFETY: the executable is live; `args` is initialised.
        let error = unsafe { (types.f)(&mut args) };
        api.check(types.name, error)?;
        // SAFETY: the array lives as long as the executable.
        let raw = unsafe { borrowed_slice(args.output_types, args.num_output_types) };
        raw.iter()
            .map(|&code| {
                ElementType::from_raw(code).ok_or_else(|| {
                    Error::InvalidArgument(format!(
                        "the plugin reported unknown element type {code}"
                    ))
                })
            })
            .collect()
    }

    /// Dimensions of each output.
    pub fn output_dims(&self) -> Result<Vec<Vec<i64>>> {
        let api = self.api();
        let dimensions = entry!(api, PJRT_Executable_OutputDimensions)?;
        let mut args = ffi::PJRT_Executable_OutputDimensions_Args::new();
        args.executable = self.raw;
        // SAFETY: the executable is live; `args` is initialised.
        let error = unsafe { (dimensions.f)(&mut args) };
        api.check(dimensions.name, error)?;
        // SAFETY: both arrays live as long as the executable: `num_outputs` ranks, then the
        // concatenated dims whose count is their sum.
        let ranks = unsafe { borrowed_slice(args.dim_sizes, args.num_outputs) };
        let total = ranks.iter().sum();
        // SAFETY: as above.
        let mut dims = unsafe { borrowed_slice(args.dims, total) };
        Ok(ranks
            .iter()
            .map(|&rank| {
                let (head, rest) = dims.split_at(rank);
                dims = rest;
                head.to_vec()
            })
            .collect())
    }
}

impl std::fmt::Debug for Executable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Executable")
            .field("outputs", &self.num_outputs().ok())
            .finish()
    }
}

impl Drop for Executable {
    fn drop(&mut self) {
        let api = self.api();
        let result = entry!(api, PJRT_Executable_Destroy).and_then(|destroy| {
            let mut args = ffi::PJRT_Executable_Destroy_Args::new();
            args.executable = self.raw;
            // SAFETY: owned by `self`, destroyed exactly once.
            let error = unsafe { (destroy.f)(&mut args) };
            api.check(destroy.name, error)
        });
        api.destroy_quietly("a PJRT executable", result);
    }
}

/// An executable loaded on a client's devices. Keeps the client alive; destroyed when it and
/// every [`Executable`] view of it are dropped.
pub struct LoadedExecutable {
    handle: Arc<LoadedHandle>,
    num_devices: usize,
    num_outputs: usize,
}

/// Owns the plugin's loaded executable (and through `client`, the client) until the last of
/// the [`LoadedExecutable`] and its views is dropped.
pub(crate) struct LoadedHandle {
    client: Client,
    raw: *mut ffi::PJRT_LoadedExecutable,
}

// SAFETY: PJRT loaded executables are thread-safe objects; the pointer is only passed to the
// plugin.
unsafe impl Send for LoadedHandle {}
// SAFETY: as above.
unsafe impl Sync for LoadedHandle {}

impl LoadedExecutable {
    /// Takes ownership of `raw` (destroyed on every path) and reads its shape of execution.
    pub(crate) fn new(
        client: Client,
        raw: *mut ffi::PJRT_LoadedExecutable,
    ) -> Result<LoadedExecutable> {
        let mut loaded = LoadedExecutable {
            handle: Arc::new(LoadedHandle { client, raw }),
            num_devices: 0,
            num_outputs: 0,
        };
        loaded.num_devices = loaded.addressable_device_count()?;
        loaded.num_outputs = loaded.executable()?.num_outputs()?;
        Ok(loaded)
    }

    pub fn client(&self) -> &Client {
        &self.handle.client
    }

    /// Devices one execution runs on (one argument list each).
    pub fn device_count(&self) -> usize {
        self.num_devices
    }

    /// Outputs per device.
    pub fn num_outputs(&self) -> usize {
        self.num_outputs
    }

    fn addressable_device_count(&self) -> Result<usize> {
        let api = self.handle.client.api();
        let devices = entry!(api, PJRT_LoadedExecutable_AddressableDevices)?;
        let mut args = ffi::PJRT_LoadedExecutable_AddressableDevices_Args::new();
        args.executable = self.handle.raw;
        // SAFETY: the executable is live; `args` is initialised.
        let error = unsafe { (devices.f)(&mut args) };
        api.check(devices.name, error)?;
        Ok(args.num_addressable_devices)
    }

    /// The underlying [`Executable`] (`PJRT_LoadedExecutable_GetExecutable`), for output
    /// types, reports and serialisation. A new object, destroyed on its own drop; it keeps
    /// this loaded executable alive, as the plugin requires.
    pub fn executable(&self) -> Result<Executable> {
        let api = self.handle.client.api();
        let get = entry!(api, PJRT_LoadedExecutable_GetExecutable)?;
        let mut args = ffi::PJRT_LoadedExecutable_GetExecutable_Args::new();
        args.loaded_executable = self.handle.raw;
        // SAFETY: the loaded executable is live; `args` is initialised.
        let error = unsafe { (get.f)(&mut args) };
        api.check(get.name, error)?;
        Ok(Executable::new(
            self.handle.client.plugin(),
            args.executable,
            Some(Arc::clone(&self.handle)),
        ))
    }

    /// Serialises the executable; shorthand for `self.executable()?.serialize()`.
    pub fn serialize(&self) -> Result<Vec<u8>> {
        self.executable()?.serialize()
    }

    /// Runs the executable. `arguments[d][i]` is argument `i` on device `d`; there must be one
    /// list per device ([`Self::device_count`]), all of the same length. Returns `outputs[d][o]`.
    pub fn execute(&self, arguments: &[&[&Buffer]]) -> Result<Vec<Vec<Buffer>>> {
        if arguments.len() != self.num_devices {
            return Err(Error::InvalidArgument(format!(
                "the executable runs on {} devices but {} argument lists were given",
                self.num_devices,
                arguments.len()
            )));
        }
        let num_args = arguments.first().map_or(0, |list| list.len());
        if let Some(list) = arguments.iter().find(|list| list.len() != num_args) {
            return Err(Error::InvalidArgument(format!(
                "argument lists differ in length ({num_args} and {})",
                list.len()
            )));
        }
        if arguments
            .iter()
            .flat_map(|list| list.iter())
            .any(|buffer| !buffer.client().same_as(&self.handle.client))
        {
            return Err(Error::InvalidArgument(
                "an argument buffer belongs to another client".to_owned(),
            ));
        }

        // Plain pointer arrays, as the C API expects: `PJRT_Buffer* const*` per device.
        let argument_rows: Vec<Vec<*mut ffi::PJRT_Buffer>> = arguments
            .iter()
            .map(|list| list.iter().map(|buffer| buffer.raw()).collect())
            .collect();
        let argument_lists: Vec<*const *mut ffi::PJRT_Buffer> =
            argument_rows.iter().map(|row| row.as_ptr()).collect();
        let mut output_rows: Vec<Vec<*mut ffi::PJRT_Buffer>> =
            vec![vec![std::ptr::null_mut(); self.num_outputs]; self.num_devices];
        let output_lists: Vec<*mut *mut ffi::PJRT_Buffer> =
            output_rows.iter_mut().map(|row| row.as_mut_ptr()).collect();
        let mut events: Vec<*mut ffi::PJRT_Event> = vec![std::ptr::null_mut(); self.num_devices];

        let api = self.handle.client.api();
        let execute = entry!(api, PJRT_LoadedExecutable_Execute)?;
        let mut options = ffi::PJRT_ExecuteOptions::new();
        let mut args = ffi::PJRT_LoadedExecutable_Execute_Args::new();
        args.executable = self.handle.raw;
        args.options = &mut options;
        args.argument_lists = argument_lists.as_ptr();
        args.num_devices = self.num_devices;
        args.num_args = num_args;
        args.output_lists = output_lists.as_ptr();
        args.device_complete_events = events.as_mut_ptr();
        // SAFETY: argument and output arrays have `num_devices` rows of `num_args` /
        // `num_outputs` pointers (the output count comes from the executable); all arrays and
        // the argument buffers stay alive until the completion events are awaited below.
        let error = unsafe { (execute.f)(&mut args) };
        api.check(execute.name, error)?;

        // Own every output first so that nothing leaks if waiting fails.
        let outputs: Vec<Vec<Buffer>> = output_rows
            .into_iter()
            .map(|row| {
                row.into_iter()
                    .filter(|raw| !raw.is_null())
                    .map(|raw| Buffer::new(self.handle.client.clone(), raw))
                    .collect()
            })
            .collect();
        let mut waited = Ok(());
        for event in events {
            waited = waited.and(api.await_event(event));
        }
        waited?;
        Ok(outputs)
    }
}

impl Drop for LoadedHandle {
    fn drop(&mut self) {
        let api = self.client.api();
        let result = entry!(api, PJRT_LoadedExecutable_Destroy).and_then(|destroy| {
            let mut args = ffi::PJRT_LoadedExecutable_Destroy_Args::new();
            args.executable = self.raw;
            // SAFETY: owned by `self`, destroyed exactly once, while its client lives.
            let error = unsafe { (destroy.f)(&mut args) };
            api.check(destroy.name, error)
        });
        api.destroy_quietly("a PJRT loaded executable", result);
    }
}

impl std::fmt::Debug for LoadedExecutable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LoadedExecutable")
            .field("devices", &self.num_devices)
            .field("outputs", &self.num_outputs)
            .finish()
    }
}
