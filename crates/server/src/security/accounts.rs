//! Users and roles as an Enterprise node keeps them, and the changes the admin commands make,
//! each answered with the result code a real node gives.

use std::collections::{BTreeMap, BTreeSet};
use std::net::IpAddr;

use super::privilege::{self, Perm, Privilege, FIRST_SCOPED, PRIVILEGES};
use crate::auth::rc;

/// A user: the hash its client sends for the password, and its roles.
#[derive(Clone, Debug)]
pub struct User {
    pub hash: Vec<u8>,
    pub roles: BTreeSet<String>,
}

/// A role: privileges, the addresses its users may connect from, and quotas (records per
/// second; 0 is none).
#[derive(Clone, Debug, Default)]
pub struct Role {
    pub privileges: Vec<Privilege>,
    pub allowlist: Vec<String>,
    pub read_quota: u32,
    pub write_quota: u32,
}

/// Every user and role of the node.
#[derive(Debug)]
pub struct Accounts {
    users: BTreeMap<String, User>,
    roles: BTreeMap<String, Role>,
}

/// A change refused, as its result code.
pub type Refused = u8;

/// Longest user or role name a real node takes.
const MAX_NAME: usize = 63;

impl Accounts {
    /// The predefined roles and `users`, each with every predefined role (they configure the
    /// node, as its first administrator does).
    pub fn new(users: Vec<(String, Vec<u8>)>) -> Accounts {
        let roles: BTreeMap<String, Role> = PRIVILEGES
            .iter()
            .map(|(code, name)| {
                let role = Role {
                    privileges: vec![Privilege::global(*code)],
                    ..Role::default()
                };
                ((*name).to_string(), role)
            })
            .collect();
        let every: BTreeSet<String> = roles.keys().cloned().collect();
        let users = users
            .into_iter()
            .map(|(name, hash)| {
                let roles = every.clone();
                (name, User { hash, roles })
            })
            .collect();
        Accounts { users, roles }
    }

    pub fn user(&self, name: &str) -> Option<&User> {
        self.users.get(name)
    }

    pub fn users(&self) -> impl Iterator<Item = (&String, &User)> {
        self.users.iter()
    }

    pub fn role(&self, name: &str) -> Option<&Role> {
        self.roles.get(name)
    }

    pub fn roles(&self) -> impl Iterator<Item = (&String, &Role)> {
        self.roles.iter()
    }

    /// Whether `user` holds `perm` on `ns`/`set` through any of its roles.
    pub fn allows(&self, user: &str, perm: Perm, ns: &[u8], set: &[u8]) -> bool {
        self.users.get(user).is_some_and(|u| {
            u.roles
                .iter()
                .filter_map(|r| self.roles.get(r))
                .flat_map(|r| &r.privileges)
                .any(|p| p.allows(perm, ns, set))
        })
    }

    /// Whether `user` may connect from `peer`: anywhere when none of its roles has an
    /// allowlist, else from an address one of them lists.
    pub fn admits(&self, user: &str, peer: Option<IpAddr>) -> bool {
        let Some(u) = self.users.get(user) else {
            return true;
        };
        let mut lists = u
            .roles
            .iter()
            .filter_map(|r| self.roles.get(r))
            .flat_map(|r| &r.allowlist)
            .peekable();
        if lists.peek().is_none() {
            return true;
        }
        let Some(peer) = peer else { return false };
        lists.any(|entry| matches(entry, peer))
    }

    /// The privileges of `user`, through all its roles.
    pub fn privileges_of(&self, user: &str) -> Option<Vec<Privilege>> {
        let u = self.users.get(user)?;
        Some(
            u.roles
                .iter()
                .filter_map(|r| self.roles.get(r))
                .flat_map(|r| r.privileges.iter().cloned())
                .collect(),
        )
    }

    pub fn create_user(
        &mut self,
        name: &str,
        hash: &[u8],
        roles: &[String],
    ) -> Result<(), Refused> {
        valid_name(name, rc::INVALID_USER)?;
        if self.users.contains_key(name) {
            return Err(rc::USER_ALREADY_EXISTS);
        }
        if hash.is_empty() {
            return Err(rc::INVALID_PASSWORD);
        }
        self.known_roles(roles)?;
        let roles = roles.iter().cloned().collect();
        self.users.insert(
            name.into(),
            User {
                hash: hash.to_vec(),
                roles,
            },
        );
        Ok(())
    }

    pub fn drop_user(&mut self, name: &str) -> Result<(), Refused> {
        self.users.remove(name).map(|_| ()).ok_or(rc::INVALID_USER)
    }

