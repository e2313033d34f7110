//! The API's error answers: a status with `{"error": "…"}`, the one shape every refusal has,
//! from the routes and from the accept loop alike.

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;

/// An error answer: `status` with `{"error": message}`.
pub fn error(status: StatusCode, message: impl Into<String>) -> Response {
    (status, Json(serde_json::json!({ "error": message.into() }))).into_response()
}
