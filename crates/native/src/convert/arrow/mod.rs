//! Arrow output: records converted to Arrow record batches natively, without a Python object
//! per record, and handed to Python through the Arrow PyCapsule interface.
//!
//! - `kind`: column types inferred from the first chunk's values.
//! - `column`: column builders (crate values → Arrow arrays).
//! - `convert`: the columns of a read (metadata and bins) and the chunk → batch conversion.
//! - `from_wire`: the same for chunks read from the wire, straight from their bytes.
//! - `widen`: whole-table reads whose inferred columns widen to fit later chunks.
//! - `spec`: `ArrowSpec`, the columns asked for.
//! - `table`: `ArrowTable`, the exported data.
//! - `write`: `ArrowWriter`, rows of an Arrow stream written as records.
//! - `timestamp`: timestamp columns written as UTC nanoseconds.

mod column;
mod convert;
mod from_wire;
mod kind;
mod spec;
mod table;
mod timestamp;
mod widen;
mod write;

use pyo3::prelude::*;

pub use crate::errors::ArrowSchemaError;
pub use convert::{ConvertError, Converter, Row};
pub use spec::{ArrowSpec, Spec};
pub use table::ArrowTable;
pub use widen::wire_records;
pub use write::{take_rows, Put};

/// How the `batch_arrow` operation takes its `ArrowSpec`.
pub type ArrowSpecRef<'py> = &'py Bound<'py, ArrowSpec>;

/// Register the Arrow classes on the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<spec::ArrowSpec>()?;
    m.add_class::<table::ArrowTable>()?;
    m.add_class::<write::ArrowWriter>()?;
    m.add_class::<write::PutChunk>()?;
    Ok(())
}
