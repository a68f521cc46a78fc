//! Which policies the SDK's own road serves (`request/`); a call under any other policy goes
//! through the crate.

use aerospike::policy::{BasePolicy, ReadModeAp, ReadModeSc, Replica};
use aerospike::{
    BatchPolicy, BatchReadPolicy, BatchWritePolicy, CommitLevel, GenerationPolicy, ReadPolicy,
    RecordExistsAction, WritePolicy,
};

/// Whether the base of a policy asks nothing the SDK's road leaves to the crate.
pub fn base_is_plain(b: &BasePolicy) -> bool {
    b.filter_expression.is_none()
        && b.txn.is_none()
        && !b.use_compression
        && b.error_detail_verbosity == 0
        && matches!(b.read_mode_sc, ReadModeSc::Session)
        && matches!(b.read_mode_ap, ReadModeAp::One)
        && matches!(b.replica, Replica::Master | Replica::Sequence)
}

/// Whether reads under `p` can take the wire path.
pub fn plain_read(p: &ReadPolicy) -> bool {
    base_is_plain(&p.base_policy)
}

/// Whether puts under `p` can take the wire path.
pub fn plain_write(p: &WritePolicy) -> bool {
    base_is_plain(&p.base_policy)
        && matches!(p.record_exists_action, RecordExistsAction::Update)
        && matches!(p.generation_policy, GenerationPolicy::None)
        && matches!(p.commit_level, CommitLevel::CommitAll)
        && !p.durable_delete
        && !p.on_locking_only
        && !p.xdr
}

/// Whether an operate under `p` can take this path.
pub fn operable(p: &WritePolicy) -> bool {
    let b = &p.base_policy;
    b.txn.is_none()
        && !b.use_compression
        && b.error_detail_verbosity == 0
        && matches!(b.read_mode_sc, ReadModeSc::Session)
        && matches!(b.replica, Replica::Master | Replica::Sequence)
}

/// Whether batch reads under `p` (and rows under `row`) can take the wire path.
pub fn plain(p: &BatchPolicy, row: &BatchReadPolicy) -> bool {
    base_is_plain(&p.base_policy) && row.filter_expression.is_none()
}

/// Whether batch puts under `p` (and put rows under `row`) can take the wire path.
pub fn plain_put(p: &BatchPolicy, row: &BatchWritePolicy) -> bool {
    base_is_plain(&p.base_policy)
        && row.filter_expression.is_none()
        && matches!(row.record_exists_action, RecordExistsAction::Update)
        && matches!(row.generation_policy, GenerationPolicy::None)
        && matches!(row.commit_level, CommitLevel::CommitAll)
        && !row.durable_delete
        && !row.on_locking_only
}
