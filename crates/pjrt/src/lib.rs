//! Thin safe layer over the PJRT C API.
