//! `Client`'s security administration calls (users, roles, privileges, allowlists, quotas),
//! declared with [`operations!`]; all run on the worker runtime. Arguments are checked in
//! `crate_calls::admin` before anything is sent.

use pyo3::prelude::*;

use super::client::{read, write, Client};
use crate::crate_calls::admin::{self, RoleSpec};
use crate::exec::completion::Pending;
use crate::metrics::{Kind, Meter};

/// A privilege as Python passes it: name, namespace, set.
type PrivilegeArg = (String, Option<String>, Option<String>);

fn meter() -> Meter {
    Meter::new(Kind::Admin, "")
}

operations! {
    methods {}
    /// Create a user with a password and roles.
    cluster fn admin_create_user / admin_create_user_blocking(
        this, inner, user: String, password: String, roles: Vec<String>,
    ) {
        let _ = this;
        let (user, password) = (admin::name("user", user)?, admin::password(password)?);
        let roles = admin::roles(roles)?;
        (write(meter()), admin::create_user(inner.clone(), user, password, roles))
    }

    /// Remove a user.
    cluster fn admin_drop_user / admin_drop_user_blocking(this, inner, user: String) {
        let _ = this;
        let user = admin::name("user", user)?;
        (write(meter()), admin::drop_user(inner.clone(), user))
    }

    /// Set a user's password (the client's own: proving the old one it logged in with).
    cluster fn admin_change_password / admin_change_password_blocking(
        this, inner, user: String, password: String,
    ) {
        let _ = this;
        let (user, password) = (admin::name("user", user)?, admin::password(password)?);
        (write(meter()), admin::change_password(inner.clone(), user, password))
    }

    /// Add roles to a user.
    cluster fn admin_grant_roles / admin_grant_roles_blocking(
        this, inner, user: String, roles: Vec<String>,
    ) {
        let _ = this;
        let (user, roles) = (admin::name("user", user)?, admin::roles(roles)?);
        (write(meter()), admin::grant_roles(inner.clone(), user, roles))
    }

    /// Remove roles from a user.
    cluster fn admin_revoke_roles / admin_revoke_roles_blocking(
        this, inner, user: String, roles: Vec<String>,
    ) {
        let _ = this;
        let (user, roles) = (admin::name("user", user)?, admin::roles(roles)?);
        (write(meter()), admin::revoke_roles(inner.clone(), user, roles))
    }

    /// One user (by name) or every user, as dicts.
    cluster fn admin_query_users / admin_query_users_blocking(
        this, inner, user: Option<String>,
    ) {
        let _ = this;
        let user = user.map(|u| admin::name("user", u)).transpose()?;
        (read(meter()), admin::query_users(inner.clone(), user))
    }

    /// One role (by name) or every role, as dicts.
    cluster fn admin_query_roles / admin_query_roles_blocking(
        this, inner, role: Option<String>,
    ) {
        let _ = this;
        let role = role.map(|r| admin::name("role", r)).transpose()?;
        (read(meter()), admin::query_roles(inner.clone(), role))
    }

    /// Create a role with privileges, an allowlist and quotas (0: none).
    cluster fn admin_create_role / admin_create_role_blocking(
        this, inner,
        role: String,
        privileges: Vec<PrivilegeArg>,
        allowlist: Vec<String>,
        read_quota: i64,
        write_quota: i64,
    ) {
        let _ = this;
        let role = admin::name("role", role)?;
        let spec = RoleSpec {
            privileges: admin::privileges(privileges)?,
            allowlist: admin::allowlist(allowlist)?,
            read_quota: admin::quota("read_quota", read_quota)?,
            write_quota: admin::quota("write_quota", write_quota)?,
        };
        (write(meter()), admin::create_role(inner.clone(), role, spec))
    }

    /// Remove a role (users holding it lose it).
    cluster fn admin_drop_role / admin_drop_role_blocking(this, inner, role: String) {
        let _ = this;
        let role = admin::name("role", role)?;
        (write(meter()), admin::drop_role(inner.clone(), role))
    }

    /// Add privileges to a role.
    cluster fn admin_grant_privileges / admin_grant_privileges_blocking(
        this, inner, role: String, privileges: Vec<PrivilegeArg>,
    ) {
        let _ = this;
        let (role, privileges) = (admin::name("role", role)?, admin::privileges(privileges)?);
        (write(meter()), admin::grant_privileges(inner.clone(), role, privileges))
    }

    /// Remove privileges from a role.
    cluster fn admin_revoke_privileges / admin_revoke_privileges_blocking(
        this, inner, role: String, privileges: Vec<PrivilegeArg>,
    ) {
        let _ = this;
        let (role, privileges) = (admin::name("role", role)?, admin::privileges(privileges)?);
        (write(meter()), admin::revoke_privileges(inner.clone(), role, privileges))
    }

    /// Replace a role's allowlist (empty: any address).
    cluster fn admin_set_allowlist / admin_set_allowlist_blocking(
        this, inner, role: String, allowlist: Vec<String>,
    ) {
        let _ = this;
        let (role, allowlist) = (admin::name("role", role)?, admin::allowlist(allowlist)?);
        (write(meter()), admin::set_allowlist(inner.clone(), role, allowlist))
    }

    /// Set a role's read and write quotas (records per second; 0: none).
    cluster fn admin_set_quotas / admin_set_quotas_blocking(
        this, inner, role: String, read_quota: i64, write_quota: i64,
    ) {
        let _ = this;
        let role = admin::name("role", role)?;
        let read_quota = admin::quota("read_quota", read_quota)?;
        let write_quota = admin::quota("write_quota", write_quota)?;
        (write(meter()), admin::set_quotas(inner.clone(), role, read_quota, write_quota))
    }
}
