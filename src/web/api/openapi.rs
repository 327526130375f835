//! The API's OpenAPI 3.1 schema, generated from the handlers' and bodies' Rust types and
//! served at `GET /api/v1/openapi.json` for client generators and API testers.

use std::sync::LazyLock;

use actix_web::HttpResponse;
use utoipa::openapi::path::Operation;
use utoipa::openapi::response::{Response, ResponseBuilder};
use utoipa::openapi::security::{Http, HttpAuthScheme, SecurityScheme};
use utoipa::openapi::{Content, RefOr};
use utoipa::{Modify, OpenApi};

use super::error::ErrorBody;
use super::{audit, dropoff, mailings, participants, quotas, surveys, templates, webhooks};
use crate::domain::logic::{ExpressionRule, HiddenRule, Rule};
use crate::export::SheetFormat;

/// The schema of the API.
#[derive(OpenApi)]
#[openapi(
    info(
        title = "Canvass API",
        description = "Surveys, their summaries and responses, exports, webhooks and the audit \
            log of one tenant. Every call sends `Authorization: Bearer <key>` with a key made on \
            the tenant's settings page or by `canvass tenant create`; a key acts with the role \
            of the member who made it. Errors answer `{\"error\": reason}`, with `fields` when a \
            body is not valid."
    ),
    paths(
        templates::list,
        surveys::list,
        surveys::create,
        surveys::import,
        surveys::get,
        surveys::update,
        surveys::delete,
        surveys::publish,
        surveys::unpublish,
        surveys::summary,
        surveys::xlsform,
        dropoff::dropoff,
        quotas::quotas,
        participants::add,
        participants::list,
        participants::remove,
        mailings::start,
        mailings::list,
        mailings::one,
        surveys::responses,
        surveys::partials,
        surveys::delete_response,
        surveys::download_responses,
        surveys::request_export,
        surveys::export_status,
        audit::list,
        webhooks::create,
        webhooks::list,
        webhooks::delete,
        webhooks::test,
    ),
    // Named here as well: a path parameter's type and the condition a recursive group
    // refers to are not collected from the operations.
    components(schemas(ErrorBody, SheetFormat, Rule, HiddenRule, ExpressionRule)),
    modifiers(&BearerKey, &CommonErrors),
    security(("api_key" = [])),
    tags(
        (name = "surveys", description = "Survey definitions and their life: draft, open, closed"),
        (name = "responses", description = "Summaries, responses, downloads and deletions"),
        (name = "participants", description = "The known people a survey is for, each with a personal link"),
        (name = "exports", description = "Copies of responses into PostgreSQL"),
        (name = "webhooks", description = "Endpoints that receive a signed event per response"),
        (name = "audit", description = "Who did what, for owners"),
    )
)]
struct ApiDoc;

/// The bearer scheme every operation uses.
struct BearerKey;

impl Modify for BearerKey {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let components = openapi.components.get_or_insert_with(Default::default);
        let mut scheme = Http::new(HttpAuthScheme::Bearer);
        scheme.description = Some("A tenant's API key".into());
        components.add_security_scheme("api_key", SecurityScheme::Http(scheme));
    }
}

/// The errors any operation can answer, added to each one's documented responses (an
/// operation's own description of a status wins).
struct CommonErrors;

impl CommonErrors {
    /// Statuses every operation may answer.
    const ALWAYS: [(&'static str, &'static str); 6] = [
        (
            "400",
            "The request is malformed: a query or path value, or the body's JSON",
        ),
        ("401", "No valid API key"),
        ("403", "The key's role does not allow this"),
        ("404", "Not found in this tenant"),
        (
            "500",
            "Something failed on the server; nothing is half-done",
        ),
        (
            "503",
            "Storage is full or cannot be read right now; try again later",
        ),
    ];
    /// Statuses of operations that take a body.
    const WITH_BODY: [(&'static str, &'static str); 3] = [
        ("408", "The body took too long to arrive"),
        ("413", "The body is over 1 MiB"),
        ("415", "The body is not sent as application/json"),
    ];

    fn response(description: &str) -> RefOr<Response> {
        let body = Content::new(Some(RefOr::Ref(utoipa::openapi::Ref::from_schema_name(
            "ErrorBody",
        ))));
        ResponseBuilder::new()
            .description(description)
            .content("application/json", body)
            .build()
            .into()
    }

    fn add(operation: &mut Operation) {
        let with_body = operation.request_body.is_some();
        let statuses = Self::ALWAYS
            .iter()
            .chain(Self::WITH_BODY.iter().filter(|_| with_body));
        for (status, description) in statuses {
            operation
                .responses
                .responses
                .entry((*status).to_owned())
                .or_insert_with(|| Self::response(description));
        }
    }
}

impl Modify for CommonErrors {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        for item in openapi.paths.paths.values_mut() {
            for operation in [
                &mut item.get,
                &mut item.put,
                &mut item.post,
                &mut item.delete,
            ]
            .into_iter()
            .flatten()
            {
                Self::add(operation);
            }
        }
    }
}

