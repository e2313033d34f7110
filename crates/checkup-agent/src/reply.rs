//! The API's error answers: a status with `{"error": "…"}`, the one shape every refusal has,
//! from the routes and from the accept loop alike.

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;

/// An error answer: `status` with `{"error": message}`.
pub fn error(status: StatusCode, message: impl Into<String>) -> Response {
    (status, Json(serde_json::json!({ "error": message.into() }))).into_response()
}

/// A JSON body, refused with the API's error answer (`{"error": …}` and axum's status:
/// 400 malformed, 413 too large, 415 not JSON, 422 the wrong shape) instead of axum's plain
/// text, so every client reads one shape of refusal.
pub struct ApiJson<T>(pub T);

impl<S, T> axum::extract::FromRequest<S> for ApiJson<T>
where
    axum::Json<T>:
        axum::extract::FromRequest<S, Rejection = axum::extract::rejection::JsonRejection>,
    S: Send + Sync,
{
    type Rejection = Response;

    async fn from_request(req: axum::extract::Request, state: &S) -> Result<Self, Self::Rejection> {
        match axum::Json::<T>::from_request(req, state).await {
            Ok(axum::Json(v)) => Ok(ApiJson(v)),
            Err(r) => Err(error(r.status(), r.body_text())),
        }
    }
}
