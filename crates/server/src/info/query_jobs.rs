//! `query-show` and `query-abort`: the background query jobs a node remembers.

use super::{error, param, params, NOT_FOUND, PARAMETER};
use crate::Shared;

/// The job id of `query-show` / `query-abort` (`id=`, or the older `trid=`): as a real node,
/// decimal, hex (`0x`) or octal (leading `0`), and not 0.
pub fn job_id(args: &str) -> Result<u64, String> {
    let ps = params(args);
    let text = param(&ps, &["id", "trid"]);
    let text = match text {
        None => return Err(error(PARAMETER, "missing 'id'")),
        Some("") => return Err(error(PARAMETER, "missing 'id' value")),
        Some(t) => t,
    };
    let parsed = if let Some(hex) = text.strip_prefix("0x").or(text.strip_prefix("0X")) {
        u64::from_str_radix(hex, 16).ok()
    } else if text.len() > 1 && text.starts_with('0') {
        u64::from_str_radix(&text[1..], 8).ok()
    } else {
        text.parse::<u64>().ok()
    };
    parsed
        .filter(|&id| id != 0)
        .ok_or_else(|| error(PARAMETER, "bad id"))
}

/// `query-show[:id=N]`: background jobs run to completion before their reply, so every job
/// the node remembers is done. Without an id, all of them.
pub fn job_show(shared: &Shared, args: &str) -> Result<String, String> {
    if param(&params(args), &["id", "trid"]).is_none() {
        return Ok(shared.jobs.show_all());
    }
    let id = job_id(args)?;
    shared
        .jobs
        .show(id)
        .ok_or_else(|| error(NOT_FOUND, "job not found"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn job_ids_read_as_a_node_reads_them() {
        assert_eq!(job_id("id=12"), Ok(12));
        assert_eq!(job_id("trid=0x10"), Ok(16));
        assert_eq!(job_id("id=010"), Ok(8));
        assert_eq!(job_id("id=0"), Err("ERROR:4:bad id".into()));
        assert_eq!(job_id("id=x"), Err("ERROR:4:bad id".into()));
    }
}
