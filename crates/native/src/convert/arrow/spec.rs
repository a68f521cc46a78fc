//! `ArrowSpec`: which columns an Arrow read produces, checked before anything is sent.

use arrow_schema::SchemaRef;
use pyo3::prelude::*;
use pyo3_arrow::PySchema;

use crate::errors::invalid_argument;

/// The columns asked for: a schema (else inferred), the selected bins, and the names of the
/// metadata columns wanted (user key, digest, generation, TTL, and for batch reads whether the
/// record was found).
#[derive(Clone, Default)]
pub struct Spec {
    pub schema: Option<SchemaRef>,
    pub bins: Option<Vec<String>>,
    pub key: Option<String>,
    pub digest: Option<String>,
    pub generation: Option<String>,
    pub ttl: Option<String>,
    pub found: Option<String>,
    /// A bin whose values have no one column type becomes a string column of their text.
    pub mixed_as_text: bool,
}

/// The columns of an Arrow read (see `aerospike_fluent.arrow`).
#[pyclass(frozen, module = "aerospike_fluent._native")]
pub struct ArrowSpec {
    pub(crate) spec: Spec,
}

#[pymethods]
impl ArrowSpec {
    /// `schema`: any object with `__arrow_c_schema__` (a `pyarrow.Schema`, ...); `bins`: the
    /// selected bins (their column order when there is no schema); `key`, `digest`,
    /// `generation`, `ttl`, `found` (a batch read's: whether the record was found): the name of
    /// that metadata column, or `None` for none.
    /// `mixed`: `"str"` makes a bin whose values have no one column type a string column
    /// of their text (else such a bin is an error).
    #[new]
    #[pyo3(signature = (schema=None, bins=None, key=None, digest=None, generation=None, ttl=None, mixed=None, found=None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        schema: Option<&Bound<'_, PyAny>>,
        bins: Option<Vec<String>>,
        key: Option<String>,
        digest: Option<String>,
        generation: Option<String>,
        ttl: Option<String>,
        mixed: Option<&str>,
        found: Option<String>,
    ) -> PyResult<Self> {
        let mixed_as_text = match mixed {
            None => false,
            Some("str") => true,
            Some(other) => {
                return Err(invalid_argument(format!(
                    "mixed_types must be 'str' or None, not {other:?}"
                )))
            }
        };
        let schema = match schema.filter(|s| !s.is_none()) {
            None => None,
            Some(s) => {
                if !s.hasattr("__arrow_c_schema__")? {
                    return Err(invalid_argument(
                        "schema must be an Arrow schema (an object with __arrow_c_schema__, \
                         such as a pyarrow.Schema)",
                    ));
                }
                Some(s.extract::<PySchema>()?.into_inner())
            }
        };
        let metas = [&key, &digest, &generation, &ttl, &found];
        for (i, a) in metas.iter().enumerate() {
            if let Some(a) = a {
                if metas[..i].iter().any(|b| b.as_ref() == Some(a)) {
                    return Err(invalid_argument(format!(
                        "two metadata columns are named {a:?}"
                    )));
                }
            }
        }
        Ok(ArrowSpec {
            spec: Spec {
                schema,
                bins,
                key,
                digest,
                generation,
                ttl,
                found,
                mixed_as_text,
            },
        })
    }

    /// The bin names of the given schema (its fields less the metadata columns), if any.
    #[getter]
    fn schema_bins(&self) -> Option<Vec<String>> {
        let s = &self.spec;
        let metas = [&s.key, &s.digest, &s.generation, &s.ttl, &s.found];
        let schema = s.schema.as_ref()?;
        Some(
            schema
                .fields()
                .iter()
                .map(|f| f.name().clone())
                .filter(|n| !metas.iter().any(|m| m.as_deref() == Some(n.as_str())))
                .collect(),
        )
    }
}
