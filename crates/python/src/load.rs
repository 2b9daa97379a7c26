//! `tpuc.load`: a program's executable on XLA:CPU, fetched through the compile cache, its
//! weights bound from the archive, kept across calls.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use miette::{Result, miette};
use pyo3::prelude::*;
use pyo3::types::PyByteArray;
use tpuc_driver::{CacheTiers, Input, Options, Origin, Prepared, Runtime, Target};
use tpuc_npy::{Array, Dtype};

use crate::errors::to_py;
use crate::request::{Request, open_tiers};

/// One array crossing the boundary: numpy dtype name, shape, bytes (C order).
type Triple = (String, Vec<usize>, Vec<u8>);

/// An output as Python gets it: a bytearray, so the numpy array over it is writable.
type PyTriple<'py> = (String, Vec<usize>, Bound<'py, PyByteArray>);

/// The dtypes and shapes of a call's inputs: which specialisation of the program serves it.
type Signature = Vec<(Dtype, Vec<usize>)>;

/// The program specialised to one signature, and its loaded executable.
struct Loaded {
    prepared: Prepared,
    executable: tpuc_driver::Executable,
    key: String,
    origin: Origin,
}

/// A program loaded on XLA:CPU.
#[pyclass(frozen, module = "tpuc._tpuc")]
pub struct Executable {
    model: PathBuf,
    options: Options,
    runtime: Runtime,
    caches: CacheTiers,
    loaded: Mutex<Vec<(Signature, Arc<Loaded>)>>,
    warnings: Mutex<Vec<String>>,
}

impl Executable {
    fn open(
        model: PathBuf,
        target: &str,
        cache_dir: Option<PathBuf>,
        trust_keys: Option<Vec<PathBuf>>,
        plugin: Option<PathBuf>,
    ) -> Result<Executable> {
        let request = Request::new(model, target, None, None, None, None, None)?;
        let Target::Cpu { devices } = request.target else {
            return Err(miette!(
                help = format!(
                    "compile for TPUs with tpuc.compile(model, \"{target}\"); load runs on cpu"
                ),
                "`{target}`: tpuc runs programs on XLA:CPU only (cpu or cpu:N)"
            ));
        };
        // A missing or malformed archive is an error now, not at the first call.
        tpuc_driver::ProgramSource::open(&request.model)?;
        let options = request.options.for_target(&request.target);
        let runtime = Runtime::cpu_devices(plugin.as_deref(), devices)?;
        let (caches, warnings) = open_tiers(cache_dir, trust_keys)?;
        Ok(Executable {
            model: request.model,
            options,
            runtime,
            caches,
            loaded: Mutex::new(Vec::new()),
            warnings: Mutex::new(warnings),
        })
    }

    /// The executable for `inputs`' signature: kept from an earlier call, else prepared and
    /// fetched through the cache (compiled on a miss) now.
    fn for_inputs(&self, inputs: &[Input]) -> Result<Arc<Loaded>> {
        let signature: Signature = inputs
            .iter()
            .map(|input| (input.array.dtype(), input.array.shape().to_vec()))
            .collect();
        let known = |loaded: &Vec<(Signature, Arc<Loaded>)>| {
            loaded
                .iter()
                .find(|(s, _)| *s == signature)
                .map(|(_, l)| Arc::clone(l))
        };
        if let Some(loaded) = known(&self.loaded.lock().expect("not poisoned")) {
            return Ok(loaded);
        }
        let prepared = tpuc_driver::prepare(&self.model, inputs, &self.options)?;
        let run = tpuc_driver::load_cached(&prepared, &self.runtime, &self.caches)?;
        self.warnings
            .lock()
            .expect("not poisoned")
            .extend(run.warnings);
        let loaded = Arc::new(Loaded {
            prepared,
            executable: run.executable,
            key: run.key.to_string(),
            origin: run.origin,
        });
        let mut all = self.loaded.lock().expect("not poisoned");
        if let Some(first) = known(&all) {
            return Ok(first);
        }
        all.push((signature, Arc::clone(&loaded)));
        Ok(loaded)
    }

    fn execute(&self, inputs: Vec<Triple>) -> Result<Vec<Triple>> {
        let inputs = inputs
            .into_iter()
            .enumerate()
            .map(|(index, (dtype, shape, data))| {
                let dtype = Dtype::ALL
                    .into_iter()
                    .find(|d| d.name() == dtype)
                    .ok_or_else(|| {
                        miette!("argument {index}: numpy dtype {dtype} is not supported")
                    })?;
                Ok(Input {
                    origin: format!("argument {index}"),
                    array: Array::new(dtype, shape, data)?,
                })
            })
            .collect::<Result<Vec<_>>>()?;
        let loaded = self.for_inputs(&inputs)?;
        let output = loaded
            .prepared
            .execute_inputs(&loaded.executable, &inputs)?;
        output
            .outputs
            .iter()
            .enumerate()
            .map(|(index, tensor)| {
                let array = tensor.to_npy().ok_or_else(|| {
                    miette!(
                        "output {index} has dtype {}, which numpy cannot hold",
                        tensor.dtype
                    )
                })?;
                let shape = array.shape().to_vec();
                Ok((array.dtype().name().to_owned(), shape, array.into_data()))
            })
            .collect()
    }

    fn last(&self) -> Option<Arc<Loaded>> {
        let loaded = self.loaded.lock().expect("not poisoned");
        loaded.last().map(|(_, l)| Arc::clone(l))
    }
}

#[pymethods]
impl Executable {
    #[new]
    #[pyo3(signature = (model, target="cpu", *, cache_dir=None, trust_keys=None, plugin=None))]
    fn new(
        py: Python<'_>,
        model: PathBuf,
        target: &str,
        cache_dir: Option<PathBuf>,
        trust_keys: Option<Vec<PathBuf>>,
        plugin: Option<PathBuf>,
    ) -> PyResult<Executable> {
        py.detach(|| Executable::open(model, target, cache_dir, trust_keys, plugin))
            .map_err(|report| to_py(&report))
    }

    /// Runs on `(dtype, shape, bytes)` inputs; returns the outputs the same way.
    fn run<'py>(&self, py: Python<'py>, inputs: Vec<Triple>) -> PyResult<Vec<PyTriple<'py>>> {
        let outputs = py
            .detach(|| self.execute(inputs))
            .map_err(|report| to_py(&report))?;
        Ok(outputs
            .into_iter()
            .map(|(dtype, shape, data)| (dtype, shape, PyByteArray::new(py, &data)))
            .collect())
    }

    /// The compile key of the executable loaded last, if any.
    #[getter]
    fn key(&self) -> Option<String> {
        self.last().map(|loaded| loaded.key.clone())
    }

    /// Where the executable loaded last came from: `local`, `shared` or `compiled`.
    #[getter]
    fn origin(&self) -> Option<&'static str> {
        self.last().map(|loaded| loaded.origin.name())
    }

    /// Warnings of opening the cache and fetching executables.
    #[getter]
    fn warnings(&self) -> Vec<String> {
        self.warnings.lock().expect("not poisoned").clone()
    }
}
