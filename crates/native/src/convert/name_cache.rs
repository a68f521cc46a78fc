//! Python strings for the short names records repeat (bin names, namespaces, sets), shared by
//! every record built from wire bytes: a record builds its bins long after its chunk is gone,
//! so the strings cannot be shared per chunk.
//!
//! A direct-mapped table of 256 slots: a name whose slot holds another name replaces it, so
//! the table stays bounded whatever names a cluster holds.

use parking_lot::Mutex;
use pyo3::prelude::*;
use pyo3::types::PyString;

const SLOTS: usize = 256;
/// Longer names get a string of their own each time.
const LONGEST: usize = 64;

type Slot = Option<(Box<[u8]>, Py<PyString>)>;

static TABLE: Mutex<[Slot; SLOTS]> = Mutex::new([const { None }; SLOTS]);

/// The names of one record, looked up under one lock.
pub struct Names<'a> {
    /// `None` while someone else holds the table (only possible when converting a value ran
    /// Python code, such as a finalizer that reads another record): nothing is cached then.
    table: Option<parking_lot::MutexGuard<'a, [Slot; SLOTS]>>,
}

/// Start looking up names.
pub fn names() -> Names<'static> {
    Names {
        table: TABLE.try_lock(),
    }
}

fn slot_of(name: &[u8]) -> usize {
    // FNV-1a
    let mut h: u32 = 0x811c_9dc5;
    for &b in name {
        h = (h ^ u32::from(b)).wrapping_mul(0x0100_0193);
    }
    (h as usize) % SLOTS
}

impl Names<'_> {
    /// The Python string for `name` (UTF-8; invalid sequences replaced).
    pub fn get<'py>(&mut self, py: Python<'py>, name: &[u8]) -> Bound<'py, PyString> {
        let fresh = || PyString::new(py, &String::from_utf8_lossy(name));
        let Some(table) = self.table.as_mut().filter(|_| name.len() <= LONGEST) else {
            return fresh();
        };
        let slot = &mut table[slot_of(name)];
        if let Some((known, s)) = slot {
            if **known == *name {
                return s.bind(py).clone();
            }
        }
        let s = fresh();
        *slot = Some((name.into(), s.clone().unbind()));
        s
    }
}