    pub fn set_password(&mut self, name: &str, hash: &[u8]) -> Result<(), Refused> {
        if hash.is_empty() {
            return Err(rc::INVALID_PASSWORD);
        }
        let user = self.users.get_mut(name).ok_or(rc::INVALID_USER)?;
        user.hash = hash.to_vec();
        Ok(())
    }

    pub fn grant_roles(&mut self, name: &str, roles: &[String]) -> Result<(), Refused> {
        self.known_roles(roles)?;
        let user = self.users.get_mut(name).ok_or(rc::INVALID_USER)?;
        user.roles.extend(roles.iter().cloned());
        Ok(())
    }

    pub fn revoke_roles(&mut self, name: &str, roles: &[String]) -> Result<(), Refused> {
        self.known_roles(roles)?;
        let user = self.users.get_mut(name).ok_or(rc::INVALID_USER)?;
        for r in roles {
            user.roles.remove(r);
        }
        Ok(())
    }

    pub fn create_role(&mut self, name: &str, role: Role) -> Result<(), Refused> {
        valid_name(name, rc::INVALID_ROLE)?;
        if self.roles.contains_key(name) {
            return Err(rc::ROLE_ALREADY_EXISTS);
        }
        valid_privileges(&role.privileges)?;
        valid_allowlist(&role.allowlist)?;
        self.roles.insert(name.into(), role);
        Ok(())
    }

    pub fn drop_role(&mut self, name: &str) -> Result<(), Refused> {
        self.custom_role(name)?;
        self.roles.remove(name);
        for user in self.users.values_mut() {
            user.roles.remove(name);
        }
        Ok(())
    }

    pub fn grant_privileges(
        &mut self,
        name: &str,
        privileges: &[Privilege],
    ) -> Result<(), Refused> {
        valid_privileges(privileges)?;
        let role = self.custom_role(name)?;
        for p in privileges {
            if !role.privileges.contains(p) {
                role.privileges.push(p.clone());
            }
        }
        Ok(())
    }

    pub fn revoke_privileges(
        &mut self,
        name: &str,
        privileges: &[Privilege],
    ) -> Result<(), Refused> {
        valid_privileges(privileges)?;
        let role = self.custom_role(name)?;
        role.privileges.retain(|p| !privileges.contains(p));
        Ok(())
    }

    pub fn set_allowlist(&mut self, name: &str, allowlist: Vec<String>) -> Result<(), Refused> {
        valid_allowlist(&allowlist)?;
        self.custom_role(name)?.allowlist = allowlist;
        Ok(())
    }

    pub fn set_quotas(
        &mut self,
        name: &str,
        read: Option<u32>,
        write: Option<u32>,
    ) -> Result<(), Refused> {
        let role = self.custom_role(name)?;
        if let Some(q) = read {
            role.read_quota = q;
        }
        if let Some(q) = write {
            role.write_quota = q;
        }
        Ok(())
    }

    /// A role the admin commands may change: it exists and is not predefined.
    fn custom_role(&mut self, name: &str) -> Result<&mut Role, Refused> {
        if privilege::predefined(name).is_some() {
            return Err(rc::INVALID_ROLE);
        }
        self.roles.get_mut(name).ok_or(rc::INVALID_ROLE)
    }

    fn known_roles(&self, roles: &[String]) -> Result<(), Refused> {
        match roles.iter().all(|r| self.roles.contains_key(r)) {
            true => Ok(()),
            false => Err(rc::INVALID_ROLE),
        }
    }
}

fn valid_name(name: &str, refused: Refused) -> Result<(), Refused> {
    match !name.is_empty() && name.len() <= MAX_NAME && !name.contains(['\0', ';', ':']) {
        true => Ok(()),
        false => Err(refused),
    }
}

/// Known codes; a global one with no scope; a set only inside a namespace.
fn valid_privileges(privileges: &[Privilege]) -> Result<(), Refused> {
    let ok = privileges.iter().all(|p| {
        privilege::known(p.code)
            && (p.code >= FIRST_SCOPED || (p.ns.is_empty() && p.set.is_empty()))
            && (p.set.is_empty() || !p.ns.is_empty())
    });
    match ok {
        true => Ok(()),
        false => Err(rc::INVALID_PRIVILEGE),
    }
}

/// An address or a network and its prefix length.
fn parse_entry(entry: &str) -> Option<(IpAddr, u8)> {
    let (addr, prefix) = entry
        .split_once('/')
        .map_or((entry, None), |(a, p)| (a, Some(p)));
    let ip = addr.parse::<IpAddr>().ok()?;
    let longest = if ip.is_ipv4() { 32 } else { 128 };
    let prefix = match prefix {
        None => longest,
        Some(p) => p.parse::<u8>().ok().filter(|p| *p <= longest)?,
    };
    Some((ip, prefix))
}

