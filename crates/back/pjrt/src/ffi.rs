//! C declarations of the PJRT C API: only the structs and entry points this crate uses.
//!
//! Layouts follow `xla/pjrt/c/pjrt_c_api.h` at API version 0.113 or later. Every `*Args`
//! struct starts with `struct_size`, which [`Args::new`] sets to our own size; plugins refuse
//! structs smaller than the ones they were built with. C enums are plain `i32`s here so that
//! any value a plugin writes is a valid Rust value.
#![allow(non_camel_case_types, non_snake_case, dead_code)]

use std::ffi::{c_char, c_void};

/// The PJRT C API major version these layouts belong to.
pub const API_MAJOR: i32 = 0;
/// The oldest minor version whose function table has this order (0.57 rearranged it; since
/// then entries are only appended).
pub const API_MINOR_MIN: i32 = 57;

// Opaque objects owned by the plugin.
pub enum PJRT_Error {}
pub enum PJRT_Event {}
pub enum PJRT_Client {}
pub enum PJRT_Device {}
pub enum PJRT_DeviceDescription {}
pub enum PJRT_Memory {}
pub enum PJRT_Executable {}
pub enum PJRT_LoadedExecutable {}
pub enum PJRT_Buffer {}
pub enum PJRT_TopologyDescription {}
pub enum PJRT_SerializedExecutable {}

pub type PJRT_Error_Code = i32;
pub type PJRT_Buffer_Type = i32;
pub type PJRT_NamedValue_Type = i32;

pub const NAMED_VALUE_STRING: PJRT_NamedValue_Type = 0;
pub const NAMED_VALUE_INT64: PJRT_NamedValue_Type = 1;
pub const NAMED_VALUE_INT64_LIST: PJRT_NamedValue_Type = 2;
pub const NAMED_VALUE_FLOAT: PJRT_NamedValue_Type = 3;
pub const NAMED_VALUE_BOOL: PJRT_NamedValue_Type = 4;

/// `PJRT_HostBufferSemantics_kImmutableUntilTransferCompletes`.
pub const HOST_BUFFER_IMMUTABLE_UNTIL_TRANSFER_COMPLETES: i32 = 1;
/// `PJRT_HostBufferSemantics_kImmutableZeroCopy`.
pub const HOST_BUFFER_IMMUTABLE_ZERO_COPY: i32 = 2;

/// Marks the `*Args` structs: all-zero is a valid value of each (pointers, integers,
/// `Option<fn>`, `bool`), which [`Args::new`] relies on.
///
/// # Safety
/// Implementors must be `#[repr(C)]` structs whose first field is `struct_size: usize` and
/// whose fields are all valid when zeroed.
pub unsafe trait Args: Sized {
    /// A zeroed struct with `struct_size` set to its own size.
    fn new() -> Self {
        // SAFETY: the trait's contract says all-zero bytes are a valid `Self`.
        let mut args: Self = unsafe { std::mem::zeroed() };
        // SAFETY: the contract puts `struct_size: usize` at offset 0 of the `repr(C)` struct.
        unsafe { (&raw mut args).cast::<usize>().write(size_of::<Self>()) };
        args
    }
}

/// Declares `repr(C)` argument structs that begin with `struct_size` and `extension_start`.
macro_rules! args_structs {
    ($($name:ident { $($field:ident: $ty:ty),* $(,)? })*) => {$(
        #[repr(C)]
        pub struct $name {
            pub struct_size: usize,
            pub extension_start: *mut c_void,
            $(pub $field: $ty,)*
        }
        // SAFETY: `repr(C)`, `struct_size: usize` first, and every field type used in this file
        // (raw pointers, integers, `bool`, `Option<fn>`, nested args) is valid when zeroed.
        unsafe impl Args for $name {}
    )*};
}

#[repr(C)]
#[derive(Clone, Copy)]
pub union NamedValueData {
    pub string: *const c_char,
    pub int64: i64,
    pub int64_array: *const i64,
    pub float: f32,
    pub boolean: bool,
}

