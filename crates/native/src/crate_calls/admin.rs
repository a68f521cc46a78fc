//! Security administration: users, roles, privileges, allowlists and quotas, validated here
//! before anything is sent and run by the crate's admin commands.

use std::net::IpAddr;
use std::sync::Arc;

use aerospike::{Privilege, PrivilegeCode, Role, User};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use crate::client::Inner;
use crate::errors::invalid_argument;
use crate::exec::completion::{IntoPy, OpResult};

/// The privilege names a role may hold, global ones first (`admin.PrivilegeCode` in Python).
pub const PRIVILEGE_NAMES: &[&str] = &[
    "user-admin",
    "sys-admin",
    "data-admin",
    "udf-admin",
    "sindex-admin",
    "read",
    "read-write",
    "read-write-udf",
    "write",
    "truncate",
];
/// How many of [`PRIVILEGE_NAMES`] are global only (no namespace or set).
const GLOBAL_ONLY: usize = 5;

/// Longest user or role name, and longest list of roles or privileges, one message carries.
const MAX_NAME: usize = 63;
const MAX_ITEMS: usize = 255;

/// A user or role name: not empty, at most 63 bytes, no NUL, `:` or `;`.
pub fn name(what: &str, value: String) -> PyResult<String> {
    if value.is_empty() || value.len() > MAX_NAME || value.contains(['\0', ':', ';']) {
        return Err(invalid_argument(format!(
            "{what} {value:?}: use 1 to {MAX_NAME} bytes without NUL, ':' or ';'"
        )));
    }
    Ok(value)
}

/// A password: not empty (the server stores its hash).
pub fn password(value: String) -> PyResult<String> {
    if value.is_empty() {
        return Err(invalid_argument("password must not be empty"));
    }
    Ok(value)
}

/// Role names, each checked as [`name`].
pub fn roles(values: Vec<String>) -> PyResult<Vec<String>> {
    if values.len() > MAX_ITEMS {
        return Err(invalid_argument(format!(
            "at most {MAX_ITEMS} roles at once"
        )));
    }
    values.into_iter().map(|r| name("role", r)).collect()
}

/// A records-per-second quota: 0 (none) to 2**32 - 1.
pub fn quota(what: &str, value: i64) -> PyResult<u32> {
    u32::try_from(value)
        .map_err(|_| invalid_argument(format!("{what} {value}: use 0 to 4294967295 (0: none)")))
}

/// Allowlist entries: each an IP address or a network (`address/prefix`).
pub fn allowlist(values: Vec<String>) -> PyResult<Vec<String>> {
    for entry in &values {
        let (address, prefix) = entry
            .split_once('/')
            .map_or((entry.as_str(), None), |(a, p)| (a, Some(p)));
        let ip = address.parse::<IpAddr>().ok();
        let longest = if ip.is_some_and(|ip| ip.is_ipv4()) {
            32
        } else {
            128
        };
        let prefix_ok = prefix.is_none_or(|p| p.parse::<u8>().is_ok_and(|p| p <= longest));
        if ip.is_none() || !prefix_ok {
            return Err(invalid_argument(format!(
                "allowlist entry {entry:?}: use an IP address or a network such as 10.0.0.0/8"
            )));
        }
    }
    Ok(values)
}

/// Privileges from `(name, namespace or None, set or None)` tuples.
pub fn privileges(
    items: Vec<(String, Option<String>, Option<String>)>,
) -> PyResult<Vec<Privilege>> {
    if items.len() > MAX_ITEMS {
        return Err(invalid_argument(format!(
            "at most {MAX_ITEMS} privileges at once"
        )));
    }
    items
        .into_iter()
        .map(|(code, ns, set)| {
            let ns = ns.filter(|n| !n.is_empty());
            let set = set.filter(|s| !s.is_empty());
            let Some(at) = PRIVILEGE_NAMES.iter().position(|n| *n == code) else {
                return Err(invalid_argument(format!(
                    "privilege {code:?}: use one of {}",
                    PRIVILEGE_NAMES.join(", ")
                )));
            };
            if at < GLOBAL_ONLY && (ns.is_some() || set.is_some()) {
                return Err(invalid_argument(format!(
                    "privilege {code:?} is global: give it no namespace or set"
                )));
            }
            if set.is_some() && ns.is_none() {
                return Err(invalid_argument(format!(
                    "privilege {code:?}: a set needs its namespace"
                )));
            }
            let code = PrivilegeCode::try_from(code.as_str())
                .map_err(|e| invalid_argument(e.to_string()))?;
            Ok(Privilege::new(code, ns, set))
        })
        .collect()
}

fn strs(values: &[String]) -> Vec<&str> {
    values.iter().map(String::as_str).collect()
}

