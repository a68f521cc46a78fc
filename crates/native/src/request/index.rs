//! The secondary-index fields of a query request: which index (by bin, name or expression,
//! with a CDT context and a collection type) and the range of values to read.

use aerospike::Value;

const FIELD_INDEX_NAME: u8 = 21;
const FIELD_INDEX_RANGE: u8 = 22;
const FIELD_INDEX_CONTEXT: u8 = 23;
const FIELD_INDEX_EXPRESSION: u8 = 24;
const FIELD_INDEX_TYPE: u8 = 26;

const INTEGER: u8 = 1;
const STRING: u8 = 3;
const BLOB: u8 = 4;
const GEOJSON: u8 = 23;

/// The index condition of a query, as request fields in the order a server expects them.
#[derive(Clone, Debug, Default)]
pub struct IndexQuery {
    fields: Vec<(u8, Vec<u8>)>,
    /// A record may hold several entries of the index (list or map elements, geo cells), so
    /// a server can send it more than once.
    pub repeats: bool,
    /// What the condition reads, for errors: `index 'name'`, `bin 'age'`, `an expression`.
    pub about: String,
}

/// The values an index condition reads: `[begin, end]` of one particle type.
pub struct Bounds {
    particle: u8,
    begin: Vec<u8>,
    end: Vec<u8>,
}

impl Bounds {
    /// An equality or range on integers, strings or blobs (both ends of one type).
    pub fn values(begin: &Value, end: &Value) -> Result<Bounds, String> {
        let (pb, b) = particle(begin)?;
        let (pe, e) = particle(end)?;
        if pb != pe {
            return Err("both ends of an index range must have one type".into());
        }
        Ok(Bounds {
            particle: pb,
            begin: b,
            end: e,
        })
    }

    /// A GeoJSON region or point.
    pub fn geo(json: &str) -> Bounds {
        Bounds {
            particle: GEOJSON,
            begin: json.as_bytes().to_vec(),
            end: json.as_bytes().to_vec(),
        }
    }
}

fn particle(v: &Value) -> Result<(u8, Vec<u8>), String> {
    match v {
        Value::Int(i) => Ok((INTEGER, i.to_be_bytes().to_vec())),
        Value::String(s) => Ok((STRING, s.as_bytes().to_vec())),
        Value::Blob(b) => Ok((BLOB, b.clone())),
        other => Err(format!(
            "an index condition takes an integer, string or bytes, not {other:?}"
        )),
    }
}

/// What the condition names, as packed bytes where it is not a plain name.
pub struct Source<'a> {
    /// The bin (empty when the index is named or is an expression index).
    pub bin: &'a str,
    pub index_name: Option<&'a str>,
    /// A packed CDT context.
    pub context: Option<Vec<u8>>,
    /// A packed expression (an expression index).
    pub expression: Option<Vec<u8>>,
    /// The collection type's wire code (0: a scalar index).
    pub collection: u8,
}

impl IndexQuery {
    pub fn new(source: Source<'_>, bounds: &Bounds) -> Result<IndexQuery, String> {
        let about = match source.index_name.filter(|n| !n.is_empty()) {
            Some(name) => format!("index {name:?}"),
            None if source.expression.is_some() => "an expression".to_owned(),
            None if source.context.is_some() => format!("bin {:?} (with a context)", source.bin),
            None => format!("bin {:?}", source.bin),
        };
        let bin = source.bin.as_bytes();
        let name_len = u8::try_from(bin.len()).map_err(|_| "bin name too long".to_owned())?;
        let size = |b: &[u8]| {
            u32::try_from(b.len())
                .map(u32::to_be_bytes)
                .map_err(|_| "index value too long".to_owned())
        };
        // One range: its bin, particle type, then each end with its size.
        let mut range = vec![1, name_len];
        range.extend_from_slice(bin);
        range.push(bounds.particle);
        range.extend_from_slice(&size(&bounds.begin)?);
        range.extend_from_slice(&bounds.begin);
        range.extend_from_slice(&size(&bounds.end)?);
        range.extend_from_slice(&bounds.end);

        let mut fields = Vec::with_capacity(5);
        if source.collection != 0 {
            fields.push((FIELD_INDEX_TYPE, vec![source.collection]));
        }
        fields.push((FIELD_INDEX_RANGE, range));
        if let Some(ctx) = source.context {
            fields.push((FIELD_INDEX_CONTEXT, ctx));
        }
        if let Some(name) = source.index_name.filter(|n| !n.is_empty()) {
            fields.push((FIELD_INDEX_NAME, name.as_bytes().to_vec()));
        }
        if let Some(exp) = source.expression {
            fields.push((FIELD_INDEX_EXPRESSION, exp));
        }
        Ok(IndexQuery {
            fields,
            repeats: source.collection != 0 || bounds.particle == GEOJSON,
            about,
        })
    }

    /// `(field type, data)` in request order.
    pub fn fields(&self) -> impl Iterator<Item = (u8, &[u8])> {
        self.fields.iter().map(|(k, d)| (*k, d.as_slice()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bin_range_is_one_range_of_two_sized_ends() {
        let b = Bounds::values(&Value::Int(-1), &Value::Int(2)).unwrap();
        let source = Source {
            bin: "v",
            index_name: None,
            context: None,
            expression: None,
            collection: 0,
        };
        let q = IndexQuery::new(source, &b).unwrap();
        let fields: Vec<_> = q.fields().collect();
        assert_eq!(fields.len(), 1);
        let (kind, range) = fields[0];
        assert_eq!(kind, FIELD_INDEX_RANGE);
        let mut want = vec![1, 1, b'v', INTEGER, 0, 0, 0, 8];
        want.extend_from_slice(&(-1i64).to_be_bytes());
        want.extend_from_slice(&[0, 0, 0, 8]);
        want.extend_from_slice(&2i64.to_be_bytes());
        assert_eq!(range, &want[..]);
        assert!(!q.repeats);
    }

    #[test]
    fn a_named_list_index_sends_its_type_and_name() {
        let b = Bounds::values(&Value::from("x"), &Value::from("x")).unwrap();
        let source = Source {
            bin: "",
            index_name: Some("ix"),
            context: Some(vec![0x91, 0x10]),
            expression: None,
            collection: 1,
        };
        let q = IndexQuery::new(source, &b).unwrap();
        let kinds: Vec<u8> = q.fields().map(|(k, _)| k).collect();
        assert_eq!(
            kinds,
            [
                FIELD_INDEX_TYPE,
                FIELD_INDEX_RANGE,
                FIELD_INDEX_CONTEXT,
                FIELD_INDEX_NAME
            ]
        );
        assert!(q.repeats);
    }

    #[test]
    fn mixed_or_unindexable_values_are_refused() {
        assert!(Bounds::values(&Value::Int(1), &Value::from("a")).is_err());
        assert!(Bounds::values(&Value::Float(1.0.into()), &Value::Float(2.0.into())).is_err());
    }
}
