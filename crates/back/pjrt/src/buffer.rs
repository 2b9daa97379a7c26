//! Device buffers.

use std::marker::PhantomData;
use std::ops::Deref;

use crate::api::{borrowed_slice, entry};
use crate::client::host_size;
use crate::error::{Error, Result};
use crate::ffi::{self, Args};
use crate::{Client, ElementType, HostElement};

/// A [`Buffer`] that may use borrowed host memory as its storage (see
/// [`Client::buffer_in_place`]): the host bytes stay borrowed for the buffer's life, and dropping
/// it destroys the buffer, then waits until the plugin has let go of them.
pub struct HostBackedBuffer<'a> {
    buffer: Option<Buffer>,
    done: *mut ffi::PJRT_Event,
    _host: PhantomData<&'a [u8]>,
}

impl HostBackedBuffer<'_> {
    pub(crate) fn new(buffer: Buffer, done: *mut ffi::PJRT_Event) -> Self {
        HostBackedBuffer {
            buffer: Some(buffer),
            done,
            _host: PhantomData,
        }
    }
}

impl Deref for HostBackedBuffer<'_> {
    type Target = Buffer;

    fn deref(&self) -> &Buffer {
        self.buffer.as_ref().expect("present until dropped")
    }
}

impl Drop for HostBackedBuffer<'_> {
    fn drop(&mut self) {
        if let Some(buffer) = self.buffer.take() {
            let api = buffer.client().api();
            drop(buffer);
            api.destroy_quietly("a host-backed buffer", api.await_event(self.done));
        }
    }
}

impl std::fmt::Debug for HostBackedBuffer<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(&**self, f)
    }
}

/// An array on a device. Keeps its client alive; destroyed on drop.
pub struct Buffer {
    client: Client,
    raw: *mut ffi::PJRT_Buffer,
}

// SAFETY: PJRT buffers are thread-safe objects; the pointer is only passed to the plugin.
unsafe impl Send for Buffer {}
// SAFETY: as above; every method only reads through the plugin.
unsafe impl Sync for Buffer {}

impl Buffer {
    /// Takes ownership of a buffer the plugin returned for `client`.
    pub(crate) fn new(client: Client, raw: *mut ffi::PJRT_Buffer) -> Buffer {
        Buffer { client, raw }
    }

    pub(crate) fn raw(&self) -> *mut ffi::PJRT_Buffer {
        self.raw
    }

    pub fn client(&self) -> &Client {
        &self.client
    }

    pub fn element_type(&self) -> Result<ElementType> {
        let api = self.client.api();
        let element_type = entry!(api, PJRT_Buffer_ElementType)?;
        let mut args = ffi::PJRT_Buffer_ElementType_Args::new();
        args.buffer = self.raw;
        // SAFETY: the buffer is live; `args` is initialised.
        let error = unsafe { (element_type.f)(&mut args) };
        api.check(element_type.name, error)?;
        ElementType::from_raw(args.kind).ok_or_else(|| {
            Error::InvalidArgument(format!(
                "the plugin reported unknown element type {}",
                args.kind
            ))
        })
    }

    pub fn dims(&self) -> Result<Vec<i64>> {
        let api = self.client.api();
        let dimensions = entry!(api, PJRT_Buffer_Dimensions)?;
        let mut args = ffi::PJRT_Buffer_Dimensions_Args::new();
        args.buffer = self.raw;
        // SAFETY: the buffer is live; `args` is initialised.
        let error = unsafe { (dimensions.f)(&mut args) };
        api.check(dimensions.name, error)?;
        // SAFETY: the dims live as long as the buffer, which outlives this copy.
        Ok(unsafe { borrowed_slice(args.dims, args.num_dims) }.to_vec())
    }

    /// The address of the buffer's memory on its device. For XLA:CPU that is host memory, so a
    /// caller can tell whether [`Client::buffer_in_place`] used its bytes in place.
    pub fn device_address(&self) -> Result<usize> {
        let api = self.client.api();
        let pointer = entry!(api, PJRT_Buffer_UnsafePointer)?;
        let mut args = ffi::PJRT_Buffer_UnsafePointer_Args::new();
        args.buffer = self.raw;
        // SAFETY: the buffer is live; `args` is initialised; the address is only read.
        let error = unsafe { (pointer.f)(&mut args) };
        api.check(pointer.name, error)?;
        Ok(args.buffer_pointer)
    }

    /// Copies the array to the host: dense, row-major bytes.
    pub fn to_host(&self) -> Result<Vec<u8>> {
        let api = self.client.api();
        let to_host = entry!(api, PJRT_Buffer_ToHostBuffer)?;

        let mut query = ffi::PJRT_Buffer_ToHostBuffer_Args::new();
        query.src = self.raw;
        // SAFETY: a null `dst` asks only for the size; nothing is written.
        let error = unsafe { (to_host.f)(&mut query) };
        api.check(to_host.name, error)?;
        api.await_event(query.event)?;

        let mut host = vec![0u8; query.dst_size];
        let mut args = ffi::PJRT_Buffer_ToHostBuffer_Args::new();
        args.src = self.raw;
        args.dst = host.as_mut_ptr().cast();
        args.dst_size = host.len();
        // SAFETY: `host` has the size the plugin asked for and is not touched or freed until
        // the copy's event has completed just below.
        let error = unsafe { (to_host.f)(&mut args) };
        api.check(to_host.name, error)?;
        api.await_event(args.event)?;
        Ok(host)
    }

    /// Copies the array to the host as `T`s; `T` must match the element type.
    pub fn to_vec<T: HostElement>(&self) -> Result<Vec<T>> {
        let element_type = self.element_type()?;
        if element_type != T::TYPE {
            return Err(Error::InvalidArgument(format!(
                "the buffer holds {} elements, not {}",
                element_type.mlir_name(),
                T::TYPE.mlir_name()
            )));
        }
        let bytes = self.to_host()?;
        let width = host_size(T::TYPE, &[])?;
        Ok(bytes.chunks_exact(width).map(T::from_bytes).collect())
    }
}

impl Drop for Buffer {
    fn drop(&mut self) {
        let api = self.client.api();
        let result = entry!(api, PJRT_Buffer_Destroy).and_then(|destroy| {
            let mut args = ffi::PJRT_Buffer_Destroy_Args::new();
            args.buffer = self.raw;
            // SAFETY: the buffer is owned by `self` and destroyed exactly once; its client is
            // still alive (held by `self`).
            let error = unsafe { (destroy.f)(&mut args) };
            api.check(destroy.name, error)
        });
        api.destroy_quietly("a PJRT buffer", result);
    }
}

impl std::fmt::Debug for Buffer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Buffer")
            .field("element_type", &self.element_type().ok())
            .field("dims", &self.dims().ok())
            .finish()
    }
}