pub type SerializedExecutableDeleter = Option<unsafe extern "C" fn(*mut PJRT_SerializedExecutable)>;
type KeyValueCallback = Option<unsafe extern "C" fn(*mut c_void) -> *mut PJRT_Error>;

args_structs! {
    PJRT_Api_Version { major_version: i32, minor_version: i32 }

    PJRT_NamedValue {
        name: *const c_char,
        name_size: usize,
        kind: PJRT_NamedValue_Type,
        value: NamedValueData,
        value_size: usize,
    }

    PJRT_Error_Destroy_Args { error: *mut PJRT_Error }
    PJRT_Error_Message_Args { error: *const PJRT_Error, message: *const c_char, message_size: usize }
    PJRT_Error_GetCode_Args { error: *const PJRT_Error, code: PJRT_Error_Code }

    PJRT_Plugin_Initialize_Args {}
    PJRT_Plugin_Attributes_Args { attributes: *const PJRT_NamedValue, num_attributes: usize }

    PJRT_Event_Destroy_Args { event: *mut PJRT_Event }
    PJRT_Event_Await_Args { event: *mut PJRT_Event }

    PJRT_Client_Create_Args {
        create_options: *const PJRT_NamedValue,
        num_options: usize,
        kv_get_callback: KeyValueCallback,
        kv_get_user_arg: *mut c_void,
        kv_put_callback: KeyValueCallback,
        kv_put_user_arg: *mut c_void,
        client: *mut PJRT_Client,
        kv_try_get_callback: KeyValueCallback,
        kv_try_get_user_arg: *mut c_void,
    }
    PJRT_Client_Destroy_Args { client: *mut PJRT_Client }
    PJRT_Client_PlatformName_Args {
        client: *mut PJRT_Client,
        platform_name: *const c_char,
        platform_name_size: usize,
    }
    PJRT_Client_PlatformVersion_Args {
        client: *mut PJRT_Client,
        platform_version: *const c_char,
        platform_version_size: usize,
    }
    PJRT_Client_AddressableDevices_Args {
        client: *mut PJRT_Client,
        addressable_devices: *const *mut PJRT_Device,
        num_addressable_devices: usize,
    }

    PJRT_Program {
        code: *mut c_char,
        code_size: usize,
        format: *const c_char,
        format_size: usize,
    }
    PJRT_Client_Compile_Args {
        client: *mut PJRT_Client,
        program: *const PJRT_Program,
        compile_options: *const c_char,
        compile_options_size: usize,
        executable: *mut PJRT_LoadedExecutable,
    }
    PJRT_Client_BufferFromHostBuffer_Args {
        client: *mut PJRT_Client,
        data: *const c_void,
        kind: PJRT_Buffer_Type,
        dims: *const i64,
        num_dims: usize,
        byte_strides: *const i64,
        num_byte_strides: usize,
        host_buffer_semantics: i32,
        device: *mut PJRT_Device,
        memory: *mut PJRT_Memory,
        device_layout: *mut c_void,
        done_with_host_buffer: *mut PJRT_Event,
        buffer: *mut PJRT_Buffer,
    }

    PJRT_Executable_Destroy_Args { executable: *mut PJRT_Executable }
    PJRT_Executable_NumOutputs_Args { executable: *mut PJRT_Executable, num_outputs: usize }
    PJRT_Executable_Serialize_Args {
        executable: *const PJRT_Executable,
        serialized_bytes: *const c_char,
        serialized_bytes_size: usize,
        serialized_executable: *mut PJRT_SerializedExecutable,
        serialized_executable_deleter: SerializedExecutableDeleter,
    }
    PJRT_Executable_OutputElementTypes_Args {
        executable: *mut PJRT_Executable,
        output_types: *mut PJRT_Buffer_Type,
        num_output_types: usize,
    }
    PJRT_Executable_OutputDimensions_Args {
        executable: *mut PJRT_Executable,
        num_outputs: usize,
        dims: *const i64,
        dim_sizes: *const usize,
    }
    PJRT_Executable_GetCostAnalysis_Args {
        executable: *mut PJRT_Executable,
        num_properties: usize,
        properties: *const PJRT_NamedValue,
    }
    PJRT_Executable_GetCompiledMemoryStats_Args {
        executable: *mut PJRT_Executable,
        generated_code_size_in_bytes: i64,
        argument_size_in_bytes: i64,
        output_size_in_bytes: i64,
        alias_size_in_bytes: i64,
        temp_size_in_bytes: i64,
        host_generated_code_size_in_bytes: i64,
        host_argument_size_in_bytes: i64,
        host_output_size_in_bytes: i64,
        host_alias_size_in_bytes: i64,
        host_temp_size_in_bytes: i64,
        // Since 0.72.
        peak_memory_in_bytes: i64,
        // Since 0.90.
        total_size_in_bytes: i64,
        // Since 0.104.
        total_allocation_bytes: i64,
        indefinite_allocations: i64,
        peak_unpadded_heap_bytes: i64,
    }
    PJRT_Executable_DeserializeAndLoad_Args {
        client: *mut PJRT_Client,
        serialized_executable: *const c_char,
        serialized_executable_size: usize,
        loaded_executable: *mut PJRT_LoadedExecutable,
        overridden_serialized_compile_options: *const c_char,
        overridden_serialized_compile_options_size: usize,
        load_options: *mut c_void,
    }

    PJRT_LoadedExecutable_Destroy_Args { executable: *mut PJRT_LoadedExecutable }
    PJRT_LoadedExecutable_GetExecutable_Args {
        loaded_executable: *mut PJRT_LoadedExecutable,
        executable: *mut PJRT_Executable,
    }
    PJRT_LoadedExecutable_AddressableDevices_Args {
        executable: *mut PJRT_LoadedExecutable,
        addressable_devices: *const *mut PJRT_Device,
        num_addressable_devices: usize,
    }
    PJRT_ExecuteOptions {
        send_callbacks: *mut c_void,
        recv_callbacks: *mut c_void,
        num_send_ops: usize,
        num_recv_ops: usize,
        launch_id: i32,
        non_donatable_input_indices: *const i64,
        num_non_donatable_input_indices: usize,
        context: *mut c_void,
        call_location: *const c_char,
        num_tasks: usize,
        task_ids: *mut i32,
        incarnation_ids: *mut i64,
        multi_slice_config: *mut c_void,
        use_major_to_minor_data_layout_for_callbacks: bool,
        hlo_output_callbacks: *mut c_void,
        num_hlo_output_callbacks: usize,
    }
    PJRT_LoadedExecutable_Execute_Args {
        executable: *mut PJRT_LoadedExecutable,
        options: *mut PJRT_ExecuteOptions,
        argument_lists: *const *const *mut PJRT_Buffer,
        num_devices: usize,
        num_args: usize,
        output_lists: *const *mut *mut PJRT_Buffer,
        device_complete_events: *mut *mut PJRT_Event,
        execute_device: *mut PJRT_Device,
    }

    PJRT_Buffer_Destroy_Args { buffer: *mut PJRT_Buffer }
    PJRT_Buffer_ElementType_Args { buffer: *mut PJRT_Buffer, kind: PJRT_Buffer_Type }
    PJRT_Buffer_Dimensions_Args { buffer: *mut PJRT_Buffer, dims: *const i64, num_dims: usize }
    PJRT_Buffer_UnsafePointer_Args { buffer: *mut PJRT_Buffer, buffer_pointer: usize }
    PJRT_Buffer_ToHostBuffer_Args {
        src: *mut PJRT_Buffer,
        host_layout: *mut c_void,
        dst: *mut c_void,
        dst_size: usize,
        event: *mut PJRT_Event,
    }

    PJRT_TopologyDescription_Create_Args {
        topology_name: *const c_char,
        topology_name_size: usize,
        create_options: *const PJRT_NamedValue,
        num_options: usize,
        topology: *mut PJRT_TopologyDescription,
    }
    PJRT_TopologyDescription_Destroy_Args { topology: *mut PJRT_TopologyDescription }
    PJRT_TopologyDescription_PlatformName_Args {
        topology: *const PJRT_TopologyDescription,
        platform_name: *const c_char,
        platform_name_size: usize,
    }
    PJRT_TopologyDescription_PlatformVersion_Args {
        topology: *mut PJRT_TopologyDescription,
        platform_version: *const c_char,
        platform_version_size: usize,
    }
    PJRT_TopologyDescription_GetDeviceDescriptions_Args {
        topology: *const PJRT_TopologyDescription,
        descriptions: *const *mut PJRT_DeviceDescription,
        num_descriptions: usize,
    }
    PJRT_Compile_Args {
        topology: *const PJRT_TopologyDescription,
        program: *const PJRT_Program,
        compile_options: *const c_char,
        compile_options_size: usize,
        client: *mut PJRT_Client,
        executable: *mut PJRT_Executable,
    }
}

