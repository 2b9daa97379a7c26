//! `libtpuc_capi`: the C ABI of `include/tpuc_cache.h` over [`tpuc_cache`], for runtimes in any
//! language that load tpuc's executables without tpuc.
//!
//! This crate is the one exception, besides `tpuc-pjrt`, to the workspace's ban on `unsafe`:
//! C hands it raw pointers. Each `unsafe` block only turns a pointer the header documents into
//! a reference (or writes through an out-pointer), after a NULL check, and says why it is
//! sound; everything else is safe code in `entry.rs` and `tpuc_cache`.

mod entry;

use std::cell::RefCell;
use std::ffi::{CStr, CString, c_char, c_int};
use std::ptr;

use tpuc_cache::{Cache, Key, Lookup, Mode, NoBucket};

pub use entry::Entry;

/// `TPUC_CACHE_ABI_VERSION`.
pub const ABI_VERSION: u32 = 1;

#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    Ok = 0,
    NotFound = 1,
    Corrupt = 2,
    InvalidArgument = 3,
    Error = 4,
}

/// `tpuc_binding`.
#[repr(C)]
pub struct CBinding {
    pub kind: *const c_char,
    pub name: *const c_char,
    pub index: i64,
    pub dtype: *const c_char,
    pub shape: *const i64,
    pub rank: usize,
    pub sharding: *const c_char,
}

thread_local! {
    static LAST_ERROR: RefCell<CString> = RefCell::new(CString::default());
}

fn fail(status: Status, message: impl Into<String>) -> Status {
    let message = message.into().replace('\0', " ");
    LAST_ERROR.with(|last| *last.borrow_mut() = CString::new(message).unwrap_or_default());
    status
}

/// The string behind a C pointer the header says is NUL-terminated UTF-8.
fn c_str<'a>(text: *const c_char, what: &str) -> Result<&'a str, Status> {
    if text.is_null() {
        return Err(fail(Status::InvalidArgument, format!("{what} is NULL")));
    }
    // SAFETY: not NULL (checked), and the caller passes a NUL-terminated string that lives for
    // the duration of the call, as the header requires.
    let text = unsafe { CStr::from_ptr(text) };
    text.to_str()
        .map_err(|_| fail(Status::InvalidArgument, format!("{what} is not UTF-8")))
}

fn parse_key(key: *const c_char) -> Result<Key, Status> {
    let key = c_str(key, "key")?;
    key.parse::<Key>().map_err(|error| {
        fail(
            Status::InvalidArgument,
            format!("`{key}` is not a cache key: {error}"),
        )
    })
}

/// `&T` behind a handle this library returned.
fn handle<'a, T>(pointer: *const T, what: &str) -> Result<&'a T, Status> {
    if pointer.is_null() {
        return Err(fail(Status::InvalidArgument, format!("{what} is NULL")));
    }
    // SAFETY: handles come from `Box::into_raw` in this library and stay alive until the
    // matching free/close, which the header requires callers not to call concurrently.
    Ok(unsafe { &*pointer })
}

/// Stores `value` in the caller's out-parameter.
fn put<T>(out: *mut T, value: T) -> Status {
    if out.is_null() {
        return fail(Status::InvalidArgument, "the output pointer is NULL");
    }
    // SAFETY: not NULL (checked); the caller passes a pointer to writable storage for a `T`.
    unsafe { out.write(value) };
    Status::Ok
}

fn status_of<T>(result: Result<T, Status>, then: impl FnOnce(T) -> Status) -> Status {
    match result {
        Ok(value) => then(value),
        Err(status) => status,
    }
}

#[unsafe(no_mangle)]
pub extern "C" fn tpuc_cache_abi_version() -> u32 {
    ABI_VERSION
}

