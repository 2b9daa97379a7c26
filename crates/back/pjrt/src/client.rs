//! A PJRT client: devices, compilation, host-to-device transfers.

use std::sync::Arc;

use crate::api::{Api, borrowed_slice, borrowed_str, entry};
use crate::error::{Error, Result};
use crate::ffi::{self, Args};
use crate::plugin::{Value, named_values};
use crate::{
    Buffer, CompileOptions, ElementType, HostBackedBuffer, HostElement, LoadedExecutable, Plugin,
    Program,
};

/// A PJRT client. Cheap to clone; buffers and executables keep it alive, and it is destroyed
/// when the last of them is dropped.
#[derive(Clone)]
pub struct Client {
    inner: Arc<ClientInner>,
}

pub(crate) struct ClientInner {
    plugin: &'static Plugin,
    raw: *mut ffi::PJRT_Client,
    /// Addressable devices; owned by the client.
    devices: Vec<*mut ffi::PJRT_Device>,
}

// SAFETY: PJRT clients are thread-safe objects; `raw` and the device pointers are only passed
// to the plugin, never dereferenced here.
unsafe impl Send for ClientInner {}
// SAFETY: as above.
unsafe impl Sync for ClientInner {}

impl Client {
    pub(crate) fn new(plugin: &'static Plugin, options: &[(&str, Value)]) -> Result<Client> {
        let api = plugin.api();
        let create = entry!(api, PJRT_Client_Create)?;
        let named = named_values(options);
        let mut args = ffi::PJRT_Client_Create_Args::new();
        args.create_options = named.as_ptr();
        args.num_options = named.len();
        // SAFETY: `named` (and the strings it points into, borrowed from `options`) outlive the
        // call; no key-value store callbacks are given.
        let error = unsafe { (create.f)(&mut args) };
        api.check(create.name, error)?;
        let mut inner = ClientInner {
            plugin,
            raw: args.client,
            devices: Vec::new(),
        };
        // From here on `inner`'s Drop destroys the client if anything fails.
        inner.devices = inner.addressable_devices()?;
        Ok(Client {
            inner: Arc::new(inner),
        })
    }

    pub fn plugin(&self) -> &'static Plugin {
        self.inner.plugin
    }

    pub(crate) fn api(&self) -> &'static Api {
        self.inner.plugin.api()
    }

    pub(crate) fn raw(&self) -> *mut ffi::PJRT_Client {
        self.inner.raw
    }

    pub(crate) fn same_as(&self, other: &Client) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
    }

    /// Number of addressable devices.
    pub fn device_count(&self) -> usize {
        self.inner.devices.len()
    }

    /// The platform name, e.g. `cpu`.
    pub fn platform_name(&self) -> Result<String> {
        let api = self.api();
        let name = entry!(api, PJRT_Client_PlatformName)?;
        let mut args = ffi::PJRT_Client_PlatformName_Args::new();
        args.client = self.raw();
        // SAFETY: the client is live; `args` is initialised.
        let error = unsafe { (name.f)(&mut args) };
        api.check(name.name, error)?;
        // SAFETY: the name is owned by the client, which outlives this copy.
        Ok(unsafe { borrowed_str(args.platform_name, args.platform_name_size) })
    }

    /// The platform version, e.g. the plugin's build description.
    pub fn platform_version(&self) -> Result<String> {
        let api = self.api();
        let version = entry!(api, PJRT_Client_PlatformVersion)?;
        let mut args = ffi::PJRT_Client_PlatformVersion_Args::new();
        args.client = self.raw();
        // SAFETY: the client is live; `args` is initialised.
        let error = unsafe { (version.f)(&mut args) };
        api.check(version.name, error)?;
        // SAFETY: the string is owned by the client, which outlives this copy.
        Ok(unsafe { borrowed_str(args.platform_version, args.platform_version_size) })
    }

    /// Compiles `program` for this client's devices.
    pub fn compile(&self, program: &Program, options: &CompileOptions) -> Result<LoadedExecutable> {
        let api = self.api();
        let compile = entry!(api, PJRT_Client_Compile)?;
        let raw_program = raw_program(program);
        let options = options.encode();
        let mut args = ffi::PJRT_Client_Compile_Args::new();
        args.client = self.raw();
        args.program = &raw_program;
        args.compile_options = options.as_ptr().cast();
        args.compile_options_size = options.len();
        // SAFETY: the program's code and format, and the options bytes, outlive the call; the
        // plugin only reads the code despite the `char*` type.
        let error = unsafe { (compile.f)(&mut args) };
        api.check(compile.name, error)?;
        LoadedExecutable::new(self.clone(), args.executable)
    }

    /// Loads an executable serialised by [`crate::Executable::serialize`] with the same plugin.
    pub fn deserialize(&self, bytes: &[u8]) -> Result<LoadedExecutable> {
        let api = self.api();
        let load = entry!(api, PJRT_Executable_DeserializeAndLoad)?;
        let mut args = ffi::PJRT_Executable_DeserializeAndLoad_Args::new();
        args.client = self.raw();
        args.serialized_executable = bytes.as_ptr().cast();
        args.serialized_executable_size = bytes.len();
        // SAFETY: `bytes` outlives the call; null overrides mean "the serialised options".
        let error = unsafe { (load.f)(&mut args) };
        api.check(load.name, error)?;
        LoadedExecutable::new(self.clone(), args.loaded_executable)
    }

    /// Copies a dense, row-major host array to `device` (an index into the addressable
    /// devices). `data` must hold exactly `product(dims) * byte_width` bytes.
    pub fn buffer_from_host(
        &self,
        data: &[u8],
        element_type: ElementType,
        dims: &[i64],
        device: usize,
    ) -> Result<Buffer> {
        let semantics = ffi::HOST_BUFFER_IMMUTABLE_UNTIL_TRANSFER_COMPLETES;
        let (buffer, done) = self.transfer(data, element_type, dims, device, semantics)?;
        self.api().await_event(done)?;
        Ok(buffer)
    }

    /// Like [`Client::buffer_from_host`], but the plugin may keep using `data` in place as the
    /// buffer's storage instead of copying it (PJRT's zero-copy semantics; XLA:CPU does when
    /// `data` is suitably aligned): `data` stays borrowed for the buffer's life.
    pub fn buffer_in_place<'a>(
        &self,
        data: &'a [u8],
        element_type: ElementType,
        dims: &[i64],
        device: usize,
    ) -> Result<HostBackedBuffer<'a>> {
        let semantics = ffi::HOST_BUFFER_IMMUTABLE_ZERO_COPY;
        let (buffer, done) = self.transfer(data, element_type, dims, device, semantics)?;
        Ok(HostBackedBuffer::new(buffer, done))
    }

    /// Starts a host-to-device transfer; returns the buffer and the event that fires once the
    /// plugin no longer needs `data` (the caller must keep it alive and unchanged until then).
    fn transfer(
        &self,
        data: &[u8],
        element_type: ElementType,
        dims: &[i64],
        device: usize,
        semantics: i32,
    ) -> Result<(Buffer, *mut ffi::PJRT_Event)> {
        let expected = host_size(element_type, dims)?;
        if data.len() != expected {
            return Err(Error::InvalidArgument(format!(
                "host data for a {} array of shape {dims:?} must be {expected} bytes, got {}",
                element_type.mlir_name(),
                data.len()
            )));
        }
        let device_ptr = *self.inner.devices.get(device).ok_or_else(|| {
            Error::InvalidArgument(format!(
                "device {device} does not exist: the client has {} devices",
                self.device_count()
            ))
        })?;
        let api = self.api();
        let transfer = entry!(api, PJRT_Client_BufferFromHostBuffer)?;
        let mut args = ffi::PJRT_Client_BufferFromHostBuffer_Args::new();
        args.client = self.raw();
        args.data = data.as_ptr().cast();
        args.kind = element_type.to_raw();
        args.dims = dims.as_ptr();
        args.num_dims = dims.len();
        args.host_buffer_semantics = semantics;
        args.device = device_ptr;
        // SAFETY: `data` holds the bytes the shape needs (checked above); both callers keep it
        // borrowed until `done_with_host_buffer` has fired; `dims` outlives the call.
        let error = unsafe { (transfer.f)(&mut args) };
        api.check(transfer.name, error)?;
        Ok((
            Buffer::new(self.clone(), args.buffer),
            args.done_with_host_buffer,
        ))
    }

    /// Typed convenience over [`Client::buffer_from_host`].
    pub fn buffer_from_slice<T: HostElement>(
        &self,
        values: &[T],
        dims: &[i64],
        device: usize,
    ) -> Result<Buffer> {
        let mut bytes = Vec::with_capacity(size_of_val(values));
        for &value in values {
            value.append_bytes(&mut bytes);
        }
        self.buffer_from_host(&bytes, T::TYPE, dims, device)
    }
}

