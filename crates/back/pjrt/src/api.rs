//! Calling through a plugin's function table: entry lookup with `struct_size` checks,
//! `PJRT_Error` conversion, event waits and borrowed C strings.

use std::ffi::c_char;

use crate::error::{ApiVersion, Error, ErrorCode, Result};
use crate::ffi::{self, Args};

/// A plugin's function table, valid for the whole process (plugins are never unloaded).
#[derive(Clone, Copy)]
pub(crate) struct Api {
    table: *const ffi::PJRT_Api,
    size: usize,
    version: ApiVersion,
}

// SAFETY: the table is immutable after `GetPjrtApi` returns and lives as long as the process;
// PJRT functions may be called from any thread.
unsafe impl Send for Api {}
// SAFETY: as above; `Api` only reads the table.
unsafe impl Sync for Api {}

/// A function pointer read from the table, with its name for error messages.
pub(crate) struct Entry<F> {
    pub f: F,
    pub name: &'static str,
}

/// Looks up a function in the table, failing cleanly when the plugin's table is too short or
/// the entry is null: `entry!(api, PJRT_Client_Create)?`.
macro_rules! entry {
    ($api:expr, $name:ident) => {
        $api.entry(
            ::std::mem::offset_of!($crate::ffi::PJRT_Api, $name),
            stringify!($name),
            |table: &$crate::ffi::PJRT_Api| table.$name,
        )
    };
}
pub(crate) use entry;

impl Api {
    /// # Safety
    /// `table` must be the non-null result of a plugin's `GetPjrtApi`, whose library is never
    /// unloaded.
    pub(crate) unsafe fn new(table: *const ffi::PJRT_Api) -> Result<Self, String> {
        // SAFETY: `struct_size` is the first field of every version of the table.
        let size = unsafe { table.cast::<usize>().read() };
        let version_end = std::mem::offset_of!(ffi::PJRT_Api, pjrt_api_version)
            + size_of::<ffi::PJRT_Api_Version>();
        if size < version_end {
            return Err(format!("its function table is only {size} bytes"));
        }
        // SAFETY: checked just above that the table is large enough to hold the version.
        let (major, minor) = unsafe {
            let raw = &raw const (*table).pjrt_api_version;
            ((*raw).major_version, (*raw).minor_version)
        };
        let version = ApiVersion { major, minor };
        Ok(Api {
            table,
            size,
            version,
        })
    }

    pub(crate) fn version(&self) -> ApiVersion {
        self.version
    }

    /// Reads the entry at `offset` if the plugin's table is long enough to have it. `_field`
    /// only names the entry's type; it is never called.
    pub(crate) fn entry<F: Copy>(
        &self,
        offset: usize,
        name: &'static str,
        _field: fn(&ffi::PJRT_Api) -> Option<F>,
    ) -> Result<Entry<F>> {
        let unsupported = Error::Unsupported {
            function: name,
            version: self.version,
        };
        if offset + size_of::<Option<F>>() > self.size {
            return Err(unsupported);
        }
        // SAFETY: the plugin's table holds `self.size` bytes and the entry lies within them;
        // `Option<fn>` has the layout of a nullable C function pointer.
        let f = unsafe {
            self.table
                .cast::<u8>()
                .add(offset)
                .cast::<Option<F>>()
                .read()
        };
        f.map(|f| Entry { f, name }).ok_or(unsupported)
    }

    /// Turns a returned `PJRT_Error*` into a `Result`, destroying the error.
    pub(crate) fn check(&self, function: &'static str, error: *mut ffi::PJRT_Error) -> Result<()> {
        if error.is_null() {
            return Ok(());
        }
        let message = self.error_message(error);
        let code = self.error_code(error);
        self.destroy_error(error);
        Err(Error::Plugin {
            function,
            code,
            message,
        })
    }

    fn error_message(&self, error: *mut ffi::PJRT_Error) -> String {
        let Ok(message_fn) = entry!(self, PJRT_Error_Message) else {
            return "(the plugin cannot describe the error)".to_owned();
        };
        let mut args = ffi::PJRT_Error_Message_Args::new();
        args.error = error;
        // SAFETY: `error` is a live error the plugin returned; `args` is initialised.
        unsafe { (message_fn.f)(&mut args) };
        // SAFETY: the message lives as long as `error`, which is destroyed only after this copy.
        unsafe { borrowed_str(args.message, args.message_size) }
    }

    fn error_code(&self, error: *mut ffi::PJRT_Error) -> ErrorCode {
        let Ok(code_fn) = entry!(self, PJRT_Error_GetCode) else {
            return ErrorCode::Unknown;
        };
        let mut args = ffi::PJRT_Error_GetCode_Args::new();
        args.error = error;
        // SAFETY: `error` is a live error the plugin returned; `args` is initialised.
        let nested = unsafe { (code_fn.f)(&mut args) };
        if nested.is_null() {
            ErrorCode::from_raw(args.code)
        } else {
            self.destroy_error(nested);
            ErrorCode::Unknown
        }
    }

