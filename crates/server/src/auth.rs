//! Admin protocol (proto type 2): login and session authentication for internal users; the
//! other admin commands go to [`crate::security::admin`].
//!
//! Clients never send the clear password: they send bcrypt(password) with the fixed salt every
//! Aerospike client uses, so the server keeps that hash per user and compares hashes. A login
//! answers a random session token that later connections present with `AUTHENTICATE`.

use std::collections::{HashMap, VecDeque};
use std::sync::{Mutex, RwLock};

use crate::security::accounts::Accounts;
use crate::security::privilege::Privilege;
use crate::security::{admin, Caller, OpenCounts};
use crate::wire::{begin_frame, end_frame, Reader};

/// Proto type of admin messages.
pub const PROTO_ADMIN: u8 = 2;

/// Admin commands.
const AUTHENTICATE: u8 = 0;
const LOGIN: u8 = 20;

/// Admin field ids.
const USER: u8 = 0;
const CREDENTIAL: u8 = 3;
const SESSION_TOKEN: u8 = 5;
const SESSION_TTL: u8 = 6;

/// Result codes of the admin protocol.
pub mod rc {
    pub const OK: u8 = 0;
    pub const PARAMETER: u8 = 4;
    pub const SECURITY_NOT_SUPPORTED: u8 = 51;
    pub const SECURITY_NOT_ENABLED: u8 = 52;
    pub const INVALID_COMMAND: u8 = 54;
    pub const INVALID_USER: u8 = 60;
    pub const USER_ALREADY_EXISTS: u8 = 61;
    pub const INVALID_PASSWORD: u8 = 62;
    pub const INVALID_CREDENTIAL: u8 = 65;
    pub const INVALID_ROLE: u8 = 70;
    pub const ROLE_ALREADY_EXISTS: u8 = 71;
    pub const INVALID_PRIVILEGE: u8 = 72;
    pub const INVALID_ALLOWLIST: u8 = 73;
    pub const NOT_AUTHENTICATED: u8 = 80;
    pub const ROLE_VIOLATION: u8 = 81;
    pub const NOT_ALLOWLISTED: u8 = 82;
}

/// Seconds a session token stays valid (what the real server's default `session-ttl` is).
const SESSION_TTL_SECS: u32 = 86_400;
/// Session tokens remembered; the oldest is forgotten first.
const SESSIONS_KEPT: usize = 4096;
/// bcrypt cost and salt of the client-side password hash (fixed by the protocol).
const HASH_COST: u32 = 10;
const HASH_SALT: [u8; 16] = [
    244, 107, 11, 190, 207, 254, 141, 27, 6, 103, 216, 79, 109, 193, 216, 169,
];

/// The hash a client sends for `password`.
pub fn client_hash(password: &str) -> Result<String, String> {
    bcrypt::hash_with_salt(password, HASH_COST, HASH_SALT)
        .map(|parts| parts.format_for_version(bcrypt::Version::TwoA))
        .map_err(|e| format!("cannot hash a password: {e}"))
}

/// Internal users, roles and live sessions. Never prints a credential.
pub struct Users {
    accounts: RwLock<Accounts>,
    sessions: Mutex<Sessions>,
    open: OpenCounts,
}

#[derive(Default)]
struct Sessions {
    by_token: HashMap<[u8; 32], String>,
    order: VecDeque<[u8; 32]>,
}

impl std::fmt::Debug for Users {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Users({} configured)", self.read(|a| a.users().count()))
    }
}

impl Users {
    /// Users from `(name, clear password)` pairs, each with every predefined role.
    pub fn new(users: &[(String, String)]) -> Result<Users, String> {
        let mut hashes = Vec::new();
        for (name, password) in users {
            if name.is_empty() {
                return Err("a user name must not be empty".into());
            }
            hashes.push((name.clone(), client_hash(password)?.into_bytes()));
        }
        Ok(Users {
            accounts: RwLock::new(Accounts::new(hashes)),
            sessions: Mutex::new(Sessions::default()),
            open: OpenCounts::default(),
        })
    }

    /// Reads the users and roles.
    pub fn read<T>(&self, f: impl FnOnce(&Accounts) -> T) -> T {
        f(&self.accounts.read().unwrap_or_else(|e| e.into_inner()))
    }

    /// Changes the users and roles.
    pub fn change<T>(&self, f: impl FnOnce(&mut Accounts) -> T) -> T {
        f(&mut self.accounts.write().unwrap_or_else(|e| e.into_inner()))
    }

    /// The privileges `user` holds now (none for a user dropped since it logged in).
    pub fn privileges_of(&self, user: &str) -> Vec<Privilege> {
        self.read(|a| a.privileges_of(user).unwrap_or_default())
    }

