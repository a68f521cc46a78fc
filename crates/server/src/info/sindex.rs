//! Secondary-index info commands: `sindex-create`, `-delete`, `-list`, `-exists` and `-stat`.
//! What a real server refuses is refused here with its code and message, checked in its order.

use std::collections::HashSet;
use std::fmt::{Display, Write as _};
use std::ops::Bound;

use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use engine::exp::Ty;

use super::{param, params};
use crate::sindex::bval::Position;
use crate::sindex::{Collection, IndexError, IndexType, SIndex};
use crate::store::N_PARTITIONS;
use crate::Shared;

/// The longest values a real server takes (its buffers, less the terminating NUL).
const MAX_INDEX_NAME: usize = 63;
const MAX_NAMESPACE: usize = 31;
const MAX_SET: usize = 63;
const MAX_BIN: usize = 15;
const MAX_INDEXTYPE: usize = 9;
const MAX_TYPE: usize = 11;
const MAX_INDEXDATA: usize = MAX_BIN + 1 + MAX_TYPE;
const MAX_CONTEXT: usize = 2047;
const MAX_EXP: usize = 16 * 1024 - 1;
/// Index definitions a namespace holds at most.
const MAX_INDEXES: usize = 256;

const PARAMETER: u8 = 4;
const NAMESPACE: u8 = 20;
const INDEX_FOUND: u8 = 200;
const INDEX_NOT_FOUND: u8 = 201;
const INDEX_MAX_COUNT: u8 = 202;

const TYPES: &str = "'numeric', 'string', 'blob', 'geo2dsphere'";

fn error(code: u8, message: impl Display) -> String {
    format!("ERROR:{code}:{message}")
}

/// The code a refused parameter gets: a real server reports the namespace's as 20.
fn code_for(shown: &str) -> u8 {
    if shown == "namespace" {
        NAMESPACE
    } else {
        PARAMETER
    }
}

/// A parameter's value, `None` when it is absent; refused when empty or longer than `max`.
fn optional<'a>(
    ps: &[(&str, &'a str)],
    names: &[&str],
    max: usize,
) -> Result<Option<&'a str>, String> {
    let shown = names[0];
    match param(ps, names) {
        None => Ok(None),
        Some("") => Err(error(
            code_for(shown),
            format_args!("missing '{shown}' value"),
        )),
        Some(v) if v.len() > max => Err(error(
            code_for(shown),
            format_args!("'{shown}' value too long"),
        )),
        Some(v) => Ok(Some(v)),
    }
}

fn required<'a>(ps: &[(&str, &'a str)], names: &[&str], max: usize) -> Result<&'a str, String> {
    let shown = names[0];
    optional(ps, names, max)?
        .ok_or_else(|| error(code_for(shown), format_args!("missing '{shown}'")))
}

pub fn create(shared: &Shared, args: &str) -> String {
    let idx = match definition(args) {
        Ok(idx) => idx,
        Err(refused) => return refused,
    };
    // A definition for a namespace the server does not have is kept, as a real server keeps
    // it, though no node serves it: its name is taken, and lists leave it out.
    match shared.sindexes.create(idx, MAX_INDEXES) {
        Ok(()) => "ok".into(),
        Err(IndexError::Exists) => error(
            INDEX_FOUND,
            "'indexname' already exists with different definition",
        ),
        Err(IndexError::Full) => error(INDEX_MAX_COUNT, "already at sindex definition limit"),
    }
}

