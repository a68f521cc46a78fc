//! Privilege codes, the predefined roles, and which privilege grants which permission.

/// A privilege code as the admin protocol numbers it.
pub type Code = u8;

/// The privileges, by wire code and name. Codes below [`FIRST_SCOPED`] are global only.
pub const PRIVILEGES: &[(Code, &str)] = &[
    (0, "user-admin"),
    (1, "sys-admin"),
    (2, "data-admin"),
    (3, "udf-admin"),
    (4, "sindex-admin"),
    (10, "read"),
    (11, "read-write"),
    (12, "read-write-udf"),
    (13, "write"),
    (14, "truncate"),
];

/// The first code that may be scoped to a namespace and set.
pub const FIRST_SCOPED: Code = 10;

/// Whether a code is one this server knows.
pub fn known(code: Code) -> bool {
    PRIVILEGES.iter().any(|(c, _)| *c == code)
}

/// The code of a predefined role (each is named after its one global privilege).
pub fn predefined(role: &str) -> Option<Code> {
    PRIVILEGES
        .iter()
        .find(|(_, name)| *name == role)
        .map(|(c, _)| *c)
}

/// What a request needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Perm {
    Read,
    Write,
    /// Apply a record UDF (single record, batch row or background job).
    UdfApply,
    Truncate,
    SindexAdmin,
    UdfAdmin,
    /// Server configuration and cluster control.
    SysAdmin,
    /// Users and roles.
    UserAdmin,
}

/// Whether privilege `code` grants `perm` (scope aside).
pub fn grants(code: Code, perm: Perm) -> bool {
    use Perm::*;
    match code {
        0 => perm == UserAdmin,
        1 => perm == SysAdmin,
        2 => matches!(perm, SindexAdmin | UdfAdmin | Truncate),
        3 => perm == UdfAdmin,
        4 => perm == SindexAdmin,
        10 => perm == Read,
        11 => matches!(perm, Read | Write),
        12 => matches!(perm, Read | Write | UdfApply),
        13 => perm == Write,
        14 => perm == Truncate,
        _ => false,
    }
}

/// One privilege: a code and its scope (empty namespace: every namespace; empty set: every
/// set of the namespace).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Privilege {
    pub code: Code,
    pub ns: String,
    pub set: String,
}

impl Privilege {
    /// A global privilege.
    pub fn global(code: Code) -> Privilege {
        Privilege {
            code,
            ns: String::new(),
            set: String::new(),
        }
    }

    /// Whether it grants `perm` on `ns`/`set` (an empty `ns`: a request about no namespace).
    pub fn allows(&self, perm: Perm, ns: &[u8], set: &[u8]) -> bool {
        grants(self.code, perm)
            && (self.ns.is_empty()
                || (self.ns.as_bytes() == ns
                    && (self.set.is_empty() || self.set.as_bytes() == set)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scope_narrows_a_privilege() {
        let p = Privilege {
            code: 10,
            ns: "test".into(),
            set: "a".into(),
        };
        assert!(p.allows(Perm::Read, b"test", b"a"));
        assert!(!p.allows(Perm::Read, b"test", b"b"));
        assert!(!p.allows(Perm::Read, b"bar", b"a"));
        assert!(!p.allows(Perm::Write, b"test", b"a"));
        assert!(Privilege::global(12).allows(Perm::UdfApply, b"x", b""));
        assert!(Privilege::global(2).allows(Perm::Truncate, b"x", b""));
        assert_eq!(predefined("read-write"), Some(11));
        assert_eq!(predefined("nobody"), None);
    }
}
