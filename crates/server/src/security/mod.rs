//! Security as an Enterprise node applies it: who a connection is, what its user's roles
//! grant, and the admin commands that manage users and roles.

pub mod accounts;
pub mod admin;
pub mod privilege;

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};

use privilege::{Perm, Privilege};

use crate::auth::rc;
use crate::record::RecReq;
use crate::wire::{field, Msg};
use crate::Shared;

/// Connections open per logged-in user.
pub type OpenCounts = Arc<Mutex<HashMap<String, u32>>>;

/// Who a connection is: logged in (or security is off), and as which user.
pub struct Caller {
    pub authed: bool,
    user: Option<String>,
    open: Option<OpenCounts>,
    /// The address the connection comes from (checked against its user's allowlists).
    pub peer: Option<IpAddr>,
}

impl Caller {
    /// A new connection: authenticated already when the node has no security.
    pub fn new(security_on: bool, peer: Option<IpAddr>) -> Caller {
        Caller {
            authed: !security_on,
            user: None,
            open: None,
            peer,
        }
    }

    pub fn user(&self) -> Option<&str> {
        self.user.as_deref()
    }

    /// The connection is now `user`'s.
    pub fn log_in(&mut self, user: String, open: &OpenCounts) {
        self.leave();
        *lock(open).entry(user.clone()).or_default() += 1;
        self.authed = true;
        self.user = Some(user);
        self.open = Some(open.clone());
    }

    fn leave(&mut self) {
        if let (Some(user), Some(open)) = (self.user.take(), self.open.take()) {
            let mut counts = lock(&open);
            if let Some(n) = counts.get_mut(&user) {
                *n -= 1;
                if *n == 0 {
                    counts.remove(&user);
                }
            }
        }
    }
}

impl Drop for Caller {
    fn drop(&mut self) {
        self.leave();
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// What a caller may do, read once per request: everything (security off) or its privileges.
#[derive(Clone, Default)]
pub struct Grants(Option<Arc<[Privilege]>>);

impl Grants {
    /// Everything (security off).
    pub fn everything() -> Grants {
        Grants(None)
    }

    /// What `caller` may do on this node now.
    pub fn of(shared: &Shared, caller: &Caller) -> Grants {
        match (&shared.users, caller.user()) {
            (None, _) => Grants::everything(),
            (Some(users), Some(user)) => Grants(Some(users.privileges_of(user).into())),
            (Some(_), None) => Grants(Some(Arc::new([]))),
        }
    }

    /// ROLE_VIOLATION when `perm` on `ns`/`set` is not granted.
    pub fn refusal(&self, perm: Perm, ns: &[u8], set: &[u8]) -> Option<u8> {
        let granted = match &self.0 {
            None => true,
            Some(ps) => ps.iter().any(|p| p.allows(perm, ns, set)),
        };
        (!granted).then_some(rc::ROLE_VIOLATION)
    }
}

/// What a single-record request (or a batch row) needs.
pub fn record_perm(req: &RecReq<'_>, is_udf: bool) -> Perm {
    if is_udf {
        Perm::UdfApply
    } else if req.is_write() {
        Perm::Write
    } else {
        Perm::Read
    }
}

/// What a scan or query needs: a background UDF applies one, background operations write,
/// an aggregation or a plain query reads.
pub fn stream_perm(msg: &Msg<'_>) -> Perm {
    const BACKGROUND_UDF: u8 = 2;
    match msg.fields.get(field::UDF_OP) {
        Some([BACKGROUND_UDF, ..]) => Perm::UdfApply,
        _ if !msg.ops.is_empty() => Perm::Write,
        _ => Perm::Read,
    }
}

/// What a privileged info command needs, with the namespace and set it names.
pub fn info_perm<'a>(name: &str, args: &'a str) -> (Perm, &'a str, &'a str) {
    let arg = |key: &str| {
        args.split(';')
            .filter_map(|kv| kv.split_once('='))
            .find(|(k, _)| *k == key)
            .map_or("", |(_, v)| v)
    };
    match name {
        "truncate" | "truncate-undo" => (Perm::Truncate, arg("namespace"), arg("set")),
        "truncate-namespace" | "truncate-namespace-undo" => (Perm::Truncate, arg("namespace"), ""),
        "sindex-create" | "sindex-delete" | "sindex-exists" => (Perm::SindexAdmin, "", ""),
        "udf-put" | "udf-remove" | "udf-clear-cache" => (Perm::UdfAdmin, "", ""),
        _ => (Perm::SysAdmin, "", ""),
    }
}
