//! The index a scan/query request reads, from fields 21 to 26 as a real node reads them. The
//! request names the index (field 21), gives its expression (24), or gives its bin in the
//! range (22) with an optional context (23), never two of these; the range's value type and
//! the collection type (26) pick among the indexes on a bin or an expression. An index named
//! is found by its name alone: its own set, value type and collection decide what matches.

use engine::particle_type as pt;

use super::{canonical, Collection, Filter, Registry, SIndex, Wanted};
use crate::record::rc;
use crate::wire::{field, Fields};

pub const INDEX_NOT_FOUND: u8 = 201;
/// Longest index name a real node takes (`INAME_MAX_SZ` less its terminator).
const NAME_MAX: usize = 63;
/// Longest bin name.
const BIN_MAX: usize = 15;

/// The index and filter of a request on `ns`/`set`: None without a range; code 4 for fields
/// a real node refuses, 201 when no index answers.
pub fn requested(
    f: &Fields<'_>,
    ns: &str,
    set: &str,
    registry: &Registry,
) -> Result<Option<(SIndex, Filter)>, u8> {
    let name = f.get(field::INDEX_NAME);
    let exp = f.get(field::INDEX_EXPRESSION);
    if name.is_some_and(|n| n.is_empty() || n.len() > NAME_MAX || exp.is_some()) {
        return Err(rc::PARAMETER);
    }
    let Some(range) = f.get(field::INDEX_RANGE) else {
        return Ok(None);
    };
    let filter = Filter::parse(range).ok_or(rc::PARAMETER)?;
    let by_name_or_exp = name.is_some() || exp.is_some();
    let known_type = matches!(
        filter.ptype,
        pt::INTEGER | pt::STRING | pt::BLOB | pt::GEOJSON
    );
    if filter.bin.is_empty() != by_name_or_exp || filter.bin.len() > BIN_MAX || !known_type {
        return Err(rc::PARAMETER);
    }
    let collection = match f.get(field::INDEX_TYPE) {
        None => Some(Collection::Default),
        Some([]) => return Err(rc::PARAMETER),
        // An unknown collection type matches no index.
        Some(t) => Collection::from_wire(t[0]),
    };
    let context = match f.get(field::INDEX_CONTEXT) {
        Some(_) if by_name_or_exp => return Err(rc::PARAMETER),
        Some(bytes) => Some(canonical(bytes).ok_or(rc::PARAMETER)?),
        None => None,
    };
    let index = match name {
        Some(n) => std::str::from_utf8(n)
            .ok()
            .and_then(|n| registry.find(ns, n)),
        None => collection.and_then(|collection| {
            registry.lookup(
                ns,
                set,
                &Wanted {
                    bin: &filter.bin,
                    ptype: filter.ptype,
                    collection,
                    context,
                    exp: exp.map(<[u8]>::to_vec),
                },
            )
        }),
    };
    Ok(Some((index.ok_or(INDEX_NOT_FOUND)?, filter)))
}