/// An entry of the function table that returns a `PJRT_Error*`.
pub type Fn<A> = Option<unsafe extern "C" fn(*mut A) -> *mut PJRT_Error>;
/// An entry of the function table that returns nothing.
pub type VoidFn<A> = Option<unsafe extern "C" fn(*mut A)>;
/// An entry this crate never calls: only its size and position matter.
pub type Unused = Option<unsafe extern "C" fn()>;

/// The function table `GetPjrtApi` returns, up to the last entry this crate uses. A plugin's
/// table may be longer (newer) or shorter (older): check `struct_size` before reading an entry.
#[repr(C)]
pub struct PJRT_Api {
    pub struct_size: usize,
    pub extension_start: *mut c_void,
    pub pjrt_api_version: PJRT_Api_Version,

    pub PJRT_Error_Destroy: VoidFn<PJRT_Error_Destroy_Args>,
    pub PJRT_Error_Message: VoidFn<PJRT_Error_Message_Args>,
    pub PJRT_Error_GetCode: Fn<PJRT_Error_GetCode_Args>,

    pub PJRT_Plugin_Initialize: Fn<PJRT_Plugin_Initialize_Args>,
    pub PJRT_Plugin_Attributes: Fn<PJRT_Plugin_Attributes_Args>,

    pub PJRT_Event_Destroy: Fn<PJRT_Event_Destroy_Args>,
    pub PJRT_Event_IsReady: Unused,
    pub PJRT_Event_Error: Unused,
    pub PJRT_Event_Await: Fn<PJRT_Event_Await_Args>,
    pub PJRT_Event_OnReady: Unused,

