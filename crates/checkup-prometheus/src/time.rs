//! The times and durations a user types for a range: Unix seconds, RFC 3339 (what Grafana
//! and `date -Is` print), `now`, `now-2h`; durations as `90s`, `30m`, `1h30m`, `2d`.

/// Seconds since the Unix epoch of `text`, `now` being the current time.
pub fn parse_instant(text: &str, now: f64) -> Result<f64, String> {
    let t = text.trim();
    if t == "now" {
        return Ok(now);
    }
    if let Some(ago) = t.strip_prefix("now-") {
        return Ok(now - parse_duration(ago)?);
    }
    if let Ok(secs) = t.parse::<f64>() {
        return if secs.is_finite() && secs >= 0.0 {
            Ok(secs)
        } else {
            Err(format!("`{t}` is not a time"))
        };
    }
    rfc3339(t).ok_or_else(|| {
        format!("`{t}` is not a time: give Unix seconds, RFC 3339 (2026-12-03T04:00:00Z), now or now-30m")
    })
}

/// Seconds in `text`: a number of seconds, or parts of `d`, `h`, `m`, `s` (`1h30m`).
pub fn parse_duration(text: &str) -> Result<f64, String> {
    let t = text.trim();
    let bad = || format!("`{t}` is not a duration: give 90s, 30m, 1h30m or 2d");
    if let Ok(secs) = t.parse::<f64>() {
        return (secs.is_finite() && secs > 0.0)
            .then_some(secs)
            .ok_or_else(bad);
    }
    let mut total = 0.0;
    let mut number = String::new();
    for c in t.chars() {
        if c.is_ascii_digit() || c == '.' {
            number.push(c);
            continue;
        }
        let unit = match c {
            'd' => 86_400.0,
            'h' => 3_600.0,
            'm' => 60.0,
            's' => 1.0,
            _ => return Err(bad()),
        };
        let n: f64 = number.parse().map_err(|_| bad())?;
        total += n * unit;
        number.clear();
    }
    if !number.is_empty() || total <= 0.0 || !total.is_finite() {
        return Err(bad());
    }
    Ok(total)
}

/// `2026-12-03T04:00:00Z`, `2026-12-03 04:00:00.5+08:00`: seconds since the epoch.
fn rfc3339(t: &str) -> Option<f64> {
    let (date, rest) = t.split_at_checked(10)?;
    let mut d = date.split('-');
    let (y, mo, da) = (
        d.next()?.parse::<i64>().ok()?,
        d.next()?.parse::<u32>().ok()?,
        d.next()?.parse::<u32>().ok()?,
    );
    let rest = rest.strip_prefix(['T', 't', ' '])?;
    // The zone: Z, or ±HH:MM after the seconds.
    let (clock, offset_s) = if let Some(c) = rest.strip_suffix(['Z', 'z']) {
        (c, 0)
    } else {
        let at = rest.rfind(['+', '-'])?;
        let (c, zone) = rest.split_at(at);
        let sign = if zone.starts_with('-') { -1 } else { 1 };
        let (zh, zm) = zone[1..].split_once(':')?;
        (
            c,
            sign * (zh.parse::<i64>().ok()? * 3600 + zm.parse::<i64>().ok()? * 60),
        )
    };
    let mut c = clock.split(':');
    let (h, mi, s) = (
        c.next()?.parse::<u32>().ok()?,
        c.next()?.parse::<u32>().ok()?,
        c.next()?.parse::<f64>().ok()?,
    );
    if c.next().is_some()
        || !(1..=12).contains(&mo)
        || !(1..=31).contains(&da)
        || h > 23
        || mi > 59
        || !(0.0..61.0).contains(&s)
    {
        return None;
    }
    let days = days_from_civil(y, mo, da);
    Some((days * 86_400 + i64::from(h) * 3600 + i64::from(mi) * 60 - offset_s) as f64 + s)
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = i64::from((m + 9) % 12);
    let doy = (153 * mp + 2) / 5 + i64::from(d) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc3339_times_with_zones_and_fractions_read_as_unix_seconds() {
        assert_eq!(parse_instant("1970-01-01T00:00:00Z", 0.0), Ok(0.0));
        // `date -d 2026-12-03T04:00:00Z +%s`
        assert_eq!(
            parse_instant("2026-12-03T04:00:00Z", 0.0),
            Ok(1_796_270_400.0)
        );
        assert_eq!(
            parse_instant("2026-12-03T12:00:00+08:00", 0.0),
            Ok(1_796_270_400.0)
        );
        assert_eq!(
            parse_instant("2026-12-02 23:30:00.5-04:30", 0.0),
            Ok(1_796_270_400.5)
        );
        assert_eq!(
            parse_instant("2000-02-29T00:00:00Z", 0.0),
            Ok(951_782_400.0)
        );
    }

    #[test]
    fn unix_seconds_and_times_relative_to_now_read_as_given() {
        assert_eq!(parse_instant("1796007430.5", 0.0), Ok(1_796_007_430.5));
        assert_eq!(parse_instant("now", 1000.0), Ok(1000.0));
        assert_eq!(parse_instant("now-90s", 1000.0), Ok(910.0));
        assert_eq!(parse_instant("now-1h30m", 10_000.0), Ok(4_600.0));
    }

    #[test]
    fn what_is_no_time_is_refused_with_the_forms_that_are() {
        for bad in [
            "yesterday",
            "2026-13-01T00:00:00Z",
            "2026-12-03T25:00:00Z",
            "2026-12-03",
            "-5",
            "NaN",
        ] {
            let e = parse_instant(bad, 0.0).unwrap_err();
            assert!(e.contains("is not a time"), "{bad}: {e}");
        }
    }

    #[test]
    fn durations_add_their_parts() {
        assert_eq!(parse_duration("90"), Ok(90.0));
        assert_eq!(parse_duration("30m"), Ok(1800.0));
        assert_eq!(parse_duration("1h30m"), Ok(5400.0));
        assert_eq!(parse_duration("2d"), Ok(172_800.0));
        for bad in ["", "0", "30x", "h", "5m3", "-1m"] {
            assert!(parse_duration(bad).is_err(), "{bad}");
        }
    }
}
