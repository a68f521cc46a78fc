//! The admin commands that manage users and roles (proto type 2, after login): decoded,
//! checked against the caller's privileges, applied, and answered as a real node answers.

use super::accounts::{Accounts, Refused, Role};
use super::privilege::{Perm, Privilege, FIRST_SCOPED};
use crate::auth::{field, rc, reply, Users, PROTO_ADMIN};
use crate::wire::{begin_frame, end_frame, Reader};

const CREATE_USER: u8 = 1;
const DROP_USER: u8 = 2;
const SET_PASSWORD: u8 = 3;
const CHANGE_PASSWORD: u8 = 4;
const GRANT_ROLES: u8 = 5;
const REVOKE_ROLES: u8 = 6;
const QUERY_USERS: u8 = 9;
const CREATE_ROLE: u8 = 10;
const DROP_ROLE: u8 = 11;
const GRANT_PRIVILEGES: u8 = 12;
const REVOKE_PRIVILEGES: u8 = 13;
const SET_ALLOWLIST: u8 = 14;
const SET_QUOTAS: u8 = 15;
const QUERY_ROLES: u8 = 16;

const USER: u8 = 0;
const PASSWORD: u8 = 1;
const OLD_PASSWORD: u8 = 2;
const ROLES: u8 = 10;
const ROLE: u8 = 11;
const PRIVILEGES: u8 = 12;
const ALLOWLIST: u8 = 13;
const READ_QUOTA: u8 = 14;
const WRITE_QUOTA: u8 = 15;
const READ_INFO: u8 = 16;
const WRITE_INFO: u8 = 17;
const CONNECTIONS: u8 = 18;

/// The result code ending a query's records.
const QUERY_END: u8 = 50;

/// The fields of one admin message, decoded.
#[derive(Default)]
struct Request {
    user: Option<String>,
    password: Option<Vec<u8>>,
    old_password: Option<Vec<u8>>,
    roles: Vec<String>,
    role: Option<String>,
    privileges: Vec<Privilege>,
    allowlist: Option<Vec<String>>,
    read_quota: Option<u32>,
    write_quota: Option<u32>,
}

struct Malformed;

impl Request {
    fn parse(fields: &[(u8, &[u8])]) -> Result<Request, Malformed> {
        let mut q = Request::default();
        for &(id, data) in fields {
            match id {
                USER => q.user = Some(text(data)?),
                PASSWORD => q.password = Some(data.to_vec()),
                OLD_PASSWORD => q.old_password = Some(data.to_vec()),
                ROLES => q.roles = names(data)?,
                ROLE => q.role = Some(text(data)?),
                PRIVILEGES => q.privileges = privileges(data)?,
                ALLOWLIST => {
                    let list = text(data)?;
                    let entries = list.split(',').filter(|e| !e.is_empty());
                    q.allowlist = Some(entries.map(str::to_owned).collect());
                }
                READ_QUOTA => q.read_quota = Some(quota(data)?),
                WRITE_QUOTA => q.write_quota = Some(quota(data)?),
                _ => {}
            }
        }
        Ok(q)
    }
}

fn text(data: &[u8]) -> Result<String, Malformed> {
    String::from_utf8(data.to_vec()).map_err(|_| Malformed)
}

fn quota(data: &[u8]) -> Result<u32, Malformed> {
    <[u8; 4]>::try_from(data)
        .map(u32::from_be_bytes)
        .map_err(|_| Malformed)
}

/// A count, then each name as a length byte and the bytes.
fn names(data: &[u8]) -> Result<Vec<String>, Malformed> {
    let mut r = Reader::new(data);
    let n = r.u8().map_err(|_| Malformed)?;
    (0..n)
        .map(|_| {
            let len = r.u8().map_err(|_| Malformed)?;
            text(r.take(len as usize).map_err(|_| Malformed)?)
        })
        .collect()
}

/// A count, then each code, with a namespace and a set (length-prefixed) when it is scoped.
fn privileges(data: &[u8]) -> Result<Vec<Privilege>, Malformed> {
    let mut r = Reader::new(data);
    let short = |r: &mut Reader<'_>| -> Result<String, Malformed> {
        let len = r.u8().map_err(|_| Malformed)?;
        text(r.take(len as usize).map_err(|_| Malformed)?)
    };
    let n = r.u8().map_err(|_| Malformed)?;
    let mut out = Vec::with_capacity(n as usize);
    for _ in 0..n {
        let code = r.u8().map_err(|_| Malformed)?;
        let (ns, set) = if code >= FIRST_SCOPED {
            (short(&mut r)?, short(&mut r)?)
        } else {
            (String::new(), String::new())
        };
        out.push(Privilege { code, ns, set });
    }
    Ok(out)
}

/// Answers admin `command` with `fields` from `caller` (a logged-in user) into `out`.
pub fn handle(command: u8, fields: &[(u8, &[u8])], users: &Users, caller: &str, out: &mut Vec<u8>) {
    let Ok(q) = Request::parse(fields) else {
        return status(out, rc::PARAMETER);
    };
    match command {
        QUERY_USERS => return query_users(&q, users, caller, out),
        QUERY_ROLES => return query_roles(&q, users, caller, out),
        _ => {}
    }
    let result = users.change(|accounts| apply(command, &q, accounts, caller));
    status(out, result.err().unwrap_or(rc::OK));
}