    pub PJRT_Client_Create: Fn<PJRT_Client_Create_Args>,
    pub PJRT_Client_Destroy: Fn<PJRT_Client_Destroy_Args>,
    pub PJRT_Client_PlatformName: Fn<PJRT_Client_PlatformName_Args>,
    pub PJRT_Client_ProcessIndex: Unused,
    pub PJRT_Client_PlatformVersion: Fn<PJRT_Client_PlatformVersion_Args>,
    pub PJRT_Client_Devices: Unused,
    pub PJRT_Client_AddressableDevices: Fn<PJRT_Client_AddressableDevices_Args>,
    pub PJRT_Client_LookupDevice: Unused,
    pub PJRT_Client_LookupAddressableDevice: Unused,
    pub PJRT_Client_AddressableMemories: Unused,
    pub PJRT_Client_Compile: Fn<PJRT_Client_Compile_Args>,
    pub PJRT_Client_DefaultDeviceAssignment: Unused,
    pub PJRT_Client_BufferFromHostBuffer: Fn<PJRT_Client_BufferFromHostBuffer_Args>,

    pub PJRT_DeviceDescription_Id: Unused,
    pub PJRT_DeviceDescription_ProcessIndex: Unused,
    pub PJRT_DeviceDescription_Attributes: Unused,
    pub PJRT_DeviceDescription_Kind: Unused,
    pub PJRT_DeviceDescription_DebugString: Unused,
    pub PJRT_DeviceDescription_ToString: Unused,