#[unsafe(no_mangle)]
pub extern "C" fn tpuc_cache_open(
    dir: *const c_char,
    read_only: c_int,
    out: *mut *mut Cache,
) -> Status {
    let mode = if read_only != 0 {
        Mode::ReadOnly
    } else {
        Mode::ReadWrite
    };
    let cache = if dir.is_null() {
        Cache::open_default(mode).map_err(|e| fail(Status::Error, e.to_string()))
    } else {
        c_str(dir, "dir").map(|dir| Cache::open(dir, mode))
    };
    status_of(cache, |cache| put(out, Box::into_raw(Box::new(cache))))
}

/// # Safety
/// `cache` is NULL or came from [`tpuc_cache_open`] and is not used again.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tpuc_cache_close(cache: *mut Cache) {
    if !cache.is_null() {
        // SAFETY: `cache` came from `tpuc_cache_open` and is closed once (header contract).
        drop(unsafe { Box::from_raw(cache) });
    }
}

/// The verified entry `key`, or the status saying why there is none.
fn lookup(cache: *const Cache, key: *const c_char) -> Result<Box<tpuc_cache::Hit>, Status> {
    let cache = handle(cache, "cache")?;
    let key = parse_key(key)?;
    match cache.lookup(&key) {
        Ok(Lookup::Hit(hit)) => Ok(hit),
        Ok(Lookup::Miss) => Err(fail(Status::NotFound, format!("no cache entry {key}"))),
        Ok(Lookup::Corrupt { path, reason }) => Err(fail(
            Status::Corrupt,
            format!("the entry {key} at {} is corrupt: {reason}", path.display()),
        )),
        Err(error) => Err(fail(Status::Error, error.to_string())),
    }
}

#[unsafe(no_mangle)]
pub extern "C" fn tpuc_cache_lookup(
    cache: *mut Cache,
    key: *const c_char,
    out: *mut *mut Entry,
) -> Status {
    status_of(lookup(cache, key), |hit| {
        put(out, Box::into_raw(Box::new(Entry::new(*hit))))
    })
}

#[unsafe(no_mangle)]
pub extern "C" fn tpuc_cache_verify(cache: *mut Cache, key: *const c_char) -> Status {
    status_of(lookup(cache, key), |_| Status::Ok)
}

/// # Safety
/// `entry` is NULL or came from [`tpuc_cache_lookup`] and is not used again.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tpuc_entry_free(entry: *mut Entry) {
    if !entry.is_null() {
        // SAFETY: `entry` came from `tpuc_cache_lookup` and is freed once (header contract).
        drop(unsafe { Box::from_raw(entry) });
    }
}

#[unsafe(no_mangle)]
pub extern "C" fn tpuc_entry_executable(entry: *const Entry, len: *mut usize) -> *const u8 {
    match handle(entry, "entry") {
        Ok(entry) => {
            if put(len, entry.executable.len()) != Status::Ok {
                return ptr::null();
            }
            entry.executable.as_ptr()
        }
        Err(_) => ptr::null(),
    }
}

#[unsafe(no_mangle)]
pub extern "C" fn tpuc_entry_target(entry: *const Entry) -> *const c_char {
    handle(entry, "entry").map_or(ptr::null(), |e| e.target.as_ptr())
}

#[unsafe(no_mangle)]
pub extern "C" fn tpuc_entry_manifest_json(entry: *const Entry) -> *const c_char {
    handle(entry, "entry").map_or(ptr::null(), |e| e.manifest_json.as_ptr())
}

#[unsafe(no_mangle)]
pub extern "C" fn tpuc_entry_argument_count(entry: *const Entry) -> usize {
    handle(entry, "entry").map_or(0, |e| e.arguments.len())
}

#[unsafe(no_mangle)]
pub extern "C" fn tpuc_entry_result_count(entry: *const Entry) -> usize {
    handle(entry, "entry").map_or(0, |e| e.results.len())
}