/// Bytes of a dense host array of this type and shape.
pub(crate) fn host_size(element_type: ElementType, dims: &[i64]) -> Result<usize> {
    let width = element_type.byte_width().ok_or_else(|| {
        Error::InvalidArgument(format!(
            "{} arrays have no dense host representation",
            element_type.mlir_name()
        ))
    })?;
    dims.iter().try_fold(width, |total, &dim| {
        usize::try_from(dim)
            .ok()
            .and_then(|dim| total.checked_mul(dim))
            .ok_or_else(|| Error::InvalidArgument(format!("invalid dimensions {dims:?}")))
    })
}

pub(crate) fn raw_program(program: &Program) -> ffi::PJRT_Program {
    let mut raw = ffi::PJRT_Program::new();
    raw.code = program.code().as_ptr().cast_mut().cast();
    raw.code_size = program.code().len();
    raw.format = program.format().as_ptr().cast();
    raw.format_size = program.format().len();
    raw
}

impl ClientInner {
    fn addressable_devices(&self) -> Result<Vec<*mut ffi::PJRT_Device>> {
        let api = self.plugin.api();
        let devices = entry!(api, PJRT_Client_AddressableDevices)?;
        let mut args = ffi::PJRT_Client_AddressableDevices_Args::new();
        args.client = self.raw;
        // SAFETY: the client is live; `args` is initialised.
        let error = unsafe { (devices.f)(&mut args) };
        api.check(devices.name, error)?;
        // SAFETY: the array is owned by the client, which outlives this copy.
        Ok(
            unsafe { borrowed_slice(args.addressable_devices, args.num_addressable_devices) }
                .to_vec(),
        )
    }
}

impl Drop for ClientInner {
    fn drop(&mut self) {
        let api = self.plugin.api();
        let result = entry!(api, PJRT_Client_Destroy).and_then(|destroy| {
            let mut args = ffi::PJRT_Client_Destroy_Args::new();
            args.client = self.raw;
            // SAFETY: every buffer and executable holds a `Client`, so none is left; the
            // client is destroyed exactly once.
            let error = unsafe { (destroy.f)(&mut args) };
            api.check(destroy.name, error)
        });
        api.destroy_quietly("a PJRT client", result);
    }
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client")
            .field("plugin", &self.inner.plugin.path())
            .field("devices", &self.device_count())
            .finish()
    }
}