    pub PJRT_Device_GetDescription: Unused,
    pub PJRT_Device_IsAddressable: Unused,
    pub PJRT_Device_LocalHardwareId: Unused,
    pub PJRT_Device_AddressableMemories: Unused,
    pub PJRT_Device_DefaultMemory: Unused,
    pub PJRT_Device_MemoryStats: Unused,

    pub PJRT_Memory_Id: Unused,
    pub PJRT_Memory_Kind: Unused,
    pub PJRT_Memory_DebugString: Unused,
    pub PJRT_Memory_ToString: Unused,
    pub PJRT_Memory_AddressableByDevices: Unused,

    pub PJRT_Executable_Destroy: Fn<PJRT_Executable_Destroy_Args>,
    pub PJRT_Executable_Name: Unused,
    pub PJRT_Executable_NumReplicas: Unused,
    pub PJRT_Executable_NumPartitions: Unused,
    pub PJRT_Executable_NumOutputs: Fn<PJRT_Executable_NumOutputs_Args>,
    pub PJRT_Executable_SizeOfGeneratedCodeInBytes: Unused,
    pub PJRT_Executable_GetCostAnalysis: Fn<PJRT_Executable_GetCostAnalysis_Args>,
    pub PJRT_Executable_OutputMemoryKinds: Unused,
    pub PJRT_Executable_OptimizedProgram: Unused,
    pub PJRT_Executable_Serialize: Fn<PJRT_Executable_Serialize_Args>,

    pub PJRT_LoadedExecutable_Destroy: Fn<PJRT_LoadedExecutable_Destroy_Args>,
    pub PJRT_LoadedExecutable_GetExecutable: Fn<PJRT_LoadedExecutable_GetExecutable_Args>,
    pub PJRT_LoadedExecutable_AddressableDevices: Fn<PJRT_LoadedExecutable_AddressableDevices_Args>,
    pub PJRT_LoadedExecutable_Delete: Unused,
    pub PJRT_LoadedExecutable_IsDeleted: Unused,
    pub PJRT_LoadedExecutable_Execute: Fn<PJRT_LoadedExecutable_Execute_Args>,
    pub PJRT_Executable_DeserializeAndLoad: Fn<PJRT_Executable_DeserializeAndLoad_Args>,
    pub PJRT_LoadedExecutable_Fingerprint: Unused,

    pub PJRT_Buffer_Destroy: Fn<PJRT_Buffer_Destroy_Args>,
    pub PJRT_Buffer_ElementType: Fn<PJRT_Buffer_ElementType_Args>,
    pub PJRT_Buffer_Dimensions: Fn<PJRT_Buffer_Dimensions_Args>,
    pub PJRT_Buffer_UnpaddedDimensions: Unused,
    pub PJRT_Buffer_DynamicDimensionIndices: Unused,
    pub PJRT_Buffer_GetMemoryLayout: Unused,
    pub PJRT_Buffer_OnDeviceSizeInBytes: Unused,
    pub PJRT_Buffer_Device: Unused,
    pub PJRT_Buffer_Memory: Unused,
    pub PJRT_Buffer_Delete: Unused,
    pub PJRT_Buffer_IsDeleted: Unused,
    pub PJRT_Buffer_CopyToDevice: Unused,
    pub PJRT_Buffer_ToHostBuffer: Fn<PJRT_Buffer_ToHostBuffer_Args>,
    pub PJRT_Buffer_IsOnCpu: Unused,
    pub PJRT_Buffer_ReadyEvent: Unused,
    pub PJRT_Buffer_UnsafePointer: Fn<PJRT_Buffer_UnsafePointer_Args>,
    pub PJRT_Buffer_IncreaseExternalReferenceCount: Unused,
    pub PJRT_Buffer_DecreaseExternalReferenceCount: Unused,
    pub PJRT_Buffer_OpaqueDeviceMemoryDataPointer: Unused,