    /// Whether `user` may connect from `peer` (its roles' allowlists; none: from anywhere).
    fn admits(&self, user: &[u8], peer: Option<std::net::IpAddr>) -> bool {
        let user = String::from_utf8_lossy(user);
        self.read(|a| a.admits(&user, peer))
    }

    /// Connections logged in as `user`.
    pub fn open_connections(&self, user: &str) -> u32 {
        let counts = self.open.lock().unwrap_or_else(|e| e.into_inner());
        counts.get(user).copied().unwrap_or(0)
    }

    fn check(&self, user: &[u8], credential: &[u8]) -> u8 {
        let Ok(user) = std::str::from_utf8(user) else {
            return rc::INVALID_USER;
        };
        let stored = self.read(|a| a.user(user).map(|u| u.hash.clone()));
        let Some(stored) = stored else {
            return rc::INVALID_USER;
        };
        if constant_time_eq(&stored, credential) {
            rc::OK
        } else {
            rc::INVALID_CREDENTIAL
        }
    }

    fn new_session(&self, user: &[u8]) -> [u8; 32] {
        let token = random_token();
        let mut s = self.sessions.lock().unwrap_or_else(|e| e.into_inner());
        if s.order.len() >= SESSIONS_KEPT {
            if let Some(old) = s.order.pop_front() {
                s.by_token.remove(&old);
            }
        }
        s.by_token
            .insert(token, String::from_utf8_lossy(user).into_owned());
        s.order.push_back(token);
        token
    }

    /// The user a session token belongs to, when it is live (and `user`'s, when named).
    fn session_owner(&self, user: Option<&[u8]>, token: &[u8]) -> Option<String> {
        let token = <[u8; 32]>::try_from(token).ok()?;
        let s = self.sessions.lock().unwrap_or_else(|e| e.into_inner());
        let owner = s.by_token.get(&token)?;
        user.is_none_or(|u| owner.as_bytes() == u)
            .then(|| owner.clone())
    }
}

fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// 32 unpredictable bytes (the OS generator; hashed clock and addresses if it is unavailable).
fn random_token() -> [u8; 32] {
    use std::io::Read;
    let mut t = [0u8; 32];
    let from_os = std::fs::File::open("/dev/urandom").and_then(|mut f| f.read_exact(&mut t));
    if from_os.is_err() {
        use std::hash::{BuildHasher, Hasher};
        for chunk in t.chunks_mut(8) {
            let mut h = std::collections::hash_map::RandomState::new().build_hasher();
            h.write_u128(
                std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map_or(0, |d| d.as_nanos()),
            );
            chunk.copy_from_slice(&h.finish().to_be_bytes());
        }
    }
    t
}

/// Handles one admin message `body` (after the proto header); appends the reply frame to `out`
/// and marks the connection authenticated on success. Returns false when the message is
/// malformed (the connection is then closed). Without `users`, a Community node (`community`)
/// answers that it has no security, an Enterprise one that its security is off.
pub fn handle(
    body: &[u8],
    users: Option<&Users>,
    community: bool,
    caller: &mut Caller,
    out: &mut Vec<u8>,
) -> bool {
    let mut r = Reader::new(body);
    let Ok(head) = r.take(16) else {
        return false;
    };
    let (command, n_fields) = (head[2], head[3]);
    let mut fields = Vec::with_capacity(n_fields as usize);
    for _ in 0..n_fields {
        let Ok(len) = r.u32() else { return false };
        let Some(len) = (len as usize).checked_sub(1) else {
            return false;
        };
        let (Ok(id), Ok(data)) = (r.u8(), r.take(len)) else {
            return false;
        };
        fields.push((id, data));
    }
    let get = |wanted: u8| fields.iter().find(|(id, _)| *id == wanted).map(|f| f.1);
    let Some(users) = users else {
        let code = if community {
            rc::SECURITY_NOT_SUPPORTED
        } else {
            rc::SECURITY_NOT_ENABLED
        };
        reply(out, code, None);
        return true;
    };
    match command {
        LOGIN => match (get(USER), get(CREDENTIAL)) {
            (Some(u), Some(c)) => match users.check(u, c) {
                rc::OK if !users.admits(u, caller.peer) => reply(out, rc::NOT_ALLOWLISTED, None),
                rc::OK => {
                    caller.log_in(String::from_utf8_lossy(u).into_owned(), &users.open);
                    let t = users.new_session(u);
                    reply(out, rc::OK, Some(&t));
                }
                code => reply(out, code, None),
            },
            _ => reply(out, rc::PARAMETER, None),
        },
        AUTHENTICATE => match get(SESSION_TOKEN) {
            Some(t) => match users.session_owner(get(USER), t) {
                Some(owner) if !users.admits(owner.as_bytes(), caller.peer) => {
                    reply(out, rc::NOT_ALLOWLISTED, None)
                }
                Some(owner) => {
                    caller.log_in(owner, &users.open);
                    reply(out, rc::OK, None);
                }
                None => reply(out, rc::NOT_AUTHENTICATED, None),
            },
            None => reply(out, rc::PARAMETER, None),
        },
        _ => match caller.user() {
            Some(user) => admin::handle(command, &fields, users, user, out),
            None => reply(out, rc::NOT_AUTHENTICATED, None),
        },
    }
    true
}

