//! [`TooDeep`]: a value read nested deeper than the client reads.

/// Deepest nesting read: twice what a server accepts in an operation (256 levels).
pub const MAX_READ_DEPTH: usize = 512;

/// A read that met a value nested deeper than [`MAX_READ_DEPTH`].
#[derive(Debug)]
pub struct TooDeep {
    /// The bin holding it (`None`: an unnamed value, e.g. a UDF's return value).
    pub bin: Option<String>,
}

impl TooDeep {
    /// The message of the `DeserializeError` it raises.
    pub fn message(&self) -> String {
        let what = match &self.bin {
            Some(bin) => format!("bin '{}'", bin.replace('\'', "\\'")),
            None => "a value".to_owned(),
        };
        format!(
            "{what} nests lists/maps deeper than {MAX_READ_DEPTH} levels, the most this client \
             reads"
        )
    }
}
