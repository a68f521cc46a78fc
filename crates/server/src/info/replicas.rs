//! `replicas`, `replicas-all` and `replicas-master`: the partitions this node holds.

use base64::Engine as _;

use super::{error, optional, params, PARAMETER};
use crate::Shared;

/// `replicas[:max=N]`.
pub fn replicas_cmd(shared: &Shared, args: &str) -> Result<String, String> {
    let max = match optional(&params(args), "max")? {
        None => 0,
        // As a real node: its buffer takes three characters.
        Some(v) if v.len() > 3 => return Err(error(PARAMETER, "'max' value too long")),
        Some(v) => v.parse::<u32>().map_err(|_| error(PARAMETER, "bad max"))?,
    };
    Ok(replicas(shared, true, max as usize))
}

/// `replicas`: per namespace (its regime with `with_regime`) the copy count and this node's
/// partitions for each copy index, master first; at most `max` copies when not 0.
pub fn replicas(shared: &Shared, with_regime: bool, max: usize) -> String {
    let maps = bitmaps(shared);
    let copies = if max == 0 {
        maps.len()
    } else {
        maps.len().min(max)
    };
    let maps = &maps[..copies];
    shared
        .store
        .namespaces
        .iter()
        .map(|n| {
            // A strong-consistency namespace has a rebalance regime (clients read SC mode from
            // it being non-zero).
            let regime = if with_regime {
                format!("{},", u8::from(n.strong_consistency))
            } else {
                String::new()
            };
            format!("{}:{regime}{},{}", n.name, maps.len(), maps.join(","))
        })
        .collect::<Vec<_>>()
        .join(";")
}

/// `replicas-master`: per namespace the partitions this node masters.
pub fn replicas_master(shared: &Shared) -> String {
    let maps = bitmaps(shared);
    shared
        .store
        .namespaces
        .iter()
        .map(|n| format!("{}:{}", n.name, maps[0]))
        .collect::<Vec<_>>()
        .join(";")
}

/// This node's partitions for each copy index (base64 bitmaps), master first.
fn bitmaps(shared: &Shared) -> Vec<String> {
    let view = shared.view();
    let me = shared.member().map_or(0, |m| m.slot());
    view.bitmaps(me)
        .iter()
        .map(|m| base64::engine::general_purpose::STANDARD.encode(m))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::N_PARTITIONS;

    #[test]
    fn replicas_bitmap_is_684_chars() {
        let b = base64::engine::general_purpose::STANDARD.encode([0xFFu8; N_PARTITIONS / 8]);
        assert_eq!(b.len(), 684);
    }
}
