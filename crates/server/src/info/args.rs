//! A command's text read as a real node reads it: its name, its `k=v` parameters and the
//! namespace it names.

use super::{error, NAMESPACE, PARAMETER};
use crate::Shared;

/// Splits `cmd-name/arg/...:key=value;...` as a real node does: the name ends at the first
/// `/` (unless a `:` comes before it), else at the first `:`, else at a `;`.
pub fn parse(text: &str) -> (&str, &str) {
    let slash = text.find('/');
    let colon = text.find(':');
    let semi = text.find(';');
    let mut at = match (slash, colon) {
        (Some(s), Some(c)) if c < s => Some(c),
        (Some(s), _) => Some(s),
        (None, c) => c,
    };
    if at.is_none() || semi.is_some_and(|s| at.is_some_and(|a| s < a)) {
        at = semi.or(at);
    }
    match at {
        Some(i) => (&text[..i], &text[i + 1..]),
        None => (text, ""),
    }
}

/// `k=v;k=v` parameters of a command: as a real node reads them, a part without `=` is no
/// parameter.
pub fn params(args: &str) -> Vec<(&str, &str)> {
    args.split(';').filter_map(|p| p.split_once('=')).collect()
}

pub fn param<'a>(ps: &[(&str, &'a str)], names: &[&str]) -> Option<&'a str> {
    names
        .iter()
        .find_map(|name| ps.iter().find(|(k, _)| k == name).map(|(_, v)| *v))
}

/// A parameter a command needs: its value, or the reply refusing it missing or empty (the
/// namespace's with code 20, as a real node).
pub fn required<'a>(ps: &[(&str, &'a str)], names: &[&str]) -> Result<&'a str, String> {
    let shown = names[0];
    let code = if shown == "namespace" {
        NAMESPACE
    } else {
        PARAMETER
    };
    match param(ps, names) {
        None => Err(error(code, format_args!("missing '{shown}'"))),
        Some("") => Err(error(code, format_args!("missing '{shown}' value"))),
        Some(v) => Ok(v),
    }
}

/// A parameter a command may take: `None` when absent, refused when empty.
pub fn optional<'a>(ps: &[(&str, &'a str)], name: &str) -> Result<Option<&'a str>, String> {
    match param(ps, &[name]) {
        Some("") => {
            let code = if name == "namespace" {
                NAMESPACE
            } else {
                PARAMETER
            };
            Err(error(code, format_args!("missing '{name}' value")))
        }
        v => Ok(v),
    }
}

/// A `true`/`false` parameter, `false` when absent; else the reply refusing it.
pub fn flag(ps: &[(&str, &str)], name: &str, refusal: &str) -> Result<bool, String> {
    match optional(ps, name)? {
        None | Some("false") => Ok(false),
        Some("true") => Ok(true),
        Some(_) => Err(error(PARAMETER, refusal)),
    }
}

/// The namespace a command names (`namespace=`, or the given aliases), which must be served.
pub fn local_namespace<'s>(
    shared: &'s Shared,
    ps: &[(&str, &str)],
    names: &[&str],
) -> Result<&'s crate::store::Namespace, String> {
    let name = required(ps, names)?;
    shared
        .store
        .namespace(name.as_bytes())
        .ok_or_else(|| error(NAMESPACE, "namespace not found on node"))
}

/// The namespace a command may name (`namespace=`): `None` when absent.
pub fn optional_namespace<'s>(
    shared: &'s Shared,
    ps: &[(&str, &str)],
) -> Result<Option<&'s crate::store::Namespace>, String> {
    match optional(ps, "namespace")? {
        None => Ok(None),
        Some(name) => shared
            .store
            .namespace(name.as_bytes())
            .map(Some)
            .ok_or_else(|| error(NAMESPACE, "namespace not found on node")),
    }
}

/// `one` of the namespace asked for, or `ns=NAME:` and `one` of each namespace, `;`-separated.
pub fn each_namespace(
    shared: &Shared,
    only: Option<&crate::store::Namespace>,
    one: impl Fn(&crate::store::Namespace) -> String,
) -> String {
    match only {
        Some(ns) => one(ns),
        None => shared
            .store
            .namespaces
            .iter()
            .map(|ns| format!("ns={}:{}", ns.name, one(ns)))
            .collect::<Vec<_>>()
            .join(";"),
    }
}

/// A number as a node's `cf_str_atoi` reads it: an optional `-`, digits, and an optional
/// `k`, `m` or `g` multiplier.
pub fn atoi(s: &str) -> Option<i64> {
    let (neg, s) = match s.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, s),
    };
    let digits = s.bytes().take_while(u8::is_ascii_digit).count();
    let mut value: i64 = if digits == 0 {
        0
    } else {
        s[..digits].parse().ok()?
    };
    match &s[digits..] {
        "" => {}
        "k" | "K" => value *= 1024,
        "m" | "M" => value *= 1024 * 1024,
        "g" | "G" => value *= 1024 * 1024 * 1024,
        _ => return None,
    }
    Some(if neg { -value } else { value })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn atoi_reads_as_a_node_reads() {
        assert_eq!(atoi(""), Some(0));
        assert_eq!(atoi("12"), Some(12));
        assert_eq!(atoi("-3"), Some(-3));
        assert_eq!(atoi("2k"), Some(2048));
        assert_eq!(atoi("1x"), None);
    }

    #[test]
    fn params_split() {
        let ps = params("namespace=test;set=a;lut=5;bare");
        assert_eq!(param(&ps, &["ns", "namespace"]), Some("test"));
        assert_eq!(param(&ps, &["lut"]), Some("5"));
        assert_eq!(param(&ps, &["x"]), None);
        assert_eq!(param(&ps, &["bare"]), None);
    }

    #[test]
    fn names_split_as_a_node_splits_them() {
        assert_eq!(parse("namespace/test"), ("namespace", "test"));
        assert_eq!(parse("sets/test/s1"), ("sets", "test/s1"));
        assert_eq!(
            parse("get-config:context=service"),
            ("get-config", "context=service")
        );
        assert_eq!(parse("latencies:"), ("latencies", ""));
        assert_eq!(parse("sindex-list:ns=a/b"), ("sindex-list", "ns=a/b"));
        assert_eq!(parse("status;"), ("status", ""));
        assert_eq!(parse("build"), ("build", ""));
    }
}