fn binding_at(
    entry: *const Entry,
    index: usize,
    out: *mut CBinding,
    pick: fn(&Entry) -> &[entry::BindingData],
    what: &str,
) -> Status {
    let entry = match handle(entry, "entry") {
        Ok(entry) => entry,
        Err(status) => return status,
    };
    let bindings = pick(entry);
    let Some(binding) = bindings.get(index) else {
        return fail(
            Status::InvalidArgument,
            format!(
                "{what} {index} does not exist: there are {}",
                bindings.len()
            ),
        );
    };
    put(
        out,
        CBinding {
            kind: binding.kind.as_ptr(),
            name: binding.name.as_ref().map_or(ptr::null(), |n| n.as_ptr()),
            index: binding.index,
            dtype: binding.dtype.as_ptr(),
            shape: binding.shape.as_ptr(),
            rank: binding.shape.len(),
            sharding: binding
                .sharding
                .as_ref()
                .map_or(ptr::null(), |s| s.as_ptr()),
        },
    )
}

#[unsafe(no_mangle)]
pub extern "C" fn tpuc_entry_argument(
    entry: *const Entry,
    index: usize,
    out: *mut CBinding,
) -> Status {
    binding_at(entry, index, out, |e| &e.arguments, "argument")
}

#[unsafe(no_mangle)]
pub extern "C" fn tpuc_entry_result(
    entry: *const Entry,
    index: usize,
    out: *mut CBinding,
) -> Status {
    binding_at(entry, index, out, |e| &e.results, "result")
}

/// `NAME=AxB;NAME=AxB` as (name, shape) pairs.
fn parse_request(text: &str) -> Result<Vec<(String, Vec<i64>)>, Status> {
    text.split(';')
        .map(|part| {
            let (name, shape) = part
                .split_once('=')
                .filter(|(n, _)| !n.is_empty())
                .ok_or(())?;
            let shape = shape
                .split('x')
                .map(|d| d.parse::<i64>().map_err(|_| ()))
                .collect::<Result<Vec<_>, ()>>()?;
            Ok((name.to_owned(), shape))
        })
        .collect::<Result<_, ()>>()
        .map_err(|()| {
            fail(
                Status::InvalidArgument,
                format!("`{text}` is not a shape such as input_ids=1x300;mask=1x300"),
            )
        })
}

fn find_bucket(
    cache: *const Cache,
    family: *const c_char,
    target: *const c_char,
    shape: *const c_char,
) -> Result<Key, Status> {
    let cache = handle(cache, "cache")?;
    let family = c_str(family, "family")?;
    let family: Key = family.parse().map_err(|error| {
        fail(
            Status::InvalidArgument,
            format!("`{family}` is not a family key: {error}"),
        )
    })?;
    let target = c_str(target, "target")?;
    let request = parse_request(c_str(shape, "shape")?)?;
    let records = cache
        .shapes(&family)
        .map_err(|error| fail(Status::Error, error.to_string()))?;
    match tpuc_cache::smallest_bucket(&records, target, &request) {
        Ok(bucket) => Ok(bucket.record.key),
        Err(NoBucket::NoRecords) => Err(fail(
            Status::NotFound,
            format!("no shape of family {family} is recorded for {target}"),
        )),
        Err(NoBucket::UnknownInput { input, inputs }) => Err(fail(
            Status::InvalidArgument,
            format!("no input `{input}`; the inputs are {}", inputs.join(", ")),
        )),
        Err(NoBucket::TooLarge { buckets }) => Err(fail(
            Status::NotFound,
            format!(
                "no bucket holds the shape; the buckets are: {}",
                buckets.join("; ")
            ),
        )),
    }
}

#[unsafe(no_mangle)]
pub extern "C" fn tpuc_cache_find_bucket(
    cache: *mut Cache,
    family: *const c_char,
    target: *const c_char,
    shape: *const c_char,
    key_out: *mut [c_char; 65],
) -> Status {
    status_of(find_bucket(cache, family, target, shape), |key| {
        let mut text = [0 as c_char; 65];
        for (slot, byte) in text.iter_mut().zip(key.to_string().bytes()) {
            *slot = byte as c_char;
        }
        put(key_out, text)
    })
}

#[unsafe(no_mangle)]
pub extern "C" fn tpuc_last_error() -> *const c_char {
    LAST_ERROR.with(|last| last.borrow().as_ptr())
}