    pub PJRT_CopyToDeviceStream_Destroy: Unused,
    pub PJRT_CopyToDeviceStream_AddChunk: Unused,
    pub PJRT_CopyToDeviceStream_TotalBytes: Unused,
    pub PJRT_CopyToDeviceStream_GranuleSize: Unused,
    pub PJRT_CopyToDeviceStream_CurrentBytes: Unused,

    pub PJRT_TopologyDescription_Create: Fn<PJRT_TopologyDescription_Create_Args>,
    pub PJRT_TopologyDescription_Destroy: Fn<PJRT_TopologyDescription_Destroy_Args>,
    pub PJRT_TopologyDescription_PlatformName: Fn<PJRT_TopologyDescription_PlatformName_Args>,
    pub PJRT_TopologyDescription_PlatformVersion: Fn<PJRT_TopologyDescription_PlatformVersion_Args>,
    pub PJRT_TopologyDescription_GetDeviceDescriptions:
        Fn<PJRT_TopologyDescription_GetDeviceDescriptions_Args>,
    pub PJRT_TopologyDescription_Serialize: Unused,
    pub PJRT_TopologyDescription_Attributes: Unused,

    pub PJRT_Compile: Fn<PJRT_Compile_Args>,

    pub PJRT_Executable_OutputElementTypes: Fn<PJRT_Executable_OutputElementTypes_Args>,
    pub PJRT_Executable_OutputDimensions: Fn<PJRT_Executable_OutputDimensions_Args>,

    pub PJRT_Buffer_CopyToMemory: Unused,
    pub PJRT_Client_CreateViewOfDeviceBuffer: Unused,
    pub PJRT_Executable_Fingerprint: Unused,
    pub PJRT_Client_TopologyDescription: Unused,
    pub PJRT_Executable_GetCompiledMemoryStats: Fn<PJRT_Executable_GetCompiledMemoryStats_Args>,
}

/// `GetPjrtApi`, the one symbol a plugin exports.
pub type GetPjrtApi = unsafe extern "C" fn() -> *const PJRT_Api;

#[cfg(test)]
mod tests {
    use super::*;
    use std::mem::offset_of;

    // Sizes every plugin at 0.113+ agrees on; a changed declaration shows up here first.
    #[test]
    fn layouts_match_the_header() {
        assert_eq!(size_of::<PJRT_NamedValue>(), 56);
        assert_eq!(size_of::<PJRT_Client_Create_Args>(), 88);
        assert_eq!(size_of::<PJRT_Program>(), 48);
        assert_eq!(size_of::<PJRT_Client_BufferFromHostBuffer_Args>(), 120);
        assert_eq!(size_of::<PJRT_LoadedExecutable_Execute_Args>(), 80);
        assert_eq!(size_of::<PJRT_Executable_DeserializeAndLoad_Args>(), 72);
        assert_eq!(offset_of!(PJRT_Api, PJRT_Error_Destroy), 40);
        assert_eq!(size_of::<PJRT_Executable_GetCostAnalysis_Args>(), 40);
        assert_eq!(
            size_of::<PJRT_Executable_GetCompiledMemoryStats_Args>(),
            144
        );
        assert_eq!(offset_of!(PJRT_Api, PJRT_Compile), 40 + 8 * 89);
        assert_eq!(
            offset_of!(PJRT_Api, PJRT_Executable_GetCompiledMemoryStats),
            40 + 8 * 96
        );
    }
}