/// One admin field: its length (with the id byte), its id, its bytes.
pub(crate) fn field(out: &mut Vec<u8>, id: u8, data: &[u8]) {
    out.extend_from_slice(&(data.len() as u32 + 1).to_be_bytes());
    out.push(id);
    out.extend_from_slice(data);
}

/// A reply frame: a result code, and a login's session token.
pub(crate) fn reply(out: &mut Vec<u8>, result: u8, token: Option<&[u8; 32]>) {
    let at = begin_frame(out);
    let mut head = [0u8; 16];
    head[1] = result;
    head[3] = if token.is_some() { 2 } else { 0 };
    out.extend_from_slice(&head);
    if let Some(t) = token {
        field(out, SESSION_TOKEN, t);
        field(out, SESSION_TTL, &SESSION_TTL_SECS.to_be_bytes());
    }
    end_frame(out, at, PROTO_ADMIN);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn login(user: &str, hash: &str) -> Vec<u8> {
        let mut b = vec![0u8, 0, LOGIN, 2];
        b.extend_from_slice(&[0; 12]);
        field(&mut b, USER, user.as_bytes());
        field(&mut b, CREDENTIAL, hash.as_bytes());
        b
    }

    fn result(out: &[u8]) -> u8 {
        out[9]
    }

    #[test]
    fn login_then_session() {
        let users = Users::new(&[("admin".into(), "secret".into())]).expect("users");
        let mut authed = Caller::new(true, None);
        let mut out = Vec::new();
        let bad = client_hash("nope").expect("hash");
        assert!(handle(
            &login("admin", &bad),
            Some(&users),
            false,
            &mut authed,
            &mut out
        ));
        assert_eq!(result(&out), rc::INVALID_CREDENTIAL);
        assert!(!authed.authed);
        out.clear();
        assert!(handle(
            &login("who", &bad),
            Some(&users),
            false,
            &mut authed,
            &mut out
        ));
        assert_eq!(result(&out), rc::INVALID_USER);
        out.clear();
        let good = client_hash("secret").expect("hash");
        assert!(handle(
            &login("admin", &good),
            Some(&users),
            false,
            &mut authed,
            &mut out
        ));
        assert_eq!(result(&out), rc::OK);
        assert!(authed.authed);
        assert_eq!(users.open_connections("admin"), 1);
        assert_eq!(out[11], 2);
        let token = out[8 + 16 + 5..8 + 16 + 5 + 32].to_vec();

        let mut b = vec![0u8, 0, AUTHENTICATE, 2];
        b.extend_from_slice(&[0; 12]);
        field(&mut b, USER, b"admin");
        field(&mut b, SESSION_TOKEN, &token);
        let mut fresh = Caller::new(true, None);
        out.clear();
        assert!(handle(&b, Some(&users), false, &mut fresh, &mut out));
        assert_eq!(result(&out), rc::OK);
        assert!(fresh.authed);
        assert_eq!(users.open_connections("admin"), 2);
        drop(fresh);
        assert_eq!(users.open_connections("admin"), 1);
        assert!(!format!("{users:?}").contains("secret"));
    }

    #[test]
    fn malformed_and_disabled() {
        let mut authed = Caller::new(false, None);
        let mut out = Vec::new();
        assert!(!handle(&[0; 5], None, false, &mut authed, &mut out));
        let mut b = vec![0u8, 0, LOGIN, 3];
        b.extend_from_slice(&[0; 12]);
        b.extend_from_slice(&0u32.to_be_bytes());
        assert!(!handle(&b, None, false, &mut authed, &mut out));
        out.clear();
        assert!(handle(&login("a", "b"), None, false, &mut authed, &mut out));
        assert_eq!(result(&out), rc::SECURITY_NOT_ENABLED);
        out.clear();
        assert!(handle(&login("a", "b"), None, true, &mut authed, &mut out));
        assert_eq!(result(&out), rc::SECURITY_NOT_SUPPORTED);
    }
}
