//! `logs`, `log`, `log-set` and `log-message`: the console sink and its contexts' levels.

use super::{atoi, config, error, optional, params, required, PARAMETER};
use crate::Shared;

/// `logs`: one sink, the console, as a node started in the foreground has.
pub const LOG_SINKS: &str = "0:stderr";

/// Log contexts of an 8.1.2 node, in its order.
pub const LOG_CONTEXTS: &[&str] = &[
    "misc",
    "alloc",
    "arenax",
    "hardware",
    "msg",
    "os",
    "secrets",
    "socket",
    "tls",
    "vault",
    "vmapx",
    "xmem",
    "aggr",
    "appeal",
    "as",
    "audit",
    "batch",
    "batch-sub",
    "bin",
    "config",
    "clustering",
    "deprecation",
    "drv-mem",
    "drv_pmem",
    "drv_ssd",
    "exchange",
    "exp",
    "fabric",
    "flat",
    "geo",
    "hb",
    "health",
    "hlc",
    "index",
    "info",
    "info-command",
    "key-busy",
    "migrate",
    "mrt-audit",
    "mrt-monitor",
    "namespace",
    "nsup",
    "particle",
    "partition",
    "proto",
    "proxy",
    "proxy-divert",
    "query",
    "record",
    "roster",
    "rw",
    "rw-client",
    "security",
    "service",
    "service-list",
    "sindex",
    "skew",
    "smd",
    "storage",
    "truncate",
    "tsvc",
    "udf",
    "xdr",
    "xdr-client",
    "masking",
];

/// Log levels, most severe first.
pub const LOG_LEVELS: &[&str] = &["CRITICAL", "WARNING", "INFO", "DEBUG", "DETAIL"];

fn context_index(name: &str) -> Option<usize> {
    LOG_CONTEXTS
        .iter()
        .position(|c| c.eq_ignore_ascii_case(name))
}

/// `log/<sink>[/<context>]`: the levels of a sink's contexts.
pub fn log_levels(shared: &Shared, args: &str) -> String {
    let (sink, context) = match args.split_once('/') {
        Some((sink, context)) => (sink, Some(context)),
        None => (args, None),
    };
    let Some(sink) = atoi(sink) else {
        return error(PARAMETER, "bad sink-id");
    };
    if sink != 0 {
        return "ERROR::bad-id".into();
    }
    let levels = config::log_levels(shared);
    match context {
        Some(name) => match context_index(name) {
            Some(i) => format!("{name}:{}", LOG_LEVELS[usize::from(levels[i])]),
            None => "ERROR::bad-context".into(),
        },
        None => LOG_CONTEXTS
            .iter()
            .zip(&levels)
            .map(|(c, l)| format!("{c}:{}", LOG_LEVELS[usize::from(*l)]))
            .collect::<Vec<_>>()
            .join(";"),
    }
}

/// Splits off a token as C's `strtok` does: leading delimiters skipped, then up to the next.
fn strtok<'a>(s: &mut &'a str, delims: &[char]) -> Option<&'a str> {
    let rest = s.trim_start_matches(delims);
    if rest.is_empty() {
        *s = rest;
        return None;
    }
    let end = rest.find(delims).unwrap_or(rest.len());
    let token = &rest[..end];
    *s = if end < rest.len() {
        &rest[end + 1..]
    } else {
        ""
    };
    Some(token)
}

/// `log-set:id=<sink>;<context>=<level>` (also `set-log`); `any` sets every context.
pub fn log_set(shared: &Shared, args: &str) -> Result<String, String> {
    let mut rest = args;
    if strtok(&mut rest, &['=']) != Some("id") {
        return Err(error(PARAMETER, "missing id"));
    }
    let id = strtok(&mut rest, &[';'])
        .filter(|v| !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit()))
        .and_then(|v| v.parse::<u32>().ok())
        .ok_or_else(|| error(PARAMETER, "bad id"))?;
    let context = strtok(&mut rest, &['=']).ok_or_else(|| error(PARAMETER, "missing context"))?;
    let level = strtok(&mut rest, &[';']).ok_or_else(|| error(PARAMETER, "bad level"))?;
    let bad = || error(PARAMETER, "bad parameter");
    if id != 0 {
        return Err(bad());
    }
    let level = LOG_LEVELS
        .iter()
        .position(|l| l.eq_ignore_ascii_case(level))
        .ok_or_else(bad)?;
    let contexts: Vec<usize> = if context == "any" {
        (0..LOG_CONTEXTS.len()).collect()
    } else {
        vec![context_index(context).ok_or_else(bad)?]
    };
    config::set_log_levels(shared, &contexts, level as u8);
    Ok("ok".into())
}

/// `log-message:message=..[;who=..]`: a line for the log; the reply is empty.
pub fn log_message(args: &str) -> Result<String, String> {
    let ps = params(args);
    optional(&ps, "who")?;
    required(&ps, &["message"])?;
    Ok(String::new())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strtok_skips_leading_delimiters() {
        let mut s = "id=0;misc=debug";
        assert_eq!(strtok(&mut s, &['=']), Some("id"));
        assert_eq!(strtok(&mut s, &[';']), Some("0"));
        assert_eq!(strtok(&mut s, &['=']), Some("misc"));
        assert_eq!(strtok(&mut s, &[';']), Some("debug"));
        assert_eq!(strtok(&mut s, &['=']), None);
    }

    #[test]
    fn log_message_needs_a_message() {
        assert_eq!(log_message("message=hi;who=me"), Ok(String::new()));
        assert_eq!(
            log_message("who=me"),
            Err("ERROR:4:missing 'message'".into())
        );
        assert_eq!(
            log_message("message=hi;who="),
            Err("ERROR:4:missing 'who' value".into())
        );
    }
}