fn apply(command: u8, q: &Request, a: &mut Accounts, caller: &str) -> Result<(), Refused> {
    let user = || q.user.as_deref().ok_or(rc::INVALID_USER);
    let role = || q.role.as_deref().ok_or(rc::INVALID_ROLE);
    let password = || q.password.as_deref().ok_or(rc::INVALID_PASSWORD);
    if command == CHANGE_PASSWORD {
        return change_password(q, a, caller);
    }
    if !a.allows(caller, Perm::UserAdmin, b"", b"") {
        return Err(rc::ROLE_VIOLATION);
    }
    match command {
        CREATE_USER => a.create_user(user()?, password()?, &q.roles),
        DROP_USER => a.drop_user(user()?),
        SET_PASSWORD => a.set_password(user()?, password()?),
        GRANT_ROLES => a.grant_roles(user()?, &q.roles),
        REVOKE_ROLES => a.revoke_roles(user()?, &q.roles),
        CREATE_ROLE => {
            let new = Role {
                privileges: q.privileges.clone(),
                allowlist: q.allowlist.clone().unwrap_or_default(),
                read_quota: q.read_quota.unwrap_or(0),
                write_quota: q.write_quota.unwrap_or(0),
            };
            a.create_role(role()?, new)
        }
        DROP_ROLE => a.drop_role(role()?),
        GRANT_PRIVILEGES => a.grant_privileges(role()?, &q.privileges),
        REVOKE_PRIVILEGES => a.revoke_privileges(role()?, &q.privileges),
        SET_ALLOWLIST => a.set_allowlist(role()?, q.allowlist.clone().unwrap_or_default()),
        SET_QUOTAS => a.set_quotas(role()?, q.read_quota, q.write_quota),
        _ => Err(rc::INVALID_COMMAND),
    }
}

/// A user changes its own password, proving the old one (another's needs user-admin).
fn change_password(q: &Request, a: &mut Accounts, caller: &str) -> Result<(), Refused> {
    let name = q.user.as_deref().ok_or(rc::INVALID_USER)?;
    if name != caller && !a.allows(caller, Perm::UserAdmin, b"", b"") {
        return Err(rc::ROLE_VIOLATION);
    }
    let stored = &a.user(name).ok_or(rc::INVALID_USER)?.hash;
    if q.old_password.as_deref() != Some(stored.as_slice()) {
        return Err(rc::INVALID_CREDENTIAL);
    }
    a.set_password(name, q.password.as_deref().ok_or(rc::INVALID_PASSWORD)?)
}

fn query_users(q: &Request, users: &Users, caller: &str, out: &mut Vec<u8>) {
    users.read(|a| {
        let admin = a.allows(caller, Perm::UserAdmin, b"", b"");
        let listed: Vec<_> = match q.user.as_deref() {
            Some(name) if !admin && name != caller => return status(out, rc::ROLE_VIOLATION),
            Some(name) => match a.user(name) {
                Some(u) => vec![(name.to_string(), u.clone())],
                None => return status(out, rc::INVALID_USER),
            },
            None if !admin => return status(out, rc::ROLE_VIOLATION),
            None => a.users().map(|(n, u)| (n.clone(), u.clone())).collect(),
        };
        let at = begin_frame(out);
        for (name, user) in &listed {
            record(out, 5);
            field(out, USER, name.as_bytes());
            field(out, ROLES, &name_list(user.roles.iter()));
            field(out, READ_INFO, &[0]);
            field(out, WRITE_INFO, &[0]);
            field(
                out,
                CONNECTIONS,
                &users.open_connections(name).to_be_bytes(),
            );
        }
        end_frame(out, at, PROTO_ADMIN);
        status(out, QUERY_END);
    });
}

fn query_roles(q: &Request, users: &Users, caller: &str, out: &mut Vec<u8>) {
    users.read(|a| {
        let admin = a.allows(caller, Perm::UserAdmin, b"", b"");
        let own = |name: &str| a.user(caller).is_some_and(|u| u.roles.contains(name));
        let listed: Vec<_> = match q.role.as_deref() {
            Some(name) if !admin && !own(name) => return status(out, rc::ROLE_VIOLATION),
            Some(name) => match a.role(name) {
                Some(r) => vec![(name.to_string(), r.clone())],
                None => return status(out, rc::INVALID_ROLE),
            },
            None if !admin => return status(out, rc::ROLE_VIOLATION),
            None => a.roles().map(|(n, r)| (n.clone(), r.clone())).collect(),
        };
        let at = begin_frame(out);
        for (name, role) in &listed {
            let with_list = !role.allowlist.is_empty();
            record(out, 4 + u8::from(with_list));
            field(out, ROLE, name.as_bytes());
            field(out, PRIVILEGES, &privilege_list(&role.privileges));
            if with_list {
                field(out, ALLOWLIST, role.allowlist.join(",").as_bytes());
            }
            field(out, READ_QUOTA, &role.read_quota.to_be_bytes());
            field(out, WRITE_QUOTA, &role.write_quota.to_be_bytes());
        }
        end_frame(out, at, PROTO_ADMIN);
        status(out, QUERY_END);
    });
}

fn name_list<'a>(names: impl ExactSizeIterator<Item = &'a String>) -> Vec<u8> {
    let mut b = vec![names.len() as u8];
    for n in names {
        b.push(n.len() as u8);
        b.extend_from_slice(n.as_bytes());
    }
    b
}

fn privilege_list(privileges: &[Privilege]) -> Vec<u8> {
    let mut b = vec![privileges.len() as u8];
    for p in privileges {
        b.push(p.code);
        if p.code >= FIRST_SCOPED {
            for s in [&p.ns, &p.set] {
                b.push(s.len() as u8);
                b.extend_from_slice(s.as_bytes());
            }
        }
    }
    b
}

/// The 16-byte header of one record of a query's reply.
fn record(out: &mut Vec<u8>, n_fields: u8) {
    let mut head = [0u8; 16];
    head[3] = n_fields;
    out.extend_from_slice(&head);
}

/// A frame holding only a result code.
fn status(out: &mut Vec<u8>, code: u8) {
    reply(out, code, None);
}
