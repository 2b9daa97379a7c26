//! Thin safe layer over the PJRT C API: load a plugin, compile StableHLO, move arrays,
//! execute, serialise.
//!
//! ```
//! use tpuc_pjrt::{CompileOptions, Plugin, PluginKind, Program, locate};
//! # fn main() -> tpuc_pjrt::Result<()> {
//! let plugin = Plugin::load(locate(PluginKind::Cpu, None)?)?;
//! let client = plugin.cpu_client(1)?;
//! let program = Program::mlir("func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {\n  \
//!     %y = stablehlo.add %x, %x : tensor<2xf32>\n  return %y : tensor<2xf32>\n}");
//! let exe = client.compile(&program, &CompileOptions::new())?;
//! let x = client.buffer_from_slice(&[1.0f32, 2.0], &[2], 0)?;
//! let out = exe.execute(&[&[&x]])?;
//! assert_eq!(out[0][0].to_vec::<f32>()?, [2.0, 4.0]);
//! # Ok(()) }
//! ```
//!
//! # Ownership
//! - A [`Plugin`] is loaded once per process per library file and never unloaded:
//!   [`Plugin::load`] returns `&'static Plugin`, and calls `PJRT_Plugin_Initialize` once.
//! - A [`Client`] is a shared handle. Every [`Buffer`] and [`LoadedExecutable`] holds one, so
//!   the client is destroyed only after the last object created from it.
//! - Every object owns its PJRT handle and destroys it on `Drop`, including the
//!   [`Executable`] that [`LoadedExecutable::executable`] returns and [`Topology`]. That
//!   view keeps its loaded executable alive: the plugin's view is invalid once the loaded
//!   executable is destroyed.
//!   Destroy failures are reported on stderr; neither `Drop` nor getters panic.
//! - Every `PJRT_Error` is read into [`Error::Plugin`] and destroyed; every `PJRT_Event` is
//!   awaited and destroyed before the call returns, so host memory handed to the plugin is
//!   never freed while the plugin may still read or write it.
//!
//! # ABI
//! The C declarations in `ffi` follow the PJRT C API header at version 0.113+. Argument
//! structs carry their own size; before an entry of the plugin's function table is read, its
//! offset is checked against the table's `struct_size`, so an older plugin gives
//! [`Error::Unsupported`] instead of undefined behaviour.

mod api;
mod buffer;
mod client;
mod element_type;
mod error;
mod executable;
mod ffi;
mod locate;
mod options;
mod plugin;
mod quiet;
mod report;
mod topology;
mod xla_flags;

pub use buffer::{Buffer, HostBackedBuffer};
pub use client::Client;
pub use element_type::{ElementType, HostElement};
pub use error::{ApiVersion, Error, ErrorCode, Result};
pub use executable::{Executable, LoadedExecutable};
pub use locate::{PluginKind, locate, plugin_dir};
pub use options::{CompileOptions, OptionValue, Program};
pub use plugin::{Plugin, Value};
pub use quiet::show_plugin_logs;
pub use topology::Topology;
pub use tpuc_report::{CostAnalysis, ExecutableReport, MemoryStats};