/// The index `sindex-create` asks for, or the reply refusing it.
fn definition(args: &str) -> Result<SIndex, String> {
    let ps = params(args);
    let name = required(&ps, &["indexname"], MAX_INDEX_NAME)?;
    let ns = required(&ps, &["namespace", "ns"], MAX_NAMESPACE)?;
    let set = optional(&ps, &["set"], MAX_SET)?;
    let context = optional(&ps, &["context"], MAX_CONTEXT)?
        .map(|text| {
            let bytes = STANDARD
                .decode(text)
                .map_err(|_| error(PARAMETER, "'context' invalid base64"))?;
            crate::sindex::canonical(&bytes)
                .ok_or_else(|| error(PARAMETER, "'context' invalid cdt context"))
        })
        .transpose()?;
    let collection = match optional(&ps, &["indextype"], MAX_INDEXTYPE)? {
        None => Collection::Default,
        Some(t) => Collection::parse(t).ok_or_else(|| {
            error(
                PARAMETER,
                "bad 'indextype' - must be one of 'default', 'list', 'mapkeys', 'mapvalues'",
            )
        })?,
    };
    let indexdata = optional(&ps, &["indexdata"], MAX_INDEXDATA)?;
    let ktype = optional(&ps, &["type"], MAX_TYPE)?;
    let (bin, itype, exp) = match (indexdata, ktype) {
        (None, None) => return Err(error(PARAMETER, "both 'indexdata' and 'type' are missing")),
        (Some(_), Some(_)) => {
            return Err(error(
                PARAMETER,
                "both 'indexdata' and 'type' are specified",
            ))
        }
        (None, Some(t)) => {
            let itype = IndexType::parse(t).ok_or_else(|| {
                error(
                    PARAMETER,
                    format_args!("bad 'type' - must be one of {TYPES}"),
                )
            })?;
            let bin = optional(&ps, &["bin"], MAX_BIN)?;
            let exp = optional(&ps, &["exp"], MAX_EXP)?;
            match (bin, exp) {
                (Some(_), Some(_)) => {
                    return Err(error(PARAMETER, "both 'bin' and 'exp' are specified"))
                }
                (None, None) => return Err(error(PARAMETER, "both 'bin' and 'exp' are missing")),
                (Some(bin), None) => (bin, itype, None),
                (None, Some(text)) => {
                    if context.is_some() {
                        return Err(error(PARAMETER, "both 'context' and 'exp' are specified"));
                    }
                    let bytes = STANDARD
                        .decode(text)
                        .map_err(|_| error(PARAMETER, "bad 'exp'"))?;
                    index_expression(&bytes, itype, collection)?;
                    ("", itype, Some(bytes))
                }
            }
        }
        (Some(data), None) => {
            let (bin, t) = data
                .split_once(',')
                .ok_or_else(|| error(PARAMETER, "'indexdata' missing bin type"))?;
            if bin.is_empty() {
                return Err(error(PARAMETER, "'indexdata' missing bin name"));
            }
            if bin.len() > MAX_BIN {
                return Err(error(PARAMETER, "'indexdata' bin name too long"));
            }
            let itype = IndexType::parse(t).ok_or_else(|| {
                error(
                    PARAMETER,
                    format_args!("bad 'indexdata' bin type - must be one of {TYPES}"),
                )
            })?;
            (bin, itype, None)
        }
    };
    if collection == Collection::MapKeys && itype == IndexType::Geo {
        return Err(error(
            PARAMETER,
            "bad 'indexdata' bin type for 'indextype' 'mapkeys' - must be one of 'numeric', 'string', 'blob'",
        ));
    }
    Ok(SIndex {
        ns: ns.into(),
        set: set.unwrap_or("").into(),
        name: name.into(),
        bin: bin.into(),
        itype,
        collection,
        context,
        exp,
    })
}

/// Refuses, as a real server does, an index expression that is malformed, reads record
/// metadata, or whose result is not what the index holds: a value of its type, or the list or
/// map whose elements a collection index holds.
fn index_expression(exp: &[u8], itype: IndexType, collection: Collection) -> Result<(), String> {
    let ty = engine::exp::check_index(exp).map_err(|_| error(PARAMETER, "bad 'exp'"))?;
    let expected = match collection {
        Collection::Default => itype.name(),
        Collection::List => "list",
        Collection::MapKeys | Collection::MapValues => "map",
    };
    let got = match ty {
        Ty::Any => return Ok(()),
        Ty::Int => "numeric",
        Ty::Str => "string",
        Ty::Blob => "blob",
        Ty::Geo => "geo2dsphere",
        Ty::List => "list",
        Ty::Map => "map",
        Ty::Bool => "bool",
        Ty::Float => "float",
        Ty::Hll => "hll",
        Ty::Nil => "nil",
        Ty::Remove => "remove",
    };
    if got == expected {
        Ok(())
    } else {
        Err(error(
            PARAMETER,
            format_args!(
                "bad 'exp' - expression type '{got}' does not match expected type '{expected}'"
            ),
        ))
    }
}

/// Dropping an index that does not exist is not an error (as a real server).
pub fn delete(shared: &Shared, args: &str) -> String {
    let ps = params(args);
    let (name, ns) = match (
        required(&ps, &["indexname"], MAX_INDEX_NAME),
        required(&ps, &["namespace", "ns"], MAX_NAMESPACE),
    ) {
        (Ok(name), Ok(ns)) => (name, ns),
        (Err(refused), _) | (_, Err(refused)) => return refused,
    };
    shared.sindexes.drop_index(ns, name);
    if let Some(n) = shared.store.namespace(ns.as_bytes()) {
        n.forget_indexes(|def| shared.sindexes.holds(def));
    }
    "ok".into()
}

/// `sindex-list[:ns=<ns>][;b64=true|false]`: the indexes, `;`-separated. As a real node,
/// a namespace it does not have is refused twice over (once by the secondary index list,
/// once by the set index one), and a `b64` other than `true` or `false` is refused.
pub fn list(shared: &Shared, args: &str) -> String {
    let ps = params(args);
    let ns = match optional(&ps, &["namespace", "ns"], usize::MAX) {
        Ok(ns) => ns,
        Err(refused) => return format!("{refused};{refused}"),
    };
    if ns.is_some_and(|n| shared.store.namespace(n.as_bytes()).is_none()) {
        let refused = error(NAMESPACE, "namespace not found on node");
        return format!("{refused};{refused}");
    }
    match optional(&ps, &["b64"], usize::MAX) {
        Ok(None | Some("true" | "false")) => {}
        Ok(Some(_)) => return error(PARAMETER, "bad b64"),
        Err(refused) => return refused,
    }
    let mut out = listed(shared, ns);
    out.pop();
    out
}

