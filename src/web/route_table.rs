//! Routes as data: each scope (the tenant site, the API) is mounted from a table of method,
//! path, least role and handler, and the same table is what the schema check, the role walk
//! and the cross-tenant walk read. A route added to a table is covered by those tests the
//! day it is added; a route mounted any other way does not exist.

use actix_web::http::Method;
use actix_web::web;

use crate::domain::member::Role;

/// Who may use a route.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    /// Anyone: sign-up, sign-in, reset and join pages, the API schema.
    Anyone,
    /// A member whose role is at least this one (a session on the site, a key in the API).
    /// The handler's extractor enforces it; the role walk proves the two agree.
    Member(Role),
}

/// One route of a scope.
pub struct Route {
    /// The HTTP method.
    pub method: Method,
    /// The path under the scope, with `{name}` parameters as actix writes them.
    pub path: &'static str,
    /// Who may use it.
    pub access: Access,
    /// Attaches the handler to a route of `method`.
    pub(crate) handler: fn(actix_web::Route) -> actix_web::Route,
}

/// A table's route with its scope's prefix, as tests and documents name it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mounted {
    /// The HTTP method.
    pub method: Method,
    /// The full path, with `{name}` parameters.
    pub path: String,
    /// Who may use it.
    pub access: Access,
}

/// Who may use a table's route: anyone, or members of at least the one role given.
pub(crate) const fn access_of(roles: &[Role]) -> Access {
    match roles {
        [role] => Access::Member(*role),
        _ => Access::Anyone,
    }
}

/// A table of routes, one line each: `METHOD "path" => handler` for anyone, or
/// `METHOD "path" for ROLE => handler` for members of at least that role.
macro_rules! routes {
    ($($method:ident $path:literal $(for $role:ident)? => $handler:path),* $(,)?) => {
        &[$($crate::web::route_table::Route {
            method: actix_web::http::Method::$method,
            path: $path,
            access: $crate::web::route_table::access_of(&[$($crate::domain::member::Role::$role)?]),
            handler: |r| r.to($handler),
        }),*]
    };
}
pub(crate) use routes;

/// Mounts every route of `table` on `scope`.
pub(crate) fn mount(scope: actix_web::Scope, table: &[Route]) -> actix_web::Scope {
    table.iter().fold(scope, |scope, route| {
        scope.route(
            route.path,
            (route.handler)(web::method(route.method.clone())),
        )
    })
}

/// The routes of `table` under `prefix`.
pub(crate) fn under(prefix: &str, table: &[Route]) -> impl Iterator<Item = Mounted> {
    table.iter().map(move |route| Mounted {
        method: route.method.clone(),
        path: format!("{prefix}{}", route.path),
        access: route.access,
    })
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;

    #[test]
    fn no_route_is_mounted_twice() {
        let routes = crate::web::mounted_routes();
        let distinct: BTreeSet<(String, String)> = routes
            .iter()
            .map(|r| (r.method.to_string(), r.path.clone()))
            .collect();
        assert_eq!(distinct.len(), routes.len());
        assert!(routes.len() > 60, "{}", routes.len());
    }

    #[test]
    fn every_tenant_page_past_sign_in_and_every_api_call_but_the_schema_needs_a_member() {
        let open: BTreeSet<String> = crate::web::mounted_routes()
            .into_iter()
            .filter(|r| r.access == Access::Anyone)
            .map(|r| r.path)
            .collect();
        let expected: BTreeSet<String> = [
            "/tenant/sign-up",
            "/tenant/sign-up/address",
            "/tenant/sign-in",
            "/tenant/forgot-password",
            "/tenant/reset-password/{token}",
            "/tenant/join/{token}",
            "/tenant/join/{token}/sso",
            "/tenant/sso",
            "/tenant/sso/callback",
            "/api/v1/openapi.json",
        ]
        .into_iter()
        .map(str::to_owned)
        .collect();
        assert_eq!(open, expected);
    }
}