pub async fn create_user(
    i: Arc<Inner>,
    user: String,
    password: String,
    roles: Vec<String>,
) -> OpResult<()> {
    Ok(i.client
        .create_user(&i.admin, &user, &password, &strs(&roles))
        .await?)
}

pub async fn drop_user(i: Arc<Inner>, user: String) -> OpResult<()> {
    Ok(i.client.drop_user(&i.admin, &user).await?)
}

pub async fn change_password(i: Arc<Inner>, user: String, password: String) -> OpResult<()> {
    Ok(i.client.change_password(&i.admin, &user, &password).await?)
}

pub async fn grant_roles(i: Arc<Inner>, user: String, roles: Vec<String>) -> OpResult<()> {
    Ok(i.client.grant_roles(&i.admin, &user, &strs(&roles)).await?)
}

pub async fn revoke_roles(i: Arc<Inner>, user: String, roles: Vec<String>) -> OpResult<()> {
    Ok(i.client
        .revoke_roles(&i.admin, &user, &strs(&roles))
        .await?)
}

pub async fn query_users(i: Arc<Inner>, user: Option<String>) -> OpResult<Users> {
    Ok(Users(
        i.client.query_users(&i.admin, user.as_deref()).await?,
    ))
}

pub async fn query_roles(i: Arc<Inner>, role: Option<String>) -> OpResult<Roles> {
    Ok(Roles(
        i.client.query_roles(&i.admin, role.as_deref()).await?,
    ))
}

/// A new role's definition.
pub struct RoleSpec {
    pub privileges: Vec<Privilege>,
    pub allowlist: Vec<String>,
    pub read_quota: u32,
    pub write_quota: u32,
}

pub async fn create_role(i: Arc<Inner>, role: String, spec: RoleSpec) -> OpResult<()> {
    let allow = strs(&spec.allowlist);
    let (read, write) = (spec.read_quota, spec.write_quota);
    Ok(i.client
        .create_role(&i.admin, &role, &spec.privileges, &allow, read, write)
        .await?)
}

pub async fn drop_role(i: Arc<Inner>, role: String) -> OpResult<()> {
    Ok(i.client.drop_role(&i.admin, &role).await?)
}

pub async fn grant_privileges(
    i: Arc<Inner>,
    role: String,
    privileges: Vec<Privilege>,
) -> OpResult<()> {
    Ok(i.client
        .grant_privileges(&i.admin, &role, &privileges)
        .await?)
}

pub async fn revoke_privileges(
    i: Arc<Inner>,
    role: String,
    privileges: Vec<Privilege>,
) -> OpResult<()> {
    Ok(i.client
        .revoke_privileges(&i.admin, &role, &privileges)
        .await?)
}

pub async fn set_allowlist(i: Arc<Inner>, role: String, allowlist: Vec<String>) -> OpResult<()> {
    Ok(i.client
        .set_allowlist(&i.admin, &role, &strs(&allowlist))
        .await?)
}

pub async fn set_quotas(i: Arc<Inner>, role: String, read: u32, write: u32) -> OpResult<()> {
    Ok(i.client.set_quotas(&i.admin, &role, read, write).await?)
}

/// Users as dicts: `user`, `roles`, `read_info`, `write_info`, `connections`.
pub struct Users(Vec<User>);

impl IntoPy for Users {
    fn into_py(self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let out = PyList::empty(py);
        for u in self.0 {
            let d = PyDict::new(py);
            d.set_item("user", u.user)?;
            d.set_item("roles", u.roles)?;
            d.set_item("read_info", u.read_info)?;
            d.set_item("write_info", u.write_info)?;
            d.set_item("connections", u.conns_in_use)?;
            out.append(d)?;
        }
        Ok(out.into_any().unbind())
    }
}

/// Roles as dicts: `name`, `privileges` (`(name, namespace, set)`, empty scope as None),
/// `allowlist`, `read_quota`, `write_quota`.
pub struct Roles(Vec<Role>);

impl IntoPy for Roles {
    fn into_py(self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let out = PyList::empty(py);
        for r in self.0 {
            let d = PyDict::new(py);
            d.set_item("name", r.name)?;
            let privileges: Vec<_> = r
                .privileges
                .into_iter()
                .map(|p| {
                    let ns = p.namespace.filter(|n| !n.is_empty());
                    let set = p.set_name.filter(|s| !s.is_empty());
                    (p.code.to_string(), ns, set)
                })
                .collect();
            d.set_item("privileges", privileges)?;
            d.set_item("allowlist", r.allowlist)?;
            d.set_item("read_quota", r.read_quota)?;
            d.set_item("write_quota", r.write_quota)?;
            out.append(d)?;
        }
        Ok(out.into_any().unbind())
    }
}