/// Whether allowlist `entry` covers `peer`.
fn matches(entry: &str, peer: IpAddr) -> bool {
    let Some((net, prefix)) = parse_entry(entry) else {
        return false;
    };
    let bits = |ip: IpAddr| match ip {
        IpAddr::V4(v4) => (u128::from(u32::from(v4)), 32u32),
        IpAddr::V6(v6) => (u128::from(v6), 128),
    };
    let peer = match (net, peer) {
        (IpAddr::V4(_), IpAddr::V6(v6)) => v6.to_ipv4_mapped().map_or(peer, IpAddr::V4),
        _ => peer,
    };
    let ((n, width), (p, peer_width)) = (bits(net), bits(peer));
    if width != peer_width {
        return false;
    }
    let shift = width - u32::from(prefix);
    shift >= width || (n >> shift) == (p >> shift)
}

/// Each entry an address or a network (`address/prefix`).
fn valid_allowlist(allowlist: &[String]) -> Result<(), Refused> {
    let entry_ok = |e: &String| {
        let (addr, prefix) = e
            .split_once('/')
            .map_or((e.as_str(), None), |(a, p)| (a, Some(p)));
        let Ok(ip) = addr.parse::<IpAddr>() else {
            return false;
        };
        let max = if ip.is_ipv4() { 32 } else { 128 };
        prefix.is_none_or(|p| p.parse::<u8>().is_ok_and(|p| p <= max))
    };
    match allowlist.iter().all(entry_ok) {
        true => Ok(()),
        false => Err(rc::INVALID_ALLOWLIST),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn users_and_roles_answer_real_codes() {
        let mut a = Accounts::new(vec![("admin".into(), b"h".to_vec())]);
        let read = vec!["read".to_string()];
        assert_eq!(
            a.create_user("admin", b"h", &read),
            Err(rc::USER_ALREADY_EXISTS)
        );
        assert_eq!(
            a.create_user("bob", b"h", &["nope".into()]),
            Err(rc::INVALID_ROLE)
        );
        assert_eq!(a.create_user("bob", b"h", &read), Ok(()));
        assert!(a.allows("bob", Perm::Read, b"test", b""));
        assert!(!a.allows("bob", Perm::Write, b"test", b""));
        assert_eq!(a.drop_user("carol"), Err(rc::INVALID_USER));
        assert_eq!(
            a.create_role("read", Role::default()),
            Err(rc::ROLE_ALREADY_EXISTS)
        );
        let bad = Role {
            privileges: vec![Privilege {
                code: 0,
                ns: "test".into(),
                set: String::new(),
            }],
            ..Role::default()
        };
        assert_eq!(a.create_role("r1", bad), Err(rc::INVALID_PRIVILEGE));
        let scoped = Role {
            privileges: vec![Privilege {
                code: 11,
                ns: "test".into(),
                set: "s".into(),
            }],
            ..Role::default()
        };
        assert_eq!(a.create_role("r1", scoped), Ok(()));
        assert_eq!(a.grant_roles("bob", &["r1".into()]), Ok(()));
        assert!(a.allows("bob", Perm::Write, b"test", b"s"));
        assert!(!a.allows("bob", Perm::Write, b"test", b"t"));
        assert_eq!(
            a.set_allowlist("r1", vec!["10.0.0.0/33".into()]),
            Err(rc::INVALID_ALLOWLIST)
        );
        assert_eq!(a.set_allowlist("r1", vec!["10.0.0.0/8".into()]), Ok(()));
        let loopback = "127.0.0.1".parse().ok();
        assert!(!a.admits("bob", loopback));
        assert!(a.admits("bob", "10.1.2.3".parse().ok()));
        assert!(a.admits("admin", loopback));
        assert!(matches("::1", "::1".parse().expect("v6")));
        assert!(matches(
            "127.0.0.0/8",
            "::ffff:127.0.0.9".parse().expect("mapped")
        ));
        assert!(matches("0.0.0.0/0", "8.8.8.8".parse().expect("v4")));
        assert!(!matches("10.0.0.0/8", "11.0.0.1".parse().expect("v4")));
        assert_eq!(a.drop_role("read"), Err(rc::INVALID_ROLE));
        assert_eq!(a.drop_role("r1"), Ok(()));
        assert!(!a.allows("bob", Perm::Write, b"test", b"s"));
    }
}