/// The limits of a definition as the schema states them, from the constants the validation
/// itself uses (the schema attributes take literals only, which would state each twice):
/// component, property, keyword, value.
fn limits() -> [(&'static str, &'static str, &'static str, u64); 9] {
    use crate::domain::definition as d;
    use crate::domain::lifecycle::MAX_RESPONSE_LIMIT;
    [
        ("QuestionInput", "text", "maxLength", d::MAX_QUESTION_TEXT),
        (
            "QuestionInput",
            "options",
            "maxItems",
            d::MAX_OPTIONS as u64,
        ),
        ("SurveyInput", "title", "maxLength", d::MAX_TITLE),
        ("SurveyInput", "description", "maxLength", d::MAX_MESSAGE),
        ("SurveyInput", "closed_message", "maxLength", d::MAX_MESSAGE),
        ("SurveyInput", "thank_you", "maxLength", d::MAX_MESSAGE),
        (
            "SurveyInput",
            "questions",
            "maxItems",
            d::MAX_QUESTIONS as u64,
        ),
        ("SurveyInput", "pages", "maxItems", d::MAX_PAGES as u64),
        (
            "SurveyInput",
            "response_limit",
            "maximum",
            MAX_RESPONSE_LIMIT,
        ),
    ]
}

/// The schema as served: generated from the types, with the definition's limits.
fn document() -> serde_json::Value {
    let mut schema = serde_json::to_value(ApiDoc::openapi()).unwrap_or_default();
    for (component, property, keyword, value) in limits() {
        if let Some(slot) = schema
            .pointer_mut(&format!(
                "/components/schemas/{component}/properties/{property}"
            ))
            .and_then(serde_json::Value::as_object_mut)
        {
            slot.insert(keyword.to_owned(), value.into());
        }
    }
    schema
}

/// The schema as JSON, made once.
static SCHEMA: LazyLock<String> = LazyLock::new(|| document().to_string());

/// `GET /api/v1/openapi.json`: the schema (public: it holds no tenant's data).
pub async fn serve() -> HttpResponse {
    HttpResponse::Ok()
        .content_type("application/json")
        .body(SCHEMA.as_str())
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;

    /// `(METHOD, path)` of every route of the API's table but the schema's own.
    fn mounted() -> BTreeSet<(String, String)> {
        crate::web::api::mounted()
            .map(|route| (route.method.to_string(), route.path))
            .filter(|(_, path)| path != "/api/v1/openapi.json")
            .collect()
    }

    #[test]
    fn the_schema_has_every_mounted_route_and_no_other() {
        let schema = ApiDoc::openapi();
        let documented: BTreeSet<(String, String)> = schema
            .paths
            .paths
            .iter()
            .flat_map(|(path, item)| {
                [
                    ("GET", item.get.is_some()),
                    ("PUT", item.put.is_some()),
                    ("POST", item.post.is_some()),
                    ("DELETE", item.delete.is_some()),
                ]
                .into_iter()
                .filter(|(_, present)| *present)
                .map(|(method, _)| (method.to_owned(), path.clone()))
            })
            .collect();
        let mounted = mounted();
        assert_eq!(mounted.len(), 30, "{mounted:?}");
        assert_eq!(documented, mounted);
    }

    #[test]
    fn every_operation_needs_the_bearer_key_and_documents_its_errors() {
        let schema = serde_json::to_value(ApiDoc::openapi()).expect("JSON");
        assert_eq!(schema["openapi"], "3.1.0");
        assert_eq!(
            schema["components"]["securitySchemes"]["api_key"]["scheme"],
            "bearer"
        );
        assert_eq!(schema["security"][0]["api_key"], serde_json::json!([]));
        for (path, item) in schema["paths"].as_object().expect("paths") {
            for (method, operation) in item.as_object().expect("an item") {
                let responses = &operation["responses"];
                for status in ["400", "401", "403", "404", "500", "503"] {
                    assert!(
                        responses[status]["content"]["application/json"].is_object(),
                        "{method} {path} documents {status}"
                    );
                }
                let with_body = operation.get("requestBody").is_some();
                assert_eq!(responses.get("413").is_some(), with_body, "{method} {path}");
                assert_eq!(responses.get("415").is_some(), with_body, "{method} {path}");
            }
        }
    }

    /// Every `$ref` anywhere in `value`.
    fn references(value: &serde_json::Value, found: &mut BTreeSet<String>) {
        match value {
            serde_json::Value::Object(fields) => {
                for (key, field) in fields {
                    match (key.as_str(), field.as_str()) {
                        ("$ref", Some(target)) => {
                            found.insert(target.to_owned());
                        }
                        _ => references(field, found),
                    }
                }
            }
            serde_json::Value::Array(items) => {
                items.iter().for_each(|item| references(item, found));
            }
            _ => {}
        }
    }

    #[test]
    fn every_reference_names_a_component_of_the_schema() {
        let schema = serde_json::to_value(ApiDoc::openapi()).expect("JSON");
        let mut found = BTreeSet::new();
        references(&schema, &mut found);
        assert!(found.len() > 20, "{found:?}");
        for target in found {
            let name = target
                .strip_prefix("#/components/schemas/")
                .unwrap_or_else(|| panic!("{target} is a schema"));
            assert!(
                schema["components"]["schemas"][name].is_object(),
                "{target} is in the schema"
            );
        }
    }

    #[test]
    fn the_served_schema_is_the_generated_one_with_the_definitions_limits() {
        let served: serde_json::Value = serde_json::from_str(&SCHEMA).expect("JSON");
        let mut generated = serde_json::to_value(ApiDoc::openapi()).expect("JSON");
        for (component, property, keyword, value) in limits() {
            let at = format!("/components/schemas/{component}/properties/{property}");
            assert_eq!(
                served.pointer(&format!("{at}/{keyword}")),
                Some(&serde_json::Value::from(value)),
                "{at}"
            );
            generated
                .pointer_mut(&at)
                .and_then(serde_json::Value::as_object_mut)
                .unwrap_or_else(|| panic!("{at} is in the schema"))
                .insert(keyword.to_owned(), value.into());
        }
        assert_eq!(served, generated);
    }
}