/// `sindex[/<ns>[/<index>]]` (an older form): the indexes, those of a namespace, or one
/// index's statistics; `ns_type=unknown` for a namespace the node does not have.
pub fn legacy(shared: &Shared, args: &str) -> String {
    let (ns, index) = match args.split_once('/') {
        Some((ns, index)) => (Some(ns), Some(index)),
        None if args.is_empty() => (None, None),
        None => (Some(args), None),
    };
    if ns.is_some_and(|n| shared.store.namespace(n.as_bytes()).is_none()) {
        return "ns_type=unknown".into();
    }
    match (ns, index) {
        (Some(ns), Some(index)) => match shared.sindexes.find(ns, index) {
            Some(def) => statistics(shared, &def),
            None => error(INDEX_NOT_FOUND, "no index"),
        },
        _ => {
            let mut out = listed(shared, ns);
            out.pop();
            out
        }
    }
}

/// Every index of the namespaces served (of `ns` only when given), each ending with `;`.
fn listed(shared: &Shared, ns: Option<&str>) -> String {
    let mut out = String::new();
    for i in shared.sindexes.list() {
        if ns.is_some_and(|n| n != i.ns) || shared.store.namespace(i.ns.as_bytes()).is_none() {
            continue;
        }
        let set = if i.set.is_empty() { "null" } else { &i.set };
        let bin = if i.bin.is_empty() { "null" } else { &i.bin };
        let b64 = |b: &Option<Vec<u8>>| {
            b.as_ref().map_or("null".to_string(), |b| {
                base64::engine::general_purpose::STANDARD.encode(b)
            })
        };
        let _ = write!(
            out,
            "ns={}:indexname={}:set={set}:bin={bin}:type={}:indextype={}:context={}:exp={}:state=RW;",
            i.ns,
            i.name,
            i.itype.name(),
            i.collection.name(),
            b64(&i.context),
            b64(&i.exp),
        );
    }
    out
}

/// An index's statistics under a real node's names: its entries, the entries per distinct
/// indexed value and per record (whole numbers, as a real node rounds them).
fn statistics(shared: &Shared, def: &SIndex) -> String {
    let (mut entries, mut bvals, mut records) = (0u64, HashSet::new(), HashSet::new());
    if let Some(ns) = shared.store.namespace(def.ns.as_bytes()) {
        let known = ns.index(def);
        let geo = def.itype == IndexType::Geo;
        for pid in 0..N_PARTITIONS {
            ns.with_index(pid, &known, |_, found| {
                for at in found.range(Bound::Unbounded, Position::LAST) {
                    entries += 1;
                    bvals.insert(at.bval(geo));
                    records.insert(*at.digest());
                }
            });
        }
    }
    let per = |n: usize| entries.checked_div(n as u64).unwrap_or(0);
    format!(
        "entries={entries};entries_per_bval={};entries_per_rec={};used_bytes=0;load_pct=100;\
         load_time=0;stat_gc_recs=0",
        per(bvals.len()),
        per(records.len())
    )
}

/// The namespace and index a command names, checked in a real node's order: the index name
/// first (a refusal of it is followed by the rest of the answer, as a real node writes it),
/// then the namespace, which must be served.
fn named<'a>(shared: &Shared, args: &'a str) -> (String, Result<(&'a str, &'a str), String>) {
    let ps = params(args);
    let (prefix, name) = match required(&ps, &["indexname"], MAX_INDEX_NAME) {
        Ok(name) => (String::new(), name),
        Err(refused) => (refused, ""),
    };
    let checked = required(&ps, &["namespace", "ns"], MAX_NAMESPACE).and_then(|ns| {
        if shared.store.namespace(ns.as_bytes()).is_none() {
            Err(error(NAMESPACE, "namespace not found on node"))
        } else {
            Ok((ns, name))
        }
    });
    (prefix, checked)
}

pub fn exists(shared: &Shared, args: &str) -> String {
    let (prefix, checked) = named(shared, args);
    let rest = match checked {
        Ok((ns, name)) => shared.sindexes.find(ns, name).is_some().to_string(),
        Err(refused) => refused,
    };
    prefix + &rest
}

pub fn stat(shared: &Shared, args: &str) -> String {
    let (prefix, checked) = named(shared, args);
    let rest = match checked {
        Ok((ns, name)) => match shared.sindexes.find(ns, name) {
            Some(def) => statistics(shared, &def),
            None => error(INDEX_NOT_FOUND, "no index"),
        },
        Err(refused) => refused,
    };
    prefix + &rest
}
