//! The generator's fixed clock (seconds in an hour, a day and a week; its "now" and the epoch
//! of its week numbers) and RFC 3339 formatting of its times.

use chrono::DateTime;
use chrono::{Offset, TimeZone};
use chrono_tz::Tz;

pub(super) const H: i64 = 3600;
pub(super) const D: i64 = 86_400;
pub(super) const W: i64 = 7 * D;
/// 2026-11-01T00:00:00Z.
pub(super) const NOW: i64 = 1_793_491_200;
/// 2026-01-05T00:00:00Z, a Monday: week 0 of the weekly services.
pub(super) const EPOCH: i64 = 1_767_571_200;

pub(super) fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = if z >= 0 { z } else { z - 146_096 } / 146_097;
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = (if mp < 10 { mp + 3 } else { mp - 9 }) as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

pub(super) fn push_digits(s: &mut String, n: u64, width: usize) {
    let mut buf = [b'0'; 20];
    let mut i = buf.len();
    let mut n = n;
    while n > 0 {
        i -= 1;
        buf[i] = b'0' + (n % 10) as u8;
        n /= 10;
    }
    let start = (buf.len() - width).min(i);
    for &b in &buf[start..] {
        s.push(b as char);
    }
}

/// RFC 3339 with seconds: `Z` for offset 0, else `+hh:mm`.
pub(super) fn fmt_time(secs: i64, offset: i32) -> String {
    let local = secs + i64::from(offset);
    let (y, m, d) = civil_from_days(local.div_euclid(D));
    let sod = local.rem_euclid(D) as u64;
    let mut s = String::with_capacity(25);
    push_digits(&mut s, y.max(0) as u64, 4);
    s.push('-');
    push_digits(&mut s, u64::from(m), 2);
    s.push('-');
    push_digits(&mut s, u64::from(d), 2);
    s.push('T');
    push_digits(&mut s, sod / 3600, 2);
    s.push(':');
    push_digits(&mut s, sod / 60 % 60, 2);
    s.push(':');
    push_digits(&mut s, sod % 60, 2);
    if offset == 0 {
        s.push('Z');
    } else {
        s.push(if offset < 0 { '-' } else { '+' });
        let a = offset.unsigned_abs() / 60;
        push_digits(&mut s, u64::from(a / 60), 2);
        s.push(':');
        push_digits(&mut s, u64::from(a % 60), 2);
    }
    s
}

pub(super) fn fmt_utc(secs: i64) -> String {
    fmt_time(secs, 0)
}

/// Local time at a port (with its UTC offset at that instant, DST included).
pub(super) fn fmt_local(secs: i64, tz: Tz) -> String {
    let naive = DateTime::from_timestamp(secs, 0)
        .unwrap_or_default()
        .naive_utc();
    let off = tz.offset_from_utc_datetime(&naive).fix().local_minus_utc();
    fmt_time(secs, off)
}
