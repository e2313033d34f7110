//! The two calls of Prometheus's HTTP API the reader makes: the series a range holds
//! (`/api/v1/series`), and a metric's raw samples over the range (`/api/v1/query` with a
//! range selector, which returns every scraped sample as stored, rather than
//! `query_range`'s values repeated or dropped at a chosen step).

use std::collections::BTreeMap;
use std::time::Duration;

use serde::Deserialize;

use crate::error::PrometheusError;

/// A series' labels.
pub type Labels = BTreeMap<String, String>;

/// One series with its samples: (Unix seconds, value).
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    /// Its labels, `__name__` among them.
    pub labels: Labels,
    /// Its samples, in time order.
    pub samples: Vec<(f64, f64)>,
}

/// The longest answer read: a day of 1 s samples of one metric on eight GPUs is ~30 MB.
const MAX_BODY: u64 = 512 << 20;

/// A Prometheus server's HTTP API.
pub struct Client {
    base: String,
    agent: ureq::Agent,
}

#[derive(Deserialize)]
struct Answer<T> {
    status: String,
    #[serde(default = "none")]
    data: Option<T>,
    #[serde(default, rename = "errorType")]
    error_type: Option<String>,
    #[serde(default)]
    error: Option<String>,
}

fn none<T>() -> Option<T> {
    None
}

#[derive(Deserialize)]
struct QueryData {
    #[serde(rename = "resultType")]
    result_type: String,
    result: Vec<MatrixSeries>,
}

#[derive(Deserialize)]
struct MatrixSeries {
    metric: Labels,
    #[serde(default)]
    values: Vec<(f64, String)>,
}

impl Client {
    /// A client of the server at `url` (`http://prom:9090`, or a path under which it is
    /// served, `https://grafana.example/prometheus`).
    pub fn new(url: &str) -> Result<Self, PrometheusError> {
        let base = url.trim_end_matches('/').to_owned();
        if !(base.starts_with("http://") || base.starts_with("https://")) {
            return Err(PrometheusError::BadUrl {
                url: url.to_owned(),
            });
        }
        let agent = ureq::Agent::config_builder()
            .timeout_global(Some(Duration::from_secs(120)))
            // Prometheus answers a bad query with 400 and a JSON error, which says more
            // than the status.
            .http_status_as_error(false)
            .build()
            .into();
        Ok(Self { base, agent })
    }

    /// The server's address as given.
    pub fn url(&self) -> &str {
        &self.base
    }

    /// The label sets of the series `selector` matches between `start` and `end`.
    pub fn series(
        &self,
        selector: &str,
        start: f64,
        end: f64,
    ) -> Result<Vec<Labels>, PrometheusError> {
        let (start, end) = (start.to_string(), end.to_string());
        self.get::<Vec<Labels>>(
            "/api/v1/series",
            &[("match[]", selector), ("start", &start), ("end", &end)],
        )
    }

    /// Every stored sample of the series `selector` matches in (`end` − `seconds`, `end`].
    pub fn raw_samples(
        &self,
        selector: &str,
        seconds: u64,
        end: f64,
    ) -> Result<Vec<Series>, PrometheusError> {
        let query = format!("{selector}[{seconds}s]");
        let end = end.to_string();
        let data: QueryData = self.get("/api/v1/query", &[("query", &query), ("time", &end)])?;
        if data.result_type != "matrix" {
            return Err(self.bad_answer(format!(
                "`{query}` gave a {} instead of a matrix",
                data.result_type
            )));
        }
        data.result
            .into_iter()
            .map(|s| {
                let samples = s
                    .values
                    .into_iter()
                    .filter_map(|(t, v)| Some((t, parse_value(&v)?)))
                    .collect();
                Ok(Series {
                    labels: s.metric,
                    samples,
                })
            })
            .collect()
    }

    fn get<T: serde::de::DeserializeOwned>(
        &self,
        path: &str,
        params: &[(&str, &str)],
    ) -> Result<T, PrometheusError> {
        let url = format!("{}{path}", self.base);
        let mut request = self.agent.get(&url);
        for (k, v) in params {
            request = request.query(*k, *v);
        }
        let mut response = request.call().map_err(|e| PrometheusError::Unreachable {
            url: self.base.clone(),
            message: e.to_string(),
        })?;
        let status = response.status().as_u16();
        let body = response
            .body_mut()
            .with_config()
            .limit(MAX_BODY)
            .read_to_string()
            .map_err(|e| PrometheusError::Unreachable {
                url: self.base.clone(),
                message: e.to_string(),
            })?;
        let answer: Answer<T> = match serde_json::from_str(&body) {
            Ok(a) => a,
            Err(_) => {
                return Err(PrometheusError::NotPrometheus {
                    url: self.base.clone(),
                    status,
                    excerpt: excerpt(&body),
                })
            }
        };
        if answer.status != "success" {
            return Err(PrometheusError::Refused {
                url: self.base.clone(),
                kind: answer.error_type.unwrap_or_default(),
                message: answer.error.unwrap_or_default(),
            });
        }
        answer
            .data
            .ok_or_else(|| self.bad_answer(format!("{path} answered without data")))
    }

    fn bad_answer(&self, message: String) -> PrometheusError {
        PrometheusError::NotPrometheus {
            url: self.base.clone(),
            status: 200,
            excerpt: message,
        }
    }
}

/// A sample's value as Prometheus writes it: a number, or NaN / ±Inf, which are no reading.
fn parse_value(v: &str) -> Option<f64> {
    v.parse::<f64>().ok().filter(|x| x.is_finite())
}

/// The start of an answer that is not Prometheus's JSON, for the error message.
fn excerpt(body: &str) -> String {
    let one_line: String = body.split_whitespace().collect::<Vec<_>>().join(" ");
    match one_line.char_indices().nth(160) {
        Some((i, _)) => format!("{}…", &one_line[..i]),
        None => one_line,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_reading_values_are_left_out() {
        assert_eq!(parse_value("87"), Some(87.0));
        assert_eq!(parse_value("1e3"), Some(1000.0));
        assert_eq!(parse_value("NaN"), None);
        assert_eq!(parse_value("+Inf"), None);
    }

    #[test]
    fn an_address_without_a_scheme_is_refused() {
        assert!(matches!(
            Client::new("prometheus:9090"),
            Err(PrometheusError::BadUrl { .. })
        ));
        assert_eq!(
            Client::new("http://p:9090/").unwrap().url(),
            "http://p:9090"
        );
    }

    #[test]
    fn a_long_html_answer_is_cut_to_one_line() {
        let page = format!("<html>\n<body>{}</body>", "x".repeat(500));
        let e = excerpt(&page);
        assert!(e.starts_with("<html> <body>xx"), "{e}");
        assert!(e.ends_with('…') && e.chars().count() == 161, "{e}");
    }
}