    fn destroy_error(&self, error: *mut ffi::PJRT_Error) {
        // Without a destroy function the error can only leak; nothing else is possible.
        if let Ok(destroy) = entry!(self, PJRT_Error_Destroy) {
            let mut args = ffi::PJRT_Error_Destroy_Args::new();
            args.error = error;
            // SAFETY: `error` is live and destroyed exactly once, here.
            unsafe { (destroy.f)(&mut args) };
        }
    }

    /// Waits for `event` (if any) and destroys it, whatever the outcome.
    pub(crate) fn await_event(&self, event: *mut ffi::PJRT_Event) -> Result<()> {
        if event.is_null() {
            return Ok(());
        }
        let waited = entry!(self, PJRT_Event_Await).and_then(|wait| {
            let mut args = ffi::PJRT_Event_Await_Args::new();
            args.event = event;
            // SAFETY: `event` is a live event the plugin returned.
            let error = unsafe { (wait.f)(&mut args) };
            self.check(wait.name, error)
        });
        let destroyed = self.destroy_event(event);
        waited.and(destroyed)
    }

    fn destroy_event(&self, event: *mut ffi::PJRT_Event) -> Result<()> {
        let destroy = entry!(self, PJRT_Event_Destroy)?;
        let mut args = ffi::PJRT_Event_Destroy_Args::new();
        args.event = event;
        // SAFETY: `event` is live and destroyed exactly once, here.
        let error = unsafe { (destroy.f)(&mut args) };
        self.check(destroy.name, error)
    }

    /// Runs a destroy function from `Drop`: errors cannot be returned there, so they are
    /// reported on stderr instead of being lost or panicking.
    pub(crate) fn destroy_quietly(&self, what: &str, result: Result<()>) {
        if let Err(error) = result {
            eprintln!("tpuc-pjrt: destroying {what}: {error}");
        }
    }
}

/// Copies a `(pointer, length)` string the plugin owns. Invalid UTF-8 is replaced.
///
/// # Safety
/// `data` must be null or point to `len` readable bytes.
pub(crate) unsafe fn borrowed_str(data: *const c_char, len: usize) -> String {
    // SAFETY: forwarded from the caller.
    String::from_utf8_lossy(unsafe { borrowed_slice(data.cast::<u8>(), len) }).into_owned()
}

/// Views a `(pointer, length)` array the plugin owns; null or empty gives `&[]`.
///
/// # Safety
/// `data` must be null or point to `len` initialised values that outlive `'a`.
pub(crate) unsafe fn borrowed_slice<'a, T>(data: *const T, len: usize) -> &'a [T] {
    if data.is_null() || len == 0 {
        &[]
    } else {
        // SAFETY: non-null and `len` values long, per the caller.
        unsafe { std::slice::from_raw_parts(data, len) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A zeroed function table of `size` bytes claiming API version 0.50.
    fn old_table(size: usize) -> Box<ffi::PJRT_Api> {
        // SAFETY: every field of the table is valid when zeroed (sizes, pointers, `Option<fn>`).
        let mut table: Box<ffi::PJRT_Api> = Box::new(unsafe { std::mem::zeroed() });
        table.struct_size = size;
        table.pjrt_api_version.major_version = 0;
        table.pjrt_api_version.minor_version = 50;
        table
    }

    #[test]
    fn entries_past_the_plugins_table_are_unsupported_not_read() {
        let size = std::mem::offset_of!(ffi::PJRT_Api, PJRT_Client_Create);
        let table = old_table(size);
        // SAFETY: the table outlives `api`, which is only used inside this test.
        let api = unsafe { Api::new(&*table) }.unwrap();
        assert_eq!(
            api.version(),
            ApiVersion {
                major: 0,
                minor: 50
            }
        );
        let error = entry!(api, PJRT_Compile).err().unwrap();
        assert!(
            matches!(
                error,
                Error::Unsupported {
                    function: "PJRT_Compile",
                    ..
                }
            ),
            "{error:?}"
        );
        assert_eq!(
            error.to_string(),
            "the PJRT plugin (C API 0.50) has no PJRT_Compile"
        );
        // Inside the table but null: also unsupported rather than a null call.
        assert!(entry!(api, PJRT_Error_Destroy).is_err());
    }

    #[test]
    fn a_table_without_a_version_is_refused() {
        let table = old_table(16);
        // SAFETY: as above.
        assert!(unsafe { Api::new(&*table) }.is_err());
    }
}
