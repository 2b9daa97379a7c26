//! Finding the plugin libraries: an explicit path, then the environment, then the plugin
//! directory that `scripts/setup-plugins.sh` installs into.

use std::env;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

/// The pins of `scripts/setup-plugins.sh`, so that the install hint names the exact versions.
const LOCK: &str = include_str!("../../../../scripts/plugins.lock");

/// Which plugin to look for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PluginKind {
    /// XLA:CPU (`lammps-jax-pjrt-cpu`): compiles and executes on this machine.
    Cpu,
    /// libtpu: compiles for TPU topologies, with or without TPUs present.
    Tpu,
}

impl PluginKind {
    /// The name the setup script and its lock file use.
    fn name(self) -> &'static str {
        match self {
            PluginKind::Cpu => "cpu",
            PluginKind::Tpu => "tpu",
        }
    }

    fn description(self) -> &'static str {
        match self {
            PluginKind::Cpu => "the XLA:CPU PJRT plugin",
            PluginKind::Tpu => "libtpu (the TPU PJRT plugin)",
        }
    }

    /// The variable naming the library itself: tpuc's own for the CPU plugin, and for libtpu
    /// the one JAX and torch_xla use.
    pub fn env_var(self) -> &'static str {
        match self {
            PluginKind::Cpu => "TPUC_CPU_PLUGIN",
            PluginKind::Tpu => "TPU_LIBRARY_PATH",
        }
    }
}

/// The directory `scripts/setup-plugins.sh` installs into:
/// `$TPUC_PLUGIN_DIR`, else `${XDG_DATA_HOME:-$HOME/.local/share}/tpuc/plugins`.
pub fn plugin_dir() -> Option<PathBuf> {
    if let Some(dir) = non_empty_env("TPUC_PLUGIN_DIR") {
        return Some(dir);
    }
    let data_home = non_empty_env("XDG_DATA_HOME")
        .or_else(|| non_empty_env("HOME").map(|home| home.join(".local/share")))?;
    Some(data_home.join("tpuc/plugins"))
}

/// Finds the library of `kind`: `explicit` if given, else the variable
/// [`PluginKind::env_var`], else the plugin directory. The first source that is set decides;
/// a missing file there is an error naming how to install the plugin.
pub fn locate(kind: PluginKind, explicit: Option<&Path>) -> Result<PathBuf> {
    let pin = Pin::of(kind);
    let (candidate, source) = match (explicit, non_empty_env(kind.env_var())) {
        (Some(path), _) => (Some(path.to_owned()), "the given path".to_owned()),
        (None, Some(path)) => (Some(path), format!("${}", kind.env_var())),
        (None, None) => (
            plugin_dir().map(|dir| dir.join(pin.destination)),
            "the plugin directory".to_owned(),
        ),
    };
    match candidate {
        Some(path) if path.is_file() => Ok(path),
        candidate => Err(not_found(kind, &pin, candidate, &source)),
    }
}

fn not_found(kind: PluginKind, pin: &Pin, searched: Option<PathBuf>, source: &str) -> Error {
    let searched_text = match &searched {
        Some(path) => format!("{} ({source})", path.display()),
        None => "nothing (neither TPUC_PLUGIN_DIR nor HOME is set)".to_owned(),
    };
    let help = format!(
        "searched: {searched_text}\n\
         install it with `scripts/setup-plugins.sh {name}` (pip package {package}=={version}, \
         pinned by sha256), or run `python3 -m pip download --no-deps --only-binary=:all: \
         {package}=={version}`, unzip `{member}` from the wheel and set {env} to its path",
        name = kind.name(),
        package = pin.package,
        version = pin.version,
        member = pin.member,
        env = kind.env_var(),
    );
    Error::PluginNotFound {
        what: kind.description(),
        searched: searched.into_iter().collect(),
        help,
    }
}

/// One plugin's entry in the lock file.
struct Pin {
    package: &'static str,
    version: &'static str,
    member: &'static str,
    destination: &'static str,
}

impl Pin {
    fn of(kind: PluginKind) -> Pin {
        let mut pin = Pin {
            package: "?",
            version: "?",
            member: "?",
            destination: "?",
        };
        for line in LOCK.lines() {
            let fields: Vec<&str> = match line.strip_prefix("# tpuc-plugin:") {
                Some(fields) => fields.split_whitespace().collect(),
                None => continue,
            };
            if let [name, package, member, destination, ..] = fields[..]
                && name == kind.name()
            {
                (pin.package, pin.member, pin.destination) = (package, member, destination);
            }
        }
        for line in LOCK.lines().filter(|line| !line.starts_with('#')) {
            if let Some((package, rest)) = line.split_once("==")
                && package.trim() == pin.package
            {
                pin.version = rest.split_whitespace().next().unwrap_or("?");
            }
        }
        pin
    }
}

fn non_empty_env(name: &str) -> Option<PathBuf> {
    env::var_os(name)
        .filter(|value| !value.is_empty())
        .map(PathBuf::from)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lock_file_names_both_plugins() {
        let cpu = Pin::of(PluginKind::Cpu);
        assert_eq!(cpu.package, "lammps-jax-pjrt-cpu");
        assert_eq!(cpu.destination, "cpu/pjrt_c_api_cpu_plugin.so");
        assert!(cpu.version.starts_with(|c: char| c.is_ascii_digit()));
        let tpu = Pin::of(PluginKind::Tpu);
        assert_eq!(tpu.package, "libtpu");
        assert_eq!(tpu.member, "libtpu/libtpu.so");
    }

    #[test]
    fn a_missing_explicit_path_is_an_error_with_the_install_hint() {
        let missing = Path::new("no/such/dir/pjrt_c_api_cpu_plugin.so");
        let error = locate(PluginKind::Cpu, Some(missing)).unwrap_err();
        let Error::PluginNotFound { searched, help, .. } = &error else {
            panic!("unexpected error {error:?}");
        };
        assert_eq!(searched, &[missing.to_owned()]);
        assert!(help.contains("scripts/setup-plugins.sh cpu"), "{help}");
        assert!(help.contains("lammps-jax-pjrt-cpu=="), "{help}");
        assert!(help.contains("no/such/dir"), "{help}");
    }
}
